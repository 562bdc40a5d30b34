"""The families and the registry every other layer asks about a family.

A family is one module of this package defining one concrete :class:`Family` subclass; the
registry finds it by walking the package, so adding a family is adding its module (and its
kernels under ``kernels/<family>/``). ``Family.order`` places it in menus and listings.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from explorer.families.base import Family, InputError, Problem, Reference

# Modules of this package that hold shared code, not a family.
_NOT_FAMILIES = frozenset({"base", "images", "text_image"})


def _discover() -> dict[str, Family]:
    found: list[Family] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name in _NOT_FAMILIES or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found += [
            cls()
            for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, Family)
            and cls.__module__ == module.__name__
            and not inspect.isabstract(cls)
        ]
    found.sort(key=lambda f: (f.order, f.family))
    return {f.family: f for f in found}


FAMILIES: dict[str, Family] = _discover()


class UnknownFamilyError(KeyError, ValueError):
    """A family name that is not in the registry; the message lists the known ones."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown family"


def get_family(name: str) -> Family:
    """The family called ``name``; an error naming every known family otherwise."""
    try:
        return FAMILIES[name]
    except KeyError:
        known = ", ".join(FAMILIES)
        raise UnknownFamilyError(f"unknown family {name!r}; known families: {known}") from None


__all__ = [
    "FAMILIES",
    "Family",
    "InputError",
    "Problem",
    "Reference",
    "UnknownFamilyError",
    "get_family",
]
