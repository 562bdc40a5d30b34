"""Running a program under the recorder: ``capture OUT -- COMMAND ...``.

The program runs unchanged in a child process, its output and exit code its own. The folder
``bootstrap/`` goes first on its ``PYTHONPATH``, so every Python it starts loads the recorder
(``bootstrap/recorder.py``) before the program's first line; the bounds travel in the
environment.

The program runs in a process group of its own: TERM, HUP and INT sent to ``capture`` are
passed on to all of it, and a small watchdog process (not the program's, nor in ``capture``'s
group) ends the group should ``capture`` itself be killed (SIGKILL leaves no chance to pass
anything on). At a terminal the program's group is given the terminal, so it reads its input
and gets Ctrl+C and Ctrl+Z as it would alone. What was recorded is kept however it ended: the
journal is read when ``capture.json`` could not be written.

The folder is the person's: ``capture`` records only into a new or empty folder, or one an
earlier capture made (it holds the marker file :data:`MARKER`), and then replaces only the
files a capture writes. Nothing else is ever removed.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType

from explorer.capture.bootstrap import (
    CAPTURE_FILE,
    CLAIM,
    ENV_DIR,
    ENV_LAUNCHES,
    ENV_MAX_BYTES,
    ENV_STATUS,
    JOURNAL,
    MARKER,
)
from explorer.paths import UserFileError, shown

# typing is not imported: ``capture``'s own process, which imports this, needs none of it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from explorer.capture.journal import EarlyJournal

BOOTSTRAP = Path(__file__).resolve().parent / "bootstrap"
MARKER_TEXT = (
    "This folder holds a capture written by `python -m explorer capture` (docs/capture.md).\n"
    "A later capture into this folder replaces only the files a capture writes.\n"
)
# The files a capture writes: at the top, and in its two folders (the recorder names them).
_TOP = (CAPTURE_FILE, JOURNAL, CLAIM)
_MINE = {
    "data": re.compile(r"\d{5,}-\d+-[\w-]{0,40}-(before|after)\.npy|small\.pack"),
    "programs": re.compile(r"\d+\.cl"),
}
FORWARDED = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
# Set back to their default in the processes ``capture`` starts, as subprocess does (Python
# ignores SIGPIPE, and a program started from a shell finds it as the default).
_DEFAULT_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGPIPE", "SIGXFZ", "SIGXFSZ") if hasattr(signal, name)
)
STATUS_LIMIT = 1 << 16  # bytes of the recorder's notes read back

# Started beside the program: reads its stdin (a pipe from capture) until capture says "done"
# and closes it, or the pipe closes without it (capture was killed): then it ends the program's
# group. A POSIX shell (a few milliseconds, where a Python would take tens), ignoring the
# signals capture's job is sent; its one argument is the group.
WATCHDOG = (
    'trap "" INT HUP TERM; IFS= read -r said; '
    'case $said in *done*) ;; *) kill -s KILL -- "-$1" ;; esac'
)


# -- the folder ----------------------------------------------------------------------------


def _refused(message: str) -> Exception:
    """A :class:`~explorer.capture.folder.CaptureError` (imported when one is raised:
    ``capture``'s own process imports no more than it needs to run the program)."""
    from explorer.capture.folder import CaptureError

    return CaptureError(message)


def prepare_folder(folder: Path) -> None:
    """A folder to record into: made, or empty, or an earlier capture's (its marker there),
    whose own files are removed. Anything else is refused before anything is touched."""
    if os.path.lexists(folder) and not folder.is_dir():
        raise _refused(f"{shown(folder)} is not a folder; give a new or empty folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        names = sorted(os.listdir(folder))
    except OSError as exc:
        raise _refused(f"cannot make or read the folder {shown(folder)}: {exc.strerror}") from None
    if names and not _marked(folder):
        shown_names = ", ".join(shown(n, 60) for n in names[:3]) + (
            ", ..." if len(names) > 3 else ""
        )
        raise _refused(
            f"{shown(folder)} holds files capture did not write ({shown_names}); give a new "
            f"or empty folder, or the folder of an earlier capture (it holds {MARKER}). "
            "Nothing was changed"
        )
    ours = list(_own_files(folder)) if names else []
    try:
        for path in ours:
            path.unlink()
        if os.path.isdir(folder / HEADERS) and not os.path.islink(folder / HEADERS):
            for root, inner, _ in os.walk(folder / HEADERS, topdown=False):
                for name in inner:
                    with contextlib.suppress(OSError):
                        os.rmdir(os.path.join(root, name))
            with contextlib.suppress(OSError):
                os.rmdir(folder / HEADERS)
        for name in _MINE:
            with contextlib.suppress(OSError):  # left where it holds a file of someone else's
                (folder / name).rmdir()
        if not (folder / MARKER).exists():
            (folder / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
    except OSError as exc:
        raise _refused(f"cannot write into {shown(folder)}: {exc.strerror}") from None


# Where the recorder copies the headers each program's build read (recorder.Recorder._headers).
HEADERS = os.path.join("programs", "include")


def _marked(folder: Path) -> bool:
    """Whether ``folder`` holds a capture's marker (a plain file, not a link to one)."""
    try:
        return stat.S_ISREG(os.lstat(folder / MARKER).st_mode)
    except OSError:
        return False


def _own_files(folder: Path) -> Iterator[Path]:
    """The files an earlier capture wrote into ``folder``, by the names a capture gives them.
    A link or a folder where a capture writes a file of its own is refused (a capture would
    write through it)."""
    for name in _TOP:
        path = folder / name
        if os.path.lexists(path):
            yield _own(path, folder)
    for name, pattern in _MINE.items():
        inner = folder / name
        if not os.path.lexists(inner):
            continue
        if inner.is_symlink() or not inner.is_dir():
            raise _refused(
                f"{shown(inner)} is not a folder of its own (a link, or a file); capture writes "
                "its files there: move it away. Nothing was changed"
            )
        for entry in sorted(os.listdir(inner)):
            if pattern.fullmatch(entry):
                yield _own(inner / entry, folder)
    headers = folder / HEADERS  # the headers the programs' builds read, copied
    if not os.path.lexists(headers):
        return
    for root, inner_folders, files in os.walk(headers):
        path = Path(root)
        if path.is_symlink() or not path.is_dir():
            raise _refused(
                f"{shown(path)} is not a folder of its own (a link, or a file); capture writes "
                "its files there: move it away. Nothing was changed"
            )
        for name in inner_folders:
            if os.path.islink(path / name):
                raise _refused(
                    f"{shown(path / name)} is a link where capture writes its own folder: move "
                    "it away. Nothing was changed"
                )
        for name in sorted(files):
            yield _own(path / name, folder)


def _own(path: Path, folder: Path) -> Path:
    if path.is_symlink() or not path.is_file():
        raise _refused(
            f"{shown(path)} is not a file a capture wrote (a link or a folder where capture "
            "writes its own file): move it away. Nothing was changed"
        )
    return path


# -- the program's environment ---------------------------------------------------------------


def environment(
    folder: Path,
    launches: int | None,
    max_mb: float | None,
    base: dict[str, str],
    status: str | None = None,
) -> dict[str, str]:
    """The program's environment: its own, with the recorder's bootstrap first on
    ``PYTHONPATH`` and the capture folder, bounds and status pipe named."""
    env = dict(base)
    env[ENV_DIR] = str(folder.resolve())
    for name in (ENV_LAUNCHES, ENV_MAX_BYTES, ENV_STATUS):
        env.pop(name, None)
    if launches is not None:
        env[ENV_LAUNCHES] = str(launches)
    if max_mb is not None:
        env[ENV_MAX_BYTES] = str(int(max_mb * (1 << 20)))
    if status is not None:
        env[ENV_STATUS] = status
    paths = [str(BOOTSTRAP)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


# -- running it ----------------------------------------------------------------------------


def _found(name: str, path: str | None) -> str | None:
    """The program ``name`` found on ``path`` (the environment's ``PATH`` where None), as
    ``shutil.which`` finds it (which ``capture`` does not import to ask); None where none is."""
    if path is None:
        path = os.environ.get("PATH")
        if path is None:
            try:
                path = os.confstr("CS_PATH") or os.defpath
            except (AttributeError, ValueError):
                path = os.defpath
    for folder in path.split(os.pathsep) if path else ():
        candidate = os.path.join(folder, name)
        if os.access(candidate, os.F_OK | os.X_OK) and not os.path.isdir(candidate):
            return candidate
    return None


class _Terminal:
    """The controlling terminal on stdin, where ``capture`` runs in the foreground: the
    program's group gets it while it runs (as a shell gives it to a job), and ``capture``
    takes it back after. Elsewhere (a pipe, a file, the background) it does nothing."""

    def __init__(self) -> None:
        self.fd: int | None = None
        self.given = 0  # the group it was given to
        try:
            if os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp():
                self.fd = 0
        except OSError:
            self.fd = None

    def give(self, group: int) -> None:
        """To ``group``, where ``capture`` holds it (not after ``bg``)."""
        with contextlib.suppress(OSError):
            if self.fd is not None and os.tcgetpgrp(self.fd) == os.getpgrp():
                self._set(group)
                self.given = group

    def take_back(self) -> None:
        with contextlib.suppress(OSError):
            if self.fd is not None and os.tcgetpgrp(self.fd) == self.given:
                self._set(os.getpgrp())

    def _set(self, group: int) -> None:
        # Setting it from the background sends SIGTTOU, which would stop capture itself.
        assert self.fd is not None
        old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        try:
            os.tcsetpgrp(self.fd, group)
        finally:
            signal.signal(signal.SIGTTOU, old)


class _Forwarding:
    """TERM, HUP and INT sent to ``capture`` go to the program's group while it runs (those
    that come before it started, once it has). Only the main thread handles signals: from
    another, nothing is changed."""

    def __init__(self) -> None:
        self.group = 0
        self.pending: list[int] = []
        self.saved: dict[int, object] = {}

    def __enter__(self) -> _Forwarding:
        try:
            for signum in FORWARDED:
                self.saved[signum] = signal.signal(signum, self._forward)
        except ValueError:  # not the main thread
            pass
        return self

    def started(self, group: int) -> None:
        self.group = group
        for signum in self.pending:
            self._forward(signum, None)

    def _forward(self, signum: int, frame: FrameType | None) -> None:
        if not self.group:
            self.pending.append(signum)
            return
        with contextlib.suppress(OSError):
            os.killpg(self.group, signum)

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self.saved.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]


def _spawn(
    argv: Sequence[str],
    env: dict[str, str],
    *,
    group: bool = False,
    session: bool = False,
    stdin: int | None = None,
    keep: int | None = None,
) -> int:
    """Start ``argv`` (its program found on ``env``'s ``PATH`` where it names no folder) as
    subprocess.Popen starts it, without importing subprocess: no file of ``capture``'s open
    in it but ``keep`` (and ``stdin``, its standard input, where given: its standard output
    and error are then /dev/null), SIGPIPE and SIGXFSZ at their default; ``group``: in a
    process group of its own, ``session``: in a session of its own. Its process id; OSError
    where it could not be started."""
    path = argv[0] if os.sep in argv[0] else _found(argv[0], env.get("PATH")) or argv[0]
    actions: list[tuple[Any, ...]] = []
    if stdin is not None:
        actions.append((os.POSIX_SPAWN_DUP2, stdin, 0))
        actions.append((os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0))
        actions.append((os.POSIX_SPAWN_DUP2, 1, 2))
    for fd in _inherited():
        if fd != keep and fd != stdin:
            actions.append((os.POSIX_SPAWN_CLOSE, fd))
    if keep is not None:
        os.set_inheritable(keep, True)
    options: dict[str, Any] = {"setpgroup": 0} if group else {}
    if session:
        options["setsid"] = True
    return os.posix_spawn(
        path, list(argv), env, file_actions=actions, setsigdef=_DEFAULT_SIGNALS, **options
    )


def _inherited() -> list[int]:
    """The files of ``capture``'s open past stdin, stdout and stderr that a process it
    starts would inherit (those it inherited itself: Python opens its own not inheritable)."""
    try:
        names = os.listdir("/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd")
    except OSError:
        return []
    found: list[int] = []
    for name in names:
        fd = int(name) if name.isdigit() else -1
        if fd > 2:
            try:
                if os.get_inheritable(fd):
                    found.append(fd)
            except OSError:  # the folder's own, closed since
                pass
    return found


def _watchdog(group: int) -> tuple[int, int] | None:
    """A process that ends the program's group if ``capture`` dies without saying "done" on
    the pipe returned (the pipe closes with ``capture``, however it ends): its process id and
    the pipe's end."""
    read, write = os.pipe()
    try:
        dog = _spawn(
            ["/bin/sh", "-c", WATCHDOG, "watchdog", str(group)],
            dict(os.environ),
            session=True,  # a kill of capture's group or session spares it
            stdin=read,
        )
    except OSError:
        os.close(write)
        return None
    finally:
        os.close(read)
    return dog, write


def _reap(pid: int) -> None:
    """Wait for the process ``pid`` to end."""
    while True:
        try:
            os.waitpid(pid, 0)
            return
        except ChildProcessError:
            return
        except InterruptedError:
            continue


def _status_pipe() -> tuple[int, int, str]:
    """A pipe the recorder tells what it could not keep through: (read end, write end, how
    the environment names the write end)."""
    read, write = os.pipe()
    os.set_blocking(read, False)
    info = os.fstat(write)
    return read, write, f"{write}:{info.st_dev}:{info.st_ino}"


def _read_status(fd: int) -> list[str]:
    """What the recorder said, without waiting for a pipe the program's leftovers may hold."""
    data = b""
    with contextlib.suppress(OSError):
        while len(data) < STATUS_LIMIT:
            chunk = os.read(fd, STATUS_LIMIT)
            if not chunk:
                break
            data += chunk
    lines = data.decode("utf-8", errors="replace").splitlines()
    return list(dict.fromkeys(line.strip() for line in lines if line.strip()))


def _wait(pid: int, terminal: _Terminal) -> int:
    """Wait for the program; at a terminal, a program stopped (Ctrl+Z) stops ``capture`` too,
    and both go on together (``fg``, ``bg``), as one job of the shell."""
    options = os.WUNTRACED if terminal.fd is not None else 0
    while True:
        try:
            pid, status = os.waitpid(pid, options)
        except ChildProcessError:  # reaped elsewhere: its code is not known
            return 1
        if pid == 0:
            continue
        if os.WIFSTOPPED(status):
            tty_stop = os.WSTOPSIG(status) in (signal.SIGTTIN, signal.SIGTTOU)
            if tty_stop and terminal.given == pid:
                # It read the terminal just before it was given it: it holds it now.
                with contextlib.suppress(OSError):
                    os.killpg(pid, signal.SIGCONT)
                continue
            terminal.take_back()
            os.kill(os.getpid(), signal.SIGSTOP)  # the shell sees the job stop
            terminal.give(pid)  # continued: in the foreground again (fg), or not (bg)
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGCONT)
            continue
        return os.waitstatus_to_exitcode(status)


def capture_program(
    folder: Path,
    command: Sequence[str],
    launches: int | None = None,
    max_mb: float | None = None,
) -> tuple[int, list[str], dict[str, Any] | None]:
    """Run ``command`` with its launches recorded into ``folder``: its exit code (128 + the
    signal's number where a signal ended it, as a shell says), what could not be kept (a
    full disk) and ``capture.json`` as made (None where the journal could not be read).
    ``capture.json`` is written however the program ended, where the folder takes it."""
    if not command:
        raise _refused("give the program to run after --, e.g. -- python host.py")
    if launches is not None and launches < 0:
        raise _refused("--launches must be 0 or more")
    if max_mb is not None and max_mb < 0:
        raise _refused("--max-mb must be 0 or more")
    prepare_folder(folder)
    status_read, status_write, status_name = _status_pipe()
    env = environment(folder, launches, max_mb, dict(os.environ), status_name)
    if os.sep not in command[0] and _found(command[0], env.get("PATH")) is None:
        os.close(status_read)
        os.close(status_write)
        raise _refused(f"cannot start {shown(command[0])}: no such program on the PATH")
    terminal = _Terminal()
    lost: list[str] = []
    dog: tuple[int, int] | None = None
    early: EarlyJournal | None = None
    try:
        with _Forwarding() as forwarding:
            try:
                pid = _spawn(command, env, group=True, keep=status_write)
            except OSError as exc:
                raise _refused(f"cannot start {shown(command[0])}: {exc.strerror or exc}") from None
            finally:
                os.close(status_write)
            forwarding.started(pid)
            dog = _watchdog(pid)
            terminal.give(pid)
            try:  # the watchdog is told "done" whatever happens here
                # What ``capture`` needs once the program ends, imported while it runs; the
                # journal's lines are taken as the program writes them.
                from explorer.capture.journal import EarlyJournal, assemble, write_capture

                try:
                    early = EarlyJournal(folder)
                except RuntimeError:  # no thread to be had: the journal is read whole
                    early = None
                code = _wait(pid, terminal)
            finally:
                terminal.take_back()
                if dog is not None:
                    with contextlib.suppress(OSError):
                        os.write(dog[1], b"done")
                    os.close(dog[1])
        lost = _read_status(status_read)
        document: dict[str, Any] | None = None
        try:
            document = assemble(
                folder, tuple(command), code, lost=lost, write=False, raw=True, early=early
            )
            lost = list(dict.fromkeys(document.get("lost") or ()))
            write_capture(folder, document)
        except OSError as exc:
            lost.append(
                f"{CAPTURE_FILE} could not be written ({exc.strerror or exc}): the launches are "
                f"read from {JOURNAL}"
            )
        except UserFileError as exc:  # a journal that cannot be read back
            lost.append(f"{CAPTURE_FILE} could not be written: {exc}")
    finally:
        os.close(status_read)
        if early is not None:
            early.stop()
        if dog is not None:  # it ends on "done" (while capture.json was written)
            _reap(dog[0])
    return (128 - code if code < 0 else code), lost, document
