"""The instrumented source of a kernel, kept on disk between runs.

Instrumenting parses the kernel with libclang and rewrites it: tens of milliseconds for a
small kernel, more than the rest of its trace on a CPU device. The result depends only on
what :func:`cache_key` hashes (the source, the kernel's name, its defines and options, and
the instrumenting code itself), so a second ``trace`` of the same kernel reads it back from
``<cache folder>/instrumented/``, where the cache folder is ``$EXPLORER_CACHE_DIR``, else
``$XDG_CACHE_HOME/opencl-kernel-explorer``, else ``~/.cache/opencl-kernel-explorer``.

A file that cannot be read or unpickled, or that holds anything but an
:class:`Instrumented`, is a miss; a folder that cannot be written is no cache at all. Neither
is ever an error: the kernel is instrumented again.
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

from explorer.trace.instrument.model import Instrumented

CACHE_ENV = "EXPLORER_CACHE_DIR"  # the same override as the device limits' cache
FOLDER = "instrumented"
_CODE_DIRS = ("trace/instrument", "frontend")  # what instrumenting runs: its own version
_MAX_FILE_BYTES = 64 << 20


def cache_folder() -> Path:
    """Where instrumented sources are kept (read from the environment on every call)."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override) / FOLDER
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "opencl-kernel-explorer" / FOLDER


@lru_cache(maxsize=1)
def code_version() -> str:
    """A digest of the instrumenting code (the rewrite, its runtime, the frontend): an edit
    to any of them gives every kernel a new key."""
    root = Path(__file__).resolve().parent.parent.parent
    digest = hashlib.sha256(sys.version.encode())
    for folder in _CODE_DIRS:
        for path in sorted((root / folder).iterdir()):
            if path.suffix in (".py", ".cl", ".h") and path.is_file():
                digest.update(path.name.encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(
    source: str,
    kernel: str,
    defines: tuple[tuple[str, int | str], ...],
    values: bool,
    cl_std: str,
    extra: tuple[str, ...] = (),
) -> str:
    """The file name of one instrumentation: everything it depends on, hashed."""
    parts = (code_version(), source, kernel, repr(defines), repr(values), cl_std, repr(extra))
    digest = hashlib.sha256()
    for part in parts:
        encoded = part.encode("utf-8", "surrogatepass")
        digest.update(len(encoded).to_bytes(8, "little"))
        digest.update(encoded)
    return digest.hexdigest()


def load(key: str) -> Instrumented | None:
    """The instrumentation kept under ``key``, or None (absent, unreadable or corrupt)."""
    path = cache_folder() / f"{key}.pickle"
    try:
        if path.stat().st_size > _MAX_FILE_BYTES:
            return None
        with path.open("rb") as handle:
            value = pickle.load(handle)
    except Exception:
        return None
    return value if isinstance(value, Instrumented) else None


def store(key: str, value: Instrumented) -> None:
    """Keep ``value`` under ``key``: written to a temporary file, then renamed into place so
    that a reader never sees half a file. A folder that cannot be written is left as it is."""
    folder = cache_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=folder, suffix=".part")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, folder / f"{key}.pickle")
    except (OSError, pickle.PicklingError):
        with contextlib.suppress(OSError):
            os.unlink(temporary)
