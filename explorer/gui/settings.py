"""Persisting the configuration and window layout with QSettings.

A settings file is read as untrusted input: each value it holds is checked (JSON bounded in
size and depth, every field of the type it must have) before it is used. A store that cannot
be read (corrupt values, an unknown variant, a newer format) falls back to the defaults, and
the caller is told why, naming the setting, so it can say so. The device is remembered by
name and platform (:func:`device_name`), never by position alone: a platform installed later
(Oclgrind, with the test extras) changes the positions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from explorer.documents import parse_json
from explorer.engine.header.catalog import (
    CatalogError,
    find_variant,
    load_variant_file,
    with_header,
)
from explorer.engine.launch.device_names import DeviceName
from explorer.engine.records import Variant
from explorer.engine.remote.hosts import Host
from explorer.families import FAMILIES
from explorer.gui.model import ConfigModel
from explorer.paths import read_user_text, shown

FORMAT_VERSION = 1
_MAX_VALUE = 64 << 10  # characters of one setting (a list of hosts is the longest)
_MAX_SIZE = 2**31 - 1  # sizes reach kernels as C ints


def save(
    settings: QSettings,
    model: ConfigModel,
    geometry: QByteArray | None = None,
    state: QByteArray | None = None,
    headers: Mapping[str, str] | None = None,
    configuration: bool = True,
) -> None:
    """The configuration and the window's layout; ``headers``: the headers declared in the
    window for files without one, by path (the open one's is kept, to reopen it at start).
    ``configuration`` False (a capture's launch on screen: its program has no header the
    next start could read) keeps the configuration stored before, and saves the rest."""
    variant = model.variant
    header = (headers or {}).get(str(Path(variant.path))) if variant.path else None
    if header and _is_user(variant.path):
        remember_header(settings, variant.path, header)
    if configuration:  # else a first start's settings stay a first start's (the IOU demo)
        settings.setValue("format", FORMAT_VERSION)
    device = model.device
    if device is not None:  # before the devices are known, the one remembered stays
        settings.setValue("device", json.dumps(DeviceName.of(device).to_json()))
    if geometry is not None:
        settings.setValue("geometry", geometry)
    if state is not None:
        settings.setValue("state", state)
    if configuration:
        _save_configuration(settings, model)
    settings.sync()


def save_configuration(settings: QSettings, model: ConfigModel) -> None:
    """The kernel, its sizes, local size, defines and input, alone (before a capture's
    launch takes the window's place: the configuration its next start opens on)."""
    settings.setValue("format", FORMAT_VERSION)
    _save_configuration(settings, model)
    settings.sync()


def _save_configuration(settings: QSettings, model: ConfigModel) -> None:
    """The kernel, its sizes, local size, defines and input."""
    variant = model.variant
    settings.setValue("family", model.family)
    settings.setValue("variant", variant.id)
    settings.setValue("kernel_file", variant.path if _is_user(variant.path) else "")
    settings.setValue("sizes", json.dumps(model.sizes))
    settings.setValue("local", "x".join(map(str, model.local)) if model.local else "")
    settings.setValue("defines", json.dumps(model.defines))
    settings.setValue("input", model.input)
    settings.setValue("text", model.text)
    settings.setValue("image", model.image_path or "")


def unwritable(settings: QSettings) -> str | None:
    """Why the settings will not be saved (a read-only file, folder or disk), said once at
    start; None when they can be. A probe file is written and removed to find out."""
    import os
    import tempfile

    from explorer.file_writes import WriteFailed, cause_of, diagnose

    path = settings.fileName()
    folder = os.path.dirname(path) or "."
    try:
        os.makedirs(folder, exist_ok=True)
        if os.path.exists(path):
            with open(path, "a", encoding="utf-8"):
                pass
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass
    except OSError as exc:
        cause = cause_of(exc) if exc.errno is not None else diagnose(path)
        return str(WriteFailed(path, cause)) + "; settings will not be saved this session."
    return None


def _is_user(path: str) -> bool:
    from explorer.paths import kernels_dir

    try:
        return not str(path).startswith(str(kernels_dir()))
    except OSError:
        return True


def restore(
    settings: QSettings, model: ConfigModel, headers: dict[str, str] | None = None
) -> str | None:
    """Apply the stored configuration; returns a notice when it had to fall back. A kernel
    file without a header of its own is read with the header declared for it in the window
    (:func:`remembered_header`), which is added to ``headers``."""
    if settings.status() != QSettings.Status.NoError:
        return "The settings file could not be read; the defaults are used."
    if not settings.contains("format"):
        return None  # first start
    try:
        version = _integer(_text(settings, "format"), "format")
        if version != FORMAT_VERSION:
            raise ValueError(f"settings format {version}, this version reads {FORMAT_VERSION}")
        family = _text(settings, "family")
        if family not in FAMILIES:
            raise ValueError(f"family: unknown family {shown(family, 60)!r}")
        kernel_file = _text(settings, "kernel_file")
        if kernel_file:
            variant = _user_kernel(settings, kernel_file, headers)
        else:
            variant = find_variant(family, _text(settings, "variant"))
        sizes = _names(settings, "sizes", "{}")
        for name, value in sizes.items():
            if name not in variant.model.size_names or not _whole(value, 1, _MAX_SIZE):
                raise ValueError(
                    f"sizes: {shown(name, 60)} = {shown(repr(value), 60)} is not a size of "
                    f"{variant.name} from 1 to {_MAX_SIZE}"
                )
        defines = _names(settings, "defines", "{}")
        for name, value in defines.items():
            if not _whole(value, -(2**63), 2**63 - 1):
                raise ValueError(
                    f"defines: {shown(name, 60)} = {shown(repr(value), 60)} is not a whole number"
                )
        local_text = _text(settings, "local")
        local = tuple(_integer(p, "local") for p in local_text.split("x")) if local_text else None
        if local is not None and not (1 <= len(local) <= 3 and all(v >= 1 for v in local)):
            raise ValueError(f"local: {shown(local_text, 60)!r} is not 1 to 3 sizes of 1 or more")
        preset = _text(settings, "input") or FAMILIES[family].input_presets[0]
        if preset not in FAMILIES[family].input_presets:
            raise ValueError(f"input: unknown input {shown(preset, 60)!r}")
        text = _text(settings, "text") or "IOU"
        image = _text(settings, "image") or None
    except (ValueError, TypeError, CatalogError, OSError) as exc:
        return f"The saved settings could not be used ({exc}); the defaults are used."
    if kernel_file:
        model.add_user_variant(variant)
    else:
        model.set_family(family)
        model.set_variant(variant)
    for name, value in sizes.items():
        model.set_size(name, value)
    model.set_local(local)
    for name, value in defines.items():
        if name in variant.default_defines:
            model.set_define(name, value)
    model.set_input(preset, text, image)
    return None


# -- the answers given in the open-kernel dialog, per file ------------------------------
_HEADERS = "kernel_headers"  # {path: header}, oldest first; all of it one bounded setting


def _headers(settings: QSettings) -> dict[str, str]:
    """The headers declared in the window, by file; a value that cannot be read is none."""
    try:
        value = _json(settings, _HEADERS, "{}", 2)
    except ValueError:  # a DocumentError too
        return {}
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def remembered_header(settings: QSettings, path: str) -> str | None:
    """The header declared in the window the last time the file ``path`` was opened (the
    open-kernel dialog's answers), or None."""
    return _headers(settings).get(_key(path))


def remember_header(settings: QSettings, path: str, header: str) -> None:
    """Keep the dialog's answers for ``path``: reopening the file proposes them again, and a
    window closed on it reopens it at start. The oldest files' go first when the setting
    would be too long."""
    kept = _headers(settings)
    kept.pop(_key(path), None)
    kept[_key(path)] = header
    while kept and len(json.dumps(kept)) > _MAX_VALUE:
        kept.pop(next(iter(kept)))
    settings.setValue(_HEADERS, json.dumps(kept))
    settings.sync()


def _user_kernel(settings: QSettings, path: str, headers: dict[str, str] | None) -> Variant:
    """The kernel file the window was closed on: with its own header, or with the one
    declared for it in the window (added to ``headers``)."""
    try:
        return load_variant_file(path)
    except CatalogError as exc:
        header = remembered_header(settings, path)
        if "no catalog header" not in str(exc) or not header:
            raise
    variant = with_header(read_user_text(path, "kernel file"), header, path)
    if headers is not None:
        headers[str(Path(path))] = header
    return variant


def _key(path: str) -> str:
    return str(Path(path).resolve())


def _text(settings: QSettings, key: str) -> str:
    """The setting ``key`` as text ("" when absent), at most :data:`_MAX_VALUE` characters."""
    value = settings.value(key)
    text = "" if value is None else str(value)
    if len(text) > _MAX_VALUE:
        raise ValueError(f"{key}: {len(text)} characters, more than a setting holds")
    return text


def _json(settings: QSettings, key: str, default: str, depth: int) -> Any:
    """The setting ``key`` as JSON, bounded in size and depth (a DocumentError, a
    ValueError, names the setting)."""
    try:
        return parse_json(_text(settings, key) or default, f"setting {key}", depth)
    except ValueError as exc:  # an integer of more digits than Python converts, say
        raise ValueError(f"{key}: not usable JSON ({shown(exc, 120)})") from None


def _names(settings: QSettings, key: str, default: str) -> dict[str, Any]:
    """A setting that maps names to values (sizes, defines)."""
    value = _json(settings, key, default, 2)
    if not isinstance(value, dict) or len(value) > 64:
        raise ValueError(f"{key}: expected a map of at most 64 names, not {shown(value, 60)}")
    return value


def _integer(text: str, key: str) -> int:
    if not text.strip().lstrip("-").isdigit() or len(text) > 20:
        raise ValueError(f"{key}: expected a whole number, not {shown(text, 60)!r}")
    return int(text)


def _whole(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def device_name(settings: QSettings) -> DeviceName | None:
    """The device the settings remember (chosen once the devices are known), or None: a
    JSON ``{"name", "platform", "index"}``, or an older version's ``platform:device``."""
    try:
        text = _text(settings, "device").strip()
        return DeviceName.from_json(
            _json(settings, "device", "", 2) if text.startswith("{") else text
        )
    except ValueError:  # a DocumentError too
        return None


def hosts(settings: QSettings) -> list[Host]:
    """The hosts the window uses besides this machine (Devices ▸ Add host…); a value that
    cannot be read is left out."""
    try:
        values = _json(settings, "hosts", "[]", 3)
    except ValueError:  # a DocumentError too
        return []
    found = []
    for value in values if isinstance(values, list) else []:
        try:
            found.append(Host.from_json(value))
        except ValueError:
            continue
    return found


def save_hosts(settings: QSettings, chosen: list[Host]) -> None:
    settings.setValue("hosts", json.dumps([host.to_json() for host in chosen]))
    settings.sync()


# -- exercises: progress and where the attempts are -------------------------------------
def passed_exercises(settings: QSettings) -> set[str]:
    """The names of the exercises passed so far."""
    return {name for name in str(settings.value("exercises/passed") or "").split(",") if name}


def mark_passed(settings: QSettings, name: str) -> None:
    passed = sorted(passed_exercises(settings) | {name})
    settings.setValue("exercises/passed", ",".join(passed))
    settings.sync()


def hints_shown(settings: QSettings, name: str) -> int:
    """How many of an exercise's hints the person has unlocked."""
    try:
        return max(0, int(str(settings.value(f"exercises/hints/{name}") or 0)))
    except ValueError:
        return 0


def set_hints_shown(settings: QSettings, name: str, count: int) -> None:
    settings.setValue(f"exercises/hints/{name}", count)
    settings.sync()


def attempts_folder(settings: QSettings) -> str:
    """The person's own folder of exercise attempts, beside the settings file: the shipped
    starting kernels are copied there and never changed."""
    import os

    return os.path.join(os.path.dirname(settings.fileName()) or ".", "exercises")
