import pytest

from tests.robustness.helpers import shared_executor


@pytest.fixture
def fast_cli(monkeypatch, executor):
    """``explorer.cli.main`` runs on the session's executor process."""
    with shared_executor(monkeypatch, executor):
        yield


# The window fixtures of the GUI tests, for the window's cases.
from tests.gui.conftest import kept_executor, settings, window  # noqa: E402, F401
