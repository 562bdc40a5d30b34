"""The journal is read as any document from outside is, whichever way a line is parsed: a line
nested too deep, a damaged line and a line cut short are each listed under ``lost`` with the
message the documents' reader gives, and the rest are read."""

from __future__ import annotations

import json

import pytest

from explorer.capture import journal
from explorer.capture.folder import load_capture
from explorer.documents import MAX_DEPTH, DocumentError, parse_json


def test_a_line_read_without_the_depth_walk_cannot_nest_deeper_than_a_document():
    assert journal.SHALLOW <= MAX_DEPTH


def _launch(number: int, args: int = 1) -> str:
    return json.dumps({"type": "launch", "number": number, "kernel": "k", "program": 0,
                       "global": [4], "local": None, "data": False, "why": "past --launches 0",
                       "args": [{"index": i, "kind": "scalar", "dtype": "int32", "hex": "01000000",
                                 "value": [[1]]} for i in range(args)]})  # fmt: skip


@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH])
def test_lines_are_read_as_the_documents_reader_reads_them(tmp_path, depth):
    deep = "[" * depth + "]" * depth
    lines = [
        json.dumps({"type": "program", "index": 0, "source": None, "options": []}),
        _launch(1),
        _launch(2, args=20),  # more brackets than a line read without the depth walk
        json.dumps({"type": "lost", "why": json.loads(deep)}),
        '{"type": "launch", "number": 3',  # damaged, then more lines
        _launch(3),
        _launch(4)[:30],  # cut short by a program killed while writing it
    ]
    (tmp_path / "journal.jsonl").write_text("\n".join(lines))
    entries, lost = journal.journal_entries(tmp_path)
    expected_entries, expected_lost = [], []
    for number, line in enumerate(lines, 1):
        try:
            expected_entries.append((number, parse_json(line, f"journal.jsonl line {number}")))
        except DocumentError as exc:
            expected_lost.append(str(exc) if number < len(lines) else
                                 f"journal.jsonl line {number} was cut short")  # fmt: skip
    assert (entries, lost) == (expected_entries, expected_lost)
    assert [n for n, _ in entries] == ([1, 2, 3, 4, 6] if depth < MAX_DEPTH else [1, 2, 3, 6])
    capture = load_capture(tmp_path)  # the folder read from its journal
    assert [launch.number for launch in capture.launches] == [1, 2, 3]
