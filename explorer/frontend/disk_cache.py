"""Results of the libclang frontend kept on disk between processes, keyed by a hash of
everything they depend on (the input, the options, and the code that made them).

The folder is ``$EXPLORER_CACHE_DIR``, else the user's cache folder as ``platformdirs`` names
it (``$XDG_CACHE_HOME/opencl-kernel-explorer``, else ``~/.cache/opencl-kernel-explorer`` on
Linux), with one sub-folder per kind of result (:data:`FOLDERS`).

A cache is read as untrusted input: anything may have been put in its folder. An entry is
JSON data only (never pickle, never code): a map naming this format, the kind of record and
its key, and the record's fields, read back with :func:`explorer.documents.from_data`, which
checks every field against the record's type. An entry that is missing, too large, not a
regular file (a link, a FIFO, a device), cut short, of another format, kind or key, or with
one field of the wrong type is a miss, never an error: the result is made again. A folder
that cannot be written is no cache.

The folder is bounded by the entries' total size and count (:data:`MAX_BYTES`,
:data:`MAX_ENTRIES`, checked every few stores): past either, the oldest entries go first.
Only what this module writes is ever removed: files named as it names them (``<key>.json``,
``.entry-*.part`` left by a write that was cut, and ``<key>.pickle`` written by earlier
versions), in its own sub-folders, reached without following a symbolic link.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import stat
import sys
import time
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from explorer.documents import DocumentError, as_data, from_data, parse_json

T = TypeVar("T")

CACHE_ENV = "EXPLORER_CACHE_DIR"  # the same override as the device limits' cache
APP_FOLDER = "opencl-kernel-explorer"
_PACKAGE = Path(__file__).resolve().parent.parent
# The kinds of result kept, one sub-folder each: libclang parses, instrumented sources, the
# devices' preferred work-group multiples.
FOLDERS = ("parsed", "instrumented", "devices")
FORMAT = "opencl-kernel-explorer cache entry"
VERSION = 1
MAX_ENTRY_BYTES = 8 << 20  # one entry (a parse of a large kernel is a few hundred KiB)
MAX_BYTES = 32 << 20  # every entry of every kind together
MAX_ENTRIES = 4000
MAX_DEPTH = 16  # a parse nests six levels deep
STALE_PART_S = 3600.0  # a temporary file older than this was left by a write that was cut
# The folder is scanned at a process's first store, then after PRUNE_EVERY stores or a
# sixteenth of MAX_BYTES written: between scans it may exceed its bounds by that much.
PRUNE_EVERY = 32
_written = [0, 0]  # stores and bytes since the last scan, in this process
_KEY = re.compile(r"[0-9a-f]{64}")
_ENTRY = re.compile(r"[0-9a-f]{64}\.json")
_LEGACY = re.compile(r"[0-9a-f]{64}\.pickle")  # written by versions before this format
_PART = re.compile(r"\.entry-[0-9a-f]{16}\.part")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_OPEN = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
# Where the system lets a folder be held open and its files named relative to it (POSIX),
# a link swapped in for the folder meanwhile is never followed; elsewhere (Windows) the
# folder and each file are checked not to be links just before they are used.
_BY_FOLDER = (
    hasattr(os, "O_DIRECTORY")
    and {os.open, os.unlink, os.mkdir, os.rename} <= os.supports_dir_fd  # replace: as rename
    and os.scandir in os.supports_fd
)


def cache_root() -> Path:
    """The explorer's cache folder (read from the environment on every call)."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    import platformdirs  # installed with PyOpenCL, which keeps its own caches there too

    return Path(platformdirs.user_cache_dir(APP_FOLDER, appauthor=False))


@lru_cache(maxsize=8)
def code_version(*folders: str) -> str:
    """A digest of the code under ``folders`` (relative to the package), of the Python
    version and of the libclang bindings installed: an edit or upgrade gives new keys."""
    import clang.cindex as ci  # type: ignore[import-untyped]

    digest = hashlib.sha256(f"{sys.version}|{_stamp(ci.__file__)}".encode())
    if getattr(sys, "frozen", False):  # a bundle: its sources may not be files of their own
        digest.update(_stamp(sys.executable).encode())
    for folder in folders:
        place = _PACKAGE / folder
        for path in sorted(place.iterdir()) if place.is_dir() else ():
            if path.suffix in (".py", ".cl", ".h") and path.is_file():
                digest.update(path.name.encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def _stamp(path: str | None) -> str:
    """``path`` with its size and time, or the path alone where it is no file (a module
    inside a bundle's archive)."""
    try:
        found = os.stat(path or "")
    except OSError:
        return str(path)
    return f"{path}|{found.st_size}|{found.st_mtime_ns}"


def digest(*parts: str) -> str:
    """One hash of ``parts``, each length-prefixed so no two lists of parts collide: the
    key :func:`load` and :func:`store` take."""
    hashed = hashlib.sha256()
    for part in parts:
        encoded = part.encode("utf-8", "surrogatepass")
        hashed.update(len(encoded).to_bytes(8, "little"))
        hashed.update(encoded)
    return hashed.hexdigest()


def _kind_name(kind: type) -> str:
    return f"{kind.__module__}.{kind.__qualname__}"


class _Folder:
    """One of the cache's sub-folders, opened: its files named by name only."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd = fd

    def open(self, name: str, flags: int, mode: int = 0o600) -> int:
        if self.fd is not None:
            return os.open(name, flags | _OPEN | _NOFOLLOW, mode, dir_fd=self.fd)
        target = self.path / name
        if not flags & os.O_CREAT and stat.S_ISLNK(os.lstat(target).st_mode):
            raise OSError(f"{target} is a symbolic link")
        return os.open(target, flags | _OPEN | _NOFOLLOW, mode)

    def unlink(self, name: str) -> None:
        if self.fd is not None:
            os.unlink(name, dir_fd=self.fd)
        else:
            os.unlink(self.path / name)

    def replace(self, source: str, target: str) -> None:
        if self.fd is not None:
            os.replace(source, target, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        else:
            os.replace(self.path / source, self.path / target)

    def scan(self) -> Any:
        return os.scandir(self.fd if self.fd is not None else self.path)


@contextlib.contextmanager
def _folder(folder: str, create: bool) -> Iterator[_Folder]:
    """The sub-folder ``folder`` of the cache, opened; a link or anything but a folder
    there raises OSError (the cache folder itself may be a link: the person's choice)."""
    if folder not in FOLDERS:
        raise ValueError(f"{folder!r} is not a cache folder ({', '.join(FOLDERS)})")
    root = cache_root()
    if create:
        root.mkdir(parents=True, exist_ok=True)
    if not _BY_FOLDER:
        path = root / folder
        if create:
            with contextlib.suppress(FileExistsError):
                path.mkdir(0o700)
        if not stat.S_ISDIR(os.lstat(path).st_mode):  # a link or a file: not this cache's
            raise OSError(f"{path} is not a folder")
        yield _Folder(path, None)
        return
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        if create:
            with contextlib.suppress(FileExistsError):
                os.mkdir(folder, 0o700, dir_fd=root_fd)
        fd = os.open(
            folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | _NOFOLLOW, dir_fd=root_fd
        )
    finally:
        os.close(root_fd)
    try:
        yield _Folder(root / folder, fd)
    finally:
        os.close(fd)


def load(folder: str, key: str, kind: type[T]) -> T | None:
    """The ``kind`` kept under ``folder/key``, or None (absent, unreadable, foreign, too
    large, cut short or of the wrong type: see the module's notes)."""
    if not _KEY.fullmatch(key):
        return None
    try:
        with _folder(folder, create=False) as place:
            data = _read_entry(place, f"{key}.json")
    except (OSError, ValueError):
        return None
    if data is None:
        return None
    label = f"cache entry {folder}/{key}.json"
    try:
        entry = parse_json(data.decode("utf-8"), label, MAX_DEPTH)
        if not (
            isinstance(entry, dict)
            and entry.get("format") == FORMAT
            and entry.get("version") == VERSION
            and entry.get("kind") == _kind_name(kind)
            and entry.get("key") == key
            and set(entry) == {"format", "version", "kind", "key", "value"}
        ):
            return None
        return from_data(kind, entry["value"], label)
    except (DocumentError, ValueError, TypeError, RecursionError):
        return None  # any damaged or foreign entry is a miss, never a crash


def _read_entry(place: _Folder, name: str) -> bytes | None:
    """The bytes of the regular file ``name`` (no link followed, never waiting on a FIFO),
    or None when it is anything else or larger than :data:`MAX_ENTRY_BYTES`."""
    fd = place.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
            return None
        chunks, total = [], 0
        while total <= MAX_ENTRY_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_ENTRY_BYTES + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return None if total > MAX_ENTRY_BYTES else b"".join(chunks)
    finally:
        os.close(fd)


def store(folder: str, key: str, value: object) -> None:
    """Keep ``value`` (a record :func:`explorer.documents.as_data` writes) under
    ``folder/key``: written to a temporary file, then renamed into place so that a reader
    never sees half a file; then the oldest entries go while the cache is over its bounds.
    A folder that cannot be written, or a value too large to keep, is left."""
    if not _KEY.fullmatch(key):
        return
    try:
        entry = {
            "format": FORMAT,
            "version": VERSION,
            "kind": _kind_name(type(value)),
            "key": key,
            "value": as_data(value),
        }
        data = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except (TypeError, ValueError, RecursionError):
        return
    if len(data) > MAX_ENTRY_BYTES:
        return
    try:
        with _folder(folder, create=True) as place:
            _write_entry(place, f"{key}.json", data)
    except (OSError, ValueError):
        return
    _written[0] += 1
    _written[1] += len(data)
    if _written[0] == 1 or _written[0] >= PRUNE_EVERY or _written[1] >= MAX_BYTES // 16:
        prune()  # the first store of a process, then every few: a scan costs a stat an entry
        _written[:] = [1, 0]


def _write_entry(place: _Folder, name: str, data: bytes) -> None:
    temporary = f".entry-{secrets.token_hex(8)}.part"
    fd = place.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        place.replace(temporary, name)
    except OSError:
        with contextlib.suppress(OSError):
            place.unlink(temporary)
        raise


def prune(max_bytes: int | None = None, max_entries: int | None = None) -> None:
    """Bound the cache: while its entries (every kind together) are over ``max_bytes`` bytes
    or ``max_entries`` files, the oldest go until three quarters of both are left. Entries of
    an earlier version's format and temporary files left by a cut write go at once."""
    max_bytes = MAX_BYTES if max_bytes is None else max_bytes
    max_entries = MAX_ENTRIES if max_entries is None else max_entries
    entries: list[tuple[int, int, str, str]] = []  # (modified, bytes, folder, name)
    now = time.time()
    for folder in FOLDERS:
        try:
            with _folder(folder, create=False) as place:
                for name, info in _own_files(place):
                    if _ENTRY.fullmatch(name):
                        entries.append((info.st_mtime_ns, info.st_size, folder, name))
                    elif _LEGACY.fullmatch(name) or now - info.st_mtime > STALE_PART_S:
                        with contextlib.suppress(OSError):
                            place.unlink(name)
        except (OSError, ValueError):
            continue
    total = sum(size for _, size, _, _ in entries)
    if total <= max_bytes and len(entries) <= max_entries:
        return
    entries.sort()
    keep_bytes, keep_count = max_bytes * 3 // 4, max_entries * 3 // 4
    doomed: dict[str, list[str]] = {}
    count = len(entries)
    for _, size, folder, name in entries:
        if total <= keep_bytes and count <= keep_count:
            break
        doomed.setdefault(folder, []).append(name)
        total -= size
        count -= 1
    for folder, names in doomed.items():
        try:
            with _folder(folder, create=False) as place:
                for name in names:
                    with contextlib.suppress(OSError):
                        place.unlink(name)
        except (OSError, ValueError):
            continue


def _own_files(place: _Folder) -> Iterator[tuple[str, os.stat_result]]:
    """The regular files in the folder named as this module names them (links, folders and
    anything else are left alone), with their status."""
    with place.scan() as found:
        for item in found:
            name = item.name
            if not (_ENTRY.fullmatch(name) or _LEGACY.fullmatch(name) or _PART.fullmatch(name)):
                continue
            try:
                info = item.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                yield name, info
