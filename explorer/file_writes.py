"""Files the user asked for, written so that success means a whole file: after writing, the
file must exist with the expected size or header, or the write failed; a failed write leaves
no partial file behind and its message names the file and the cause (the disk is full, the
file system is read-only, the folder is not writable). Qt's and Pillow's writers can fail
silently or leave 0-byte files; this module is the one place that checks them."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

PNG = b"\x89PNG\r\n\x1a\n"
GIF = (b"GIF87a", b"GIF89a")
SVG_END = b"</svg>"

CAUSES = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied (the folder or file is not writable)",
    errno.EPERM: "permission denied (the folder or file is not writable)",
    errno.ENOENT: "the folder does not exist",
    errno.EISDIR: "it is a folder",
    errno.ENAMETOOLONG: "the file name is too long",
}


class WriteFailed(Exception):
    """A file was not written whole; ``str()`` names the file and the cause."""

    def __init__(self, path: str, cause: str) -> None:
        super().__init__(f"Could not write {path}: {cause}")
        self.path = path
        self.cause = cause


def cause_of(error: OSError) -> str:
    """An OSError in words a person can act on."""
    if error.errno in CAUSES:
        return CAUSES[error.errno]
    return error.strerror or type(error).__name__


def diagnose(path: str) -> str:
    """Why a writer that gave no reason failed: the disk, the file system or the folder."""
    folder = Path(path).absolute().parent
    if not folder.is_dir():
        return CAUSES[errno.ENOENT]
    try:
        fs = os.statvfs(folder)
    except OSError as exc:
        return cause_of(exc)
    if fs.f_flag & os.ST_RDONLY:
        return CAUSES[errno.EROFS]
    if fs.f_bavail == 0 or fs.f_bavail * fs.f_frsize < 64 * 1024:
        return CAUSES[errno.ENOSPC]
    if not os.access(folder, os.W_OK):
        return CAUSES[errno.EACCES]
    return "the writer reported a failure (the file is missing or incomplete)"


def remove_partial(path: str) -> None:
    """Remove what a failed write left, only if it is an ordinary file (never a device such
    as /dev/full, a folder or a FIFO)."""
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            os.unlink(path)
    except OSError:
        pass


def check_file(
    path: str,
    header: bytes | tuple[bytes, ...] | None = None,
    size: int | None = None,
    ending: bytes | None = None,
) -> str | None:
    """None when ``path`` is an ordinary, non-empty file with this size, header and ending;
    else what is wrong with it."""
    try:
        info = os.stat(path)
    except OSError:
        return "the file is missing after writing"
    if not stat.S_ISREG(info.st_mode):
        return "it is not an ordinary file"
    if info.st_size == 0:
        return "the file is empty"
    if size is not None and info.st_size != size:
        return f"the file has {info.st_size:,} bytes of {size:,}"
    heads = (header,) if isinstance(header, bytes) else header or ()
    tail_size = len(ending) + 16 if ending else 0
    try:
        with open(path, "rb") as handle:
            start = handle.read(max((len(h) for h in heads), default=0))
            if ending:
                handle.seek(max(info.st_size - tail_size, 0))
                tail = handle.read()
    except OSError as exc:
        return cause_of(exc)
    if heads and not any(start.startswith(h) for h in heads):
        return "the file does not start as it should (incomplete)"
    if ending and ending not in tail:
        return "the file does not end as it should (incomplete)"
    return None


def write_checked(
    path: str,
    writer: Callable[[str], object],
    header: bytes | tuple[bytes, ...] | None = None,
    size: int | None = None,
    ending: bytes | None = None,
) -> None:
    """Run ``writer(path)``; a writer that raises OSError or returns False, or a file that
    fails :func:`check_file`, removes the partial file and raises :class:`WriteFailed`."""
    try:
        outcome = writer(path)
    except OSError as exc:
        remove_partial(path)
        known = exc.errno in CAUSES
        raise WriteFailed(path, cause_of(exc) if known else diagnose(path)) from exc
    problem = check_file(path, header, size, ending)
    if outcome is False or problem is not None:
        remove_partial(path)
        cause = diagnose(path)
        if cause.startswith("the writer") and problem is not None:
            cause = problem
        raise WriteFailed(path, cause)


def write_text(path: str, text: str) -> None:
    """UTF-8 text written and checked by its size in bytes."""
    data = text.encode("utf-8")

    def write(target: str) -> None:
        with open(target, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())

    write_checked(path, write, size=len(data))


def replace_text(path: str, text: str) -> None:
    """A person's text file (a kernel saved from the app's editor) replaced whole: the text
    is written beside it and checked, then renamed over it, so a write that fails (a full
    disk, a read-only folder) leaves the file as it was. A link is followed: its target is
    replaced."""
    import shutil
    import tempfile

    target = os.path.realpath(path)
    try:
        handle, temporary = tempfile.mkstemp(
            dir=os.path.dirname(target), prefix=".", suffix=".saving"
        )
        os.close(handle)
    except OSError as exc:
        raise WriteFailed(path, cause_of(exc)) from exc
    try:
        write_text(temporary, text)
        if os.path.exists(target):
            shutil.copymode(target, temporary)
        os.replace(temporary, target)
    except WriteFailed as exc:
        raise WriteFailed(path, exc.cause) from exc
    except OSError as exc:
        remove_partial(temporary)
        raise WriteFailed(path, cause_of(exc)) from exc


# -- files the command line names ---------------------------------------------------------
# A path typed on the command line was not confirmed by a Save dialog: a file already there
# is replaced only when the person says so (--force), and a symbolic link there is never
# written through (with --force the link itself is replaced, never the file it points to).


def output_problem(path: str, force: bool = False) -> str | None:
    """Why ``path`` cannot take a new file before any work is done (a file or a link already
    there without ``force``, a folder, a device, a missing or read-only folder); None when
    it can."""
    try:
        info: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        return cause_of(exc)
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            if not force:
                return (
                    "it is a symbolic link, which is never written through; give another name, "
                    "or add --force to replace the link itself"
                )
        elif stat.S_ISDIR(info.st_mode):
            return "it is a folder; give a file name in it"
        elif not stat.S_ISREG(info.st_mode):
            return "it is not a regular file (a device or a pipe); give a file name"
        elif not force:
            return "the file exists; add --force to replace it, or give another name"
    folder = Path(path).absolute().parent
    if not folder.is_dir():
        return f"the folder {folder} does not exist; create it first"
    if not os.access(folder, os.W_OK):
        return f"the folder {folder} cannot be written"
    return None


def write_output(
    path: str,
    writer: Callable[[str], object],
    header: bytes | tuple[bytes, ...] | None = None,
    size: int | None = None,
    ending: bytes | None = None,
    *,
    force: bool | None = None,
) -> None:
    """The one way the explorer writes a file a person asked for.

    ``force`` None: a path chosen in a Save dialog, which asked before replacing a file:
    written in place by :func:`write_checked`. ``force`` True or False: a path the command
    line names. The file is written beside it under a temporary name, checked as
    :func:`write_checked` checks it, then put in place: without ``force`` only where nothing
    is there (a file that appeared meanwhile is kept and the write fails), with ``force`` by
    replacing what is there (a link is replaced, never followed)."""
    if force is None:
        write_checked(path, writer, header, size, ending)
        return
    problem = output_problem(path, force)
    if problem is not None:
        raise WriteFailed(path, problem)
    import secrets

    target = Path(path)
    temporary = str(
        target.with_name(f".{target.name}.{secrets.token_hex(6)}.partial{target.suffix}")
    )
    try:
        write_checked(temporary, writer, header, size, ending)
        if not stat.S_ISREG(os.lstat(temporary).st_mode):
            raise WriteFailed(temporary, "it is not an ordinary file")
    except WriteFailed as exc:
        remove_partial(temporary)
        raise WriteFailed(path, exc.cause) from exc
    except OSError as exc:
        remove_partial(temporary)
        raise WriteFailed(path, cause_of(exc)) from exc
    except BaseException:  # Ctrl+C while writing: nothing is left behind
        remove_partial(temporary)
        raise
    try:
        _put_in_place(temporary, path, force)
    except FileExistsError:
        remove_partial(temporary)
        raise WriteFailed(
            path, "a file of that name appeared while writing; it is kept (add --force)"
        ) from None
    except OSError as exc:
        remove_partial(temporary)
        raise WriteFailed(path, cause_of(exc)) from exc


def _put_in_place(temporary: str, path: str, force: bool) -> None:
    """Rename ``temporary`` to ``path``: over what is there with ``force``, else only where
    nothing is (a hard link fails when the name is taken; where the file system has none,
    the name is checked just before the rename)."""
    if force:
        os.replace(temporary, path)
        return
    try:
        os.link(temporary, path)  # the temporary is a regular file: nothing to follow
    except FileExistsError:
        raise
    except OSError:  # no hard links on this file system
        if os.path.lexists(path):
            raise FileExistsError(path) from None
        os.replace(temporary, path)
        return
    os.unlink(temporary)
