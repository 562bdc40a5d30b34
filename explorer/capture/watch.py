"""Running a program under the recorder: ``capture OUT -- COMMAND ...``.

The program runs unchanged in a child process, its output and exit code its own. The folder
``bootstrap/`` goes first on its ``PYTHONPATH``, so every Python it starts loads the recorder
(``recorder.py``) before the program's first line; the bounds travel in the environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from explorer.capture.folder import CAPTURE_FILE, CaptureError, assemble
from explorer.capture.recorder import CLAIM, ENV_DIR, ENV_LAUNCHES, ENV_MAX_BYTES, JOURNAL

BOOTSTRAP = Path(__file__).resolve().parent / "bootstrap"
_OURS = (CAPTURE_FILE, JOURNAL, CLAIM, "data", "programs")


def prepare_folder(folder: Path) -> None:
    """An empty folder to record into: created, or emptied of an earlier capture. A folder
    holding anything else is refused, so no file of the person's is ever removed."""
    if folder.exists() and not folder.is_dir():
        raise CaptureError(f"{folder} is a file; give a folder for the capture")
    folder.mkdir(parents=True, exist_ok=True)
    others = sorted(p.name for p in folder.iterdir() if p.name not in _OURS)
    if others:
        raise CaptureError(
            f"{folder} holds other files ({', '.join(others[:3])}"
            f"{', ...' if len(others) > 3 else ''}); give a new or empty folder, or an earlier "
            "capture's folder"
        )
    for name in _OURS:
        path = folder / name
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def environment(
    folder: Path, launches: int | None, max_mb: float | None, base: dict[str, str]
) -> dict[str, str]:
    """The program's environment: its own, with the recorder's bootstrap first on
    ``PYTHONPATH`` and the capture folder and bounds named."""
    env = dict(base)
    env[ENV_DIR] = str(folder.resolve())
    env.pop(ENV_LAUNCHES, None)
    env.pop(ENV_MAX_BYTES, None)
    if launches is not None:
        env[ENV_LAUNCHES] = str(launches)
    if max_mb is not None:
        env[ENV_MAX_BYTES] = str(int(max_mb * (1 << 20)))
    paths = [str(BOOTSTRAP)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def capture_program(
    folder: Path,
    command: Sequence[str],
    launches: int | None = None,
    max_mb: float | None = None,
) -> int:
    """Run ``command`` with its launches recorded into ``folder``; its exit code (128 + the
    signal's number where a signal ended it, as a shell says). ``capture.json`` is written
    whatever way it ended."""
    if not command:
        raise CaptureError("give the program to run after --, e.g. -- python host.py")
    if launches is not None and launches < 0:
        raise CaptureError("--launches must be 0 or more")
    if max_mb is not None and max_mb < 0:
        raise CaptureError("--max-mb must be 0 or more")
    prepare_folder(folder)
    env = environment(folder, launches, max_mb, dict(os.environ))
    try:
        process = subprocess.Popen(list(command), env=env)
    except OSError as exc:
        raise CaptureError(f"cannot start {command[0]}: {exc.strerror or exc}") from None
    try:
        code = process.wait()
    except KeyboardInterrupt:  # the program got the interrupt too: let it end, keep its record
        code = process.wait()
    assemble(folder, tuple(command), code)
    return 128 - code if code < 0 else code
