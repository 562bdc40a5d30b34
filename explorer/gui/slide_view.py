"""The animation laid out at a slide's size, for the exports and ``animate``.

A slide (1280×720, 1920×1080) is not the window's view made larger or smaller: it is a view
of its own, the room view of presenter mode (the buffers whole beside the local tiles with
their values written large) in the presenter's type for a screen of that size, laid out at
exactly that size. It shares the window view's playback, so it shows the same work-group,
the same watched work-item, the same marks and colouring; it has no playback buttons, source
column or key strip (nothing on a slide is pressed). Drawn at one pixel a pixel whatever the
screen's scale, so a frame is exactly the slide's size: no bars, nothing scaled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPixmap
from PySide6.QtWidgets import QApplication, QWidget

from explorer.gui.animation_file import BeforeEachStep, Steps
from explorer.gui.execution_view import ExecutionView
from explorer.gui.room_view import presenter_style, set_room_view

# A value in a cell on a slide is never written smaller (read from the back of a hall on a
# 1280×720 projector), and its cells are large enough that 18 px is 0.6 of one: with no
# playback bar and no side column, a slide has the room (each buffer's window shows no more
# cells than fit at that size).
SLIDE_VALUE_PX = 18
SLIDE_CELL_PX = (SLIDE_VALUE_PX * 5 + 2) // 3  # 30


class SlideTooSmall(ValueError):
    """The view cannot be laid out at the slide's size (its parts need more room)."""


class Slide:
    """An execution view of its own, never on screen, laid out at ``size`` as the room sees
    it, showing what ``shown`` (the window's execution view) shows."""

    def __init__(self, shown: ExecutionView, size: tuple[int, int]) -> None:
        if shown.playback is None:
            raise ValueError("nothing is traced: there is no animation to lay out")
        self._size = size
        view = ExecutionView()
        view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
        view.setStyleSheet(presenter_style(*size))
        # What the person chose to see, before the playback comes (each pass or each line
        # picks the steps; the same choice leaves the shared cursor where it is).
        for mine, theirs in (
            (view.controls.granularity, shown.controls.granularity),
            (view.controls.mode, shown.controls.mode),
        ):
            mine.setCurrentIndex(theirs.currentIndex())
        view.controls.warp_box.setChecked(shown.controls.warp_box.isChecked())
        view.pictures.colouring = shown.pictures.colouring
        view.buffers.smallest_value_px = SLIDE_VALUE_PX
        view.buffers.room_cell_px = SLIDE_CELL_PX
        view.buffers.interactive = False  # a slide is watched, never clicked
        view.controls.hide()
        view.code.hide()
        view.set_key_strip("")
        set_room_view(view, True)
        view.set_caption(shown.lines.caption.text())
        view.set_playback(shown.playback, "\n".join(shown.source_lines))
        view.resize(*size)
        view.show()
        layout = view.layout()
        if layout is not None:
            layout.activate()
        QApplication.sendPostedEvents(None, 0)  # the canvases' sizes, then their cells
        if (view.width(), view.height()) != size:
            needs = view.minimumSizeHint()
            view.close()
            view.deleteLater()
            raise SlideTooSmall(
                f"the animation needs at least {needs.width()}×{needs.height()} pixels, "
                f"more than a {size[0]}×{size[1]} slide"
            )
        self.view = view

    @property
    def current(self) -> int:
        return self.view.current

    @property
    def steps(self) -> int:
        return self.view.steps

    def set_step(self, index: int) -> None:
        self.view.set_step(index)

    def grab(self) -> QPixmap:
        """The slide as it is now, exactly its size (one pixel a pixel)."""
        return QPixmap.fromImage(self.image())

    def image(self) -> QImage:
        width, height = self._size
        image = QImage(width, height, QImage.Format.Format_RGB888)
        image.setDevicePixelRatio(1.0)
        image.fill(QColor("white"))
        self.view.render(image)
        return image

    def widget(self) -> QWidget:
        """The laid-out view (to draw into an SVG)."""
        return self.view

    def close(self) -> None:
        self.view.close()
        self.view.deleteLater()


@contextmanager
def frames_of(
    shown: Steps, size: tuple[int, int] | None, before: Callable[[], None]
) -> Iterator[Steps]:
    """What an export draws its frames from, ``before()`` called before each (Cancel, Ctrl+C):
    the view as on screen (``size`` None) or, for a slide, the execution view laid out at
    that size."""
    if size is None:
        yield BeforeEachStep(shown, before)
        return
    with slide(shown, size) as made:
        yield BeforeEachStep(made, before)


@contextmanager
def slide(shown: object, size: tuple[int, int]) -> Iterator[Slide]:
    """The slide of ``shown`` (the window's execution view) for the frames drawn inside; gone
    afterwards, and the window's view drawn again at the step it showed (the shared
    playback's cursor is put back there)."""
    if not isinstance(shown, ExecutionView):
        raise TypeError(f"a slide is laid out from the execution view, not {type(shown)}")
    start = shown.current
    made = Slide(shown, size)
    try:
        yield made
    finally:
        made.close()
        shown.set_step(start)
