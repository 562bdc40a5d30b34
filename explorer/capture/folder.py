"""A capture folder, read: the launches a program made, in order, each with its kernel, its
NDRange and its arguments, and where their contents before and after it lie.

The folder is readable without the explorer (``docs/capture.md``): ``capture.json``, the
programs' sources under ``programs/`` and the buffers as ``.npy`` files under ``data/``. While
the program runs, the recorder appends to ``journal.jsonl``; :func:`assemble` turns that into
``capture.json`` (``capture`` does it when the program ends, and :func:`load_capture` does it
for a folder whose capture was cut short).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.capture.recorder import CLAIM, JOURNAL

CAPTURE_FILE = "capture.json"
FORMAT = "opencl-kernel-explorer capture"
VERSION = 1


class CaptureError(ValueError):
    """A capture folder, or a launch of it, that cannot be used; the message says why."""


@dataclass(frozen=True)
class CapturedArg:
    """One argument of a launch. ``kind``: buffer, local, null, scalar, unsupported or unset.
    A buffer's ``before``/``after`` are its contents' files (relative to the folder);
    ``memory`` tells buffers apart (the same number: the same memory object, ``origin`` bytes
    into it for a sub-buffer). A scalar's bytes are ``hex``; ``dtype`` is numpy's name."""

    index: int
    kind: str
    name: str | None = None
    type: str | None = None
    nbytes: int = 0  # "bytes" in capture.json
    dtype: str = ""
    memory: int | None = None
    origin: int = 0
    flags: tuple[str, ...] = ()
    before: str | None = None
    after: str | None = None
    changed: bool = False
    hex: str = ""
    value: Any = None

    @property
    def data(self) -> bytes:
        return bytes.fromhex(self.hex)


@dataclass(frozen=True)
class CapturedProgram:
    """A program the kernels came from: its source file (None: built from a binary), the
    build options as the program gave them, and the folder it was built in (``cwd``: where
    its relative ``#include`` files and ``-I`` folders were; empty in older captures)."""

    index: int
    source: str | None
    options: tuple[str, ...]
    cwd: str = ""


@dataclass(frozen=True)
class CapturedLaunch:
    """One launch. ``number`` counts every launch of the program from 1; ``occurrence``
    counts this kernel's launches from 1 (``label``: ``KERNEL#k``). ``data`` is False for a
    launch recorded without its buffers, ``why`` says why."""

    number: int
    kernel: str
    occurrence: int
    program: int
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    offset: tuple[int, ...] | None
    device: str
    platform: str
    args: tuple[CapturedArg, ...]
    data: bool
    why: str = ""

    @property
    def label(self) -> str:
        return f"{self.kernel}#{self.occurrence}"


@dataclass(frozen=True)
class Capture:
    """Everything one program launched. :meth:`find` picks a launch the way ``--launch``
    names it."""

    folder: Path
    command: tuple[str, ...]
    exit_code: int | None
    programs: tuple[CapturedProgram, ...]
    launches: tuple[CapturedLaunch, ...]

    def find(self, which: str | int) -> CapturedLaunch:
        """Launch ``N`` (from 1), ``KERNEL`` (its first launch) or ``KERNEL#k`` (its k-th)."""
        text = str(which).strip()
        if text.isdigit():
            number = int(text)
            if not 1 <= number <= len(self.launches):
                raise CaptureError(
                    f"--launch {text}: the capture holds launches 1 to {len(self.launches)}"
                    if self.launches
                    else f"--launch {text}: the capture holds no launch"
                )
            return self.launches[number - 1]
        kernel, sep, k = text.partition("#")
        mine = [launch for launch in self.launches if launch.kernel == kernel]
        if not mine:
            names = ", ".join(sorted({launch.kernel for launch in self.launches})) or "none"
            raise CaptureError(
                f"--launch {text}: no launch of a kernel {kernel!r} (kernels: {names})"
            )
        if not sep:
            return mine[0]
        if not k.isdigit() or not 1 <= int(k) <= len(mine):
            raise CaptureError(
                f"--launch {text}: {kernel} was launched {len(mine)} times; give {kernel}#1 "
                f"to {kernel}#{len(mine)}"
            )
        return mine[int(k) - 1]

    def program_of(self, launch: CapturedLaunch) -> CapturedProgram:
        return self.programs[launch.program]

    def path(self, relative: str) -> Path:
        return self.folder / relative


def load_capture(folder: str | Path) -> Capture:
    """The capture in ``folder`` (its ``capture.json``, or its journal where the capture was
    cut short), with its launches listed in order."""
    folder = Path(folder)
    document = folder / CAPTURE_FILE
    if not document.is_file():
        if not (folder / JOURNAL).is_file():
            raise CaptureError(f"{folder} holds no capture (no {CAPTURE_FILE})")
        return _parse(assemble(folder, (), None, write=False), folder)
    try:
        return _parse(json.loads(document.read_text(encoding="utf-8")), folder)
    except (OSError, json.JSONDecodeError) as exc:
        raise CaptureError(f"cannot read {document}: {exc}") from None


def assemble(
    folder: Path, command: tuple[str, ...], exit_code: int | None, *, write: bool = True
) -> dict[str, Any]:
    """``capture.json`` from the recorder's journal: the programs and the launches in order,
    each launch with the number of its kernel's launch (``occurrence``)."""
    programs: list[dict[str, Any]] = []
    launches: list[dict[str, Any]] = []
    seen: Counter[str] = Counter()
    journal = folder / JOURNAL
    lines = journal.read_text(encoding="utf-8").splitlines() if journal.is_file() else []
    for line in lines:
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:  # the last line of a program killed while writing it
            continue
        kind = entry.pop("type", None)
        if kind == "program":
            programs.append(entry)
        elif kind == "launch":
            seen[entry["kernel"]] += 1
            entry["occurrence"] = seen[entry["kernel"]]
            launches.append(entry)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "command": list(command),
        "exit_code": exit_code,
        "programs": programs,
        "launches": launches,
    }
    if write:
        (folder / CAPTURE_FILE).write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
        journal.unlink(missing_ok=True)
        (folder / CLAIM).unlink(missing_ok=True)
    return document


def _parse(document: dict[str, Any], folder: Path) -> Capture:
    if document.get("format") != FORMAT:
        raise CaptureError(f"{folder / CAPTURE_FILE} is not a capture of the explorer")
    try:
        programs = tuple(
            CapturedProgram(
                int(p["index"]),
                p.get("source"),
                tuple(p.get("options", ())),
                str(p.get("cwd", "")),
            )
            for p in document["programs"]
        )
        launches = tuple(_launch(entry) for entry in document["launches"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CaptureError(f"{folder / CAPTURE_FILE} is damaged: {exc!r}") from None
    return Capture(
        folder=folder,
        command=tuple(document.get("command", ())),
        exit_code=document.get("exit_code"),
        programs=programs,
        launches=launches,
    )


def _launch(entry: dict[str, Any]) -> CapturedLaunch:
    def sizes(value: Any) -> tuple[int, ...] | None:
        return tuple(int(v) for v in value) if value is not None else None

    args = tuple(
        CapturedArg(
            index=int(a["index"]),
            kind=str(a["kind"]),
            name=a.get("name"),
            type=a.get("type"),
            nbytes=int(a.get("bytes", 0)),
            dtype=str(a.get("dtype", "")),
            memory=a.get("memory"),
            origin=int(a.get("origin", 0)),
            flags=tuple(a.get("flags", ())),
            before=a.get("before"),
            after=a.get("after"),
            changed=bool(a.get("changed", False)),
            hex=str(a.get("hex", "")),
            value=a.get("value"),
        )
        for a in entry["args"]
    )
    return CapturedLaunch(
        number=int(entry["number"]),
        kernel=str(entry["kernel"]),
        occurrence=int(entry.get("occurrence", 1)),
        program=int(entry["program"]),
        global_size=sizes(entry["global"]) or (),
        local_size=sizes(entry.get("local")),
        offset=sizes(entry.get("offset")),
        device=str(entry.get("device", "")),
        platform=str(entry.get("platform", "")),
        args=args,
        data=bool(entry.get("data", False)),
        why=str(entry.get("why", "")),
    )
