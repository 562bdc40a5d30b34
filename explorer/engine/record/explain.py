"""Why is this element wrong: a traced run's element explained by its trace beside what its
reference needs. Both command lines and the window ask here; the trace says what flowed in
(:mod:`explorer.trace.provenance`), the kernel's model what the reference needs
(``KernelModel.reference_needs``), :mod:`explorer.trace.explain` puts them side by side.

The first input that should not be there comes with the index anatomy of the accesses that
brought it in (its load, and the local store and read it went through): the values those
accesses used come from an anatomy build of their lines over the group that made them,
run after the trace (:func:`record_anatomy`, in the executor), as ``trace --anatomy`` runs
one; a trace that already recorded them (the window's, for its findings' lines) is read
instead. Where no values can be had, the static chains, saying why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from explorer.description.expressions import ExpressionError
from explorer.description.launch import DescriptionError, Setting
from explorer.description.reference_needs import Needs
from explorer.engine.record.anatomy_run import Ranges, box, recorded_lines, static_of
from explorer.engine.record.trace_launch import TraceRequest, run_trace
from explorer.engine.records import RunResult, Variant
from explorer.families.base import InputError
from explorer.trace.anatomy import TraceAnatomy
from explorer.trace.explain import (
    ElementError,
    Explanation,
    explain,
    nearest_store,
    offending_route,
    parse_element,
    with_anatomy,
)
from explorer.trace.provenance import Access, Layout, provenance
from explorer.trace.recorded import (
    GLOBAL,
    LOCAL,
    OP_NAMES,
    Site,
    Trace,
    word_buffer,
    word_phase,
    word_site,
)

# What the explanation says while the values of its index anatomy are being recorded.
RECORDING = "recording the values …"


def explain_element(
    trace: Trace,
    result: RunResult,
    variant: Variant,
    element: str | tuple[str | None, tuple[int, ...]],
    compute_units: int = 1,
) -> Explanation:
    """Explain one element of a result the trace recorded: ``element`` as written on the
    command line (``C[3,5]``, ``3,5`` for the first result) or as (name, index), rows first.
    Raises :class:`ElementError` naming what is wrong with it."""
    name, index = parse_element(element) if isinstance(element, str) else element
    outputs = result.outputs or {}
    results = list(outputs) or ([trace.output_role] if trace.output_role else [])
    if name is None:
        if not results:
            raise ElementError("the kernel has no result to explain")
        name = results[0]
    buffer = next(
        (i for i, b in enumerate(trace.buffers) if b.role == name and b.space == GLOBAL), None
    )
    if buffer is None or trace.buffers[buffer].is_input:
        known = ", ".join(results) or "none"
        raise ElementError(f"{name} is not a result of {variant.name} (its results: {known})")
    layout = Layout(trace, result.shapes, tuple(result.column_major))
    try:
        stored = layout.element(buffer, tuple(index))
    except ValueError as exc:
        raise ElementError(str(exc)) from None
    value, reference, bits = _values(result, name, tuple(index))
    found = provenance(trace, buffer, stored, layout, bits, _contents(trace, layout, result))
    setting = Setting(
        dict(result.sizes),
        dict(result.defines),
        tuple(result.local_size or trace.local_size),
        compute_units,
    )
    inputs = result.inputs or {}

    def needs_of(where: tuple[int, ...]) -> Needs | str:
        try:
            return variant.model.reference_needs(setting, inputs, str(name), where)
        except (DescriptionError, InputError, ExpressionError, ValueError, KeyError) as exc:
            return f"the reference could not be read ({exc})"

    needs = needs_of(tuple(index))
    siblings = [needs_of(w) for w in found.siblings] if not isinstance(needs, str) else []
    shared = [s for s in siblings if not isinstance(s, str)]
    explained = explain(found, dict(result.shapes), needs, value, reference, shared)
    if not found.written and found.every_group:
        record = nearest_store(trace, buffer, stored)
        if record is not None:
            explained = replace(explained, nearest=_access(trace, layout, record))
    elif (
        found.unwritten
        and explained.first_offending is None
        and explained.last_arrived is None
        and (explained.missing or explained.needs is None)
    ):
        # Its value came through a local element nothing wrote: that element's neighbours.
        read = found.unwritten[0]
        local = next(
            (i for i, b in enumerate(trace.buffers) if b.name == read.buffer and b.space == LOCAL),
            None,
        )
        record = (
            None if local is None else nearest_store(trace, local, read.element, read.work_item)
        )
        if record is not None:
            near = _access(trace, layout, record)
            explained = replace(explained, nearest=near, unwritten_read=read)
    return explained


def _access(trace: Trace, layout: Layout, record: int) -> Access:
    """One record of ``trace`` as an :class:`Access`."""
    word = trace.word[record : record + 1]
    site = trace.sites[int(word_site(word)[0])]
    buffer = int(word_buffer(word)[0])
    ends = np.cumsum(np.asarray(trace.kept, dtype=np.int64))
    wi = int(np.searchsorted(ends, record, side="right"))
    element = int(trace.offset[record]) // max(1, trace.buffers[buffer].elem_size)
    return Access(
        record=record,
        line=site.line,
        text=site.text,
        op=OP_NAMES.get(site.op, "?"),
        buffer=layout.names[buffer],
        element=element,
        where=layout.where(buffer, element),
        work_item=tuple(int(v) for v in trace.wi_group[wi])
        + tuple(int(v) for v in trace.wi_local[wi]),
        phase=int(word_phase(word)[0]),
        local=trace.buffers[buffer].space != GLOBAL,
    )


def _contents(trace: Trace, layout: Layout, result: RunResult) -> dict[int, np.ndarray]:
    """Each input's values as the device holds them: their bits, zero-extended."""
    out = {}
    for b, info in enumerate(trace.buffers):
        array = (result.inputs or {}).get(info.role or "")
        if info.space != GLOBAL or array is None:
            continue
        array = np.ascontiguousarray(array)
        if array.dtype.itemsize != info.elem_size or array.dtype.itemsize not in (1, 2, 4, 8):
            continue
        flat = layout.storage(b, array)
        out[b] = flat.view(f"u{array.dtype.itemsize}").astype(np.uint64)
    return out


def _values(
    result: RunResult, name: str, index: tuple[int, ...]
) -> tuple[float | None, float | None, int | None]:
    """The element as the run left it, as the reference has it, and its stored bits."""
    value = reference = None
    bits = None
    out = (result.outputs or {}).get(name)
    if out is not None and np.ndim(out) == len(index):
        item = np.asarray(out)[index]
        value = float(item)
        raw = np.asarray(item)
        if raw.dtype.itemsize in (4, 8):
            bits = int(raw.view(np.uint32 if raw.dtype.itemsize == 4 else np.uint64))
    ref = (result.references or {}).get(name)
    if ref is not None and np.ndim(ref) == len(index):
        reference = float(np.asarray(ref)[index])
    return value, reference, bits


# -- the index anatomy of the first offending input ----------------------------------------


def anatomy_asked(
    explanation: Explanation, trace: Trace, kept: TraceAnatomy | None
) -> tuple[tuple[int, ...], Ranges] | None:
    """The lines and the groups an anatomy build must record for the index anatomy of the
    accesses the explanation shows (``offending_route``: those that brought the first
    offending input in, or the last needed one that arrived, or the nearest element's
    store); None where there is none, or ``kept`` (the trace's own anatomy) already has
    their values."""
    route = offending_route(explanation)
    if not route:
        return None
    if kept is not None:
        known = with_anatomy(explanation, trace, kept).anatomy
        if known is not None and known.recorded:
            return None
    lines = tuple(sorted({access.line for _, access in route}))
    groups = box({(a.work_item[0], a.work_item[1], a.work_item[2]) for _, a in route})
    assert groups is not None  # a route has an access
    return lines, groups


def anatomy_request(request: TraceRequest, trace: Trace) -> TraceRequest:
    """The trace request an anatomy build of ``trace``'s launch runs from: the same run (its
    local size as the trace had it), recording values, asking nothing more."""
    return replace(
        request,
        run=replace(request.run, local=tuple(trace.local_size)),
        values=True,
        against=None,
        against_device=None,
        anatomy_lines=(),
        anatomy_findings=False,
        anatomy_work_item=(),
    )


def record_anatomy(
    request: TraceRequest, sites: tuple[Site, ...], lines: tuple[int, ...], groups: Ranges
) -> TraceAnatomy | None:
    """In the executor: the static anatomy of the request's kernel with the values of the
    accesses at ``lines``, recorded by an anatomy build over the ``groups`` (ranges per
    dimension) of the launch that traced ``sites``; the static anatomy alone, saying why,
    where the build fails; None where the kernel cannot be parsed."""
    static = static_of(request.run)
    if static is None:
        return None
    asked = tuple(sorted(line for line in set(lines) if static.at_line(line)))
    if not asked:
        return TraceAnatomy(static)
    within = replace(request, groups=groups, center=None)
    return recorded_lines(static, asked, run_trace(within, asked), sites)


def answered(outcome: object) -> TraceAnatomy | str | None:
    """What a call of :func:`record_anatomy` gave back, as ``explain_anatomy``'s ``record``
    returns it: the anatomy, None (not parsed), or why there is none (what the call raised;
    an answer of another kind, from an executor that is not ours, is not used)."""
    if outcome is None or isinstance(outcome, TraceAnatomy):
        return outcome
    if isinstance(outcome, Exception):
        return str(outcome) or type(outcome).__name__
    return "the executor's answer is not an index anatomy"


def explain_anatomy(
    explanation: Explanation,
    trace: Trace,
    kept: TraceAnatomy | None,
    record: Callable[[tuple[int, ...], Ranges], TraceAnatomy | str | None],
) -> Explanation:
    """The explanation with the index anatomy of its first offending input's accesses:
    from ``kept`` where it has their values, else recorded by ``record(lines, groups)``
    (``record_anatomy`` through an executor; a string says why it could not run: the
    static chains are shown with it)."""
    asked = anatomy_asked(explanation, trace, kept)
    if asked is None:
        return with_anatomy(explanation, trace, kept)
    got = record(*asked)
    if isinstance(got, str):
        return with_anatomy(explanation, trace, kept, f"values not recorded: {got}")
    unknown = "" if got or kept else "the kernel could not be parsed"
    return with_anatomy(explanation, trace, got or kept, unknown)
