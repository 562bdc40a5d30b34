"""A value written in a cell: the same number or a visibly cut one, never another number.

A cell too narrow for ``1.5`` must not say ``2`` (a class then reads A = 2·I). The text is the
shortest decimal that reads back as the value at the buffer's precision; where even that is
wider than the cell, its leading digits followed by CUT ("1234…", ".33…"): the legend says
that the mark means more digits, and hovering the cell gives the value whole.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

CUT = "…"  # more digits than the cell holds; explained in the legend
# The Step menu's "Values in full": the keyboard's way to read a cut value whole (the
# followed work-item's values, with every digit), named in the room view's titles.
DIGITS_KEY = "Ctrl+Shift+D"


def exact_text(value: float) -> str:
    """The shortest text that reads back as ``value``: at float32 precision where the value
    is a float32 (a buffer's element), else at float64; a leading zero dropped (".5");
    "" for NaN and infinities (no value)."""
    if not np.isfinite(value):
        return ""
    if value == 0:
        return "0"
    single = float(np.float32(value)) == value
    number = np.float32(value) if single else np.float64(value)
    plain = np.format_float_positional(number, unique=True, trim="-")
    science = np.format_float_scientific(number, unique=True, trim="-")
    text = science if len(science) < len(plain) else plain
    if text.startswith("0."):
        text = text[1:]
    elif text.startswith("-0."):
        text = "-" + text[2:]
    return text


def cut_texts(text: str) -> list[str]:
    """Shorter forms of an exact ``text``, longest first, each its leading digits and CUT:
    every digit before the point is kept (1234.5678 → "1234.5…" … "1234…", never "123…",
    which would read as a tenth of it); a number in scientific form gives none."""
    if not text or "e" in text:
        return []
    whole, _point, fraction = text.partition(".")
    cuts = [f"{whole}.{fraction[:k]}{CUT}" for k in range(len(fraction) - 1, 0, -1)]
    if fraction and whole not in ("", "-"):
        cuts.append(whole + CUT)
    elif fraction and whole == "-":
        cuts.append("-" + CUT)
    return cuts


def readable_cut(text: str, digits: int = 2) -> str:
    """The shortest cut of ``text`` that still gives ``digits`` significant digits (".33…",
    "-.062…", "1234…"); ``text`` itself where no cut is that long."""
    for cut in reversed(cut_texts(text)):
        body = cut.removesuffix(CUT).lstrip("-")
        if body and (not body.startswith(".") or len(body.lstrip(".0")) >= digits):
            return cut
    return text


def fitted_text(value: float, fits: Callable[[str], bool]) -> str:
    """``value`` as the widest text that fits: exact, else cut with CUT, else CUT alone;
    "" where the value is none or not even CUT fits."""
    exact = exact_text(value)
    if not exact or fits(exact):
        return exact
    for text in cut_texts(exact):
        if fits(text):
            return text
    return CUT if fits(CUT) else ""


def value_label(value: float, chars: int = 5) -> str:
    """A cell's value in at most ``chars`` characters where it can be (1.5, .75, 12,
    .333…, 1234…): the same number, or cut with the mark; never rounded to another. Where
    no form is that short, the shortest (every digit before the point is kept)."""
    exact = exact_text(value)
    forms = [exact, *cut_texts(exact)]
    return next((text for text in forms if len(text) <= chars), forms[-1])


def same_number(text: str, value: float) -> bool:
    """Whether ``text`` reads back as ``value`` (at float32 precision for a float32)."""
    try:
        read = float(text)
    except ValueError:
        return False
    if read == value:
        return True
    return float(np.float32(value)) == value and np.float32(read) == np.float32(value)
