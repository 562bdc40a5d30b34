"""The instrumented source of a kernel, kept on disk between runs.

Instrumenting parses the kernel with libclang and rewrites it: tens of milliseconds for a
small kernel, more than the rest of its trace on a CPU device. The result depends only on
what :func:`cache_key` hashes (the source, the kernel's name, its defines and options, and
the instrumenting code itself), so a second ``trace`` of the same kernel reads it back from
``<cache folder>/instrumented/`` (see :mod:`explorer.frontend.disk_cache` for the folder and
for why a damaged or unwritable cache is never an error).
"""

from __future__ import annotations

from pathlib import Path

from explorer.frontend import disk_cache
from explorer.trace.instrument.model import Instrumented

CACHE_ENV = disk_cache.CACHE_ENV
FOLDER = "instrumented"
# What instrumenting runs, so its own version: the rewrite and its runtime, the record
# layout it writes (trace/), the frontend, and the partial-group rewrite (engine/launch).
_CODE = ("trace/instrument", "trace", "frontend", "engine/launch")


def cache_folder() -> Path:
    """Where instrumented sources are kept (read from the environment on every call)."""
    return disk_cache.cache_root() / FOLDER


def cache_key(
    source: str,
    kernel: str,
    defines: tuple[tuple[str, int | str], ...],
    values: bool,
    cl_std: str,
    extra: tuple[str, ...] = (),
) -> str:
    """The file name of one instrumentation: everything it depends on, hashed."""
    version = disk_cache.code_version(*_CODE)
    return disk_cache.digest(
        version, source, kernel, repr(defines), repr(values), cl_std, repr(extra)
    )


def load(key: str) -> Instrumented | None:
    """The instrumentation kept under ``key``, or None (absent, unreadable or corrupt)."""
    return disk_cache.load(FOLDER, key, Instrumented)


def store(key: str, value: Instrumented) -> None:
    """Keep ``value`` under ``key``; a folder that cannot be written is left as it is."""
    disk_cache.store(FOLDER, key, value)
