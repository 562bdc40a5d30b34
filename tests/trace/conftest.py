"""Fixtures of the trace tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.trace.header_files import write_header_files


@pytest.fixture(scope="session")
def header_files(tmp_path_factory) -> Path:
    """The folder of the header files of the kernels in ``paths/`` (NAME.cl each), made once
    a session from their headers and programs."""
    return write_header_files(tmp_path_factory.mktemp("header_files"))
