"""bench-ui --first-frame: the Trace action pressed in a real window, timed to its first frame."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.benchmarks.ui import PARTS


@pytest.mark.long
def test_first_frame_reports_every_press_and_its_parts(qapp):
    from tests.test_cli import cli

    out = cli("bench-ui", "--first-frame", "--size", "64", "--presses", "3", "--json")
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout.strip().splitlines()[-1])
    assert record["size"] == 64 and record["presses"] == 3 and record["device"]
    assert record["groups_traced"] == 16 and record["records"] > 0  # 4×4 groups of 16×16
    for key in ("first_parts", "median_parts"):
        assert list(record[key]) == list(PARTS)
    first = record["first_parts"]
    assert first["record_ms"] > 0 and first["analyse_ms"] > 0 and first["paint_ms"] > 0
    assert first["transfer_ms"] >= 0 and first["prepare_ms"] > 0
    assert abs(sum(first.values()) - record["first_ms"]) < 1.0  # the parts add up
    assert record["median_ms"] > 0


def test_first_frame_needs_two_presses():
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-m", "explorer", "bench-ui", "--first-frame", "--presses", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
    )
    assert out.returncode == 2 and "--presses" in out.stderr
