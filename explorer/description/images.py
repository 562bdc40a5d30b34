"""Reading a user's image as a grey matrix, and writing results as PNG, with Pillow.

Reads every format Pillow decodes (PNG of any bit depth, palette or interlacing, PGM/PPM,
JPEG, ...) and ``.npy``. The GUI may load any format Qt reads and hand over the array instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from explorer.paths import UserFileError, check_user_file, load_user_array, shown

if TYPE_CHECKING:
    from PIL import Image

# Pillow is imported where an image is read or written: every family's module imports this
# one, and a kernel without an image (most traces, the command line's) need not pay for it.


class ImageError(ValueError):
    """An image that cannot be read; the message names the file and says why."""


def load_grey(path: str | Path) -> np.ndarray:
    """The image as float64 in [0, 1], shape (rows, cols)."""
    path = Path(path)
    try:
        check_user_file(path, "image")
        with path.open("rb") as file:
            is_npy = file.read(6) == b"\x93NUMPY"
    except UserFileError as exc:
        raise ImageError(str(exc)) from None
    except OSError as exc:
        raise ImageError(f"cannot read image {shown(path)}: {exc.strerror}") from None
    if is_npy:
        return _npy(path)
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            if image.width * image.height > _MAX_PIXELS:
                raise ImageError(
                    f"{path}: {image.width}×{image.height} pixels is more than any size the "
                    f"explorer runs ({_MAX_PIXELS} pixels); scale the image down"
                )
            return _finite(_grey(image), path)
    except Image.DecompressionBombError as exc:
        raise ImageError(f"{path}: refused as too large to decode safely: {exc}") from None
    except UnidentifiedImageError:
        raise ImageError(
            f"{path}: not an image file Pillow can read (PNG, PGM/PPM, .npy)"
        ) from None
    except (OSError, ValueError, SyntaxError) as exc:  # truncated or corrupt data
        raise ImageError(f"{path}: cannot decode the image: {exc}") from None


_MAX_PIXELS = 2**28


def _finite(grey: np.ndarray, path: Path) -> np.ndarray:
    """An image with NaN or infinite pixels would make inputs no kernel can get right, and
    the verdict would blame the kernel: refuse it, naming the file."""
    if grey.size == 0:
        raise ImageError(f"{path}: the image has no pixels; use an image at least 1×1")
    bad = int(np.count_nonzero(~np.isfinite(grey)))
    if bad:
        raise ImageError(
            f"{path}: {bad} pixels are NaN or infinite; replace them with numbers "
            "(e.g. numpy.nan_to_num) and load the image again"
        )
    return grey


def _grey(image: Image.Image) -> np.ndarray:
    """Luminance in [0, 1], whatever the mode: 16-bit grey keeps its precision."""
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        data = np.asarray(image, dtype=np.float64)
        top = 65535.0 if data.max(initial=0) > 255 or image.mode.startswith("I;16") else 255.0
        return np.clip(data / top, 0.0, 1.0)
    if image.mode == "F":
        data = np.asarray(image, dtype=np.float64)
        if not np.isfinite(data).all():
            return data  # refused by the caller, with the file's name
        span = float(np.ptp(data)) or 1.0
        return (data - data.min()) / span
    if image.mode not in ("L", "LA", "RGB", "RGBA"):
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
    pixels = np.asarray(image, dtype=np.float64) / 255.0
    if pixels.ndim == 2:
        return pixels
    return pixels[..., :3].mean(axis=2) if pixels.shape[2] >= 3 else pixels[..., 0]


def _npy(path: Path) -> np.ndarray:
    try:
        array = load_user_array(path, "image")
    except UserFileError as exc:
        raise ImageError(str(exc)) from None
    if array.ndim != 2:
        raise ImageError(f"{path}: a .npy image must be 2-D, got shape {array.shape}")
    if array.dtype.kind not in "biuf":
        raise ImageError(
            f"{path}: a .npy image holds numbers (int or float), not {array.dtype}; "
            "save it with a numeric dtype"
        )
    if array.size > _MAX_PIXELS:
        raise ImageError(f"{path}: {array.size} pixels is more than any size the explorer runs")
    array = _finite(array.astype(np.float64), path)
    span = float(np.ptp(array)) or 1.0
    return (array - array.min()) / span


def resample(image: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Nearest-neighbour resampling to ``rows × cols``."""
    ys = np.arange(rows) * image.shape[0] // max(rows, 1)
    xs = np.arange(cols) * image.shape[1] // max(cols, 1)
    return image[ys[:, None], xs[None, :]]


def flat_picture(values: np.ndarray) -> np.ndarray:
    """An array as a 2-D picture: a 1-D or 2-D array as it is; an image's (H, W, channels)
    with each pixel's channels side by side in its row, (H, W·channels); a 3-D image's
    (D, H, W[, channels]) slice under slice, (D·H, W[·channels]). Three axes whose last
    holds 2 or 4 values are read as channels."""
    array = np.asarray(values)
    if array.ndim <= 2:
        return array
    if array.ndim == 3 and array.shape[-1] in (2, 4):
        return array.reshape(array.shape[0], -1)
    if array.ndim == 3:
        return array.reshape(-1, array.shape[-1])
    return array.reshape(array.shape[0] * array.shape[1], -1)


def to_rgb8(values: np.ndarray) -> np.ndarray:
    """Scale an array (as :func:`flat_picture` lays it out) to grey RGB bytes; NaN in
    magenta.

    The scale always spans [0, 1] at least, so the IOU product (0.75 with text in 0)
    comes out as dark text on grey, as in seed 003.
    """
    data = np.atleast_2d(flat_picture(np.asarray(values, dtype=np.float64)))
    finite = np.isfinite(data)
    lo = min(float(data[finite].min()), 0.0) if finite.any() else 0.0
    hi = max(float(data[finite].max()), 1.0) if finite.any() else 1.0
    span = hi - lo if hi > lo else 1.0
    grey = np.clip((np.where(finite, data, lo) - lo) / span * 255.0 + 0.5, 0, 255).astype(np.uint8)
    rgb = np.repeat(grey[..., None], 3, axis=2)
    rgb[~finite] = (255, 0, 255)
    return rgb


def save_png(values: np.ndarray, path: str | Path) -> None:
    """Write an array as an 8-bit RGB PNG (see :func:`to_rgb8`)."""
    from PIL import Image

    rgb = values if values.dtype == np.uint8 and values.ndim == 3 else to_rgb8(values)
    Image.fromarray(np.ascontiguousarray(rgb[..., :3])).save(path, format="PNG")
