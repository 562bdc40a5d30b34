"""Kernels that store into their own private variables through a pointer (the maths
built-ins' second results, ``sincos(x, &c)``; a private pointer to a variable) and that use
``NAN``, ``INFINITY``, ``MAXFLOAT`` and ``HUGE_VALF``: their traces are complete, as a store
``c = ...`` into a private variable leaves a trace complete, and the traced build computes
what the plain build computes. reikna's FFT (``sincos(theta, &tmp)``, ``NAN`` in its
bounds) and pyopencl's Random123 normal generator traced incomplete for these alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.instrument import instrument
from explorer.trace.recorded import WRITE

KERNELS = Path(__file__).parent / "private_stores"


@pytest.mark.parametrize("name", ["maths_second_results", "not_finite_constants"])
def test_private_stores_and_not_finite_constants_trace_complete_and_compute_the_same(
    executor, device, name
):
    run = RunRequest(
        load_variant_file(KERNELS / f"{name}.cl"), {}, device_key=device.key, input="random"
    )
    traced = executor.trace(TraceRequest(run))
    assert traced.analysis is not None, traced.result.summary()
    assert [(f.kind, f.line, f.message) for f in traced.analysis.findings] == []
    assert traced.report_json["complete"] is True
    plain = executor.run(run)
    assert plain.outputs is not None and traced.result.outputs is not None
    assert plain.outputs.keys() == traced.result.outputs.keys()
    for buffer, values in plain.outputs.items():
        np.testing.assert_array_equal(traced.result.outputs[buffer], values, err_msg=buffer)


def test_a_store_through_a_pointer_into_memory_the_trace_records_is_still_recorded():
    source = """
    __kernel void k(__global const float *x, __global float *c, __local float *l) {
        int i = get_global_id(0);
        float kept;
        __global float *into = i % 2 ? &c[i] : c + i;
        float s = sincos(x[i], into) + sincos(x[i], &l[get_local_id(0)]);
        s += fract(x[i], &kept);
        c[i] += s + kept + NAN;
    }
    """
    done = instrument(source, "k")
    assert done.not_traced == ()
    written = sorted(
        (s.line, s.text) for s in done.sites if s.op == WRITE and s.text.startswith("sincos")
    )
    assert written == [
        (6, "sincos(x[i], &l[get_local_id(0)])"),
        (6, "sincos(x[i], into)"),
    ]


def test_a_private_pointer_that_may_point_into_a_buffer_is_not_called_private():
    source = """
    __kernel void k(__global float *c, int pick) {
        float own;
        float *into = &own;
        if (pick) into = (float *)0;
        float s = sincos(1.0f, into);
        c[get_global_id(0)] = s + own;
    }
    """
    reasons = [why for _, why in instrument(source, "k").not_traced]
    assert reasons == ["sincos(1.0f, into): sincos: cannot tell which buffer its pointer is into"]
