"""The executor started before a command's imports: only for a command whose work runs on
this machine, and adopted by the command's first executor rather than started twice."""

from __future__ import annotations

import pytest

from explorer.engine import early
from explorer.engine.executor import Executor


@pytest.mark.parametrize(
    "argv",
    [
        ["variants"],
        ["run", "--help"],
        ["trace", "-h"],
        ["run", "--host", "me@gpu"],
        ["trace", "--host=me@gpu"],
        ["run", "--ho", "me@gpu"],
        ["run", "--exec=ssh gpu python3 -m explorer executor-serve"],
        ["check", "--executor-command", "ssh gpu python3 -m explorer executor-serve"],
    ],
)
def test_no_local_executor_where_none_will_work(argv):
    early.start_for(argv)
    assert early.take() is None


def test_the_first_executor_adopts_the_early_one():
    early.start_for(["run"])
    process = early._started[0] if early._started else None
    assert process is not None
    with Executor() as executor:
        assert executor.devices() is not None
        assert executor._process is process
        assert early.take() is None  # adopted once
    assert not process.is_alive()
