"""Where a reported line stands in the text on screen, under the text's ``#line`` directives.

A compiler and the trace number a kernel's lines as its ``#line`` directives say (the
*presumed* line): a kernel file whose catalog header is followed by ``#line 1`` counts its
code from 1 after the directive, and a captured program's ``-D`` macros stand before a
``#line 1``. A window shows the whole text, so each presumed line needs its place in that
text (the *physical* line), and back. A text without ``#line`` is numbered as it stands.

Lines that are not the kernel's have no presumed line: a directive itself, the leading
``/*--- ... ---*/`` header comment of a text with directives, and the lines under a
``#line N "name"`` that names another file (a compiler message naming that file finds them;
the trace's lines, which carry no file, never do).
"""

from __future__ import annotations

import functools
import re

LINE_DIRECTIVE = re.compile(r'^[ \t]*#[ \t]*line[ \t]+(\d+)(?:[ \t]+"((?:[^"\\\n]|\\.)*)")?')
# The catalog header, the one definition every reader of headers uses: the text's first
# non-blank line is ``/*---`` alone, the TOML follows, and a line starting ``---*/`` ends it.
HEADER = re.compile(r"\A\s*/\*---[ \t]*\r?\n(?P<toml>.*?)\r?\n[ \t]*---\*/", re.DOTALL)
OWN = ""  # the file of the kernel's own lines: the text's, no directive having named another


def split_lines(text: str) -> list[str]:
    """The text's lines as an editor and a compiler count them (a trailing newline ends the
    last line with an empty one; a ``\\r`` before a newline stays on its line)."""
    return text.split("\n")


# A compiler message's place: ``file:line:`` or ``file:line:column:`` (PoCL puts ``error: ``
# before the file, NVIDIA's driver and clang put ``file:line:col: error:`` first).
_LOG_PLACE = re.compile(r":(?P<line>\d+):(?:\d+:)?")
_SEVERITY = re.compile(r"^(?:fatal error|error|warning|note|remark):\s*")


def log_place(message: str) -> tuple[str, int] | None:
    """The file and line one line of a build log names (``error: /k/helpers.h:3:5: ...`` →
    ``("/k/helpers.h", 3)``, a name with spaces whole; the file "" where none is written
    before the line); None for a line naming no place."""
    found = _LOG_PLACE.search(message)
    if found is None:
        return None
    return _SEVERITY.sub("", message[: found.start()].strip()), int(found.group("line"))


def is_own_file(file: str, own: str, named: frozenset[str] = frozenset()) -> bool:
    """Whether ``file``, as a build log names it, is the kernel's own text (``own``, the name
    the log gives it; "" where it is not known) rather than an included file or a file a
    ``#line N "name"`` of the text names (``named``). Without ``own``, a name with a folder
    is another file's: the compiler names an included file by the path it found it at."""
    if any(file == n or file.endswith(("/" + n, "\\" + n)) for n in named):
        return False
    if own:
        return file in ("", own)
    return "/" not in file and "\\" not in file


class LineNumbering:
    """Each physical line's presumed line (file, number), or None where the line is not the
    kernel's; built by :func:`line_numbering`."""

    def __init__(self, presumed: tuple[tuple[str, int] | None, ...], directed: bool) -> None:
        self.presumed_lines = presumed
        self.directed = directed
        self.named = frozenset(p[0] for p in presumed if p is not None and p[0] != OWN)
        places: dict[tuple[str, int], int] = {}
        for physical, where in enumerate(presumed, 1):
            if where is not None:
                places[where] = physical  # the last wins: the code after the last #line
        self._places = places

    def physical(self, line: int, file: str = OWN) -> int | None:
        """The physical line (1-based) of presumed ``line``; None where the text has none.

        ``file`` is the name a compiler message gives: a name that one of the text's
        directives gives selects the lines under that directive; any other is the kernel's
        own file (a compiler names it after the file the person opened, which the text does
        not say). Where several lines carry the number, the last one (the code after the last
        directive that reaches it) is the one."""
        if not self.directed:
            return line if 0 < line <= len(self.presumed_lines) else None
        return self._places.get((file if file in self.named else OWN, line))

    def place(self, physical: int) -> tuple[str, int] | None:
        """The file (:data:`OWN`, or the name a directive gave) and presumed line of physical
        line ``physical`` (1-based); None for a directive, the header or no such line."""
        if not 0 < physical <= len(self.presumed_lines):
            return None
        return self.presumed_lines[physical - 1]

    def presumed(self, physical: int) -> int | None:
        """The kernel's presumed line at physical line ``physical`` (1-based); None for a line
        that is not the kernel's (a directive, the header, another file's)."""
        where = self.place(physical)
        return where[1] if where is not None and where[0] == OWN else None


@functools.lru_cache(maxsize=16)
def line_numbering(text: str) -> LineNumbering:
    """The presumed line of every physical line of ``text`` (see the module's docstring)."""
    lines = split_lines(text)
    header = header_lines(text)
    directives = [None if i < header else LINE_DIRECTIVE.match(t) for i, t in enumerate(lines)]
    if not any(directives):
        return LineNumbering(tuple((OWN, n) for n in range(1, len(lines) + 1)), False)
    presumed: list[tuple[str, int] | None] = []
    file, number = OWN, 1
    for index, directive in enumerate(directives):
        if directive is not None:
            presumed.append(None)
            number = int(directive.group(1))
            if directive.group(2) is not None:
                file = directive.group(2)
            continue
        presumed.append(None if index < header else (file, number))
        number += 1
    return LineNumbering(tuple(presumed), True)


def header_lines(text: str) -> int:
    """How many leading lines of ``text`` the catalog header takes (0: none), the line
    holding its ``---*/`` included."""
    found = HEADER.match(text)
    return found.group(0).count("\n") + 1 if found else 0
