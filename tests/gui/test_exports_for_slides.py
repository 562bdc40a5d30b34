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

EXPORTS = (
    "view.png", "view.svg", "timing.png", "runs.csv", "runs.json", "a.gif", "a.mp4", "frames.png",
)  # fmt: skip


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


@pytest.fixture(scope="module")
def traced_window(qapp, kept_executor, tmp_path_factory):
    """One window for the exports of this module: a 16×16 matmul, run and traced (a few
    dozen steps, a row of timing). Each test reads it or exports it; opening, running and
    tracing a window for each of them cost more than the tests themselves."""
    from PySide6.QtCore import QSettings

    from explorer.engine.executor import Executor
    from explorer.gui import worker
    from explorer.gui.main_window import MainWindow
    from explorer.gui.screenshot import dispose, wait_until

    settings = QSettings(
        str(tmp_path_factory.mktemp("traced") / "settings.ini"), QSettings.Format.IniFormat
    )
    with pytest.MonkeyPatch.context() as patch:  # the kept executor, as every GUI test's
        patch.setattr(
            worker, "Executor", lambda env=None: kept_executor if env is None else Executor(env=env)
        )
        window = MainWindow(settings=settings)
    try:
        assert wait_until(lambda: window.model.device is not None, 60), "no device came"
        for name in ("M", "N", "K"):
            window.model.set_size(name, 16)
        window.resize(1200, 800)
        window.show()
        trigger(window, "Run")
        assert wait_until(lambda: window.state.history, 120), "the run did not finish"
        trigger(window, "Trace")
        assert wait_until(lambda: window.state.playback is not None, 120), "no trace came"
        assert wait_until(lambda: not window.worker.busy, 120)
        yield window
    finally:
        dispose(qapp, window)


@pytest.fixture
def traced(traced_window):
    """The shared window as its trace left it: the execution view in front."""
    traced_window.views.show_page("execution")
    return traced_window


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
            said[name] = exports.timing_png(path)
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


def test_the_timing_chart_exported_from_another_tab_has_its_labelled_bars(traced, tmp_path):
    from PIL import Image

    traced.views.show_page("source")
    out = tmp_path / "timing.png"
    assert traced.controllers.exports.timing_png(str(out))
    timing = traced.views.timing_view
    variant = traced.state.result.variant
    assert any(label.startswith(f"{variant}: kernel") for label in timing.labels), timing.labels
    assert any(label.startswith("numpy:") for label in timing.labels)
    with Image.open(out) as picture:
        assert picture.size == (timing.width(), timing.height())
        colours = {c for _, c in picture.convert("RGB").getcolors(1 << 20)}
    assert (0x27, 0xAE, 0x60) in colours  # the kernel's bar is drawn, not an empty plot


def test_an_mp4_for_a_1080p_slide(traced, tmp_path):
    iio = pytest.importorskip("imageio.v2")
    pytest.importorskip("imageio_ffmpeg")
    out = tmp_path / "slide.mp4"
    assert traced.controllers.exports.animation(str(out), max_frames=4, size=(1920, 1080))
    reader = iio.get_reader(str(out))
    assert reader.get_data(0).shape == (1080, 1920, 3)
    assert reader.count_frames() == 4


def test_the_export_dialog_offers_the_window_and_two_slide_sizes(traced, tmp_path, monkeypatch):
    from PIL import Image
    from PySide6.QtWidgets import QFileDialog

    offered = {}
    out = tmp_path / "picked.gif"

    def pick(parent, title, name, filters):
        offered["types"] = filters.split(";;")
        return str(out), offered["types"][1]  # the person picks the 720p slide

    monkeypatch.setattr(QFileDialog, "getSaveFileName", pick)
    trigger(traced, "Export animation as GIF…")
    assert [t.split(" (")[0] for t in offered["types"]] == [
        "GIF at the window's size",
        "GIF for a 1280×720 slide",
        "GIF for a 1920×1080 slide",
    ]
    with Image.open(out) as picture:
        assert picture.size == (1280, 720)


def test_the_file_menu_exports_the_animation_as_mp4(traced, tmp_path, monkeypatch):
    iio = pytest.importorskip("imageio.v2")
    pytest.importorskip("imageio_ffmpeg")
    from tests.gui.conftest import answer_file_dialogs

    answer_file_dialogs(monkeypatch, tmp_path / "anim.mp4")
    trigger(traced, "Export animation as MP4…")
    steps = traced.views.execution_view.steps
    assert steps > 1 and iio.get_reader(str(tmp_path / "anim.mp4")).count_frames() == steps


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


def test_a_screenshot_onto_a_full_disk_says_so_and_leaves_no_file(full_disk, qapp, capsys):
    from explorer.app import build_parser
    from explorer.gui.screenshot import take_screenshot

    out = full_disk / "shot.png"
    args = build_parser().parse_args(["--screenshot", str(out), "--family", "matmul"])
    assert take_screenshot(qapp, args, None) == 2
    assert f"{out}: the disk is full" in capsys.readouterr().err
    assert [p.name for p in full_disk.iterdir()] == ["filler"]


@pytest.mark.usefixtures("fast_cli", "qapp")
def test_animate_draws_the_frames_at_the_chosen_slide_size(tmp_path):
    from PIL import Image

    from tests.robustness.helpers import cli

    out = tmp_path / "slide.gif"
    done = cli(
        "animate", "--family", "matmul", "--variant", "tiled", "--size", "16",
        "--max-frames", "2", "--frame-size", "1280x720", "--out", str(out),
    )  # fmt: skip
    assert done.code == 0, done.err
    with Image.open(out) as picture:
        assert picture.size == (1280, 720) and picture.n_frames == 2
