"""The rules between layers, the types of every layer and the lint hold on every commit.

Each check runs the tool a maintainer would run by hand, so a failure prints what to fix.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published as tomli
    import tomli as tomllib

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


def top_level_pieces() -> set[str]:
    """Every module and package directly inside the explorer package, ``explorer.__main__``
    included, found by walking."""
    return {
        f"explorer.{path.stem}"
        for path in PACKAGE.iterdir()
        if path.name != "__init__.py"
        and not path.name.startswith(".")
        and (path.suffix == ".py" or (path / "__init__.py").exists())
    }


def contract(kind: str, name_start: str) -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    return next(c for c in contracts if c["type"] == kind and c["name"].startswith(name_start))


def layers() -> list[list[str]]:
    """The layers contract's layers, top first, each as its modules."""
    return [[m.strip() for m in layer.split("|")] for layer in contract("layers", "")["layers"]]


def test_the_layers_contract_places_every_top_level_piece():
    """A module or package added beside the others is given a layer, or this fails: the
    contract checks only what it names."""
    named = [m for layer in layers() for m in layer]
    assert sorted(named) == sorted(top_level_pieces())
    order = {m: i for i, layer in enumerate(layers()) for m in layer}
    assert order["explorer.cli"] < order["explorer.benchmarks"] < order["explorer.gui"]
    assert order["explorer.app"] < order["explorer.gui"] < order["explorer.selection"]
    assert order["explorer.selection"] < order["explorer.engine"]


def test_every_piece_below_the_qt_layer_is_in_the_qt_free_contract():
    stack = layers()
    below = next(i for i, layer in enumerate(stack) if "explorer.gui" in layer) + 1
    qt_free = contract("forbidden", "Nothing below the Qt layer")
    assert sorted(qt_free["source_modules"]) == sorted(m for lay in stack[below:] for m in lay)
    assert {"PySide6", "pyqtgraph"} <= set(qt_free["forbidden_modules"])


def test_import_contracts_hold():
    """Each piece imports only the layers below it (the Qt layer imports nothing of the
    command line); nothing below gui imports Qt; trace is numpy only."""
    out = _run(_tool("lint-imports"), "--no-cache")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def every_piece() -> list[str]:
    """Every package and module of the explorer, the Qt layer included, found by walking."""
    return sorted(
        str(path.relative_to(ROOT))
        for path in PACKAGE.iterdir()
        if not path.name.startswith((".", "__pycache__"))
        and (path.suffix == ".py" or (path / "__init__.py").exists())
    )


# Files, each written whole and renamed into place: a run killed midway, or two at once (the
# checkouts of one machine share the folder), leave no broken cache. mypy's default store, a
# SQLite database written without syncing, can be left corrupt by a killed run.
MYPY_CACHE_FORMAT = "--no-sqlite-cache"


def mypy_cache(config: dict) -> Path:
    """mypy's incremental cache, kept between runs in the user's cache folder (a fresh clone
    has no ``.mypy_cache``), one per mypy version, Python, cache format and ``[tool.mypy]``.

    mypy checks each cached module against its file by size, time and then content hash, so
    a clone elsewhere, an edit or another version of a dependency is checked again, and the
    errors of a module are reported from the cache as from a check: the cache saves the work
    on what did not change (numpy's and Qt's stubs, most of ours), never an error."""
    from mypy.version import __version__ as mypy_version

    key = [mypy_version, sys.version_info[:2], MYPY_CACHE_FORMAT, config["tool"]["mypy"]]
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:12]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "opencl-kernel-explorer" / "tests" / f"mypy-{mypy_version}-{digest}"


@pytest.mark.long
def test_mypy_finds_no_error_in_any_layer(tmp_path: Path):
    """Below the Qt layer and in it: the window, its views and controllers, and app.py."""
    targets = every_piece()
    assert set(below_qt_layer()) < set(targets)
    assert {"explorer/gui", "explorer/app.py", "explorer/engine"} <= set(targets)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for override in config["tool"]["mypy"].get("overrides", []):
        explorer = [m for m in override["module"] if m.startswith("explorer")]
        # No piece of ours is read only for types: each is checked as what it is.
        assert "follow_imports" not in override or not explorer, override
    cache = mypy_cache(config)
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only home: this run's cache only
        cache = tmp_path
    out = _run(sys.executable, "-m", "mypy", MYPY_CACHE_FORMAT, "--cache-dir", str(cache), *targets)
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]


def test_ruff_lint_and_format_are_clean():
    ruff = _tool("ruff")
    lint = _run(ruff, "check", ".")
    assert lint.returncode == 0, lint.stdout[-4000:]
    form = _run(ruff, "format", "--check", ".")
    assert form.returncode == 0, form.stdout[-4000:]
