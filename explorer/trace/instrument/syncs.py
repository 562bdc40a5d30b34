"""The rewrite of synchronisation: every ``barrier`` (and ``work_group_barrier``) and every
``mem_fence`` is recorded where it is, with its fence flags; ``wait_group_events`` is
recorded as a barrier: after it every work-item of the group sees what the copies wrote.

Where the group must agree on an argument (how many events a wait names; flags a barrier or
fence computes where it runs) the record holds the argument, so work-items that disagree are
found."""

from __future__ import annotations

from explorer.frontend import AddressSpace, SyncKind, SyncSite
from explorer.trace.instrument.declared import Declared
from explorer.trace.instrument.edits import Edit, Edits
from explorer.trace.recorded import (
    BARRIER,
    FENCE,
    FENCE_GLOBAL,
    FENCE_LOCAL,
    NO_BUFFER,
    NO_SPACE,
    ROLE_FLAGS,
    ROLE_NONE,
    ROLE_WAIT,
)

BARRIERS = (SyncKind.BARRIER, SyncKind.WORK_GROUP_BARRIER)


def rewrite_sync(s: SyncSite, declared: Declared, edits: Edits) -> None:
    """Record one barrier, fence or wait where it is."""
    fences = (FENCE_LOCAL if AddressSpace.LOCAL in s.fences else 0) | (
        FENCE_GLOBAL if AddressSpace.GLOBAL in s.fences else 0
    )
    name = s.kind.value
    first = s.arguments[0] if s.arguments else None

    def argument(edit: Edit) -> str:
        """The first argument's text, as rewritten (the flags, or the number of events)."""
        return "0" if first is None else f"(uint)({edits.render(first.start, first.end)})"

    role = ROLE_FLAGS if s.dynamic_flags else ROLE_NONE
    if s.kind is SyncKind.WAIT_GROUP_EVENTS:
        sid = declared.site(s.line, BARRIER, NO_SPACE, NO_BUFFER, name, fences, role=ROLE_WAIT)
        index = declared.barrier()
        edits.add(
            s.span.start,
            s.span.end,
            lambda edit: f"__TR_WAIT({sid}u, {index}u, {argument(edit)}, {edits.inner(edit)})",
        )
    elif s.kind in BARRIERS:
        sid = declared.site(s.line, BARRIER, NO_SPACE, NO_BUFFER, name, fences, role=role)
        index = declared.barrier()
        if s.dynamic_flags:
            edits.add(
                s.span.start,
                s.span.end,
                lambda edit: (
                    f"__TR_BARRIER_ARG({sid}u, {index}u, {argument(edit)}, {edits.inner(edit)})"
                ),
            )
        else:
            edits.add(
                s.span.start,
                s.span.end,
                lambda edit: f"__TR_BARRIER({sid}u, {index}u, {edits.inner(edit)})",
            )
    else:
        sid = declared.site(s.line, FENCE, NO_SPACE, NO_BUFFER, name, fences, role=role)
        edits.add(
            s.span.start,
            s.span.end,
            lambda edit: f"(__tr_fence(__tr_ptr, {sid}u, {argument(edit)}), {edits.inner(edit)})",
        )
