"""``capture.json`` made with the journal's lines taken while the program runs is the one made
from the journal read whole once it ends, byte for byte, for programs that play with their
journal: killed by SIGKILL (a last line cut short), the journal emptied halfway (its lines
taken before are not the journal's any more), a forked child appending lines of its own
between the recorder's."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from explorer.capture import journal
from explorer.capture.folder import load_capture
from tests.capture.conftest import PROGRAMS
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")


@pytest.mark.parametrize("mode", ["kill", "truncate", "fork"])
def test_capture_json_is_the_whole_journal_s(on_device, tmp_path, monkeypatch, capfd, mode):
    folder, saved = tmp_path / "capture", tmp_path / "saved"
    taken = []
    assemble, write_capture = journal.assemble, journal.write_capture

    def assembled(*args, early=None, **kwargs):
        document = assemble(*args, early=early, **kwargs)
        taken.append(early.size if early is not None else 0)
        return document

    def written(where, document):  # the journal as the program left it, kept to read again
        shutil.copytree(where, saved)
        write_capture(where, document)

    monkeypatch.setattr(journal, "assemble", assembled)
    monkeypatch.setattr(journal, "write_capture", written)
    program = str(PROGRAMS / "journal_games.py")
    outcome = cli("capture", str(folder), "--", sys.executable, program, mode, str(folder), "1500")
    out = capfd.readouterr().out
    if mode == "kill":
        assert outcome.code == 128 + 9 and out == ""
    else:
        assert outcome.code == 0 and out == "sum 24000\n"
    assert taken and taken[0] > 0  # lines were taken while it ran
    document = json.loads((folder / "capture.json").read_text())
    command = tuple(document["command"])
    whole = assemble(saved, command, document["exit_code"], write=False, raw=True)
    write_capture(saved, whole)
    assert (folder / "capture.json").read_bytes() == (saved / "capture.json").read_bytes()
    if mode == "truncate":  # its lines after lack the program they name: refused as such
        assert 0 < len(document["launches"]) < 1500 and not document["programs"]
        return
    numbers = [launch.number for launch in load_capture(folder).launches]
    if mode == "kill":  # those of the last turns at most are lost
        assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 1500 - 64
    else:  # a line of the recorder's written between the child's two writes is lost
        assert len(numbers) >= 1500 - 50 and numbers == sorted(numbers)
