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

from explorer.capture.bootstrap import CAPTURE_FILE, CLAIM, JOURNAL, JOURNAL_LIMIT, MARKER
from explorer.paths import decode_text, read_user_bytes, shown

# typing is not imported: ``capture``'s own process needs none of it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CAPTURE_FILE", "MARKER"]  # the folder's names, known to ``capture`` before this

FORMAT = "opencl-kernel-explorer capture"
# 2: small contents lie in the pack (bootstrap.PACK), where each launch's ``packed`` says; 1:
# every contents a file of its own. A capture with nothing packed is written as version 1.
VERSION = 2
# What a capture may hold: far more than any program launches, well under what fits in memory.
DOCUMENT_LIMIT = 2 * JOURNAL_LIMIT  # bytes of capture.json, and of journal.jsonl
LINE_LIMIT = 4 << 20  # bytes of one journal line (a launch of a thousand arguments fits)
# capture.json is laid out with one field a line up to this many launches.
INDENTED = 1000


# How the recorder begins each launch's line (``json.dumps`` of its entry, "type" first).
LAUNCH_LINE = '{"type": "launch", '
_KERNEL = '"kernel": "'


class RawLaunches(list[str]):
    """The launches of a capture of many, each the JSON text of its entry as the recorder
    wrote it (with its ``occurrence``): :func:`write_capture` writes them into
    ``capture.json`` as they are. Only ``capture`` makes them, from the journal its own
    recorder has just written; every reader of ``capture.json`` checks each field.
    ``kernels``: the kernel each names, as :func:`raw_kernel` reads it (for the listing)."""

    kernels: list[str | None]


def raw_kernel(line: str) -> str | None:
    """The kernel a launch's line names, read as text where the recorder wrote it plainly
    (a name of letters, digits and ``_``); None otherwise (the line is then parsed)."""
    start = line.find(_KERNEL)
    if start < 0:
        return None
    start += len(_KERNEL)
    end = line.find('"', start)
    name = line[start:end]
    return name if end > start and name.isascii() and name.isidentifier() else None


def journal_entries(folder: Path, raw: bool = False) -> tuple[list[tuple[int, Any]], list[str]]:
    """The journal's entries with their line numbers, and what could not be read of it (a
    line cut by a program killed while writing it, damaged lines). Read as any document from
    outside is (``explorer.documents``): bounded in size and depth, a link out refused.
    ``raw``: a whole launch line as the recorder writes it is given as its text, not parsed
    (for ``capture``, which writes them into ``capture.json`` as they are)."""
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
    count = len(lines)
    for number, line in enumerate(lines, 1):
        if (
            raw
            and line.startswith(LAUNCH_LINE)
            and line.endswith("}")
            and number < count
            and len(line) <= LINE_LIMIT
        ):
            entries.append((number, line))  # whole: the journal goes on after it
            continue
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
    raw: bool = False,
) -> dict[str, Any]:
    """``capture.json`` from the recorder's journal: the programs and the launches in order,
    each launch with the number of its kernel's launch (``occurrence``). What the journal or
    the recorder could not keep is listed under ``lost``. ``raw`` (for ``capture``, which
    has just recorded them): the launches of a journal of more than :data:`INDENTED` lines
    as :class:`RawLaunches`, not parsed."""
    programs: list[dict[str, Any]] = []
    launches: list[Any] = []
    packed = False
    seen: Counter[str] = Counter()
    entries, unread = journal_entries(folder, raw)
    lost = [*lost, *unread]
    texts = raw and len(entries) > INDENTED
    if texts:
        launches = RawLaunches()
        kernels: list[str | None] = []
        launches.kernels = kernels
    start = len(LAUNCH_LINE)
    for number, entry in entries:
        if isinstance(entry, str):  # a launch's whole line, as the recorder wrote it
            kernel = raw_kernel(entry)
            if kernel is None:
                entry = _parsed(entry, f"{JOURNAL} line {number}")
            else:
                occurrence = seen[kernel] = seen[kernel] + 1
                packed = packed or '"packed": {' in entry
                if texts:
                    launches.append(f'{{"occurrence": {occurrence}, {entry[start:]}')
                    kernels.append(kernel)
                else:
                    launch = _parsed(entry, f"{JOURNAL} line {number}")
                    del launch["type"]
                    launch["occurrence"] = occurrence
                    launches.append(launch)
                continue
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
            packed = packed or "packed" in entry  # checked where the capture is read
            if texts:
                text = json.dumps(entry)
                launches.append(text)
                kernels.append(raw_kernel(text))
            else:
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
    if isinstance(launches, RawLaunches):  # one launch a line, as the journal had them
        rest = json.dumps({**document, "launches": []}, separators=(",", ":"))
        head, _, tail = rest.rpartition('"launches":[]')
        # One text made at once (no copy of it made again to end it).
        text = "".join((head, '"launches":[\n', ",\n".join(launches), "\n]", tail, "\n"))
    else:
        text = json.dumps(document, indent=1) if len(launches) <= INDENTED else ""
        if not text or len(text) > DOCUMENT_LIMIT:
            text = json.dumps(document, separators=(",", ":"))
        text += "\n"
    try:
        (folder / CAPTURE_FILE).write_bytes(text.encode("utf-8"))
    except OSError:
        (folder / CAPTURE_FILE).unlink(missing_ok=True)
        raise
    (folder / JOURNAL).unlink(missing_ok=True)
    (folder / CLAIM).unlink(missing_ok=True)
