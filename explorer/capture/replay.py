"""A captured launch as a kernel of the ``custom`` form: its header declares every argument
with the contents the launch started from and judges each result against what the launch left
in the program, and its NDRange is launched exactly (``exact = true``).

One header serves both ways of replaying: :func:`launch_variant` reads it in memory (the
buffers' files stay in the capture folder and compiler lines stay the program's), and
:func:`save_launch` writes it at the top of a standalone kernel file with the arrays beside it,
which ``run --kernel-file`` opens like any other.
"""

from __future__ import annotations

import io
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from explorer.capture.bootstrap.recorder import ARG_INFO
from explorer.capture.folder import (
    Capture,
    CapturedArg,
    CapturedLaunch,
    CapturedProgram,
    CaptureError,
    as_capture_error,
)
from explorer.capture.includes import IncludePlan, plan_includes
from explorer.description.elements import ElementType, ElementTypeError, element_type, of_dtype
from explorer.description.launch import (
    CHANNEL_ORDERS,
    CHANNEL_TYPES,
    SAMPLER_ADDRESSES,
    SAMPLER_FILTERS,
)
from explorer.documents import array_file, load_array
from explorer.engine.build_inputs import check_option, option_words
from explorer.engine.header import toml_writer
from explorer.engine.header.catalog import parse_variant
from explorer.engine.header.include_lines import LITERAL_OR_COMMENT
from explorer.engine.header.signature import Parameter, SignatureError, kernel_signature
from explorer.engine.records import Variant
from explorer.frontend import AccessKind, ParsedSource, ParseError, parse
from explorer.paths import TEXT_LIMIT, UserFileError, read_user_bytes, read_user_text, shown

# What a match means, said in every verdict of a replayed launch.
ORIGINAL_RUN = "the original run"
# Largest work-group a replay picks where the program let the driver choose (local size None):
# within every device's limit (256 work-items at least on the GPUs and CPUs of OpenCL 1.2).
_CHOSEN_LOCAL = {1: (256,), 2: (16, 16), 3: (8, 8, 4)}
_INTEGER = re.compile(r"^[+-]?(0[xX][0-9a-fA-F]+|\d+)$")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,254}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# a function-like macro's name and parameters, as -D'OP(a,b)=((a)+(b))' gives them
_FUNCTION = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]{0,254}\(\s*(?:(?:[A-Za-z_][A-Za-z0-9_]*\s*,\s*)*"
    r"(?:[A-Za-z_][A-Za-z0-9_]*|\.\.\.)\s*)?\)"
)
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
    ``[defines]``, compiler switches in ``[options]``, other ``-D`` macros (function-like
    ones, ``-DOP(a,b)=...``, among them) as ``#define`` lines before the source; ``dropped``
    the options a kernel file cannot carry."""

    defines: dict[str, int]
    switches: tuple[str, ...]
    macros: tuple[str, ...]
    dropped: tuple[str, ...]


def split_options(options: tuple[str, ...]) -> BuildOptions:
    defines: dict[str, int] = {}
    switches: list[str] = []
    macros: list[str] = []
    dropped: list[str] = []
    for word in option_words(options):
        if word.startswith("-D") and len(word) > 2:
            name, sep, value = word[2:].partition("=")
            number = _integer(value) if sep else 1
            if _FUNCTION.fullmatch(name) and not _CONTROL.search(value):
                macros.append(f"#define {name} {value if sep else 1}")
            elif not _NAME.fullmatch(name) or _CONTROL.search(value):
                dropped.append(word)  # not a macro a compiler line could define
            elif number is not None:
                defines[name] = number
            else:
                macros.append(f"#define {name} {value}")
        elif check_option(word):
            switches.append(word)
        else:
            dropped.append(word)
    return BuildOptions(defines, tuple(switches), tuple(macros), tuple(dropped))


def _integer(text: str) -> int | None:
    """``text`` as a C integer constant a header's ``[defines]`` holds (64 bits), else None
    (``010`` is C's octal: left to the compiler as a macro)."""
    text = text.strip()
    if not _INTEGER.match(text) or len(text) > 20:
        return None
    try:
        value = int(text, 0)
    except ValueError:
        return None
    return value if -_INT64_MAX - 1 <= value <= _INT64_MAX else None


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
        bounded = launch.why.startswith("past --launches") or "would pass --max-mb" in launch.why
        again = "; capture again with a larger --launches or --max-mb to replay it"
        raise CaptureError(
            f"{where} cannot run: it was recorded without its buffers ({launch.why})"
            + (again if bounded else "")
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


def program_text(capture: Capture, program: CapturedProgram) -> tuple[str, Path, str]:
    """A program's text as its build compiles it (its non-integer macros as ``#define`` lines
    before its source), its source file (inside the capture folder, a regular file of text) and
    the field that names that file."""
    index = capture.programs.index(program)
    where = f"{capture.document}: programs[{index}].source"
    if program.source is None:
        raise CaptureError(f"{where}: the program was built from a binary, not source")
    with as_capture_error():
        path = capture.path(program.source, where)
        source = read_user_text(path, "program source", TEXT_LIMIT)
    macros = "".join(f"{line}\n" for line in split_options(program.options).macros)
    return macros + source, path, where


def _signature(
    text: str, launch: CapturedLaunch, defines: dict[str, int], folders: tuple[str, ...]
) -> list[Parameter]:
    try:
        return kernel_signature(text, launch.kernel, defines, folders)
    except SignatureError as exc:
        raise CaptureError(f"launch {launch.number}: {exc}") from None
    except RecursionError:
        raise CaptureError(
            f"launch {launch.number}: its program's source nests too deeply to be read"
        ) from None


def check_contents(capture: Capture, launch: CapturedLaunch) -> None:
    """Refuse a launch whose buffers' files do not hold what ``capture.json`` says: numbers
    of the buffer's element type, as many as its bytes make, each file inside the folder."""
    for position, a in enumerate(launch.args):
        if not a.has_contents:
            continue
        field = f"{launch.where}.args[{position}]"
        itemsize = np.dtype(a.dtype).itemsize
        if a.kind == "image":
            _check_image(a, field)
        if a.nbytes % itemsize:
            raise CaptureError(
                f"{field}.bytes: {a.nbytes} bytes are not a whole number of {a.dtype} values"
            )
        for phase in ("before", "after"):
            relative = getattr(a, phase)
            assert relative is not None  # a launch with its data names both (folder.py)
            with as_capture_error():
                path = capture.path(relative, f"{field}.{phase}")
                array_file(path, "captured contents", a.dtype, (a.nbytes // itemsize,), f"{field}")


def launch_header(
    capture: Capture,
    launch: CapturedLaunch,
    file_name: Callable[[str], str],
    plan: IncludePlan,
    include_folders: tuple[str, ...] = (),
) -> tuple[str, str, tuple[str, ...]]:
    """The ``custom`` header of ``launch`` (``file_name`` gives the name the header uses for
    each of the capture's files), the program's source, its non-integer macros defined
    before it, and what a replay of it should say besides (why it may differ from the
    original run where that can be told beforehand). ``plan`` (checked) says where its
    ``#include`` files are read; ``include_folders`` (folders beside a saved kernel file) go
    to its ``[options]`` as ``-I``."""
    replayable(capture, launch)
    plan.check()
    program = capture.program_of(launch)
    text, path, _ = program_text(capture, program)
    check_contents(capture, launch)
    options = split_options(program.options)
    folders = (str(path.parent), *(o[2:] for o in plan.options)) if plan.includes else ()
    params = _signature(text, launch, options.defines, folders)
    if len(params) != len(launch.args):
        raise CaptureError(
            f"launch {launch.number}: {launch.kernel} has {len(params)} parameters in its "
            f"source but was launched with {len(launch.args)} arguments"
        )
    for p, a in zip(params, launch.args, strict=True):
        _check_kind(launch, p, a)
    buffers = {
        a.index: _declared_image(p, a) if a.kind == "image" else _declared_buffer(p, a)
        for p, a in zip(params, launch.args, strict=True)
        if a.has_contents
    }
    parsed = _parsed(text, options.defines, folders)
    written = _written(parsed, launch.kernel)
    results, aliased = _results(params, launch.args, buffers, written)
    results = {p.name: results[p.name] for p in params if p.name in results}
    local = launch.local_size or chosen_local(launch.global_size)
    choice = _driver_choice(launch, local, _geometry(parsed, launch.kernel))
    fields: dict[str, object] = {
        "name": f"{launch.kernel}, launch {launch.number} of a capture",
        "family": "custom",
        "kernel": launch.kernel,
        "global": [str(g) for g in launch.global_size],
        "local": [str(v) for v in local],
        "exact": True,
    }
    if options.defines:
        fields["defines"] = dict(options.defines)
    words = (*options.switches, *(f"-I {folder}" for folder in include_folders))
    if words:
        fields["options"] = {"all": " ".join(words)}
    # every launch declares its [args], a kernel without parameters an empty table
    fields["args"] = {
        p.name: _declaration(p, a, buffers.get(a.index), p.name in results, file_name)
        for p, a in zip(params, launch.args, strict=True)
    }
    if results:
        fields["reference"] = {
            "expected": {name: file_name(str(arg.after)) for name, arg in results.items()},
            "expected_from": ORIGINAL_RUN,
            "terms": "1",
        }
    fields["about"] = {
        "source": _provenance(capture, launch),
        "text": _explanation(launch, results, aliased, options, local, include_folders, choice),
    }
    return toml_writer.header(fields), text, (choice,) if choice else ()


def _check_image(a: CapturedArg, field: str) -> None:
    """Refuse an image argument whose format the explorer does not replay, or whose size and
    bytes disagree."""
    kind = {"IMAGE2D": 2, "IMAGE3D": 3}.get(a.image)
    if kind is None:
        raise CaptureError(
            f"{field}.image: an {a.image or 'image of no kind'}; the explorer replays 2-D "
            "and 3-D images (IMAGE2D, IMAGE3D)"
        )
    if a.channel_type.lower() not in CHANNEL_TYPES:
        raise CaptureError(
            f"{field}.channel_type: {shown(a.channel_type, 40)} images are not replayed; the "
            f"channel types replayed: {', '.join(t.upper() for t in CHANNEL_TYPES)}"
        )
    if a.channel_order not in CHANNEL_ORDERS:
        raise CaptureError(
            f"{field}.channel_order: {shown(a.channel_order, 40)} images are not replayed; "
            f"the channel orders replayed: {', '.join(CHANNEL_ORDERS)}"
        )
    sides = (a.width, a.height, a.depth)[:kind]
    if min(sides) < 1:
        raise CaptureError(f"{field}: an {a.image} of {'×'.join(map(str, sides))} pixels")
    et = element_type(_pixel_type(a))
    if a.nbytes != math.prod(sides) * et.nbytes or np.dtype(a.dtype) != et.base:
        raise CaptureError(
            f"{field}.bytes: {a.nbytes} bytes of {a.dtype} are not an {a.image} of "
            f"{'×'.join(map(str, sides))} {a.channel_order} {a.channel_type} pixels"
        )


def _pixel_type(a: CapturedArg) -> str:
    """The element type of one pixel of a captured image (``float4`` for RGBA FLOAT)."""
    count = CHANNEL_ORDERS[a.channel_order]
    return CHANNEL_TYPES[a.channel_type.lower()] + (str(count) if count > 1 else "")


def _check_kind(launch: CapturedLaunch, p: Parameter, a: CapturedArg) -> None:
    """An image or sampler argument given for a parameter of that kind, and a sampler whose
    properties the recorder could ask."""
    where = f"launch {launch.number}: argument {a.index} ({p.name})"
    if (a.kind == "image") != (p.space == "image") or (a.kind == "sampler") != p.is_sampler:
        given = {"image": "an image", "sampler": "a sampler"}.get(a.kind, f"a {a.kind}")
        raise CaptureError(
            f"{where} was given {given} for a parameter of type {p.element_type or p.space}"
        )
    if a.kind == "image" and p.image_dims != {"IMAGE2D": 2, "IMAGE3D": 3}.get(a.image):
        raise CaptureError(f"{where}: an {a.image} given for an {p.image_type}")
    if a.kind == "sampler" and (
        a.address.lower() not in SAMPLER_ADDRESSES or a.filter.lower() not in SAMPLER_FILTERS
    ):
        raise CaptureError(
            f"{where}: a sampler whose addressing ({shown(a.address, 40) or 'not recorded'}) "
            f"or filter ({shown(a.filter, 40) or 'not recorded'}) is not one of OpenCL's"
        )


def _declared_image(p: Parameter, a: CapturedArg) -> _Buffer:
    """An image is declared by its format; its pixels are the elements."""
    et = element_type(_pixel_type(a))
    return _Buffer(a, et.name, a.nbytes // et.nbytes, p.image_access == "read")


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


def _parsed(source: str, defines: dict[str, int], folders: tuple[str, ...]) -> ParsedSource | None:
    try:
        return parse(source, dict(defines), "kernel.cl", strict=False, include_dirs=folders)
    except (ParseError, RecursionError):
        return None


def _written(parsed: ParsedSource | None, kernel: str) -> set[str]:
    """The parameters the kernel writes through itself, as the front end reads it."""
    if parsed is None:
        return set()
    return {
        root
        for site in parsed.accesses
        if site.function == kernel and site.kind in _WRITES
        for root in (site.roots or (site.base,))
    }


# The work-item functions whose values depend on the work-group size.
_GEOMETRY = re.compile(
    r"\b(get_local_id|get_local_size|get_group_id|get_num_groups|get_enqueued_local_size"
    r"|get_local_linear_id|get_group_linear_id|work_group_\w+|sub_group_\w+"
    r"|get_sub_group_\w+|get_num_sub_groups|get_max_sub_group_size)\s*\("
)


def _geometry(parsed: ParsedSource | None, kernel: str) -> tuple[str, ...]:
    """The work-item functions of the work-group's geometry that a launch of ``kernel`` calls
    (in itself or the functions it reaches), in the order first met; none where the source
    does not parse."""
    if parsed is None:
        return ()
    reached = parsed.reached(kernel)
    found: dict[str, None] = {}
    for function in parsed.functions:
        if function.name not in reached or function.body is None:
            continue
        body = LITERAL_OR_COMMENT.sub(" ", parsed.source[function.body.start : function.body.end])
        found.update((m.group(1), None) for m in _GEOMETRY.finditer(body))
    return tuple(found)


def _driver_choice(launch: CapturedLaunch, local: tuple[int, ...], read: tuple[str, ...]) -> str:
    """Why a launch whose work-group size the driver chose may replay otherwise ("" where
    the program chose it, or the kernel never asks)."""
    if launch.local_size is not None or not read:
        return ""
    return (
        f"the program let the driver choose the work-group size, which OpenCL does not tell "
        f"(so it is not in the capture); {'x'.join(map(str, local))} is used here, and "
        f"{launch.kernel} reads its group's geometry ({', '.join(read)}): where its results "
        "differ from the original run's, a work-group size other than the driver's may be why "
        "(give the launch a local size in the program to replay it exactly)"
    )


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
) -> dict[str, object]:
    if a.kind == "local":
        return {"local": "uchar", "count": a.nbytes}
    if a.kind == "null":
        return {"buffer": "uchar", "count": 0, "null": True}
    if a.kind == "scalar":
        type_name, values = _scalar(p, a.data)
        written = [_number(v) for v in values]
        return {"scalar": type_name, "value": written[0] if len(written) == 1 else written}
    if a.kind == "sampler":
        return {
            "sampler": a.address.lower(),
            "normalized": a.normalized,
            "filter": a.filter.lower(),
        }
    assert buffer is not None and a.before is not None
    if a.kind == "image":
        sides = dict(zip(("width", "height", "depth"), (a.width, a.height, a.depth), strict=True))
        image: dict[str, object] = {
            "image": a.channel_type.lower(),
            "channels": a.channel_order,
            **{k: v for k, v in sides.items() if k != "depth" or a.image == "IMAGE3D"},
            "contents": "npy",
            "file": file_name(a.before),
            "access": p.image_access or "read",
        }
        if result:
            image["result"] = True
        return image
    declared: dict[str, object] = {
        "buffer": buffer.type,
        "count": buffer.count,
        "contents": "npy",
        "file": file_name(a.before),
        "access": "read" if buffer.read_only else "readwrite",
    }
    if result:
        declared["result"] = True
    return declared


def _number(value: int | float) -> int | float | str:
    """A scalar's value as the header holds it: an integer past TOML's (64 bits, signed),
    a ``ulong`` from 2**63 up, as its decimal text, which the reader takes exactly."""
    if isinstance(value, int) and not -_INT64_MAX - 1 <= value <= _INT64_MAX:
        return str(value)
    return value


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
    include_folders: tuple[str, ...] = (),
    choice: str = "",
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
    if choice:
        parts.append(f"{choice[0].upper()}{choice[1:]}.")
    elif launch.local_size is None:
        parts.append(
            f"The program let the driver choose the work-group size; {'x'.join(map(str, local))} "
            "is used here."
        )
    for name, same in aliased:
        parts.append(
            f"{name} was the same memory as {same} in the program; here each has its own copy, "
            f"and only {same} is judged."
        )
    dropped = options.dropped
    if include_folders:  # the -I folders' headers travel beside the kernel file
        dropped = tuple(word for word in dropped if not word.startswith("-I"))
        parts.append(
            "The headers its build read are beside it, in "
            f"{', '.join(include_folders)} (its -I folders, in the order they were searched)."
        )
    if dropped:
        parts.append(f"Build options not carried over: {' '.join(dropped)}.")
    return " ".join(parts)


# -- the two ways of replaying -------------------------------------------------------------


@dataclass(frozen=True)
class Replay:
    """A launch as the kernel that replays it, and what the replay did not use and why (the
    program's include folders outside the capture, unless the person agreed)."""

    variant: Variant
    notes: tuple[str, ...] = ()


def replay(
    capture: Capture, which: str | int | CapturedLaunch, allow_outside: bool = False
) -> Replay:
    """The launch as a kernel the engine runs, traces and checks: the program's source with
    the launch's header in memory; its line numbers are the program's. Files outside the
    capture folder (the program's include folders) are used only where ``allow_outside``."""
    launch = which if isinstance(which, CapturedLaunch) else capture.find(which)
    program = capture.program_of(launch)
    replayable(capture, launch)
    plan = plan_includes(capture, program, allow_outside)
    plan.check()  # before the front end reads the source: it reads what it includes
    _, path, _ = program_text(capture, program)

    def relative(name: str) -> str:
        return os.path.relpath(capture.path(name), path.parent)

    header, text, said = launch_header(capture, launch, relative, plan)
    variant = parse_variant(header + "#line 1\n" + text, path, variant_id=launch.label)
    # The header read, the kernel is the program's text alone, as a .sim file's is: every
    # launch of one program builds once, and compiler and trace lines are the program's.
    macros = "".join(f"{line}\n" for line in split_options(program.options).macros)
    source = text[len(macros) :]
    notes = (*plan.notes(), *said)
    # Built with the option the recorder built it with, so that a program without options of
    # its own is the same build as in the program (the compiler's cache serves it again).
    variant = replace(
        variant,
        source=f"{macros}#line 1\n{source}" if macros else source,
        build_options=(
            *variant.build_options,
            *plan.options,
            *((ARG_INFO,) if program.arg_info else ()),
        ),
        text=" ".join((variant.text, *(f"{n[0].upper()}{n[1:]}." for n in notes))),
    )
    return Replay(variant, notes)


def launch_variant(
    capture: Capture, which: str | int | CapturedLaunch, allow_outside: bool = False
) -> Variant:
    """:func:`replay`'s kernel alone."""
    return replay(capture, which, allow_outside).variant


def _plain(name: str) -> str:
    """A name from a capture as a part of a file name: letters, digits, ``_`` and ``-``."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "_"


def save_launch(
    capture: Capture,
    which: str | int | CapturedLaunch,
    folder: Path,
    allow_outside: bool = False,
) -> Path:
    """A standalone kernel file for the launch in ``folder`` (``KERNEL-N.cl``), with its
    inputs and expected outputs as ``.npy`` files beside it; returns the kernel file. No file
    already in ``folder`` is replaced (one holding the very same bytes is left as it is)."""
    launch = which if isinstance(which, CapturedLaunch) else capture.find(which)
    stem = f"{_plain(launch.kernel)}-{launch.number}"
    names: dict[str, str] = {}
    shapes: dict[str, tuple[str, int, str]] = {}
    for position, a in enumerate(launch.args):
        label = _plain(a.name or f"arg{a.index}")
        for phase, suffix in (("before", ".npy"), ("after", ".expected.npy")):
            relative = getattr(a, phase)
            if relative is None:
                continue
            if relative not in names:
                name = f"{stem}.{label}{suffix}"
                if name in names.values():  # two names alike (a capture's, made plain)
                    name = f"{stem}.{label}-{a.index}{suffix}"
                names[relative] = name
            count = a.nbytes // np.dtype(a.dtype).itemsize
            shapes.setdefault(relative, (a.dtype, count, f"{launch.where}.args[{position}]"))

    def named(relative: str) -> str:
        return names[relative]

    replayable(capture, launch)
    program = capture.program_of(launch)
    plan = plan_includes(capture, program, allow_outside)
    plan.check()
    files: dict[str, bytes] = {}
    folders: list[str] = []
    if plan.includes:  # the headers the build read, as the capture holds them
        for place, copy in enumerate(program.include):
            folder_name = f"{stem}.include/{place}"
            files.update(_headers_of(capture, copy, folder_name))
            folders.append(folder_name)
    header, text, _ = launch_header(capture, launch, named, plan, tuple(folders))
    for relative, name in names.items():
        if f'"{name}"' not in header:
            continue
        dtype, count, field = shapes[relative]
        with as_capture_error():
            array = load_array(
                capture.path(relative, field), "captured contents", dtype, (count,), field
            )
        data = io.BytesIO()
        np.save(data, array, allow_pickle=False)
        files[name] = data.getvalue()
    kernel_file = f"{stem}.cl"
    files[kernel_file] = (header + text).encode("utf-8")
    write_new_files(folder, files)
    return folder / kernel_file


def _headers_of(capture: Capture, copy: str, saved: str) -> dict[str, bytes]:
    """The headers in the capture's copy ``copy`` of a folder a build searched, each named as
    it will lie under ``saved`` beside a saved kernel file (whose ``[options]`` name that folder
    with ``-I``, as the replay names the copy): the saved kernel builds and traces with the
    very headers the program's build read. Only regular files inside the capture are read."""
    root = capture.path(copy, "capture.json: programs[].include")
    found: dict[str, bytes] = {}
    for at, folders, names in os.walk(root):
        folders[:] = sorted(f for f in folders if not os.path.islink(os.path.join(at, f)))
        for name in sorted(names):
            path = Path(at, name)
            if path.is_symlink() or not path.is_file():
                continue
            relative = path.relative_to(root).as_posix()
            with as_capture_error():
                found[f"{saved}/{relative}"] = read_user_bytes(path, "header", TEXT_LIMIT)
    return found


def write_new_files(folder: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` (name: bytes) into ``folder`` (made if missing), never replacing a file
    there: where one of the names is taken by a file of other bytes (or by anything else),
    nothing is written. A file holding the very bytes is left as it is."""
    if os.path.lexists(folder) and not folder.is_dir():
        raise CaptureError(f"{shown(folder)} is not a folder; give a folder to save into")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CaptureError(f"cannot make the folder {shown(folder)}: {exc.strerror}") from None
    taken = sorted(name for name, data in files.items() if _taken(folder, name, data))
    if taken:
        more = f" and {len(taken) - 3} more" if len(taken) > 3 else ""
        raise CaptureError(
            f"{shown(folder)} already holds {', '.join(taken[:3])}{more}; a save never "
            "replaces a file: choose another folder, or move those away"
        )
    written: list[Path] = []
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    target = folder
    try:
        for name, data in files.items():
            target = folder / name
            if os.path.lexists(target):
                continue  # the same bytes, saved before
            for parent in reversed(Path(name).parents[:-1]):  # a header's folders
                made = folder / parent
                if not os.path.lexists(made):
                    os.mkdir(made)
                    written.append(made)
                elif made.is_symlink() or not made.is_dir():
                    raise OSError(f"{shown(made)} is not a folder")
            fd = os.open(target, flags, 0o666)
            written.append(target)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
    except OSError as exc:
        for path in reversed(written):
            if path.is_dir() and not path.is_symlink():
                path.rmdir()
            else:
                path.unlink(missing_ok=True)
        raise CaptureError(
            f"cannot write {shown(target)}: {exc.strerror or exc}; nothing was saved"
        ) from None


def _taken(folder: Path, name: str, data: bytes) -> bool:
    """Whether ``folder / name`` is there and holds anything but ``data`` (or lies in a
    folder there that is not a folder of ``folder``'s own: a link)."""
    for parent in Path(name).parents[:-1]:
        made = folder / parent
        if os.path.lexists(made) and (made.is_symlink() or not made.is_dir()):
            return True
    path = folder / name
    if not os.path.lexists(path):
        return False
    if path.is_symlink() or not path.is_file():
        return True
    try:
        return read_user_bytes(path, "file", len(data)) != data
    except UserFileError:
        return True
