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
import stat
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from explorer.capture.bootstrap import CAPTURE_FILE, CLAIM, JOURNAL, JOURNAL_LIMIT, MARKER
from explorer.paths import UserFileError, decode_text, read_user_bytes, shown

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
# Lines of a journal: the recorder's 32 MiB hold some 200,000 at most (a launch's line takes
# 164 bytes or more: one of no arguments, on a device and platform of one letter each). A
# journal of more, of tiny lines a program wrote, is refused at once: 8 MiB of ``{}`` lines
# (2.8 million) took 7.5 s and 691 MiB to parse, and DOCUMENT_LIMIT holds eight times that.
LINES_LIMIT = 1 << 19
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
    entries, lost, _ = _journal(folder, raw, None)
    return entries, lost


def _journal(
    folder: Path, raw: bool, early: EarlyJournal | None
) -> tuple[list[tuple[int, Any]], list[str], EarlyJournal | None]:
    """:func:`journal_entries`, the lines ``early`` took while the program wrote them left
    out where the journal begins with the very bytes it took them from (``early`` is given
    back then, else None)."""
    journal = folder / JOURNAL
    if not os.path.lexists(journal):
        return [], [], None
    label = shown(journal)
    if os.path.islink(journal):  # a plain file right inside the folder is inside it
        from explorer.documents import inside

        inside(folder, JOURNAL, label)
    data = read_user_bytes(journal, "capture journal", DOCUMENT_LIMIT)
    if data.count(b"\n") > LINES_LIMIT:
        raise UserFileError(
            f"capture journal {label} holds more than {LINES_LIMIT} lines, more than the "
            "recorder writes"
        )
    entries: list[tuple[int, Any]] = []
    lost: list[str] = []
    if early is not None and raw and early.holds(data):
        try:  # the rest (a line may begin with a byte-order mark: not dropped there)
            text = data[early.size :].decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None:
            lines = text.split("\n")
            # A whole journal ends with a newline where its taken part does and nothing follows.
            ends = text.endswith("\n") or not text
            _take_lines(lines, early.lines + 1, early.lines + len(lines), ends, raw, entries, lost)
            return entries, lost, early
    text = decode_text(data, label)
    lines = text.split("\n")
    _take_lines(lines, 1, len(lines), text.endswith("\n"), raw, entries, lost)
    return entries, lost, None


def _take_lines(
    lines: list[str],
    first: int,
    count: int,
    ends: bool,
    raw: bool,
    entries: list[tuple[int, Any]],
    lost: list[str],
) -> None:
    """Read ``lines`` (the journal's, numbered from ``first``, of ``count`` in all, its text
    ending with a newline where ``ends``) into ``entries`` and ``lost``."""
    depth = RAW_DEPTH if raw else None
    for number, line in enumerate(lines, first):
        if (
            raw
            and line.startswith(LAUNCH_LINE)
            and line.endswith("}")
            and number < count
            and len(line) <= LINE_LIMIT
            and _raw_launch(line)
        ):
            entries.append((number, line))  # whole: the journal goes on after it
            continue
        if not line.strip():
            continue
        if len(line) > LINE_LIMIT:
            lost.append(f"{JOURNAL} line {number} is longer than {LINE_LIMIT} characters")
            continue
        try:
            entries.append((number, _parsed(line, f"{JOURNAL} line {number}", depth)))
        except ValueError as exc:  # DocumentError
            cut = number == count and not ends
            lost.append(f"{JOURNAL} line {number} was cut short" if cut else str(exc))


class EarlyJournal:
    """The journal read by a thread of ``capture``'s while the program writes it (``capture``
    only waits for the program otherwise): its whole lines taken as :func:`journal_entries`
    takes them with ``raw``, and their launches as :func:`assemble` lays out those of a long
    capture, so that once the program ends only the lines after them are left to read (where
    the journal then begins with the very bytes they were taken from; else it is read whole,
    as it is without this). It reads at most :data:`DOCUMENT_LIMIT` bytes, and stops at
    anything unlike what the recorder writes (a byte-order mark, text not UTF-8, a file that
    is not a plain one)."""

    PERIOD = 0.02  # seconds between reads

    def __init__(self, folder: Path) -> None:
        import threading

        self._path = os.path.join(folder, JOURNAL)
        self._chunks: list[bytes] = []  # the bytes of the lines taken
        self._partial = b""  # read after them: a line not yet whole
        self.size = 0  # their bytes
        self.lines = 0  # their number
        self.count = 0  # the entries they made
        self.unread: list[str] = []  # what of them could not be read
        self.assembly = _Assembly(texts=True)
        self._fd: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="explorer-journal", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Take no more (what is being taken is taken whole)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def holds(self, data: bytes) -> bool:
        """Whether ``data`` (the journal read whole once the program ended) begins with the
        bytes of the lines taken (and some were taken)."""
        self.stop()
        return self.size > 0 and data.startswith(b"".join(self._chunks))

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.PERIOD) and self._read():
                pass
        except Exception:  # whatever it is, the journal is read whole at the end
            self.size = 0  # (what was taken may be taken in part)
        finally:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def _read(self) -> bool:
        """Take the lines written whole since the last read; False once no more are taken."""
        if self._fd is None:
            flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
            try:
                self._fd = os.open(self._path, flags)
            except FileNotFoundError:  # not yet written
                return True
            if not stat.S_ISREG(os.fstat(self._fd).st_mode):
                return False
        offset = self.size + len(self._partial)
        chunk = os.pread(self._fd, 4 << 20, offset)
        if not chunk:
            return True
        if offset + len(chunk) > DOCUMENT_LIMIT:
            return False
        data = self._partial + chunk
        end = data.rfind(b"\n") + 1
        self._partial = data[end:]
        if not end:
            return True
        whole = data[:end]
        if self.lines + whole.count(b"\n") > LINES_LIMIT:
            return False  # refused once the program ends
        if not self.size and whole.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
            return False  # a byte-order mark: read whole at the end, as decode_text reads it
        try:
            text = whole.decode("utf-8")
        except UnicodeDecodeError:
            return False
        lines = text.split("\n")
        lines.pop()  # after the last newline
        entries: list[tuple[int, Any]] = []
        first = self.lines + 1
        # Lines followed by more: none is the last, nor cut short.
        _take_lines(lines, first, first + len(lines), True, True, entries, self.unread)
        self.assembly.take(entries)
        self._chunks.append(whole)
        self.size += end
        self.lines += len(lines)
        self.count += len(entries)
        return True


# A line with no more brackets than this cannot nest deeper than a document may
# (explorer.documents.MAX_DEPTH, which tests/capture/test_journal.py holds it to).
SHALLOW = 32
# How deep an entry ``capture`` writes into capture.json may nest: it lies there two levels
# down (a map in the document's list of launches or programs), and the document is read as
# any other, to MAX_DEPTH (tests/capture/test_hostile_journal.py).
RAW_DEPTH = SHALLOW - 2


def _parsed(line: str, label: str, depth: int | None = None) -> Any:
    """``line`` as ``explorer.documents.parse_json`` reads it (to ``depth`` levels, where
    given): with json alone where it cannot nest too deep and is valid (every line the
    recorder writes for a kernel of up to a dozen arguments), else by parse_json itself,
    which says what is wrong."""
    if line.count("[") + line.count("{") <= (SHALLOW if depth is None else depth):
        try:
            return json.loads(line)
        except (ValueError, RecursionError):
            pass
    from explorer.documents import parse_json

    return parse_json(line, label) if depth is None else parse_json(line, label, depth)


def _raw_launch(line: str) -> bool:
    """Whether a line that begins and ends as the recorder's launch lines do may be written
    into capture.json as it is: a launch's map, valid JSON no deeper than :data:`RAW_DEPTH`,
    whose kernel is the one :func:`raw_kernel` reads of its text. The program may write
    anything into its journal: a line that is not so is parsed, and listed as lost where it
    does not parse."""
    try:
        value = _parsed(line, JOURNAL, RAW_DEPTH)
    except ValueError:  # DocumentError
        return False
    if not isinstance(value, dict) or value.get("type") != "launch":
        return False
    kernel = raw_kernel(line)
    return kernel is None or value.get("kernel") == kernel


class _Assembly:
    """The programs and launches of ``capture.json`` as :func:`assemble` lays them out, taken
    entry after entry: with ``texts``, the launches as :class:`RawLaunches`."""

    def __init__(self, texts: bool) -> None:
        self.programs: list[dict[str, Any]] = []
        self.launches: list[Any] = []
        self.kernels: list[str | None] = []
        if texts:
            self.launches = RawLaunches()
            self.launches.kernels = self.kernels
        self.texts = texts
        self.packed = False
        self.seen: Counter[str] = Counter()
        self.lost: list[str] = []  # what of the entries is not a launch's or program's

    def take(self, entries: list[tuple[int, Any]]) -> None:
        programs, launches, kernels, seen, lost = (
            self.programs, self.launches, self.kernels, self.seen, self.lost,
        )  # fmt: skip
        texts = self.texts
        packed = self.packed
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
        self.packed = packed


def assemble(
    folder: Path,
    command: tuple[str, ...],
    exit_code: int | None,
    *,
    write: bool = True,
    lost: Sequence[str] = (),
    raw: bool = False,
    early: EarlyJournal | None = None,
) -> dict[str, Any]:
    """``capture.json`` from the recorder's journal: the programs and the launches in order,
    each launch with the number of its kernel's launch (``occurrence``). What the journal or
    the recorder could not keep is listed under ``lost``. ``raw`` (for ``capture``, which
    has just recorded them): the launches of a journal of more than :data:`INDENTED` lines
    as :class:`RawLaunches`, not parsed; ``early``: the lines of it taken while the program
    ran (where the journal holds them as they were taken, only the lines after them are read
    here)."""
    entries, unread, head = _journal(folder, raw, early)
    if head is not None and head.count + len(entries) <= INDENTED:  # laid out otherwise
        entries, unread, head = _journal(folder, raw, None)
    if head is not None:
        assembly = head.assembly
        unread = [*head.unread, *unread]
    else:
        assembly = _Assembly(texts=raw and len(entries) > INDENTED)
    assembly.take(entries)
    lost = [*lost, *unread, *assembly.lost]
    document = {
        "format": FORMAT,
        "version": VERSION if assembly.packed else 1,
        "command": list(command),
        "exit_code": exit_code,
        "programs": assembly.programs,
        "launches": assembly.launches,
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
