"""``python -m explorer install-desktop``: put the app in a Linux desktop's applications menu.

Writes an XDG desktop entry (``applications/kernel-explorer.desktop``) and the icon in the
hicolor theme (``icons/hicolor/scalable/apps/kernel-explorer.svg`` and one PNG per size)
under the user's data folder, ``$XDG_DATA_HOME`` or ``~/.local/share``, or under
``PREFIX/share`` with ``--prefix``. ``--uninstall`` removes exactly those files. The entry's
``Exec`` is the program that starts this very installation: the bundle's executable, the
``kernel-explorer`` gui-script, ``main.py`` of a source checkout, or ``python -m explorer.app``.

Exit codes: 0 done, 2 usage error or a file that cannot be written or removed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from explorer.paths import resources_dir

APP_ID = "kernel-explorer"  # the desktop-file name; explorer.app sets the same one in Qt
USAGE_ERROR = 2
_ICON_PNG = re.compile(r"icon-(\d+)\.png")
# Characters that force an Exec argument into double quotes (Desktop Entry spec, "Exec key").
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


class DesktopError(RuntimeError):
    """A file of the desktop entry that cannot be read, written or removed."""


def data_dir(prefix: Path | None = None) -> Path:
    """``PREFIX/share``, else ``$XDG_DATA_HOME`` (when absolute), else ``~/.local/share``."""
    if prefix is not None:
        return Path(prefix).expanduser().absolute() / "share"
    xdg = os.environ.get("XDG_DATA_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg)
    return Path.home() / ".local" / "share"


def launcher() -> list[str]:
    """The command line that starts this installation of the app."""
    if getattr(sys, "frozen", False):  # a PyInstaller bundle
        return [str(Path(sys.executable).absolute())]
    beside = Path(sys.executable).parent / APP_ID  # the gui-script of this environment
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside.absolute())]
    on_path = shutil.which(APP_ID)
    if on_path:
        return [str(Path(on_path).absolute())]
    checkout_main = Path(__file__).resolve().parent.parent / "main.py"
    python = str(Path(sys.executable).absolute())
    if checkout_main.is_file():
        return [python, str(checkout_main)]
    return [python, "-m", "explorer.app"]


def exec_value(argv: Sequence[str]) -> str:
    """``argv`` as the value of an ``Exec`` key: arguments quoted by the spec's rules, ``%``
    doubled (it starts a field code), then backslashes escaped as in every string value."""
    words = []
    for arg in argv:
        if arg and not (_RESERVED & set(arg)):
            word = arg
        else:
            escaped = "".join("\\" + c if c in '"`$\\' else c for c in arg)
            word = f'"{escaped}"'
        words.append(word.replace("%", "%%"))
    return " ".join(words).replace("\\", "\\\\")


def entry_text(argv: Sequence[str]) -> str:
    """The shipped ``kernel-explorer.desktop`` with ``Exec`` and ``TryExec`` set to ``argv``."""
    template = _resource("kernel-explorer.desktop").read_text(encoding="utf-8")
    lines = []
    for line in template.splitlines():
        key = line.split("=", 1)[0].strip()
        if key == "Exec":
            line = f"Exec={exec_value(argv)}"
        elif key == "TryExec":
            line = f"TryExec={exec_value(argv[:1])}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def planned_files(prefix: Path | None = None) -> dict[Path, Path | None]:
    """Every file ``install`` writes, with its source (``None`` for the generated entry)."""
    share = data_dir(prefix)
    icons = share / "icons" / "hicolor"
    files: dict[Path, Path | None] = {share / "applications" / f"{APP_ID}.desktop": None}
    files[icons / "scalable" / "apps" / f"{APP_ID}.svg"] = _resource("icon.svg")
    for png in sorted(resources_dir().glob("icon-*.png"), key=_png_size):
        size = _png_size(png)
        if size:
            files[icons / f"{size}x{size}" / "apps" / f"{APP_ID}.png"] = png
    return files


def install(prefix: Path | None = None) -> list[Path]:
    """Write the desktop entry and the icons; return the files written."""
    entry = entry_text(launcher())
    written = []
    for target, source in planned_files(prefix).items():
        data = entry.encode("utf-8") if source is None else _read(source)
        _write(target, data)
        written.append(target)
    return written


def uninstall(prefix: Path | None = None) -> list[Path]:
    """Remove the files ``install`` writes, where present; return the files removed."""
    removed = []
    for target in planned_files(prefix):
        if not target.is_file():
            continue
        try:
            target.unlink()
        except OSError as exc:
            raise DesktopError(f"cannot remove {target}: {exc.strerror}") from None
        removed.append(target)
    return removed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--prefix",
        metavar="DIR",
        type=Path,
        help="install under DIR/share (default: $XDG_DATA_HOME or ~/.local/share)",
    )
    parser.add_argument(
        "--uninstall", action="store_true", help="remove what install-desktop wrote"
    )


def run(args: argparse.Namespace) -> int:
    """``install-desktop`` with parsed arguments; prints what it did."""
    if args.prefix is None and sys.platform in ("win32", "darwin"):
        print(
            "error: install-desktop writes a Linux (freedesktop) desktop entry. On Windows, "
            "pin dist\\kernel-explorer\\kernel-explorer.exe to Start or double-click main.py; "
            "on macOS, drag 'Kernel Explorer.app' from dist/ to Applications.",
            file=sys.stderr,
        )
        return USAGE_ERROR
    try:
        if args.uninstall:
            removed = uninstall(args.prefix)
            if not removed:
                print(f"nothing to remove: no Kernel Explorer files in {data_dir(args.prefix)}")
                return 0
            print("removed:")
            for path in removed:
                print(f"  {path}")
            return 0
        written = install(args.prefix)
    except DesktopError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    print("installed:")
    for path in written:
        print(f"  {path}")
    print(
        f"OpenCL Kernel Explorer is now in the applications menu (Development); it starts "
        f"{' '.join(launcher())}\n"
        f"Remove it with: {_this_command()} --uninstall"
        + (f" --prefix {shlex.quote(str(args.prefix))}" if args.prefix is not None else "")
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m explorer install-desktop",
        description="Add OpenCL Kernel Explorer to the applications menu of a Linux desktop.",
    )
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return int(exc.code or 0)
    return run(args)


def _this_command() -> str:
    if getattr(sys, "frozen", False):
        return f"{Path(sys.executable).absolute()} install-desktop"
    return "python -m explorer install-desktop"


def _png_size(path: Path) -> int:
    match = _ICON_PNG.fullmatch(path.name)
    return int(match.group(1)) if match else 0


def _resource(name: str) -> Path:
    path = resources_dir() / name
    if not path.is_file():
        raise DesktopError(f"the app's resources lack {path}; reinstall the app")
    return path


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise DesktopError(f"cannot read {path}: {exc.strerror}") from None


def _write(path: Path, data: bytes) -> None:
    """Write through a temporary file, so a half-written entry never appears in a menu."""
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise DesktopError(f"cannot write {path}: {exc.strerror}") from None


if __name__ == "__main__":
    sys.exit(main())
