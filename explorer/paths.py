"""Where the shipped kernels and resources live, for regular and editable installs alike."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from tokenize import TokenError

# typing is not imported: ``capture``'s own process, which imports this, needs none of it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_REPO_ROOT = Path(__file__).resolve().parent.parent


def _package_dir(package: str, repo_folder: str) -> Path:
    # A source checkout's own folders first: an editable install maps the package to the
    # checkout it was installed from, which is another one where this code runs from a
    # second checkout (its kernels would not be the ones beside its code).
    local = _REPO_ROOT / repo_folder
    if (_REPO_ROOT / "pyproject.toml").is_file() and local.is_dir():
        return local
    # Imported here: ``capture``'s own process imports this module, and needs none of it.
    from importlib import resources

    try:
        candidate = Path(str(resources.files(package)))
        if candidate.is_dir() and any(candidate.iterdir()):
            return candidate
    except (ModuleNotFoundError, TypeError):
        pass
    return local


def kernels_dir() -> Path:
    """The folder holding ``<family>/<variant>.cl``."""
    return _package_dir("explorer.kernels", "kernels")


def resources_dir() -> Path:
    """The folder holding icons, the desktop entry and sample images."""
    return _package_dir("explorer.resources", "resources")


# -- files a person names ----------------------------------------------------------------

# What one file a person names may hold: kernels, headers, sessions and .sim files are text
# of a few kilobytes; arrays and images the explorer can run fit well under this.
TEXT_LIMIT = 16 << 20
DATA_LIMIT = 4 << 30
_SHOWN = 160  # characters of a path or a value quoted in a message


class UserFileError(ValueError):
    """A file a person named that cannot be used; the message names the file and says why."""


class NotTextError(UserFileError):
    """A file that was read but is not UTF-8 text."""


def shown(text: object, limit: int = _SHOWN) -> str:
    """``text`` as a message quotes it: at most ``limit`` characters, its middle elided."""
    value = str(text)
    if len(value) <= limit:
        return value
    keep = (limit - 1) // 2
    return f"{value[:keep]}…{value[-keep:]} ({len(value)} characters)"


def _reason(exc: OSError) -> str:
    reasons = {
        errno.ENOENT: "does not exist",
        errno.EACCES: "cannot be read (permission denied)",
        errno.EPERM: "cannot be read (permission denied)",
        errno.ENAMETOOLONG: "has a name too long for the file system",
        errno.ENOTDIR: "is not a file: a part of its path is not a folder",
        errno.ELOOP: "is a loop of symbolic links",
        errno.EISDIR: "is a folder, not a file",
        errno.EIO: "cannot be read (input/output error)",
    }
    return reasons.get(exc.errno or 0, f"cannot be read ({exc.strerror or 'unknown error'})")


def _kind(mode: int) -> str | None:
    """Why a file of this mode is refused, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO), not a file: reading it could wait for ever"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a file"
    return "is not a regular file"


def check_user_file(path: str | os.PathLike[str], what: str, limit: int = DATA_LIMIT) -> int:
    """Refuse what cannot be a file of ``what`` (missing, a folder, a device, a FIFO, larger
    than ``limit`` bytes) with a message naming it, without opening it; its size otherwise."""
    label = f"{what} {shown(os.fspath(path))}"
    try:
        info = os.stat(path)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        reason = _reason(exc) if isinstance(exc, OSError) else "has a NUL character in its name"
        raise UserFileError(f"{label} {reason}") from None
    refused = _kind(info.st_mode)
    if refused:
        raise UserFileError(f"{label} {refused}")
    if info.st_size > limit:
        raise UserFileError(
            f"{label} is {_bytes(info.st_size)}; a {what} holds at most {_bytes(limit)}"
        )
    return info.st_size


def read_user_bytes(path: str | os.PathLike[str], what: str, limit: int = TEXT_LIMIT) -> bytes:
    """The bytes of a file a person named, refused as :func:`check_user_file` says; opened
    without waiting (a FIFO swapped in after the check never blocks) and read to ``limit``."""
    check_user_file(path, what, limit)
    label = f"{what} {shown(os.fspath(path))}"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UserFileError(f"{label} {_reason(exc)}") from None
    try:
        refused = _kind(os.fstat(fd).st_mode)
        if refused:
            raise UserFileError(f"{label} {refused}")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise UserFileError(f"{label} {_reason(exc)}") from None
    finally:
        os.close(fd)
    if total > limit:
        raise UserFileError(f"{label} is larger than {_bytes(limit)}, the most a {what} holds")
    return b"".join(chunks)


def decode_text(data: bytes, label: str) -> str:
    """UTF-8 text (a UTF-8 byte-order mark is dropped); other encodings are refused with a
    message that names the file and how to convert it."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise NotTextError(
            f"{label} is UTF-16 text; save it as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8) and open "
            "it again"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise NotTextError(
            f"{label} is not UTF-8 text (byte {data[exc.start]:#04x} on line {line}); save it "
            "as UTF-8 (e.g. iconv -f LATIN1 -t UTF-8) and open it again"
        ) from None


def read_user_text(path: str | os.PathLike[str], what: str, limit: int = TEXT_LIMIT) -> str:
    """The UTF-8 text of a file a person named (see :func:`read_user_bytes`)."""
    data = read_user_bytes(path, what, limit)
    return decode_text(data, f"{what} {shown(os.fspath(path))}")


def _bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def load_user_array(path: str | os.PathLike[str], what: str) -> Any:
    """A ``.npy`` array a person named, refused as :func:`check_user_file` says; an array of
    Python objects (which only unpickling could read) is refused, never unpickled."""
    import numpy as np

    check_user_file(path, what, DATA_LIMIT)
    label = f"{what} {shown(os.fspath(path))}"
    try:
        with open(path, "rb") as handle:
            if handle.read(6) != b"\x93NUMPY":
                raise UserFileError(f"{label} is not a .npy array (numpy.save writes one)")
            handle.seek(0)
            return np.load(handle, allow_pickle=False)
    except OSError as exc:
        raise UserFileError(f"{label} {_reason(exc)}") from None
    except UserFileError:
        raise
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
            raise UserFileError(
                f"{label} holds Python objects, not numbers; save a numeric array"
            ) from None
        raise UserFileError(f"{label} is not a readable .npy array (damaged or cut)") from None
    except EOFError:
        raise UserFileError(f"{label} is cut short: not a whole .npy array") from None
    except (SyntaxError, TokenError):  # a header numpy tokenizes as Python: damaged
        raise UserFileError(f"{label} is not a readable .npy array (damaged or cut)") from None
