"""The headers a program's build reads travel with its capture: pyopencl's own
(``pyopencl-complex.h``) and those of the folders the program built in, copied into
``programs/include`` when the program is built, so that every launch replays and traces
from the capture folder alone, reading nothing outside it."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from explorer.capture.folder import CaptureError, load_capture
from explorer.capture.includes import capture_outside
from explorer.capture.replay import launch_variant
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.capture.conftest import run_capture


def test_complex_kernels_replay_matching_and_trace_from_the_capture_alone(
    captured, executor, device, tmp_path
):
    original = captured("complex.py")
    # Moved elsewhere: nothing of the machine it was made on is needed.
    folder = tmp_path / "moved"
    shutil.copytree(original.folder, folder)
    capture = load_capture(folder)
    assert capture_outside(capture) == ()  # nothing outside the folder is searched or read
    assert len(capture.launches) == 3 and all(launch.data for launch in capture.launches)
    for program in capture.programs:
        (copy,) = program.include
        assert (folder / copy / "pyopencl-complex.h").is_file()
    for launch in capture.launches:
        variant = launch_variant(capture, str(launch.number))  # no --allow-outside
        ran = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
        assert ran.status == "verified", ran.summary()
        assert ran.verdict.compared_with == "the original run"
    variant = launch_variant(capture, "1")
    traced = executor.trace(TraceRequest(RunRequest(variant, {}, device_key=device.key)))
    assert traced.analysis is not None, traced.result.summary()
    assert traced.result.status == "verified", traced.result.summary()


def test_the_program_s_own_headers_are_copied_as_its_build_found_them(captured):
    capture = captured("includes.py")
    program = capture.programs[0]
    folder = capture.folder
    assert [(folder / c).name for c in program.include] == ["0", "1"]
    assert (folder / program.include[0] / "weights.h").read_text().count("WEIGHT")
    assert (folder / program.include[1] / "offset.h").read_text().count("offset")


@pytest.mark.usefixtures("fast_cli")
def test_capturing_again_into_the_folder_replaces_the_copied_headers(on_device, tmp_path):
    for _ in range(2):
        outcome = run_capture(tmp_path, "includes.py")
        assert outcome.code == 0, outcome.err
    program = load_capture(tmp_path).programs[0]
    assert (tmp_path / program.include[1] / "offset.h").is_file()
    assert sorted(os.listdir(tmp_path / "programs" / "include")) == ["0"]


@pytest.mark.usefixtures("fast_cli")
def test_a_link_among_the_copied_headers_is_refused_with_nothing_changed(on_device, tmp_path):
    assert run_capture(tmp_path, "includes.py").code == 0
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    elsewhere.mkdir()
    (tmp_path / "programs" / "include" / "0" / "2").symlink_to(elsewhere)
    refused = run_capture(tmp_path, "includes.py")
    assert refused.code == 2 and "is a link where capture writes its own folder" in refused.err
    assert (tmp_path / "capture.json").is_file() and (tmp_path / "programs" / "0.cl").is_file()


@pytest.mark.parametrize("copy", ["../elsewhere", "/usr/include", 5])
def test_a_copy_of_headers_named_outside_the_capture_is_refused(captured, tmp_path, copy):
    folder = tmp_path / "capture"
    shutil.copytree(captured("includes.py").folder, folder)
    document = json.loads((folder / "capture.json").read_text())
    document["programs"][0]["include"] = [{"copy": copy, "from": "/somewhere"}]
    (folder / "capture.json").write_text(json.dumps(document))
    with pytest.raises(CaptureError, match=r"programs\[0\]\.include\[0\]\.copy"):
        load_capture(folder)
