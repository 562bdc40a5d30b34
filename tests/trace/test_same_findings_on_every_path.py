"""The same kernel gives the same findings whatever the path: the command line's trace and
the window's trace record the same things (values included), so work-items that all write one
element the same value are a note on both, never a race on one of them. Every kernel of the
findings corpus and of our trace kernels goes both ways: the suite runs a sample of each list,
the fewest kernels that between them show every feature any kernel of the list shows (its
constructs, the kinds of finding, the folders: as the either-build file chooses), and
``python benchmarks/sweeps.py`` runs them all (it sets ``EXPLORER_SWEEP=all``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import tomllib

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS
from tests.test_cli import cli
from tests.trace.findings.test_corpus import CORPUS, FINDINGS, SIZES
from tests.trace.header_files import PATHS, PROGRAMS, capture_host
from tests.trace.test_same_findings_either_build import (
    OWN,
    constructs,
    corpus_features,
    own_features,
    sample,
)

UNIFORM = """/*---
name = "Every work-item raises the same flag"
family = "custom"
kernel = "flagged_copy"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.dst]
buffer = "float"
count = "N"
contents = "zeros"
access = "write"
[args.done]
buffer = "int"
count = "1"
contents = "zeros"
access = "write"
[reference.numpy]
dst = "src"
done = "done + 1"
---*/
#line 1
__kernel void flagged_copy(__global const float* src, __global float* dst, __global int* done)
{
    int i = get_global_id(0);
    dst[i] = src[i];
    done[0] = 1;
}
"""


def test_the_command_line_and_the_window_find_the_same(executor, device, tmp_path, fast_cli):
    path = tmp_path / "flagged.cl"
    path.write_text(UNIFORM, encoding="utf-8")
    ran = cli("trace", "--kernel-file", str(path), "--json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    on_the_command_line = sorted({f["kind"] for f in json.loads(ran.stdout)["findings"]})
    request = RunRequest(load_variant_file(path), {}, device_key=device.key)
    in_the_window = executor.trace(TraceRequest(request, values=True))  # as the window asks
    assert on_the_command_line == sorted({f.kind for f in in_the_window.analysis.findings})
    assert "same-value-writes" in on_the_command_line
    assert "race" not in on_the_command_line


def _both_ways(executor, device, path, sizes: dict[str, int]) -> tuple[list[tuple], list[tuple]]:
    """(kind, line, buffer, count, phase) of each finding: `trace --json` and the window's."""
    given = [f"--{name.lower()}={value}" for name, value in sizes.items()]
    ran = cli("trace", "--kernel-file", str(path), *given, "--json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    keys = ("kind", "line", "buffer", "count", "phase")
    on_the_command_line = [tuple(f[k] for k in keys) for f in json.loads(ran.stdout)["findings"]]
    request = RunRequest(load_variant_file(path), sizes, device_key=device.key)
    traced = executor.trace(TraceRequest(request, values=True))  # as the window asks
    assert traced.analysis is not None, traced.result.summary()
    in_the_window = [(f.kind, f.line, f.buffer, f.count, f.phase) for f in traced.analysis.findings]
    return on_the_command_line, in_the_window


def own_path_features() -> dict[str, set[str]]:
    """Each of our trace kernels' features (:func:`own_features`), the CSR builds of builds/
    among them: every folder goes both ways."""
    features = own_features()
    for path in OWN:
        folder = path.split("/")[0]
        if folder == "builds":
            source = load_variant_file(TEST_KERNELS / path).source
            features[path] = constructs(source) | {f"folder {folder}"}
    return features


@pytest.mark.parametrize("name", sample(corpus_features()))
def test_the_findings_corpus_is_found_alike_both_ways(name, executor, device, fast_cli):
    line, window = _both_ways(executor, device, CORPUS / f"{name}.cl", SIZES)
    assert line == window


@pytest.mark.parametrize("path", sample(own_path_features()))
def test_our_trace_kernels_are_found_alike_both_ways(path, executor, device, fast_cli):
    line, window = _both_ways(executor, device, TEST_KERNELS / path, {})
    assert line == window


def test_the_sample_both_ways_shows_every_folder_and_finding_kind():
    """What the suite leaves to the sweep is more of the same: the sample of our trace
    kernels goes through every folder (builds/ too) and shows every construct any of them
    shows; the corpus's sample makes every kind of finding, and none (the either-build file
    checks the rest of that sample)."""
    features = own_path_features()
    chosen = sample(features)
    assert set(chosen) <= set(OWN)
    assert {p.split("/")[0] for p in chosen} == {p.split("/")[0] for p in OWN}
    assert set().union(*(features[p] for p in chosen)) == set().union(*features.values())
    kinds = {kind for expected in FINDINGS.values() for kind, *_ in expected}
    corpus = sample(corpus_features())
    assert {kind for name in corpus for kind, *_ in FINDINGS[name]} == kinds
    assert any(not FINDINGS[name] for name in corpus)


# One program of several kernels (tests/trace/paths/program.cl) reached by every path: a
# header file per kernel (its header paths/NAME.toml, `#line 1`, then the program: written at
# test time by header_files.py), an Oclgrind .sim file per kernel, the launches of a PyOpenCL
# host program under capture (a loop, a partial output), the window, and the optimised and
# unoptimised builds. Their figures, checked by hand:
#   move3: 48 of 64 work-items move a triple of float (12 bytes), short (6, its load twice
#     through a macro), uchar (3) and double (24): read 48 * (12 + 2 * 6 + 3 + 24) = 2,448
#     bytes, write 48 * (12 + 6 + 3 + 24) = 2,160; no finding (the header promises the 144
#     elements written).
#   copy_points: 64 points of three floats copied whole: 768 bytes each way; no finding.
#   weigh: samples staged in local memory, copied whole with their tag, which nobody sets
#     and nothing reads afterwards: no finding.
#   weigh_tagged: the same, the tag read: uninitialized at the helper's copy (line 61).
#   blend_half: 60 work-items read 4 halves of a and one of b and write one: 600 bytes read,
#     120 written; no finding.
#   shift_right: a[i + 1] = a[i] in place: 61 work-item pairs of one group race in phase 0
#     and one pair across the two groups (work-items 31 and 32).
# and of program2.cl:
#   neighbour_dots: points of three floats copied whole into local memory and out of it
#     (12-byte local accesses): 768 bytes read, 256 written; no finding.
#   group_sums3: triples through local memory with vstore3/vload3, then the first work-item
#     of each of the 4 groups adds to total[0]: read 768 + 4 * 4, write 4 * 12 + 4 * 4; the
#     groups race on total (one element: count 1).
#   scale_half4: 15 quads of halves: 120 bytes each way; the 16th quad is not promised.
# and of program3.cl, whose build options choose reverse3's element:
#   private_pairs: two triples in a private array, pair[5] never set and read by the vload3
#     of every work-item: 768 bytes each way.
#   reverse3: short triples (6 bytes) through local memory: a warp's 32 of them span 48 words,
#     2 in a bank, at the vstore3 into local memory and the vload3 out of it; 384 bytes.
#   reverse3_packed: the same built with -DPACKED=1 (the header's define, the .sim file's
#     build options, the host's build): uchar triples, 24 words, no conflict; 192 bytes.
# and of program4.cl:
#   half3: vload_half3/vstore_half3 (6 bytes) and vstorea_half3, whose triples lie four halves
#     apart: every element of aligned[::4] is written; read 64 * 6, write 2 * 64 * 6 bytes.
#   dpoints: points of three doubles (24 bytes) copied whole: 1,536 bytes each way.
# and of program5.cl, whose local memory the host sizes (`<size=384>` in the .sim files, as
# Oclgrind's take it) and whose accesses a macro writes (the trace rewrites its expansion):
#   swap_weigh: samples staged through a macro, copied whole, the tag never set nor used.
#   swap_weigh_tagged: the same, the tag read: uninitialized at line 31 of program5.cl, in
#     the header file as in the .sim file (the expansion numbered it by the file's lines).
LAUNCHES = {
    "move3": 1,
    "copy_points": 3,
    "weigh": 4,
    "weigh_tagged": 5,
    "blend_half": 6,
    "shift_right": 7,
    "neighbour_dots": 8,
    "group_sums3": 9,
    "scale_half4": 11,
    "private_pairs": 12,
    "reverse3": 13,
    "reverse3_packed": 14,
    "half3": 15,
    "dpoints": 16,
    "swap_weigh": 17,
    "swap_weigh_tagged": 18,
}
EXPECTED = {
    "move3": ([], 2448, 2160),
    "copy_points": ([], 768, 768),
    "weigh": ([], 512, 256),
    "weigh_tagged": ([("uninitialized", 61, "tile", 64)], 512, 256),
    "blend_half": ([], 600, 120),
    "shift_right": ([("race", 106, "a", 1), ("race", 106, "a", 61)], 252, 252),
    "neighbour_dots": ([], 768, 256),
    "group_sums3": ([("race", 39, "total", 1)], 784, 64),
    "scale_half4": ([], 120, 120),
    "private_pairs": ([("uninitialized", 22, "pair", 64)], 768, 768),
    "reverse3": ([("bank-conflict", 30, "tile", 2), ("bank-conflict", 32, "tile", 2)], 384, 384),
    "reverse3_packed": ([], 192, 192),
    "half3": ([], 384, 768),
    "dpoints": ([], 1536, 1536),
    "swap_weigh": ([], 512, 256),
    "swap_weigh_tagged": ([("uninitialized", 31, "tile", 64)], 512, 256),
}


@pytest.fixture(scope="module")
def program_capture(device, tmp_path_factory) -> Path:
    """The capture of paths/host.py on the session's device."""
    return capture_host(device.key, "host.py", tmp_path_factory.mktemp("paths") / "capture")


def _cli_trace(*selection: str) -> tuple[list[tuple], list[tuple], str]:
    """The findings (kind, line, buffer, count, message), the sites (line, buffer, op,
    accesses) and the memory line of `trace` on one path."""
    ran = cli("trace", *selection, "--json")
    assert ran.returncode in (0, 1), ran.stdout + ran.stderr
    report = json.loads(ran.stdout)
    keys = ("kind", "line", "buffer", "count", "message")
    findings = [tuple(f[k] for k in keys) for f in report["findings"]]
    sites = [(s["line"], s["buffer"], s["op"], s["accesses"]) for s in report["sites"]]
    text = cli("trace", *selection)
    memory = next(line for line in text.stdout.splitlines() if line.startswith("Global memory"))
    return findings, sites, memory


@pytest.mark.parametrize("name", sorted(LAUNCHES))
def test_one_program_is_found_alike_on_every_path(name, program_capture, header_files, fast_cli):
    expected, read, written = EXPECTED[name]
    header = _cli_trace("--kernel-file", str(header_files / f"{name}.cl"))
    assert [f[:4] for f in header[0]] == expected
    assert header[2] == f"Global memory: {read:,} bytes read, {written:,} bytes written."
    sim = _cli_trace("--sim", str(PATHS / f"{name}.sim"))
    captured = _cli_trace("--capture", str(program_capture), "--launch", str(LAUNCHES[name]))
    assert sim == header
    assert captured == header


@pytest.mark.parametrize("name", sorted(LAUNCHES))
def test_one_program_is_found_alike_in_the_window_and_either_build(
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


@pytest.mark.parametrize("name", ["half3", "dpoints", "move3"])
def test_the_trace_computes_what_the_plain_run_does(name, executor, device, header_files):
    """The traced build stores where the kernel does: vstorea_half3 steps four halves a
    triple (the trace stepped three, and wrote aligned[] elsewhere than the plain run)."""
    variant = load_variant_file(header_files / f"{name}.cl")
    run = RunRequest(variant, {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run, values=True))
    plain = executor.run(run)
    assert plain.outputs is not None and traced.result.outputs is not None
    for buffer, values in plain.outputs.items():
        np.testing.assert_array_equal(traced.result.outputs[buffer], values, err_msg=buffer)


@pytest.mark.parametrize(
    ("name", "read", "written"), [("move3", 2448, 2160), ("blend_half", 500, 100)]
)
def test_a_kernel_without_barriers_runs_in_partial_groups_beside_one_with(
    name, read, written, fast_cli
):
    """A .sim launch in non-uniform work-groups of a kernel whose program has another kernel
    with a barrier: only what the launched kernel runs can wait for the work-items that
    leave, so it runs (it was refused, naming the other kernel's barrier), with the findings
    of its whole-group launch."""
    findings, _, memory = _cli_trace("--sim", str(PATHS / f"{name}_partial.sim"))
    assert findings == []
    assert memory == f"Global memory: {read:,} bytes read, {written:,} bytes written."


def test_a_kernel_with_a_barrier_is_still_refused_partial_groups(fast_cli):
    ran = cli("trace", "--sim", str(PATHS / "weigh_partial.sim"))
    assert ran.returncode == 3, ran.stdout + ran.stderr
    assert "the work-group synchronisation at line 71 would wait for them" in ran.stdout


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("weigh_through_helper", []),
        ("weigh_through_helper_tagged", [("uninitialized", 9, "tile", 64)]),
    ],
)
def test_a_struct_returned_whole_by_a_helper_is_judged_by_what_its_callers_read(
    name, expected, executor, device, fast_cli
):
    """`return tile[at];` copies the whole struct, tag included, which nobody set: no finding
    where the caller reads only value and weight (the same kernel with the copy inline made
    none, through the helper it was an uninitialized read), a finding where it reads tag."""
    line, window = _both_ways(executor, device, PATHS / f"{name}.cl", {})
    assert [f[:4] for f in line] == expected
    assert line == window


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("neighbour_energy", []),
        ("flagged_neighbours", [("uninitialized", 12, "cache", 64)]),
    ],
)
def test_a_struct_returned_whole_is_judged_by_the_kernel_launched(
    name, expected, executor, device, fast_cli, header_files, program7_capture
):
    """program7.cl: two kernels read particles back through one helper that returns them
    whole, flags included, which nothing loads. flagged_neighbours reads flags: uninitialized
    at the helper's copy, once per work-item. neighbour_energy reads only mass and velocity
    (through a second helper): no finding (flagged_neighbours' read of flags, which its
    launch never runs, made it one of 128 reads). Header, .sim file, the launch of a host
    program under capture (paths/host7.py) and window alike."""
    line, window = _both_ways(executor, device, header_files / f"{name}.cl", {})
    assert [f[:4] for f in line] == expected
    assert line == window
    header = _cli_trace("--kernel-file", str(header_files / f"{name}.cl"))
    assert _cli_trace("--sim", str(PATHS / f"{name}.sim")) == header
    launch = {"neighbour_energy": "1", "flagged_neighbours": "2"}[name]
    assert _cli_trace("--capture", str(program7_capture), "--launch", launch) == header


@pytest.fixture(scope="module")
def program7_capture(device, tmp_path_factory) -> Path:
    """The capture of paths/host7.py on the session's device."""
    return capture_host(device.key, "host7.py", tmp_path_factory.mktemp("paths7") / "capture")


def test_each_header_and_its_sim_files_name_one_kernel_of_one_program():
    """A kernel's header file and the program a capture and a .sim file build are one text:
    every header of tests/trace/paths is made a header file (one left out of PROGRAMS would
    be traced by no test), naming a kernel its program defines, and each .sim file of that
    kernel builds the same program and launches the same kernel (two programs, or a header
    and a .sim file of different kernels, would compare two kernels)."""
    assert sorted(p.stem for p in PATHS.glob("*.toml")) == sorted(PROGRAMS)
    kernels = {}
    for name, program in PROGRAMS.items():
        kernels[name] = tomllib.loads((PATHS / f"{name}.toml").read_text())["kernel"]
        assert f"__kernel void {kernels[name]}(" in (PATHS / program).read_text(), name
    sims = sorted(PATHS.glob("*.sim"))
    without_sim = {"blur_rows", "threshold_pairs"}  # image and sampler arguments: none in .sim
    assert {sim.stem for sim in sims} >= set(PROGRAMS) - without_sim
    for sim in sims:
        lines = [line for line in sim.read_text().splitlines() if not line.startswith("#")]
        name = sim.stem.removesuffix("_partial")
        assert (lines[0], lines[1]) == (PROGRAMS[name], kernels[name]), sim.name
