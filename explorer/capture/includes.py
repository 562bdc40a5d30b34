"""What a captured program's build reads besides its own source: the files its ``#include``
lines name, found in the folder it was built in (``cwd``) and its ``-I`` folders.

The recorder copies the headers the build read into the capture (``programs/include/N/K``,
one folder for each folder the build searched, pyopencl's own among them; the program's
``include`` lists them in order): a replay of such a capture searches those copies only and
reads nothing outside. An older capture names the program's own folders only:

A capture folder may come from anyone, and a build reads every file an ``#include`` names
(a compiler error then quotes its lines). So a replay follows includes inside the capture
folder only, until the person agrees to more (``--allow-outside``, or the window's
question): without that, the program's own folders outside the capture are not searched (the
replay says so), and an ``#include`` that names a file outside the capture (an absolute path,
a ``..``, a link out, or a name made by a macro, which cannot be checked) is refused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from explorer.capture.folder import Capture, CapturedProgram, CaptureError, as_capture_error
from explorer.documents import is_inside
from explorer.engine.build_inputs import include_dirs
from explorer.engine.header.include_lines import (  # the scanning, shared with .sim files
    Include,
    builds_cplusplus,
    defined_by,
    includes,
    includes_outside,
    logical_lines,
    outside_files,
)
from explorer.paths import TEXT_LIMIT, UserFileError, read_user_text, shown

__all__ = [
    "Include",
    "builds_cplusplus",
    "defined_by",
    "includes",
    "includes_outside",
    "logical_lines",
]

FLAG = "--allow-outside"


@dataclass(frozen=True)
class IncludePlan:
    """How a replay builds a program with ``#include`` lines: the ``-I`` options it gets, the
    folders outside the capture it would search (with the person's agreement: ``allowed``),
    and the files outside it its ``#include`` lines name."""

    options: tuple[str, ...]
    folders: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    allowed: bool = False
    includes: bool = True  # whether the source has #include lines at all

    @property
    def outside(self) -> tuple[str, ...]:
        return self.folders + self.files

    def notes(self) -> tuple[str, ...]:
        """What the replay did not use, and why ("" where everything was used)."""
        if self.allowed or not self.folders:
            return ()
        return (
            f"not searched for #include files: {'; '.join(self.folders)} (outside the capture "
            f"folder; a capture may come from anyone). Give {FLAG} to build with them (the "
            "window asks when the capture is opened)",
        )

    def check(self) -> None:
        """Refuse a build that would read a file outside the capture unasked (a compiler, and
        the explorer's C front end, read every file an ``#include`` names)."""
        if not self.files or self.allowed:
            return
        more = f" ({len(self.files) - 1} more such includes)" if len(self.files) > 1 else ""
        folders = f" (the program's own: {'; '.join(self.folders)})" if self.folders else ""
        raise CaptureError(
            f"{self.files[0]}{more}. Files outside the capture folder{folders} are not read "
            f"unless you agree: give {FLAG} (the window asks when the capture is opened)"
        )


def plan_includes(capture: Capture, program: CapturedProgram, allow: bool) -> IncludePlan:
    """The include plan of a program of ``capture`` (one built from source). None of it is
    read outside the capture folder."""
    index = capture.programs.index(program)
    field = f"{capture.document}: programs[{index}].source"
    if program.source is None:
        raise CaptureError(f"{field}: the program was built from a binary, not source")
    with as_capture_error():
        source = capture.path(program.source, field)
        text = read_user_text(source, "program source", TEXT_LIMIT)
    folder, where = capture.folder, program.source
    cplusplus = builds_cplusplus(program.options)
    defined = defined_by(program.options)
    found = includes(text, cplusplus, defined)
    if not found:
        return IncludePlan((), allowed=allow, includes=False)
    base = Path(program.cwd) if program.cwd else None
    searched: list[tuple[str, Path]] = []
    if program.include:  # the folders the build searched, copied with the headers it read
        for copy in program.include:
            with as_capture_error():
                searched.append((f"the headers copied into {copy}", capture.path(copy, field)))
    else:  # an older capture: the program's own folders, where they are
        if base is not None:
            searched.append(("the folder the program was built in", base))
        for named in include_dirs(program.options):
            path = Path(named)
            if not path.is_absolute() and base is not None:
                path = base / path
            searched.append((f"its -I {named}", path))
    inner = [source.parent]
    outer: list[str] = []
    outer_paths: list[Path] = []
    options: list[str] = []
    for what, path in searched:
        if not os.path.isdir(path):
            continue  # not on this machine: a build could not search it anyway
        if is_inside(folder, path):
            inner.append(path)
        elif all(not os.path.samefile(path, known) for known in outer_paths):
            outer.append(f"{what}, {shown(path)}")
            outer_paths.append(path)
        if allow or is_inside(folder, path):
            options.append(f"-I{Path(path).resolve()}")
    with as_capture_error():  # followed even when agreed: a header inside may be a FIFO
        files = outside_files(folder, found, inner, where, cplusplus, defined)
    kept = () if allow else files
    return IncludePlan(tuple(dict.fromkeys(options)), tuple(dict.fromkeys(outer)), kept, allow)


def capture_outside(capture: Capture) -> tuple[str, ...]:
    """Everything outside the capture folder its programs' builds would read (for a question
    before the replays use them): folders searched for includes, and files included."""
    found: list[str] = []
    for program in capture.programs:
        if program.source is None:
            continue
        try:
            found.extend(plan_includes(capture, program, allow=False).outside)
        except UserFileError:
            continue  # said when a launch of it is replayed
    return tuple(dict.fromkeys(found))
