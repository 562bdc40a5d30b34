"""OpenCL C front end: one parse serves kernel signatures, the open-kernel dialog and tracing.

`parse(source, defines, filename)` returns a `ParsedSource`: kernels and helpers with their
parameters, every memory access site (address space, base and root buffers, bytes, kind,
the span a rewriter wraps), every barrier and fence with its flags, and an `Unclassified`
entry for anything it cannot describe. Invalid source raises `ParseError` at user lines.
No Qt, no pyopencl.

Why libclang, measured on tests/frontend/corpus (25 kernels, one construct each;
`PYTHONPATH=. python tests/frontend/measure_frontends.py`, a 2-core machine under load):

                     libclang 18.1.1 wheel          tree-sitter-c 0.24 + pcpp 1.30
  parses the corpus   25/25, no errors               0/25 as written (`__kernel`, `__global`
                                                     are ERROR nodes); 24/25 with them erased
  type and address    yes: clang's typing (typedefs, none: a type checker of our own
  space of each base  structs, vectors, overloads)   would be needed
  macros and `#if`    clang's own preprocessor, as   pcpp, a second preprocessor that may
  with the defines    a device compiler runs it      differ from the device's
  user's lines        native; a macro's sites at     our own `#line` mapping
                      its invocation
  ms per kernel       6-14 (clang alone 5-8)         about 1 (and no typing done)
  (median of 20)
  wheels              Linux x86_64/aarch64, Windows  the same platforms
                      amd64, macOS x86_64/arm64
  install size        25 MB wheel, 62 MB installed   0.9 MB, plus the checker to write

libclang was chosen: correct classification needs types and address spaces, and it gives
them with the same preprocessing and overload rules as a device compiler. Its OpenCL
builtins come from clang's built-in table (`-fdeclare-opencl-builtins`); the wheel has no
OpenCL header, so the few names that table leaves to a header are in `opencl_prelude.h`,
our own file.
"""

from explorer.frontend.model import (
    AccessKind,
    AccessSite,
    AddressSpace,
    Call,
    Diagnostic,
    Function,
    ImageCall,
    Parameter,
    ParsedSource,
    ParseError,
    Prototype,
    Return,
    Span,
    SyncKind,
    SyncSite,
    Unclassified,
    Variable,
)
from explorer.frontend.parser import language_standard, parse, parse_expanded

__all__ = [
    "AccessKind",
    "AccessSite",
    "AddressSpace",
    "Call",
    "Diagnostic",
    "Function",
    "ImageCall",
    "Parameter",
    "ParseError",
    "ParsedSource",
    "Prototype",
    "Return",
    "Span",
    "SyncKind",
    "SyncSite",
    "Unclassified",
    "Variable",
    "language_standard",
    "parse",
    "parse_expanded",
]
