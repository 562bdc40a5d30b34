"""Shared fixtures: one executor process for the whole session, PoCL (or the default device)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The suite starts many Python processes (test workers, executors, command-line and window
# runs): they share the package's compiled bytecode instead of each compiling it again, also
# where the environment turns bytecode files off.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

TEST_KERNELS = Path(__file__).parent / "kernels"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``long`` first: started last, one of them would keep a worker busy alone
    while the other has finished."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture(scope="session")
def executor():
    from explorer.engine.executor import Executor

    with Executor() as ex:
        yield ex


@pytest.fixture(scope="session")
def device(executor):
    from explorer.engine.launch.devices import default_device

    devices = executor.devices()
    if not devices:
        pytest.fail("no OpenCL device: install pocl-binary-distribution")
    return default_device(devices)


@pytest.fixture(scope="session")
def on_pocl(device) -> bool:
    return "Portable Computing Language" in device.platform


@pytest.fixture
def fast_cli(monkeypatch, executor):
    """``explorer.cli.main`` runs on the session's executor process."""
    from tests.robustness.helpers import shared_executor

    with shared_executor(monkeypatch, executor):
        yield
