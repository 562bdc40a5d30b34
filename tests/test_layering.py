"""Nothing below explorer/gui imports Qt, and the GUI never calls pyopencl directly."""

import re
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "explorer"


def test_engine_problems_trace_and_cli_import_without_qt():
    code = (
        "import sys\n"
        "sys.modules['PySide6'] = None\n"
        "sys.modules['pyqtgraph'] = None\n"
        "import explorer.engine.runner, explorer.engine.executor, explorer.engine.bench\n"
        "import explorer.engine.catalog, explorer.families, explorer.trace, explorer.cli\n"
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=PACKAGE.parent
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_gui_never_imports_pyopencl():
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in (PACKAGE / "gui").rglob("*.py")
        if re.search(r"^\s*(import|from)\s+pyopencl", path.read_text(encoding="utf-8"), re.M)
    ]
    assert offenders == []
