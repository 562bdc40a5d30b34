"""The files of this machine a request reads (an input image, a custom kernel's ``.npy``
contents and expected answers, its reference kernel, the files its ``#include`` lines
read): a host has none of them, so they travel with the request and it is rewritten to name
their copies there.

The host keeps each copy at its path here under one folder of its own, so the headers keep
their places beside each other and the ``-I`` folders of the build are that folder's copies.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from typing import Any

from explorer.description.declarations import BufferDecl, CustomSpec
from explorer.engine.build_inputs import include_dirs, included_files
from explorer.engine.records import RunRequest


def paths_in(request: RunRequest) -> list[str]:
    """Every file of this machine ``request`` reads, in a stable order."""
    found = []
    if request.image_path and request.input == "image":
        found.append(request.image_path)
    spec = request.variant.custom
    if spec is not None:
        found += [b.file for b in spec.buffers if b.file]
        found += [path for _, path in spec.reference_expected]
        if spec.reference_kernel:
            found.append(spec.reference_kernel)
    found += included_files(request.variant.source, request.variant.build_options)
    return [p for p in dict.fromkeys(found) if os.path.isfile(p)]


def moved(request: RunRequest, where: dict[str, str]) -> RunRequest:
    """``request`` naming each file by ``where[path]``, its copy on the host."""
    if not where:
        return request
    image = where.get(request.image_path or "", request.image_path)
    variant = request.variant
    if variant.custom is not None:
        variant = replace(variant, custom=_moved_spec(variant.custom, where))
    if include_dirs(variant.build_options):
        variant = replace(variant, build_options=_moved_options(variant.build_options, where))
    return replace(request, image_path=image, variant=variant)


def kept_at(root: str, path: str) -> str:
    """Where a host keeps its copy of this machine's ``path``: at the same path under
    ``root``, spelled alike by the window and the host whichever system each runs (either
    slash separates, a drive letter becomes a folder, ``..`` never leaves ``root``)."""
    parts: list[str] = []
    for part in re.split(r"[\\/]", path):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part[0] if re.fullmatch(r"[A-Za-z]:", part) and not parts else part)
    return "/".join([root.rstrip("/\\"), *parts])


def _moved_options(options: tuple[str, ...], where: dict[str, str]) -> tuple[str, ...]:
    """The build's ``-I`` folders named by their copies' folder on the host, where its copies
    of the headers are."""
    roots = {_root_of(path, copy) for path, copy in where.items()}
    roots.discard(None)
    if len(roots) != 1:
        return options
    (root,) = roots
    moved_options: list[str] = []
    for i, option in enumerate(options):
        if option.startswith("-I") and len(option) > 2:
            option = "-I" + kept_at(str(root), option[2:])
        elif i > 0 and options[i - 1] == "-I":
            option = kept_at(str(root), option)
        moved_options.append(option)
    return tuple(moved_options)


def _root_of(path: str, copy: str) -> str | None:
    """The folder under which ``copy`` keeps ``path`` (:func:`kept_at`), if it does."""
    tail = kept_at("", path)
    if not copy.endswith(tail):
        return None
    return copy[: len(copy) - len(tail)].rstrip("/\\") or None


def _moved_spec(spec: CustomSpec, where: dict[str, str]) -> CustomSpec:
    params = tuple(
        replace(p, file=where.get(p.file, p.file)) if isinstance(p, BufferDecl) and p.file else p
        for p in spec.params
    )
    expected = tuple((name, where.get(path, path)) for name, path in spec.reference_expected)
    kernel = where.get(spec.reference_kernel, spec.reference_kernel)
    return replace(spec, params=params, reference_expected=expected, reference_kernel=kernel)


def requests_in(kind: str, payload: Any) -> list[RunRequest]:
    """The run requests a request's payload carries (a run, a trace's, a call's arguments)."""
    if kind == "run":
        return [payload]
    if kind == "trace":
        return [payload[0].run]
    if kind == "call":
        return [_run_of(a) for a in payload[1] if _run_of(a) is not None]  # type: ignore[misc]
    return []


def with_moved(kind: str, payload: Any, where: dict[str, str]) -> Any:
    """``payload`` with every run request in it :func:`moved`."""
    if not where:
        return payload
    if kind == "run":
        return moved(payload, where)
    if kind == "trace":
        trace, *rest = payload
        return (replace(trace, run=moved(trace.run, where)), *rest)
    if kind == "call":
        name, args = payload
        return (name, tuple(_moved_arg(a, where) for a in args))
    return payload


def _run_of(arg: Any) -> RunRequest | None:
    run = getattr(arg, "run", arg)
    return run if isinstance(run, RunRequest) else None


def _moved_arg(arg: Any, where: dict[str, str]) -> Any:
    if isinstance(arg, RunRequest):
        return moved(arg, where)
    if isinstance(getattr(arg, "run", None), RunRequest):
        return replace(arg, run=moved(arg.run, where))
    return arg
