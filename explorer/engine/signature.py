"""The parameter list of a ``__kernel`` function, read from its OpenCL C source.

The catalog header maps the family's roles onto parameters by position; the types
(``int`` vs ``uint``, ``__global`` vs ``__local``) come from the source itself, so the
seeds' kernels run with their own parameter types.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

_SCALARS: dict[str, type[np.number]] = {
    "char": np.int8,
    "uchar": np.uint8,
    "short": np.int16,
    "ushort": np.uint16,
    "int": np.int32,
    "uint": np.uint32,
    "long": np.int64,
    "ulong": np.uint64,
    "size_t": np.uint64,
    "float": np.float32,
    "double": np.float64,
}
_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "unsigned", "signed"}


@dataclass(frozen=True)
class Parameter:
    name: str
    space: str  # "global", "local", "constant" for pointers; "scalar" otherwise
    scalar_type: str | None  # for scalars: "int", "uint", "float", ...


class SignatureError(ValueError):
    pass


def _strip_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), source, flags=re.S)
    return re.sub(r"//[^\n]*", "", source)


def kernel_parameters(source: str, kernel: str) -> list[Parameter]:
    """The parameters of ``kernel`` in declaration order."""
    code = _strip_comments(source)
    match = re.search(
        r"(?:__kernel|\bkernel)\s+(?:__attribute__\s*\(\(.*?\)\)\s*)?void\s+"
        + re.escape(kernel)
        + r"\s*\(([^)]*)\)",
        code,
        flags=re.S,
    )
    if match is None:
        raise SignatureError(f"no '__kernel void {kernel}(...)' in the source")
    params = []
    for raw in match.group(1).split(","):
        text = " ".join(raw.split())
        if not text:
            continue
        name_match = re.search(r"([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*$", text)
        if name_match is None:
            raise SignatureError(f"cannot read parameter {text!r} of {kernel}")
        name = name_match.group(1)
        words = re.findall(r"[A-Za-z_]\w*", text[: name_match.start()])
        pointer = "*" in text or name_match.group(2) is not None
        if pointer:
            space = "global"
            for w in words:
                if w in ("__local", "local"):
                    space = "local"
                elif w in ("__constant", "constant"):
                    space = "constant"
            params.append(Parameter(name, space, None))
        else:
            unsigned = "unsigned" in words
            types = [w for w in words if w not in _QUALIFIERS and not w.startswith("__")]
            base = types[-1] if types else "int"
            if unsigned and base in ("int", "char", "short", "long"):
                base = "u" + base
            if base not in _SCALARS:
                raise SignatureError(f"parameter {name} of {kernel} has unsupported type {base!r}")
            params.append(Parameter(name, "scalar", base))
    return params


def numpy_scalar(type_name: str, value: float) -> np.generic:
    """``value`` as the numpy scalar that matches an OpenCL C scalar type."""
    scalar: np.generic = np.dtype(_SCALARS[type_name]).type(value)
    return scalar
