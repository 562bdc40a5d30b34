"""What the recorder leaves unread costs nothing of what a capture holds: a buffer's contents
before a launch are those the host last gave it, however it changed them (a copy, a fill, a
copy from another buffer, a map), and a ``const`` argument's contents after a launch are
those before it, unless another argument is the same buffer."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from tests.capture.conftest import PROGRAMS

pytestmark = pytest.mark.usefixtures("fast_cli")


def test_every_change_the_host_makes_between_launches_is_in_the_next_launch(captured):
    capture = captured("host_changes.py")
    step = np.arange(16, dtype=np.int32)
    expected = [0, 100, 5, 7, 9]
    assert [launch.kernel for launch in capture.launches] == ["add"] * 6
    for launch, start in zip(capture.launches, expected, strict=False):
        values, steps = launch.args[0], launch.args[1]
        assert launch.data, launch.why
        before = np.load(capture.path(values.before))
        assert before.tolist() == [start] * 16, f"launch {launch.number}"
        assert np.load(capture.path(values.after)).tolist() == (before + step).tolist()
        assert values.changed and not steps.changed
        assert np.load(capture.path(steps.before)).tolist() == step.tolist()
        assert steps.after == steps.before
    aliased = capture.launches[5]
    before = np.load(capture.path(aliased.args[1].before))
    assert before.tolist() == (9 + step).tolist()
    for arg in aliased.args:  # the const argument is the buffer the kernel writes
        assert np.load(capture.path(arg.after)).tolist() == (2 * before).tolist() and arg.changed


def test_the_program_prints_what_it_prints_alone(captured, on_device):
    capture = captured("host_changes.py")
    alone = subprocess.run([sys.executable, str(PROGRAMS / "host_changes.py")],
                           capture_output=True, text=True, env=dict(os.environ), check=True,
                           timeout=120)  # fmt: skip
    assert alone.stdout.split() == [str(2 * (9 + i)) for i in range(16)]
    last = capture.launches[-1].args[0]
    assert np.load(capture.path(last.after)).tolist() == [int(v) for v in alone.stdout.split()]
