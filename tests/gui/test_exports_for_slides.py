"""Exports for slides and exports that fail: the animation at a slide's size with the
highlight colours kept, and every export into a read-only folder, a full disk (a small tmpfs
this test mounts where it may) or /dev/full reports the file and the cause and leaves no
partial file."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from explorer.file_writes import WriteFailed, write_text
from explorer.gui.animation_file import HIGHLIGHTS
from tests.gui.conftest import trigger

EXPORTS = ("view.png", "view.svg", "timing.png", "runs.csv", "runs.json", "a.gif", "frames.png")


def _mount(folder: Path, options: str) -> None:
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (the full-disk case)")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace')[:200]}")


@pytest.fixture
def full_disk(tmp_path):
    """A 256 KiB tmpfs filled to the last byte."""
    folder = tmp_path / "full"
    _mount(folder, "size=256k")
    try:
        handle = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(handle, b"\0" * 4096):
                pass
        except OSError:
            pass  # full
        os.close(handle)
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


@pytest.fixture
def read_only(tmp_path):
    """A folder nobody may write: a read-only tmpfs as root, else a folder without w."""
    folder = tmp_path / "ro"
    if os.geteuid() == 0:
        _mount(folder, "ro,size=64k")
        try:
            yield folder
        finally:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)
    else:
        folder.mkdir()
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)


@pytest.fixture
def traced(window, qtbot):
    """A tiled 16×16 matmul, run and traced: a few dozen steps, a row of timing."""
    for name in ("M", "N", "K"):
        window.model.set_size(name, 16)
    window.resize(1200, 800)
    window.show()
    before = len(window.state.history)
    trigger(window, "Run")
    qtbot.waitUntil(lambda: len(window.state.history) > before, timeout=120000)
    trigger(window, "Trace")
    qtbot.waitUntil(lambda: window.state.playback is not None, timeout=120000)
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=120000)
    return window


def _export_all(window, folder: Path) -> dict[str, bool]:
    exports = window.controllers.exports
    views = window.views
    said = {}
    for name in EXPORTS:
        path = str(folder / name)
        if name == "view.png":
            said[name] = exports.view_png(views.page("execution"), path)
        elif name == "view.svg":
            said[name] = exports.view_svg(views.page("execution"), path)
        elif name == "timing.png":
            said[name] = exports.view_png(views.page("timing"), path)
        elif name.endswith(".csv"):
            said[name] = exports.history_csv(path)
        elif name.endswith(".json"):
            said[name] = exports.history_json(path)
        else:
            said[name] = exports.animation(path, max_frames=3)
        message = window.statusBar().currentMessage()
        assert path[: -len(".png")] in message, message  # the message names the file
        said[name + " message"] = message
    return said


def test_the_animation_is_drawn_at_a_slide_size_with_its_highlight_colours(traced, tmp_path):
    from PIL import Image

    exports = traced.controllers.exports
    gif = tmp_path / "slide.gif"
    assert exports.animation(str(gif), size=(1280, 720))
    assert "1280×720" in traced.statusBar().currentMessage()
    with Image.open(gif) as picture:
        assert picture.size == (1280, 720)
        palette = picture.getpalette()
        colours = {tuple(palette[i : i + 3]) for i in range(0, len(palette), 3)}
        assert set(HIGHLIGHTS) <= colours  # the reads, writes and outlines keep their colours
        seen = set()
        for frame in range(picture.n_frames):
            picture.seek(frame)
            seen |= {c for _, c in picture.convert("RGB").getcolors(1 << 20)}
    read, step_outline = HIGHLIGHTS[0], HIGHLIGHTS[6]
    assert read in seen and step_outline in seen  # drawn exactly, not mapped to a near grey
    # The window's own size: the view as it is on screen, not scaled down.
    own = tmp_path / "own.gif"
    assert exports.animation(str(own), max_frames=2)
    view = traced.views.execution_view
    with Image.open(own) as picture:
        assert picture.size == (view.width() // 2 * 2, view.height() // 2 * 2)


def test_an_mp4_for_a_1080p_slide(traced, tmp_path):
    iio = pytest.importorskip("imageio.v2")
    pytest.importorskip("imageio_ffmpeg")
    out = tmp_path / "slide.mp4"
    assert traced.controllers.exports.animation(str(out), max_frames=4, size=(1920, 1080))
    reader = iio.get_reader(str(out))
    assert reader.get_data(0).shape == (1080, 1920, 3)
    assert reader.count_frames() == 4


def test_the_frame_size_dialog_offers_the_window_and_two_slides(traced, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QInputDialog

    asked = {}

    def pick(parent, title, label, items, current, editable):
        asked["items"] = items
        return items[1], True

    out = tmp_path / "picked.gif"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    monkeypatch.setattr(QInputDialog, "getItem", pick)
    trigger(traced, "Export animation as GIF…")
    assert [i.split(" ")[0] for i in asked["items"][1:]] == ["1280×720", "1920×1080"]
    assert asked["items"][0].startswith("The window's size")
    from PIL import Image

    with Image.open(out) as picture:
        assert picture.size == (1280, 720)


def test_exports_into_a_read_only_folder_fail_and_leave_nothing(traced, read_only):
    said = _export_all(traced, read_only)
    for name in EXPORTS:
        assert said[name] is False, name
        message = said[name + " message"]
        assert "read-only" in message or "permission denied" in message, message
    assert list(read_only.iterdir()) == []


def test_exports_onto_a_full_disk_fail_and_leave_no_partial_file(traced, full_disk):
    said = _export_all(traced, full_disk)
    for name in EXPORTS:
        assert said[name] is False, name
        assert "the disk is full" in said[name + " message"], said[name + " message"]
    assert [p.name for p in full_disk.iterdir()] == ["filler"]  # no 0-byte files


def test_dev_full_is_reported_full_and_left_alone():
    with pytest.raises(WriteFailed, match="/dev/full: the disk is full"):
        write_text("/dev/full", "family,variant\n" * 100)
    assert Path("/dev/full").exists()  # never removed: it is not an ordinary file


def test_the_settings_say_once_that_they_cannot_be_saved(qtbot, read_only):
    from PySide6.QtCore import QSettings

    from explorer.gui.main_window import MainWindow

    settings = QSettings(str(read_only / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    notice = window.state.notice or ""
    assert "settings.ini" in notice and "will not be saved" in notice
    assert notice.count("will not be saved") == 1
    window.close()


@pytest.mark.usefixtures("fast_cli", "qapp")
def test_the_commands_report_a_full_disk_and_leave_no_file(full_disk):
    from tests.robustness.helpers import cli

    image = full_disk / "c.png"
    done = cli(
        "run",
        "--family",
        "matmul",
        "--variant",
        "tiled",
        "--size",
        "16",
        "--save-image",
        str(image),
    )
    assert done.code == 2 and f"{image}: the disk is full" in done.err, done.err
    gif = full_disk / "a.gif"
    done = cli(
        "animate", "--family", "matmul", "--variant", "tiled", "--size", "16", "--out", str(gif)
    )
    assert done.code != 0 and f"{gif}: the disk is full" in done.out + done.err
    assert [p.name for p in full_disk.iterdir()] == ["filler"]
