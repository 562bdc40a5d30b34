"""OpenCL C coloured as a reader expects it: address-space qualifiers, keywords, types,
built-in functions, numbers, strings, preprocessor lines and comments each in their own
format, comments across lines included.

One left-to-right scan per line, so a ``//`` inside a string or a keyword inside a comment is
what it is; the only state carried from line to line is "inside a block comment"."""

from __future__ import annotations

import re

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

QUALIFIERS = frozenset((
    "__kernel", "kernel", "__global", "global", "__local", "local", "__constant", "constant",
    "__private", "private", "__read_only", "read_only", "__write_only", "write_only",
    "__read_write", "read_write", "__attribute__", "reqd_work_group_size",
))  # fmt: skip
KEYWORDS = frozenset((
    "const", "volatile", "restrict", "if", "else", "for", "while", "do", "return", "break",
    "continue", "switch", "case", "default", "struct", "union", "enum", "typedef", "inline",
    "static", "sizeof", "goto",
))  # fmt: skip
_SCALARS = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float",
            "double", "half")  # fmt: skip
TYPES = frozenset((
    *_SCALARS, "void", "bool", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t",
    *(f"{t}{n}" for t in _SCALARS for n in (2, 3, 4, 8, 16)),
    "image1d_t", "image2d_t", "image3d_t", "sampler_t", "event_t",
))  # fmt: skip
_BUILTIN = re.compile(
    r"get_(global|local|group)_(id|size|offset)|get_num_groups|get_work_dim|"
    r"barrier|work_group_barrier|(read_|write_)?mem_fence|CLK_\w+|"
    r"vload\w*|vstore\w*|atomic_\w+|atom_\w+|async_work_group\w*|wait_group_events|"
    r"prefetch|printf|mad|mad24|mul24|fma|min|max|clamp|dot|cross|length|normalize|"
    r"sqrt|rsqrt|exp2?|log2?|pow|fabs|abs|floor|ceil|native_\w+|half_\w+|convert_\w+|"
    r"as_\w+|select|mix|step|sign"
)

_TOKEN = re.compile(
    r"""(?P<block>/\*)
      | (?P<comment>//.*)
      | (?P<string>"(?:\\.|[^"\\])*"?|'(?:\\.|[^'\\])*'?)
      | (?P<number>(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[uUlLfFhH]*)
      | (?P<word>[A-Za-z_]\w*)""",
    re.VERBOSE,
)
_PREPROCESSOR = re.compile(r"\s*#")

# kind → (colour, bold, italic)
STYLES = {
    "qualifier": ("#0e6655", True, False),
    "keyword": ("#1f4e9c", True, False),
    "type": ("#2471a3", False, False),
    "builtin": ("#8e44ad", False, False),
    "number": ("#b9770e", False, False),
    "string": ("#1e8449", False, False),
    "comment": ("#7f8c8d", False, True),
    "preprocessor": ("#7d6608", False, False),
}
IN_BLOCK_COMMENT = 1


def word_kind(word: str) -> str | None:
    """What an identifier is to a reader of OpenCL C, or None for a plain name."""
    if word in QUALIFIERS:
        return "qualifier"
    if word in KEYWORDS:
        return "keyword"
    if word in TYPES:
        return "type"
    if _BUILTIN.fullmatch(word):
        return "builtin"
    return None


def _format(colour: str, bold: bool, italic: bool) -> QTextCharFormat:
    style = QTextCharFormat()
    style.setForeground(QColor(colour))
    if bold:
        style.setFontWeight(QFont.Weight.Bold)
    style.setFontItalic(italic)
    return style


class OpenCLHighlighter(QSyntaxHighlighter):
    """Colours a document of OpenCL C as it is typed."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self.formats = {kind: _format(*style) for kind, style in STYLES.items()}

    def highlightBlock(self, text: str) -> None:
        self.setCurrentBlockState(0)
        position = 0
        if self.previousBlockState() == IN_BLOCK_COMMENT:
            position = self._comment_from(text, 0, 0)
            if position < 0:
                return
        preprocessor = _PREPROCESSOR.match(text) is not None
        if preprocessor:
            self.setFormat(0, len(text), self.formats["preprocessor"])
        while (found := _TOKEN.search(text, position)) is not None:
            kind = found.lastgroup or ""
            position = found.end()
            if kind == "block":
                position = self._comment_from(text, found.start(), found.end())
                if position < 0:
                    return
                continue
            if kind == "word":
                if preprocessor:
                    continue
                kind = word_kind(found.group()) or ""
            if kind:
                self.setFormat(found.start(), found.end() - found.start(), self.formats[kind])

    def _comment_from(self, text: str, start: int, search_from: int) -> int:
        """A block comment from ``start``: where the line goes on after it, or -1 when it runs
        past the line's end."""
        end = text.find("*/", search_from)
        if end < 0:
            self.setFormat(start, len(text) - start, self.formats["comment"])
            self.setCurrentBlockState(IN_BLOCK_COMMENT)
            return -1
        self.setFormat(start, end + 2 - start, self.formats["comment"])
        return end + 2
