"""libclang, set up once for OpenCL C: the arguments, the declarations file, extra entry points.

The `libclang` wheel ships clang's shared library but not its OpenCL headers, so the
builtin functions come from clang's own table (`-fdeclare-opencl-builtins`) and the few
types and macros that table leaves to a header come from `opencl_prelude.h`, our file.
The Python bindings lack a few entry points that the library exports (operator kinds,
constant evaluation); they are bound here with ctypes.
"""

from __future__ import annotations

import ctypes
import functools
from importlib import resources
from typing import Any

import clang.cindex as ci  # type: ignore[import-untyped]  # the wheel ships no type information

from explorer.frontend.model import Diagnostic, ParseError

PRELUDE_NAME = "/explorer-frontend/opencl_prelude.h"
EVAL_INT = 1
# Warnings that clang 15-16 made errors by default and that the device compilers (PoCL,
# Oclgrind, the vendors' older clangs) still only warn about: an integer stored into a
# pointer without a cast, a pointer into an integer, `const n = 4;`. A kernel they build
# must parse here too; the warning stays a warning, shown with the trace.
WARNINGS_NOT_ERRORS = ("int-conversion", "implicit-int", "incompatible-function-pointer-types")


@functools.lru_cache(maxsize=1)
def prelude_text() -> str:
    """Our declarations file, read once from the package."""
    return resources.files("explorer.frontend").joinpath("opencl_prelude.h").read_text("utf-8")


@functools.lru_cache(maxsize=1)
def index() -> Any:
    """One clang index for the process, with the missing entry points bound."""
    lib = ci.conf.lib
    for name in ("clang_getCursorBinaryOperatorKind", "clang_getCursorUnaryOperatorKind"):
        getattr(lib, name).argtypes = [ci.Cursor]
        getattr(lib, name).restype = ctypes.c_int
    for name in ("clang_getBinaryOperatorKindSpelling", "clang_getUnaryOperatorKindSpelling"):
        getattr(lib, name).argtypes = [ctypes.c_int]
        getattr(lib, name).restype = ci._CXString
        getattr(lib, name).errcheck = ci._CXString.from_result
    lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
    lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
    lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getKind.restype = ctypes.c_int
    lib.clang_EvalResult_getAsLongLong.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsLongLong.restype = ctypes.c_longlong
    lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_dispose.restype = None
    lib.clang_getFileLocation.argtypes = [
        ci.SourceLocation,
        ctypes.POINTER(ci.c_object_p),
        ctypes.POINTER(ctypes.c_uint),
        ctypes.POINTER(ctypes.c_uint),
        ctypes.POINTER(ctypes.c_uint),
    ]
    lib.clang_getFileLocation.restype = None
    return ci.Index.create()


def arguments(
    defines: dict[str, int | str], cl_std: str, include_dirs: tuple[str, ...] = ()
) -> list[str]:
    """Compiler arguments: OpenCL C at `cl_std` for a 64-bit SPIR device, our declarations,
    the folders `#include "..."` searches (the kernel file's own first)."""
    args = [
        "-x",
        "cl",
        f"-cl-std={cl_std}",
        "-cl-no-stdinc",
        "-target",
        "spir64",
        "-Xclang",
        "-fdeclare-opencl-builtins",
        "-include",
        PRELUDE_NAME,
        *(f"-Wno-error={name}" for name in WARNINGS_NOT_ERRORS),
    ]
    args += [f"-D{name}={value}" for name, value in defines.items()]
    args += [f"-I{folder}" for folder in include_dirs]
    return args


KNOWN_STANDARDS = ("CL1.0", "CL1.1", "CL1.2", "CL2.0", "CL3.0")


def parse_unit(
    source: str,
    filename: str,
    defines: dict[str, int | str],
    cl_std: str,
    include_dirs: tuple[str, ...] = (),
) -> Any:
    """The translation unit of `source` as if it were the file `filename`. Arguments libclang
    refuses outright (an OpenCL C version it does not know, `-cl-std=CL2.1`) are a
    ParseError saying so."""
    try:
        return index().parse(
            filename,
            args=arguments(defines, cl_std, include_dirs),
            unsaved_files=[(filename, source), (PRELUDE_NAME, prelude_text())],
            options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD,
        )
    except ci.TranslationUnitLoadError:
        if cl_std in KNOWN_STANDARDS:
            message = "the C front end could not read it or a file it includes"
        else:
            message = (
                f"the C front end cannot read it as OpenCL C {cl_std} (known: "
                f"{', '.join(KNOWN_STANDARDS)})"
            )
        raise ParseError(filename, (Diagnostic(0, 0, "error", message),)) from None


def binary_operator(cursor: Any) -> str:
    """The spelling of a binary or compound-assignment operator (`=`, `+=`, `+`)."""
    lib = ci.conf.lib
    result: str = lib.clang_getBinaryOperatorKindSpelling(
        lib.clang_getCursorBinaryOperatorKind(cursor)
    )
    return result


def unary_operator(cursor: Any) -> str:
    """The spelling of a unary operator (`*`, `&`, `++`, `--`, `-`, `!`)."""
    lib = ci.conf.lib
    result: str = lib.clang_getUnaryOperatorKindSpelling(
        lib.clang_getCursorUnaryOperatorKind(cursor)
    )
    return result


def evaluate_int(cursor: Any) -> int | None:
    """The value of an integer constant expression, or None when it is not one."""
    lib = ci.conf.lib
    handle = lib.clang_Cursor_Evaluate(cursor)
    if not handle:
        return None
    try:
        if lib.clang_EvalResult_getKind(handle) != EVAL_INT:
            return None
        return int(lib.clang_EvalResult_getAsLongLong(handle))
    finally:
        lib.clang_EvalResult_dispose(handle)


def written_at(location: Any) -> tuple[str, int]:
    """The file and byte offset where the token at `location` is written: inside a macro's
    argument, in the argument's own text (clang's expansion offset, `location.offset`, is the
    whole invocation's); inside a macro's body, in the macro's definition."""
    lib = ci.conf.lib
    handle = ci.c_object_p()
    offset = ctypes.c_uint()
    lib.clang_getFileLocation(location, ctypes.byref(handle), None, None, ctypes.byref(offset))
    name = str(ci.File(handle).name) if handle else ""
    return name, int(offset.value)
