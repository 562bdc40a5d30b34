"""A journal holds what the program wrote into it too: a line that looks like one of the
recorder's launches (it begins and ends as they do) but is not JSON, or nests deeper than
``capture.json`` may, is listed as lost, as any damaged line is, and never makes the
``capture.json`` that ``capture`` writes unreadable, however many launches it lists and
whether its lines were taken while the program ran or once it ended."""

from __future__ import annotations

import json
import sys
import time

import pytest

from explorer.capture import journal
from explorer.capture.folder import load_capture
from explorer.documents import MAX_DEPTH
from explorer.paths import UserFileError
from tests.capture.conftest import PROGRAMS
from tests.capture.test_early_journal import _assembled, _launch, _write_in_pieces
from tests.robustness.helpers import cli

PROGRAM = json.dumps(
    {"type": "program", "index": 0, "source": None, "options": [], "cwd": "/", "include": []}
)
NOT_JSON = '{"type": "launch", "kernel": "k", "number": 0, oops}'
TOO_DEEP = '{"type": "launch", "kernel": "k", "deep": ' + "[" * 31 + "]" * 31 + "}"


def _journal(launches: int) -> list[str]:
    lines = [PROGRAM, *(_launch(number) for number in range(1, launches + 1))]
    lines[3:3] = [NOT_JSON, TOO_DEEP]
    return lines


@pytest.mark.parametrize("launches", [20, 1200])
@pytest.mark.parametrize("early", [False, True])
def test_a_line_like_a_launch_that_is_not_one_is_listed_as_lost(tmp_path, launches, early):
    text = "\n".join(_journal(launches)) + "\n"
    taker = journal.EarlyJournal(tmp_path) if early else None
    _write_in_pieces(tmp_path / "journal.jsonl", text.encode(), 3)
    made = _assembled(tmp_path, taker)  # capture.json as capture writes it
    if taker is not None:
        assert taker.size > 0
        assert made == _assembled(tmp_path, None)
    document = json.loads(made)
    assert [launch["number"] for launch in document["launches"]] == list(range(1, launches + 1))
    assert document["lost"] == [
        "journal.jsonl line 4 is not valid JSON (line 1: Expecting property name enclosed in "
        "double quotes)",
        f"journal.jsonl line 5 is nested deeper than {MAX_DEPTH - 2} levels",
    ]
    (tmp_path / "journal.jsonl").unlink()
    (tmp_path / "capture.json").write_bytes(made)
    assert len(load_capture(tmp_path).launches) == launches


def test_a_launch_line_whose_argument_names_a_kernel_counts_its_own_kernel(tmp_path):
    lines = [PROGRAM, *(_launch(number) for number in range(1, 1201))]
    tricky = json.loads(_launch(1201, "q"))
    tricky["args"][0] = {"kernel": "k", **tricky["args"][0]}
    # Its argument's "kernel" comes before its own.
    lines.insert(1, json.dumps({"type": "launch", "args": tricky.pop("args"), **tricky}))
    (tmp_path / "journal.jsonl").write_text("\n".join(lines) + "\n")
    document = json.loads(_assembled(tmp_path, None))
    first = document["launches"][0]
    assert (first["kernel"], first["occurrence"]) == ("q", 1)
    assert document["launches"][1]["occurrence"] == 1  # k's first


def test_a_program_that_writes_into_its_journal_leaves_a_capture_that_reads(
    on_device, tmp_path, capfd
):
    program = PROGRAMS / "writes_journal.py"
    outcome = cli(
        "capture", str(tmp_path), "--", sys.executable, str(program), str(tmp_path), "1100"
    )
    assert outcome.code == 0
    assert capfd.readouterr().out == "sum 17600\n"
    capture = load_capture(tmp_path)
    assert [launch.number for launch in capture.launches] == list(range(1, 1101))
    assert all(launch.data for launch in capture.launches)
    document = json.loads((tmp_path / "capture.json").read_text())
    assert len(document["lost"]) == 2 and "is not valid JSON" in document["lost"][0]


@pytest.mark.parametrize("early", [False, True])
def test_a_journal_of_more_lines_than_the_recorder_writes_is_refused_before_parsing(
    tmp_path, early
):
    """64 MiB of ``{}`` lines (22 million) took a minute and gigabytes to parse: refused at
    once, as a journal larger than a capture's is."""
    limit = journal.LINES_LIMIT
    lines = limit + 1
    taker = journal.EarlyJournal(tmp_path) if early else None
    (tmp_path / "journal.jsonl").write_bytes(b"{}\n" * lines)
    if taker is not None:
        time.sleep(10 * journal.EarlyJournal.PERIOD)
    with pytest.raises(UserFileError, match=f"holds more than {limit} lines"):
        journal.assemble(tmp_path, ("p",), 0, write=False, raw=True, early=taker)
    if taker is not None:
        assert taker.lines <= limit


def test_a_program_that_floods_its_journal_with_lines_runs_as_it_would(on_device, tmp_path, capfd):
    program = str(PROGRAMS / "journal_games.py")
    outcome = cli("capture", str(tmp_path), "--", sys.executable, program, "flood", str(tmp_path),
                  "200")  # fmt: skip
    assert outcome.code == 0
    assert capfd.readouterr().out == "sum 3200\n"
    assert f"holds more than {journal.LINES_LIMIT} lines" in outcome.err
    assert (tmp_path / "journal.jsonl").exists() and not (tmp_path / "capture.json").exists()


def test_a_capture_whose_journal_thread_cannot_start_reads_the_journal_whole(
    on_device, tmp_path, capfd, monkeypatch
):
    """A process at its limit of threads: the journal is read once the program ends."""

    def refused(folder):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(journal, "EarlyJournal", refused)
    program = str(PROGRAMS / "many.py")
    outcome = cli("capture", str(tmp_path), "--", sys.executable, program, "20")
    assert (outcome.code, capfd.readouterr().out) == (0, "sum 320\n")
    assert len(load_capture(tmp_path).launches) == 20
