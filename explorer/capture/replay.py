"""A captured launch as a kernel of the ``custom`` form: its header declares every argument
with the contents the launch started from and judges each result against what the launch left
in the program, and its NDRange is launched exactly (``exact = true``).

One header serves both ways of replaying: :func:`launch_variant` reads it in memory (the
buffers' files stay in the capture folder and compiler lines stay the program's), and
:func:`save_launch` writes it at the top of a standalone kernel file with the arrays beside it,
which ``run --kernel-file`` opens like any other.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from explorer.capture.folder import (
    Capture,
    CapturedArg,
    CapturedLaunch,
    CapturedProgram,
    CaptureError,
)
from explorer.capture.recorder import ARG_INFO
from explorer.description.elements import ElementType, ElementTypeError, element_type, of_dtype
from explorer.engine.header.catalog import parse_variant
from explorer.engine.header.signature import Parameter, SignatureError, kernel_signature
from explorer.engine.launch.build import check_option, include_dirs
from explorer.engine.records import Variant
from explorer.frontend import AccessKind, ParseError, parse

# What a match means, said in every verdict of a replayed launch.
ORIGINAL_RUN = "the original run"
# Largest work-group a replay picks where the program let the driver choose (local size None):
# within every device's limit (256 work-items at least on the GPUs and CPUs of OpenCL 1.2).
_CHOSEN_LOCAL = {1: (256,), 2: (16, 16), 3: (8, 8, 4)}
_INTEGER = re.compile(r"^[+-]?(0[xX][0-9a-fA-F]+|\d+)$")
_INT64_MAX = 2**63 - 1
_WRITES = {
    AccessKind.WRITE,
    AccessKind.READ_MODIFY_WRITE,
    AccessKind.ATOMIC,
    AccessKind.VSTORE,
    AccessKind.ASYNC_COPY_WRITE,
}


@dataclass(frozen=True)
class BuildOptions:
    """A program's build options as a kernel file carries them: integer ``-D`` defines in
    ``[defines]``, compiler switches in ``[options]``, other ``-D`` macros as ``#define``
    lines before the source; ``dropped`` the options a kernel file cannot carry."""

    defines: dict[str, int]
    switches: tuple[str, ...]
    macros: tuple[str, ...]
    dropped: tuple[str, ...]


def split_options(options: tuple[str, ...]) -> BuildOptions:
    defines: dict[str, int] = {}
    switches: list[str] = []
    macros: list[str] = []
    dropped: list[str] = []
    words = list(options)
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("-D", "-I") and i + 1 < len(words):
            word, i = word + words[i + 1], i + 1
        i += 1
        if word.startswith("-D") and len(word) > 2:
            name, sep, value = word[2:].partition("=")
            if not sep:
                defines[name] = 1
            elif _INTEGER.match(value.strip()):
                defines[name] = int(value.strip(), 0)
            else:
                macros.append(f"#define {name} {value}")
        elif check_option(word):
            switches.append(word)
        else:
            dropped.append(word)
    return BuildOptions(defines, tuple(switches), tuple(macros), tuple(dropped))


def chosen_local(global_size: tuple[int, ...]) -> tuple[int, ...]:
    """A local size for a launch whose program let the driver choose: per dimension the
    largest divisor of the NDRange up to :data:`_CHOSEN_LOCAL`, so the groups stay uniform."""
    caps = _CHOSEN_LOCAL[len(global_size)]
    return tuple(
        max(d for d in range(1, min(g, cap) + 1) if g % d == 0)
        for g, cap in zip(global_size, caps, strict=True)
    )


def replayable(capture: Capture, launch: CapturedLaunch) -> None:
    """Raise :class:`CaptureError` saying why ``launch`` cannot run again, if it cannot."""
    where = f"launch {launch.number} ({launch.label})"
    if not launch.data:
        raise CaptureError(
            f"{where} cannot run: it was recorded without its buffers ({launch.why}); capture "
            "again with a larger --launches or --max-mb to replay it"
        )
    program = capture.program_of(launch)
    if program.source is None:
        raise CaptureError(f"{where} cannot run: its program was built from a binary, not source")
    if launch.offset and any(launch.offset):
        raise CaptureError(
            f"{where} cannot run: the program launched it with a global offset "
            f"{'x'.join(map(str, launch.offset))}; the explorer launches NDRanges from 0"
        )
    if not launch.global_size or not 1 <= len(launch.global_size) <= 3:
        raise CaptureError(f"{where} cannot run: its NDRange has {len(launch.global_size)} sizes")
    if min(launch.global_size) < 1:
        raise CaptureError(f"{where} cannot run: its NDRange is empty")


@dataclass(frozen=True)
class _Buffer:
    """How one buffer argument is declared, and its files."""

    arg: CapturedArg
    type: str
    count: int
    read_only: bool


def launch_header(
    capture: Capture, launch: CapturedLaunch, file_name: Callable[[str], str]
) -> tuple[str, str]:
    """The ``custom`` header of ``launch`` (``file_name`` gives the name the header uses for
    each of the capture's files) and the program's source, its non-integer macros defined
    before it."""
    replayable(capture, launch)
    program = capture.program_of(launch)
    assert program.source is not None
    source = capture.path(program.source).read_text(encoding="utf-8")
    options = split_options(program.options)
    macros = "".join(f"{line}\n" for line in options.macros)
    try:
        params = kernel_signature(macros + source, launch.kernel, options.defines)
    except SignatureError as exc:
        raise CaptureError(f"launch {launch.number}: {exc}") from None
    if len(params) != len(launch.args):
        raise CaptureError(
            f"launch {launch.number}: {launch.kernel} has {len(params)} parameters in its "
            f"source but was launched with {len(launch.args)} arguments"
        )
    buffers = {
        a.index: _declared_buffer(p, a)
        for p, a in zip(params, launch.args, strict=True)
        if a.kind == "buffer"
    }
    written = _written(macros + source, launch.kernel, options.defines)
    results, aliased = _results(params, launch.args, buffers, written)
    results = {p.name: results[p.name] for p in params if p.name in results}
    local = launch.local_size or chosen_local(launch.global_size)
    q = _toml
    lines = [
        "/*---",
        f"name = {q(f'{launch.kernel}, launch {launch.number} of a capture')}",
        'family = "custom"',
        f"kernel = {q(launch.kernel)}",
        f"global = {q([str(g) for g in launch.global_size])}",
        f"local = {q([str(v) for v in local])}",
        "exact = true",
    ]
    if options.defines:
        lines.append("[defines]")
        lines += [f"{name} = {value}" for name, value in options.defines.items()]
    if options.switches:
        lines += ["[options]", f"all = {q(' '.join(options.switches))}"]
    for p, a in zip(params, launch.args, strict=True):
        lines.append(f"[args.{p.name}]")
        lines += _declaration(p, a, buffers.get(a.index), p.name in results, file_name)
    if results:
        expected = ", ".join(
            f"{name} = {q(file_name(str(arg.after)))}" for name, arg in results.items()
        )
        lines += [
            "[reference]",
            f"expected = {{ {expected} }}",
            f"expected_from = {q(ORIGINAL_RUN)}",
            'terms = "1"',
        ]
    lines += [
        "[about]",
        f"source = {q(_provenance(capture, launch))}",
        f"text = {q(_explanation(launch, results, aliased, options, local))}",
        "---*/",
    ]
    return "\n".join(lines) + "\n", macros + source


def _declared_buffer(p: Parameter, a: CapturedArg) -> _Buffer:
    """A buffer's element type: the parameter's own where the recorded contents are of its
    base type, else the recorded type (bytes for a struct); the kernel gets the same bytes."""
    stored = np.dtype(a.dtype or "uint8")
    et: ElementType | None
    try:
        et = element_type(p.element_type)
    except ElementTypeError:
        et = None
    if et is None or et.base != stored or a.nbytes % et.nbytes:
        et = of_dtype(stored)
    read_only = p.is_const or p.space == "constant" or a.flags == ("READ_ONLY",)
    return _Buffer(a, et.name, a.nbytes // et.nbytes, read_only)


def _written(source: str, kernel: str, defines: dict[str, int]) -> set[str]:
    """The parameters the kernel writes through itself, as the front end reads it."""
    try:
        parsed = parse(source, dict(defines), "kernel.cl", strict=False)
    except ParseError:
        return set()
    return {
        root
        for site in parsed.accesses
        if site.function == kernel and site.kind in _WRITES
        for root in (site.roots or (site.base,))
    }


def _results(
    params: list[Parameter],
    args: tuple[CapturedArg, ...],
    buffers: dict[int, _Buffer],
    written: set[str],
) -> tuple[dict[str, CapturedArg], list[tuple[str, str]]]:
    """The buffers judged: those the launch changed (all the writable ones where it changed
    none), by parameter name. Of several names of one memory, the one the kernel writes
    through is judged (the first where that cannot be told): (each other name, the judged
    one's) is returned for the explanation."""
    writable = [(p, a) for p, a in zip(params, args, strict=True) if a.index in buffers]
    writable = [(p, a) for p, a in writable if not buffers[a.index].read_only]
    chosen = [(p, a) for p, a in writable if a.changed] or writable
    chosen.sort(key=lambda pa: pa[0].name not in written)  # stable: the kernel's order kept
    results: dict[str, CapturedArg] = {}
    aliased: list[tuple[str, str]] = []
    for p, a in chosen:
        same = next((n for n, r in results.items() if _overlap(a, r)), None)
        if same is not None:
            aliased.append((p.name, same))
        else:
            results[p.name] = a
    for p, a in zip(params, args, strict=True):  # a read-only name of a result's memory
        if a.index not in buffers or p.name in results or p.name in dict(aliased):
            continue
        same = next((n for n, r in results.items() if _overlap(a, r)), None)
        if same is not None:
            aliased.append((p.name, same))
    return results, aliased


def _overlap(a: CapturedArg, b: CapturedArg) -> bool:
    return (
        a.memory is not None
        and a.memory == b.memory
        and a.origin < b.origin + b.nbytes
        and b.origin < a.origin + a.nbytes
    )


def _declaration(
    p: Parameter,
    a: CapturedArg,
    buffer: _Buffer | None,
    result: bool,
    file_name: Callable[[str], str],
) -> list[str]:
    q = _toml
    if a.kind == "local":
        return ['local = "uchar"', f"count = {a.nbytes}"]
    if a.kind == "null":
        return ['buffer = "uchar"', "count = 0", "null = true"]
    if a.kind == "scalar":
        type_name, values = _scalar(p, a.data)
        value = q(values[0]) if len(values) == 1 else q(values)
        return [f"scalar = {q(type_name)}", f"value = {value}"]
    assert buffer is not None and a.before is not None
    lines = [
        f"buffer = {q(buffer.type)}",
        f"count = {buffer.count}",
        'contents = "npy"',
        f"file = {q(file_name(a.before))}",
        f'access = "{"read" if buffer.read_only else "readwrite"}"',
    ]
    if result:
        lines.append("result = true")
    return lines


def _scalar(p: Parameter, data: bytes) -> tuple[str, list[int | float]]:
    """A by-value argument's type and values, read from the bytes the program passed: a
    number or a vector's lanes in the parameter's type, or the bytes of a struct."""
    name = p.scalar_type or p.element_type
    try:
        et = element_type(name)
        if len(data) < et.base.itemsize * et.width:
            raise ElementTypeError(name)
    except ElementTypeError:
        return "uchar", list(data)
    values = np.frombuffer(data, dtype=et.base, count=et.width).tolist()
    return et.name, values


def _provenance(capture: Capture, launch: CapturedLaunch) -> str:
    command = " ".join(capture.command) or "a program"
    return f"launch {launch.number} ({launch.label}) of `{command}`, on {launch.device}"


def _explanation(
    launch: CapturedLaunch,
    results: dict[str, CapturedArg],
    aliased: list[tuple[str, str]],
    options: BuildOptions,
    local: tuple[int, ...],
) -> str:
    parts = [
        f"{launch.kernel} as the program launched it ({'x'.join(map(str, launch.global_size))} "
        f"work-items), from the buffers it had then; "
        + (
            f"{', '.join(results)} judged against what the launch left in the program."
            if results
            else "no buffer it could write, so nothing is judged."
        )
    ]
    if launch.local_size is None:
        parts.append(
            f"The program let the driver choose the work-group size; {'x'.join(map(str, local))} "
            "is used here."
        )
    for name, same in aliased:
        parts.append(
            f"{name} was the same memory as {same} in the program; here each has its own copy, "
            f"and only {same} is judged."
        )
    if options.dropped:
        parts.append(f"Build options not carried over: {' '.join(options.dropped)}.")
    return " ".join(parts)


def _toml(value: object) -> str:
    """``value`` as TOML: strings (JSON's escapes are TOML's), numbers (nan and inf too),
    lists."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if abs(value) <= _INT64_MAX else repr(float(value))
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


# -- the two ways of replaying -------------------------------------------------------------


def launch_variant(capture: Capture, which: str | int | CapturedLaunch) -> Variant:
    """The launch as a kernel the engine runs, traces and checks: the program's source with
    the launch's header in memory; its line numbers are the program's."""
    launch = which if isinstance(which, CapturedLaunch) else capture.find(which)
    program = capture.program_of(launch)
    path = capture.path(program.source or "programs/unknown.cl")

    def relative(name: str) -> str:
        return os.path.relpath(capture.path(name), path.parent)

    header, source = launch_header(capture, launch, relative)
    variant = parse_variant(header + "#line 1\n" + source, path, variant_id=launch.label)
    # The header read, the kernel is the program's text alone, as a .sim file's is: every
    # launch of one program builds once, and compiler and trace lines are the program's.
    text = capture.path(program.source or "").read_text(encoding="utf-8")
    macros = source[: len(source) - len(text)]
    # Built with the option the recorder built it with, so that a program without options of
    # its own is the same build as in the program (the compiler's cache serves it again).
    return replace(
        variant,
        source=f"{macros}#line 1\n{text}" if macros else text,
        build_options=(*variant.build_options, *include_options(program, text), ARG_INFO),
    )


_INCLUDES = re.compile(r"^[ \t]*#[ \t]*include\b", re.M)


def include_options(program: CapturedProgram, source: str) -> tuple[str, ...]:
    """Where the program's ``#include`` files were found, as ``-I`` options: the folder it
    was built in (a relative include is found there), then its own ``-I`` folders (a relative
    one from that folder); those that exist here. None for a program that includes nothing
    (its build stays the program's own)."""
    if not _INCLUDES.search(source):
        return ()
    base = Path(program.cwd) if program.cwd else None
    folders = [base] if base is not None else []
    for named in include_dirs(program.options):
        folder = Path(named)
        folders.append(folder if folder.is_absolute() or base is None else base / folder)
    kept = dict.fromkeys(str(f.resolve()) for f in folders if f.is_dir())
    return tuple(f"-I{folder}" for folder in kept)


def save_launch(capture: Capture, which: str | int | CapturedLaunch, folder: Path) -> Path:
    """A standalone kernel file for the launch in ``folder`` (``KERNEL-N.cl``), with its
    inputs and expected outputs as ``.npy`` files beside it; returns the kernel file."""
    launch = which if isinstance(which, CapturedLaunch) else capture.find(which)
    stem = f"{launch.kernel}-{launch.number}"
    names: dict[str, str] = {}
    for a in launch.args:
        label = a.name or f"arg{a.index}"
        if a.before is not None:
            names.setdefault(a.before, f"{stem}.{label}.npy")
        if a.after is not None and a.after not in names:
            names[a.after] = f"{stem}.{label}.expected.npy"

    def named(relative: str) -> str:
        return names[relative]

    header, source = launch_header(capture, launch, named)
    folder.mkdir(parents=True, exist_ok=True)
    for relative, name in names.items():
        if f'"{name}"' in header:
            shutil.copyfile(capture.path(relative), folder / name)
    kernel_file = folder / f"{stem}.cl"
    kernel_file.write_text(header + source, encoding="utf-8")
    return kernel_file
