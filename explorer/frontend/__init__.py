"""OpenCL C front end: one parse serves kernel signatures, the open-kernel dialog and tracing."""

from explorer.frontend.model import (
    AccessKind,
    AccessSite,
    AddressSpace,
    Diagnostic,
    Function,
    Parameter,
    ParsedSource,
    ParseError,
    Span,
    SyncKind,
    SyncSite,
    Unclassified,
)
from explorer.frontend.parser import parse

__all__ = [
    "AccessKind",
    "AccessSite",
    "AddressSpace",
    "Diagnostic",
    "Function",
    "Parameter",
    "ParseError",
    "ParsedSource",
    "Span",
    "SyncKind",
    "SyncSite",
    "Unclassified",
    "parse",
]
