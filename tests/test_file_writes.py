"""What the command line writes: a file already there is replaced only with --force, a symbolic
link there is never written through, and a refused or failed write leaves nothing behind."""

from __future__ import annotations

import os

import pytest

from explorer.file_writes import PNG, WriteFailed, output_problem, write_output
from tests.robustness.helpers import cli

PICTURE = PNG + b"\0" * 32


def _png(path: str) -> None:
    with open(path, "wb") as handle:
        handle.write(PICTURE)


def test_a_new_file_is_written_whole_and_nothing_else_is_left(tmp_path):
    target = tmp_path / "shot.png"
    write_output(str(target), _png, PNG, force=False)
    assert target.read_bytes() == PICTURE
    assert [p.name for p in tmp_path.iterdir()] == ["shot.png"]


def test_a_file_already_there_is_kept_unless_forced(tmp_path):
    target = tmp_path / "mine.png"
    target.write_bytes(b"the person's own file")
    with pytest.raises(WriteFailed, match=r"mine\.png: the file exists; add --force"):
        write_output(str(target), _png, PNG, force=False)
    assert target.read_bytes() == b"the person's own file"
    assert [p.name for p in tmp_path.iterdir()] == ["mine.png"]
    write_output(str(target), _png, PNG, force=True)
    assert target.read_bytes() == PICTURE


def test_a_symbolic_link_is_never_written_through(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"keep me")
    link = tmp_path / "out" / "shot.png"
    link.parent.mkdir()
    link.symlink_to(outside)
    with pytest.raises(WriteFailed, match="symbolic link"):
        write_output(str(link), _png, PNG, force=False)
    write_output(str(link), _png, PNG, force=True)  # the link itself is replaced
    assert not link.is_symlink() and link.read_bytes() == PICTURE
    assert outside.read_bytes() == b"keep me"


def test_a_file_that_appears_while_writing_is_kept(tmp_path):
    target = tmp_path / "race.png"

    def writer(path: str) -> None:
        _png(path)
        target.write_bytes(b"written by someone else meanwhile")

    with pytest.raises(WriteFailed, match="appeared while writing"):
        write_output(str(target), writer, PNG, force=False)
    assert target.read_bytes() == b"written by someone else meanwhile"
    assert [p.name for p in tmp_path.iterdir()] == ["race.png"]


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda p: p.mkdir(), "is a folder"),
        (lambda p: os.mkfifo(p), "not a regular file"),
        (lambda p: None, None),
    ],
    ids=["folder", "fifo", "free"],
)
def test_special_files_are_refused_even_with_force(tmp_path, make, words):
    target = tmp_path / "x.png"
    make(target)
    problem = output_problem(str(target), force=True)
    assert problem is None if words is None else words in problem


def test_a_dialogs_path_is_written_in_place_as_the_dialog_asked(tmp_path):
    target = tmp_path / "chosen.png"
    target.write_bytes(b"old")
    write_output(str(target), _png, PNG)  # force=None: the Save dialog asked
    assert target.read_bytes() == PICTURE


@pytest.mark.usefixtures("fast_cli")
def test_run_save_image_refuses_to_replace_a_file_before_running(tmp_path):
    target = tmp_path / "result.png"
    target.write_bytes(b"the person's own picture")
    selection = ["run", "--family", "transpose", "--variant", "naive", "--size", "16"]
    refused = cli(*selection, "--save-image", str(target))
    assert refused.code == 2 and "VERIFIED" not in refused.out
    assert f"--save-image {target}: the file exists; add --force" in refused.err
    assert target.read_bytes() == b"the person's own picture"
    done = cli(*selection, "--save-image", str(target), "--force")
    assert done.code == 0, done.err
    assert target.read_bytes().startswith(PNG)


def test_the_window_refuses_to_replace_a_screenshot_or_a_session_before_any_work(tmp_path):
    from explorer.app import main

    for option in ("--screenshot", "--save-session"):
        target = tmp_path / f"taken{option}"
        target.write_bytes(b"mine")
        assert main([option, str(target), "--family", "matmul"]) == 2
        assert target.read_bytes() == b"mine"
