"""The traced animation as a file for slides: one frame per step, in the app's colours, as a
looping GIF (Pillow) or an MP4 (imageio with imageio-ffmpeg, which ships its own ffmpeg).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from PySide6.QtGui import QImage, QPixmap


class Steps(Protocol):
    """An animation that can be stepped and drawn (the execution view)."""

    @property
    def current(self) -> int: ...

    @property
    def steps(self) -> int: ...

    def set_step(self, index: int) -> None: ...

    def grab(self) -> QPixmap: ...


def frames_of(view: Steps, max_frames: int, width: int) -> list[np.ndarray]:
    """Each step of the view's animation as an RGB array at most ``width`` pixels wide
    (even sizes: video encoders need them). The view is left at the step it was on."""
    start = view.current
    frames = []
    try:
        for i in range(min(view.steps, max_frames)):
            view.set_step(i)
            image = view.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
            if image.width() > width:
                image = image.scaledToWidth(width)
            w, h = image.width() // 2 * 2, image.height() // 2 * 2
            data = np.frombuffer(image.constBits(), dtype=np.uint8)
            rows = data.reshape(image.height(), image.bytesPerLine())[:h, : 3 * w]
            frames.append(rows.reshape(h, w, 3).copy())
    finally:
        view.set_step(start)
    return frames


def write_frames(frames: list[np.ndarray], path: str, fps: float) -> None:
    """GIF or MP4 by the suffix; raises OSError (or ImportError without imageio for MP4)."""
    if path.lower().endswith(".gif"):
        from PIL import Image

        pictures = [Image.fromarray(f) for f in frames]
        palette = pictures[0].quantize(colors=255)  # one palette: steady colours
        indexed = [p.quantize(palette=palette, dither=Image.Dither.NONE) for p in pictures]
        indexed[0].save(
            path,
            format="GIF",
            save_all=True,
            append_images=indexed[1:],
            duration=int(1000 / fps),
            loop=0,
            optimize=True,
        )
        return
    import imageio.v2 as imageio

    with imageio.get_writer(path, fps=fps, codec="libx264", macro_block_size=2) as writer:
        for frame in frames:
            writer.append_data(frame)  # type: ignore[attr-defined]  # imageio's stub types the base writer
