"""--launches and --max-mb: a launch past the bound is listed without its buffers, says so,
and replaying it says why it cannot run."""

from __future__ import annotations

import os
import sys

import pytest

from explorer.capture.bootstrap import PACK
from explorer.capture.folder import load_capture
from tests.capture.conftest import PROGRAMS, run_capture
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")


def test_launches_past_the_count_are_listed_without_their_buffers(on_device, tmp_path):
    outcome = run_capture(tmp_path, "pipeline.py", "--launches", "2")
    assert outcome.code == 0
    capture = load_capture(tmp_path)
    assert [launch.data for launch in capture.launches] == [True, True] + [False] * 4
    assert capture.launches[2].why == "past --launches 2"
    assert "(without its buffers: past --launches 2)" in outcome.err
    assert all(a.before is None for a in capture.launches[5].args)
    assert cli("run", "--capture", str(tmp_path), "--launch", "2", "--repeat", "1").code == 0
    refused = cli("run", "--capture", str(tmp_path), "--launch", "relax#2")
    assert refused.code == 2
    assert "launch 3 (relax#2) cannot run: it was recorded without its buffers" in refused.err
    assert "past --launches 2" in refused.err


def test_a_launch_past_the_size_bound_is_listed_without_its_buffers(on_device, tmp_path):
    # 400-byte buffers: scale's (its input, its output before and after: 1,200 bytes) fit in
    # 1,500 bytes; the bound is reached a few relax launches later (equal contents are
    # written once).
    outcome = run_capture(tmp_path, "pipeline.py", "--max-mb", str(1500 / 2**20))
    assert outcome.code == 0
    capture = load_capture(tmp_path)
    kept = [launch.data for launch in capture.launches]
    assert kept[0] and not all(kept)
    # Every contents kept lies in the pack, a .npy image each (its header 128 bytes).
    assert os.listdir(tmp_path / "data") == ["small.pack"]
    stored = (tmp_path / PACK).stat().st_size - 128 * len(capture.packed)
    assert 0 < stored <= 1500
    first_without = capture.launches[kept.index(False)]
    assert "would pass --max-mb (1.5 KiB" in first_without.why
    refused = cli("trace", "--capture", str(tmp_path), "--launch", str(first_without.number))
    assert refused.code == 2 and "would pass --max-mb" in refused.err


def test_a_launch_with_an_svm_argument_is_not_sent_to_the_bounds(captured, tmp_path):
    # A launch listed without its buffers for what it passes (an SVM pointer): no bound can
    # help, so the refusal does not tell the person to raise one.
    import json
    import shutil

    folder = tmp_path / "svm"
    shutil.copytree(captured("pipeline.py").folder, folder)
    record = json.loads((folder / "capture.json").read_text())
    launch = record["launches"][1]
    launch["data"] = False
    launch["why"] = "argument 0 is a SVMAllocation, which is not recorded"
    for arg in launch["args"]:
        for key in ("before", "after", "changed"):
            arg.pop(key, None)
    (folder / "capture.json").write_text(json.dumps(record))
    refused = cli("run", "--capture", str(folder), "--launch", "2")
    assert refused.code == 2
    assert "(argument 0 is a SVMAllocation, which is not recorded)" in refused.err
    assert "--max-mb" not in refused.err and "--launches" not in refused.err


def test_a_long_capture_is_listed_in_summary(on_device, tmp_path, capfd):
    # 300 launches past --launches 5: the listing names the first 20 and the last 10, and
    # summarises the 270 between them.
    many = str(PROGRAMS / "many.py")
    outcome = cli("capture", str(tmp_path), "--launches", "5", "--", sys.executable, many, "300")
    assert outcome.code == 0 and capfd.readouterr().out == "sum 4800\n"
    lines = outcome.err.splitlines()
    assert lines[0] == f"capture: 300 launches recorded into {tmp_path}"
    assert len(lines) < 40 and len(outcome.err) < 4000
    assert lines[21] == "  ....  launches 21 to 290 (270): inc 270"
    assert lines[22] == "        270 of them without their buffers: past --launches 5"
    assert lines[23].split()[:2] == ["291", "inc#291"]
    assert lines[-2].split()[:2] == ["300", "inc#300"]
