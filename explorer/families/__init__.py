"""One module per problem family: inputs, numpy reference, sizes, FLOP and byte counts."""

from explorer.families.base import InputError, Problem, Reference
from explorer.families.matmul import Matmul
from explorer.families.matvec import Matvec
from explorer.families.rowdot import Rowdot
from explorer.families.transpose import Transpose

FAMILIES: dict[str, Problem] = {p.family: p for p in (Matmul(), Transpose(), Matvec(), Rowdot())}

__all__ = ["FAMILIES", "InputError", "Problem", "Reference"]
