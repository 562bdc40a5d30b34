"""Host programs written the way PyOpenCL users write them (``styles2/``), captured once each
through ``python -m explorer capture``: each prints and ends as it does alone, every launch is
listed with its kernel, sizes and arguments, replays matching the original run, and a saved
launch traces as the capture's launch does. Also ``with explorer.capture(...)`` around a
``sys.exit``: the capture keeps the code the process ends with."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from explorer.capture.folder import Capture, load_capture
from explorer.capture.replay import replay
from tests.capture.conftest import replace_contents
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")
ROOT = Path(__file__).resolve().parents[2]
STYLES = Path(__file__).parent / "styles2"

HOST_PTR_SEEN, HOST_PTR_KEPT = "hostptr True 36.0\n", "hostptr False 19.0\n"

# What each program prints and the code it ends with, alone and under capture alike.
PROGRAMS = {
    "reduction_map.py": ("6312824 True\n", 0),
    "include_opt.py": ("nearest True\n", 0),
    "jacobi_setargs.py": ("jacobi True 42.123\n", 0),
    "set_arg_swap.py": ("swap True 22.332\n", 0),
    # The host writes its USE_HOST_PTR array with no map between the launches: whether the
    # second launch sees it is the device's choice (PoCL's does; NVIDIA's keeps its copy),
    # so the program's own line on this device is what capture must leave it.
    "host_ptr_map.py": (HOST_PTR_SEEN, 0),
    "wrong_check.py": ("check failed at 1\n", 3),
    "pool_arrays.py": ("pool [9222.0, 9842.5, 9275.5]\n", 0),
    "warp_idiom.py": (None, 0),  # its block sums are as wrong as the race makes them here
}


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True,
                          timeout=300, cwd=STYLES)  # fmt: skip


@pytest.fixture(scope="module")
def runs(on_device, tmp_path_factory) -> dict[str, tuple[subprocess.CompletedProcess[str], Path]]:
    """Each program captured once: what ``capture`` printed and ended with, and the folder."""
    made = {}
    for program in PROGRAMS:
        folder = tmp_path_factory.mktemp(program.removesuffix(".py"))
        done = _python("-m", "explorer", "capture", str(folder), "--", sys.executable, program)
        made[program] = (done, folder)
    return made


@pytest.fixture(scope="module")
def host_ptr_alone(on_device) -> str:
    """What host_ptr_map.py prints alone on this device (either line the spec allows)."""
    done = _python("host_ptr_map.py")
    assert done.returncode == 0 and done.stdout in (HOST_PTR_SEEN, HOST_PTR_KEPT), done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def captures(runs) -> dict[str, Capture]:
    return {program: load_capture(folder) for program, (_, folder) in runs.items()}


def test_each_program_prints_and_ends_as_it_does_alone(runs, host_ptr_alone):
    for program, (printed, code) in PROGRAMS.items():
        done, folder = runs[program]
        if printed == HOST_PTR_SEEN:
            printed = host_ptr_alone
        if printed is None:  # decided by a race: the same lines, whatever their verdicts
            assert re.fullmatch(r"0 \w+ True\n1 \w+ True\n", done.stdout), done.stdout
            printed = done.stdout
        assert (done.stdout, done.returncode) == (printed, code), (program, done.stderr)
        assert json.loads((folder / "capture.json").read_text())["exit_code"] == code


def _buffers(launch) -> list[tuple[str, int]]:
    return [(a.name, a.memory) for a in launch.args if a.kind == "buffer"]


def test_every_launch_is_listed_with_its_kernel_sizes_and_arguments(captures, host_ptr_alone):
    jacobi = captures["jacobi_setargs.py"].launches
    assert [(j.label, j.global_size, j.local_size) for j in jacobi] == [
        (f"jacobi#{k}", (32, 24), (8, 8)) for k in range(1, 6)
    ]
    # set_args with the two buffers in turn: each launch reads what the one before wrote.
    assert [_buffers(j) for j in jacobi[:2]] == [[("u", 0), ("v", 1)], [("u", 1), ("v", 0)]]
    for before, after in itertools.pairwise(jacobi):
        assert after.args[0].before == before.args[1].after
    assert [(a.name, a.value) for a in jacobi[0].args[2:]] == [("w", 24), ("h", 20)]
    # set_arg of the buffers and of the weight alone, between launches
    swap = captures["set_arg_swap.py"].launches
    assert [_buffers(s)[0][1] for s in swap] == [0, 1, 0, 1, 0, 1]
    assert [s.args[2].value for s in swap] == [float(np.float32(0.25 + 0.1 * k)) for k in range(6)]
    # the host wrote its USE_HOST_PTR array between the launches: the second reads 10s where
    # the device sees that write, else the contents it kept (what that launch really read)
    axpy = captures["host_ptr_map.py"].launches
    capture = captures["host_ptr_map.py"]
    second = [10.0, 10.0, 10.0] if host_ptr_alone == HOST_PTR_SEEN else [0.0, 1.0, 2.0]
    assert [np.load(capture.path(a.args[0].before))[:3].tolist() for a in axpy] == [
        [0.0, 1.0, 2.0], second,
    ]  # fmt: skip
    assert np.load(capture.path(axpy[0].args[1].before))[:3].tolist() == [1.0, 1.0, 1.0]
    # a ReductionKernel's map_expr and its own argument
    (stage1, stage2) = captures["reduction_map.py"].launches
    assert (stage1.kernel, stage2.kernel) == ("reduce_kernel_stage1", "reduce_kernel_stage2")
    assert [a.value for a in stage1.args if a.name == "offset"] == [1]


def test_every_launch_replays_matching_the_original_run(captures):
    for program, capture in captures.items():
        for launch in capture.launches:
            if launch.kernel == "block_sum":
                continue  # its race: the trace's business (below)
            selection = ["--capture", str(capture.folder), "--launch", str(launch.number)]
            done = cli("run", *selection, "--repeat", "1")
            assert done.code == 0, (program, launch.label, done.out + done.err)
            assert "matches the original run" in done.out, (program, done.out)


def _findings(selection: list[str], offset: int) -> tuple[bool, list[tuple[object, ...]]]:
    traced = cli("trace", *selection, "--json")
    assert traced.code == 0, traced.out + traced.err
    report = json.loads(traced.out)
    return report["complete"], [
        (f["kind"], f["line"] - offset, f["buffer"], f["count"],
         re.sub(r"line \d+", "line", f["message"]))
        for f in report["findings"]
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("program", "launch", "headers"),
    [
        ("reduction_map.py", "reduce_kernel_stage1", {"pyopencl-complex.h"}),
        ("include_opt.py", "nearest", {"common.h"}),
    ],
)
def test_a_saved_launch_with_headers_traces_as_the_captured_one(
    captures, tmp_path, program, launch, headers
):
    """A saved kernel file carries the headers its build read (pyopencl's own, those of the
    program's -I folder) beside it: it runs, and traces with the findings of the capture's
    launch (before, its trace stopped: "'pyopencl-complex.h' file not found")."""
    capture = captures[program]
    chosen = capture.find(launch)
    saved = cli("capture-save", str(capture.folder), "--launch", launch, "--out", str(tmp_path))
    assert saved.code == 0, saved.err
    kernel = tmp_path / f"{launch}-{chosen.number}.cl"
    found = {p.name for p in (tmp_path / f"{launch}-{chosen.number}.include").rglob("*.h")}
    assert found == headers
    for name in headers - {"pyopencl-complex.h"}:
        assert (next(tmp_path.rglob(name))).read_bytes() == (STYLES / "incl" / name).read_bytes()
    ran = cli("run", "--kernel-file", str(kernel), "--repeat", "1")
    assert ran.code == 0 and "matches the original run" in ran.out, ran.out + ran.err
    source = capture.path(capture.program_of(chosen).source).read_text()
    text = kernel.read_text()
    offset = text[: text.rindex(source)].count("\n")
    from_capture = _findings(["--capture", str(capture.folder), "--launch", launch], 0)
    assert from_capture[0] is True
    assert _findings(["--kernel-file", str(kernel)], offset) == from_capture


def test_the_off_by_one_the_host_check_caught_is_what_the_replay_shows(captures):
    """wrong_check.py's kernel writes b[i + 1] = a[i]: in bounds (b holds n + 2), so the trace
    finds nothing, and the replay's output is the captured one, shifted by one."""
    capture = captures["wrong_check.py"]
    (launch,) = capture.launches
    b = launch.args[1]
    after = np.load(capture.path(b.after))
    assert after.tolist() == [0, *range(30), 0]
    assert _findings(["--capture", str(capture.folder), "--launch", "1"], 0) == (True, [])


@pytest.fixture
def exits(on_device, tmp_path) -> Iterator[dict[str, int]]:
    """``with explorer.capture(...)`` blocks ended by ``sys.exit`` in one process: the code
    each capture keeps, by how the block ended."""
    done = _python("-c", textwrap.dedent("""
        import sys
        import explorer
        import pyopencl as cl
        import numpy as np
        context = cl.create_some_context(interactive=False)
        queue = cl.CommandQueue(context)
        program = cl.Program(context, "__kernel void k(__global int *a) { a[0] = 1; }").build()
        buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, 4)
        for name, code in (("three", 3), ("none", None), ("zero", 0), ("text", "wrong"),
                           ("big", 258)):
            try:
                with explorer.capture(f"{sys.argv[1]}/{name}"):
                    program.k(queue, (1,), None, buffer)
                    sys.exit(code)
            except SystemExit:
                pass
        try:
            with explorer.capture(f"{sys.argv[1]}/error"):
                program.k(queue, (1,), None, buffer)
                raise ValueError("mine")
        except ValueError:
            pass
    """), str(tmp_path))  # fmt: skip
    assert done.returncode == 0, done.stderr
    yield {
        name: json.loads((tmp_path / name / "capture.json").read_text())["exit_code"]
        for name in ("three", "none", "zero", "text", "big", "error")
    }


def test_a_block_ended_by_sys_exit_keeps_the_code_the_process_ends_with(exits):
    # Before, every block left by an exception, sys.exit(0) too, was kept as exit code 1.
    assert exits == {"three": 3, "none": 0, "zero": 0, "text": 1, "big": 2, "error": 1}


def _line(capture: Capture, text: str) -> int:
    source = capture.path(capture.programs[0].source).read_text().splitlines()
    return next(number for number, line in enumerate(source, 1) if text in line)


def test_the_bugs_a_port_carries_are_traced_where_they_are(captures, tmp_path):
    """warp_idiom.py: the block sum's unrolled last steps without a barrier race on the
    local array the host sized (every work-item of 32 but the last reads an element another
    updates, in each of the 4 groups), and the difference reads x[n] once, in the work-item
    n - 1. The kernel file saved from each launch traces the same."""
    capture = captures["warp_idiom.py"]
    assert [launch.label for launch in capture.launches] == [
        "block_sum#1", "diff#1", "block_sum#2", "diff#2",
    ]  # fmt: skip
    local = capture.find("block_sum#2").args[2]
    assert (local.kind, local.nbytes) == ("local", 128 * 4)
    unrolled = _line(capture, "for (int o = 32; o > 0")
    difference = _line(capture, "d[i] = x[i + 1] - x[i]")
    for which, expected in (
        ("block_sum#2", [("race", unrolled, "s")]),
        ("diff#2", [("out-of-bounds", difference, "x")]),
    ):
        complete, found = _findings(["--capture", str(capture.folder), "--launch", which], 0)
        assert complete and [f[:3] for f in found] == expected, found
        if which.startswith("diff"):
            assert found[0][3] == 1 and "reads x[512] outside x (512 elements)" in found[0][4]
        saved = cli("capture-save", str(capture.folder), "--launch", which, "--out",
                    str(tmp_path / which.replace("#", "-")))  # fmt: skip
        assert saved.code == 0, saved.err
        (kernel,) = (tmp_path / which.replace("#", "-")).glob("*.cl")
        text = kernel.read_text()
        offset = text[: text.rindex(capture.path(capture.programs[0].source).read_text())]
        assert _findings(["--kernel-file", str(kernel)], offset.count("\n")) == (True, found)


def test_an_element_a_read_past_the_end_decides_is_not_judged(captures, tmp_path):
    """diff reads x[n], past x: what the program found there is not in the capture, so d's
    last element is whatever lay beyond x in the original run, and in a replay whatever lies
    beyond its copy. The replay tells it from the rest (not judged, named) rather than say
    the launch differs from the original run (before: WRONG at 1 element, or VERIFIED where
    the bytes past the end happened to agree)."""
    folder = tmp_path / "edited"
    shutil.copytree(captures["warp_idiom.py"].folder, folder)
    capture = load_capture(folder)
    launch = capture.find("diff#1")
    d = np.load(capture.path(launch.args[1].after))
    x = np.load(capture.path(launch.args[0].before))
    # Where x[511] is 0, d's last element is the very bytes read past x: any two fills tell
    # it apart. Here it is not, and the bytes past x count only as the number they read as.
    assert x[511] != 0
    d[511] = np.float32(1234.0) - x[511]  # as if 1234.0 lay past x in the program
    replace_contents(capture, launch.args[1].after, d)
    done = cli("run", "--capture", str(folder), "--launch", "diff#1", "--repeat", "1", "--json")
    record = json.loads(done.out)
    assert done.code == 0 and record["status"] == "verified", done.out + done.err
    assert record["undetermined"] == {"d": {"count": 1, "first": [511]}}


def test_arrays_from_a_memory_pool_are_recorded_as_their_whole_elements(captures):
    """pyopencl.array with a MemoryPool allocator passes PooledBuffer objects (before: every
    launch listed without its buffers, "argument 0 is a PooledBuffer, which is not
    recorded"). The pool's buffer for 200 floats holds 831 bytes: recorded as its 207 whole
    floats (before: as 831 raw bytes, so a replay and a trace counted bytes, not floats)."""
    capture = captures["pool_arrays.py"]
    assert [launch.kernel for launch in capture.launches[:4]] == [
        "axpb", "axpb", "halve_odd", "reduce_kernel_stage1",
    ]  # fmt: skip
    assert all(launch.data for launch in capture.launches), capture.launches[0].why
    rng = np.random.default_rng(8)
    for step in range(3):
        x = rng.integers(0, 10, 200).astype(np.float32)
        twice, plus_one, halve, dot = capture.launches[4 * step : 4 * step + 4]
        z, source = twice.args[0], twice.args[3]
        assert (z.nbytes, z.dtype, source.dtype) == (828, "float32", "float32")
        assert np.array_equal(np.load(capture.path(source.before))[:200], x)
        assert np.array_equal(np.load(capture.path(plus_one.args[0].after))[:200], 2 * x + 1)
        y = 2 * x + 1
        y[1::2] *= 0.5
        assert np.array_equal(np.load(capture.path(halve.args[0].after))[:200], y)
        total = np.load(capture.path(dot.args[0].after)).view(np.float32)[0]
        assert total == np.dot(x, y)


def test_saving_headers_never_writes_through_a_link_and_saves_again_alike(captures, tmp_path):
    capture = captures["include_opt.py"]
    folder = str(capture.folder)
    out = tmp_path / "saved"
    for _ in range(2):  # the same launch again into the same folder: the very same files
        saved = cli("capture-save", folder, "--launch", "nearest", "--out", str(out))
        assert saved.code == 0, saved.err
    assert (out / "nearest-1.include" / "0" / "common.h").is_file()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "nearest-1.include").symlink_to(elsewhere)
    refused = cli("capture-save", folder, "--launch", "nearest", "--out", str(linked))
    assert refused.code == 2 and "nearest-1.include/0/common.h" in refused.err, refused.err
    assert os.listdir(elsewhere) == [] and sorted(os.listdir(linked)) == ["nearest-1.include"]


def test_a_replay_of_a_size_the_driver_chose_says_why_it_may_differ(captures, tmp_path):
    """A launch with local_size=None whose kernel reads its group's geometry replays with a
    work-group size of the explorer's choosing (OpenCL does not tell the driver's): its
    replay says so, naming what the kernel reads (before, a kernel writing get_group_id
    replayed 'WRONG ... PoCL can miscompile a valid kernel' and said nothing of it). A
    kernel that reads none of it says nothing."""
    folder = tmp_path / "chosen"
    shutil.copytree(captures["wrong_check.py"].folder, folder)
    document = json.loads((folder / "capture.json").read_text())
    document["launches"][0]["local"] = None
    (folder / "capture.json").write_text(json.dumps(document))
    assert replay(load_capture(folder), "1").notes == ()
    source = folder / "programs" / "0.cl"
    source.write_text(
        source.read_text()
        .replace("int i = get_global_id(0);", "int i = get_group_id(0) * get_local_size(0) + k(0);")
        .replace(
            "__kernel void shift", "int k(int d) { return get_local_id(d); }\n__kernel void shift"
        )
    )
    (note,) = replay(load_capture(folder), "1").notes
    assert note.startswith("the program let the driver choose the work-group size")
    assert "32 is used here" in note
    assert "shift reads its group's geometry (get_local_id, get_group_id, get_local_size)" in note
    saved = cli("capture-save", str(folder), "--launch", "1", "--out", str(tmp_path / "k"))
    assert saved.code == 0 and note[1:] in (tmp_path / "k" / "shift-1.cl").read_text()
