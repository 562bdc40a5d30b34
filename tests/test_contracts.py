"""The rules between layers, the types below the Qt layer and the lint hold on every commit.

Each check runs the tool a maintainer would run by hand, so a failure prints what to fix.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "explorer"
QT_LAYER = {"gui", "app.py"}


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=240)


def _tool(name: str) -> str:
    path = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: it is part of the test extra")
    return path


def below_qt_layer() -> list[str]:
    """Every package and module of the explorer that is not the Qt layer, found by walking."""
    return sorted(
        str(path.relative_to(ROOT))
        for path in PACKAGE.iterdir()
        if path.name not in QT_LAYER
        and not path.name.startswith(("_", "."))
        and (path.suffix == ".py" or (path / "__init__.py").exists())
    )


def test_import_contracts_hold():
    """gui → engine → families | trace; nothing below gui imports Qt; trace is numpy only."""
    out = _run(_tool("lint-imports"), "--no-cache")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


@pytest.mark.long
def test_mypy_finds_no_error_below_the_qt_layer(tmp_path: Path):
    targets = below_qt_layer()
    assert "explorer/engine" in targets and "explorer/gui" not in targets
    out = _run(sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path), *targets)
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]


def test_ruff_lint_and_format_are_clean():
    ruff = _tool("ruff")
    lint = _run(ruff, "check", ".")
    assert lint.returncode == 0, lint.stdout[-4000:]
    form = _run(ruff, "format", "--check", ".")
    assert form.returncode == 0, form.stdout[-4000:]
