"""``capture`` takes the journal's lines while the program writes them (``EarlyJournal``), so
that little is left to read once it ends: ``capture.json`` made so is the one made from the
journal read whole, byte for byte, however the writes fell (lines cut between two reads,
damaged lines, a line cut short at the end), and a journal changed after its lines were taken
is read whole again."""

from __future__ import annotations

import json
import time
from pathlib import Path

from explorer.capture import journal


def _launch(number: int, kernel: str = "k") -> str:
    return json.dumps({
        "type": "launch", "number": number, "kernel": kernel, "program": 0, "global": [16],
        "local": None, "device": "d", "platform": "p", "args": [
            {"index": 0, "name": "v", "kind": "buffer", "bytes": 64,
             "before": f"data/{number:05d}-0-v-before.npy",
             "after": f"data/{number:05d}-0-v-after.npy", "changed": True},
        ], "offset": None, "packed": {f"data/{number:05d}-0-v-after.npy": [number, 1]},
        "data": True,
    })  # fmt: skip


def _lines(launches: int) -> list[str]:
    lines = [
        json.dumps({"type": "start", "pid": 1, "python": "python"}),
        json.dumps(
            {
                "type": "program",
                "index": 0,
                "source": "programs/0.cl",
                "options": [],
                "cwd": "/",
                "include": [],
            }
        ),
    ]
    for number in range(1, launches + 1):
        if number == 40:
            lines.append('{"type": "launch", "number": 40')  # damaged, the journal goes on
        elif number == 41:
            lines.append(json.dumps({"type": "lost", "why": "launch 41: a full disk"}))
        elif number % 97 == 0:
            lines.append(_launch(number, "k2"))
        elif number == 500:
            lines.append(_launch(number, "k é"))  # a name read by parsing its line
        else:
            lines.append(_launch(number))
    lines.append(_launch(launches + 1)[:50])  # cut short by a program killed while writing it
    return lines


def _write_in_pieces(path: Path, data: bytes, pieces: int) -> None:
    """Append ``data`` to ``path`` in ``pieces`` writes, most of them ending inside a line,
    with pauses the reading thread takes lines in."""
    step = len(data) // pieces + 7
    with open(path, "ab", buffering=0) as handle:
        for start in range(0, len(data), step):
            handle.write(data[start : start + step])
            time.sleep(2 * journal.EarlyJournal.PERIOD)


def _capture_json(folder: Path, document: dict) -> bytes:
    journal.write_capture(folder, document)
    return (folder / "capture.json").read_bytes()


def _assembled(folder: Path, early: journal.EarlyJournal | None) -> bytes:
    document = journal.assemble(folder, ("python", "p.py"), 0, write=False, raw=True, early=early)
    saved = (folder / "journal.jsonl").read_bytes()
    try:
        return _capture_json(folder, document)
    finally:
        (folder / "journal.jsonl").write_bytes(saved)  # write_capture removes it


def test_capture_json_made_from_lines_taken_early_is_the_one_made_from_the_whole_journal(
    tmp_path,
):
    text = "\n".join(_lines(1500))
    early = journal.EarlyJournal(tmp_path)
    _write_in_pieces(tmp_path / "journal.jsonl", text.encode(), 9)
    taken = _assembled(tmp_path, early)
    assert early.size > len(text) // 2 and early.count > journal.INDENTED  # taken early
    whole = _assembled(tmp_path, None)
    assert taken == whole
    document = json.loads(whole)
    assert len(document["launches"]) == 1498 and document["version"] == 2
    damaged, cut, lost = document["lost"]
    assert damaged.startswith("journal.jsonl line 42")
    assert (cut, lost) == ("journal.jsonl line 1503 was cut short", "launch 41: a full disk")


def test_a_journal_changed_after_its_lines_were_taken_is_read_whole(tmp_path):
    lines = _lines(1200)
    early = journal.EarlyJournal(tmp_path)
    _write_in_pieces(tmp_path / "journal.jsonl", "\n".join(lines).encode(), 4)
    early.stop()
    assert early.size > 0
    lines[5] = lines[5].replace('"kernel": "k"', '"kernel": "q"')  # as long, another kernel
    (tmp_path / "journal.jsonl").write_text("\n".join(lines))
    taken = _assembled(tmp_path, early)
    assert taken == _assembled(tmp_path, None)
    assert json.loads(taken)["launches"][3]["kernel"] == "q"


def test_a_short_journal_taken_early_is_laid_out_as_without(tmp_path):
    early = journal.EarlyJournal(tmp_path)
    _write_in_pieces(tmp_path / "journal.jsonl", "\n".join(_lines(60)).encode() + b"\n", 3)
    taken = _assembled(tmp_path, early)
    assert early.size > 0
    assert taken == _assembled(tmp_path, None)
    assert b'\n   "kernel": "k",' in taken  # one field a line, as a short capture is laid out
