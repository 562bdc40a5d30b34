"""Exports: the view on screen as PNG or SVG, the animation as a GIF, an MP4 or PNG frames
(at the window's size or a slide's), the session's timing history as CSV or JSON. Each
reports success only once its file is whole (:mod:`explorer.file_writes`); a failed export
leaves no partial file and says which file and why (the disk is full, read-only)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

from PIL.Image import Image as PILImage
from PySide6.QtCore import QPoint
from PySide6.QtGui import QPainter, QRegion
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication, QFileDialog, QWidget

from explorer.engine.records import result_record
from explorer.file_writes import (
    PNG,
    SVG_END,
    WriteFailed,
    remove_partial,
    write_checked,
    write_text,
)
from explorer.gui.actions import Action, Actions
from explorer.gui.animation_file import (
    FRAME_SIZES,
    MP4_NEEDS,
    Steps,
    drawn,
    laid_out,
    mp4_encoder_missing,
    write_animation,
)
from explorer.gui.controllers.roles import Animation, Pages, StatusLine
from explorer.gui.slide_view import Slide, SlideTooSmall, frames_of, slide
from explorer.gui.state import AppState

FRAME_MS = 400
SVG_DPI = 96  # a CSS pixel: an SVG's width and height say its size in them


class ExportController:
    """Writes files from what the window shows and what the session ran. Dialogs open over
    ``parent``."""

    def __init__(
        self,
        state: AppState,
        execution: Animation,
        status: StatusLine,
        pages: Pages,
        parent: QWidget | None = None,
    ) -> None:
        self.state = state
        self.execution = execution
        self.status = status
        self.pages = pages
        self.parent_widget = parent
        self._cancelled = False
        self.exporting = False  # an animation's frames are being drawn

    def _before_frame(self) -> None:
        """Between two frames: the elapsed time ticks, Cancel can be pressed and stops it."""
        QApplication.processEvents()
        if self._cancelled:
            self._cancelled = False  # once: the view is then put back at its step
            raise ExportCancelled

    def cancel(self) -> None:
        """The Cancel button beside the elapsed time: an export in progress stops at its next
        frame and leaves no file."""
        self._cancelled = True

    # -- files ---------------------------------------------------------------------------
    def view_png(self, view: QWidget, path: str, size: tuple[int, int] | None = None) -> bool:
        """A widget as it looks now, as a PNG; for a slide (``size``), the animation laid out
        at that size (:mod:`explorer.gui.slide_view`) instead."""
        if size is not None:
            return self._slide_file(path, size, lambda made, p: made.grab().save(p, "PNG"), PNG)
        return self._write(path, lambda p: view.grab().save(p, "PNG"), f"Wrote {path}", PNG)

    def view_svg(self, view: QWidget, path: str, size: tuple[int, int] | None = None) -> bool:
        """A widget drawn into an SVG (text and lines stay vectors where Qt draws them so);
        for a slide (``size``), the animation laid out at that size instead."""
        if size is not None:
            return self._slide_file(
                path, size, lambda made, p: _draw_svg(made.widget(), p), ending=SVG_END
            )
        return self._write(path, lambda p: _draw_svg(view, p), f"Wrote {path}", ending=SVG_END)

    def _slide_file(
        self,
        path: str,
        size: tuple[int, int],
        draw: Callable[[Slide, str], object],
        header: bytes | None = None,
        ending: bytes | None = None,
    ) -> bool:
        """The animation's step on screen, laid out as a slide of ``size``, written by
        ``draw``."""
        if self.state.playback is None or not self.execution.steps:
            self.status.say("Trace a kernel first (Ctrl+T): no animation to lay out as a slide")
            return False
        try:
            with slide(self.execution, size) as made:
                message = f"Wrote {path} ({size[0]}×{size[1]} slide)"
                return self._write(path, lambda p: draw(made, p), message, header, ending)
        except SlideTooSmall as exc:
            self.status.say(f"Could not write {path}: {exc}; nothing was written")
            return False

    def animation(
        self, path: str, max_frames: int = 240, size: tuple[int, int] | None = None
    ) -> bool:
        """Every step of the animation as a looping GIF or an MP4 (by the suffix), or as
        numbered PNG frames (``name-0000.png`` …) when ``path`` ends in .png; drawn at
        ``size`` (1280×720, 1920×1080) or the view's own size."""
        view = self.execution
        if self.state.playback is None or not view.steps:
            self.status.say("Trace a kernel first (Ctrl+T): nothing to animate")
            return False
        self._cancelled, self.exporting = False, True
        self.status.work_started(f"Exporting {min(view.steps, max_frames)} frames")
        failure = None
        try:
            with frames_of(view, size, self._before_frame) as steps:
                if path.lower().endswith(".png"):
                    count, width, height = self._frames_png(steps, path, max_frames)
                else:
                    count, width, height = write_animation(steps, path, 1000 / FRAME_MS, max_frames)
        except WriteFailed as exc:
            failure = str(exc)
        except SlideTooSmall as exc:
            failure = f"Could not write {path}: {exc}; nothing was written"
        except ImportError:
            failure = MP4_NEEDS
        except ExportCancelled:
            remove_partial(path)
            failure = "cancelled"
        finally:
            self.exporting = False
            seconds = self.status.work_ended()
        if failure == "cancelled":
            failure = f"Export cancelled after {seconds:.1f} s: nothing was written"
        if failure is not None:
            self.status.say(failure)
            return False
        where = f"as {path[:-4]}-NNNN.png" if path.lower().endswith(".png") else f"to {path}"
        self.status.say(f"Wrote {count} frames ({width}×{height}) {where}")
        return True

    def _frames_png(self, view: Steps, path: str, max_frames: int) -> tuple[int, int, int]:
        """One PNG per frame, each written as it is drawn; a failure removes the frames
        written so far."""
        from PIL import Image

        written: list[str] = []
        width = height = 0
        try:
            with laid_out(view):
                for i in range(min(view.steps, max_frames)):
                    frame = drawn(view, i)
                    height, width = frame.shape[:2]
                    name = f"{path[:-4]}-{i:04d}.png"
                    write_checked(name, _png_writer(Image.fromarray(frame)), PNG)
                    written.append(name)
        except BaseException:  # a failure, Cancel or anything else: no frames left behind
            for name in written:
                remove_partial(name)
            raise
        return len(written), width, height

    def history_csv(self, path: str) -> bool:
        """Every run of the session, one row each; nested fields as JSON text."""
        records = [result_record(r) for r in self.state.history]
        fields = list(records[0]) if records else ["family", "variant"]
        text = io.StringIO(newline="")
        writer = csv.DictWriter(text, fieldnames=fields)
        writer.writeheader()
        for record in records:
            writer.writerow(
                {k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in record.items()}
            )
        return self._write_text(path, text.getvalue(), f"Wrote {len(records)} runs to {path}")

    def history_json(self, path: str) -> bool:
        """Every run of the session as a JSON list of ``run --json`` records."""
        text = json.dumps([result_record(r) for r in self.state.history], indent=1)
        return self._write_text(path, text, f"Wrote {len(self.state.history)} runs to {path}")

    def _write(
        self,
        path: str,
        writer: Callable[[str], object],
        message: str,
        header: bytes | None = None,
        ending: bytes | None = None,
    ) -> bool:
        try:
            write_checked(path, writer, header=header, ending=ending)
        except WriteFailed as exc:
            self.status.say(str(exc))
            return False
        self.status.say(message)
        return True

    def _write_text(self, path: str, text: str, message: str) -> bool:
        try:
            write_text(path, text)
        except WriteFailed as exc:
            self.status.say(str(exc))
            return False
        self.status.say(message)
        return True

    # -- menu commands: ask for a file, then write it ------------------------------------
    def view_png_dialog(self) -> None:
        self._view_dialog("PNG", "png", self.view_png)

    def view_svg_dialog(self) -> None:
        self._view_dialog("SVG", "svg", self.view_svg)

    def _view_dialog(
        self,
        kind: str,
        suffix: str,
        export: Callable[[QWidget, str, tuple[int, int] | None], bool],
    ) -> None:
        """Ask for the file. With the animation in front, its type in the dialog also picks
        the size: the page as on screen, or the animation laid out for a 1280×720 or
        1920×1080 slide."""
        filters = (
            frame_size_filters(kind, suffix)
            if self._animation_in_front()
            else [f"{kind} (*.{suffix})"]
        )
        path, chosen = QFileDialog.getSaveFileName(
            self.parent_widget, f"Export view as {kind}", f"view.{suffix}", ";;".join(filters)
        )
        if path:
            export(self.pages.current_page(), str(path), chosen_size(filters, chosen))

    def _animation_in_front(self) -> bool:
        """Whether the page on screen shows the traced animation (its tab, or presenting)."""
        if self.state.playback is None or not self.execution.steps:
            return False
        return self.state.presenting or self.pages.current_tab() == "execution"

    def timing_png_dialog(self) -> None:
        path = self._ask("Export timing chart", "timing.png", "PNG (*.png)")
        if path:
            self.timing_png(path)

    def timing_png(self, path: str) -> bool:
        """The timing chart as a PNG, its bars labelled with their variants. A chart on a
        hidden tab has never been laid out (an empty 640×480 plot): it is shown first."""
        page = self.pages.page("timing")
        if not page.isVisible():
            self.pages.show_page("timing")
            QApplication.processEvents()
        return self.view_png(page, path)

    def animation_gif_dialog(self) -> None:
        self._animation_dialog("GIF", "gif")

    def animation_mp4_dialog(self) -> None:
        """Every step as an MP4 video for slides; where its encoder is not installed, says
        what to install before any file is asked for."""
        missing = mp4_encoder_missing()
        if missing is not None and self.state.playback is not None:
            self.status.say(missing)
            return
        self._animation_dialog("MP4 video", "mp4")

    def _animation_dialog(self, kind: str, suffix: str, max_frames: int = 2000) -> None:
        """Ask for the file; its type in the dialog picks the frame size: the view's own
        size or a 1280×720 or 1920×1080 slide."""
        if self.state.playback is None or not self.execution.steps:
            self.status.say("Trace a kernel first (Ctrl+T): nothing to animate")
            return
        filters = frame_size_filters(kind, suffix)
        default = "frame.png" if suffix == "png" else f"animation.{suffix}"
        path, chosen = QFileDialog.getSaveFileName(
            self.parent_widget, "Export animation", default, ";;".join(filters)
        )
        if path:
            path = str(path)
            if not path.lower().endswith(f".{suffix}"):
                path += f".{suffix}"
            self.animation(path, max_frames, chosen_size(filters, chosen))

    def animation_frames_dialog(self) -> None:
        """Every step as numbered PNG files."""
        self._animation_dialog("PNG frames", "png", 240)

    def history_csv_dialog(self) -> None:
        path = self._ask("Export timing history", "timings.csv", "CSV (*.csv)")
        if path:
            self.history_csv(path)

    def history_json_dialog(self) -> None:
        path = self._ask("Export timing history", "timings.json", "JSON (*.json)")
        if path:
            self.history_json(path)

    def _ask(self, title: str, name: str, filters: str) -> str:
        path, _ = QFileDialog.getSaveFileName(self.parent_widget, title, name, filters)
        return str(path)


ACTIONS = Actions(
    ExportController,
    Action(
        "export_view_png",
        "Export view as &PNG…",
        "&File",
        ExportController.view_png_dialog,
        ("Ctrl+E",),
        "The page on screen as a PNG image",
        section=2,
    ),
    Action(
        "export_view_svg",
        "Export view as S&VG…",
        "&File",
        ExportController.view_svg_dialog,
        ("Ctrl+Shift+E",),
        "The page on screen as a scalable SVG drawing",
        section=2,
    ),
    Action(
        "export_timing_png",
        "Export timing chart as PN&G…",
        "&File",
        ExportController.timing_png_dialog,
        tip="The timing bars as a PNG image",
        section=2,
    ),
    Action(
        "export_gif",
        "Export animation as GI&F…",
        "&File",
        ExportController.animation_gif_dialog,
        ("Ctrl+Shift+G",),
        "Every step of the traced animation as a looping GIF",
        section=2,
    ),
    Action(
        "export_mp4",
        "Export animation as MP&4…",
        "&File",
        ExportController.animation_mp4_dialog,
        ("Ctrl+Shift+M",),
        tip="Every step of the traced animation as an MP4 video for slides",
        section=2,
    ),
    Action(
        "export_frames",
        "Export animation as PNG fra&mes…",
        "&File",
        ExportController.animation_frames_dialog,
        tip="Every step of the traced animation as numbered PNG files",
        section=2,
    ),
    Action(
        "export_csv",
        "Export timing history as &CSV…",
        "&File",
        ExportController.history_csv_dialog,
        tip="Every run of this session, one row each",
        section=3,
    ),
    Action(
        "export_json",
        "Export timing history as &JSON…",
        "&File",
        ExportController.history_json_dialog,
        tip="Every run of this session as the records of `run --json`",
        section=3,
    ),
)


def _png_writer(picture: PILImage) -> Callable[[str], object]:
    """A writer of this picture as a PNG (one per frame)."""
    return lambda path: picture.save(path, "PNG")


def chosen_size(filters: list[str], chosen: str) -> tuple[int, int] | None:
    """The frame size the file type picked in the dialog stands for (the window's size when
    the dialog offered no sizes or said nothing)."""
    if chosen not in filters or len(filters) != len(FRAME_SIZES):
        return None
    return list(FRAME_SIZES.values())[filters.index(chosen)]


def _draw_svg(view: QWidget, target: str) -> None:
    """``view`` drawn into an SVG file of its size: as many CSS pixels (96 to the inch, as
    browsers and slide programs read them) as the view has pixels."""
    generator = QSvgGenerator()
    generator.setFileName(target)
    generator.setResolution(SVG_DPI)
    generator.setSize(view.size())
    generator.setViewBox(view.rect())
    generator.setTitle("OpenCL Kernel Explorer")
    painter = QPainter(generator)
    view.render(painter, QPoint(), QRegion(), QWidget.RenderFlag.DrawChildren)
    painter.end()


def frame_size_filters(kind: str, suffix: str) -> list[str]:
    """The save dialog's file types, one per frame size (in :data:`FRAME_SIZES` order)."""
    return [
        f"{kind} at the window's size (*.{suffix})",
        f"{kind} for a 1280×720 slide (*.{suffix})",
        f"{kind} for a 1920×1080 slide (*.{suffix})",
    ]


class ExportCancelled(Exception):
    """The person pressed Cancel while frames were drawn."""
