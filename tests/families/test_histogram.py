"""The histogram family: kernels that add to their output with atomics, from zeros."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.description.launch import Setting
from explorer.engine.header.catalog import CatalogError, find_variant, header_text, with_header
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.families import get_family

HISTOGRAM = get_family("histogram")
STEPS = ("naive", "local-bins", "grid-stride")
# Neither a multiple of the work-group (256) nor of anything else; more bins than values.
ODD = ({"VALUES": 1001, "BINS": 17}, {"VALUES": 300, "BINS": 1000})
BUGS = {"race", "uninitialized", "out-of-bounds", "barrier-divergence", "coverage", "not-traced"}


def _counts(result, sizes):
    return np.bincount(result.inputs["IN"].astype(np.int64), minlength=sizes["BINS"])


def _run(executor, device, variant, sizes, **kw):
    return executor.run(RunRequest(variant, sizes, device_key=device.key, **kw))


def _trace(executor, device, step, sizes, preset):
    request = RunRequest(
        find_variant("histogram", step), sizes, device_key=device.key, input=preset
    )
    traced = executor.trace(TraceRequest(request), keep_trace=True)
    assert traced.analysis is not None, traced.result.summary()
    # Every group traced and every access recorded: coverage and races are judged in full.
    assert traced.trace.complete
    assert len(traced.trace.groups_traced) == np.prod(traced.trace.num_groups)
    return traced


def _global_atomics(traced) -> int:
    return sum(
        s.accesses for s in traced.analysis.sites if s.space == "global" and s.op == "atomic"
    )


@pytest.mark.parametrize("step", STEPS)
def test_every_step_counts_right_where_sizes_are_not_group_multiples(executor, device, step):
    variant = find_variant("histogram", step)
    for sizes in ODD:
        for preset in ("random", "iou"):
            result = _run(executor, device, variant, sizes, input=preset, repeat=1)
            assert result.status == "verified", f"{sizes} {preset}: {result.summary()}"
            assert np.array_equal(result.output, _counts(result, sizes))


@pytest.mark.parametrize("step", STEPS)
def test_timed_launches_add_to_the_bins_yet_the_first_launch_is_judged(executor, device, step):
    """Every launch adds to HIST: after 1 + 1 + 6 launches each bin holds 8 times its count,
    but the verdict and the shown result are the first launch's, which started from zeros."""
    sizes = {"VALUES": 1001, "BINS": 17}
    variant = find_variant("histogram", step)
    once = _run(executor, device, variant, sizes, repeat=1, warmup=1)
    often = _run(executor, device, variant, sizes, repeat=6, warmup=1)
    for result in (once, often):
        assert result.status == "verified", result.summary()
        assert np.array_equal(result.output, _counts(result, sizes))
    assert len(often.timing.kernel_ms) == 6


def test_the_iou_input_puts_most_values_in_the_last_bin_and_the_text_in_the_first():
    sizes = {"VALUES": 4096, "BINS": 256}
    values = HISTOGRAM.make_inputs(sizes, np.dtype("int32"), "iou")["IN"]
    counts = np.bincount(values, minlength=256)
    assert values.shape == (4096,) and values.dtype == np.int32
    assert counts[255] > 0.6 * 4096 and counts[0] > 0.03 * 4096
    assert counts[0] + counts[255] == 4096  # black text on white: two bins only


def test_random_values_cover_every_bin_and_nothing_else():
    sizes = {"VALUES": 1000, "BINS": 7}
    values = HISTOGRAM.make_inputs(sizes, np.dtype("int32"), "random")["IN"]
    assert set(np.unique(values).tolist()) == set(range(7))


def test_the_local_bins_hold_bins_whatever_the_work_group():
    args = ("VALUES", "BINS", "IN", "HIST", "PARTIAL")
    for local in ((64,), (256,)):
        setting = Setting({"VALUES": 100, "BINS": 1000}, {}, local)
        described = HISTOGRAM.describe(setting, args, "row-major", np.dtype("int32"))
        assert described.local_bytes == 4000
    (hist,) = described.results
    assert hist.access == "readwrite" and hist.host_filled and not hist.rewritten_by_kernel


def test_more_bins_than_local_memory_holds_are_refused_with_the_reason(executor, device):
    result = _run(
        executor, device, find_variant("histogram", "local-bins"), {"VALUES": 10, "BINS": 10**7}
    )
    assert result.status == "refused"
    # The driver may add a few bytes of its own (NVIDIA's adds one); the bins are named.
    assert "40000000 of them for its __local argument PARTIAL" in result.summary()
    assert f"has {device.local_mem_bytes}" in result.summary()
    assert "make PARTIAL smaller" in result.refused.fix


def test_a_kernel_opened_without_a_dtype_counts_in_int32(executor, device, tmp_path):
    """The open-kernel dialog's header names no dtype: a histogram kernel still runs."""
    source = (
        "__kernel void h(__global const int* data, __global int* counts, const int n) {\n"
        "    const int i = get_global_id(0);\n"
        "    if (i < n) atomic_inc(&counts[data[i]]);\n"
        "}\n"
    )
    path = tmp_path / "mine.cl"
    path.write_text(source)
    header = header_text("mine", "histogram", "h", ["IN", "HIST", "VALUES"], ["VALUES"], ["64"])
    variant = with_header(source, header, path)
    assert variant.dtype == "int32"
    result = _run(executor, device, variant, {"VALUES": 77, "BINS": 5}, repeat=1)
    assert result.status == "verified", result.summary()
    floats = header.replace('family = "histogram"', 'family = "histogram"\ndtype = "float32"')
    with pytest.raises(CatalogError, match="int32"):
        with_header(source, floats, path)


@pytest.mark.parametrize("step", STEPS)
def test_each_step_traces_without_a_bug_finding(executor, device, step):
    """Bins no value fell into keep their zeros: that is no coverage finding; nor are the
    atomics that many work-items aim at one bin a race."""
    for sizes, preset in (({"VALUES": 300, "BINS": 1000}, "random"), (ODD[0], "iou")):
        traced = _trace(executor, device, step, sizes, preset)
        assert traced.result.status == "verified", traced.result.summary()
        found = {f.kind for f in traced.analysis.findings}
        assert not found & BUGS, [f.message for f in traced.analysis.findings]


def test_local_bins_make_a_sixteenth_of_the_global_atomics_of_naive(executor, device):
    sizes = {"VALUES": 4096, "BINS": 16}  # 16 groups of 256
    naive = _trace(executor, device, "naive", sizes, "random")
    local = _trace(executor, device, "local-bins", sizes, "random")
    assert _global_atomics(naive) == 4096  # one per value
    assert _global_atomics(local) == 16 * 16  # one per group and bin
