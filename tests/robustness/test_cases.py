"""The cases of "nothing takes it down", one test each, through the command line where a
person would meet them (the window's cases are in test_window_cases.py, the orphan in
test_signals.py)."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

from explorer.description.expressions import ExpressionError, evaluate
from explorer.description.images import ImageError, load_grey
from explorer.description.launch import Setting
from explorer.engine.header.catalog import find_variant
from explorer.engine.launch.memory import available_host_bytes, check_memory
from explorer.engine.launch.plan import describe, plan
from explorer.engine.records import Refusal, RunRequest
from explorer.gui.state import AppState
from explorer.session import SessionError, load_session
from tests.conftest import TEST_KERNELS
from tests.robustness.helpers import KERNELS, cli

pytestmark = pytest.mark.usefixtures("fast_cli")

HEADER = """/*---
name = "Copy"
family = "transpose"
kernel = "copy"
args = ["IN", "OUT", "WIDTH", "HEIGHT"]
global = [{global_}]
local = ["1", "1"]
{extra}
---*/
__kernel void copy(const __global float* in, __global float* out, int w, int h)
{{
    int x = get_global_id(0), y = get_global_id(1);
    if (x < w && y < h) out[x * h + y] = in[y * w + x];
}}
"""


def kernel_file(tmp_path, global_='"WIDTH", "HEIGHT"', extra="", name="copy.cl"):
    path = tmp_path / name
    path.write_text(HEADER.format(global_=global_, extra=extra), encoding="utf-8")
    return path


# 2 ---------------------------------------------------------------------------------------------
def test_2_a_size_beyond_memory_is_refused_before_anything_is_allocated(device):
    """A size whose one matrix alone is larger than the device's memory and the host's
    (20000 fits an 80 GB GPU on a host of 128 GB, and runs for minutes there)."""
    largest = max(device.global_mem_bytes, available_host_bytes())
    size = math.isqrt(largest // 4) + 1024
    started = time.monotonic()
    outcome = cli("run", "--family", "matmul", "--variant", "naive", "--size", str(size))
    assert outcome.code == 3, outcome
    assert "does not fit" in outcome.out and "Use smaller sizes, e.g. M=" in outcome.out
    assert time.monotonic() - started < 20


def test_2_the_memory_check_names_the_bytes_and_suggests_sizes_that_fit(device):
    naive = find_variant("matmul", "naive")

    def described(sizes: dict[str, int]):
        return describe(naive, Setting(sizes, {}, (16, 16)))

    refusal = check_memory(described, {"M": 4096, "N": 4096, "K": 4096}, device, 2**30)
    assert isinstance(refusal, Refusal)
    assert "host memory" in refusal.reason and "GiB" in refusal.reason
    suggested = dict(
        p.split("=")
        for p in refusal.fix.removeprefix("Use smaller sizes, e.g. ").rstrip(".").split(", ")
    )
    smaller = {k: int(v) for k, v in suggested.items()}
    assert check_memory(described, smaller, device, 2**30) is None


def test_2_bench_refuses_a_numpy_baseline_that_cannot_fit(device):
    outcome = cli(
        "bench",
        "--family",
        "matmul",
        "--variants",
        "naive",
        "--sizes",
        "30000",
        "--json",
        "--repeat",
        "1",
    )
    assert outcome.code in (0, 3), outcome
    assert "Traceback" not in outcome.err and "MemoryError" not in outcome.err


# 3 ---------------------------------------------------------------------------------------------
def test_3_the_local_size_fix_search_is_quick_for_any_value(device):
    variant = find_variant("matvec", "nvidia-coalesced3")
    started = time.monotonic()
    outcome = plan(variant, {"WIDTH": 256, "HEIGHT": 256}, (2_000_001,), {}, device)
    assert time.monotonic() - started < 1.0
    assert isinstance(outcome, Refusal)


def test_3_a_huge_local_size_is_refused_not_timed_out(device):
    outcome = cli(
        "run", "--family", "matmul", "--variant", "naive", "--size", "64", "--local", "100000000x16"
    )
    assert outcome.code == 3, outcome
    assert "REFUSED" in outcome.out and "TIMEOUT" not in outcome.out


# 4 ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "expression",
    ["WIDTH ** WIDTH ** WIDTH", "1 << WIDTH ** 3", "-" * 5000 + "1", "+".join(["1"] * 3000)],
)
def test_4_header_expressions_evaluate_under_limits(expression):
    started = time.monotonic()
    with pytest.raises(ExpressionError):
        evaluate(expression, {"WIDTH": 4096})
    assert time.monotonic() - started < 1.0


def test_4_a_runaway_header_expression_is_a_message_naming_the_key(tmp_path, device):
    path = kernel_file(tmp_path, global_='"WIDTH ** WIDTH ** WIDTH", "HEIGHT"')
    outcome = cli("run", "--kernel-file", str(path), "--size", "64")
    assert outcome.code == 3, outcome
    assert "global size" in outcome.out and "2**64" in outcome.out
    assert "TIMEOUT" not in outcome.out


# 5 ---------------------------------------------------------------------------------------------
def test_5_a_kernel_writing_past_its_buffer_is_named_and_the_next_one_is_fine(device):
    bad = cli("run", "--kernel-file", str(KERNELS / "write_past_end.cl"), "--size", "32")
    assert bad.code == 4, bad
    assert "write_past_end wrote past the end of its buffer OUT" in bad.out
    for _ in range(2):  # the innocent kernel after it is never blamed
        good = cli("run", "--family", "transpose", "--variant", "naive", "--size", "64")
        assert good.code == 0, good


# 6 ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1", "abc"])
def test_6_a_timeout_must_be_finite_and_positive(value):
    outcome = cli(
        "run", "--family", "transpose", "--variant", "naive", "--size", "16", "--timeout", value
    )
    assert outcome.code == 2 and "--timeout" in outcome.err


def test_6_a_session_run_refuses_a_bad_timeout(device, executor):
    from explorer.session import Session, session_to_request

    with pytest.raises(SessionError, match="positive number of seconds"):
        session_to_request(Session("transpose", "naive"), [device], timeout_s=float("nan"))
    request = RunRequest(
        find_variant("transpose", "naive"), {"WIDTH": 8, "HEIGHT": 8}, timeout_s=float("nan")
    )
    assert executor.run(request).status == "error"


# 9 ---------------------------------------------------------------------------------------------
def test_9_save_image_to_a_bad_path_is_a_message_and_exit_2(tmp_path):
    outcome = cli(
        "run",
        "--family",
        "transpose",
        "--variant",
        "naive",
        "--size",
        "16",
        "--save-image",
        str(tmp_path / "missing" / "out.png"),
    )
    assert outcome.code == 2
    assert "VERIFIED" not in outcome.out and "does not exist" in outcome.err


def test_9_a_header_with_about_5_is_a_message(tmp_path):
    outcome = cli(
        "run", "--kernel-file", str(kernel_file(tmp_path, extra="about = 5")), "--size", "16"
    )
    assert outcome.code == 2 and "[about] must be a table" in outcome.err


def test_9_a_non_utf8_kernel_is_a_message_on_the_command_line():
    outcome = cli("run", "--kernel-file", str(KERNELS / "latin1.cl"), "--size", "16")
    assert outcome.code == 2 and "not UTF-8" in outcome.err and "latin1.cl" in outcome.err


@pytest.mark.parametrize(
    "text, says",
    [
        ("[" * 100000 + "]" * 100000, "nested too deeply"),
        ('{"format": "kernel-explorer-session", "version": ' + "9" * 5000 + "}", "digits"),
    ],
)
def test_9_hostile_session_json_is_a_message(tmp_path, text, says):
    path = tmp_path / "s.kexp.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SessionError, match=says):
        load_session(path)
    outcome = cli("run", "--session", str(path))
    assert outcome.code == 2 and str(path) in outcome.err


def test_9_a_session_naming_a_non_utf8_kernel_is_a_message(tmp_path):
    path = tmp_path / "s.kexp.json"
    (tmp_path / "k.cl").write_bytes((KERNELS / "latin1.cl").read_bytes())
    session = {
        "format": "kernel-explorer-session",
        "version": 1,
        "family": "transpose",
        "kernel_path": "k.cl",
    }
    path.write_text(json.dumps(session), encoding="utf-8")
    with pytest.raises(SessionError, match="not UTF-8"):
        load_session(path)


# 10 --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("data", [b"P5\n32", b"P5\n# c\n", b"P2\n4 4\n255\n1 2", b""])
def test_10_a_truncated_image_is_a_message_naming_the_file(tmp_path, data):
    path = tmp_path / "bad.pgm"
    path.write_bytes(data)
    started = time.monotonic()
    with pytest.raises(ImageError, match=r"bad\.pgm"):
        load_grey(path)
    assert time.monotonic() - started < 5


def test_10_nan_pixels_are_refused_not_blamed_on_the_kernel(tmp_path):
    image = np.ones((8, 8))
    image[2, 3] = np.nan
    np.save(tmp_path / "nan.npy", image)
    outcome = cli(
        "run",
        "--family",
        "stencil",
        "--variant",
        "naive",
        "--size",
        "16",
        "--input",
        "image",
        "--image",
        str(tmp_path / "nan.npy"),
    )
    assert outcome.code == 2, outcome
    assert "WRONG" not in outcome.out and "NaN" in outcome.out and "nan.npy" in outcome.out


# 12 --------------------------------------------------------------------------------------------
def test_12_the_history_keeps_figures_not_arrays(executor, device):
    request = RunRequest(
        find_variant("transpose", "naive"),
        {"WIDTH": 64, "HEIGHT": 64},
        device_key=device.key,
        repeat=1,
    )
    result = executor.run(request)
    assert result.output is not None
    state = AppState()
    for _ in range(100):
        state.remember(result)
    assert all(r.output is None and r.inputs is None and r.reference is None for r in state.history)
    assert state.history[0].timing == result.timing and state.history[0].status == "verified"


# 13 --------------------------------------------------------------------------------------------
def test_13_a_session_running_a_kernel_from_elsewhere_prints_its_path(tmp_path, device):
    kernel = kernel_file(tmp_path)
    folder = tmp_path / "sessions"
    folder.mkdir()
    session = {
        "format": "kernel-explorer-session",
        "version": 1,
        "family": "transpose",
        "kernel_path": str(kernel),
        "sizes": {"WIDTH": 16, "HEIGHT": 16},
    }
    path = folder / "s.kexp.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    refused = cli("run", "--session", str(path))
    assert refused.code == 2 and "--allow-outside" in refused.err
    assert f"outside its folder: kernel file: {kernel}" in refused.err
    outcome = cli("run", "--session", str(path), "--allow-outside")
    assert outcome.code == 0, outcome
    assert f"outside its folder: kernel file: {kernel}" in outcome.err
    beside = tmp_path / "beside.kexp.json"
    beside.write_text(json.dumps({**session, "kernel_path": "copy.cl"}), encoding="utf-8")
    assert "outside" not in cli("run", "--session", str(beside)).err


def test_hang_kernel_still_times_out(device):
    outcome = cli(
        "run", "--kernel-file", str(TEST_KERNELS / "hang.cl"), "--size", "4", "--timeout", "1"
    )
    assert outcome.code == 4 and "timed out" in outcome.out


def test_5_a_counter_run_on_by_the_timed_launches_is_not_blamed_on_the_first(device):
    """A kernel that appends through a counter it keeps in memory stays inside its buffers on
    the first launch; the launches after it start from the counter the first one left and
    run past the end. The message says so, not that the kernel itself writes out of bounds,
    and its trace (one launch) is clean."""
    path = str(KERNELS / "append_counter.cl")
    ran = cli("run", "--kernel-file", path)
    assert ran.code == 4, ran
    assert "first launch stayed inside its buffers, but a launch after it wrote past" in ran.out
    assert "an atomic counter" in ran.out
    traced = cli("trace", "--kernel-file", path)
    assert "out-of-bounds" not in traced.out and "Findings: none" in traced.out, traced.out
