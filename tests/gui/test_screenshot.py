"""The screenshot command used by the docs, the tests and demos."""

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def shot(*args, timeout=300, env=None):
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=str(ROOT.parent),
        env=env,
    )


def shot_here(*args):
    """``main.py ARGS`` in this process, its window on the GUI tests' kept executor: the exit
    code and what it printed. The command's own process is started by the tests of a bad
    session and of a session saved without a display, from another folder, and by
    tests/robustness (Ctrl+C) and tests/install (the installed command)."""
    from PySide6.QtWidgets import QApplication

    from explorer.app import main

    app = QApplication.instance()
    names = (app.applicationName(), app.organizationName(), app.desktopFileName())
    icon = app.windowIcon()
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:  # the names and icon main gives the application are this test's alone
        app.setApplicationName(names[0])
        app.setOrganizationName(names[1])
        app.setDesktopFileName(names[2])
        app.setWindowIcon(icon)
    return subprocess.CompletedProcess(["main.py", *args], code, out.getvalue(), err.getvalue())


def no_display_env():
    """No display and no offscreen platform: a window could not open, Qt would abort."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["QT_QPA_PLATFORM"] = "xcb"
    return env


def test_screenshot_after_a_run_is_a_1600_by_1000_png(tmp_path, qapp):
    from PySide6.QtGui import QImage

    path = tmp_path / "shot.png"
    out = shot_here(
        "--screenshot",
        str(path),
        "--family",
        "matmul",
        "--variant",
        "tiled",
        "--size",
        "64",
        "--input",
        "iou",
        "--run",
        "--view",
        "result",
    )
    assert out.returncode == 0, out.stderr
    image = QImage(str(path))
    assert (image.width(), image.height()) == (1600, 1000)


def test_empty_view_and_failed_run_exit_non_zero(tmp_path, qapp):
    out = shot_here("--screenshot", str(tmp_path / "a.png"), "--view", "timing")
    assert out.returncode == 3 and "empty" in out.stderr
    out = shot_here(
        "--screenshot",
        str(tmp_path / "b.png"),
        "--family",
        "matmul",
        "--variant",
        "seed003-func2",
        "--size",
        "100",
        "--run",
        "--view",
        "result",
    )
    assert out.returncode == 1


def test_a_session_reopens_with_its_view_and_saves_back(tmp_path, qapp):
    from explorer.session import Session, load_session, save_session

    saved = save_session(
        Session(
            family="matmul",
            variant="tiled",
            sizes={"M": 64, "N": 64, "K": 64},
            view={"tab": "grid", "phase": 1, "group": [1, 2]},
        ),
        tmp_path / "in.kexp.json",
    )
    again = tmp_path / "out.kexp.json"
    out = shot_here(
        "--session",
        str(saved),
        "--screenshot",
        str(tmp_path / "s.png"),
        "--save-session",
        str(again),
    )
    assert out.returncode == 0, out.stderr
    session = load_session(again)
    assert session.variant == "tiled" and session.sizes == {"M": 64, "N": 64, "K": 64}
    assert session.view == {"tab": "grid", "group": [1, 2, 0], "phase": 1}
    assert session.device  # the device it ran on


def test_a_bad_session_exits_2(tmp_path):
    bad = tmp_path / "bad.kexp.json"
    bad.write_text("not json")
    out = shot("--session", str(bad), "--screenshot", str(tmp_path / "s.png"))
    assert out.returncode == 2 and "invalid JSON" in out.stderr


def test_save_session_alone_writes_the_file_without_a_window(tmp_path):
    from explorer.session import load_session

    path = tmp_path / "lesson.kexp.json"
    out = shot(
        "--save-session",
        str(path),
        "--family",
        "transpose",
        "--variant",
        "fast",
        "--size",
        "300",
        "--local",
        "32x8",
        timeout=60,
        env=no_display_env(),
    )
    assert out.returncode == 0, out.stderr
    session = load_session(path)
    assert (session.family, session.variant) == ("transpose", "fast")
    assert session.sizes["WIDTH"] == 300 and session.local == (32, 8)
    assert session.device is None  # opened later on that machine's default device


def test_save_session_alone_copies_a_session_and_refuses_a_bad_selection(tmp_path):
    from explorer.session import Session, load_session, save_session

    saved = save_session(
        Session(family="matmul", variant="tiled", view={"tab": "timing"}), tmp_path / "a.kexp.json"
    )
    again = tmp_path / "b.kexp.json"
    out = shot(
        "--session", str(saved), "--save-session", str(again), timeout=60, env=no_display_env()
    )
    assert out.returncode == 0, out.stderr
    assert load_session(again) == load_session(saved)
    bad = tmp_path / "c.kexp.json"
    out = shot("--save-session", str(bad), "--variant", "no-such", timeout=60, env=no_display_env())
    assert out.returncode == 2 and "error" in out.stderr and not bad.exists()
