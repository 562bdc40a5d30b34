"""The journal the recorder writes and the ``capture.json`` made from it: the part of the
folder format (``docs/capture.md``) that ``capture`` itself needs when the program ends.

It imports the standard library and :mod:`explorer.paths` only (the checks of
:mod:`explorer.documents` are imported where a line needs them), so that ``capture``'s own
process stays small beside the program it runs; :mod:`explorer.capture.folder` reads a
capture, and names these as its own.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from explorer.capture.bootstrap import CLAIM, JOURNAL, JOURNAL_LIMIT
from explorer.paths import decode_text, read_user_bytes, shown

CAPTURE_FILE = "capture.json"
# Written by ``capture`` into every folder it records into: only a folder holding it (or an
# empty one) is recorded into again, and then only the files ``capture`` writes are replaced.
MARKER = ".opencl-explorer-capture"
FORMAT = "opencl-kernel-explorer capture"
# 2: small contents lie in the pack (bootstrap.PACK), where ``packed`` says; 1: every contents
# a file of its own. A capture with nothing packed is written as version 1.
VERSION = 2
# What a capture may hold: far more than any program launches, well under what fits in memory.
DOCUMENT_LIMIT = 2 * JOURNAL_LIMIT  # bytes of capture.json, and of journal.jsonl
LINE_LIMIT = 4 << 20  # bytes of one journal line (a launch of a thousand arguments fits)
# capture.json is laid out with one field a line up to this many launches.
INDENTED = 1000


def journal_entries(folder: Path) -> tuple[list[tuple[int, Any]], list[str]]:
    """The journal's entries with their line numbers, and what could not be read of it (a
    line cut by a program killed while writing it, damaged lines). Read as any document from
    outside is (``explorer.documents``): bounded in size and depth, a link out refused."""
    journal = folder / JOURNAL
    if not os.path.lexists(journal):
        return [], []
    label = shown(journal)
    if os.path.islink(journal):  # a plain file right inside the folder is inside it
        from explorer.documents import inside

        inside(folder, JOURNAL, label)
    text = decode_text(read_user_bytes(journal, "capture journal", DOCUMENT_LIMIT), label)
    entries: list[tuple[int, Any]] = []
    lost: list[str] = []
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if len(line) > LINE_LIMIT:
            lost.append(f"{JOURNAL} line {number} is longer than {LINE_LIMIT} characters")
            continue
        try:
            entries.append((number, _parsed(line, f"{JOURNAL} line {number}")))
        except ValueError as exc:  # DocumentError
            cut = number == len(lines) and not text.endswith("\n")
            lost.append(f"{JOURNAL} line {number} was cut short" if cut else str(exc))
    return entries, lost


# A line with no more brackets than this cannot nest deeper than a document may
# (explorer.documents.MAX_DEPTH, which tests/capture/test_journal.py holds it to).
SHALLOW = 32


def _parsed(line: str, label: str) -> Any:
    """``line`` as ``explorer.documents.parse_json`` reads it: with json alone where it
    cannot nest too deep and is valid (every line the recorder writes for a kernel of up to
    a dozen arguments), else by parse_json itself, which says what is wrong."""
    if line.count("[") + line.count("{") <= SHALLOW:
        try:
            return json.loads(line)
        except (ValueError, RecursionError):
            pass
    from explorer.documents import parse_json

    return parse_json(line, label)


def assemble(
    folder: Path,
    command: tuple[str, ...],
    exit_code: int | None,
    *,
    write: bool = True,
    lost: Sequence[str] = (),
) -> dict[str, Any]:
    """``capture.json`` from the recorder's journal: the programs and the launches in order,
    each launch with the number of its kernel's launch (``occurrence``). What the journal or
    the recorder could not keep is listed under ``lost``."""
    programs: list[dict[str, Any]] = []
    launches: list[dict[str, Any]] = []
    packed: dict[str, Any] = {}
    seen: Counter[str] = Counter()
    entries, unread = journal_entries(folder)
    lost = [*lost, *unread]
    for number, entry in entries:
        if not isinstance(entry, dict):
            lost.append(f"{JOURNAL} line {number}: expected a map of fields")
            continue
        kind = entry.pop("type", None)
        if kind == "program":
            programs.append(entry)
        elif kind == "launch":
            kernel = entry.get("kernel")
            if not isinstance(kernel, str):
                lost.append(f"{JOURNAL} line {number}.kernel: expected text")
                continue
            seen[kernel] += 1
            entry["occurrence"] = seen[kernel]
            places = entry.pop("packed", None)
            if isinstance(places, dict):
                packed.update(places)  # checked where the capture is read
            elif places is not None:
                lost.append(f"{JOURNAL} line {number}.packed: expected a map of file names")
            launches.append(entry)
        elif kind == "lost":
            why = entry.get("why")
            lost.append(why if isinstance(why, str) else f"{JOURNAL} line {number}: lost")
    document = {
        "format": FORMAT,
        "version": VERSION if packed else 1,
        "command": list(command),
        "exit_code": exit_code,
        "programs": programs,
        "launches": launches,
    }
    if packed:
        document["packed"] = packed
    if lost:
        document["lost"] = lost
    if write:
        write_capture(folder, document)
    return document


def write_capture(folder: Path, document: dict[str, Any]) -> None:
    """Write ``capture.json`` (what :func:`assemble` made), and remove the journal it came
    from; on a full disk none of it is written, and the journal stays to be read."""
    # Laid out for a person to read up to INDENTED launches; a longer one as compact as
    # the journal it came from (and written at once, where layout costs seconds).
    launches = document.get("launches") or ()
    text = json.dumps(document, indent=1) if len(launches) <= INDENTED else ""
    if not text or len(text) > DOCUMENT_LIMIT:
        text = json.dumps(document, separators=(",", ":"))
    try:
        (folder / CAPTURE_FILE).write_text(text + "\n", encoding="utf-8")
    except OSError:
        (folder / CAPTURE_FILE).unlink(missing_ok=True)
        raise
    (folder / JOURNAL).unlink(missing_ok=True)
    (folder / CLAIM).unlink(missing_ok=True)
