"""Kernels of our own whose traces crashed PoCL (SIGSEGV, the executor restarted) while the
kernels themselves run: a small trace on a CPU is built without optimisation, and PoCL 3.0
cannot build or run these so.

- ``offsetof.cl``: the offset of a struct's first field in a ``__local`` variable, as
  pyopencl's ``match_dtype_to_c_struct`` asks every device (``demo-struct-reduce.py``, the
  howto's doctest): unoptimised, ``(char *)&s.first - (char *)&s`` stays a constant
  expression that PoCL's pass turning local variables into arguments crashes on.
- ``big_group.cl``: 4,096 work-items a group, each keeping 1,152 bytes of its own across a
  barrier (reikna's reduction, 4,096 items and 48 KiB of local memory): unoptimised, every
  private value stays in memory, and PoCL keeps a group's on its thread's 8 MiB stack.
- ``deep_group.cl``: the same with 1,600 bytes a work-item, which crashed the trace even
  optimised (the trace's own state besides): the executor's threads get a larger stack.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.engine import calls
from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.engine.serve import THREAD_STACK_BYTES
from explorer.trace.instrument import instrument

KERNELS = Path(__file__).parent / "pocl_builds"


def traced_and_plain(executor, device, name):
    run = RunRequest(
        load_variant_file(KERNELS / f"{name}.cl"), {}, device_key=device.key, input="random"
    )
    traced = executor.trace(TraceRequest(run))
    assert traced.result.error is None, traced.result.summary()
    assert traced.analysis is not None, traced.result.summary()
    assert traced.report_json["complete"] is True
    return traced, executor.run(run)


def test_the_trace_of_a_struct_offset_probe_in_local_memory_runs(executor, device):
    traced, plain = traced_and_plain(executor, device, "offsetof")
    # int, int, float: 12 bytes, the fields at 0, 4 and 8.
    assert traced.result.outputs["result"].tolist() == [12, 0, 4, 8]
    assert plain.outputs["result"].tolist() == [12, 0, 4, 8]


def needs_groups_of_4096(device) -> None:
    """These kernels' groups are 4,096 work-items (a GPU allows 1,024 at most, NVIDIA's too)."""
    if device.max_work_group_size < 4096:
        pytest.skip(f"{device.name} allows {device.max_work_group_size} work-items a group")


def test_the_trace_of_a_4096_item_group_with_much_private_state_runs(executor, device):
    needs_groups_of_4096(device)
    traced, plain = traced_and_plain(executor, device, "big_group")
    np.testing.assert_array_equal(traced.result.outputs["out"], plain.outputs["out"])


def test_a_group_whose_private_state_passes_a_threads_default_stack_traces(executor, device):
    needs_groups_of_4096(device)
    traced, plain = traced_and_plain(executor, device, "deep_group")
    np.testing.assert_array_equal(traced.result.outputs["out"], plain.outputs["out"])


def new_thread_stack_bytes() -> int:
    """The stack size a thread made now gets (called in the executor's process)."""
    import ctypes

    libc = ctypes.CDLL(None)
    attr = ctypes.create_string_buffer(128)
    size = ctypes.c_size_t()
    assert libc.pthread_getattr_default_np(attr) == 0
    assert libc.pthread_attr_getstacksize(attr, ctypes.byref(size)) == 0
    return size.value


calls.allow(new_thread_stack_bytes)


def test_the_executors_threads_get_the_larger_stack(executor):
    """What the trace above relies on, in the executor's own process: a thread made there has
    the larger stack, whatever the limit of the shell that started the tests."""
    assert executor.call(new_thread_stack_bytes) >= THREAD_STACK_BYTES


def test_only_arithmetic_on_one_local_variables_addresses_asks_for_an_optimised_build():
    source = (KERNELS / "offsetof.cl").read_text()
    assert instrument(source, "offsets").optimised_only == (
        "lines 14, 15, 16: arithmetic on addresses in one __local variable"
    )
    two = """
    __kernel void k(__global uint *result, __local float *given) {
        __local float a[4], b[4];
        a[0] = 1.0f;
        b[0] = given[0];
        result[0] = (uint)(&a[1] - &b[1]) + (uint)(&a[get_local_id(0)] - a) + (&a[0] == a);
    }
    """
    assert instrument(two, "k").optimised_only == ""
