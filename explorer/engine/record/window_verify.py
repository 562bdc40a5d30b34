"""The verdict of a trace of a window of groups: the rest of the output from the kernel as written.

Where the budget holds only a window of the work-groups, the recording launch lets every
other group leave at entry (RECORD_WINDOW; the whole group leaves, so no barrier is left
waiting), instead of running the instrumented kernel unrecorded: on a 768² matmul that was
most of a trace. The trace build then writes only the window's part of the output; the rest
comes from one launch of the kernel as written, so the verdict still covers every element:
the window's elements as the trace build wrote them, the others as the plain build did.

What that costs a process's first trace is paid ahead, on a thread of its own, from the
moment the trace knows it keeps a window (:class:`PlainFill`): the plain build (from the
binary cache, or compiled) and the scan's buffers, every page of them written once. On an
H100 the first such trace of a process spent 99 ms scanning its records against 27–30 ms
for later ones: the scan's temporaries were new memory each time a slice needed one.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import numpy as np

from explorer.engine.build_inputs import build_digest
from explorer.engine.launch.bind import Bound, damage_by_buffer, read_results, reset
from explorer.engine.launch.devices import is_simulator
from explorer.engine.launch.prepare import Prepared, content_key, nonuniform_source
from explorer.engine.launch.run import NAN_WORD, poison_local, silenced_stdout
from explorer.trace.columns import coverage
from explorer.trace.instrument import Instrumented
from explorer.trace.recorded import (
    ATOMIC,
    GLOBAL,
    RMW,
    SITE_MASK,
    WRITE,
    Trace,
    word_buffer,
    word_oob,
)


def outside_may_leave(inst: Instrumented) -> bool:
    """Whether the groups outside the window may skip the recording launch: not where a
    global atomic may gather other groups' work into an element the window writes (a sum
    over every group would look wrong)."""
    return not any(s.op == ATOMIC and s.space == GLOBAL for s in inst.sites)


# The last plain launch's results and what it wrote outside its buffers, by what determines
# them: a trace around another group of the same configuration (a click on an untraced
# group) needs the same results again.
_plain_results_kept: dict[bytes, tuple[dict[str, np.ndarray], dict[str, str]]] = {}


def plain_key(p: Prepared) -> bytes:
    """What one launch of the kernel as written depends on: device, source and the headers
    it includes, kernel, build options, NDRange (the exact one of non-uniform groups too),
    sizes and the contents of every buffer."""
    variant = p.variant
    parts = (
        p.device.key,
        build_digest(variant.source, p.options),
        variant.kernel,
        variant.layout,
        p.options,
        p.launch.global_size,
        p.launch.local_size,
        p.launch.ndrange,
        sorted(p.sizes.items()),
        p.inputs_digest or content_key((), p.inputs),
    )
    return content_key(parts, {})


def plain_kernel(p: Prepared) -> Any:
    """The kernel as written, built as a run builds it (the build cache's, once built): an
    NDRange in non-uniform groups rewritten as the run does, so that the extra work-items of
    the whole groups launched leave at once."""
    variant = p.variant
    source = nonuniform_source(variant, p.launch, p.device) if p.launch.ndrange else None
    return p.runtime.cache.kernel(
        p.runtime.cl,
        p.context,
        p.device.key,
        source or variant.source,
        p.options,
        variant.kernel,
        variant.log_name,
    )


class PlainFill:
    """What the window's verdict needs besides the trace, made ready while the device records:
    the plain launch's key and build, and the scan's buffers (:func:`warm_scan`), on a thread
    of its own; :meth:`results` waits for it, then launches."""

    def __init__(self, p: Prepared) -> None:
        self.p = p
        self.key: bytes | None = None
        self.kernel: Any = None
        self._thread = threading.Thread(target=self._ready, name="plain-fill", daemon=True)
        # Oclgrind's runtime is not safe to call from two threads at once: there the plain
        # build waits for the verdict, on the trace's own thread.
        if not is_simulator(p.device):
            self._thread.start()

    def _ready(self) -> None:
        # A failure here is met again, and reported, where the trace needs the kernel.
        with contextlib.suppress(Exception):
            self.key = plain_key(self.p)
            if self.key not in _plain_results_kept:
                self.kernel = plain_kernel(self.p)
        warm_scan()

    def join(self) -> None:
        """Wait for the thread: a trace that fails before the verdict must not leave it
        building beside the executor's next request."""
        if self._thread.ident is not None:  # started (never on Oclgrind)
            self._thread.join()

    def results(self, bound: Bound) -> tuple[dict[str, np.ndarray], dict[str, str]]:
        """The plain launch's results and what it wrote outside its buffers (see
        :func:`plain_results`), once the thread is done."""
        self.join()
        return plain_results(self.p, bound, self.key, self.kernel)


def plain_results(
    p: Prepared, bound: Bound, key: bytes | None = None, kernel: Any = None
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The results of one launch of the whole grid with the kernel as written (the last ones
    again when nothing they depend on changed), and what it wrote outside its buffers, by
    buffer (``bind.damage_by_buffer``; the guards hold their pattern before it: the trace
    build skips every access outside a buffer). ``key`` and ``kernel``: :func:`plain_key`
    and :func:`plain_kernel` of ``p``, where they are known already."""
    key = key or plain_key(p)
    if key in _plain_results_kept:
        kept, damage = _plain_results_kept[key]
        return {k: v.copy() for k, v in kept.items()}, dict(damage)
    results = plain_launch(p, bound, kernel=kernel)
    damage = damage_by_buffer(p, bound)
    _plain_results_kept.clear()
    _plain_results_kept[key] = ({k: v.copy() for k, v in results.items()}, dict(damage))
    return results, damage


def written_outside(trace: Trace) -> frozenset[str]:
    """The parameters the traced work-items wrote outside of (records of writes to global
    memory the trace skipped): the kernel as written, running the window's groups too, wrote
    there, and the guards around those buffers tell nothing of the other groups."""
    sites = [s.id for s in trace.sites if s.space == GLOBAL and s.op in (WRITE, RMW, ATOMIC)]
    at = records_of_sites(trace.word, sites)
    at = at[word_oob(trace.word[at])]
    buffers = np.unique(word_buffer(trace.word[at])).tolist()
    return frozenset(
        role for b in buffers if 0 <= b < len(trace.buffers) and (role := trace.buffers[b].role)
    )


def unexplained(damage: dict[str, str], trace: Trace) -> str | None:
    """What the kernel as written wrote outside a buffer, in words, where the window's own
    records do not show such writes (:func:`written_outside`): groups outside the window
    made them. None where there is none."""
    spared = written_outside(trace) if damage else frozenset()
    return next((words for name, words in damage.items() if name not in spared), None)


def plain_launch(
    p: Prepared, bound: Bound, word: int = NAN_WORD, kernel: Any = None
) -> dict[str, np.ndarray]:
    """The results of one launch of the whole grid with the kernel as written
    (``plain_kernel``, where ``kernel`` is None), from the initial contents, local memory
    filled with ``word`` first."""
    cl = p.runtime.cl
    if kernel is None:
        kernel = plain_kernel(p)
    kernel.set_args(*bound.args)
    reset(p, bound)
    poison_local(p, word)
    with silenced_stdout():
        cl.enqueue_nd_range_kernel(p.queue, kernel, p.launch.global_size, p.launch.local_size)
    results, _ = read_results(p, bound)
    return results


def global_writes(trace: Trace) -> np.ndarray:
    """The positions of the records of writes to global memory that stayed inside their
    buffer, in order: one scan of the records, whatever the number of results."""
    sites = [s.id for s in trace.sites if s.space == GLOBAL and s.op in (WRITE, RMW, ATOMIC)]
    at = records_of_sites(trace.word, sites)
    return at[~word_oob(trace.word[at])]


def written_by_trace(
    trace: Trace, name: str | None, count: int, elem_bytes: int, writes: np.ndarray | None = None
) -> np.ndarray:
    """Which of the ``count`` elements (of ``elem_bytes`` each) of the buffer ``name`` the
    traced work-items wrote, from their records: a mask in the buffer's order. ``writes``:
    :func:`global_writes` of the trace, where it is known already."""
    ids = [i for i, b in enumerate(trace.buffers) if b.space == GLOBAL and b.role == name]
    if not ids:
        return np.zeros(count, dtype=bool)
    at = global_writes(trace) if writes is None else writes
    at = at[np.isin(word_buffer(trace.word[at]), ids)]
    offset = trace.offset[at].astype(np.int64)
    sizes = trace.sizes_of(trace.word[at]).astype(np.int64)
    first = offset // elem_bytes
    last = (offset + np.maximum(sizes, 1) - 1) // elem_bytes
    return coverage(first, last, count) > 0


# -- finding the records of some sites among tens of millions --------------------------------

_SCAN_CHUNK = 1 << 18
# Up to this many sites are found by comparing each record's site with each of them (a pass
# of a few milliseconds per site on 42 M records); more, by a lookup table indexed by site.
_COMPARED_SITES = 4


class _Scratch:
    """One slice's buffers: its records' sites, and which of them are wanted."""

    def __init__(self) -> None:
        self.site = np.ones(_SCAN_CHUNK, dtype=np.uint32)  # ones: every page written now
        self.hit = np.ones(_SCAN_CHUNK, dtype=bool)
        self.other = np.ones(_SCAN_CHUNK, dtype=bool)
        self.index: np.ndarray | None = None  # the sites as table indices, where needed


_free: list[_Scratch] = []
_free_lock = threading.Lock()


def _lend() -> _Scratch:
    with _free_lock:
        if _free:
            return _free.pop()
    return _Scratch()


def _give_back(scratch: _Scratch) -> None:
    with _free_lock:
        _free.append(scratch)


def warm_scan() -> None:
    """A slice's buffers for each thread the scan runs on, kept for the process: its first
    scan writes into pages already faulted in, as later ones do."""
    from explorer.trace.analysis.threads import thread_count  # loaded with the analysis

    with _free_lock:
        missing = thread_count(1 << 30) - len(_free)
    made = [_Scratch() for _ in range(max(0, missing))]
    with _free_lock:
        _free.extend(made)


def records_of_sites(word: np.ndarray, sites: list[int]) -> np.ndarray:
    """The positions of the records of the given sites, in order: a slice at a time into
    buffers kept between scans (a temporary per slice was new memory each time, and
    ``take`` makes one of its indices: most of a process's first scan), the slices on
    several threads (numpy lets go of the interpreter lock for each pass)."""
    wanted = np.zeros(SITE_MASK + 1, dtype=bool)
    wanted[sites] = True
    ids = np.flatnonzero(wanted).tolist()  # Python ints: compared in the records' own type
    if not ids:
        return np.zeros(0, dtype=np.int64)

    def scan(start: int) -> np.ndarray:
        scratch = _lend()
        try:
            words = word[start : start + _SCAN_CHUNK]
            n = words.size
            hit = scratch.hit[:n]
            if len(ids) <= _COMPARED_SITES:
                site, other = scratch.site[:n], scratch.other[:n]
                np.bitwise_and(words, SITE_MASK, out=site)
                np.equal(site, ids[0], out=hit)
                for s in ids[1:]:
                    np.equal(site, s, out=other)
                    np.logical_or(hit, other, out=hit)
            else:
                if scratch.index is None:
                    scratch.index = np.empty(_SCAN_CHUNK, dtype=np.intp)
                index = scratch.index[:n]
                np.bitwise_and(words, SITE_MASK, out=index, casting="unsafe")
                np.take(wanted, index, out=hit, mode="clip")  # in range: masked above
            return np.flatnonzero(hit) + start
        finally:
            _give_back(scratch)

    from explorer.trace.analysis.threads import thread_map  # loaded with the analysis

    found = thread_map(scan, range(0, word.size, _SCAN_CHUNK))
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def window_results(
    p: Prepared,
    trace: Trace,
    traced: dict[str, np.ndarray],
    plain: dict[str, np.ndarray],
) -> dict[str, np.ndarray]:
    """The results to judge: the window's elements from the trace build, the rest from the
    plain launch."""
    merged = {}
    writes = global_writes(trace) if p.description.results else None
    for b in p.description.results:
        mask = written_by_trace(trace, b.name, b.count, b.element.nbytes, writes)
        in_order = np.repeat(mask, b.element.lanes).reshape(b.device_shape)
        written = in_order.T if b.column_major else in_order
        merged[b.name] = np.where(written, traced[b.name], plain[b.name])
    return merged
