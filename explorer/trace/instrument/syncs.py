"""The rewrite of synchronisation: every ``barrier`` (and ``work_group_barrier``) and every
``mem_fence`` is recorded where it is, with its fence flags; ``wait_group_events`` is
recorded as a barrier: after it every work-item of the group sees what the copies wrote; just
before it, the number of each event it names is recorded (``events.py``).

Where the group must agree on an argument (how many events a wait names; flags a barrier or
fence computes where it runs) the record holds the argument, so work-items that disagree are
found."""

from __future__ import annotations

from explorer.frontend import AddressSpace, SyncKind, SyncSite
from explorer.trace.instrument.declared import Declared
from explorer.trace.instrument.edits import Edit, Edits
from explorer.trace.instrument.events import EventShadows
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
    ROLE_WAIT_EVENT,
)

BARRIERS = (SyncKind.BARRIER, SyncKind.WORK_GROUP_BARRIER)


def rewrite_sync(
    s: SyncSite,
    declared: Declared,
    edits: Edits,
    events: EventShadows,
    kernel: str,
    helpers: frozenset[str],
) -> None:
    """Record one barrier, fence or wait where it is (the events of a wait in ``kernel``
    followed through ``events``; a wait of another kernel or of a helper ``kernel`` never
    calls, which never runs, is nothing the trace misses, where one of ``kernel`` or of the
    ``helpers`` it reaches is)."""
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
        own = events if s.function == kernel else EventShadows()
        runs = s.function == kernel or s.function in helpers
        _rewrite_wait(s, declared, edits, own, fences, runs)
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


def _rewrite_wait(
    s: SyncSite, declared: Declared, edits: Edits, events: EventShadows, fences: int, runs: bool
) -> None:
    """``wait_group_events(n, list)``: a record of each event it names, then a barrier's
    (holding n). A list the trace does not follow names events it does not know: the wait
    ends every copy, and its line is "not traced"."""
    name = s.kind.value
    sid = declared.site(s.line, BARRIER, NO_SPACE, NO_BUFFER, name, fences, role=ROLE_WAIT)
    sev = declared.site(s.line, FENCE, NO_SPACE, NO_BUFFER, name, role=ROLE_WAIT_EVENT)
    index = declared.barrier()
    listed = None
    if len(s.arguments) >= 2:
        listed = events.wait_list(edits.text[s.arguments[1].start : s.arguments[1].end])
    if listed is None:
        if runs:
            declared.not_traced.append((s.line, f"{name}: which events it names is not followed"))
        listed = "0, 0u, 0u"

    def emit(edit: Edit) -> str:
        if not s.arguments:
            return f"__TR_WAIT({sid}u, {index}u, 0, {edits.inner(edit)})"
        count = edits.render(s.arguments[0].start, s.arguments[0].end)
        named = f"__tr_ev_wait(__tr_ptr, {sev}u, (uint)({count}), {listed})"
        return f"__TR_WAIT({sid}u, {index}u, {named}, {edits.inner(edit)})"

    edits.add(s.span.start, s.span.end, emit)
