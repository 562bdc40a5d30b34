"""On a machine that cannot show a window, the app says what is missing instead of aborting."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_without_a_display_main_says_so_and_exits_2():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "main.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert "no display" in done.stderr and "python main.py --screenshot" in done.stderr


def test_without_a_display_the_installed_command_names_itself(monkeypatch):
    from explorer import app

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setattr(sys, "argv", ["/home/me/.venv/bin/kernel-explorer"])
    problem = app.display_problem()
    assert problem is not None and "kernel-explorer --screenshot out.png --run" in problem
    assert "main.py" not in problem


def test_a_missing_x11_library_is_named_with_its_package(monkeypatch):
    import ctypes.util

    from explorer import app

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    real = ctypes.util.find_library
    monkeypatch.setattr(
        ctypes.util, "find_library", lambda name: None if name == "xcb-icccm" else real(name)
    )
    problem = app.display_problem()
    assert problem is not None and "libxcb-icccm4" in problem
