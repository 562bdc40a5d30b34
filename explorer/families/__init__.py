"""The families and the registry every other layer asks about a family.

A family is one module of this package defining one concrete :class:`KernelModel` subclass
(a :class:`Family` with its maths, or the ``custom`` form whose kernels declare their own
parameters); the registry finds it by walking the package, so adding a family is adding its
module (and its kernels under ``kernels/<family>/``). ``order`` places it in menus and
listings.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from explorer.description.launch import Reference
from explorer.families.base import Family, InputError, KernelModel

# Modules of this package that hold shared code, not a family.
_NOT_FAMILIES = frozenset({"base"})


def _discover() -> dict[str, KernelModel]:
    found: list[KernelModel] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name in _NOT_FAMILIES or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found += [
            cls()
            for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, KernelModel)
            and cls.__module__ == module.__name__
            and not inspect.isabstract(cls)
        ]
    found.sort(key=lambda f: (f.order, f.family))
    return {f.family: f for f in found}


FAMILIES: dict[str, KernelModel] = _discover()


class UnknownFamilyError(KeyError, ValueError):
    """A family name that is not in the registry; the message lists the known ones."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown family"


def get_family(name: str) -> KernelModel:
    """The family called ``name``; an error naming every known family otherwise."""
    try:
        return FAMILIES[name]
    except KeyError:
        known = ", ".join(FAMILIES)
        raise UnknownFamilyError(f"unknown family {name!r}; known families: {known}") from None


def fixed_family(name: str) -> Family:
    """The family with fixed maths called ``name`` (what the benchmarks and the numpy and
    torch baselines need); an error naming every such family otherwise."""
    found = FAMILIES.get(name)
    if isinstance(found, Family):
        return found
    known = ", ".join(n for n, f in FAMILIES.items() if isinstance(f, Family))
    raise UnknownFamilyError(f"no family {name!r} with its own maths; those are: {known}")


__all__ = [
    "FAMILIES",
    "Family",
    "InputError",
    "KernelModel",
    "Reference",
    "UnknownFamilyError",
    "fixed_family",
    "get_family",
]
