"""Exports: the view on screen as PNG or SVG, the animation as a GIF or PNG frames, the
session's timing history as CSV or JSON. Each reports success only once its file exists."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from PIL import Image
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage, QPainter, QRegion
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QFileDialog, QWidget

from explorer.engine.records import result_record
from explorer.gui.actions import Action, Actions
from explorer.gui.controllers.roles import Animation, Pages, StatusLine
from explorer.gui.state import AppState

GIF_FRAME_MS = 400
GIF_MAX_WIDTH = 1000  # wider frames are scaled down: a slide or an issue comment shows them


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

    # -- files ---------------------------------------------------------------------------
    def view_png(self, view: QWidget, path: str) -> bool:
        """A widget as it looks now, as a PNG."""
        before = _stamp(path)
        view.grab().save(path, "PNG")
        return self._report(path, f"Wrote {path}", before)

    def view_svg(self, view: QWidget, path: str) -> bool:
        """A widget drawn into an SVG (text and lines stay vectors where Qt draws them so)."""
        before = _stamp(path)
        generator = QSvgGenerator()
        generator.setFileName(path)
        generator.setSize(view.size())
        generator.setViewBox(view.rect())
        generator.setTitle("OpenCL Kernel Explorer")
        painter = QPainter(generator)
        view.render(painter, QPoint(), QRegion(), QWidget.RenderFlag.DrawChildren)
        painter.end()
        return self._report(path, f"Wrote {path}", before)

    def animation(self, path: str, max_frames: int = 240) -> bool:
        """Every step of the animation as a looping GIF, or as numbered PNG frames
        (``name-0000.png`` …) when ``path`` ends in .png."""
        view = self.execution
        if self.state.playback is None or not view.steps:
            self.status.say("Trace a kernel first (Ctrl+T): nothing to animate")
            return False
        frames_png = path.lower().endswith(".png")
        start = view.current
        frames: list[Image.Image] = []
        written: list[str] = []
        try:
            for i in range(min(view.steps, max_frames)):
                view.set_step(i)
                image = view.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
                if image.width() > GIF_MAX_WIDTH:
                    image = image.scaledToWidth(
                        GIF_MAX_WIDTH, Qt.TransformationMode.SmoothTransformation
                    )
                if frames_png:
                    name = f"{path[:-4]}-{i:04d}.png"
                    if image.save(name):  # the format follows the .png suffix
                        written.append(name)
                else:
                    frames.append(_pillow_image(image))
        finally:
            view.set_step(start)
        if frames_png:
            ok = len(written) == min(view.steps, max_frames)
            self.status.say(
                f"Wrote {len(written)} frames as {path[:-4]}-NNNN.png"
                if ok
                else f"Could not write the frames {path[:-4]}-NNNN.png"
            )
            return ok
        try:
            # One palette for the whole animation keeps colours steady from frame to frame.
            palette = frames[0].quantize(colors=255)
            indexed = [f.quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
            indexed[0].save(
                path,
                format="GIF",
                save_all=True,
                append_images=indexed[1:],
                duration=GIF_FRAME_MS,
                loop=0,
                optimize=True,
            )
        except OSError as exc:
            self.status.say(f"Could not write {path}: {exc}")
            return False
        return self._report(path, f"Wrote {len(frames)} frames to {path}")

    def history_csv(self, path: str) -> bool:
        """Every run of the session, one row each; nested fields as JSON text."""
        records = [result_record(r) for r in self.state.history]
        fields = list(records[0]) if records else ["family", "variant"]
        try:
            with open(path, "w", newline="", encoding="utf-8") as handle:
                writer = csv.DictWriter(handle, fieldnames=fields)
                writer.writeheader()
                for record in records:
                    writer.writerow(
                        {
                            k: json.dumps(v) if isinstance(v, (dict, list)) else v
                            for k, v in record.items()
                        }
                    )
        except OSError as exc:
            self.status.say(f"Could not write {path}: {exc}")
            return False
        return self._report(path, f"Wrote {len(records)} runs to {path}")

    def history_json(self, path: str) -> bool:
        """Every run of the session as a JSON list of ``run --json`` records."""
        try:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump([result_record(r) for r in self.state.history], handle, indent=1)
        except OSError as exc:
            self.status.say(f"Could not write {path}: {exc}")
            return False
        return self._report(path, f"Wrote {len(self.state.history)} runs to {path}")

    def _report(self, path: str, message: str, before: int | None = None) -> bool:
        """Success only if the file exists and, where it existed before, was rewritten (Qt's
        writers fail silently and would leave an old file in place)."""
        ok = Path(path).is_file() and (before is None or _stamp(path) != before)
        self.status.say(message if ok else f"Could not write {path}")
        return ok

    # -- menu commands: ask for a file, then write it ------------------------------------
    def view_png_dialog(self) -> None:
        path = self._ask("Export view as PNG", "view.png", "PNG (*.png)")
        if path:
            self.view_png(self.pages.current_page(), path)

    def view_svg_dialog(self) -> None:
        path = self._ask("Export view as SVG", "view.svg", "SVG (*.svg)")
        if path:
            self.view_svg(self.pages.current_page(), path)

    def timing_png_dialog(self) -> None:
        path = self._ask("Export timing chart", "timing.png", "PNG (*.png)")
        if path:
            self.view_png(self.pages.page("timing"), path)

    def animation_gif_dialog(self) -> None:
        path = self._ask("Export animation", "animation.gif", "GIF (*.gif)")
        if path:
            self.animation(path)

    def animation_mp4_dialog(self) -> None:
        """Every step as an MP4 video for slides (see :mod:`explorer.gui.animation_file`)."""
        from explorer.gui.animation_file import frames_of, write_frames

        view = self.execution
        if self.state.playback is None or not view.steps:
            self.status.say("Trace a kernel first (Ctrl+T): nothing to animate")
            return
        path = self._ask("Export animation", "animation.mp4", "MP4 video (*.mp4)")
        if not path:
            return
        try:
            frames = frames_of(view, 2000, GIF_MAX_WIDTH)
            write_frames(frames, path, 1000 / GIF_FRAME_MS)
        except (OSError, ImportError) as exc:
            self.status.say(f"Could not write {path}: {exc}")
            return
        self._report(path, f"Wrote {len(frames)} frames to {path}")

    def animation_frames_dialog(self) -> None:
        path = self._ask("Export animation frames", "frame.png", "PNG frames (*.png)")
        if path:
            self.animation(path if path.lower().endswith(".png") else path + ".png")

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


def _stamp(path: str) -> int | None:
    """The file's modification time in nanoseconds, None when there is no file."""
    try:
        return Path(path).stat().st_mtime_ns
    except OSError:
        return None


def _pillow_image(image: QImage) -> Image.Image:
    """An RGB888 QImage as a Pillow image (its rows may be padded to 4 bytes)."""
    data = bytes(image.constBits())
    size = (image.width(), image.height())
    return Image.frombuffer("RGB", size, data, "raw", "RGB", image.bytesPerLine(), 1)
