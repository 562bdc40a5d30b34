"""The functions an executor may be asked to call (``Executor.call(function, *args)``): a
request names one (``module:qualname``), never carries it. A name outside :data:`CALLABLE` is
refused by the executor before anything is imported.

A program of our own that drives a local executor (a test) may add its functions with
:func:`allow`: the executor's process is told each one's name before it is first asked for
it (its parent is the only one who can tell it). An executor serving a remote window calls
only those of :data:`CALLABLE` and those its own process was given with :func:`allow`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

CALLABLE = frozenset(
    (
        "explorer.engine.measure.bench:run_memoised",
        "explorer.engine.measure.bench:forget_memo",
        "explorer.engine.measure.bench:numpy_record",
        "explorer.engine.measure.baselines:measure_copy",
        "explorer.engine.measure.baselines:measure_fma",
        "explorer.engine.measure.baselines:measure_clblast",
        "explorer.engine.measure.baselines:device_limits",
        "explorer.engine.record.oclgrind:check",
        "explorer.engine.record.explain:record_anatomy",
    )
)

_allowed: dict[str, Callable[..., Any]] = {}


class NotCallable(ValueError):
    """A function that is not among those an executor calls."""


def name_of(function: Callable[..., Any]) -> str:
    """The name a request gives ``function``; :class:`NotCallable` for one not allowed."""
    name = f"{getattr(function, '__module__', None)}:{getattr(function, '__qualname__', None)}"
    if name not in CALLABLE and _allowed.get(name) is not function:
        raise NotCallable(f"{name} is not among the functions an executor calls")
    return name


def resolve(name: str) -> Callable[..., Any]:
    """The function a request names; :class:`NotCallable` for a name not allowed."""
    if name in _allowed:
        return _allowed[name]
    if name not in CALLABLE:
        raise NotCallable(f"the executor does not call {name!r}: it is not among its functions")
    module, _, qualname = name.partition(":")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def allow(function: Callable[..., Any]) -> Callable[..., Any]:
    """Let executors call ``function`` too (a decorator)."""
    _allowed[f"{function.__module__}:{function.__qualname__}"] = function
    return function


def allow_named(names: Iterable[str]) -> None:
    """In a local executor's process: the functions its parent allowed (by their names, which
    the parent process itself gave)."""
    for name in names:
        module, _, qualname = name.partition(":")
        found: Any = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
        _allowed[name] = found
