import pytest

from tests.robustness.helpers import shared_executor


@pytest.fixture
def fast_cli(monkeypatch, executor):
    """``explorer.cli.main`` runs on the session's executor process."""
    with shared_executor(monkeypatch, executor):
        yield
