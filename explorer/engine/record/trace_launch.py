"""Running the instrumented kernel: size the trace, record it, read it back, decode it.

Two launches: the first only counts each work-item's records, so the second can give
every traced work-item a region of exactly the right size (no guessing, and overflow
can only come from a kernel whose control flow differs between launches). The counting
launch runs a build whose barriers are recorded but not executed, so a barrier only some
work-items reach is found, not run (see the trace runtime); the recording launch runs the
kernel's real barriers unless that happened. Work-groups
are traced while the records fit in the memory budget; beyond it, a window of groups
around a chosen one. Where the records of one group show that the budget holds only a
window, the counting launch runs just the groups near the chosen one (a margin more than
the estimate) instead of every group: on a large grid that halves the time of a trace.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np

from explorer.engine.header.catalog import role_layout
from explorer.engine.launch.build import BuildError, option_defines
from explorer.engine.launch.nonuniform import emulated_source
from explorer.engine.launch.plan import exact_ndrange, resolve_defines
from explorer.engine.launch.run import (
    bind,
    bytes_moved,
    content_key,
    judge,
    judge_custom,
    poison_local,
    prepare,
    read_output,
    rejected_group_size,
    reset_output,
    silenced_stdout,
)
from explorer.engine.records import RunRequest, RunResult
from explorer.families.custom import CustomSpec
from explorer.frontend import language_standard
from explorer.trace.decode import RawTrace, decode, group_coords
from explorer.trace.instrument import (
    COUNT,
    NO_BARRIERS_OPTION,
    RECORD_EVERY_GROUP,
    RECORD_WINDOW,
    Instrumented,
    InstrumentError,
    instrument,
)
from explorer.trace.recorded import (
    ATOMIC,
    GLOBAL,
    RMW,
    SITE_MASK,
    WRITE,
    Trace,
    word_buffer,
    word_oob,
    word_size,
)

# Records are 8 bytes (a byte offset and a packed word, in two planes): 320 MiB holds 42 M
# records, every group of a 256² tiled matmul, recorded and analysed in about half a second on
# two cores.
DEFAULT_BUDGET_BYTES = 320 << 20
RECORD_BYTES = 8


@dataclass(frozen=True)
class TraceRequest:
    run: RunRequest
    groups: tuple[tuple[int, int], ...] | None = None  # explicit ranges per dimension
    center: tuple[int, int, int] | None = None  # trace a window around this group
    budget_bytes: int = DEFAULT_BUDGET_BYTES
    values: bool = False  # record each access's value too (a third plane: Trace.values)


@dataclass(frozen=True, eq=False)
class TraceOutcome:
    result: RunResult  # the trace build's own verdict (it must compute the same answer)
    trace: Trace | None
    timings_ms: dict[str, float] = field(default_factory=dict)


def nearest_groups(
    num_groups: tuple[int, int, int], center: tuple[int, int, int] | None
) -> np.ndarray:
    """Every group's linear id, nearest the center first (square rings, then distance)."""
    total_groups = int(np.prod(num_groups))
    coords = group_coords(np.arange(total_groups), num_groups)
    c = np.array(center or (0, 0, 0), dtype=np.int64)
    distance = np.abs(coords - c).max(axis=1) * total_groups + np.abs(coords - c).sum(axis=1)
    return np.argsort(distance, kind="stable")


def groups_in_ranges(
    num_groups: tuple[int, int, int], ranges: tuple[tuple[int, int], ...]
) -> np.ndarray:
    """Linear ids of the groups inside explicit [lo, hi) ranges, one range per dimension."""
    total_groups = int(np.prod(num_groups))
    coords = group_coords(np.arange(total_groups), num_groups)
    mask = np.ones(total_groups, dtype=bool)
    for dim, (lo, hi) in enumerate(ranges[:3]):
        mask &= (coords[:, dim] >= lo) & (coords[:, dim] < hi)
    return np.nonzero(mask)[0]


def choose_window(
    group_records: np.ndarray,
    num_groups: tuple[int, int, int],
    budget_bytes: int,
    center: tuple[int, int, int] | None,
    ranges: tuple[tuple[int, int], ...] | None,
) -> np.ndarray:
    """Linear ids of the groups to trace, in slot order. group_records holds each group's
    record count, infinite for a group that was not counted."""
    total_groups = int(np.prod(num_groups))
    if ranges:
        return groups_in_ranges(num_groups, ranges)
    if center is None and group_records.sum() * RECORD_BYTES <= budget_bytes:
        return np.arange(total_groups)
    order = nearest_groups(num_groups, center)
    fits = np.cumsum(group_records[order]) * RECORD_BYTES <= budget_bytes
    chosen = order[: max(1, int(fits.sum()))]
    return np.sort(chosen)


def groups_to_count(
    probe_records: int,
    num_groups: tuple[int, int, int],
    budget_bytes: int,
    center: tuple[int, int, int] | None,
) -> np.ndarray | None:
    """The groups the counting launch must run, from one group's record count: the nearest
    half as many again as the budget seems to hold, or None for all of them (when all may
    fit, or nothing can be told from the probe)."""
    total_groups = int(np.prod(num_groups))
    if probe_records <= 0:
        return None
    fit = budget_bytes // (probe_records * RECORD_BYTES)
    if center is None and fit >= total_groups // 2:
        return None  # perhaps every group fits: count them all and see
    wanted = int(fit * 3 // 2) + 8
    if wanted >= total_groups:
        return None
    return np.sort(nearest_groups(num_groups, center)[:wanted])


@lru_cache(maxsize=16)
def instrumented(
    source: str,
    kernel: str,
    defines: tuple[tuple[str, int | str], ...],
    values: bool,
    cl_std: str = "CL1.2",
) -> Instrumented:
    """``instrument`` remembered per executor: pressing Trace again on the same kernel, sizes
    and defines reuses the traced source (the libclang parse and rewrite cost ~0.1 s at 768²).
    The result depends on nothing but these arguments, and ``Instrumented`` is frozen."""
    return instrument(source, kernel, dict(defines), values, cl_std)


def run_trace(request: TraceRequest) -> TraceOutcome:
    started = time.perf_counter()
    run = request.run
    variant = run.variant
    try:
        defines: dict[str, int | str] = {
            **option_defines(variant.build_options),
            **resolve_defines(variant, run.defines, run.sizes),
        }
        std = language_standard(variant.build_options)
        source = variant.source
        partial = exact_ndrange(variant, run.sizes, run.local, run.defines)
        if partial is not None:  # rewritten first, so that the trace runtime sees whole groups
            ndrange, group = partial
            source = emulated_source(source, variant.kernel, ndrange, group, defines, std, "")
        inst = instrumented(source, variant.kernel, tuple(defines.items()), request.values, std)
    except (InstrumentError, ValueError) as exc:
        failed = prepare(run)
        if isinstance(failed, RunResult):
            return TraceOutcome(failed, None)
        return TraceOutcome(failed.head.failed(f"cannot trace: {exc}", "trace"), None)
    p = prepare(run, source=inst.source, time_reference=False, quick_build=True)
    if isinstance(p, RunResult):
        return TraceOutcome(p, None)
    cl = p.session.cl
    try:
        without_barriers = p.kernel  # without a barrier the counting build is the same program
        if inst.barriers:
            without_barriers = p.session.cache.kernel(
                cl,
                p.context,
                p.device.key,
                inst.source,
                (*p.built_with, NO_BARRIERS_OPTION),
                variant.kernel,
                os.path.basename(variant.path) or variant.id,
            )
    except BuildError as exc:
        return TraceOutcome(p.head.failed(str(exc), "build", build_log=exc.log), None)
    mf = cl.mem_flags
    local = (list(p.launch.local_size) + [1, 1, 1])[:3]
    per_group = int(np.prod(local))
    dims = [g // lo for g, lo in zip(p.launch.global_size, p.launch.local_size, strict=True)]
    dims += [1] * (3 - len(dims))
    num_groups = (dims[0], dims[1], dims[2])
    total_groups = int(np.prod(num_groups))
    timings = {"build_ms": (time.perf_counter() - started) * 1e3}
    # The value plane makes each record wider: the budget holds fewer of them.
    budget_bytes = request.budget_bytes * RECORD_BYTES // (RECORD_BYTES + inst.value_bytes)

    try:
        bound = bind(p)
        lengths = np.zeros(max(1, len(inst.buffers)), dtype=np.uint64)
        for b in inst.buffers:
            if b.param_index is not None:
                lengths[b.id] = bound.param_bytes[b.param_index]
        ctx = p.context

        def buffer(array: np.ndarray) -> Any:
            return cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=array)

        len_buf = buffer(lengths)
        meta = np.zeros(8 * max(1, len(inst.buffers)), dtype=np.uint64)
        meta_buf = buffer(meta)
        dummy_buf = cl.Buffer(ctx, mf.READ_WRITE, 256)

        nbar = max(1, inst.barriers)
        diverged = np.zeros(0, dtype=bool)

        def launch(
            slots: np.ndarray,
            offsets: np.ndarray,
            mode: int,
            capacity_records: int,
            real_barriers: bool,
        ) -> tuple[np.ndarray, np.ndarray, tuple[Any, ...]]:
            nonlocal diverged
            traced_groups = int((slots >= 0).sum())
            w = traced_groups * per_group
            arrivals = np.zeros((max(1, traced_groups), nbar, 2), dtype=np.uint32)
            arrivals[:, :, 0] = np.iinfo(np.uint32).max
            bar_buf = buffer(arrivals)
            plane = max(4, capacity_records * 4)  # offsets and words, in two planes
            value_plane = max(8, capacity_records * inst.value_bytes)  # and values, if asked
            rec_bufs: tuple[Any, ...] = (
                cl.Buffer(ctx, mf.READ_WRITE, plane),
                cl.Buffer(ctx, mf.READ_WRITE, plane),
                cl.Buffer(ctx, mf.READ_WRITE, value_plane),
            )
            counts = np.zeros(max(1, w), dtype=np.uint32)
            dispatch = np.zeros(1 + total_groups, dtype=np.uint32)
            cnt_buf, disp_buf = buffer(counts), buffer(dispatch)
            args = [
                *bound.args,
                *rec_bufs[:2],
                buffer(offsets.astype(np.uint64)),
                cnt_buf,
                disp_buf,
                buffer(slots.astype(np.int32)),
                len_buf,
                meta_buf,
                dummy_buf,
                np.uint32(mode),
                bar_buf,
                np.uint32(0),  # the runtime's opaque zero (runtime.cl says why)
                rec_bufs[2],
            ]
            kernel = p.kernel if real_barriers else without_barriers
            kernel.set_args(*args)
            reset_output(p, bound)
            poison_local(p)
            with silenced_stdout():  # printf output belongs to the plain run
                cl.enqueue_nd_range_kernel(
                    p.queue, kernel, p.launch.global_size, p.launch.local_size
                ).wait()
            cl.enqueue_copy(p.queue, counts, cnt_buf)
            cl.enqueue_copy(p.queue, arrivals, bar_buf)
            cl.enqueue_copy(p.queue, dispatch, disp_buf).wait()
            # A group whose work-items passed a barrier site different numbers of times.
            seen = arrivals[:traced_groups]
            diverged = ((seen[:, :, 0] != seen[:, :, 1]) & (seen[:, :, 1] > 0)).any(axis=1)
            return counts[:w], dispatch, rec_bufs

        def count(groups: np.ndarray, real_barriers: bool = False) -> np.ndarray:
            """Records per work-item of the given groups, (groups, per_group), in order.
            Without real barriers (the default) a barrier only some work-items reach is
            counted, not executed (see runtime.cl)."""
            count_slots = np.full(total_groups, -1, dtype=np.int32)
            count_slots[groups] = np.arange(groups.size, dtype=np.int32)
            zero = np.zeros(groups.size * per_group + 1)
            counted, _, _ = launch(count_slots, zero, COUNT, 0, real_barriers)
            return counted.reshape(groups.size, per_group)

        t0 = time.perf_counter()
        wi_records = np.zeros((total_groups, per_group), dtype=np.uint32)
        group_records = np.full(total_groups, np.inf)
        if request.groups:
            counted = groups_in_ranges(num_groups, request.groups)
        else:
            probe = nearest_groups(num_groups, request.center)[:1]
            probe_records = int(count(probe).sum())
            near = groups_to_count(probe_records, num_groups, budget_bytes, request.center)
            counted = np.arange(total_groups) if near is None else near
        wi_records[counted] = count(counted)
        divergent = bool(diverged.any())
        group_records[counted] = wi_records[counted].sum(axis=1)
        timings["count_ms"] = (time.perf_counter() - t0) * 1e3

        window = choose_window(
            group_records, num_groups, budget_bytes, request.center, request.groups
        )
        slots = np.full(total_groups, -1, dtype=np.int32)
        slots[window] = np.arange(window.size, dtype=np.int32)
        wi_counts = wi_records[window].ravel().astype(np.uint64)
        offsets = np.concatenate([[0], np.cumsum(wi_counts)]).astype(np.uint64)
        capacity = int(offsets[-1])
        mode = RECORD_EVERY_GROUP
        if window.size < total_groups and outside_may_leave(inst, p.custom is not None):
            mode = RECORD_WINDOW

        t0 = time.perf_counter()
        counts2, dispatch, rec_bufs = launch(slots, offsets, mode, capacity, not divergent)
        if not divergent and not np.array_equal(counts2, wi_counts):
            # With real barriers the kernel took other paths than when counted without them
            # (it reads what other work-items wrote): count again with them, and record.
            wi_counts = count(window, True).ravel().astype(np.uint64)
            offsets = np.concatenate([[0], np.cumsum(wi_counts)]).astype(np.uint64)
            capacity = int(offsets[-1])
            counts2, dispatch, rec_bufs = launch(slots, offsets, mode, capacity, True)
        output, _ = read_output(p, bound)
        plain_output = None
        if mode == RECORD_WINDOW:
            t1 = time.perf_counter()
            plain_output = _plain_output(p, bound)
            timings["verify_ms"] = (time.perf_counter() - t1) * 1e3
            t0 += time.perf_counter() - t1  # not part of the recording
        judged_custom = judge_custom(p) if p.custom is not None else None
        # Mapped, not copied: on a CPU device the records are read where the kernel wrote
        # them (hundreds of MB). The arrays keep their buffers alive until they are dropped.
        value_dtype = np.uint64 if inst.value_bytes == 8 else np.uint32
        planes = tuple(
            cl.enqueue_map_buffer(p.queue, buf, cl.map_flags.READ, 0, (capacity,), dtype)[0]
            if capacity and dtype is not None
            else np.zeros(0, dtype=dtype)
            for buf, dtype in zip(
                rec_bufs,
                (np.uint32, np.uint32, value_dtype if inst.value_bytes else None),
                strict=True,
            )
        )
        cl.enqueue_copy(p.queue, meta, meta_buf).wait()
        timings["record_ms"] = (time.perf_counter() - t0) * 1e3
    except cl.Error as exc:
        rejected = rejected_group_size(p, exc)
        if rejected is not None:
            return TraceOutcome(rejected, None)
        return TraceOutcome(p.head.runtime_failed(exc), None)

    t0 = time.perf_counter()
    # A custom kernel's roles are its parameter names, matched by name, not by position.
    role_names = [q.name for q in p.params] if p.custom is not None else list(variant.args)
    roles = tuple(
        role_names[b.param_index] if b.param_index is not None else None for b in inst.buffers
    )
    raw = RawTrace(
        planes[0],
        planes[1],
        offsets,
        counts2,
        dispatch,
        meta,
        slots,
        p.launch.global_size,
        p.launch.local_size,
        roles,
        p.problem.output_role,
        planes[2] if inst.value_bytes else None,
        p.launch.ndrange,
    )
    trace = decode(raw, inst)
    if p.custom is not None:
        trace = _declared_inputs(trace, p.custom.spec)
    timings["decode_ms"] = (time.perf_counter() - t0) * 1e3
    if plain_output is not None:
        t0 = time.perf_counter()
        output = _window_output(p, trace, output, plain_output)
        timings["verify_ms"] += (time.perf_counter() - t0) * 1e3
    outputs = None
    if judged_custom is not None:
        verdict, shown = judged_custom.verdict, judged_custom.output
        reference_value, outputs = judged_custom.reference, judged_custom.outputs
    else:
        verdict, shown = judge(p, [output])
        reference_value = p.reference.value
    result = p.head.judged(
        verdict=verdict,
        flops=p.problem.flops(p.sizes),
        bytes_moved=bytes_moved(p),
        output=shown if run.keep_output else None,
        reference=reference_value if run.keep_output else None,
        inputs=p.inputs if run.keep_output else None,
        outputs=outputs if run.keep_output else None,
    )
    return TraceOutcome(result, trace, timings)


# -- a trace of a window of groups: the others leave at entry ------------------------------
#
# Where the budget holds only a window of the work-groups, the recording launch lets every
# other group leave at entry (RECORD_WINDOW; the whole group leaves, so no barrier is left
# waiting), instead of running the instrumented kernel unrecorded: on a 768² matmul that was
# most of a trace. The trace build then writes only the window's part of the output; the rest
# comes from one launch of the kernel as written, so the verdict still covers every element:
# the window's elements as the trace build wrote them, the others as the plain build did.


def outside_may_leave(inst: Instrumented, custom: bool) -> bool:
    """Whether the groups outside the window may skip the recording launch: not where a
    global atomic may gather other groups' work into an element the window writes (a sum
    over every group would look wrong), nor for a custom kernel (its buffers are judged by
    its own declarations, which a merge of two launches would not honour)."""
    if custom:
        return False
    return not any(s.op == ATOMIC and s.space == GLOBAL for s in inst.sites)


# The last plain launch's output, by what determines it: a trace around another group of the
# same configuration (a click on an untraced group) needs the same output again.
_plain_outputs: dict[bytes, np.ndarray] = {}


def _plain_key(p: Any) -> bytes:
    """What one launch of the kernel as written depends on: device, source, kernel, build
    options, NDRange, sizes and the contents of every input."""
    variant = p.request.variant
    parts = (
        p.device.key,
        variant.source,
        variant.kernel,
        variant.layout,
        p.options,
        p.launch.global_size,
        p.launch.local_size,
        sorted(p.sizes.items()),
        p.inputs_digest or content_key((), p.inputs),
    )
    return content_key(parts, {})


def _plain_output(p: Any, bound: Any) -> np.ndarray:
    """The output of one launch of the whole grid with the kernel as written (the last one
    again when nothing it depends on changed)."""
    key = _plain_key(p)
    if key in _plain_outputs:
        return _plain_outputs[key].copy()
    variant = p.request.variant
    cl = p.session.cl
    kernel = p.session.cache.kernel(
        cl,
        p.context,
        p.device.key,
        variant.source,
        p.options,
        variant.kernel,
        os.path.basename(variant.path) or variant.id,
    )
    kernel.set_args(*bound.args)
    reset_output(p, bound)
    poison_local(p)
    with silenced_stdout():
        cl.enqueue_nd_range_kernel(p.queue, kernel, p.launch.global_size, p.launch.local_size)
    output, _ = read_output(p, bound)
    _plain_outputs.clear()
    _plain_outputs[key] = output.copy()
    return output


def written_by_trace(trace: Trace, role: str | None, shape: tuple[int, ...]) -> np.ndarray:
    """Which elements of the output (``role``'s buffer, ``shape`` in the buffer's order) the
    traced work-items wrote, from their records: a mask of that shape."""
    length = int(np.prod(shape))
    mask = np.zeros(length, dtype=bool)
    ids = [i for i, b in enumerate(trace.buffers) if b.space == GLOBAL and b.role == role]
    if not ids:
        return mask.reshape(shape)
    writes = np.zeros(SITE_MASK + 1, dtype=bool)
    for s in trace.sites:
        writes[s.id] = s.space == GLOBAL and s.op in (WRITE, RMW, ATOMIC)
    # The write records, a slice at a time: whole-trace temporaries of tens of MB cost more
    # in fresh memory than the work itself.
    chunk = 1 << 20
    site = np.empty(chunk, dtype=np.uint32)
    found = []
    for start in range(0, trace.word.size, chunk):
        words = trace.word[start : start + chunk]
        n = words.size
        np.bitwise_and(words, SITE_MASK, out=site[:n])
        found.append(np.flatnonzero(writes[site[:n]]) + start)
    at = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
    words = trace.word[at]
    at = at[np.isin(word_buffer(words), ids) & ~word_oob(words)]
    elem = trace.buffers[ids[0]].elem_size
    first = trace.offset[at].astype(np.int64) // elem
    sizes = word_size(trace.word[at])
    for size in np.unique(sizes):
        start_at = first[sizes == size]
        for k in range(max(1, -(-int(size) // elem))):
            inside = start_at + k
            mask[inside[(inside >= 0) & (inside < length)]] = True
    return mask.reshape(shape)


def _window_output(p: Any, trace: Trace, traced: np.ndarray, plain: np.ndarray) -> np.ndarray:
    """The output to judge: the window's elements from the trace build, the rest from the
    plain launch."""
    role = p.problem.output_role
    layout = role_layout(p.request.variant.layout, role)
    shape = traced.T.shape if layout == "column-major" and traced.ndim == 2 else traced.shape
    mask = written_by_trace(trace, role, shape)
    if layout == "column-major" and traced.ndim == 2:
        mask = mask.T
    return np.where(mask, traced, plain)


def _declared_inputs(trace: Trace, spec: CustomSpec) -> Trace:
    """A custom kernel's inputs are the buffers declared read-only, whatever their role, and
    its program-scope variables (no role: initialised by the program); never a ``noinit``
    buffer, which nothing initialised, so a read of it before a write is ``uninitialized``.
    Every other buffer the host filled with its declared contents (``host_filled``)."""
    read_only = {b.name for b in spec.buffers if b.access == "read" and b.contents != "noinit"}
    filled = {b.name for b in spec.buffers if b.contents != "noinit"}
    buffers = tuple(
        replace(
            info,
            is_input=info.space == GLOBAL and (info.role in read_only or not info.role),
            host_filled=info.space == GLOBAL and info.role in filled,
        )
        for info in trace.buffers
    )
    return replace(trace, buffers=buffers)


@dataclass(frozen=True, eq=False)
class TracedRun:
    """What crosses back from the executor: the verdict, the analysis, maybe the trace."""

    result: RunResult
    analysis: Any  # explorer.trace.analysis.Analysis, or None when the trace did not run
    trace: Trace | None
    timings_ms: dict[str, float]
    peak_rss_mb: float = 0.0
    report_json: dict[str, Any] | None = None  # the `trace --json` object
    report_text: str = ""  # the human report
    finished_at: float = 0.0  # when the executor was done (time.time()): the transfer starts


def trace_and_analyse(
    request: TraceRequest,
    warp: int = 32,
    banks: int = 32,
    keep_trace: bool = False,
    bank_bytes: int = 4,
) -> TracedRun:
    """Record, decode and analyse in the executor process; the trace itself crosses back
    only when asked for (it can be large)."""
    import resource

    from explorer.trace.analysis import analyse, format_report

    outcome = run_trace(request)
    if outcome.trace is None:
        return TracedRun(outcome.result, None, None, dict(outcome.timings_ms))
    t0 = time.perf_counter()
    analysis = analyse(outcome.trace, warp=warp, banks=banks, bank_bytes=bank_bytes)
    timings = dict(outcome.timings_ms, analyse_ms=(time.perf_counter() - t0) * 1e3)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return TracedRun(
        outcome.result,
        analysis,
        outcome.trace if keep_trace else None,
        timings,
        peak,
        analysis.to_json(outcome.trace),
        format_report(outcome.trace, analysis),
        time.time(),
    )
