"""The wheel of the explorer that is running now, made without a network: what a host gets
when the window installs this very version there (:mod:`.install`).

The running code is either an installed distribution (its files listed in its ``RECORD``,
packed again with its metadata) or a checkout (packed from ``pyproject.toml``'s packages and
package data, as setuptools builds it). The wheel is byte-for-byte the same for the same
code (sorted, fixed dates), kept in the cache folder under a digest of its contents, so it
is made once per version of the code.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib
import importlib.metadata
import io
import os
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import explorer

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published as tomli
    tomllib: Any = importlib.import_module("tomli")

DISTRIBUTION = "opencl-kernel-explorer"
PROJECT = "opencl_kernel_explorer"  # the distribution's name in file names
TAG = "py3-none-any"
_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest a zip file can say: the same bytes every time
# What an installer writes into an installed distribution's metadata: not part of a wheel.
_INSTALLERS = frozenset({"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"})


class WheelError(RuntimeError):
    """The running explorer cannot be packed (its files or metadata are missing)."""


@dataclass(frozen=True)
class Wheel:
    """A wheel file and what a host checks it by."""

    path: Path
    version: str
    sha256: str
    requires_python: str  # e.g. ">=3.10", "" when the metadata names none

    @property
    def name(self) -> str:
        return self.path.name


def running_wheel(folder: Path | None = None) -> Wheel:
    """The wheel of the running code, made now or found where it was made before (under
    ``folder``, by default the cache folder's ``wheels``)."""
    version = explorer.__version__
    files = _installed_files(version) or _checkout_files(version)
    metadata = files[f"{_dist_info(version)}/METADATA"].decode("utf-8")
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(f"{name}\0{len(files[name])}\0".encode())
        digest.update(files[name])
    if folder is None:
        from explorer.frontend.disk_cache import cache_root  # the front end loads libclang

        folder = cache_root() / "wheels"
    place = folder / digest.hexdigest()[:16]
    path = place / f"{PROJECT}-{version}-{TAG}.whl"
    if not path.is_file():
        place.mkdir(parents=True, exist_ok=True)
        partial = place / f".{path.name}.{os.getpid()}"
        partial.write_bytes(_zipped(files, version))
        partial.replace(path)
    return Wheel(
        path,
        version,
        hashlib.sha256(path.read_bytes()).hexdigest(),
        _field(metadata, "Requires-Python"),
    )


def _dist_info(version: str) -> str:
    return f"{PROJECT}-{version}.dist-info"


def _installed_files(version: str) -> dict[str, bytes] | None:
    """The installed distribution's files, when it is what runs (not a checkout first on the
    path, nor an editable install, whose files are the checkout's)."""
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None
    package = Path(explorer.__file__).resolve().parent
    listed = dist.files
    if dist.read_text("WHEEL") is None:  # a checkout's egg-info (pip writes one beside it)
        return None
    if listed is None or Path(str(dist.locate_file("explorer/__init__.py"))).resolve() != (
        package / "__init__.py"
    ):
        return None
    if dist.version != version:
        raise WheelError(
            f"the installed {DISTRIBUTION} says version {dist.version} in its metadata, its "
            f"code {version}: install it again"
        )
    files: dict[str, bytes] = {}
    info = _dist_info(version)
    for entry in listed:
        parts = PurePosixPath(str(entry)).parts
        if not parts or "__pycache__" in parts or entry.suffix == ".pyc":
            continue
        if parts[0] == "explorer" or (
            parts[0].endswith(".dist-info") and parts[-1] not in _INSTALLERS
        ):
            source = Path(str(dist.locate_file(entry)))
            name = "/".join((info, *parts[1:]) if parts[0].endswith(".dist-info") else parts)
            try:
                files[name] = source.read_bytes()
            except OSError as exc:
                raise WheelError(
                    f"{source}, a file of the installed {DISTRIBUTION}, cannot be read "
                    f"({exc.strerror}): install it again"
                ) from None
    if f"{info}/METADATA" not in files or f"{info}/WHEEL" not in files:
        raise WheelError(f"the installed {DISTRIBUTION} has no METADATA or WHEEL: install it again")
    return files


# Where each shipped folder of a checkout goes in the wheel (setup.py says the same to
# setuptools): every file of it ships, but for caches, bytecode and hidden files.
_SHIPPED = {
    "explorer": "explorer",
    "explorer/kernels": "kernels",
    "explorer/resources": "resources",
}


def _left_out(relative: Path) -> bool:
    return (
        "__pycache__" in relative.parts
        or relative.suffix in (".pyc", ".pyo")
        or any(part.startswith(".") for part in relative.parts)
    )


def _checkout_files(version: str) -> dict[str, bytes]:
    """The checkout's files that setuptools puts in the wheel (every file of the shipped
    folders, see setup.py), and the metadata it writes."""
    root = Path(explorer.__file__).resolve().parent.parent
    try:
        config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise WheelError(
            f"the explorer at {root} is neither an installed {DISTRIBUTION} nor a checkout "
            f"with a readable pyproject.toml ({exc})"
        ) from None
    project = config.get("project", {})
    if project.get("name") != DISTRIBUTION or project.get("version") != version:
        raise WheelError(
            f"{root / 'pyproject.toml'} names {project.get('name')} {project.get('version')}, "
            f"not {DISTRIBUTION} {version}"
        )
    files: dict[str, bytes] = {}
    for where, folder in _SHIPPED.items():
        for path in sorted((root / folder).rglob("*")):
            relative = path.relative_to(root / folder)
            if path.is_file() and not _left_out(relative):
                files[f"{where}/{relative.as_posix()}"] = path.read_bytes()
    info = _dist_info(version)
    files[f"{info}/METADATA"] = _metadata(project, root).encode("utf-8")
    files[f"{info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: {DISTRIBUTION} {version}\n"
        f"Root-Is-Purelib: true\nTag: {TAG}\n"
    ).encode()
    files[f"{info}/top_level.txt"] = b"explorer\n"
    entry_points = _entry_points(project)
    if entry_points:
        files[f"{info}/entry_points.txt"] = entry_points.encode("utf-8")
    return files


def _metadata(project: dict[str, Any], root: Path) -> str:
    """``METADATA`` (core metadata 2.1) from the ``[project]`` table."""
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
    ]
    if project.get("description"):
        lines.append(f"Summary: {project['description']}")
    license_text = project.get("license", {})
    if isinstance(license_text, dict) and license_text.get("text"):
        lines.append(f"License: {license_text['text']}")
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {_requirement(r)}" for r in project.get("dependencies", [])]
    for extra, requirements in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f"Requires-Dist: {_requirement(r, extra)}" for r in requirements]
    readme = project.get("readme")
    body = ""
    if isinstance(readme, str) and (root / readme).is_file():
        lines.append("Description-Content-Type: text/markdown")
        body = (root / readme).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + body


def _requirement(text: str, extra: str = "") -> str:
    """A PEP 508 requirement as ``Requires-Dist`` says it, limited to ``extra`` if given."""
    requirement, _, marker = (part.strip() for part in text.partition(";"))
    if extra:
        marker = f'({marker}) and extra == "{extra}"' if marker else f'extra == "{extra}"'
    return f"{requirement}; {marker}" if marker else requirement


def _entry_points(project: dict[str, Any]) -> str:
    sections = []
    for table, group in (("gui-scripts", "gui_scripts"), ("scripts", "console_scripts")):
        scripts = project.get(table, {})
        if scripts:
            sections.append(
                f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in sorted(scripts.items()))
            )
    return "\n".join(sections)


def _zipped(files: dict[str, bytes], version: str) -> bytes:
    """The wheel: every file, then the metadata, then ``RECORD`` with each one's hash."""
    info = _dist_info(version)
    order = sorted(files, key=lambda name: (name.startswith(f"{info}/"), name))
    rows = io.StringIO()
    writer = csv.writer(rows, lineterminator="\n")
    for name in order:
        hashed = base64.urlsafe_b64encode(hashlib.sha256(files[name]).digest()).rstrip(b"=")
        writer.writerow([name, f"sha256={hashed.decode()}", len(files[name])])
    writer.writerow([f"{info}/RECORD", "", ""])
    record = (f"{info}/RECORD", rows.getvalue().encode())
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, content in [*((n, files[n]) for n in order), record]:
            entry = zipfile.ZipInfo(name, _DATE)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, content)
    return out.getvalue()


def _field(metadata: str, name: str) -> str:
    """A header field of ``METADATA`` ("" when it has none)."""
    for line in metadata.split("\n\n", 1)[0].splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == name.lower():
            return value.strip()
    return ""
