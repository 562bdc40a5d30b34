"""The ``#include`` lines of OpenCL C source, found as a preprocessor finds them, and those
that would have a build read a file outside a document's folder.

A document may come from anyone (a capture, a session, an Oclgrind ``.sim`` file), and a build
reads every file an ``#include`` names, a compiler error then quoting its lines: so a build
follows includes inside the document's folder only, until the person agrees to more. An
``#include`` that names a file outside (an absolute path, a ``..``, a link out, or a name made
by a macro, which cannot be checked) is listed before anything is built.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

from explorer.documents import is_inside
from explorer.engine.build_inputs import include_dirs
from explorer.paths import TEXT_LIMIT, UserFileError, check_user_file, read_user_text, shown

# Headers followed inside the capture folder, at most (a program includes a handful).
MAX_HEADERS = 256
_DIRECTIVE = re.compile(r"^[ \t\f\v]*(?:#|%:)[ \t\f\v]*(include_next|include|import|embed)\b(.*)$")
_NAMED = re.compile(r'^[ \t\f\v]*(?:"([^"]*)"|<([^>]*)>)')


@dataclass(frozen=True)
class Include:
    """One include-like directive: its physical line and the file name it gives (None: a
    name made by a macro)."""

    line: int
    name: str | None


def logical_lines(text: str) -> list[tuple[int, str]]:
    """``text`` as the preprocessor reads its directives: backslash-newlines joined (the
    ``??/`` trigraph too), comments gone, each line with the physical line it starts on."""
    text = text.replace("??=", "#").replace("??/", "\\").replace("\r\n", "\n")
    joined: list[str] = []
    starts: list[int] = []
    pending: list[str] = []
    start = 1
    for number, line in enumerate(text.split("\n"), 1):
        if not pending:
            start = number
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        pending.append(line)
        joined.append("".join(pending))
        starts.append(start)
        pending = []
    if pending:
        joined.append("".join(pending))
        starts.append(start)
    cleaned = _without_comments("\n".join(joined)).split("\n")
    return list(zip(starts, cleaned, strict=True))


# A string or character literal (kept), or a comment (made a space): one scan, left to right.
LITERAL_OR_COMMENT = re.compile(
    r""""(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?|//[^\n]*|/\*.*?(?:\*/|\Z)""", re.S
)


def _without_comments(text: str) -> str:
    """``text`` with each comment a space (a block comment keeps its newlines, so lines keep
    their places); string and character literals kept as they are."""

    def blank(match: re.Match[str]) -> str:
        found = match.group(0)
        if found.startswith(("//", "/*")):
            return " " + "\n" * found.count("\n")
        return found

    return LITERAL_OR_COMMENT.sub(blank, text)


def includes(
    text: str, cplusplus: bool = False, defined: frozenset[str] = frozenset()
) -> list[Include]:
    """Every ``#include`` (``#include_next``, ``#import``, ``#embed``) of ``text`` a build may
    read: all of them but those in a group no build of it enters (``#if 0``;
    ``#ifdef __cplusplus`` where the build is OpenCL C: ``cplusplus`` False and the text
    defines no ``__cplusplus`` itself; ``#ifdef CUDA``, ``__CUDACC__`` or ``__CUDA_ARCH__``
    where neither the build's options, ``defined``, nor the text define it). Every other
    condition counts as entered."""
    found = []
    cplusplus = cplusplus or bool(_DEFINES_CPLUSPLUS.search(text))
    groups = _Groups(cplusplus, defined | set(_DEFINES_CUDA.findall(text)))
    for number, line in logical_lines(text):
        conditional = _CONDITIONAL.match(line)
        if conditional is not None:
            groups.directive(conditional.group(1), conditional.group(2))
            continue
        directive = _DIRECTIVE.match(line)
        if directive is None or groups.skipped:
            continue
        named = _NAMED.match(directive.group(2))
        name = (
            None
            if named is None
            else (named.group(1) if named.group(1) is not None else named.group(2))
        )
        found.append(Include(number, name))
    return found


_CONDITIONAL = re.compile(r"^[ \t\f\v]*(?:#|%:)[ \t\f\v]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
# The names a CUDA compiler defines (and the one code shared with CUDA tests, as reikna's
# does): an OpenCL build has them only where its options or its text define them.
_CUDA = ("CUDA", "__CUDACC__", "__CUDA_ARCH__")
_DEFINES_CUDA = re.compile(
    r"(?:#|%:)[ \t\f\v]*(?:define|undef)[ \t\f\v]+(CUDA|__CUDACC__|__CUDA_ARCH__)\b"
)
_DEFINES_CPLUSPLUS = re.compile(r"(?:#|%:)[ \t\f\v]*(?:define|undef)[ \t\f\v]+__cplusplus\b")
_CPLUSPLUS_OPTION = re.compile(r"^-(?:cl-std=clc\+\+|D\s*__cplusplus\b|U\s*__cplusplus\b)", re.I)


def defined_by(options: tuple[str, ...]) -> frozenset[str]:
    """The macro names ``options`` define or undefine (``-DNAME``, ``-D NAME=1``, ``-U``)."""
    words = [*options, *(a + b for a, b in itertools.pairwise(options) if a in ("-D", "-U"))]
    return frozenset(
        re.split(r"[=\s]", word[2:].strip(), maxsplit=1)[0]
        for word in words
        if word[:2] in ("-D", "-U") and len(word) > 2
    )


def builds_cplusplus(options: tuple[str, ...]) -> bool:
    """Whether a build with ``options`` may have ``__cplusplus`` defined: C++ for OpenCL
    (``-cl-std=CLC++...``), or a ``-D``/``-U`` of it."""
    words = [a + b for a, b in itertools.pairwise(options) if a in ("-D", "-U")]
    return any(_CPLUSPLUS_OPTION.match(word) for word in (*options, *words))


class _Groups:
    """Which conditional group a line is in, as far as it can be told without a device: a
    group is skipped where its condition is known false (``0``, ``__cplusplus`` defined in
    an OpenCL C build) or a group before it in its chain is known taken (``1``, ``__cplusplus``
    undefined), and everything inside a skipped group is skipped."""

    def __init__(self, cplusplus: bool, defined: frozenset[str] = frozenset()) -> None:
        self._cplusplus = cplusplus
        self._defined = defined
        # per open #if: (the group around it is skipped, this group is, one before it is taken)
        self._stack: list[tuple[bool, bool, bool]] = []

    @property
    def skipped(self) -> bool:
        return bool(self._stack) and self._stack[-1][1]

    def directive(self, kind: str, rest: str) -> None:
        if kind in ("if", "ifdef", "ifndef"):
            outer = self.skipped
            truth = self._truth(kind, rest)
            self._stack.append((outer, outer or truth is False, truth is True))
        elif not self._stack:
            return  # unbalanced: the compiler says so
        elif kind == "endif":
            self._stack.pop()
        else:
            outer, _, taken = self._stack[-1]
            truth = self._truth("if", rest) if kind == "elif" else True
            self._stack[-1] = (outer, outer or taken or truth is False, taken or truth is True)

    def _truth(self, kind: str, rest: str) -> bool | None:
        """Whether the condition holds in every build (True), in none (False), or either."""
        condition = re.sub(r"\s+", "", rest)
        if kind != "if":
            name = rest.split()[0] if rest.split() else ""
            condition = f"{'!' if kind == 'ifndef' else ''}defined({name})"
        if condition in ("0", "1"):
            return condition == "1"
        negated = condition.startswith("!")
        name = condition.removeprefix("!").removeprefix("defined").strip("()")
        if name == "__cplusplus" and not self._cplusplus:
            return negated  # __cplusplus is not defined in an OpenCL C build
        if name in _CUDA and name not in self._defined:
            return negated  # a CUDA build's names: not defined unless the build defines them
        return None


def includes_outside(
    folder: Path, source: Path, text: str, options: tuple[str, ...], place: str
) -> tuple[str, ...]:
    """The ``#include`` lines of a document's kernel (``text``, the file ``source`` inside
    ``folder``: a session's kernel file, a ``.sim`` file's program) and of the headers they
    find inside ``folder``, that would have a build read a file outside it (a compiler error
    quotes its lines), each as "FILE line N includes NAME, ..."; ``place`` names the folder
    in them ("the session's folder"). Its ``-I`` folders inside ``folder`` are searched too.
    Nothing outside ``folder`` is read."""
    cplusplus = builds_cplusplus(options)
    defined = defined_by(options)
    found = includes(text, cplusplus, defined)
    if not found:
        return ()
    searched = [source.parent] + [
        Path(named) for named in include_dirs(options) if is_inside(folder, named)
    ]
    where = os.path.relpath(source, folder) if is_inside(folder, source) else source.name
    return outside_files(folder, found, searched, where, cplusplus, defined, place)


def outside_files(
    folder: Path,
    found: list[Include],
    searched: list[Path],
    where: str,
    cplusplus: bool,
    defined: frozenset[str],
    place: str = "the capture folder",
) -> tuple[str, ...]:
    """The ``#include`` lines (of the source, and of the headers they find inside the capture
    folder) that would read a file outside it, each as "FILE line N includes NAME"."""
    outside: list[str] = []
    pending = [(where, found, searched[0])]
    seen: set[str] = set()
    while pending and len(seen) <= MAX_HEADERS:
        label, lines, beside = pending.pop()
        for include in lines:
            at = f"{label} line {include.line}"
            name = include.name
            if name is None:
                outside.append(f"{at} includes a file named by a macro, which cannot be checked")
                continue
            if _absolute(name):
                outside.append(f"{at} includes {shown(name, 200)}, outside {place}")
                continue
            # A name that climbs (..) is followed as the compiler does, each folder's links
            # first: "../common.h" from a folder inside may well stay inside.
            climbs = ".." in PurePosixPath(name.replace("\\", "/")).parts
            for folder_searched in [beside, *searched]:
                joined = os.path.join(folder_searched, name)
                candidate = Path(os.path.realpath(joined) if climbs else os.path.normpath(joined))
                if not os.path.lexists(candidate):
                    continue
                if os.path.exists(candidate) and not candidate.is_dir():
                    try:  # its kind and size only, inside or out: a device or a FIFO, which
                        # a build would read or wait on for good, is no header even agreed to
                        check_user_file(candidate, "header", TEXT_LIMIT)
                    except UserFileError as exc:
                        raise UserFileError(f"{at}: {exc}") from None
                if not is_inside(folder, candidate):
                    how = "outside" if climbs else "a link out of"
                    outside.append(f"{at} includes {shown(name, 200)}, {how} {place}")
                elif not candidate.is_dir() and str(candidate) not in seen:
                    # a named pipe or a device too: read_user_text refuses it, where a build
                    # would wait on it for good
                    seen.add(str(candidate))
                    try:
                        header = read_user_text(candidate, "header", TEXT_LIMIT)
                    except UserFileError as exc:
                        raise UserFileError(f"{at}: {exc}") from None
                    relative = os.path.relpath(
                        candidate, os.path.realpath(folder) if climbs else folder
                    )
                    pending.append(
                        (relative, includes(header, cplusplus, defined), candidate.parent)
                    )
                break
            else:
                if not _shipped(name):
                    outside.append(f"{at} includes {shown(name, 200)}, which is not in {place}")
    return tuple(outside)


def _shipped(name: str) -> bool:
    """Whether ``name`` is one of the headers pyopencl ships (``pyopencl-complex.h``), which
    every pyopencl build finds: part of the software, not of anyone's files."""
    spec = importlib.util.find_spec("pyopencl")
    for location in (spec.submodule_search_locations or []) if spec else []:
        if os.path.isfile(os.path.join(location, "cl", name)):
            return True
    return False


def _absolute(name: str) -> bool:
    """Whether an include name is absolute (out of any folder), or no name a file has."""
    for flavour in (PurePosixPath(name), PureWindowsPath(name)):
        if flavour.is_absolute() or flavour.drive or flavour.root:
            return True
    return "\0" in name
