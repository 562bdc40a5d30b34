"""The parameter list of a ``__kernel`` function, read by the OpenCL C front end.

The catalog header maps the family's roles onto parameters by position; the types
(``int`` vs ``uint``, ``__global`` vs ``__local``, a ``typedef int index_t``) come from the
source itself as clang types them, so the seeds' kernels run with their own parameter types.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from explorer.engine.build_inputs import build_digest
from explorer.frontend import AddressSpace, ParsedSource, ParseError, parse
from explorer.frontend import Parameter as SourceParameter

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
# clang's canonical spelling of each scalar type, as OpenCL C names it.
_CANONICAL = {
    "signed char": "char",
    "unsigned char": "uchar",
    "unsigned short": "ushort",
    "unsigned int": "uint",
    "unsigned long": "ulong",
    "bool": "uchar",
}
_SPACES = {
    AddressSpace.GLOBAL: "global",
    AddressSpace.LOCAL: "local",
    AddressSpace.CONSTANT: "constant",
}


@dataclass(frozen=True)
class Parameter:
    name: str
    space: str  # "global", "local", "constant" for pointers; "image", "sampler"; "scalar"
    scalar_type: str | None  # for scalars: "int", "uint", "float", ...
    is_image: bool = False  # an image2d_t/image3d_t/... memory object, or a sampler_t
    # The pointee's type for pointers, the type itself otherwise, in OpenCL C spelling
    # ("uint", "float4", a struct's name), its size in bytes and its vector width.
    element_type: str = ""
    element_size: int = 0
    vector_width: int = 1
    is_const: bool = False
    # An image's type ("image2d_t", "image3d_t", "image1d_t", ...) and its access qualifier
    # ("read", "write", "readwrite"), as the kernel declares them.
    image_type: str = ""
    image_access: str = ""

    @property
    def is_sampler(self) -> bool:
        return self.space == "sampler"

    @property
    def image_dims(self) -> int:
        """2 for ``image2d_t``, 3 for ``image3d_t``; 0 for another image type or none."""
        return {"image2d_t": 2, "image3d_t": 3}.get(self.image_type, 0)


class SignatureError(ValueError):
    pass


def _parameter(p: SourceParameter) -> Parameter:
    element = _CANONICAL.get(p.element_type, p.element_type)
    facts = (element, p.element_size, p.vector_width, p.is_const)
    if p.is_pointer:
        return Parameter(p.name, _SPACES.get(p.address_space, "global"), None, False, *facts)
    text = p.element_type
    qualifiers = ("__read_only", "__write_only", "__read_write")
    words = [w for w in text.split() if w not in qualifiers]
    base = _CANONICAL.get(" ".join(words), " ".join(words))
    if base == "sampler_t":
        return Parameter(p.name, "sampler", None, True, *facts)
    if base.startswith("image") or "image" in p.type_text:
        access = "read"
        if "__write_only" in text or "__read_write" in text:
            access = "write" if "__write_only" in text else "readwrite"
        kind = next((w for w in words if w.startswith("image")), base)
        return Parameter(p.name, "image", None, True, *facts, image_type=kind, image_access=access)
    return Parameter(p.name, "scalar", base, False, *facts)


def kernel_signature(
    source: str,
    kernel: str,
    defines: dict[str, int] | dict[str, int | str] | dict[str, str] | None = None,
    include_dirs: tuple[str, ...] = (),
) -> list[Parameter]:
    """Every parameter of ``kernel`` in declaration order, images included (the dialog
    shows them). A source that does not compile without its defines is read as far as it
    can be; ``include_dirs`` are where its ``#include "..."`` files are."""
    defined = tuple(sorted((defines or {}).items()))
    headers = build_digest(source, tuple(f"-I{d}" for d in include_dirs)) if include_dirs else ""
    return list(_signature(source, kernel, defined, include_dirs, headers))


@lru_cache(maxsize=32)
def _signature(
    source: str,
    kernel: str,
    defines: tuple[tuple[str, int | str], ...],
    include_dirs: tuple[str, ...] = (),
    headers: str = "",
) -> tuple[Parameter, ...]:
    """``kernel_signature``, remembered: every run and trace of a kernel asks again (a
    libclang parse each time), and the answer depends on nothing else but the files it
    includes (``headers``: their digest, a key only; an edited one is read again)."""
    try:  # read as far as it can be; a source libclang cannot load at all is said so
        parsed = parse(source, dict(defines), "kernel.cl", strict=False, include_dirs=include_dirs)
    except ParseError as exc:
        raise SignatureError(str(exc)) from None
    try:
        function = parsed.kernel(kernel)
    except KeyError:
        raise SignatureError(_missing(kernel, parsed, defines)) from None
    return tuple(_parameter(p) for p in function.parameters)


def _missing(kernel: str, parsed: ParsedSource, defines: tuple[tuple[str, int | str], ...]) -> str:
    """Why ``kernel`` is not one of the source's kernels, with the kernels it has: an
    ``#if`` on the defines may have left it out, or it is a function without ``__kernel``."""
    message = f"no '__kernel void {kernel}(...)' in the source"
    if defines:
        message += " as built with " + " ".join(f"-D {name}={value}" for name, value in defines)
    if any(f.name == kernel for f in parsed.helpers):
        return f"{message}: {kernel} is a function without __kernel"
    found = [f.name for f in parsed.kernels]
    return f"{message}; its kernels: {', '.join(found)}" if found else f"{message}; it has none"


def compiler_warnings(
    source: str,
    defines: dict[str, int] | None = None,
    include_dirs: tuple[str, ...] = (),
    display_name: str = "kernel.cl",
) -> str | None:
    """The warnings OpenCL C compilers give for ``source`` (an integer stored into a pointer
    without a cast, incompatible pointer types), one per line as a compiler prints them with
    the file named ``display_name``; None where there is none. The same on every device: the
    device's own build log is empty on some (Oclgrind) and noisy on others."""
    defined = tuple(sorted((defines or {}).items()))
    headers = build_digest(source, tuple(f"-I{d}" for d in include_dirs)) if include_dirs else ""
    found = _warnings(source, defined, include_dirs, headers)
    lines = [f"{display_name}:{line}:{column}: warning: {text}" for line, column, text in found]
    return "\n".join(lines) or None


@lru_cache(maxsize=32)
def _warnings(
    source: str,
    defines: tuple[tuple[str, int], ...],
    include_dirs: tuple[str, ...] = (),
    headers: str = "",
) -> tuple[tuple[int, int, str], ...]:
    """``compiler_warnings``, remembered as ``_signature`` is (the same parse)."""
    try:
        parsed = parse(source, dict(defines), "kernel.cl", strict=False, include_dirs=include_dirs)
    except ParseError:
        return ()
    return tuple((w.line, w.column, w.message) for w in parsed.warnings if w.line > 0)


def kernel_names(source: str, defines: dict[str, int] | None = None) -> list[str]:
    """The ``__kernel`` functions of ``source``, in source order."""
    try:
        return [
            k.name for k in parse(source, dict(defines or {}), "kernel.cl", strict=False).kernels
        ]
    except ParseError:
        return []


def kernel_parameters(
    source: str, kernel: str, defines: dict[str, int] | None = None
) -> list[Parameter]:
    """The parameters of ``kernel`` in declaration order, each one a type the runner can
    pass (a buffer, a local size, a number, a 2-D or 3-D image or a sampler)."""
    params = kernel_signature(source, kernel, defines)
    for p in params:
        if p.space == "image" and not p.image_dims:
            raise SignatureError(image_refusal(p, kernel))
        if p.space == "scalar" and p.scalar_type not in _SCALARS:
            raise SignatureError(
                f"parameter {p.name} of {kernel} has unsupported type {p.scalar_type!r}"
            )
    return params


def image_refusal(p: Parameter, kernel: str) -> str:
    """Why a kernel's image parameter cannot run here, in words: an image type other than a
    2-D or 3-D image (``image1d_t``, an image array, an image over a buffer)."""
    return (
        f"parameter {p.name!r} of {kernel} is an {p.image_type or p.element_type}: only "
        "image2d_t and image3d_t images are supported (declared with image = ..., width, "
        "height[, depth]); to explore this kernel, read the pixels from a __global buffer"
    )


def passable(type_name: str | None) -> bool:
    """Whether a scalar of this OpenCL C type can be passed from a number."""
    return type_name in _SCALARS


def numpy_scalar(type_name: str, value: float) -> np.generic:
    """``value`` as the numpy scalar that matches an OpenCL C scalar type."""
    scalar: np.generic = np.dtype(_SCALARS[type_name]).type(value)
    return scalar
