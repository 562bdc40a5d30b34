"""The one reader of documents from outside: sizes, depth, fields and paths."""

from __future__ import annotations

import os

import pytest

from explorer.documents import DocumentError, Fields, inside, parse_json, read_json
from explorer.paths import UserFileError


def test_a_field_of_the_wrong_type_is_named_with_what_was_expected() -> None:
    entry = Fields({"number": "seven"}, "capture.json: launches[2]")
    with pytest.raises(
        DocumentError, match=r"launches\[2\]\.number: expected a whole number, found text 'seven'"
    ):
        entry.integer("number", minimum=1)


def test_a_missing_required_field_is_named() -> None:
    from explorer.documents import REQUIRED

    with pytest.raises(DocumentError, match=r"session\.json\.family: missing"):
        Fields({}, "session.json").text("family", REQUIRED)


def test_lists_of_sizes_are_checked_element_by_element() -> None:
    entry = Fields({"global": [64, -1]}, "capture.json: launches[0]")
    with pytest.raises(DocumentError, match=r"global\[1\]: expected a whole number of at least 1"):
        entry.integers("global", minimum=1)
    assert Fields({"global": [64, 8]}, "x").integers("global", minimum=1) == (64, 8)


def test_deep_nesting_is_refused_without_a_recursion_error() -> None:
    with pytest.raises(DocumentError, match="nested deeper than 32 levels"):
        parse_json("[" * 40 + "]" * 40, "capture.json")
    with pytest.raises(DocumentError, match="nested deeper"):
        parse_json("[" * 200_000 + "]" * 200_000, "capture.json")


def test_a_fifo_is_refused_without_waiting(tmp_path) -> None:
    fifo = tmp_path / "capture.json"
    os.mkfifo(fifo)
    with pytest.raises(UserFileError, match="named pipe"):
        read_json(fifo, "capture")


@pytest.mark.parametrize(
    "name", ["/etc/passwd", "../secret.cl", "a/../../secret.cl", "C:\\x.cl", "\\\\srv\\x"]
)
def test_paths_out_of_the_folder_are_refused(tmp_path, name) -> None:
    with pytest.raises(DocumentError, match=r"absolute path|climbs out"):
        inside(tmp_path, name, "capture.json: programs[0].source")


def test_a_symbolic_link_out_of_the_folder_is_refused(tmp_path) -> None:
    outside = tmp_path / "outside.cl"
    outside.write_text("secret")
    folder = tmp_path / "capture"
    (folder / "programs").mkdir(parents=True)
    (folder / "programs" / "p.cl").symlink_to(outside)
    (folder / "programs" / "q.cl").write_text("kernel void k() {}")
    with pytest.raises(DocumentError, match="symbolic link"):
        inside(folder, "programs/p.cl", "capture.json: programs[0].source")
    assert inside(folder, "programs/q.cl", "x").read_text() == "kernel void k() {}"
