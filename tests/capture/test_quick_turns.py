"""A turn of launches finished in a few steps hands its lines to the journal together; where
the pack lost what it held meanwhile (a full disk, met by a write of the program's thread),
the lines that name those contents are made again without them, whether the turn's lines fit
below the journal's bound at once or are taken one by one near it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from explorer.capture.bootstrap import PACK
from explorer.capture.folder import load_capture
from tests.capture.conftest import PROGRAMS

ROOT = Path(__file__).resolve().parents[2]

# many.py's 40 launches recorded in this process: at the first turn of two or more lines, the
# pack is lost beside it (as a failed write of another thread's leaves it) and, with ``near``,
# the journal is so near its bound that all of the turn's lines but the last fit.
LOST_BESIDE = """
    import errno, os, runpy, sys
    import explorer
    from explorer.capture.bootstrap import recorder

    original = recorder.Recorder._journal_lines
    fired = []
    near = sys.argv[1] == "near"

    def journal_lines(self, out):
        if len(out) >= 2 and not fired:
            fired.append(len(out))
            with self._journal_lock:  # as a write of the pack that failed leaves it
                self._lost_pack(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
            if near:
                self.journaled = recorder.JOURNAL_LIMIT - sum(len(line[0]) for line in out[:-1])
        return original(self, out)

    recorder.Recorder._journal_lines = journal_lines
    program = sys.argv[2]
    sys.argv = [program, "40"]
    with explorer.capture(OUT):
        runpy.run_path(program, run_name="__main__")
    assert fired, "no turn of two launches"
"""


@pytest.mark.parametrize("near", ["near", "below"])
def test_lines_of_a_turn_name_no_contents_the_pack_lost(on_device, tmp_path, near):
    out = tmp_path / "out"
    code = textwrap.dedent(LOST_BESIDE).replace("OUT", repr(str(out)))
    done = subprocess.run(
        [sys.executable, "-c", code, near, str(PROGRAMS / "many.py")],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "sum 640\n"
    document = json.loads((out / "capture.json").read_text())
    pack = (out / PACK).stat().st_size if (out / PACK).exists() else 0
    kept = [launch for launch in document["launches"] if launch["data"]]
    for launch in kept:  # what a launch listed with its buffers names is in the pack
        for start, length in (launch.get("packed") or {}).values():
            assert start + length <= pack, launch["number"]
    assert len(kept) < 10  # the launches after the pack was lost are listed without buffers
    assert "No space left on device" in document["lost"][0]
    capture = load_capture(out)
    for launch in capture.launches:
        if launch.data:
            for arg in launch.args:
                if arg.before:
                    capture.path(arg.before).read_bytes()
