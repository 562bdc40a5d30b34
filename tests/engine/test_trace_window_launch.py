"""A trace of a window of work-groups: the groups outside it leave the recording launch at
entry, and the verdict still covers every element of the output."""

from dataclasses import replace

import numpy as np

import explorer.engine.record.trace_launch as tracing
from explorer.engine.header.catalog import find_variant, load_variant_file
from explorer.engine.launch.run import run_request
from explorer.engine.record.trace_launch import (
    GroupCounts,
    TraceRequest,
    count_groups,
    outside_may_leave,
    run_trace,
)
from explorer.engine.records import RunRequest
from explorer.trace.instrument import instrument

SIZES = {"M": 128, "N": 128, "K": 16}  # 8×8 groups of 16×16


def _window_trace(variant, device, data="random", **kw):
    """A 3×3 window around group (5, 5) of SIZES, through the whole trace path."""
    run = RunRequest(variant, dict(SIZES), local=(16, 16), device_key=device.key, input=data)
    full = run_trace(TraceRequest(run, values=False))
    per_group = full.trace.records // 64
    # Nine groups' records of 8 bytes: the budget of a trace without the value plane.
    budget = per_group * 8 * 9
    return run_trace(TraceRequest(run, center=(5, 5, 0), budget_bytes=budget, values=False, **kw))


def _window_elements(outcome) -> np.ndarray:
    """Which elements of C (rows, cols) the traced groups own: 16×16 each."""
    owned = np.zeros((128, 128), dtype=bool)
    for gx, gy, _ in outcome.trace.groups_traced:
        owned[gy * 16 : (gy + 1) * 16, gx * 16 : (gx + 1) * 16] = True
    return owned


def test_groups_outside_the_window_do_not_run_the_traced_build(device, monkeypatch):
    # The trace build's own output, before the plain launch fills in the rest.
    monkeypatch.setattr(tracing, "window_results", lambda p, trace, traced, plain: traced)
    outcome = _window_trace(find_variant("matmul", "tiled"), device)
    assert len(outcome.trace.groups_traced) == 9
    owned = _window_elements(outcome)
    output = outcome.result.output
    assert np.isfinite(output[owned]).all()  # the window computed its tiles
    assert np.isnan(output[~owned]).all()  # nobody else wrote: they left at entry
    assert len(outcome.trace.dispatch_order) == 64  # yet every group's start is recorded


def test_a_window_trace_is_verified_over_the_whole_output(device):
    outcome = _window_trace(find_variant("matmul", "tiled"), device)
    assert len(outcome.trace.groups_traced) == 9
    assert outcome.result.status == "verified"
    assert np.isfinite(outcome.result.output).all()


def test_new_inputs_get_a_new_launch_of_the_plain_build(device):
    # The plain launch's output is kept for the next trace of the same configuration; with
    # other inputs it must not be reused.
    tiled = find_variant("matmul", "tiled")
    for data in ("random", "iou", "random"):
        outcome = _window_trace(tiled, device, data)
        assert len(outcome.trace.groups_traced) == 9
        assert outcome.result.status == "verified", data


def test_the_window_elements_are_judged_as_the_trace_build_wrote_them(device, tmp_path):
    source = find_variant("matmul", "naive").source.replace(
        "C[row * N + col] = acc;",
        "#ifdef EXPLORER_TRACE\n    acc += 1.0f;\n#endif\n    C[row * N + col] = acc;",
    )
    assert "EXPLORER_TRACE" in source
    path = tmp_path / "traced_differs.cl"
    path.write_text(source, encoding="utf-8")
    outcome = _window_trace(load_variant_file(path), device)
    owned = _window_elements(outcome)
    assert outcome.result.status == "wrong"
    # Exactly the window's elements are off: the rest came from the kernel as written.
    assert outcome.result.verdict.mismatches == int(owned.sum()) == 9 * 256


ATOMIC = """__kernel void k(__global int* out, const __global int* in)
{
    atomic_add(&out[0], in[get_global_id(0)]);
}
"""


def test_a_kernel_with_global_atomics_runs_every_group():
    assert not outside_may_leave(instrument(ATOMIC, "k"))
    tiled = find_variant("matmul", "tiled")
    inst = instrument(tiled.source, tiled.kernel, {"TS": 16})
    assert outside_may_leave(inst)


def test_a_small_trace_on_a_cpu_is_built_unoptimised_and_a_large_one_optimised(device, monkeypatch):
    """A CPU compiler's optimiser takes longer than a small launch runs: the instrumented
    builds of a small trace skip it, those of a large one keep it, and the plain build a
    window trace fills in from is always the optimised one a run uses."""
    from explorer.engine.launch.build import BuildCache
    from explorer.engine.launch.prepare import QUICK_BUILD_WORK_ITEMS

    built: list[tuple[bool, bool]] = []  # (instrumented, unoptimised) of every build asked for
    kernel = BuildCache.kernel

    def recording(self, cl, context, key, source, options, *rest):
        built.append((source != variant.source, "-cl-opt-disable" in options))
        return kernel(self, cl, context, key, source, options, *rest)

    monkeypatch.setattr(BuildCache, "kernel", recording)
    on_cpu = device.type.upper() == "CPU"
    variant = find_variant("transpose", "naive")
    small = RunRequest(variant, {"WIDTH": 64, "HEIGHT": 32}, device_key=device.key, input="random")
    assert run_trace(TraceRequest(small)).result.status == "verified"
    assert built and all(instrumented for instrumented, _ in built)
    assert {quick for _, quick in built} == {on_cpu}

    built.clear()
    side = 2 * int(QUICK_BUILD_WORK_ITEMS**0.5)  # four times the limit
    sizes = {"WIDTH": side, "HEIGHT": side}
    large = RunRequest(variant, sizes, device_key=device.key, input="random")
    assert run_trace(TraceRequest(large, budget_bytes=1 << 16)).result.status == "verified"
    assert (True, False) in built  # the instrumented build, optimised
    assert not any(quick for _, quick in built)  # the plain one too


def _plain_output(run: RunRequest) -> np.ndarray:
    """The output of ``run`` as a run of the kernel computes it, on the same device."""
    return run_request(replace(run, repeat=1, warmup=0)).output


def _traced_plus_one(variant, tmp_path, store: str, plus: str):
    """``variant`` with ``plus`` done before ``store`` in its trace build only."""
    source = variant.source.replace(store, f"#ifdef EXPLORER_TRACE\n{plus}\n#endif\n{store}", 1)
    assert "EXPLORER_TRACE" in source
    path = tmp_path / f"traced_{variant.kernel}.cl"
    path.write_text(source, encoding="utf-8")
    return load_variant_file(path)


def test_a_window_output_is_the_trace_builds_inside_and_a_plain_runs_outside(device, tmp_path):
    naive = find_variant("matmul", "naive")
    variant = _traced_plus_one(naive, tmp_path, "C[row * N + col] = acc;", "acc += 1.0f;")
    outcome = _window_trace(variant, device)
    owned = _window_elements(outcome)
    run = RunRequest(variant, dict(SIZES), local=(16, 16), device_key=device.key, input="random")
    plain = _plain_output(run)
    output = outcome.result.output
    assert 0 < owned.sum() < owned.size
    np.testing.assert_array_equal(output[~owned], plain[~owned])
    np.testing.assert_allclose(output[owned], plain[owned] + 1.0, rtol=1e-6)


def test_every_element_a_traced_vector_store_covers_comes_from_the_trace_build(device, tmp_path):
    # vstore8 writes eight elements in one record: all eight come from the trace build.
    float8 = find_variant("matmul", "cpu-float8")
    variant = _traced_plus_one(
        float8, tmp_path, "vstore8(lo[r], 0, C", "lo[r] += 1.0f; hi[r] += 1.0f;"
    )
    sizes = {"M": 64, "N": 64, "K": 16}  # blocks of 8×16, 16 work-items stacked: 4×1 groups
    run = RunRequest(variant, sizes, device_key=device.key, input="random")
    full = run_trace(TraceRequest(run, values=False))
    groups = len(full.trace.groups_traced)
    assert groups == 4
    budget = full.trace.records // groups * 8  # one group's records
    outcome = run_trace(TraceRequest(run, center=(2, 0, 0), budget_bytes=budget, values=False))
    assert outcome.trace.groups_traced == ((2, 0, 0),)
    owned = np.zeros((64, 64), dtype=bool)
    owned[:, 32:48] = True  # group 2: columns 32..47 of every row
    output, plain = outcome.result.output, _plain_output(run)
    np.testing.assert_array_equal(output[~owned], plain[~owned])
    np.testing.assert_allclose(output[owned], plain[owned] + 1.0, rtol=1e-6)


def test_the_records_of_a_few_sites_or_of_many_are_found_across_slices():
    from explorer.engine.record.window_verify import _SCAN_CHUNK, records_of_sites
    from explorer.trace.recorded import SITE_MASK

    rng = np.random.default_rng(5)
    word = rng.integers(0, 1 << 32, size=2 * _SCAN_CHUNK + 77, dtype=np.uint32)
    for sites in ([3], [3, 900, 17], list(range(0, SITE_MASK + 1, 37)), []):
        expected = np.flatnonzero(np.isin(word & SITE_MASK, sites))
        np.testing.assert_array_equal(records_of_sites(word, sites), expected)


def test_windows_of_groups_together_record_what_the_counting_launch_counted(device):
    """A launch too large for one trace is traced in successive windows of groups: the
    counting launch of every group tells each group's records, and the windows' traces
    together record exactly those, each verified over the whole output."""
    sizes = {"M": 120, "N": 104, "K": 40}  # edge groups are partly outside: fewer records
    run = RunRequest(find_variant("matmul", "tiled"), sizes, local=(16, 16), device_key=device.key)
    counts = count_groups(TraceRequest(run, values=False))
    assert counts.num_groups == (7, 8, 1)
    per_group = counts.records.reshape(8, 7)  # (gy, gx)
    assert per_group[0, 0] > per_group[7, 6] > 0
    whole = run_trace(TraceRequest(run, values=False))
    assert whole.trace.records == counts.records.sum()
    bands = [(0, 3), (3, 6), (6, 8)]
    windows = [run_trace(TraceRequest(run, groups=((0, 7), band), values=False)) for band in bands]
    assert [w.result.status for w in windows] == ["verified"] * 3
    assert [w.trace.records for w in windows] == [per_group[lo:hi].sum() for lo, hi in bands]
    assert sum(w.trace.records for w in windows) == whole.trace.records


def test_a_launch_that_cannot_run_is_not_counted_and_says_why(device):
    tiled = find_variant("matmul", "tiled")
    run = RunRequest(tiled, {"M": 32, "N": 32, "K": 0}, device_key=device.key)
    refused = count_groups(TraceRequest(run))
    assert not isinstance(refused, GroupCounts)
    assert refused.status == "error" and "at least 1" in refused.summary()


def test_a_window_of_non_uniform_groups_shows_the_rest_as_a_run_computes_it(device):
    """A 5×3 NDRange in groups of 2×2 runs as whole groups whose extra work-items leave: the
    groups outside a window come from that same launch, not from the kernel as written over
    6×4 work-items (which writes other values, at other places); then a 6×3 NDRange, also
    launched as 6×4 on the same buffer, is not given the 5×3 one's output."""
    from explorer.engine.header.sim import parse_sim
    from tests.conftest import TEST_KERNELS

    path = TEST_KERNELS / "custom" / "sim" / "partial_groups.sim"
    for ndrange in ("5 3 1", "6 3 1"):
        text = path.read_text().replace("5 3 1", ndrange).replace("size=60", "size=72")
        run = RunRequest(parse_sim(text, path), {}, device_key=device.key, input="declared")
        outcome = run_trace(TraceRequest(run, groups=((0, 1), (0, 1)), values=False))
        assert outcome.trace.groups_traced == ((0, 0, 0),)
        np.testing.assert_array_equal(outcome.result.output, _plain_output(run))


def test_a_window_trace_that_fails_leaves_no_build_running_into_the_next_request(
    device, monkeypatch
):
    import threading
    import time

    import explorer.engine.record.window_verify as window_verify

    built = window_verify.plain_kernel

    def slow_build(p):
        time.sleep(0.5)
        return built(p)

    def lost(self, wi_records, counted):
        self._fill()
        raise self.cl.RuntimeError("clEnqueueNDRangeKernel failed: OUT_OF_RESOURCES")

    monkeypatch.setattr(window_verify, "plain_kernel", slow_build)
    monkeypatch.setattr(tracing.TraceLaunch, "_record", lost)
    run = RunRequest(find_variant("matmul", "tiled"), dict(SIZES), device_key=device.key)
    outcome = run_trace(TraceRequest(run, groups=((0, 2), (0, 2)), values=False))
    assert outcome.result.status == "error" and "OUT_OF_RESOURCES" in outcome.result.summary()
    assert not [t for t in threading.enumerate() if t.name == "plain-fill"]


def test_a_kernel_as_written_that_fails_to_build_in_a_window_trace_says_so_with_its_log(
    device, tmp_path
):
    """The groups outside a window come from the kernel as written: where only that build
    fails, the trace is a build failure with the compiler's log, not an executor error."""
    source = find_variant("matmul", "naive").source.replace(
        "C[row * N + col] = acc;",
        "#ifndef EXPLORER_TRACE\n    C[row * N + col] = undeclared_name;\n#endif\n"
        "    C[row * N + col] = acc;",
    )
    path = tmp_path / "only_traced_builds.cl"
    path.write_text(source, encoding="utf-8")
    run = RunRequest(load_variant_file(path), dict(SIZES), local=(16, 16), device_key=device.key)
    outcome = run_trace(TraceRequest(run, center=(5, 5, 0), budget_bytes=4096, values=False))
    assert outcome.result.status == "error" and outcome.result.error_kind == "build"
    assert "undeclared_name" in outcome.result.build_log
