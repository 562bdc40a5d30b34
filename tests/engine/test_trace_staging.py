"""The record planes read from a GPU into page-locked memory kept between traces (on PoCL the
staging is switched on by hand: its buffers are host memory, mapped where they are)."""

import gc

import numpy as np
import pytest

import explorer.engine.record.trace_launch as tracing
from explorer.engine.header.catalog import find_variant
from explorer.engine.launch.runtime import runtime
from explorer.engine.record import staging
from explorer.engine.record.staging import KEEP_FREE, StagingPool, grow_pending, staging_pool
from explorer.engine.record.trace_launch import TraceRequest, run_trace
from explorer.engine.records import RunRequest
from explorer.trace.analysis import analyse


def _request(device, data="random"):
    sizes = {"M": 32, "N": 32, "K": 32}
    run = RunRequest(find_variant("matmul", "tiled"), sizes, device_key=device.key, input=data)
    return TraceRequest(run)


def _pool(device):
    context, queue = runtime().queue(device)
    return staging_pool(runtime().cl, context, queue)


@pytest.fixture
def staged(monkeypatch):
    monkeypatch.setattr(tracing, "read_planes_staged", lambda device_type: True)


def test_staged_planes_hold_the_same_records_and_findings(device, monkeypatch):
    mapped = run_trace(_request(device)).trace
    monkeypatch.setattr(tracing, "read_planes_staged", lambda device_type: True)
    # The first mapped (no entries yet), the next into the page-locked entries made after.
    for _ in range(2):
        staged = run_trace(_request(device)).trace
        grow_pending()
        assert _pool(device).entries
        for plane in ("offset", "word", "values"):
            assert np.array_equal(getattr(staged, plane), getattr(mapped, plane)), plane
        found, expected = analyse(staged).to_json(staged), analyse(mapped).to_json(mapped)
        for report in (found, expected):  # the order groups started in is the device's own
            report.pop("dispatch_order")
        assert found == expected


def test_a_first_trace_reads_its_planes_into_memory_made_ahead(device, monkeypatch):
    mapped = run_trace(_request(device)).trace
    monkeypatch.setattr(staging, "_pools", {})  # as in a process's first trace
    monkeypatch.setattr(tracing, "read_planes_staged", lambda device_type: True)
    taken = []
    take = staging._take_ahead

    def taking(nbytes):
        taken.append(take(nbytes))
        return taken[-1]

    monkeypatch.setattr(staging, "_take_ahead", taking)
    staged = run_trace(_request(device)).trace
    assert len(taken) == 1 and taken[0] is not None  # made ahead, and large enough
    for plane in ("offset", "word", "values"):
        assert np.array_equal(getattr(staged, plane), getattr(mapped, plane)), plane
        assert np.shares_memory(getattr(staged, plane), taken[0]), plane
    assert not staging._ahead  # nothing left over


def test_a_held_trace_keeps_its_memory_and_a_dropped_one_lends_it_again(device, staged):
    run_trace(_request(device, "iou"))
    grow_pending()  # entries of this size made, as the executor does after its reply
    first = run_trace(_request(device, "random")).trace
    words, values = first.word.copy(), first.values.copy()
    second = run_trace(_request(device, "iou")).trace  # other values: other value plane
    assert np.array_equal(first.word, words)  # not overwritten while held
    assert np.array_equal(first.values, values)
    assert not np.array_equal(first.values, second.values)
    planes = ("offset", "word", "values")
    held = {getattr(first, plane).ctypes.data for plane in planes}
    assert not held & {getattr(second, plane).ctypes.data for plane in planes}
    del first, second
    gc.collect()
    grow_pending()
    lent = {entry.host.ctypes.data for entry in _pool(device).entries}
    for _ in range(3):
        again = run_trace(_request(device)).trace
        assert np.array_equal(again.word, words)
        assert again.word.ctypes.data in lent  # memory lent before, not new
        del again


class _FakeCL:
    """Just enough of pyopencl for the pool's bookkeeping: buffers that are never touched."""

    class Error(Exception):
        pass

    class mem_flags:
        READ_WRITE = ALLOC_HOST_PTR = 0

    class map_flags:
        READ = WRITE = 0

    @staticmethod
    def Buffer(context, flags, size):
        return object()

    @staticmethod
    def enqueue_map_buffer(queue, buffer, flags, offset, shape, dtype):
        return np.zeros(shape, dtype), None  # zeros never written: no memory is used

    @staticmethod
    def enqueue_copy(queue, host, buffer, is_blocking):
        return type("Done", (), {"wait": lambda self: None})()


def test_a_small_trace_after_a_large_one_finds_its_entries_the_next_time():
    pool = StagingPool(_FakeCL, None, None)

    def planes(count):
        return [(None, np.dtype(np.uint32), count)] * 3

    for count in (50 << 20, 1 << 18):  # 200 MB planes, then 1 MB planes
        assert pool.read(planes(count)) is None  # read fresh; entries made after the reply
        pool.grow()
        held = pool.read(planes(count))
        assert held is not None  # the second trace of a size is staged
        del held
        assert len(pool.entries) == KEEP_FREE  # the large entries made way for the small
