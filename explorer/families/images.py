"""Reading a user's image as a grey matrix, with the standard library and numpy only.

Supports PNG (8-bit grey, grey+alpha, RGB, RGBA; not interlaced), binary PGM/PPM and
``.npy``. The GUI may load any format Qt reads and hand over the array instead.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np


class ImageError(ValueError):
    """An image that cannot be read; the message says why."""


def load_grey(path: str | Path) -> np.ndarray:
    """The image as float64 in [0, 1], shape (rows, cols)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImageError(f"cannot read image {path}: {exc.strerror}") from None
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return _png(data, path)
    if data[:2] in (b"P5", b"P6"):
        return _netpbm(data, path)
    if data.startswith(b"\x93NUMPY"):
        array = np.load(path, allow_pickle=False)
        if array.ndim != 2:
            raise ImageError(f"{path}: a .npy image must be 2-D, got shape {array.shape}")
        array = array.astype(np.float64)
        span = float(np.ptp(array)) or 1.0
        return (array - array.min()) / span
    raise ImageError(f"{path}: not a PNG, PGM/PPM or .npy file")


def resample(image: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Nearest-neighbour resampling to ``rows × cols``."""
    ys = np.arange(rows) * image.shape[0] // max(rows, 1)
    xs = np.arange(cols) * image.shape[1] // max(cols, 1)
    return image[ys[:, None], xs[None, :]]


def _png(data: bytes, path: Path) -> np.ndarray:
    pos, idat, header = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None:
        raise ImageError(f"{path}: PNG without a header")
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ImageError(
            f"{path}: only 8-bit, non-interlaced grey or RGB(A) PNGs are read here; "
            "save it as such or as PGM"
        )
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8)
    stride = width * channels
    rows = raw.reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.int32)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:].astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prev) & 0xFF
        else:
            cur = _unfilter_sequential(kind, line, prev, channels)
        out[y] = cur
        prev = cur
    pixels = out.reshape(height, width, channels).astype(np.float64) / 255.0
    return pixels[..., :3].mean(axis=2) if channels >= 3 else pixels[..., 0]


def _unfilter_sequential(kind: int, line: np.ndarray, prev: np.ndarray, bpp: int) -> np.ndarray:
    cur = np.zeros_like(line)
    for i in range(line.size):
        left = cur[i - bpp] if i >= bpp else 0
        up = prev[i]
        upleft = prev[i - bpp] if i >= bpp else 0
        if kind == 1:
            pred = left
        elif kind == 3:
            pred = (left + up) // 2
        elif kind == 4:
            p = left + up - upleft
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - upleft)
            pred = left if pa <= pb and pa <= pc else (up if pb <= pc else upleft)
        else:
            raise ImageError(f"unknown PNG filter {kind}")
        cur[i] = (line[i] + pred) & 0xFF
    return cur


def _netpbm(data: bytes, path: Path) -> np.ndarray:
    fields: list[bytes] = []
    pos = 2
    while len(fields) < 3:
        while data[pos : pos + 1].isspace():
            pos += 1
        if data[pos : pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        start = pos
        while not data[pos : pos + 1].isspace():
            pos += 1
        fields.append(data[start:pos])
    width, height, maxval = (int(f) for f in fields)
    channels = 3 if data[:2] == b"P6" else 1
    dtype = np.uint8 if maxval < 256 else np.dtype(">u2")
    count = width * height * channels
    pixels = np.frombuffer(data, dtype=dtype, count=count, offset=pos + 1).astype(np.float64)
    pixels = pixels.reshape(height, width, channels) / maxval
    return pixels.mean(axis=2)


def to_rgb8(values: np.ndarray) -> np.ndarray:
    """Scale a 1-D or 2-D array to grey RGB bytes; NaN in magenta.

    The scale always spans [0, 1] at least, so the IOU product (0.75 with text in 0)
    comes out as dark text on grey, as in seed 003.
    """
    data = np.atleast_2d(np.asarray(values, dtype=np.float64))
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
    rgb = values if values.dtype == np.uint8 and values.ndim == 3 else to_rgb8(values)
    height, width = rgb.shape[:2]
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )
    Path(path).write_bytes(png)


_GIF_LEVELS = (6, 7, 6)  # red, green, blue levels of the fixed 252-colour palette
_GIF_RUN = 200  # literals between clear codes: keeps every LZW code 9 bits wide


def _gif_palette() -> np.ndarray:
    r, g, b = (np.linspace(0, 255, n).round().astype(np.uint8) for n in _GIF_LEVELS)
    grid = np.stack(np.meshgrid(r, g, b, indexing="ij"), axis=-1).reshape(-1, 3)
    palette = np.zeros((256, 3), dtype=np.uint8)
    palette[: len(grid)] = grid
    return palette


def _gif_indices(rgb: np.ndarray) -> np.ndarray:
    levels = np.array(_GIF_LEVELS) - 1
    q = np.rint(rgb.astype(np.float64) / 255.0 * levels).astype(np.int64)
    return (
        q[..., 0] * _GIF_LEVELS[1] * _GIF_LEVELS[2] + q[..., 1] * _GIF_LEVELS[2] + q[..., 2]
    ).astype(np.uint16)


def _gif_lzw(indices: np.ndarray) -> bytes:
    """Literal-only LZW (a clear code every few pixels): larger than real LZW, but exact,
    vectorised, and read by every decoder."""
    clear, end = 256, 257
    flat = indices.ravel().astype(np.uint16)
    chunks = np.array_split(flat, max(1, -(-flat.size // _GIF_RUN)))
    codes = np.concatenate(
        [np.concatenate([[clear], chunk]) for chunk in chunks] + [np.array([end])]
    ).astype(np.uint16)
    bits = ((codes[:, None] >> np.arange(9, dtype=np.uint16)) & 1).astype(np.uint8).ravel()
    data = np.packbits(bits, bitorder="little").tobytes()
    blocks = b"".join(
        bytes([len(data[i : i + 255])]) + data[i : i + 255] for i in range(0, len(data), 255)
    )
    return bytes([8]) + blocks + b"\x00"


def save_gif(frames: list[np.ndarray], path: str | Path, delay_ms: int = 500) -> None:
    """Write RGB frames (all the same size, uint8) as a looping animated GIF."""
    if not frames:
        raise ValueError("no frames to write")
    height, width = frames[0].shape[:2]
    out = bytearray(b"GIF89a")
    out += struct.pack("<HHBBB", width, height, 0xF7, 0, 0)
    out += _gif_palette().tobytes()
    out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"  # loop forever
    delay = max(1, delay_ms // 10)
    for frame in frames:
        if frame.shape[:2] != (height, width):
            raise ValueError("all frames must have the same size")
        out += b"\x21\xf9\x04\x04" + struct.pack("<H", delay) + b"\x00\x00"
        out += b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0)
        out += _gif_lzw(_gif_indices(frame[..., :3]))
    out += b"\x3b"
    Path(path).write_bytes(bytes(out))
