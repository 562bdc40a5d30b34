"""The desktop entry: written under a prefix, valid, runnable, and removed exactly."""

from __future__ import annotations

import configparser
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from explorer import desktop
from explorer.paths import resources_dir


def _read_entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive in desktop entries
    parser.read_string(path.read_text(encoding="utf-8"))
    return dict(parser["Desktop Entry"])


def _exec_words(value: str) -> list[str]:
    """Split an ``Exec`` value the way a desktop does (Desktop Entry spec, "Exec key")."""
    value = value.replace("\\\\", "\\")  # string-value escape first
    words, word, quoted, i, started = [], "", False, 0, False
    while i < len(value):
        c = value[i]
        if quoted and c == "\\" and i + 1 < len(value):
            word, i = word + value[i + 1], i + 2
            continue
        if c == '"':
            quoted, started = not quoted, True
        elif c == " " and not quoted:
            if started:
                words.append(word)
            word, started = "", False
        else:
            word, started = word + c, True
        i += 1
    if started:
        words.append(word)
    return [w.replace("%%", "%") for w in words]


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_install_writes_a_valid_entry_and_the_icons(tmp_path):
    written = desktop.install(tmp_path)
    share = tmp_path / "share"
    entry_path = share / "applications" / "kernel-explorer.desktop"
    assert entry_path in written
    assert all(path.is_file() and path.is_relative_to(share) for path in written)

    entry = _read_entry(entry_path)
    assert entry["Type"] == "Application"
    assert entry["Name"] == "OpenCL Kernel Explorer"
    assert entry["Comment"]
    assert entry["Icon"] == "kernel-explorer"
    assert entry["Terminal"] == "false"
    assert entry["Categories"] == "Development;Education;Science;"
    assert entry["StartupWMClass"] == "OpenCL Kernel Explorer"  # Qt's WM_CLASS: the app name
    assert _exec_words(entry["Exec"]) == desktop.launcher()
    assert _exec_words(entry["TryExec"]) == desktop.launcher()[:1]

    icons = share / "icons" / "hicolor"
    svg = icons / "scalable" / "apps" / "kernel-explorer.svg"
    assert svg.read_bytes() == (resources_dir() / "icon.svg").read_bytes()
    pngs = sorted(icons.glob("*x*/apps/kernel-explorer.png"))
    assert {p.parent.parent.name for p in pngs} >= {"16x16", "32x32", "48x48", "256x256"}
    for png in pngs:
        side = int(png.parent.parent.name.split("x")[0])
        assert _png_size(png) == (side, side)


def test_the_entry_starts_the_app(tmp_path):
    desktop.install(tmp_path)
    entry = _read_entry(tmp_path / "share" / "applications" / "kernel-explorer.desktop")
    argv = _exec_words(entry["Exec"])
    program = Path(argv[0])
    assert program.is_absolute() and program.is_file() and os.access(program, os.X_OK)
    # The app's own --help: it parses its arguments before any window opens.
    out = subprocess.run(
        [*argv, "--help"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert "--screenshot" in out.stdout


def test_uninstall_removes_exactly_what_install_wrote(tmp_path):
    apps = tmp_path / "share" / "applications"
    apps.mkdir(parents=True)
    neighbour = apps / "someone-else.desktop"
    neighbour.write_text("[Desktop Entry]\nType=Application\nName=X\nExec=x\n")

    written = desktop.install(tmp_path)
    removed = desktop.uninstall(tmp_path)
    assert sorted(removed) == sorted(written)
    left = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert left == [neighbour]
    assert desktop.uninstall(tmp_path) == []


def test_the_default_is_the_users_own_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    written = desktop.install()
    assert (tmp_path / "data" / "applications" / "kernel-explorer.desktop") in written
    assert desktop.uninstall() == written

    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert desktop.data_dir() == tmp_path / "home" / ".local" / "share"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")  # the spec: must be absolute
    assert desktop.data_dir() == tmp_path / "home" / ".local" / "share"


def test_main_reports_what_it_did_and_exits_0(tmp_path, capsys):
    assert desktop.main(["--prefix", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "kernel-explorer.desktop" in out and "--uninstall" in out
    assert desktop.main(["--prefix", str(tmp_path), "--uninstall"]) == 0
    assert "removed" in capsys.readouterr().out
    assert desktop.main(["--prefix", str(tmp_path), "--uninstall"]) == 0
    assert "nothing to remove" in capsys.readouterr().out


def test_main_exits_2_on_usage_errors_and_unwritable_folders(tmp_path, capsys):
    assert desktop.main(["--no-such-option"]) == 2
    blocker = tmp_path / "file"
    blocker.write_text("a file where a folder should be")
    assert desktop.main(["--prefix", str(blocker)]) == 2
    err = capsys.readouterr().err
    assert "error: cannot write" in err and str(blocker) in err
    assert "Traceback" not in err


def test_exec_quotes_what_the_spec_reserves():
    assert desktop.exec_value(["/usr/bin/kernel-explorer"]) == "/usr/bin/kernel-explorer"
    value = desktop.exec_value(["/opt/my apps/python", "/home/a$b/main.py", "50%"])
    assert value == '"/opt/my apps/python" "/home/a\\\\$b/main.py" 50%%'
    assert _exec_words(value) == ["/opt/my apps/python", "/home/a$b/main.py", "50%"]


def test_a_bundle_starts_itself(monkeypatch, tmp_path):
    bundle = tmp_path / "dist" / "kernel-explorer" / "kernel-explorer"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(bundle))
    assert desktop.launcher() == [str(bundle)]


@pytest.mark.skipif(sys.platform != "linux", reason="the module is run as a command on Linux")
def test_python_m_explorer_desktop_runs(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "explorer.desktop", "--prefix", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "share" / "applications" / "kernel-explorer.desktop").is_file()


def test_a_checkout_runs_its_own_kernels_beside_an_editable_install_of_another(
    tmp_path, monkeypatch
):
    """An editable install maps ``explorer.kernels`` to the checkout it came from; code run
    from a second checkout (``PYTHONPATH``, ``python main.py`` there) must still list and run
    the kernels beside it, not the other checkout's."""
    from importlib import resources

    from explorer import paths

    other = tmp_path / "other-checkout" / "kernels"
    (other / "matmul").mkdir(parents=True)
    (other / "matmul" / "naive.cl").write_text("/* another checkout's kernel */\n")
    real_files = resources.files
    monkeypatch.setattr(
        resources,
        "files",
        lambda package: other if package == "explorer.kernels" else real_files(package),
    )
    here = Path(paths.__file__).resolve().parent.parent
    assert paths.kernels_dir() == here / "kernels"
    assert (paths.kernels_dir() / "matmul" / "wave.cl").is_file()
