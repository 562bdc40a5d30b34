"""Run one :class:`RunRequest` in this process: prepare, bind, launch, time, judge.

The executor calls this in its own process; nothing here is safe against a kernel
that crashes the runtime or never returns, which is why it lives over there.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from explorer.description.launch import Expected, NoInit
from explorer.engine.launch.bind import (
    Bound,
    bind,
    damaged_guards,
    fill_guards,
    read_results,
    reset,
    upload,
)
from explorer.engine.launch.build import launch_and_wait
from explorer.engine.launch.copy_kernel import CopyKernel
from explorer.engine.launch.judge import (
    Judged,
    judge,
    shown,
    with_probe,
    without_probe,
    worse,
)
from explorer.engine.launch.plan import LaunchPlan, kernel_limit_refusal
from explorer.engine.launch.prepare import (
    OUT_OF_MEMORY,
    Prepared,
    ProbeInputs,
    make_probe,
    prepare,
)
from explorer.engine.launch.runtime import OpenCLRuntime
from explorer.engine.records import (
    DeviceInfo,
    RunRequest,
    RunResult,
    Timing,
    Verdict,
    failed_result,
)
from explorer.families.base import ProbeDescription

OUTPUT_TEXT_LIMIT = 64 * 1024
# What local memory is filled with before a launch: a float NaN, so that a result computed
# from local memory the kernel never wrote shows as NaN; and another word, for the launch
# that tells which elements of a result such memory decides (:func:`undetermined`).
NAN_WORD = 0x7FC00000
OTHER_WORD = 0x00000000
# What the guards around each buffer hold for that launch (their pattern otherwise): a read
# past a buffer's end then reads other bytes too, and other in what they add up to: the
# pattern's complement, 0x5A5A5A5A, is 1.5e16 as a float and 1.8e127 as a double, where the
# pattern reads as -2.9e-16 and -2.5e-127 (zeros, as much as the pattern, were swallowed by
# any value they were added to: a result a read past the end decides looked decided).
OTHER_GUARD_BYTE = 0x5A
# Fill launches at most, and (where local memory is not the host's, as on a GPU) how many in a
# row must find no area not filled before.
_MOST_FILLS = 256
_QUIET_FILLS = 8


def run_request(request: RunRequest) -> RunResult:
    """Everything that can go wrong in a well-behaved kernel becomes a field of the result."""
    try:
        return _run(request)
    except MemoryError:
        return failed_result(request, str(OUT_OF_MEMORY), "input")


@dataclass
class _Launches:
    """What the launches of one run left: the first one's judgement (it started from the
    initial contents), the samples, the copies timed beside them, the printf output, and
    the random probe's judgement (or why there was none)."""

    first: Judged
    last: dict[str, np.ndarray]
    samples: list[float]
    paired: list[float]
    download_ms: float
    output_text: str | None
    damage: str | None
    probe: tuple[Judged, ProbeInputs] | str = ""
    first_damage: str | None = None  # what the first launch alone wrote outside its buffers


def _run(request: RunRequest) -> RunResult:
    p = prepare(request)
    if isinstance(p, RunResult):
        return p
    cl = p.runtime.cl
    try:
        bound = bind(p)
        p.kernel.set_args(*bound.args)
        launches = _launch(p, bound)
    except cl.Error as exc:
        rejected = rejected_group_size(p, exc)
        return rejected if rejected is not None else p.head.runtime_failed(exc)
    if launches.damage is not None and launches.first_damage is None:
        return p.head.failed(
            f"{p.variant.qualified_id}'s first launch stayed inside its buffers, but a "
            f"launch after it {launches.damage}: "
            "the launches after the first (warm-up and timed) start from what the one before "
            "left, as the buffers are not set back between them, so a count the kernel keeps "
            "in memory (an atomic counter, a position it appends at) runs on past the end. "
            "Out-of-bounds writes corrupt memory that belongs to something else; the result "
            "is not trusted and the executor was restarted. Trace it to see its one launch's "
            "accesses; to time it, have the kernel start from what it is given.",
            "crash",
        )
    if launches.damage is not None:
        return p.head.failed(
            f"{p.variant.qualified_id} {launches.damage}. Out-of-bounds writes corrupt memory "
            "that belongs to something else; the result is not trusted and the executor was "
            "restarted. Check the kernel's bounds (trace it to see the accesses).",
            "crash",
        )
    judged = launches.first
    rewritten = all(b.rewritten_by_kernel for b in p.description.results)
    if rewritten:
        # Outputs only written: a later launch over the first one's output must agree; a
        # kernel that reads memory it never wrote can look right there, or only there.
        judged = worse(judged, judge(p.description, launches.last, p.inputs, p.references))
    if not judged.verdict.verified and recorded_answers(p):
        try:
            unsettled, damage = undetermined(p, bound, launches.first.outputs)
        except cl.Error as exc:
            return p.head.runtime_failed(exc)
        if damage is not None:
            return p.head.failed(
                f"{p.variant.qualified_id} {damage} in one more launch from the same inputs, "
                "made to tell which elements of its result memory it was not given decides "
                "(local memory and the memory around each buffer filled with other bytes "
                "first): what it read there decided where it wrote. Out-of-bounds writes "
                "corrupt memory that belongs to something else; the result is not trusted and "
                "the executor was restarted. Trace it to see where it reads past a buffer's "
                "end.",
                "crash",
            )
        if unsettled:
            judged = judge(p.description, launches.first.outputs, p.inputs, p.references, unsettled)
            if rewritten:
                last = judge(p.description, launches.last, p.inputs, p.references, unsettled)
                judged = worse(judged, last)
    return p.head.judged(
        verdict=probed_verdict(judged.verdict, launches.probe, p),
        timing=Timing(
            tuple(launches.samples),
            bound.upload_ms,
            launches.download_ms,
            p.reference_ms,
            tuple(launches.paired),
        ),
        flops=p.description.flops,
        bytes_moved=p.description.bytes_moved,
        output_text=launches.output_text,
        **judged_arrays(p, judged),
    )


def judged_arrays(p: Prepared, judged: Judged) -> dict[str, Any]:
    """The arrays a result carries where the request keeps them: every result and its
    answer, and the inputs, as shown."""
    if not p.request.keep_output:
        return {}
    return {
        "outputs": judged.outputs,
        "references": judged.references,
        "inputs": p.shown_inputs,
    }


def _launch(p: Prepared, bound: Bound) -> _Launches:
    """The first launch (judged on its own), then the warm-up and the timed ones."""
    cl = p.runtime.cl
    request, launch = p.request, p.launch
    poison_local(p)
    with _captured_stdout() as captured:
        launch_and_wait(cl, p.queue, p.kernel, launch.global_size, launch.local_size)
        p.queue.finish()
    # The first launch is kept apart: a kernel that reads memory it never wrote can look
    # right on later launches, which find the first one's leftovers; a kernel that updates
    # its buffers in place started from the described contents on the first one only.
    first_results, _ = read_results(p, bound)
    first = judge(p.description, first_results, p.inputs, p.references)
    first_damage = damaged_guards(p, bound, keep=False)
    samples: list[float] = []
    paired: list[float] = []
    pair = None
    if request.pair_copy:
        pair = CopyKernel(p.runtime, p.context, p.queue, p.device, p.description.bytes_moved)
    warmup = max(1, request.warmup)
    try:
        with silenced_stdout():  # printf output of one launch is enough
            for i in range(1, warmup + request.repeat):
                event = cl.enqueue_nd_range_kernel(
                    p.queue, p.kernel, launch.global_size, launch.local_size
                )
                event.wait()
                if i >= warmup:
                    samples.append(_event_ms(event))
                    if pair is not None:
                        paired.append(pair.time_ms())
            p.queue.finish()
    finally:
        if pair is not None:
            pair.release()
    last, download_ms = read_results(p, bound)
    probe = probe_launch(p, bound)
    damage = damaged_guards(p, bound)
    return _Launches(
        first, last, samples, paired, download_ms, captured.text, damage, probe, first_damage
    )


def recorded_answers(p: Prepared) -> bool:
    """Whether a result's answer is an array recorded from a run (a captured launch's
    output), which memory the kernel never wrote may have decided there too."""
    return any(isinstance(b.check, Expected) for b in p.description.results)


def undetermined(
    p: Prepared, bound: Bound, first: Mapping[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], str | None]:
    """By result with a recorded answer, the elements (True, in its shown shape) that a
    launch from the very same inputs leaves otherwise than the first launch did, local
    memory and the guards around each buffer filled with other bytes before it: what decides
    them is not in the inputs (local memory the kernel never wrote, a read past a buffer's
    end, a race between work-items, the order of atomics). Only results where some elements
    are decided count: a result that differs everywhere is judged as it is. The buffers are
    set back to their initial contents first, the guards to their pattern after. Second,
    what that launch wrote outside its buffers (:func:`damaged_guards`), or None: a kernel
    that writes where a read past a buffer's end says may do so with the other bytes only."""
    cl = p.runtime.cl
    reset(p, bound)
    poison_local(p, OTHER_WORD)
    launch = p.launch
    try:
        fill_guards(p, bound, OTHER_GUARD_BYTE)
        with silenced_stdout():
            cl.enqueue_nd_range_kernel(
                p.queue, p.kernel, launch.global_size, launch.local_size
            ).wait()
            p.queue.finish()
        again, _ = read_results(p, bound)
        damage = damaged_guards(p, bound, keep=False, byte=OTHER_GUARD_BYTE)
    finally:
        fill_guards(p, bound)  # the allocations go back to the pool with their pattern
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
    return found, damage


def probe_launch(
    p: Prepared, bound: Bound, poison: bool = True
) -> tuple[Judged, ProbeInputs] | str:
    """One more launch of the built kernel, on the random probe's contents (every buffer
    uploaded again, results back to their initial contents), judged against the probe's
    answers; why there is no probe otherwise. Not timed; its ``printf`` output is not kept.
    ``poison``: fill local memory with NaN first, as before the first launch."""
    made = make_probe(p)
    if isinstance(made, str):
        return made
    cl = p.runtime.cl
    for b in p.description.buffers:
        if b.null or not b.nbytes or isinstance(b.contents, NoInit):
            continue
        upload(p, bound, b, made.inputs)
    p.queue.finish()
    if poison:
        poison_local(p)
    launch = p.launch
    with silenced_stdout():
        cl.enqueue_nd_range_kernel(p.queue, p.kernel, launch.global_size, launch.local_size).wait()
        p.queue.finish()
    results, _ = read_results(p, bound)
    return judge(p.description, results, made.inputs, made.references), made


def probed_verdict(
    verdict: Verdict, probe: tuple[Judged, ProbeInputs] | str, p: Prepared
) -> Verdict:
    """The verdict on the input shown with the random probe's beside it (or why none ran:
    where one was due and could not be made, the verdict still names the input shown)."""
    if isinstance(probe, str):
        due = p.probe if isinstance(p.probe, ProbeDescription) else None
        if due is None:
            return without_probe(verdict, probe)
        why = f"the random probe did not run: {probe}"
        return replace(without_probe(verdict, why), shown_input=due.shown, hides=due.hides)
    judged, made = probe
    return with_probe(verdict, judged.verdict, made.seed, made.shown, made.hides)


def rejected_group_size(p: Prepared, exc: Exception) -> RunResult | None:
    """The refusal to give when the runtime rejects a local size above the reported limit.

    Such a launch is tried because some drivers report less than they run; one that
    fails with CL_INVALID_WORK_GROUP_SIZE is refused with the figure the driver reported.
    """
    if p.head.note is None or "reports that this kernel" not in p.head.note:
        return None
    if getattr(exc, "code", None) != p.runtime.cl.status_code.INVALID_WORK_GROUP_SIZE:
        return None
    head = replace(p.head, note=None)
    return head.refused(kernel_limit_refusal(p.launch, p.kernel_wg_limit, p.device))


def poison_local(p: Prepared, word: int = NAN_WORD) -> None:
    """Fill the local memory the next launch gets with ``word`` (a float NaN by default)."""
    run = _poisoner(p.runtime, p.context, p.queue, p.device, p.launch, p.local_bytes)
    if run is not None:
        run(word)


def _event_ms(event: Any) -> float:
    try:
        return (event.profile.end - event.profile.start) * 1e-6
    except Exception:  # Some runtimes give no profiling data for copies.
        return float("nan")


_POISON_SOURCE = """
__kernel void poison_local(__local uint* scratch, uint words, uint word, __global ulong* where)
{
    for (uint i = get_local_id(0); i < words; i += get_local_size(0))
        scratch[i] = word;
    if (get_local_id(0) == 0)
        where[get_group_id(0)] = (ulong)scratch;
}
"""


def _poisoner(
    s: OpenCLRuntime,
    context: Any,
    queue: Any,
    device: DeviceInfo,
    launch: LaunchPlan,
    kernel_local_bytes: int,
) -> Any:
    """Fill local memory with a word (NaN) before the first launch.

    Local memory keeps whatever the last kernel left there. A kernel that reads local
    memory before writing it (seed 004's ``sum[]``, a missing barrier) can then look
    right by luck; after this it reads NaN and the verdict shows it.

    A device may keep several areas of local memory, one per worker: PoCL's CPU device
    keeps one per thread (a thread per compute unit) and runs a launch's groups in the areas
    of the threads that take them, often all in one, the same thread several launches in a
    row. One fill launch reaches only the areas its groups ran in, so the fill is launched
    again, each group telling where its local memory lies, until a CPU device's every
    compute unit has shown its area (elsewhere, as on a GPU, where every group sees the same
    addresses, until a few launches in a row show no new one): the launch that follows
    then finds the word whichever area it gets.
    """
    used = kernel_local_bytes + launch.local_mem_bytes
    if used == 0 or device.local_mem_bytes < 64:
        return None
    cl = s.cl
    words = min(used // 4 + 256, device.local_mem_bytes // 4 - 16)
    kernel = s.cache.kernel(
        cl, context, device.key, _POISON_SOURCE, (), "poison_local", "poison_local.cl"
    )
    group = max(
        1,
        min(
            math.prod(launch.local_size),
            device.max_work_group_size,
            kernel.get_work_group_info(
                cl.kernel_work_group_info.WORK_GROUP_SIZE, context.devices[0]
            ),
        ),
    )
    units = max(1, device.compute_units)
    groups = units * 8
    per_thread = "CPU" in device.type.upper()

    def run(word: int) -> None:
        where = np.zeros(groups, dtype=np.uint64)
        where_buffer = cl.Buffer(context, cl.mem_flags.WRITE_ONLY, where.nbytes)
        kernel.set_args(cl.LocalMemory(4 * words), np.uint32(words), np.uint32(word), where_buffer)
        seen: set[int] = set()
        quiet = 0
        try:
            for _ in range(_MOST_FILLS):
                cl.enqueue_nd_range_kernel(queue, kernel, (group * groups,), (group,))
                cl.enqueue_copy(queue, where, where_buffer)  # waits: a blocking read
                new = set(where.tolist()) - seen
                seen |= new
                quiet = 0 if new else quiet + 1
                if len(seen) >= units if per_thread else quiet >= _QUIET_FILLS:
                    break
        finally:
            where_buffer.release()

    return run


def silenced_stdout() -> contextlib.AbstractContextManager[None]:
    return silenced(1)


@contextlib.contextmanager
def silenced(fd: int) -> Iterator[None]:
    """Nothing written to the file descriptor ``fd`` (1, ``printf``; 2, a simulator's
    reports) while the block runs."""
    (sys.stdout if fd == 1 else sys.stderr).flush()
    with open(os.devnull, "wb") as sink:
        saved = os.dup(fd)
        os.dup2(sink.fileno(), fd)
        try:
            yield
        finally:
            os.dup2(saved, fd)
            os.close(saved)


class Capture:
    text: str | None = None


@contextlib.contextmanager
def captured_fd(fd: int, limit: int, note: str = "") -> Iterator[Capture]:
    """What the OpenCL runtime writes to a file descriptor (``printf`` to 1, a simulator's
    reports to 2), caught at the descriptor since it bypasses Python's streams."""
    capture = Capture()
    (sys.stdout if fd == 1 else sys.stderr).flush()
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(fd)
        os.dup2(sink.fileno(), fd)
        try:
            yield capture
        finally:
            os.dup2(saved, fd)
            os.close(saved)
            size = sink.tell()
            sink.seek(0)
            data = sink.read(limit)
            if data:
                text = data.decode("utf-8", errors="replace")
                if size > limit:
                    text += f"\n[... output truncated: {size} bytes{note}, the first {limit} shown]"
                capture.text = text


def _captured_stdout() -> contextlib.AbstractContextManager[Capture]:
    """Kernel ``printf`` output of one launch."""
    return captured_fd(1, OUTPUT_TEXT_LIMIT, " received from the first launch")
