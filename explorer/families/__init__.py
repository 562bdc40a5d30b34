"""The families, one class each, and the registry every other layer asks about a family."""

from explorer.families.base import Family, InputError, Problem, Reference
from explorer.families.matmul import Matmul
from explorer.families.matvec import Matvec
from explorer.families.rowdot import Rowdot
from explorer.families.stencil import Stencil
from explorer.families.transpose import Transpose

FAMILIES: dict[str, Family] = {
    f.family: f for f in (Matmul(), Transpose(), Matvec(), Rowdot(), Stencil())
}


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
