"""Nothing below explorer/gui imports Qt, trace imports neither Qt nor pyopencl, the command
line does not load the GUI, and the GUI never calls pyopencl directly.

The modules are found by walking the package, so a new module is covered the day it is added.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "explorer"
QT = ("PySide6", "shiboken6", "pyqtgraph")

# Run in a fresh interpreter: installs a finder that makes importing the blocked packages raise,
# checks that it does, then imports each module and prints what failed and what got loaded.
_IMPORT_ALL = """
import importlib, importlib.abc, json, sys, traceback

blocked, modules = json.loads(sys.argv[1]), json.loads(sys.argv[2])

class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ImportError(f"{name} is blocked in this test")
        return None

for name in list(sys.modules):
    if name.split(".")[0] in blocked:
        del sys.modules[name]
sys.meta_path.insert(0, Blocked())
for name in blocked:
    try:
        importlib.import_module(name)
    except ImportError:
        pass
    else:
        raise SystemExit(f"could not block {name}")

failed = {}
for name in modules:
    try:
        importlib.import_module(name)
    except BaseException:
        failed[name] = traceback.format_exc(limit=-3)
print(json.dumps({"failed": failed, "loaded": sorted(sys.modules)}))
"""


def modules_under(folder: Path) -> list[str]:
    """Every module of the package below ``folder`` (packages by their ``__init__``)."""
    names = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def import_blocking(modules: list[str], blocked: tuple[str, ...]) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _IMPORT_ALL, json.dumps(blocked), json.dumps(modules)],
        capture_output=True,
        text=True,
        cwd=PACKAGE.parent,
        timeout=240,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def below_the_gui() -> list[str]:
    return [
        name
        for name in modules_under(PACKAGE)
        if not name.startswith("explorer.gui") and name != "explorer.app"
    ]


def test_the_walk_finds_every_layer():
    names = below_the_gui()
    for expected in (
        "explorer",
        "explorer.__main__",
        "explorer.cli",
        "explorer.cli.run",
        "explorer.selection",
        "explorer.benchmarks.ui",
        "explorer.engine.launch.run",
        "explorer.families.matmul",
        "explorer.trace.analysis",
    ):
        assert expected in names
    assert not any(n.startswith("explorer.gui") or n == "explorer.app" for n in names)


def test_every_module_below_the_gui_imports_without_qt():
    report = import_blocking(below_the_gui(), QT)
    assert report["failed"] == {}, "\n".join(f"{k}:\n{v}" for k, v in report["failed"].items())


def test_every_trace_module_imports_without_qt_or_pyopencl():
    modules = modules_under(PACKAGE / "trace")
    assert "explorer.trace.analysis" in modules
    report = import_blocking(modules, (*QT, "pyopencl"))
    assert report["failed"] == {}, "\n".join(f"{k}:\n{v}" for k, v in report["failed"].items())


def test_the_command_line_loads_neither_the_gui_nor_the_app():
    modules = [n for n in below_the_gui() if n.startswith(("explorer.cli", "explorer.benchmarks"))]
    report = import_blocking(modules, QT)
    assert report["failed"] == {}
    loaded = [n for n in report["loaded"] if n.startswith("explorer.gui") or n == "explorer.app"]
    assert loaded == []


def test_gui_never_imports_pyopencl():
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in (PACKAGE / "gui").rglob("*.py")
        if re.search(r"^\s*(import|from)\s+pyopencl", path.read_text(encoding="utf-8"), re.M)
    ]
    assert offenders == []
