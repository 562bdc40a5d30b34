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

        def executor(env=None, on_build=None):
            if env is not None:
                return Executor(env=env, on_build=on_build)
            kept_executor.on_build = on_build  # this window hears of its builds
            return kept_executor

        patch.setattr(worker, "Executor", executor)
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


def test_the_animation_at_the_windows_size_is_the_view_as_on_screen(traced, tmp_path):
    from PIL import Image

    own = tmp_path / "own.gif"
    assert traced.controllers.exports.animation(str(own), max_frames=2)
    view = traced.views.execution_view
    with Image.open(own) as picture:
        assert picture.size == (view.width() // 2 * 2, view.height() // 2 * 2)


def _flat_edges(frame, band: int = 32) -> list[str]:
    """The edges of an RGB frame that are one flat colour ``band`` pixels deep (an MP4's
    few levels of noise allowed): the bars a picture scaled onto a larger canvas leaves."""
    import numpy as np

    edges = {
        "left": frame[:, :band], "right": frame[:, -band:],
        "top": frame[:band], "bottom": frame[-band:],
    }  # fmt: skip
    return [
        name
        for name, strip in edges.items()
        if int(np.ptp(strip.reshape(-1, 3).astype(int), axis=0).max()) <= 12
    ]


@pytest.fixture
def slides_drawn(monkeypatch):
    """What each slide frame was drawn with: per frame, each value canvas's type size in
    pixels and its (written text, true value) pairs."""
    import numpy as np

    from explorer.gui import slide_view

    frames: list[list[tuple[int, list[tuple[str, float]]]]] = []
    real = slide_view.Slide.image

    def image(self):
        picture = real(self)
        canvases = []
        for canvas in self.view.buffers.canvases.values():
            _r0, _r1, c0, c1 = canvas.frame.window
            cell = canvas.areas()[0].width() / max(c1 - c0, 1)
            font = canvas.label_font(canvas.frame.labels, cell)
            texts, values = canvas.drawn, canvas.frame.values
            pairs = [
                (str(t), float(values[rc])) for rc, t in np.ndenumerate(texts) if t
            ] if texts is not None and values is not None else []  # fmt: skip
            canvases.append((font.pixelSize() if font is not None else 0, pairs))
        frames.append(canvases)
        return picture

    monkeypatch.setattr(slide_view.Slide, "image", image)
    return frames


def _assert_read_from_the_back_row(frames) -> None:
    """Every slide frame wrote its values at 18 px or more, each the true number (or its
    leading digits and the legend's mark), never another number."""
    from explorer.gui.value_text import CUT, exact_text, same_number

    assert frames
    written = 0
    for canvases in frames:
        assert canvases, "a slide frame without the room view's value cells"
        for pixels, pairs in canvases:
            assert pixels >= 18, f"values written at {pixels} px on a 1280×720 slide"
            for text, value in pairs:
                whole = same_number(text, value)
                cut = text.endswith(CUT) and exact_text(value).startswith(text[: -len(CUT)])
                assert whole or cut, f"{value!r} written as {text!r}"
                written += 1
    assert written > 0


def test_the_gif_for_a_720p_slide_is_the_room_view_laid_out_at_that_size(
    traced, tmp_path, monkeypatch, slides_drawn
):
    """Picked in the File menu's dialog: every frame exactly 1280×720, no bars at its
    edges, the values written at 18 px or more and never as another number, the highlight
    colours exact; the window's view is left at its size and its step."""
    import numpy as np
    from PIL import Image
    from PySide6.QtWidgets import QFileDialog

    view = traced.views.execution_view
    view.set_step(3)
    size_before = view.size()
    out = tmp_path / "slide.gif"
    offered = []

    def pick(_parent, _title, _name, filters):
        offered.extend(filters.split(";;"))
        return str(out), offered[1]  # the person picks the 720p slide

    monkeypatch.setattr(QFileDialog, "getSaveFileName", pick)
    trigger(traced, "Export animation as GIF…")
    assert [t.split(" (")[0] for t in offered] == [
        "GIF at the window's size", "GIF for a 1280×720 slide", "GIF for a 1920×1080 slide",
    ]  # fmt: skip
    assert "(1280×720)" in traced.statusBar().currentMessage()
    seen = set()
    with Image.open(out) as picture:
        assert picture.size == (1280, 720) and picture.n_frames == view.steps
        palette = picture.getpalette()
        for frame in range(picture.n_frames):
            picture.seek(frame)  # the first frame indexed, the later ones RGB(A)
            for _, c in picture.getcolors(1 << 20):
                seen.add(tuple(palette[3 * c : 3 * c + 3]) if picture.mode == "P" else c[:3])
            if frame in (0, picture.n_frames // 2, picture.n_frames - 1):
                rgb = np.asarray(picture.convert("RGB"))
                assert _flat_edges(rgb) == [], f"bars at the edges of frame {frame}"
    read, step_outline = HIGHLIGHTS[0], HIGHLIGHTS[6]
    assert read in seen and step_outline in seen  # drawn exactly, not mapped to a near grey
    _assert_read_from_the_back_row(slides_drawn)
    assert view.size() == size_before and view.current == 3


def test_an_mp4_for_a_720p_slide_from_the_file_menu(traced, tmp_path, monkeypatch):
    iio = pytest.importorskip("imageio.v2")
    pytest.importorskip("imageio_ffmpeg")
    import numpy as np
    from PySide6.QtWidgets import QFileDialog

    out = tmp_path / "slide.mp4"
    monkeypatch.setattr(
        QFileDialog,
        "getSaveFileName",
        lambda _p, _t, _n, filters: (str(out), filters.split(";;")[1]),
    )
    trigger(traced, "Export animation as MP4…")
    reader = iio.get_reader(str(out))
    try:
        count = reader.count_frames()
        frame = np.asarray(reader.get_data(count // 2))
    finally:
        reader.close()
    assert count == traced.views.execution_view.steps > 1  # every step, as the window's GIF
    assert frame.shape == (720, 1280, 3)
    assert _flat_edges(frame) == []


def test_without_the_mp4_encoder_the_menu_says_what_to_install(traced, monkeypatch, tmp_path):
    import sys

    from tests.gui.conftest import answer_file_dialogs

    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)  # as if not installed
    answer_file_dialogs(monkeypatch, tmp_path / "anim.mp4")
    trigger(traced, "Export animation as MP4…")
    message = traced.statusBar().currentMessage()
    assert "pip install imageio imageio-ffmpeg" in message and "nothing was written" in message
    assert list(tmp_path.iterdir()) == []


def test_the_svg_for_a_720p_slide_is_the_room_view_at_that_size(traced, tmp_path, monkeypatch):
    """Export view as SVG with the animation in front offers the slide sizes; the 1280×720
    one is the room view laid out at that size (its text vectors at 18 px or more), 1280×720
    CSS pixels, with no bars when drawn."""
    import re

    import numpy as np
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer
    from PySide6.QtWidgets import QFileDialog

    out = tmp_path / "slide.svg"
    offered = []

    def pick(_parent, _title, _name, filters):
        offered.extend(filters.split(";;"))
        return str(out), offered[1]

    monkeypatch.setattr(QFileDialog, "getSaveFileName", pick)
    trigger(traced, "Export view as SVG…")
    assert [t.split(" (")[0] for t in offered] == [
        "SVG at the window's size", "SVG for a 1280×720 slide", "SVG for a 1920×1080 slide",
    ]  # fmt: skip
    text = out.read_text(encoding="utf-8")
    assert 'viewBox="0 0 1280 720"' in text
    width_mm = float(re.search(r'<svg width="([0-9.]+)mm"', text).group(1))
    assert width_mm == pytest.approx(1280 / 96 * 25.4, abs=0.01)  # 1280 CSS pixels
    step_line = traced.views.execution_view.lines.step_label.text().split(":")[0]
    assert step_line in text  # the step's line, as text
    sizes = [float(v) for v in re.findall(r'<text [^>]*font-size="([0-9.]+)"', text)]
    assert sizes and min(sizes) >= 16  # no small print on the slide
    renderer = QSvgRenderer(str(out))
    image = QImage(1280, 720, QImage.Format.Format_RGB888)
    image.fill(QColor("white"))
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(720, image.bytesPerLine())
    assert _flat_edges(rows[:, : 3 * 1280].reshape(720, 1280, 3)) == []


def test_the_png_for_a_1080p_slide_is_the_room_view_at_that_size(traced, tmp_path, monkeypatch):
    import numpy as np
    from PIL import Image
    from PySide6.QtWidgets import QFileDialog

    out = tmp_path / "slide.png"
    monkeypatch.setattr(
        QFileDialog,
        "getSaveFileName",
        lambda _p, _t, _n, filters: (str(out), filters.split(";;")[2]),
    )
    trigger(traced, "Export view as PNG…")
    assert traced.statusBar().currentMessage() == f"Wrote {out} (1920×1080 slide)"
    with Image.open(out) as picture:
        assert picture.size == (1920, 1080)
        assert _flat_edges(np.asarray(picture.convert("RGB"))) == []


def test_a_slide_too_small_for_the_view_is_refused_with_its_needs(traced):
    from explorer.gui.slide_view import SlideTooSmall, slide

    too_small = r"needs at least \d+×\d+ pixels, more than a 200×120 slide"
    with (
        pytest.raises(SlideTooSmall, match=too_small),
        slide(traced.views.execution_view, (200, 120)),
    ):
        pass


def test_the_timing_chart_exported_from_another_tab_has_its_labelled_bars(traced, tmp_path):
    from PIL import Image

    traced.views.show_page("source")
    out = tmp_path / "timing.png"
    assert traced.controllers.exports.timing_png(str(out))
    timing = traced.views.timing_view
    variant = traced.state.result.variant
    assert any(label.startswith(f"{variant}: kernel") for label in timing.labels), timing.labels
    assert any(label.startswith("check's answer (numpy):") for label in timing.labels)
    with Image.open(out) as picture:
        assert picture.size == (timing.width(), timing.height())
        colours = {c for _, c in picture.convert("RGB").getcolors(1 << 20)}
    assert (0x27, 0xAE, 0x60) in colours  # the kernel's bar is drawn, not an empty plot


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
    """``animate --frame-size 1920x1080``: the room view laid out at that size, no bars."""
    import numpy as np
    from PIL import Image

    from tests.robustness.helpers import cli

    out = tmp_path / "slide.gif"
    done = cli(
        "animate", "--family", "matmul", "--variant", "tiled", "--size", "16",
        "--max-frames", "2", "--frame-size", "1920x1080", "--out", str(out),
    )  # fmt: skip
    assert done.code == 0, done.err
    assert "wrote 2 frames (1920x1080)" in done.out
    with Image.open(out) as picture:
        assert picture.size == (1920, 1080) and picture.n_frames == 2
        picture.seek(1)
        assert _flat_edges(np.asarray(picture.convert("RGB"))) == []
