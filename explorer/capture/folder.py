"""A capture folder, read: the launches a program made, in order, each with its kernel, its
NDRange and its arguments, and where their contents before and after it lie.

The folder is readable without the explorer (``docs/capture.md``): ``capture.json``, the
programs' sources under ``programs/`` and the buffers as ``.npy`` files under ``data/``, small
ones packed one after another into ``data/small.pack`` (``packed`` says where each lies). While
the program runs, the recorder appends to ``journal.jsonl``; :func:`assemble` turns that into
``capture.json`` (``capture`` does it when the program ends, and :func:`load_capture` does it
for a folder whose capture was cut short).

A capture folder may come from anyone: both files are read as :mod:`explorer.documents` reads
any document from outside (bounded in size and depth, every field checked, every file it names
kept inside the folder), and a damaged one is a :class:`CaptureError` naming the file and field.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explorer.capture.bootstrap import JOURNAL, PACK, PACK_LIMIT
from explorer.capture.journal import (
    CAPTURE_FILE,
    DOCUMENT_LIMIT,
    FORMAT,
    VERSION,
    assemble,
)
from explorer.documents import (
    REQUIRED,
    DocumentError,
    Fields,
    inside,
    integer,
    items,
    read_json,
)
from explorer.paths import UserFileError, shown

# What a capture may hold: far more than any program launches, well under what fits in memory.
MAX_LAUNCHES = 1 << 20
MAX_PROGRAMS = 1 << 16
MAX_ARGS = 4096  # OpenCL kernels take far fewer (CL_DEVICE_MAX_PARAMETER_SIZE)
MAX_SIZE = (1 << 63) - 1  # a size_t of the host
KINDS = ("buffer", "image", "sampler", "local", "null", "scalar", "unsupported", "unset")
# The element types the recorder writes buffers as (docs/capture.md).
BUFFER_DTYPES = (
    "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64",
)  # fmt: skip


class CaptureError(DocumentError):
    """A capture folder, or a launch of it, that cannot be used; the message says why."""


@contextmanager
def as_capture_error() -> Iterator[None]:
    """Any file or document error inside becomes a :class:`CaptureError` with its message."""
    try:
        yield
    except CaptureError:
        raise
    except UserFileError as exc:
        raise CaptureError(str(exc)) from None


@dataclass(frozen=True)
class CapturedArg:
    """One argument of a launch. ``kind``: buffer, local, null, scalar, unsupported or unset.
    A buffer's ``before``/``after`` are its contents' files (relative to the folder);
    ``memory`` tells buffers apart (the same number: the same memory object, ``origin`` bytes
    into it for a sub-buffer). A scalar's bytes are ``hex``; ``dtype`` is numpy's name."""

    index: int
    kind: str
    name: str | None = None
    type: str | None = None
    nbytes: int = 0  # "bytes" in capture.json
    dtype: str = ""
    memory: int | None = None
    origin: int = 0
    flags: tuple[str, ...] = ()
    before: str | None = None
    after: str | None = None
    changed: bool = False
    hex: str = ""
    value: Any = None
    # An image: its kind (IMAGE2D, IMAGE3D, ...), channel order and type as OpenCL names them
    # (RGBA, FLOAT), and its size in pixels (depth 0 for a 2-D image); its contents are rows
    # of pixels without padding, ``dtype`` values each.
    image: str = ""
    channel_order: str = ""
    channel_type: str = ""
    width: int = 0
    height: int = 0
    depth: int = 0
    # A sampler: normalised coordinates, its addressing and filter modes as OpenCL names them
    # (CLAMP_TO_EDGE, NEAREST); empty where the recorder could not ask.
    normalized: bool = False
    address: str = ""
    filter: str = ""

    @property
    def data(self) -> bytes:
        return bytes.fromhex(self.hex)

    @property
    def has_contents(self) -> bool:
        """A buffer or an image: its contents before and after the launch are files."""
        return self.kind in ("buffer", "image")


@dataclass(frozen=True)
class CapturedProgram:
    """A program the kernels came from: its source file (None: built from a binary), the
    build options as the program gave them, and the folder it was built in (``cwd``: where
    its relative ``#include`` files and ``-I`` folders were; empty in older captures).
    ``include``: the copies of the folders its build searched for ``#include`` files (the
    folder it ran in, its ``-I`` folders, pyopencl's own), inside the capture, in the order
    the build searched them, with the headers it read; empty in older captures.
    ``arg_info``: whether the program was built with kernel argument info, as the recorder
    builds every program it can (False where that build failed and the program's own was
    kept: NVIDIA's compiler fails on a kernel without parameters with it)."""

    index: int
    source: str | None
    options: tuple[str, ...]
    cwd: str = ""
    include: tuple[str, ...] = ()
    arg_info: bool = True


@dataclass(frozen=True)
class CapturedLaunch:
    """One launch. ``number`` counts every launch of the program from 1; ``occurrence``
    counts this kernel's launches from 1 (``label``: ``KERNEL#k``). ``data`` is False for a
    launch recorded without its buffers, ``why`` says why. ``where`` names it in its document
    (``capture.json: launches[3]``), for messages about its fields."""

    number: int
    kernel: str
    occurrence: int
    program: int
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    offset: tuple[int, ...] | None
    device: str
    platform: str
    args: tuple[CapturedArg, ...]
    data: bool
    why: str = ""
    where: str = ""

    @property
    def label(self) -> str:
        return f"{self.kernel}#{self.occurrence}"


@dataclass(frozen=True)
class Capture:
    """Everything one program launched. :meth:`find` picks a launch the way ``--launch``
    names it. ``lost`` says what the recorder could not keep (a full disk, a cut journal)."""

    folder: Path
    command: tuple[str, ...]
    exit_code: int | None
    programs: tuple[CapturedProgram, ...]
    launches: tuple[CapturedLaunch, ...]
    lost: tuple[str, ...] = ()
    document: str = CAPTURE_FILE  # the file it was read from (capture.json or the journal)
    # The contents that lie in the pack (PACK): each one's name, and its offset and length
    # there (a whole .npy image).
    packed: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    def find(self, which: str | int) -> CapturedLaunch:
        """Launch ``N`` (from 1), ``KERNEL`` (its first launch) or ``KERNEL#k`` (its k-th)."""
        text = str(which).strip()
        if text.isascii() and text.isdigit():
            number = int(text) if len(text) < 19 else 0
            if not 1 <= number <= len(self.launches):
                raise CaptureError(
                    f"--launch {shown(text, 40)}: the capture holds launches 1 to "
                    f"{len(self.launches)}"
                    if self.launches
                    else f"--launch {shown(text, 40)}: the capture holds no launch"
                )
            return self.launches[number - 1]
        kernel, sep, k = text.partition("#")
        mine = [launch for launch in self.launches if launch.kernel == kernel]
        if not mine:
            names = ", ".join(sorted({launch.kernel for launch in self.launches})) or "none"
            raise CaptureError(
                f"--launch {shown(text, 80)}: no launch of a kernel {shown(repr(kernel), 80)} "
                f"(kernels: {shown(names, 300)})"
            )
        if not sep:
            return mine[0]
        if not (k.isascii() and k.isdigit() and len(k) < 19) or not 1 <= int(k) <= len(mine):
            raise CaptureError(
                f"--launch {shown(text, 80)}: {kernel} was launched {len(mine)} times; give "
                f"{kernel}#1 to {kernel}#{len(mine)}"
            )
        return mine[int(k) - 1]

    def program_of(self, launch: CapturedLaunch) -> CapturedProgram:
        return self.programs[launch.program]

    def path(self, relative: str, where: str = "capture.json") -> Path:
        """The file ``relative`` (a name the capture gives) inside the capture folder; a name
        that leads out of it (absolute, ``..``, a symbolic link out) is refused, naming
        ``where`` (the field that gave it)."""
        if relative in self.packed:
            return _unpacked(self.folder, relative, self.packed[relative], where)
        with as_capture_error():
            return inside(self.folder, relative, where)


# -- the pack ----------------------------------------------------------------------------------

_scratch: list[str] = []  # the folder packed contents are copied out into, in this process
_unpacked_files: dict[tuple[Any, ...], Path] = {}
_scratch_lock = threading.Lock()


def _scratch_folder() -> Path:
    if not _scratch:
        _scratch.append(tempfile.mkdtemp(prefix="explorer-capture-"))
        atexit.register(shutil.rmtree, _scratch[0], True)
    return Path(_scratch[0])


def _unpacked(folder: Path, name: str, place: tuple[int, int], where: str) -> Path:
    """The contents ``name`` of the capture in ``folder``, which lie at ``place`` (offset,
    length) in its pack, as a ``.npy`` file of their own (in a folder of this process's,
    removed when it ends), for what reads contents by file. The pack is read as any file of
    a capture is: inside the folder, a regular file, ``place`` within its size; the file
    made is checked against what ``capture.json`` says where it is read."""
    offset, length = place
    label = f"{where}: {shown(name)} (bytes {offset} to {offset + length} of {PACK})"
    with as_capture_error():
        path = inside(folder, PACK, where)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as exc:
            raise CaptureError(f"{label}: {PACK} cannot be read ({exc.strerror})") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise CaptureError(f"{label}: {PACK} is not a regular file")
            if offset + length > info.st_size:
                raise CaptureError(
                    f"{label}: {PACK} holds {info.st_size} bytes (it was cut short, or "
                    "capture.json is not its own)"
                )
            key = (str(path), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, place)
            with _scratch_lock:
                known = _unpacked_files.get(key)
                if known is not None:
                    return known
                data = bytearray()
                while len(data) < length:
                    part = os.pread(fd, length - len(data), offset + len(data))
                    if not part:
                        raise CaptureError(f"{label}: {PACK} changed while it was read")
                    data += part
                # Named as the capture names it (data/NAME.npy), for what a message says.
                target = _scratch_folder() / str(len(_unpacked_files)) / name
                target.parent.mkdir(parents=True)
                target.write_bytes(bytes(data))
                _unpacked_files[key] = target
                return target
        finally:
            os.close(fd)


# The most contents a capture packs: one per buffer argument of each launch, before and after.
MAX_PACKED = 1 << 22


def _packed(
    launches: list[Any], label: str, version: int, found: dict[str, tuple[int, int]]
) -> None:
    """Each launch's ``packed`` into ``found``: the contents it is the first to name that lie
    in the pack (each a name the recorder gives, ``data/NAME.npy``, never opened as a file),
    and where, [offset, length], checked."""
    for position, entry in enumerate(launches):
        value = entry.get("packed") if isinstance(entry, dict) else None
        if value is None:
            continue
        where = f"{label}: launches[{position}].packed"
        if version < 2:
            raise CaptureError(f"{where}: a capture of version 1 packs nothing; version 2 does")
        if not isinstance(value, dict):
            raise CaptureError(f"{where}: expected a map of file names to [offset, length]")
        if len(found) + len(value) > MAX_PACKED:
            raise CaptureError(f"{where}: a capture packs at most {MAX_PACKED} contents")
        _places(value, where, found)


def _places(value: dict[str, Any], where: str, found: dict[str, tuple[int, int]]) -> None:
    for name, place in value.items():
        at = f"{where}[{shown(repr(name), 140)}]"
        if not _DATA_NAME.fullmatch(name):
            raise CaptureError(f"{at}: expected a name data/NAME.npy (letters, digits, _ . -)")
        pair = items(place, at, 2)
        if len(pair) != 2:
            raise CaptureError(f"{at}: expected [offset, length], found {len(pair)} numbers")
        found[name] = (
            integer(pair[0], f"{at}[0]", 0, MAX_SIZE),
            integer(pair[1], f"{at}[1]", 1, PACK_LIMIT),
        )


def load_capture(folder: str | Path) -> Capture:
    """The capture in ``folder`` (its ``capture.json``, or its journal where the capture was
    cut short), with its launches listed in order."""
    folder = Path(folder)
    document = folder / CAPTURE_FILE
    with as_capture_error():
        if not folder.is_dir():
            what = "does not exist" if not os.path.lexists(folder) else "is not a folder"
            raise CaptureError(f"{shown(folder)} {what}; give the folder capture wrote")
        if not os.path.lexists(document):
            if not os.path.lexists(folder / JOURNAL):
                raise CaptureError(f"{shown(folder)} holds no capture (no {CAPTURE_FILE})")
            return _parse(assemble(folder, (), None, write=False), folder, JOURNAL)
        label = shown(document)
        inside(folder, CAPTURE_FILE, label)  # a capture.json that is a link out is not read
        return _parse(read_json(document, "capture", DOCUMENT_LIMIT), folder, label)


# A name the recorder gives a buffer's contents: a file right inside data/.
_DATA_NAME = re.compile(r"data/[\w.-]{1,120}\.npy")
# The folders of copied headers a program lists, at most.
MAX_INCLUDE = 64


class _Files(dict[str, str]):
    """The files one capture names, each checked once (before a launch, a buffer's contents
    are most often the file of its contents after the launch before). A name the recorder
    gives (``data/NAME.npy``, no further folder) in a ``data`` folder that is no link is
    inside the capture unless the file itself is a link: one ``lstat`` for it, where the
    check of any name resolves every folder on its way."""

    def __init__(self, folder: Path, packed: Mapping[str, tuple[int, int]]) -> None:
        super().__init__()
        self.folder = folder
        self.packed = packed
        try:
            self.plain_data = stat.S_ISDIR(os.lstat(folder / "data").st_mode)
        except OSError:
            self.plain_data = False

    def _plain(self, value: str) -> bool:
        if not self.plain_data or not _DATA_NAME.fullmatch(value):
            return False
        try:
            return not stat.S_ISLNK(os.lstat(self.folder / value).st_mode)
        except FileNotFoundError:
            return True  # missing: said when it is read, as for any name
        except OSError:
            return False

    def check(self, entry: Fields, key: str) -> str | None:
        value = entry.value.get(key)
        if isinstance(value, str) and (value in self or value in self.packed or self._plain(value)):
            self[value] = value
            return value
        name: str | None = entry.file(key, self.folder)
        if name is not None:
            self[name] = name
        return name


def _parse(document: Any, folder: Path, label: str) -> Capture:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise CaptureError(
            f"{label} is not a capture of the explorer (a map whose format is {FORMAT!r})"
        )
    top = Fields(document, f"{label}:")
    version = top.integer("version", REQUIRED, minimum=1, maximum=VERSION)
    raw_programs = top.items("programs", REQUIRED, MAX_PROGRAMS)
    programs = tuple(
        _program(Fields(p, f"{label}: programs[{i}]"), i, folder)
        for i, p in enumerate(raw_programs)
    )
    raw_launches = top.items("launches", REQUIRED, MAX_LAUNCHES)
    packed: dict[str, tuple[int, int]] = {}
    _packed(raw_launches, label, version, packed)
    files = _Files(folder, packed)
    launches = tuple(
        _launch(Fields(entry, f"{label}: launches[{i}]"), i, files, len(programs))
        for i, entry in enumerate(raw_launches)
    )
    return Capture(
        folder=folder,
        command=top.texts("command", (), 4096),
        exit_code=top.integer("exit_code", None, minimum=-(1 << 31), maximum=1 << 31),
        programs=programs,
        launches=launches,
        lost=top.texts("lost", (), 4096),
        document=label,
        packed=packed,
    )


def _program(entry: Fields, position: int, folder: Path) -> CapturedProgram:
    entry.integer("index", REQUIRED, minimum=position, maximum=position)
    return CapturedProgram(
        index=position,
        source=entry.file("source", folder),
        options=entry.texts("options", (), 4096),
        cwd=entry.text("cwd", "", 4096),
        arg_info=entry.flag("arg_info", True),
        include=tuple(
            Fields(copy, f"{entry.at('include')}[{i}]").file("copy", folder, REQUIRED)
            for i, copy in enumerate(entry.items("include", (), MAX_INCLUDE))
        ),
    )


def _launch(entry: Fields, position: int, files: _Files, programs: int) -> CapturedLaunch:
    args = tuple(
        _arg(Fields(a, f"{entry.at('args')}[{i}]"), i, files)
        for i, a in enumerate(entry.items("args", REQUIRED, MAX_ARGS))
    )
    if programs == 0:
        raise CaptureError(f"{entry.at('program')}: the capture lists no program")
    data = entry.flag("data", False)
    if data and any(a.has_contents and (a.before is None or a.after is None) for a in args):
        index = next(a.index for a in args if a.has_contents and None in (a.before, a.after))
        raise CaptureError(
            f"{entry.at('args')}[{index}]: a buffer of a launch with its data names its "
            "contents before and after it (before, after)"
        )
    return CapturedLaunch(
        number=entry.integer("number", REQUIRED, minimum=position + 1, maximum=position + 1),
        kernel=entry.text("kernel", REQUIRED, 1024),
        occurrence=entry.integer("occurrence", 1, minimum=1, maximum=MAX_LAUNCHES),
        program=entry.integer("program", REQUIRED, minimum=0, maximum=programs - 1),
        global_size=entry.integers("global", REQUIRED, 3, minimum=0, maximum=MAX_SIZE),
        local_size=entry.integers("local", None, 3, minimum=1, maximum=MAX_SIZE),
        offset=entry.integers("offset", None, 3, minimum=0, maximum=MAX_SIZE),
        device=entry.text("device", "", 1024),
        platform=entry.text("platform", "", 1024),
        args=args,
        data=data,
        why=entry.text("why", "", 4096),
        where=entry.where,
    )


def _arg(entry: Fields, position: int, files: _Files) -> CapturedArg:
    kind = entry.choice("kind", KINDS, REQUIRED)
    buffer = kind in ("buffer", "image")
    hex_text = entry.text("hex", "", 1 << 16)
    try:
        bytes.fromhex(hex_text)
    except ValueError:
        raise CaptureError(f"{entry.at('hex')}: expected hexadecimal digits (two a byte)") from None
    value = entry.value.get("value")
    numbers = value if isinstance(value, list) else [value]
    if not all(isinstance(v, (int, float)) for v in items(numbers, entry.at("value"), 1 << 16)):
        value = None  # shown to people reading capture.json only: a struct's bytes, a number
    return CapturedArg(
        index=entry.integer("index", REQUIRED, minimum=position, maximum=position),
        kind=kind,
        name=entry.text("name", None, 1024),
        type=entry.text("type", None, 1024),
        nbytes=entry.integer("bytes", 0, minimum=0, maximum=MAX_SIZE),
        dtype=(
            entry.choice("dtype", BUFFER_DTYPES, "uint8")
            if buffer
            # numpy's name of a by-value argument's type, shown only: a struct's fields, or a
            # vector of pyopencl's cltypes (float4: 88 characters)
            else entry.text("dtype", "", 1 << 16)
        ),
        memory=entry.integer("memory", None, minimum=0, maximum=MAX_SIZE),
        origin=entry.integer("origin", 0, minimum=0, maximum=MAX_SIZE),
        flags=entry.texts("flags", (), 16),
        before=files.check(entry, "before") if buffer else None,
        after=files.check(entry, "after") if buffer else None,
        changed=entry.flag("changed", False),
        hex=hex_text,
        value=value,
        image=entry.text("image", "", 64) if kind == "image" else "",
        channel_order=entry.text("channel_order", "", 64) if kind == "image" else "",
        channel_type=entry.text("channel_type", "", 64) if kind == "image" else "",
        width=entry.integer("width", 0, minimum=0, maximum=MAX_SIZE),
        height=entry.integer("height", 0, minimum=0, maximum=MAX_SIZE),
        depth=entry.integer("depth", 0, minimum=0, maximum=MAX_SIZE),
        normalized=entry.flag("normalized", False),
        address=entry.text("address", "", 64) if kind == "sampler" else "",
        filter=entry.text("filter", "", 64) if kind == "sampler" else "",
    )
