"""Sessions: one configuration saved as a ``.kexp.json`` file, to reopen or re-run later.

A session records what a person chose (device, family, variant or own kernel file, sizes,
local size, defines, matrix layout, input; for a file without a catalog header, the header
the person declared for it in the app) and what the window showed (tab, trace phase,
work-group). A session may come from anyone, so it is read as untrusted input: plain JSON,
bounded in size and depth (:func:`explorer.documents.parse_strict_json`) and checked field by
field: a file that is not a session, a field of the wrong type, an unknown field, a variant
that no longer exists or a kernel file that is gone raises :class:`SessionError` naming the
file, the field and what was expected.

Paths inside the session's folder are stored relative to it, so a folder holding a session
and its kernel can be moved or shared. A session saved with a kernel or an image elsewhere
holds its absolute path: such a file outside the session's folder (by ``..``, an absolute
path or a symbolic link out) is neither read nor looked at by :func:`load_session`; the
window asks the person first and the command line needs ``--allow-outside``
(:func:`files_outside` lists them, :func:`check_files` then checks them). The device is
stored by name and platform (:class:`~explorer.engine.launch.device_names.DeviceName`; an
older session's name or ``platform:device`` position is still read): where it is not found,
the session runs on the default device, with a notice.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from explorer.documents import (
    NotJsonError,
    RepeatedFieldError,
    TooDeepError,
    is_inside,
    parse_strict_json,
)
from explorer.engine.header.catalog import (
    CatalogError,
    find_variant,
    header_table,
    load_variant_file,
    with_header,
)
from explorer.engine.launch.device_names import DeviceName, remembered_device
from explorer.engine.records import DeviceInfo, RunRequest, Variant, check_timeout
from explorer.families import FAMILIES
from explorer.frontend.line_directives import HEADER
from explorer.paths import (
    TEXT_LIMIT,
    NotTextError,
    UserFileError,
    check_user_file,
    decode_text,
    read_user_bytes,
    read_user_text,
    shown,
)

FORMAT = "kernel-explorer-session"
FORMAT_VERSION = 1
SUFFIX = ".kexp.json"
_MAX_SIZE = 2**31 - 1  # sizes reach kernels as C ints
_MAX_SESSION_BYTES = 4 << 20  # a session with an embedded header is a few kilobytes
_MAX_DEPTH = 8  # a session nests three levels deep (view.group)
_MAX_PATH = 4096  # characters of a path a session names
_MAX_TEXT = 4096  # characters of the rendered text, a title, a tab's name
_MAX_HEADER = 1 << 20  # characters of an embedded catalog header
_MAX_NAMES = 64  # sizes or defines a session names
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ORDERS = ("row-major", "column-major")
_FIELDS = (
    "format",
    "version",
    "device",
    "family",
    "variant",
    "kernel_path",
    "sizes",
    "local",
    "defines",
    "input",
    "text",
    "image_path",
    "layout",
    "header",
    "view",
    "anyway",
    "title",
)
# What the window showed. The GUI may add keys here; a key not listed is refused on load.
VIEW_FIELDS = ("tab", "phase", "group")
# The tabs a session may show: the --view names of the pages, "grid" for the Execution tab.
VIEW_TABS = ("result", "timing", "source", "findings", "grid")
Includes = tuple[str, ...]  # #include lines of a kernel, each as it is said to the person


class SessionError(ValueError):
    """A session that cannot be saved, read or used; the message names the file and field."""

    def __init__(self, where: str, field_name: str | None, message: str) -> None:
        self.where = where
        self.field = field_name
        prefix = f"{where}: field '{field_name}': " if field_name else f"{where}: "
        super().__init__(prefix + message)


@dataclass(frozen=True)
class Session:
    """One saved configuration. ``variant`` (a catalog id) or ``kernel_path``, not both."""

    family: str
    variant: str | None = None
    kernel_path: str | None = None
    sizes: dict[str, int] = field(default_factory=dict)
    local: tuple[int, ...] | None = None
    defines: dict[str, int] = field(default_factory=dict)
    input: str | None = None  # None: the family's default input
    text: str = "IOU"
    image_path: str | None = None
    device: DeviceName | None = None  # by name and platform (a plain name is read as one)
    view: dict[str, Any] = field(default_factory=dict)
    version: int = FORMAT_VERSION
    anyway: bool = False  # run even where only the kernel's own constraints refuse (a lesson)
    layout: str | None = None  # a matrix layout chosen in the app; None: the variant's own
    header: str | None = None  # the header declared in the app for a file that has none
    title: str | None = None  # what a lesson is called in the Lessons menu

    def __post_init__(self) -> None:
        if isinstance(self.device, str):  # a name, or an older ``platform:device`` position
            object.__setattr__(self, "device", DeviceName.from_json(self.device))


def session_from_request(
    request: RunRequest,
    device: DeviceInfo | None,
    view: Mapping[str, Any] | None = None,
    *,
    layout: str | None = None,
    header: str | None = None,
) -> Session:
    """The session of a configuration: a catalog variant by id, any other by its file.

    ``layout`` is a matrix layout chosen instead of the variant's own; ``header`` the catalog
    header kept in memory for a kernel file that has none (its declarations)."""
    variant = request.variant
    try:
        shipped = find_variant(variant.family, variant.id).path == variant.path
    except CatalogError:
        shipped = False
    return Session(
        family=variant.family,
        variant=variant.id if shipped else None,
        kernel_path=None if shipped else os.path.abspath(variant.path),
        sizes=dict(request.sizes),
        local=tuple(request.local) if request.local else None,
        defines=dict(request.defines),
        input=request.input,
        text=request.text,
        image_path=os.path.abspath(request.image_path) if request.image_path else None,
        device=DeviceName.of(device) if device is not None else None,
        view=dict(view or {}),
        anyway=request.anyway,
        layout=layout,
        header=header if not shipped else None,
    )


def session_to_json(session: Session, folder: Path | None = None) -> dict[str, Any]:
    """The JSON object of a session; paths under ``folder`` become relative to it."""
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": session.version,
        "device": session.device.to_json() if session.device is not None else None,
        "family": session.family,
        "variant": session.variant,
        "kernel_path": _relative(session.kernel_path, folder),
        "sizes": dict(session.sizes),
        "local": list(session.local) if session.local else None,
        "defines": dict(session.defines),
        "input": session.input,
        "text": session.text,
        "image_path": _relative(session.image_path, folder),
        "layout": session.layout,
        "header": session.header,
        "view": _plain(session.view),
    }
    if session.anyway:  # written only when set: older readers take every other session
        data["anyway"] = True
    if session.title:
        data["title"] = session.title
    return data


def save_session(session: Session, path: str | Path, force: bool | None = None) -> Path:
    """Check the session as :func:`load_session` would, its files too (the person's own,
    wherever they are), then write it whole (:func:`explorer.file_writes.write_output`).
    ``force`` None: a path the Save dialog confirmed, replaced; True or False: a path the
    command line names, where a file already there is replaced only with ``force``."""
    from explorer.file_writes import WriteFailed, write_output

    path = Path(path)
    folder = path.absolute().parent
    data = session_to_json(session, folder)
    checked = session_from_json(data, str(path), folder)  # never write what cannot be read
    check_files(checked, str(path))
    encoded = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

    def write(target: str) -> None:
        with open(target, "wb") as handle:
            handle.write(encoded)

    try:
        write_output(str(path), write, size=len(encoded), force=True if force is None else force)
    except WriteFailed as exc:
        raise SessionError(str(path), None, f"cannot write: {exc.cause}") from None
    return path


def load_session(path: str | Path) -> Session:
    """Read and check a ``.kexp.json`` file, and the files it names inside its own folder.
    A file it names outside its folder is neither read nor looked at here: see
    :func:`files_outside` and :func:`check_files`."""
    path = Path(path)
    where = shown(str(path))
    try:
        data = read_user_bytes(path, "session file", _MAX_SESSION_BYTES)
        text = decode_text(data, f"session file {where}")
    except NotTextError as exc:
        raise SessionError(where, None, f"not a session file: {exc}") from None
    except UserFileError as exc:
        raise SessionError(where, None, f"cannot read: {exc}") from None
    try:
        value = parse_strict_json(text, where, _MAX_DEPTH)
    except RepeatedFieldError as exc:
        raise SessionError(where, shown(exc.field, 60), "given twice") from None
    except TooDeepError:
        raise SessionError(
            where, None, "not a session file: its JSON is nested too deeply to be a session"
        ) from None
    except NotJsonError as exc:
        at = f" at line {exc.line}" if exc.line else ""
        raise SessionError(
            where, None, f"not a session file: invalid JSON{at}: {exc.reason}"
        ) from None
    folder = path.absolute().parent
    session = session_from_json(value, where, folder)
    check_files(session, where, within=folder)
    return session


def session_from_json(data: object, where: str, folder: Path) -> Session:
    """Check a decoded session object field by field; relative paths are under ``folder``.
    The files it names are not looked at: :func:`check_files` does that."""
    if not isinstance(data, dict):
        raise SessionError(
            where, None, f"not a session file: a JSON object expected, not {_kind(data)}"
        )
    if "format" not in data:
        raise SessionError(where, None, f"not a session file: no 'format': \"{FORMAT}\" field")
    if data["format"] != FORMAT:
        raise SessionError(where, "format", f"expected {FORMAT!r}, not {_quoted(data['format'])}")
    version = data.get("version")
    if not isinstance(version, int) or not _is_int(version) or version < 1:
        raise SessionError(where, "version", f"a positive integer expected, not {_quoted(version)}")
    if version > FORMAT_VERSION:
        raise SessionError(
            where,
            "version",
            f"written by a newer Kernel Explorer (session format {version}; this one reads "
            f"format {FORMAT_VERSION} and older): update the app",
        )
    unknown = [key for key in data if key not in _FIELDS]
    if unknown:
        raise SessionError(
            where, shown(unknown[0], 60), f"unknown field (fields: {', '.join(_FIELDS)})"
        )

    def fail(name: str, message: str) -> SessionError:
        return SessionError(where, name, message)

    family = data.get("family")
    if not isinstance(family, str) or family not in FAMILIES:
        raise fail("family", f"one of {', '.join(FAMILIES)} expected, not {_quoted(family)}")
    model = FAMILIES[family]

    variant_id = _optional_str(data, "variant", fail)
    kernel_path = _optional_path(data, "kernel_path", folder, fail)
    if (variant_id is None) == (kernel_path is None):
        raise fail("variant", "give either 'variant' (a catalog id) or 'kernel_path', not both")

    sizes = _mapping(data, "sizes", fail)
    for name, value in sizes.items():
        if not _is_int(value) or not 1 <= value <= _MAX_SIZE:
            raise fail(
                "sizes",
                f"{shown(name, 60)} must be an integer from 1 to {_MAX_SIZE}, not {_quoted(value)}",
            )

    local = data.get("local")
    if local is not None and (
        not isinstance(local, list)
        or not 1 <= len(local) <= 3
        or not all(_is_int(v) and v >= 1 for v in local)
    ):
        raise fail("local", f"null or 1 to 3 positive integers expected, not {_quoted(local)}")

    defines = _mapping(data, "defines", fail)
    for name, value in defines.items():
        if not _NAME.fullmatch(name) or not _is_int(value):
            raise fail("defines", f"NAME: integer expected, not {_quoted(name)}: {_quoted(value)}")

    preset = _optional_str(data, "input", fail)
    if preset is not None and preset not in model.input_presets:
        raise fail(
            "input", f"{family} inputs are {', '.join(model.input_presets)}; not {_quoted(preset)}"
        )
    text = data.get("text", "IOU")
    if not isinstance(text, str) or len(text) > _MAX_TEXT:
        raise fail(
            "text", f"a string of at most {_MAX_TEXT} characters expected, not {_kind(text)}"
        )
    image_path = _optional_path(data, "image_path", folder, fail)
    if preset == "image" and image_path is None:
        raise fail("image_path", "the image input needs an image file; none is given")

    try:
        device = DeviceName.from_json(data.get("device"))
    except ValueError:
        raise fail(
            "device",
            'a device name (a string) or {"name": …, "platform": …, "index": …, "host": …} '
            f"expected, not {_kind(data.get('device'))}",
        ) from None
    view = _view(data.get("view", {}), fail)
    anyway = data.get("anyway", False)
    if not isinstance(anyway, bool):
        raise fail("anyway", f"true or false expected, not {_quoted(anyway)}")
    layout = _optional_str(data, "layout", fail)
    if layout is not None and not _valid_layout(layout, model.matrix_roles):
        raise fail(
            "layout",
            f"{family} matrices ({', '.join(model.matrix_roles) or 'none'}) are row-major or "
            f'column-major, e.g. "A:row-major,B:column-major,C:row-major"; not {_quoted(layout)}',
        )
    title = _optional_str(data, "title", fail)
    header = _optional_str(data, "header", fail, _MAX_HEADER)
    if header is not None and (kernel_path is None or not header.lstrip().startswith("/*---")):
        raise fail("header", "a catalog header (/*--- ... ---*/) for the kernel file expected")
    if header is not None:
        _check_header(header, fail)

    return Session(
        family=family,
        variant=variant_id,
        kernel_path=kernel_path,
        sizes=dict(sizes),
        local=tuple(local) if local else None,
        defines=dict(defines),
        input=preset,
        text=text,
        image_path=image_path,
        device=device,
        view=view,
        version=version,
        anyway=anyway,
        layout=layout,
        header=header,
        title=title,
    )


def check_files(session: Session, where: str = "session", within: Path | None = None) -> None:
    """Check the files the session names: its variant (from the catalog, or its kernel file
    with the sizes it names) and its image. ``within``: only those inside that folder (what
    :func:`load_session` may look at before the person agrees to the others)."""

    def looked_at(path: str) -> bool:
        return within is None or is_inside(within, path)

    # A kernel whose #include lines reach outside the folder is read once the person agrees
    # (files_outside names them): a .sim file's program is parsed, its headers with it. Any
    # other kernel is parsed once, its #include lines looked at in what was parsed.
    if session.kernel_path is None or looked_at(session.kernel_path):
        variant = None if _is_sim(session.kernel_path) else resolve_variant(session, where)
        if within is not None and _includes_outside(session, within, variant):
            variant = None
        elif variant is None:
            variant = resolve_variant(session, where)
    else:
        variant = None
    if variant is not None:  # read: inside the folder, its headers too
        _check_headers(session, variant, where)
        size_names = variant.model.size_names
        for name in session.sizes:
            if name not in size_names:
                raise SessionError(
                    where,
                    "sizes",
                    f"{variant.name} has no size {shown(name, 60)!r} "
                    f"(sizes: {', '.join(size_names) or 'none'})",
                )
    if session.input == "image" and session.image_path and looked_at(session.image_path):
        try:
            check_user_file(session.image_path, "image")
        except UserFileError as exc:
            raise SessionError(
                where, "image_path", f"the image input needs an image file: {exc}"
            ) from None


def _check_headers(session: Session, variant: Variant, where: str) -> None:
    """Refuse a kernel whose ``#include`` lines name a header beside it that no build can
    read: a named pipe or a device, which a compiler would open and wait on for good."""
    from explorer.engine.header.include_lines import includes_outside
    from explorer.engine.header.sim import program_path

    if session.kernel_path is None:
        return
    source: Path | None = Path(session.kernel_path)
    if _is_sim(session.kernel_path):
        source = program_path(session.kernel_path)
    if source is None:
        return
    try:
        includes_outside(source.parent, source, variant.source, variant.build_options, "")
    except UserFileError as exc:
        raise SessionError(where, "kernel_path", str(exc)) from None


def resolve_variant(session: Session, where: str = "session") -> Variant:
    """The session's variant, from the catalog or from its own kernel file."""
    if session.kernel_path is not None:
        try:
            check_user_file(session.kernel_path, "kernel file", TEXT_LIMIT)
        except UserFileError as exc:
            raise SessionError(where, "kernel_path", str(exc)) from None
        try:
            if session.header is not None:
                source = read_user_text(session.kernel_path, "kernel file")
                variant = with_header(source, session.header, session.kernel_path)
            else:
                # A .sim program's #include lines are held to the session's folder, not the
                # .sim file's: files_outside names those outside it, and nothing is parsed
                # before the person agrees (check_files).
                variant = load_variant_file(session.kernel_path, allow_outside=True)
        except UserFileError as exc:
            raise SessionError(where, "kernel_path", str(exc)) from None
        except CatalogError as exc:
            field_name = "header" if session.header else "kernel_path"
            raise SessionError(where, field_name, str(exc)) from None
        if variant.family != session.family:
            raise SessionError(
                where,
                "kernel_path",
                f"{session.kernel_path} is a {variant.family} kernel, not {session.family}",
            )
        return variant
    try:
        return find_variant(session.family, str(session.variant))
    except CatalogError as exc:
        raise SessionError(where, "variant", str(exc)) from None


def session_files(session: Session, within: Path | None = None) -> list[tuple[str, str]]:
    """Every file the session would compile, run or read, as (what it is, absolute path): its
    kernel file (a ``.sim`` file's program too), the reference kernel and the arrays its
    header names (embedded or in the file), and its image. A catalog variant's own files are
    not listed: they ship with the app. ``within``: a kernel file outside that folder is
    listed but not read (the files its own header names are the kernel's business)."""
    return _session_files(session, within, _includes_read(session, within))


def _includes_read(session: Session, within: Path | None) -> tuple[Variant | None, Includes]:
    """The session's kernel's ``#include`` lines that reach outside ``within`` (none where
    ``within`` is None), with its variant where that was parsed to find them (a kernel file
    other than a ``.sim`` file's, inside ``within``; None where it cannot be parsed)."""
    if within is None or session.kernel_path is None:
        return None, ()
    variant = None
    if not _is_sim(session.kernel_path) and is_inside(within, session.kernel_path):
        try:
            variant = resolve_variant(session)
        except SessionError:
            return None, ()
    return variant, _includes_outside(session, within, variant)


def _session_files(
    session: Session, within: Path | None, read: tuple[Variant | None, Includes]
) -> list[tuple[str, str]]:
    """:func:`session_files`, given :func:`_includes_read`'s answer."""
    files: list[tuple[str, str]] = []
    if session.kernel_path is not None:
        files.append(("kernel file", session.kernel_path))
        variant, reaching = read
        readable = within is None or (is_inside(within, session.kernel_path) and not reaching)
        if readable and _is_sim(session.kernel_path):
            from explorer.engine.header.sim import program_path

            program = program_path(session.kernel_path)
            if program is not None:
                files.append(("program file of the .sim file", str(program)))
        try:
            if not readable:
                variant = None
            elif variant is None:
                variant = resolve_variant(session)
        except SessionError:
            variant = None
        spec = variant.custom if variant is not None else None
        if spec is not None:
            if spec.reference_kernel:
                files.append(("reference kernel", spec.reference_kernel))
            for buffer in spec.buffers:
                if buffer.file:
                    files.append((f"contents of {buffer.name}", buffer.file))
            for result, path in spec.reference_expected:
                files.append((f"expected values of {result}", path))
    if session.image_path is not None:
        files.append(("image", session.image_path))
    return files


def files_outside(session: Session, session_path: str | Path) -> list[str]:
    """The files of :func:`session_files` that lie outside the session's folder (symbolic
    links followed), each as "what: path" (a shared session could point anywhere: the person
    should know what will be compiled, run and read); empty when all lie beside it. Nothing
    outside the folder is read to find them."""
    folder = Path(os.path.abspath(session_path)).parent  # as load_session (links resolved later)
    read = _includes_read(session, folder)  # the kernel parsed once, if at all
    outside = []
    for what, path in _session_files(session, folder, read):
        if not is_inside(folder, path):
            outside.append(f"{what}: {shown(path)}")
    outside += [f"#include: {line}" for line in read[1]]
    return list(dict.fromkeys(outside))


def _is_sim(kernel_path: str | None) -> bool:
    return kernel_path is not None and kernel_path.lower().endswith(".sim")


def _includes_outside(
    session: Session, folder: Path, variant: Variant | None = None
) -> tuple[str, ...]:
    """The ``#include`` lines of the session's kernel (beside it) that would have the build
    read a file outside the session's folder: a compiler reads each, and its errors quote
    their lines. A kernel outside the folder is listed itself and not read here. ``variant``:
    the session's, already resolved (a kernel file other than a ``.sim`` file's)."""
    from explorer.engine.header.include_lines import includes_outside
    from explorer.engine.header.sim import program_source

    if session.kernel_path is None or not is_inside(folder, session.kernel_path):
        return ()
    source = Path(session.kernel_path)
    if source.name.lower().endswith(".sim"):
        found = program_source(source)  # not parsed: that would read its headers
        if found is None:
            return ()  # said when the session is checked
        source, text, options = found
    else:
        if variant is None:
            try:
                variant = resolve_variant(session)
            except SessionError:
                return ()  # said when the session is checked
        text, options = variant.source, variant.build_options
    try:
        return includes_outside(folder, source, text, options, "the session's folder")
    except UserFileError:
        return ()  # a header beside it that no build could read: check_files says so


def kernel_outside(session: Session, session_path: str | Path) -> str | None:
    """The kernel file a session runs when it lies outside the session's folder (a shared
    session could point anywhere: the person should know what will be compiled and run);
    None for a catalog variant or a kernel beside the session."""
    if session.kernel_path is None:
        return None
    folder = Path(os.path.abspath(session_path)).parent  # as load_session (links resolved later)
    if is_inside(folder, session.kernel_path):
        return None
    return str(Path(os.path.abspath(session.kernel_path)))


def session_to_request(
    session: Session,
    devices: Sequence[DeviceInfo],
    *,
    repeat: int = 10,
    timeout_s: float = 60.0,
    keep_output: bool = True,
) -> tuple[RunRequest, str | None]:
    """The run the session describes, and a notice when its device is not here.

    The device is found by its name and platform; a session saved on another machine runs
    on the default device instead (which is never Oclgrind; ``NoDeviceError`` when there is
    no device at all)."""
    try:
        timeout_s = check_timeout(timeout_s)
    except ValueError as exc:
        raise SessionError("session", None, str(exc)) from None
    variant = resolve_variant(session)
    if session.layout is not None:
        variant = replace(variant, layout=session.layout)
    device, notice = remembered_device(devices, session.device, "session's")
    model = FAMILIES[session.family]
    preset = session.input or ("iou" if "iou" in model.input_presets else "random")
    request = RunRequest(
        variant=variant,
        sizes=dict(session.sizes),
        local=tuple(session.local) if session.local else None,
        defines=dict(session.defines),
        device_key=device.key,
        input=preset,
        text=session.text,
        image_path=session.image_path,
        repeat=repeat,
        timeout_s=timeout_s,
        keep_output=keep_output,
        anyway=session.anyway,
    )
    return request, notice


# -- checking helpers ------------------------------------------------------------------

_Fail = Callable[[str, str], SessionError]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: object) -> str:
    return {
        type(None): "null",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def _quoted(value: object) -> str:
    """A value as a message quotes it: its ``repr``, at most a line long."""
    return shown(repr(value), 120)


def _optional_str(
    data: dict[str, Any], name: str, fail: _Fail, limit: int = _MAX_TEXT
) -> str | None:
    value = data.get(name)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise fail(name, f"a non-empty string or null expected, not {_quoted(value)}")
    if value is not None and len(value) > limit:
        raise fail(name, f"at most {limit} characters expected, not {len(value)}")
    return value


def _optional_path(data: dict[str, Any], name: str, folder: Path, fail: _Fail) -> str | None:
    value = _optional_str(data, name, fail, _MAX_PATH)
    if value is None:
        return None
    if "\0" in value:
        raise fail(name, f"a file name expected, not {_quoted(value)} (it holds a NUL character)")
    return os.path.abspath(os.path.join(folder, os.path.expanduser(value)))


def _mapping(data: dict[str, Any], name: str, fail: _Fail) -> dict[str, Any]:
    value = data.get(name, {})
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise fail(name, f"an object expected, not {_kind(value)}")
    if len(value) > _MAX_NAMES:
        raise fail(name, f"at most {_MAX_NAMES} names expected, not {len(value)}")
    return value


def _view(value: object, fail: _Fail) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise fail("view", f"an object expected, not {_kind(value)}")
    for key, item in value.items():
        name = f"view.{shown(key, 60)}"
        if key not in VIEW_FIELDS:
            raise fail(name, f"unknown field (view fields: {', '.join(VIEW_FIELDS)})")
        if key == "tab" and item not in VIEW_TABS:
            tabs = f"{', '.join(VIEW_TABS)}; grid is the Execution tab"
            raise fail(name, f"a tab name ({tabs}) expected, not {_quoted(item)}")
        if key == "phase" and (not _is_int(item) or not 0 <= item <= _MAX_SIZE):
            raise fail(name, f"a phase number (0 or more) expected, not {_quoted(item)}")
        if key == "group" and (
            not isinstance(item, list)
            or not 1 <= len(item) <= 3
            or not all(_is_int(v) and 0 <= v <= _MAX_SIZE for v in item)
        ):
            raise fail(name, f"a work-group index like [3, 5] expected, not {_quoted(item)}")
    return dict(value)


def _check_header(header: str, fail: _Fail) -> None:
    """The session's own header well formed: /*--- and ---*/ on lines of their own around
    TOML (else the kernel file would be said to have no header, when the field is wrong)."""
    if HEADER.match(header) is None:
        raise fail(
            "header",
            "not a catalog header: /*--- and ---*/ must each stand on a line of their own, "
            "the TOML between them",
        )
    try:
        header_table(header, "header")
    except CatalogError as exc:
        raise fail("header", str(exc).removeprefix("header: ")) from None


def _valid_layout(layout: str, matrices: tuple[str, ...]) -> bool:
    """``row-major``, ``column-major`` or one order per matrix (``A:row-major,B:...``)."""
    if not matrices:
        return False
    if layout in _ORDERS:
        return True
    parts = [part.split(":", 1) for part in layout.split(",")]
    return all(len(p) == 2 and p[0] in matrices and p[1] in _ORDERS for p in parts) and len(
        {p[0] for p in parts}
    ) == len(parts)


def _relative(path: str | None, folder: Path | None) -> str | None:
    """``path`` relative to ``folder`` when it lies inside it, else absolute."""
    if path is None:
        return None
    absolute = Path(os.path.abspath(path))
    if folder is not None:
        with contextlib.suppress(ValueError):
            return absolute.relative_to(os.path.abspath(folder)).as_posix()
    return str(absolute)


def _plain(view: Mapping[str, Any]) -> dict[str, Any]:
    """View values as JSON has them (a group tuple becomes a list)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in view.items()}
