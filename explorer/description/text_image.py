"""Text drawn into a matrix with a small built-in bitmap font (numpy only).

Seed 003 multiplies 1.5·I by a matrix of 0.5 with "IOU" drawn in 0: the product must
show the text. A wrong tile index scrambles it, which is easy to see.
"""

from __future__ import annotations

import numpy as np

# 5×7 glyphs, one string of five columns' worth of bits per row ('#' = ink).
_GLYPHS: dict[str, tuple[str, ...]] = {
    "A": (" ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"),
    "B": ("#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "),
    "C": (" ### ", "#   #", "#    ", "#    ", "#    ", "#   #", " ### "),
    "D": ("#### ", "#   #", "#   #", "#   #", "#   #", "#   #", "#### "),
    "E": ("#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####"),
    "F": ("#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#    "),
    "G": (" ### ", "#   #", "#    ", "# ###", "#   #", "#   #", " ####"),
    "H": ("#   #", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"),
    "I": (" ### ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "),
    "J": ("  ###", "   # ", "   # ", "   # ", "   # ", "#  # ", " ##  "),
    "K": ("#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"),
    "L": ("#    ", "#    ", "#    ", "#    ", "#    ", "#    ", "#####"),
    "M": ("#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"),
    "N": ("#   #", "#   #", "##  #", "# # #", "#  ##", "#   #", "#   #"),
    "O": (" ### ", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "),
    "P": ("#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    "),
    "Q": (" ### ", "#   #", "#   #", "#   #", "# # #", "#  # ", " ## #"),
    "R": ("#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #"),
    "S": (" ####", "#    ", "#    ", " ### ", "    #", "    #", "#### "),
    "T": ("#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "),
    "U": ("#   #", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "),
    "V": ("#   #", "#   #", "#   #", "#   #", "#   #", " # # ", "  #  "),
    "W": ("#   #", "#   #", "#   #", "# # #", "# # #", "# # #", " # # "),
    "X": ("#   #", "#   #", " # # ", "  #  ", " # # ", "#   #", "#   #"),
    "Y": ("#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  "),
    "Z": ("#####", "    #", "   # ", "  #  ", " #   ", "#    ", "#####"),
    "0": (" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "),
    "1": ("  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "),
    "2": (" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"),
    "3": ("#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "),
    "4": ("   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "),
    "5": ("#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "),
    "6": ("  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "),
    "7": ("#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "),
    "8": (" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "),
    "9": (" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "),
    " ": ("     ",) * 7,
    "-": ("     ", "     ", "     ", "#####", "     ", "     ", "     "),
    ".": ("     ", "     ", "     ", "     ", "     ", " ##  ", " ##  "),
    "!": ("  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "     ", "  #  "),
    "?": (" ### ", "#   #", "    #", "   # ", "  #  ", "     ", "  #  "),
    "+": ("     ", "  #  ", "  #  ", "#####", "  #  ", "  #  ", "     "),
    "=": ("     ", "     ", "#####", "     ", "#####", "     ", "     "),
    "/": ("    #", "    #", "   # ", "  #  ", " #   ", "#    ", "#    "),
    ":": ("     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     "),
}
_GLYPH_W, _GLYPH_H, _GAP = 5, 7, 1

SUPPORTED = frozenset(_GLYPHS) | frozenset(c.lower() for c in _GLYPHS if c.isalpha())


def text_mask(text: str, rows: int, cols: int) -> np.ndarray:
    """A ``rows × cols`` boolean mask with ``text`` drawn large and centred.

    Letters are upper-cased; characters the font lacks are drawn as blanks.
    """
    mask = np.zeros((rows, cols), dtype=bool)
    text = text.upper()
    if not text or rows < 1 or cols < 1:
        return mask
    bitmap = np.hstack(
        [
            np.pad(
                np.array([[c == "#" for c in row] for row in _GLYPHS.get(ch, _GLYPHS[" "])]),
                ((0, 0), (0, _GAP)),
            )
            for ch in text
        ]
    )[:, :-_GAP]
    # As large as fits in 80% of the width and 45% of the height, like the seed's text.
    scale = max(1, min(int(0.8 * cols / bitmap.shape[1]), int(0.45 * rows / _GLYPH_H)))
    if bitmap.shape[1] > cols or rows < _GLYPH_H:
        # Too small for one pixel a dot: sample the bitmap down to the matrix.
        ys = (np.arange(rows) * _GLYPH_H // rows)[:, None]
        xs = (np.arange(cols) * bitmap.shape[1] // cols)[None, :]
        return bitmap[ys, xs]
    big = np.kron(bitmap, np.ones((scale, scale), dtype=bool))
    top = (rows - big.shape[0]) // 2
    left = (cols - big.shape[1]) // 2
    mask[top : top + big.shape[0], left : left + big.shape[1]] = big
    return mask
