"""One module per problem family: inputs, numpy reference, sizes, FLOP and byte counts."""

from explorer.problems.base import InputError, Problem, Reference
from explorer.problems.matmul import Matmul
from explorer.problems.matvec import Matvec
from explorer.problems.rowdot import Rowdot
from explorer.problems.transpose import Transpose

FAMILIES: dict[str, Problem] = {p.family: p for p in (Matmul(), Transpose(), Matvec(), Rowdot())}

__all__ = ["FAMILIES", "InputError", "Problem", "Reference"]
