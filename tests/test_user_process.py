"""The code that runs inside the user's own Python program imports nothing of the explorer.

``capture`` starts the user's program with the bootstrap's folder first on its ``PYTHONPATH``;
Python imports the bootstrap's ``sitecustomize.py``, which imports the folder as a package of a
name of its own and the recorder by name from it. There the explorer may not be importable at
all (another Python, another environment), and the program must run as it would without us.
So the bootstrap package (``explorer/capture/bootstrap/``) imports only the standard library,
numpy, pyopencl (which the program itself brings) and its own modules: each file is parsed
here, the import-linter contract follows the imports through every module, and the program's
side is run with an ``explorer`` that cannot be imported.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published as tomli
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
BOOTSTRAP = ROOT / "explorer" / "capture" / "bootstrap"

# Every file that runs inside the user's program: the bootstrap package, found by walking.
USER_PROCESS = sorted(str(p.relative_to(ROOT)) for p in BOOTSTRAP.rglob("*.py"))

_FILE_NAME = re.compile(r"[\w./-]+\.py")


def explorer_imports(source: str) -> list[str]:
    """Each import of the explorer in ``source`` from outside the bootstrap, as ``line N:
    what``: ``import explorer...``, ``from explorer... import``, a relative import that leaves
    the bootstrap's folder (``..``; ``.`` names a module beside it), and
    ``importlib.import_module``/``__import__`` of a name of the explorer."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 1:
                continue  # a module of the bootstrap itself
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
    """The names of the Python files ``source`` spells out (those it would load by path)."""
    return {
        Path(node.value).name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and _FILE_NAME.fullmatch(node.value)
    }


def test_the_checker_finds_every_way_to_import_the_explorer():
    source = (
        "import os, explorer.paths\n"
        "from explorer.engine import records\n"
        "from . import host_cpu\n"
        "from .recorder import JOURNAL\n"
        "from .. import folder\n"
        "from ..folder import load_capture\n"
        "import importlib\n"
        "importlib.import_module('explorer.capture.folder')\n"
        "__import__('explorer')\n"
        "import numpy, explorers\n"
        "from pyopencl import array\n"
    )
    assert explorer_imports(source) == [
        "line 1: explorer.paths",
        "line 2: explorer.engine",
        "line 5: ..",
        "line 6: ..folder",
        "line 8: explorer.capture.folder",
        "line 9: explorer",
    ]


def test_the_bootstrap_is_the_package_of_the_files_that_run_in_the_program():
    assert USER_PROCESS == [
        "explorer/capture/bootstrap/__init__.py",
        "explorer/capture/bootstrap/host_cpu.py",  # the recorder, by name
        "explorer/capture/bootstrap/recorder.py",  # sitecustomize.py, by name
        "explorer/capture/bootstrap/sitecustomize.py",  # Python itself, from the PYTHONPATH
    ]


def test_no_user_process_file_imports_the_explorer():
    found = {
        path: explorer_imports((ROOT / path).read_text(encoding="utf-8")) for path in USER_PROCESS
    }
    assert {path: lines for path, lines in found.items() if lines} == {}


def test_nothing_is_loaded_by_its_file_path():
    """Modules are imported by name: only sitecustomize.py names a file, the package's own
    ``__init__.py``, to import the folder as a package."""
    named = {path: files_named((ROOT / path).read_text(encoding="utf-8")) for path in USER_PROCESS}
    assert {path: names for path, names in named.items() if names} == {
        "explorer/capture/bootstrap/sitecustomize.py": {"__init__.py"}
    }


def test_the_contract_covers_the_whole_package():
    """import-linter follows imports through other modules, which the parse above cannot."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    contract = next(c for c in contracts if c["name"].startswith("The code that runs inside"))
    assert (BOOTSTRAP / "__init__.py").is_file()
    assert contract["source_modules"] == ["explorer.capture.bootstrap"]
    assert contract["forbidden_modules"] == ["explorer.**"]


def _python(code: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_importing_the_bootstrap_in_the_explorer_imports_nothing_else_of_it(tmp_path):
    """The engine imports the bootstrap's processor fix from below the capture layer (the one
    import the layers contract lets by): the packages above it import none of their modules."""
    done = _python(
        """
        import sys
        import explorer.capture.bootstrap.recorder, explorer.capture.bootstrap.host_cpu
        print(sorted(m for m in sys.modules if m.startswith("explorer")))
        """,
        {**os.environ, "PYTHONPATH": str(ROOT)},
        ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "['explorer',",
        "'explorer.capture',",
        "'explorer.capture.bootstrap',",
        "'explorer.capture.bootstrap.host_cpu',",
        "'explorer.capture.bootstrap.recorder']",
    ]


def test_the_program_runs_the_bootstrap_where_the_explorer_cannot_be_imported(tmp_path):
    """In the program's process the bootstrap is a package of a name of its own, started
    with nothing of the explorer importable, and its folder leaves ``sys.path`` (its modules
    would shadow a program's own ``recorder``). The recorder is imported when the program
    imports pyopencl, which it wraps (a Python that never does imports nothing more)."""
    unimportable = tmp_path / "elsewhere" / "explorer"
    unimportable.mkdir(parents=True)
    (unimportable / "__init__.py").write_text("raise ImportError('the explorer was imported')\n")
    (tmp_path / "capture").mkdir()  # the folder capture makes
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(BOOTSTRAP), str(unimportable.parent)]),
        "EXPLORER_CAPTURE_DIR": str(tmp_path / "capture"),
    }
    done = _python(
        """
        import importlib.util, sys
        mine = ("explorer", "_explorer_capture_bootstrap")  # not an installer's finder
        print(sorted(m for m in sys.modules if m.split(".")[0] in mine))
        print(type(sys.meta_path[0]).__name__)
        print([p for p in sys.path if p.endswith("bootstrap")])
        print(importlib.util.find_spec("recorder"), importlib.util.find_spec("host_cpu"))
        import pyopencl
        print(sorted(m for m in sys.modules if m.split(".")[0] in mine))
        print(pyopencl.Program.build.__qualname__)
        """,
        env,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.splitlines() == [
        "['_explorer_capture_bootstrap']",
        "_OnImport",  # the recorder is imported when the program imports pyopencl
        "[]",
        "None None",
        "['_explorer_capture_bootstrap', '_explorer_capture_bootstrap.host_cpu', "
        "'_explorer_capture_bootstrap.recorder']",
        "Recorder.patch.<locals>.build.<locals>.build",  # wrapped as it was imported
    ]
