"""A captured program whose kernel includes files of its own (from the folder it ran in and
through ``-I``): the recorder copies them into the capture (tests/capture/test_headers.py);
a capture made before it did names those folders, which lie outside the capture folder, so
a replay searches them only when the person agrees (``--allow-outside``, the window's
question); then its launches replay and trace in memory, the includes found where the
program found them. Without it, the replay says what it did not search, and an ``#include``
of a file outside is refused."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from explorer.capture.folder import CaptureError, load_capture
from explorer.capture.includes import capture_outside
from explorer.capture.replay import launch_variant, replay
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.capture.conftest import without_headers
from tests.robustness.helpers import cli


def test_with_agreement_a_launch_whose_kernel_includes_files_replays_and_traces(
    captured, executor, device
):
    capture = captured("includes.py")
    program = capture.programs[0]
    assert program.cwd.endswith("include") and program.options == ("-I", "more", "-I", ".")
    variant = launch_variant(capture, "weigh", allow_outside=True)
    ran = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
    assert ran.status == "verified", ran.summary()
    assert ran.verdict.compared_with == "the original run"
    traced = executor.trace(TraceRequest(RunRequest(variant, {}, device_key=device.key)))
    assert traced.analysis is not None, traced.result.summary()
    assert {s.line for s in traced.analysis.sites} == {6}  # the program's own line


def _older(captured, tmp_path):
    return without_headers(captured("includes.py"), tmp_path / "older")


def test_without_agreement_the_includes_outside_are_refused_naming_the_folders(captured, tmp_path):
    capture = load_capture(_older(captured, tmp_path))
    folder = capture.programs[0].cwd
    with pytest.raises(CaptureError) as refused:
        replay(capture, "weigh")
    message = str(refused.value)
    assert message.startswith("programs/0.cl line 1 includes weights.h, which is not in the")
    assert f"the folder the program was built in, {folder}; its -I more, {folder}/more)" in message
    assert "--allow-outside" in message
    assert capture_outside(capture)[0] == f"the folder the program was built in, {folder}"


@pytest.mark.usefixtures("fast_cli")
def test_the_command_line_says_what_it_did_not_use_and_the_flag_that_allows_it(captured, tmp_path):
    folder = str(_older(captured, tmp_path))
    refused = cli("run", "--capture", folder, "--launch", "weigh", "--repeat", "1")
    assert refused.code == 2, refused.out + refused.err
    assert "includes weights.h, which is not in the capture folder" in refused.err
    assert "give --allow-outside" in refused.err
    allowed = cli(
        "run", "--capture", folder, "--launch", "weigh", "--repeat", "1",
        "--allow-outside",
    )  # fmt: skip
    assert allowed.code == 0, allowed.out + allowed.err
    assert "matches the original run" in allowed.out and "note:" not in allowed.err


def _with_include(captured, tmp_path, line: str):
    """The pipeline's capture, its program's first line replaced by ``line``."""
    folder = tmp_path / "capture"
    shutil.copytree(captured("pipeline.py").folder, folder)
    source = folder / "programs" / "0.cl"
    source.write_text(line + "\n" + source.read_text())
    return folder


@pytest.mark.parametrize(
    "line",
    [
        '#include "{secret}"',
        '#include "../../{name}"',
        "#  include <{secret}>",
        '%:include "{secret}"',
        '#inc\\\nlude "{secret}"',
        '#/* a comment */include "{secret}"',
        '#define WHERE "{secret}"\n#include WHERE',
        '#include "programs/../../{name}"',
    ],
)
@pytest.mark.usefixtures("fast_cli")
def test_an_include_of_a_file_outside_the_capture_is_refused_unread(captured, tmp_path, line):
    secret = tmp_path / "secret.h"
    secret.write_text("#error the secret was read\n")
    os.utime(secret, (1_000_000, 2_000_000))  # read: its access time would move on
    folder = _with_include(captured, tmp_path, line.format(secret=secret, name=secret.name))
    capture = load_capture(folder)
    with pytest.raises(CaptureError, match=r"programs/0\.cl line \d includes") as refused:
        replay(capture, "relax#3")
    assert "--allow-outside" in str(refused.value)
    saved = cli("capture-save", str(folder), "--launch", "relax#3", "--out", str(tmp_path / "k"))
    assert saved.code == 2 and "programs/0.cl line" in saved.err
    assert not (tmp_path / "k").exists() or not os.listdir(tmp_path / "k")
    assert os.stat(secret).st_atime == 1_000_000


def test_a_header_inside_the_capture_that_links_out_is_refused(captured, tmp_path):
    folder = _with_include(captured, tmp_path, '#include "mine.h"')
    secret = tmp_path / "secret.h"
    secret.write_text("int secret;\n")
    (folder / "programs" / "mine.h").symlink_to(secret)
    with pytest.raises(CaptureError, match=r"includes mine\.h, a link out of the capture folder"):
        replay(load_capture(folder), "relax#3")


@pytest.mark.usefixtures("fast_cli")
def test_a_header_inside_the_capture_is_used_and_the_folders_outside_are_named(captured, tmp_path):
    folder = _with_include(captured, tmp_path, '#include "mine.h"')
    (folder / "programs" / "mine.h").write_text("#define UNUSED_BY_RELAX 1\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    document = json.loads((folder / "capture.json").read_text())
    document["programs"][0]["options"] = ["-I", str(elsewhere)]
    (folder / "capture.json").write_text(json.dumps(document))
    (note,) = replay(load_capture(folder), "relax#3").notes
    assert note.startswith("not searched for #include files: ")
    assert f"its -I {elsewhere}, {elsewhere}" in note and "--allow-outside" in note
    ran = cli("run", "--capture", str(folder), "--launch", "relax#3", "--repeat", "1")
    assert ran.code == 0 and "matches the original run" in ran.out, ran.out + ran.err
    assert f"note: {note}" in ran.err
