"""OpenCL C element types as numpy holds them: a scalar (``uint``) or a vector of one
(``float4``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

ELEMENT_TYPES: dict[str, np.dtype] = {
    "char": np.dtype(np.int8),
    "uchar": np.dtype(np.uint8),
    "short": np.dtype(np.int16),
    "ushort": np.dtype(np.uint16),
    "int": np.dtype(np.int32),
    "uint": np.dtype(np.uint32),
    "long": np.dtype(np.int64),
    "ulong": np.dtype(np.uint64),
    "half": np.dtype(np.float16),
    "float": np.dtype(np.float32),
    "double": np.dtype(np.float64),
}
VECTOR_WIDTHS = (1, 2, 3, 4, 8, 16)
_TYPE = re.compile(r"^(?P<base>[a-z]+?)(?P<width>2|3|4|8|16)?$")


class ElementTypeError(ValueError):
    """A type name that is not an OpenCL C scalar or vector type the explorer passes."""


@dataclass(frozen=True)
class ElementType:
    """An OpenCL C element type: a scalar (``uint``) or a vector of one (``float4``)."""

    name: str
    base: np.dtype
    width: int

    @property
    def lanes(self) -> int:
        """Scalars one element occupies in memory (a 3-vector is stored as a 4-vector)."""
        return 4 if self.width == 3 else self.width

    @property
    def nbytes(self) -> int:
        return self.base.itemsize * self.lanes


def element_type(name: str) -> ElementType:
    """``float4`` → float32 × 4; an ElementTypeError names the types there are."""
    match = _TYPE.match(name.strip())
    if match is None or match["base"] not in ELEMENT_TYPES:
        raise ElementTypeError(
            f"unknown element type {name!r}; one of {', '.join(ELEMENT_TYPES)}, optionally "
            "followed by a vector width 2, 3, 4, 8 or 16"
        )
    return ElementType(name.strip(), ELEMENT_TYPES[match["base"]], int(match["width"] or 1))


def of_dtype(dtype: np.dtype) -> ElementType:
    """The scalar element type numpy calls ``dtype`` (float32 → ``float``)."""
    for name, base in ELEMENT_TYPES.items():
        if base == np.dtype(dtype):
            return ElementType(name, base, 1)
    raise ElementTypeError(f"no OpenCL C element type holds {np.dtype(dtype)}")
