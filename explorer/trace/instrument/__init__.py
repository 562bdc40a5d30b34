"""Automatic source-to-source instrumentation of plain OpenCL C for tracing.

Every subscript of a ``__global``/``__constant``/``__local`` pointer or array (parameters,
pointers derived from them in the kernel body, local arrays of any rank), every dereference
of such a pointer, ``vloadN``/``vstoreN``, ``atomic_*``/``atom_*``, ``barrier`` and
``mem_fence`` is rewritten to record what it did into a per-work-item region of a trace
buffer. The kernel records its own buffers' base addresses at start, so a record holds
(buffer, byte offset) resolved on the device and pointer arithmetic needs no special case.

Each access is bounds-checked against every buffer of its address space: an access outside
all of them is recorded as out of bounds and redirected to a scratch slot, so an indexing
bug becomes a finding instead of a crash.

No newline is added or removed inside the user's code, and the prelude ends with
``#line 1``, so compiler messages and recorded lines are the user's own line numbers.

Modules: ``transform`` (``instrument``: one rewrite, start to end), ``buffers`` (the buffers
traced and which one an access names), ``accesses`` (memory accesses), ``syncs`` (barriers
and fences), ``values`` (recording values), ``edits`` (the rewritten stretches, nested),
``declared`` (the sites and buffers a rewrite declares), ``runtime`` (the device side:
``runtime.cl`` and its prelude), ``model`` (what instrumentation produces).
"""

from __future__ import annotations

from explorer.trace.instrument.model import (
    MAX_BUFFERS,
    MAX_SITES,
    BufferDecl,
    Instrumented,
    InstrumentError,
    SiteDecl,
)
from explorer.trace.instrument.runtime import (
    COUNT,
    EXTRA_PARAMS,
    NO_BARRIERS_OPTION,
    RECORD_EVERY_GROUP,
    RECORD_WINDOW,
    SKIP_BARRIERS,
    SWITCH_BARRIERS_OPTION,
)
from explorer.trace.instrument.transform import instrument, static_anatomy

__all__ = [
    "COUNT",
    "EXTRA_PARAMS",
    "MAX_BUFFERS",
    "MAX_SITES",
    "NO_BARRIERS_OPTION",
    "RECORD_EVERY_GROUP",
    "RECORD_WINDOW",
    "SKIP_BARRIERS",
    "SWITCH_BARRIERS_OPTION",
    "BufferDecl",
    "InstrumentError",
    "Instrumented",
    "SiteDecl",
    "instrument",
    "static_anatomy",
]
