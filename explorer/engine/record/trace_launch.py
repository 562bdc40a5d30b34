"""Running the instrumented kernel: size the trace, record it, read it back, decode it.

Two launches: the first only counts each work-item's records, so the second can give
every traced work-item a region of exactly the right size (no guessing, and overflow
can only come from a kernel whose control flow differs between launches: such work-items
are given the room they took and recorded again, a few times at most). The counting
launch runs a build whose barriers are recorded but not executed, so a barrier only some
work-items reach is found, not run (see the trace runtime); the recording launch runs the
kernel's real barriers unless that happened. Work-groups
are traced while the records fit in the memory budget; beyond it, a window of groups
around a chosen one. Where the records of one group show that the budget holds only a
window, the counting launch runs just the groups near the chosen one (a margin more than
the estimate) instead of every group: on a large grid that halves the time of a trace.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from explorer.description.launch import BufferParam, Expected, SamplerParam, ScalarParam
from explorer.engine import stage_times
from explorer.engine.build_inputs import build_digest, option_defines
from explorer.engine.launch.bind import (
    GUARD_PATTERN,
    bind,
    damage_by_buffer,
    fill_guards,
    read_results,
    reset,
)
from explorer.engine.launch.build import BuildError, launch_and_wait
from explorer.engine.launch.devices import NoDeviceError, list_devices, pick_device
from explorer.engine.launch.judge import judge, shown
from explorer.engine.launch.plan import trace_memory_refusal
from explorer.engine.launch.prepare import Prepared, prepare
from explorer.engine.launch.run import (
    NAN_WORD,
    OTHER_GUARD_BYTE,
    OTHER_WORD,
    judged_arrays,
    poison_local,
    recorded_answers,
    rejected_group_size,
    silenced_stdout,
)
from explorer.engine.record import staging
from explorer.engine.record.anatomy_run import anatomy_report, trace_anatomy
from explorer.engine.record.requests import DEFAULT_BUDGET_BYTES as DEFAULT_BUDGET_BYTES
from explorer.engine.record.requests import TracedRun, TraceRequest
from explorer.engine.record.staging import staging_pool
from explorer.engine.record.traced_source import traced_source
from explorer.engine.record.window_verify import (
    PlainFill,
    outside_may_leave,
    plain_launch,
    unexplained,
    window_results,
)
from explorer.engine.records import DeviceInfo, RunResult
from explorer.trace.c_expr import integer_names, integer_types
from explorer.trace.decode import RawTrace, decode, group_coords
from explorer.trace.instrument import (
    COUNT,
    NO_BARRIERS_OPTION,
    RECORD_EVERY_GROUP,
    RECORD_WINDOW,
    SKIP_BARRIERS,
    SWITCH_BARRIERS_OPTION,
    Instrumented,
    InstrumentError,
    instrument,
)
from explorer.trace.instrument import cache as instrument_cache
from explorer.trace.instrument.images import mode as image_mode
from explorer.trace.recorded import META_START, META_WORDS, Trace

if TYPE_CHECKING:  # a comparison comes with ``trace --against`` alone, its modules with it
    from explorer.engine.record.trace_against import Against

# The bytes of the scratch slot an access out of bounds of global memory is redirected to.
_DUMMY_BYTES = 256
# Records are 8 bytes (a byte offset and a packed word, in two planes; DEFAULT_BUDGET_BYTES
# holds 42 M of them).
RECORD_BYTES = 8


@dataclass(frozen=True, eq=False)
class TraceOutcome:
    result: RunResult  # the trace build's own verdict (it must compute the same answer)
    trace: Trace | None
    timings_ms: dict[str, float] = field(default_factory=dict)
    instrumented: Instrumented | None = None  # the build that recorded it


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
    include_dirs: tuple[str, ...] = (),
    headers: str = "",
    anatomy_lines: tuple[int, ...] = (),
) -> Instrumented:
    """``instrument`` remembered per executor: pressing Trace again on the same kernel, sizes
    and defines reuses the traced source (the libclang parse and rewrite cost ~0.1 s at 768²).
    The result depends on nothing but these arguments and the files the source includes
    (``headers``: their digest, a key only; an edited one is instrumented again), and
    ``Instrumented`` is frozen."""
    return instrument(source, kernel, dict(defines), values, cl_std, include_dirs, anatomy_lines)


def run_trace(request: TraceRequest, anatomy_lines: tuple[int, ...] = ()) -> TraceOutcome:
    """Instrument, prepare, then count, record, read back and decode (see the module)."""
    started = time.perf_counter()
    device = _device(request.run.device_key)
    if device is not None and read_planes_staged(device.type):
        # A first trace's planes (at most its budget, each plane's start rounded): their
        # memory, written meanwhile.
        staging.touch_ahead(request.budget_bytes + 4096)
    try:
        return _run_trace(request, anatomy_lines, started)
    finally:
        staging.forget_ahead()


def _run_trace(
    request: TraceRequest, anatomy_lines: tuple[int, ...], started: float
) -> TraceOutcome:
    recording = _trace_launch(request, anatomy_lines)
    if isinstance(recording, RunResult):
        return TraceOutcome(recording, None)
    recording.timings["build_ms"] = (time.perf_counter() - started) * 1e3
    stage_times.mark("trace: counting build ready")
    p = recording.p
    try:
        return recording.run()
    except p.runtime.cl.Error as exc:
        rejected = rejected_group_size(p, exc)
        return TraceOutcome(rejected or p.head.runtime_failed(exc), None)
    except BuildError as exc:  # the kernel as written, which fills a window's other groups
        return TraceOutcome(p.head.failed(str(exc), "build", build_log=exc.log), None)
    finally:
        if recording.fill is not None:
            recording.fill.join()


@dataclass(frozen=True, eq=False)
class GroupCounts:
    """Records each work-group of a launch writes, from one counting launch of them all."""

    num_groups: tuple[int, int, int]
    records: np.ndarray  # int64, one per group, by linear group id (x fastest)


def count_groups(request: TraceRequest) -> GroupCounts | RunResult:
    """The records of every work-group of the request's launch, counted and not recorded:
    what a launch too large for one trace needs to be traced in successive windows of groups
    (``TraceRequest.groups``) whose records fit. A RunResult says why it could not run."""
    counting = _trace_launch(request)
    if isinstance(counting, RunResult):
        return counting
    p = counting.p
    try:
        records = counting.count_every_group()
    except p.runtime.cl.Error as exc:
        return rejected_group_size(p, exc) or p.head.runtime_failed(exc)
    return GroupCounts(counting.num_groups, records)


def _trace_launch(
    request: TraceRequest, anatomy_lines: tuple[int, ...] = ()
) -> TraceLaunch | RunResult:
    """The request's kernel instrumented, prepared and built for tracing, or why not."""
    run = request.run
    inst = _instrument(request, anatomy_lines)
    stage_times.mark("trace: instrumented")
    if isinstance(inst, str):
        failed = prepare(run)
        if isinstance(failed, RunResult):
            return failed
        return failed.head.failed(f"cannot trace: {inst}", "trace")
    switched = bool(inst.barriers) and one_build(run.device_key)
    p = prepare(
        run,
        source=inst.source,
        time_reference=False,
        quick_build=not inst.optimised_only,
        extra_options=(SWITCH_BARRIERS_OPTION,) if switched else (),
    )
    stage_times.mark("trace: prepared (context, build, inputs, reference)")
    if isinstance(p, RunResult):
        return p
    too_big = trace_memory_refusal(p.launch.global_size, p.launch.local_size)
    if too_big is not None:
        return p.head.refused(too_big)
    try:
        return TraceLaunch(p, inst, request, switched)
    except BuildError as exc:
        return p.head.failed(str(exc), "build", build_log=exc.log)


def _instrument(request: TraceRequest, anatomy_lines: tuple[int, ...] = ()) -> Instrumented | str:
    """The instrumented source of the request's kernel (``traced_source``; an anatomy build
    recording the index anatomy of ``anatomy_lines`` too), or why it cannot be traced."""
    variant = request.run.variant
    try:
        made = traced_source(request.run)
        lines = tuple(sorted(set(anatomy_lines)))
        values = request.values or bool(lines)
        defines, folders = made.defines, made.include_dirs
        # Headers from include folders are read by the parse, not named by the key: a kernel
        # that has them is instrumented again in every process.
        key = None
        if not folders:
            extra = (repr(made.partial), repr(lines)) if lines else (repr(made.partial),)
            key = instrument_cache.cache_key(
                variant.source, variant.kernel, tuple(defines.items()), values, made.cl_std, extra
            )
            kept = instrument_cache.load(key)
            if kept is not None:
                return kept
        headers = build_digest(variant.source, variant.build_options) if folders else ""
        inst = instrumented(
            made.source(),
            variant.kernel,
            tuple(defines.items()),
            values,
            made.cl_std,
            folders,
            headers,
            lines,
        )
        if key is not None:
            instrument_cache.store(key, inst)
        return inst
    except (InstrumentError, ValueError) as exc:
        return str(exc)


class TraceLaunch:
    """The instrumented kernel's launches for one trace: sized by a counting launch, then
    recorded into per-work-item regions, read back, decoded and judged."""

    def __init__(
        self, p: Prepared, inst: Instrumented, request: TraceRequest, switched: bool = False
    ) -> None:
        """``switched``: ``p.kernel`` was built with SWITCH_BARRIERS_OPTION, so that one
        program counts and records (:func:`one_build`)."""
        self.p, self.inst, self.request = p, inst, request
        self.cl = p.runtime.cl
        self.timings: dict[str, float] = {}
        local = (list(p.launch.local_size) + [1, 1, 1])[:3]
        self.per_group = int(np.prod(local))
        dims = [g // lo for g, lo in zip(p.launch.global_size, p.launch.local_size, strict=True)]
        dims += [1] * (3 - len(dims))
        self.num_groups = (dims[0], dims[1], dims[2])
        self.total_groups = int(np.prod(self.num_groups))
        # The value plane makes each record wider: the budget holds fewer of them.
        self.budget = request.budget_bytes * RECORD_BYTES // (RECORD_BYTES + inst.value_bytes)
        self.diverged = np.zeros(0, dtype=bool)
        # What a window's verdict needs besides the trace, made ready meanwhile.
        self.fill: PlainFill | None = None
        # Without a barrier the counting build is the same program; with the barriers
        # switched, too, each launch without them saying so in its mode.
        self.without_barriers = p.kernel
        self.skip_barriers = SKIP_BARRIERS if switched else 0
        if inst.barriers and not switched:
            variant = p.variant
            self.without_barriers = p.runtime.cache.kernel(
                self.cl,
                p.context,
                p.device.key,
                inst.source,
                (*p.built_with, NO_BARRIERS_OPTION),
                variant.kernel,
                variant.log_name,
            )

    def run(self) -> TraceOutcome:
        p = self.p
        self.bound = bind(p)
        self._runtime_buffers()
        t0 = time.perf_counter()
        wi_records, counted = self._count()
        self.timings["count_ms"] = (time.perf_counter() - t0) * 1e3
        stage_times.mark("trace: counted")
        t0 = time.perf_counter()
        window, offsets, counts, dispatch, planes, mode = self._record(wi_records, counted)
        results, _ = read_results(p, self.bound)
        plain = None
        damage: dict[str, str] = {}
        if mode == RECORD_WINDOW:
            t1 = time.perf_counter()
            plain, damage = self._fill().results(self.bound)
            self.timings["verify_ms"] = (time.perf_counter() - t1) * 1e3
            t0 += time.perf_counter() - t1  # not part of the recording
        self.timings["record_ms"] = (time.perf_counter() - t0) * 1e3
        stage_times.mark("trace: recorded (and verified)")
        t0 = time.perf_counter()
        trace = decode(self._raw(planes, offsets, counts, dispatch, window), self.inst)
        self.timings["decode_ms"] = (time.perf_counter() - t0) * 1e3
        if plain is not None:
            outside = unexplained(damage, trace)
            if outside is not None:
                return TraceOutcome(self._filled_outside(outside), None, self.timings, self.inst)
            t0 = time.perf_counter()
            results = window_results(p, trace, results, plain)
            self.timings["verify_ms"] += (time.perf_counter() - t0) * 1e3
        stage_times.mark("trace: decoded")
        judged = judge(p.description, results, p.inputs, p.references)
        if not judged.verdict.verified and recorded_answers(p):
            # As a run does (run.undetermined): the elements that memory the kernel never
            # wrote decides (a read past a buffer's end, local memory) are not judged.
            t0 = time.perf_counter()
            unsettled = self.undetermined(judged.outputs, trace if mode == RECORD_WINDOW else None)
            self.timings["undetermined_ms"] = (time.perf_counter() - t0) * 1e3
            if isinstance(unsettled, str):
                return TraceOutcome(self._wrote_outside(unsettled), None, self.timings, self.inst)
            if unsettled:
                judged = judge(p.description, results, p.inputs, p.references, unsettled)
        result = p.head.judged(
            verdict=judged.verdict,
            flops=p.description.flops,
            bytes_moved=p.description.bytes_moved,
            **judged_arrays(p, judged),
        )
        return TraceOutcome(result, trace, self.timings, self.inst)

    def undetermined(
        self, first: dict[str, np.ndarray], window: Trace | None = None
    ) -> dict[str, np.ndarray] | str:
        """By result with a recorded answer, the elements (True, in its shown shape) that one
        more launch of the trace build from the same inputs leaves otherwise than ``first``
        (the results judged), local memory, the scratch slot an access out of bounds is
        redirected to and the guards around each buffer filled with other bytes before it
        (what :func:`explorer.engine.launch.run.undetermined` does for a run; the trace
        build reads past a buffer's end from that slot). Only results where some elements
        are decided count. The launch counts and records nothing. The guards keep the other
        bytes: a trace's allocations never go back to the pool (``bind.damaged_guards``).

        ``window``: the trace of a window whose other groups' elements came from the kernel
        as written (RECORD_WINDOW); the trace build then runs the window's groups alone, and
        one more launch of the kernel as written makes the rest, each element compared with
        what its own build made (the trace build over every group cost a launch as long as
        counting them all, which a window spares, and compared the elements outside it
        across two builds). That launch is not bounds-checked: what it wrote outside its
        buffers, in words, instead (outside a buffer the window's records show written
        outside of: the window's own writes, which its findings name)."""
        p = self.p
        fill_guards(p, self.bound, OTHER_GUARD_BYTE)
        if window is None:
            groups = np.arange(self.total_groups)
            self.count(groups, self.real_barriers, OTHER_WORD, OTHER_GUARD_BYTE)
            again, _ = read_results(p, self.bound)
        else:
            self.count(self.window, self.real_barriers, OTHER_WORD, OTHER_GUARD_BYTE)
            traced, _ = read_results(p, self.bound)
            rest = plain_launch(p, self.bound, OTHER_WORD)
            # The window's groups ran in it too: where their records show writes outside a
            # buffer (the trace's findings), its guards tell nothing of the other groups.
            damage = unexplained(damage_by_buffer(p, self.bound, OTHER_GUARD_BYTE), window)
            if damage is not None:
                return damage
            again = window_results(p, window, traced, rest)
        found: dict[str, np.ndarray] = {}
        for b in p.description.results:
            if not isinstance(b.check, Expected):
                continue
            before, after = first[b.name], shown(b, again[b.name])
            same = before == after
            if before.dtype.kind in "fc":
                same |= np.isnan(before) & np.isnan(after)
            if not same.all() and same.any():
                found[b.name] = ~same
        return found

    def _wrote_outside(self, damage: str) -> RunResult:
        """The trace's result where the kernel as written wrote outside its buffers in the
        launch that tells which elements memory it was not given decides."""
        p = self.p
        return p.head.failed(
            f"{p.variant.qualified_id} {damage} in one more launch from the same inputs of "
            "the groups outside the traced window, made to tell which elements of its result "
            "memory it was not given decides (local memory and the memory around each buffer "
            "filled with other bytes first): what it read there decided where it wrote. "
            "Out-of-bounds writes corrupt memory that belongs to something else; the result "
            "is not trusted and the executor was restarted. Trace the groups that write "
            "there to see where they read past a buffer's end.",
            "crash",
        )

    def _filled_outside(self, damage: str) -> RunResult:
        """The trace's result where the kernel as written, launched for the elements of the
        groups outside the traced window, wrote outside its buffers: as a run's, a crash
        naming the buffer (the trace build skips such a write, the kernel as written makes
        it)."""
        p = self.p
        return p.head.failed(
            f"{p.variant.qualified_id} {damage} in the launch of the kernel as written that "
            "made the elements of the groups outside the traced window, whose own "
            "work-items wrote nowhere outside that buffer. Out-of-bounds writes corrupt "
            "memory that belongs to something else; the result is not trusted and the "
            "executor was restarted. Trace the groups that write there (a window around "
            "them) to see their accesses.",
            "crash",
        )

    def count_every_group(self) -> np.ndarray:
        """One counting launch of every group and nothing recorded: records per group."""
        self.bound = bind(self.p)
        self._runtime_buffers()
        return self.count(np.arange(self.total_groups)).sum(axis=1, dtype=np.int64)

    def _runtime_buffers(self) -> None:
        """The trace runtime's own arguments: each buffer's length, the metadata it fills."""
        inst, arranged = self.inst, self.p.arranged
        lengths = np.zeros(max(1, len(inst.buffers) + len(inst.samplers)), dtype=np.uint64)
        for b in inst.buffers:
            if b.param_index is not None:
                lengths[b.id] = self.bound.param_bytes[b.param_index]
            given = arranged[b.param_index] if b.param_index is not None else None
            if b.image and isinstance(given, BufferParam):  # an image: one pixel's bytes
                lengths[b.id] = given.element.nbytes
        for k, index in enumerate(inst.samplers):  # after them, the samplers' modes
            sampler = arranged[index]
            if isinstance(sampler, SamplerParam):
                lengths[len(inst.buffers) + k] = image_mode(
                    sampler.address, sampler.normalized, sampler.filter == "linear"
                )
        self.len_buf = self._buffer(lengths)
        self.meta = np.tile(np.array(META_START, np.uint64), max(1, len(self.inst.buffers)))
        self.meta_buf = self._buffer(self.meta)
        # Where an access out of bounds is redirected: it reads what a read just past a
        # buffer's end reads in a run (the guards' pattern), so that the trace build
        # computes what the kernel as written does there, the same at every trace (filled
        # again before each launch: :meth:`launch`).
        self.dummy_buf = self._buffer(np.full(_DUMMY_BYTES, GUARD_PATTERN, dtype=np.uint8))

    def _buffer(self, array: np.ndarray) -> Any:
        mf = self.cl.mem_flags
        return self.cl.Buffer(self.p.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=array)

    def _count(self) -> tuple[np.ndarray, np.ndarray]:
        """Records per work-item of every group counted (all, or those near the chosen one
        where one group's count shows that only a window fits), and which were counted."""
        request = self.request
        wi_records = np.zeros((self.total_groups, self.per_group), dtype=np.uint32)
        if request.groups:
            counted = groups_in_ranges(self.num_groups, request.groups)
        else:
            probe = nearest_groups(self.num_groups, request.center)[:1]
            probe_records = int(self.count(probe).sum())
            near = groups_to_count(probe_records, self.num_groups, self.budget, request.center)
            counted = np.arange(self.total_groups) if near is None else near
        if counted.size < self.total_groups and outside_may_leave(self.inst):
            self._fill()  # a window for sure: its verdict is made ready while the device works
        wi_records[counted] = self.count(counted)
        return wi_records, counted

    def _fill(self) -> PlainFill:
        """The window's plain launch, made ready on a thread of its own from the first call."""
        if self.fill is None:
            self.fill = PlainFill(self.p)
        return self.fill

    def _record(
        self, wi_records: np.ndarray, counted: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, ...], int]:
        """The recording launch over the window of groups that fits, each work-item given a
        region of exactly its count; counted again with real barriers where the kernel took
        other paths with them. The planes are mapped, not copied."""
        divergent = bool(self.diverged.any())
        group_records = np.full(self.total_groups, np.inf)
        group_records[counted] = wi_records[counted].sum(axis=1)
        request = self.request
        window = choose_window(
            group_records, self.num_groups, self.budget, request.center, request.groups
        )
        slots = np.full(self.total_groups, -1, dtype=np.int32)
        slots[window] = np.arange(window.size, dtype=np.int32)
        wi_counts = wi_records[window].ravel().astype(np.uint64)
        mode = RECORD_EVERY_GROUP
        if window.size < self.total_groups and outside_may_leave(self.inst):
            mode = RECORD_WINDOW
            self._fill()
        offsets = _offsets(wi_counts)
        counts, dispatch, rec_bufs = self.launch(slots, offsets, mode, not divergent)
        if not divergent and not np.array_equal(counts, wi_counts):
            # With real barriers the kernel took other paths than when counted without them
            # (it reads what other work-items wrote): count again with them, and record.
            wi_counts = self.count(window, True).ravel().astype(np.uint64)
            offsets = _offsets(wi_counts)
            counts, dispatch, rec_bufs = self.launch(slots, offsets, mode, True)
        for _ in range(ROOM_RETRIES):
            # A kernel whose paths differ from launch to launch (work handed out by an
            # atomic ticket, a compare-and-swap loop that retries as other work-items win,
            # on a device that runs many at once): which work-items make more records is not
            # the same twice, so every work-item gets room for as many as the most any made
            # yet, where the budget holds that, else those that did not fit room for what
            # they made and as much again; and the launch is recorded anew.
            made = counts.astype(np.uint64)
            over = made > wi_counts
            if not over.any():
                break
            room = np.maximum(wi_counts, max(int(made.max()), int(wi_counts.max())))
            if int(room.sum()) * RECORD_BYTES > self.budget:
                room = wi_counts.copy()
                room[over] = 2 * made[over] - wi_counts[over]
                if int(room.sum()) * RECORD_BYTES > self.budget:
                    break
            wi_counts = room.astype(np.uint64)
            offsets = _offsets(wi_counts)
            counts, dispatch, rec_bufs = self.launch(slots, offsets, mode, not divergent)
        self.slots, self.window = slots, window
        self.real_barriers = not divergent  # as the recording launch ran
        planes = self._planes(rec_bufs, int(offsets[-1]))
        self.cl.enqueue_copy(self.p.queue, self.meta, self.meta_buf).wait()
        return window, offsets, counts, dispatch, planes, mode

    def _planes(self, rec_bufs: tuple[Any, ...], capacity: int) -> tuple[np.ndarray, ...]:
        """Offsets, words and values as arrays: on a CPU device read where the kernel wrote
        them (hundreds of MB); from a GPU, copied into page-locked memory kept between
        traces where the pool has it (see staging.py), else mapped. The arrays keep their
        memory alive until they are dropped."""
        value_bytes = self.inst.value_bytes
        value_dtype = (np.uint64 if value_bytes == 8 else np.uint32) if value_bytes else None
        dtypes = (np.uint32, np.uint32, value_dtype)
        cl, queue = self.cl, self.p.queue
        wanted = [
            (buf, np.dtype(dtype), capacity)
            for buf, dtype in zip(rec_bufs, dtypes, strict=True)
            if capacity and dtype is not None
        ]
        if wanted and read_planes_staged(self.p.device.type):
            pool = staging_pool(cl, self.p.context, queue)
            read = pool.read(wanted)
            if read is None and FIRST_READ == "fresh":
                read = pool.read_fresh(wanted)
            if read is not None:
                staged = iter(read)
                return tuple(
                    next(staged) if capacity and dtype is not None else np.zeros(0, dtype=dtype)
                    for dtype in dtypes
                )
        return tuple(
            cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ, 0, (capacity,), dtype)[0]
            if capacity and dtype is not None
            else np.zeros(0, dtype=dtype)
            for buf, dtype in zip(rec_bufs, dtypes, strict=True)
        )

    def launch(
        self,
        slots: np.ndarray,
        offsets: np.ndarray,
        mode: int,
        real_barriers: bool,
        word: int = NAN_WORD,
        scratch: int = GUARD_PATTERN,
    ) -> tuple[np.ndarray, np.ndarray, tuple[Any, ...]]:
        """One launch of the instrumented kernel: records per traced work-item, the order the
        groups started in and the record buffers; notes groups whose work-items passed a
        barrier site different numbers of times (``diverged``). Local memory is filled with
        ``word`` first, the scratch slot of the accesses out of bounds with ``scratch``."""
        p, cl, inst = self.p, self.cl, self.inst
        mf = cl.mem_flags
        capacity = int(offsets[-1])
        traced_groups = int((slots >= 0).sum())
        w = traced_groups * self.per_group
        arrivals = np.zeros((max(1, traced_groups), max(1, inst.barriers), 2), dtype=np.uint32)
        arrivals[:, :, 0] = np.iinfo(np.uint32).max
        bar_buf = self._buffer(arrivals)
        plane = max(4, capacity * 4)  # offsets and words, in two planes
        value_plane = max(8, capacity * inst.value_bytes)  # and values, if asked
        rec_bufs: tuple[Any, ...] = (
            cl.Buffer(p.context, mf.READ_WRITE, plane),
            cl.Buffer(p.context, mf.READ_WRITE, plane),
            cl.Buffer(p.context, mf.READ_WRITE, value_plane),
        )
        counts = np.zeros(max(1, w), dtype=np.uint32)
        dispatch = np.zeros(1 + self.total_groups, dtype=np.uint32)
        cnt_buf, disp_buf = self._buffer(counts), self._buffer(dispatch)
        args = [
            *self.bound.args,
            *rec_bufs[:2],
            self._buffer(offsets.astype(np.uint64)),
            cnt_buf,
            disp_buf,
            self._buffer(slots.astype(np.int32)),
            self.len_buf,
            self.meta_buf,
            self.dummy_buf,
            np.uint32(mode if real_barriers else mode | self.skip_barriers),
            bar_buf,
            np.uint32(0),  # the runtime's opaque zero (runtime.cl says why)
            rec_bufs[2],
        ]
        kernel = p.kernel if real_barriers else self.without_barriers
        kernel.set_args(*args)
        reset(p, self.bound)
        if not mode & COUNT:
            self._forget_far()
        cl.enqueue_copy(p.queue, self.dummy_buf, np.full(_DUMMY_BYTES, scratch, dtype=np.uint8))
        poison_local(p, word)
        with silenced_stdout():  # printf output belongs to the plain run
            launch_and_wait(cl, p.queue, kernel, p.launch.global_size, p.launch.local_size)
        cl.enqueue_copy(p.queue, counts, cnt_buf)
        cl.enqueue_copy(p.queue, arrivals, bar_buf)
        cl.enqueue_copy(p.queue, dispatch, disp_buf).wait()
        seen = arrivals[:traced_groups]
        self.diverged = ((seen[:, :, 0] != seen[:, :, 1]) & (seen[:, :, 1] > 0)).any(axis=1)
        return counts[:w], dispatch, rec_bufs

    def _forget_far(self) -> None:
        """Each buffer's access too far for its record (runtime.cl's __tr_far, the last two
        words of its metadata) back to none before a recording launch: a launch before it
        kept the first such access of the groups it ran, and a counting launch runs groups a
        window does not record (a window then named an element another group reached). The
        words each buffer's description fills stay."""
        cl, queue = self.cl, self.p.queue
        meta = np.empty_like(self.meta)
        cl.enqueue_copy(queue, meta, self.meta_buf)
        rows = meta.reshape(-1, META_WORDS)
        rows[:, 6:] = META_START[6:]
        cl.enqueue_copy(queue, self.meta_buf, meta)

    def count(
        self,
        groups: np.ndarray,
        real_barriers: bool = False,
        word: int = NAN_WORD,
        scratch: int = GUARD_PATTERN,
    ) -> np.ndarray:
        """Records per work-item of the given groups, (groups, per_group), in order.
        Without real barriers (the default) a barrier only some work-items reach is
        counted, not executed (see runtime.cl). ``word``, ``scratch``: :meth:`launch`."""
        slots = np.full(self.total_groups, -1, dtype=np.int32)
        slots[groups] = np.arange(groups.size, dtype=np.int32)
        zero = np.zeros(groups.size * self.per_group + 1, dtype=np.uint64)
        counted, _, _ = self.launch(slots, zero, COUNT, real_barriers, word, scratch)
        return counted.reshape(groups.size, self.per_group)

    def _raw(
        self,
        planes: tuple[np.ndarray, ...],
        offsets: np.ndarray,
        counts: np.ndarray,
        dispatch: np.ndarray,
        window: np.ndarray,
    ) -> RawTrace:
        p = self.p
        names = [param.name for param in p.arranged]
        roles = tuple(
            names[b.param_index] if b.param_index is not None else None for b in self.inst.buffers
        )
        results = p.description.results
        return RawTrace(
            planes[0],
            planes[1],
            offsets,
            counts,
            dispatch,
            self.meta,
            self.slots,
            p.launch.global_size,
            p.launch.local_size,
            roles,
            results[0].name if results else None,
            planes[2] if self.inst.value_bytes else None,
            p.launch.ndrange,
            frozenset(b.name for b in p.description.buffers if b.is_input),
            frozenset(b.name for b in p.description.buffers if b.host_filled),
            tuple((b.name, w) for b in p.description.buffers if (w := b.promise) is not None),
            names=kernel_names(p),
            types=integer_types(p.variant.source),
        )


def kernel_names(p: Prepared) -> tuple[tuple[str, int], ...]:
    """The integers the kernel names: its integer scalar arguments as launched, the defines
    of its build, the integer macros of its source (``Trace.names``)."""
    scalars = [
        (param.name, param.scalar_type or "", given.value)
        for param, given in zip(p.params, p.arranged, strict=False)
        if isinstance(given, ScalarParam)
    ]
    return integer_names(p.variant.source, option_defines(p.options), scalars)


# Whether a trace's counting launches and its recording launch run one program whose
# barriers each launch switches on or off (runtime.cl): None decides by the device (a CPU's
# trace keeps two builds: PoCL makes a slower work-group function of a program whose barriers
# sit under a condition, docs/benchmarks.md); True or False decides for every device (what
# the benchmark measuring it sets).
ONE_BUILD: bool | None = None

# Recording launches made anew, at most, for work-items whose records did not fit.
ROOM_RETRIES = 3


def one_build(device_key: str | None) -> bool:
    """Whether the trace on ``device_key`` counts and records with one program
    (:data:`ONE_BUILD`): every device but a CPU, by default."""
    if ONE_BUILD is not None:
        return ONE_BUILD
    device = _device(device_key)
    return device is not None and "CPU" not in device.type.upper()


def _device(device_key: str | None) -> DeviceInfo | None:
    """The device ``device_key`` names; None where none does (prepare says why)."""
    try:
        return pick_device(list_devices(), device_key)
    except NoDeviceError:
        return None


# Where the planes go when the pool has no free entries for them (a process's first trace):
# "fresh" (new memory whose pages several threads wrote first) or "map" (the driver's copy).
FIRST_READ = "fresh"


def read_planes_staged(device_type: str) -> bool:
    """Whether the planes of a device of ``device_type`` are read into the staging pool
    (page-locked memory kept between traces): not on a CPU device, whose buffers the host
    maps where they are."""
    return "CPU" not in device_type.upper()


def _offsets(wi_counts: np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(wi_counts)]).astype(np.uint64)


def trace_against(request: TraceRequest, mine: Trace) -> Against | None:
    """Trace ``request.against`` at the launch that gave ``mine`` (the same sizes, local
    size, defines, input and device, or ``request.against_device``) and compare the two;
    None without a reference."""
    variant = request.against
    if variant is None:
        return None
    from explorer.engine.record.trace_against import compare, reference_name

    device = request.against_device or request.run.device_key
    run = replace(request.run, variant=variant, local=tuple(mine.local_size), device_key=device)
    outcome = run_trace(replace(request, run=run, against=None, against_device=None))
    name = request.against_called or reference_name(variant)
    if request.against_device:
        name += f" on {outcome.result.device or device}"
    return compare(
        name, outcome.result, mine, outcome.trace, request.values, request.against_quoted
    )


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

    from explorer.trace.analysis import analyse, format_report, registry

    outcome = run_trace(request)
    if outcome.trace is None:
        return TracedRun(outcome.result, None, None, dict(outcome.timings_ms))
    against = trace_against(request, outcome.trace)
    t0 = time.perf_counter()
    diff = against.diff if against is not None else None
    stage_times.mark("trace: judged")
    on_stage = (
        (lambda stage: stage_times.mark(f"trace: analysis: {stage}")) if stage_times.on() else None
    )
    analysis = analyse(
        outcome.trace, warp=warp, banks=banks, bank_bytes=bank_bytes, diff=diff, on_stage=on_stage
    )
    timings = dict(outcome.timings_ms, analyse_ms=(time.perf_counter() - t0) * 1e3)
    stage_times.mark("trace: analysed")
    result = outcome.result
    if result.status == "wrong":
        causes = registry.causes_of_a_wrong_result(analysis.findings)
        result = replace(result, explained_by=causes) if causes else result
    t0 = time.perf_counter()
    recording = replace(request, values=True, against=None, against_device=None)

    def record(lines: tuple[int, ...], groups: tuple[tuple[int, int], ...] | None) -> Any:
        within = recording if groups is None else replace(recording, groups=groups, center=None)
        return run_trace(within, lines)

    # Lines asked of a trace that is kept: any of its work-items may be asked about, so the
    # whole window; otherwise the groups of the work-items explained (a report, a finding).
    whole = keep_trace and bool(request.anatomy_lines)
    anatomy = trace_anatomy(request, outcome.trace, analysis.findings, record, whole)
    if anatomy is not None:
        timings["anatomy_ms"] = (time.perf_counter() - t0) * 1e3
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    report = analysis.to_json(outcome.trace)
    notes = anatomy_report(request, outcome.trace, analysis.findings, anatomy, report)
    text = format_report(outcome.trace, analysis, notes.findings) + notes.text
    if against is not None:
        report["against"] = against.to_json()
        text += "\n\n" + against.text()
    if request.report_only:  # the findings' groups, as the command line's JSON gives them
        from explorer.trace.analysis.report import groups_json

        report["groups"] = groups_json(analysis.findings)
        for number, group in enumerate(report["groups"]):
            for index in group["findings"]:
                report["findings"][index]["group"] = number
    stage_times.mark("trace: reported")
    return TracedRun(
        result,
        None if request.report_only else analysis,
        outcome.trace if keep_trace else None,
        timings,
        peak,
        report,
        text,
        time.time(),
        against,
        anatomy if keep_trace else None,  # its values explain the trace's records: with it
    )
