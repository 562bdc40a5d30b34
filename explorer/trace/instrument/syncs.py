"""The rewrite of synchronisation: every ``barrier`` (and ``work_group_barrier``) and every
``mem_fence`` is recorded where it is, with its fence flags; ``wait_group_events`` is
recorded as a barrier: after it every work-item of the group sees what the copies wrote (it
always runs: a copy not waited for would still be in flight)."""

from __future__ import annotations

from explorer.frontend import AddressSpace, SyncKind, SyncSite
from explorer.trace.instrument.declared import Declared
from explorer.trace.instrument.edits import Edits
from explorer.trace.recorded import BARRIER, FENCE, FENCE_GLOBAL, FENCE_LOCAL, NO_BUFFER, NO_SPACE

BARRIERS = (SyncKind.BARRIER, SyncKind.WORK_GROUP_BARRIER)


def rewrite_sync(s: SyncSite, declared: Declared, edits: Edits) -> None:
    """Record one barrier, fence or wait where it is."""
    fences = (FENCE_LOCAL if AddressSpace.LOCAL in s.fences else 0) | (
        FENCE_GLOBAL if AddressSpace.GLOBAL in s.fences else 0
    )
    name = s.kind.value
    if s.kind is SyncKind.WAIT_GROUP_EVENTS:
        sid = declared.site(s.line, BARRIER, NO_SPACE, NO_BUFFER, name, fences)
        index = declared.barrier()
        edits.add(
            s.span.start,
            s.span.end,
            lambda edit: f"(__tr_barrier(__tr_ptr, {sid}u, {index}u), {edits.inner(edit)})",
        )
    elif s.kind in BARRIERS:
        sid = declared.site(s.line, BARRIER, NO_SPACE, NO_BUFFER, name, fences)
        index = declared.barrier()
        edits.add(
            s.span.start,
            s.span.end,
            lambda edit: f"__TR_BARRIER({sid}u, {index}u, {edits.inner(edit)})",
        )
    else:
        sid = declared.site(s.line, FENCE, NO_SPACE, NO_BUFFER, name, fences)
        edits.add(
            s.span.start,
            s.span.end,
            lambda edit: f"(__tr_fence(__tr_ptr, {sid}u), {edits.inner(edit)})",
        )
