"""The code that runs inside the user's own Python program imports nothing of the explorer.

``capture`` starts the user's program with the bootstrap's folder first on its ``PYTHONPATH``;
Python imports the bootstrap's ``sitecustomize.py``, which loads the recorder by its file path,
which loads the processor fix PoCL needs by its path. There the explorer may not be importable
at all (another Python, another environment), and the program must run as it would without us.
So these files import only the standard library, numpy and pyopencl (which the program itself
brings), and are listed here, in one place: each is parsed, and the import-linter contract
checks those importable by name through every module they import.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published as tomli
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
BOOTSTRAP = ROOT / "explorer" / "capture" / "bootstrap"

# Every file that runs inside the user's program, and who loads it there.
USER_PROCESS = (
    "explorer/capture/bootstrap/sitecustomize.py",  # Python itself, from the PYTHONPATH
    "explorer/capture/recorder.py",  # sitecustomize.py, by its path
    "explorer/engine/launch/host_cpu.py",  # the recorder, by its path
)

_FILE_NAME = re.compile(r"[\w./-]+\.py")


def explorer_imports(source: str) -> list[str]:
    """Each import of the explorer in ``source``, as ``line N: what``: ``import explorer...``,
    ``from explorer... import``, a relative import (inside the explorer, it names one of its
    modules), and ``importlib.import_module``/``__import__`` of a name of the explorer."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = ["." * node.level + (node.module or "")]
        elif isinstance(node, ast.Call) and node.args:
            called = node.func
            name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
            first = node.args[0]
            if name in ("import_module", "__import__") and isinstance(first, ast.Constant):
                names = [str(first.value)]
        for name in names:
            if name.startswith(".") or name.split(".")[0] == "explorer":
                found.append(f"line {node.lineno}: {name}")
    return found


def files_named(source: str) -> set[str]:
    """The names of the Python files ``source`` spells out (those it loads by path)."""
    return {
        Path(node.value).name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and _FILE_NAME.fullmatch(node.value)
    }


def importable_name(path: str) -> str | None:
    """The module name of ``path`` where every folder above it is a package, else None."""
    parts = Path(path).with_suffix("").parts
    for depth in range(1, len(parts)):
        if not (ROOT.joinpath(*parts[:depth]) / "__init__.py").is_file():
            return None
    return ".".join(parts)


def test_the_checker_finds_every_way_to_import_the_explorer():
    source = (
        "import os, explorer.paths\n"
        "from explorer.engine import records\n"
        "from . import folder\n"
        "from .. import paths\n"
        "import importlib\n"
        "importlib.import_module('explorer.capture.folder')\n"
        "__import__('explorer')\n"
        "import numpy, explorers\n"
        "from pyopencl import array\n"
    )
    assert explorer_imports(source) == [
        "line 1: explorer.paths",
        "line 2: explorer.engine",
        "line 3: .",
        "line 4: ..",
        "line 6: explorer.capture.folder",
        "line 7: explorer",
    ]


def test_no_user_process_file_imports_the_explorer():
    found = {
        path: explorer_imports((ROOT / path).read_text(encoding="utf-8")) for path in USER_PROCESS
    }
    assert {path: lines for path, lines in found.items() if lines} == {}


def test_every_file_they_load_by_path_is_listed():
    """What one of them loads by its path runs in the user's program too; so does every file
    of the bootstrap folder, the one folder put on the program's PYTHONPATH."""
    listed = {Path(path).name for path in USER_PROCESS}
    loaded = {path: files_named((ROOT / path).read_text(encoding="utf-8")) for path in USER_PROCESS}
    assert loaded["explorer/capture/recorder.py"] >= {"host_cpu.py"}
    assert loaded["explorer/capture/bootstrap/sitecustomize.py"] >= {"recorder.py"}
    assert {path: names - listed for path, names in loaded.items() if names - listed} == {}
    bootstrap = {str(p.relative_to(ROOT)) for p in BOOTSTRAP.rglob("*.py")}
    assert bootstrap <= set(USER_PROCESS)


def test_the_contract_covers_every_one_importable_by_name():
    """import-linter follows imports through other modules, which the parse above cannot; it
    sees only what is importable by name (the bootstrap folder is not a package)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    contract = next(c for c in contracts if c["name"].startswith("The code that runs inside"))
    names = {importable_name(path) for path in USER_PROCESS} - {None}
    assert names == {"explorer.capture.recorder", "explorer.engine.launch.host_cpu"}
    assert set(contract["source_modules"]) == names
    assert contract["forbidden_modules"] == ["explorer.**"]
