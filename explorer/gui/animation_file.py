"""The traced animation as a file for slides: one frame per step, in the app's colours, as a
looping GIF (Pillow) or an MP4 (imageio with imageio-ffmpeg, which ships its own ffmpeg).

Frames are drawn at the size they are shown: the view as it is on screen, or, for a slide
(1280×720, 1920×1080), the room view laid out at exactly that size
(:mod:`explorer.gui.slide_view`): never a small view scaled up or down, never bars around it,
so the values read as they do in presenter mode on a projector of that size. The GIF's one
palette keeps the highlight colours (this step's reads and writes, the tile outlines)
exactly, whichever frames they appear in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Protocol

import numpy as np
from PySide6.QtGui import QImage, QPixmap

from explorer.file_writes import GIF, WriteFailed, write_checked
from explorer.gui import cell_colours

# What a presenter picks for a slide; "window" is the view's size on screen.
FRAME_SIZES: dict[str, tuple[int, int] | None] = {
    "window": None,
    "1280x720": (1280, 720),
    "1920x1080": (1920, 1080),
}
HIGHLIGHTS = tuple(
    tuple(int(v) for v in c[:3])
    for c in (
        cell_colours.READ_C,
        cell_colours.WRITE_C,
        cell_colours.BOTH_C,
        cell_colours.HOVER_C,
        cell_colours.MARK_C,
        cell_colours.PENDING_C,
        cell_colours.rgba(cell_colours.STEP_OUTLINE),
        cell_colours.rgba(cell_colours.WRITE_OUTLINE),
    )
)
PALETTE_SAMPLES = 24  # frames looked at to choose the GIF's palette
MP4 = b"ftyp"
# Said when the MP4 encoder is not installed (a GIF and PNG frames need nothing more).
MP4_NEEDS = (
    "MP4 needs the imageio and imageio-ffmpeg packages (pip install imageio imageio-ffmpeg); "
    "nothing was written. A GIF or PNG frames need neither"
)


def mp4_encoder_missing() -> str | None:
    """What to say when an MP4 cannot be written here (its encoder is not installed); None
    when it can."""
    try:
        import imageio.v2  # noqa: F401
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        return MP4_NEEDS
    return None


class Steps(Protocol):
    """An animation that can be stepped and drawn (the execution view)."""

    @property
    def current(self) -> int: ...

    @property
    def steps(self) -> int: ...

    def set_step(self, index: int) -> None: ...

    def grab(self) -> QPixmap: ...


class BeforeEachStep:
    """``view`` as an export steps it, ``before()`` called before each step is drawn (Ctrl+C
    noted, Cancel pressed: ``before`` raises to stop the export)."""

    def __init__(self, view: Steps, before: Callable[[], None]) -> None:
        self._view = view
        self._before = before

    @property
    def current(self) -> int:
        return self._view.current

    @property
    def steps(self) -> int:
        return self._view.steps

    def set_step(self, index: int) -> None:
        self._before()
        self._view.set_step(index)

    def grab(self) -> QPixmap:
        return self._view.grab()


def parse_frame_size(text: str) -> tuple[int, int] | None:
    """``window`` (None), ``1280x720`` or ``1920x1080``; ValueError otherwise."""
    key = text.lower().replace("×", "x")
    if key not in FRAME_SIZES:
        raise ValueError(f"frame size {text!r}: choose {', '.join(FRAME_SIZES)}")
    return FRAME_SIZES[key]


@contextmanager
def laid_out(view: Steps) -> Iterator[None]:
    """The view's frames drawn inside, then the view back at the step it showed."""
    start = view.current
    try:
        yield
    finally:
        view.set_step(start)


def drawn(view: Steps, step: int) -> np.ndarray:
    """One step drawn as an RGB array at the view's size; even sizes, as video encoders
    need (a slide's are)."""
    view.set_step(step)
    return _rgb(view.grab().toImage().convertToFormat(QImage.Format.Format_RGB888))


def write_animation(view: Steps, path: str, fps: float, max_frames: int) -> tuple[int, int, int]:
    """Draw and write the animation frame by frame, never holding every frame in memory
    (961 steps at 1920×1080 would be 6 GB): a GIF's palette from frames spread over the
    animation first, an MP4 streamed to the encoder. Returns (frames, width, height); raises
    WriteFailed (the partial file removed) or ImportError."""
    count = min(view.steps, max_frames)
    if count == 0:
        raise WriteFailed(path, "there are no frames to write")
    with laid_out(view):
        first = drawn(view, 0)
        height, width = first.shape[:2]
        if path.lower().endswith(".gif"):
            samples = np.linspace(0, count - 1, min(count, PALETTE_SAMPLES)).astype(int)
            sampled = [drawn(view, int(i)) for i in samples]
            palette = gif_palette(sampled)
            if len(sampled) == count:  # every frame was drawn for the palette: once is enough
                pictures: Iterator[np.ndarray] = iter(sampled)
            else:
                del sampled
                pictures = (drawn(view, i) for i in range(count))
            write_checked(path, lambda t: _write_gif(pictures, t, fps, palette), header=GIF)
        else:
            pictures = (drawn(view, i) for i in range(count))
            write_checked(path, lambda t: _write_mp4(pictures, t, fps))
            _check_mp4(path)
    return count, width, height


def _rgb(image: QImage) -> np.ndarray:
    w, h = image.width() // 2 * 2, image.height() // 2 * 2
    data = np.frombuffer(image.constBits(), dtype=np.uint8)
    rows = data.reshape(image.height(), image.bytesPerLine())[:h, : 3 * w]
    return rows.reshape(h, w, 3).copy()


def gif_palette(frames: list[np.ndarray]) -> list[int]:
    """One palette for the whole animation (steady colours from frame to frame): the
    highlight colours exactly, the rest chosen from frames spread over the animation."""
    from PIL import Image

    pick = np.linspace(0, len(frames) - 1, min(len(frames), PALETTE_SAMPLES)).astype(int)
    sample = np.concatenate([frames[i][::2, ::2] for i in pick], axis=0)
    free = 256 - len(HIGHLIGHTS)
    chosen = Image.fromarray(np.ascontiguousarray(sample)).quantize(colors=free)
    colours = (chosen.getpalette() or [])[: 3 * free]
    colours += [0] * (3 * free - len(colours))
    for colour in HIGHLIGHTS:
        colours.extend(colour)
    return colours


def _write_gif(frames: Iterable[np.ndarray], path: str, fps: float, palette: list[int]) -> None:
    from PIL import Image

    holder = Image.new("P", (1, 1))
    holder.putpalette(palette)
    # Indexed as they come: a byte a pixel is kept per frame, not three.
    indexed = [
        Image.fromarray(f).quantize(palette=holder, dither=Image.Dither.NONE) for f in frames
    ]
    indexed[0].save(
        path,
        format="GIF",
        save_all=True,
        append_images=indexed[1:],
        duration=int(1000 / fps),
        loop=0,
        optimize=False,  # optimize would drop palette entries: keep the highlights
    )


def _write_mp4(frames: Iterable[np.ndarray], path: str, fps: float) -> None:
    import imageio.v2 as imageio

    # A folder that cannot take the file fails here, before ffmpeg is started (its pipes
    # would otherwise be left to the garbage collector).
    with open(path, "wb"):
        pass
    # High quality keeps small text sharp; yuv420p plays in every slide program.
    try:
        with imageio.get_writer(
            path, fps=fps, codec="libx264", quality=9, macro_block_size=2, pixelformat="yuv420p"
        ) as writer:
            for frame in frames:
                writer.append_data(frame)  # type: ignore[attr-defined]  # imageio's stub types the base writer
    except (RuntimeError, ValueError) as exc:  # ffmpeg stopped (it could not write)
        raise OSError(f"ffmpeg stopped: {str(exc)[:200]}") from exc


def _check_mp4(path: str) -> None:
    """An MP4 starts with an ``ftyp`` box (bytes 4–8)."""
    from explorer.file_writes import diagnose, remove_partial

    with open(path, "rb") as handle:
        head = handle.read(8)
    if head[4:8] != MP4:
        remove_partial(path)
        raise WriteFailed(path, diagnose(path))
