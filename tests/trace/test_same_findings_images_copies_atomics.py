"""The same kernel gives the same findings whatever the path, for images read through
samplers, async copies into local memory and atomics: the kernels of tests/trace/paths/
program6.cl by a header file each (made at test time: tests/trace/header_files.py), an
Oclgrind .sim file (the copies and the histograms: the format has no image or sampler
argument), the launches of a PyOpenCL host program under capture (paths/host6.py: a loop of
two blurs, one of the two tile kernels and one of the two histograms), the window, and the
optimised and unoptimised builds. Their figures, checked by hand:
  blur_rows: 16x8 pixels of one float, each reads three of its row through the host's
    CLAMP_TO_EDGE sampler (the ends reach x = -1 and x = 16: the edge pixel, no finding) and
    writes one: 128 * 3 * 4 = 1,536 bytes read, 128 * 4 = 512 written.
  threshold_pairs: each pixel and the one below it, through a sampler of CLK_ADDRESS_NONE:
    the 16 work-items of the last row read y = 8, outside the picture (out-of-bounds, count
    16, those reads skipped): (128 + 112) * 4 = 960 bytes read, 512 written.
  tile_pairs: 16 floats copied into local memory by each of 4 groups and waited for: 256
    bytes each way; no finding (the other kernel's copy and wait, which this launch never
    runs, made two not-traced findings and an incomplete trace).
  tile_pairs_early: the same, each work-item reading its element before the wait: a race
    through the copy on line 39 (all 64 work-items).
  histogram: the values 0 to 63 counted into 8 bins by atomic_add: 256 bytes of values and
    the 64 atomics (256 bytes read and written); no finding.
  histogram_racy: the same with bins[...]++: the two groups race on the 8 bins (line 52),
    within each group 4 work-items update each bin at once (8 bins in each of 2 groups:
    16), and each bin is written by several work-items (coverage)."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.trace.header_files import PATHS, capture_host
from tests.trace.test_same_findings_on_every_path import _cli_trace

LAUNCHES = {
    "blur_rows": 1,
    "threshold_pairs": 3,
    "tile_pairs": 4,
    "tile_pairs_early": 5,
    "histogram": 6,
    "histogram_racy": 7,
}
EXPECTED = {
    "blur_rows": ([], 1536, 512),
    "threshold_pairs": ([("out-of-bounds", 20, "src", 16)], 960, 512),
    "tile_pairs": ([], 256, 256),
    "tile_pairs_early": ([("race", 39, "tile", 64)], 256, 256),
    "histogram": ([], 512, 256),
    "histogram_racy": (
        [("race", 52, "bins", 8), ("race", 52, "bins", 16), ("coverage", 52, "bins", 8)],
        512,
        256,
    ),
}
WITHOUT_SIM = {"blur_rows", "threshold_pairs"}  # image and sampler arguments


@pytest.fixture(scope="module")
def program_capture(device, tmp_path_factory) -> Path:
    """The capture of paths/host6.py on the session's device."""
    return capture_host(device.key, "host6.py", tmp_path_factory.mktemp("paths6") / "capture")


@pytest.mark.parametrize("name", sorted(LAUNCHES))
def test_images_copies_and_atomics_are_found_alike_on_every_path(
    name, program_capture, header_files, fast_cli
):
    expected, read, written = EXPECTED[name]
    header = _cli_trace("--kernel-file", str(header_files / f"{name}.cl"))
    assert [f[:4] for f in header[0]] == expected
    assert header[2] == f"Global memory: {read:,} bytes read, {written:,} bytes written."
    captured = _cli_trace("--capture", str(program_capture), "--launch", str(LAUNCHES[name]))
    assert captured == header
    if name not in WITHOUT_SIM:
        assert _cli_trace("--sim", str(PATHS / f"{name}.sim")) == header


def test_the_second_blur_of_the_loop_is_found_as_the_first(program_capture, fast_cli):
    first = _cli_trace("--capture", str(program_capture), "--launch", "1")
    assert _cli_trace("--capture", str(program_capture), "--launch", "2") == first


@pytest.mark.parametrize("name", sorted(LAUNCHES))
def test_images_copies_and_atomics_are_found_alike_in_the_window_and_either_build(
    name, executor, device, header_files, monkeypatch
):
    from tests.trace.test_same_findings_either_build import _both

    variant = load_variant_file(header_files / f"{name}.cl")
    request = RunRequest(variant, {}, device_key=device.key)
    window = executor.trace(TraceRequest(request, values=True))
    assert window.analysis is not None, window.result.summary()
    in_the_window = [(f.kind, f.line, f.buffer, f.count) for f in window.analysis.findings]
    assert in_the_window == EXPECTED[name][0]
    if device.type.upper() == "CPU":  # only a CPU trace is ever built unoptimised
        optimised, unoptimised, _ = _both(request, monkeypatch)
        assert optimised == unoptimised
        assert [f[:4] for f in optimised[:-1]] == EXPECTED[name][0]
