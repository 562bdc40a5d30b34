"""The command line says on standard error that a build is taking a while, never on standard
output, and a build longer than ``--timeout`` does not time the run out."""

from __future__ import annotations

import json

from tests.engine.slow_build import fresh_copy, slow_next_build
from tests.robustness.helpers import cli


def test_a_slow_build_is_said_on_stderr_and_the_json_line_stays_alone(executor, fast_cli, tmp_path):
    path = fresh_copy(tmp_path)
    executor.call(slow_next_build, 2.5)
    ran = cli("run", "--kernel-file", str(path), "--width", "37", "--height", "21",
              "--timeout", "1", "--json")  # fmt: skip
    assert ran.code == 0, ran.err
    record = json.loads(ran.out)  # one JSON line and nothing else
    assert record["status"] == "verified"
    building = [line for line in ran.err.splitlines() if line.startswith("building ")]
    assert building == [
        "building transpose/naive-copy (WIDTH=37, HEIGHT=21) (first time; cached after) …"
    ], ran.err


def test_a_quick_build_says_nothing(fast_cli, tmp_path):
    ran = cli("run", "--kernel-file", str(fresh_copy(tmp_path)), "--width", "37",
              "--height", "21")  # fmt: skip
    assert ran.code == 0, ran.err
    assert "building" not in ran.err
    assert "verified" in ran.out
