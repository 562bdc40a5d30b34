"""Results of the libclang frontend kept on disk between processes, keyed by a hash of
everything they depend on (the input, the options, and the code that made them).

The folder is ``$EXPLORER_CACHE_DIR``, else ``$XDG_CACHE_HOME/opencl-kernel-explorer``,
else ``~/.cache/opencl-kernel-explorer``, with one sub-folder per kind of result. A file that
cannot be read or unpickled, or that holds another type than asked for, is a miss; a folder
that cannot be written is no cache. Neither is ever an error: the result is made again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

CACHE_ENV = "EXPLORER_CACHE_DIR"  # the same override as the device limits' cache
_PACKAGE = Path(__file__).resolve().parent.parent
_MAX_FILE_BYTES = 64 << 20
MAX_FILES = 2000  # results kept per kind; the oldest go first


def cache_root() -> Path:
    """The explorer's cache folder (read from the environment on every call)."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "opencl-kernel-explorer"


@lru_cache(maxsize=8)
def code_version(*folders: str) -> str:
    """A digest of the code under ``folders`` (relative to the package), of the Python
    version and of the libclang bindings installed: an edit or upgrade gives new keys."""
    import clang.cindex as ci  # type: ignore[import-untyped]

    found = Path(ci.__file__).stat()
    digest = hashlib.sha256(
        f"{sys.version}|{ci.__file__}|{found.st_size}|{found.st_mtime_ns}".encode()
    )
    for folder in folders:
        for path in sorted((_PACKAGE / folder).iterdir()):
            if path.suffix in (".py", ".cl", ".h") and path.is_file():
                digest.update(path.name.encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def digest(*parts: str) -> str:
    """One hash of ``parts``, each length-prefixed so no two lists of parts collide."""
    hashed = hashlib.sha256()
    for part in parts:
        encoded = part.encode("utf-8", "surrogatepass")
        hashed.update(len(encoded).to_bytes(8, "little"))
        hashed.update(encoded)
    return hashed.hexdigest()


def load(folder: str, key: str, kind: type[T]) -> T | None:
    """The ``kind`` kept under ``folder/key``, or None (absent, unreadable or corrupt)."""
    path = cache_root() / folder / f"{key}.pickle"
    try:
        if path.stat().st_size > _MAX_FILE_BYTES:
            return None
        with path.open("rb") as handle:
            value = pickle.load(handle)
    except Exception:  # any damaged or foreign file is a miss, never a crash
        return None
    return value if isinstance(value, kind) else None


def store(folder: str, key: str, value: object) -> None:
    """Keep ``value`` under ``folder/key``: written to a temporary file, then renamed into
    place so that a reader never sees half a file. A folder that cannot be written is left."""
    target = cache_root() / folder
    try:
        target.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=target, suffix=".part")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, target / f"{key}.pickle")
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return
    _prune(target)


def _prune(target: Path, keep: int | None = None) -> None:
    """At most :data:`MAX_FILES` results in ``target``: past that, the least recently
    written go until ``keep`` are left (an editor parses at every pause in typing)."""
    with contextlib.suppress(OSError):
        entries = [e for e in os.scandir(target) if e.name.endswith(".pickle")]
        if len(entries) <= MAX_FILES:
            return
        entries.sort(key=lambda e: e.stat().st_mtime_ns)
        left = MAX_FILES * 3 // 4 if keep is None else keep
        for entry in entries[: len(entries) - left]:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
