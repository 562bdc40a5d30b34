"""Capturing the launches of the running Python process: ``with explorer.capture("out"): ...``
and the notebook cell magic ``%%explorer_capture out`` (``%load_ext explorer``).

The recorder that ``capture OUT -- COMMAND`` loads into a program (:mod:`bootstrap.recorder`) is
installed here for the length of the block: pyopencl's functions are wrapped at its start (or
when the block imports pyopencl) and restored at its end, when ``capture.json`` is written
from the journal, in the same folder format the window and the command line open. IPython is
not needed to import this module.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from explorer.capture.bootstrap import recorder as rec
from explorer.capture.folder import CaptureError, assemble
from explorer.capture.watch import prepare_folder

_recording: list[rec.Recorder] = []


@contextlib.contextmanager
def capture(
    out: str | os.PathLike[str],
    *,
    launches: int | None = None,
    max_mb: float | None = None,
) -> Iterator[Path]:
    """Record every kernel launch this process makes inside the block into the folder ``out``
    (new or empty, or an earlier capture's), bounded as ``capture --launches N --max-mb M``.
    Yields the folder; ``explorer.capture.load_capture`` reads it afterwards.

    Kernels whose arguments were set before the block and launched inside it without setting
    them again are listed without their buffers; programs built before it have no parameter
    names where the driver reports them only for programs built with kernel argument info."""
    if _recording or os.environ.get(rec.ENV_DIR):
        raise CaptureError(
            "this process is being recorded already (a capture block, or `capture OUT -- ...`): "
            "end that one first"
        )
    if launches is not None and launches < 0:
        raise CaptureError(f"launches={launches}: expected 0 or more")
    if max_mb is not None and not max_mb >= 0:
        raise CaptureError(f"max_mb={max_mb}: expected 0 or more MiB")
    folder = Path(out)
    prepare_folder(folder)
    bound = rec.DEFAULT_MAX_BYTES if max_mb is None else int(max_mb * (1 << 20))
    recorder = rec.Recorder(folder.resolve(), launches, bound)
    hook: rec._PatchOnImport | None = None
    if "pyopencl" in sys.modules:
        recorder.start(sys.modules["pyopencl"])
    else:
        hook = rec._PatchOnImport(recorder)
        sys.meta_path.insert(0, hook)
    _recording.append(recorder)
    code = 0
    try:
        yield folder
    except SystemExit as exc:  # sys.exit in the block: the code the process ends with
        code = _exit_code(exc.code)
        raise
    except KeyboardInterrupt:  # Python ends by SIGINT, which a shell reads as 128 + 2
        code = 128 + 2
        raise
    except BaseException:
        code = 1
        raise
    finally:
        _recording.clear()
        recorder.unpatch()
        recorder.active = False
        recorder.close()
        if hook is not None and hook in sys.meta_path:
            sys.meta_path.remove(hook)
        command = ("python", *sys.argv) if sys.argv and sys.argv[0] else ("python",)
        with contextlib.suppress(OSError):
            assemble(folder, command, code, lost=recorder.notes)


def _exit_code(value: object) -> int:
    """The exit status a process ending with ``SystemExit(value)`` has, as a parent reads it:
    None is 0, a whole number its low byte (``sys.exit(256)`` ends with 0), anything else
    (a message) 1."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    return 1


def cell_magic(line: str, cell: str, run: Callable[[str], Any]) -> Any:
    """``%%explorer_capture OUT [--launches N] [--max-mb M]``: run the cell (``run``) with its
    launches recorded into ``OUT``; a short listing is printed after it."""
    words = shlex.split(line)
    options: dict[str, Any] = {}
    folder = ""
    while words:
        word = words.pop(0)
        if word in ("--launches", "--max-mb") and words:
            value = words.pop(0)
            try:
                if word == "--launches":
                    options["launches"] = int(value)
                else:
                    options["max_mb"] = float(value)
            except ValueError:
                raise CaptureError(f"{word} {value!r}: expected a number") from None
        elif not folder and not word.startswith("-"):
            folder = word
        else:
            raise CaptureError(
                f"%%explorer_capture: {word!r} was not expected; give "
                "%%explorer_capture OUT [--launches N] [--max-mb M]"
            )
    if not folder:
        raise CaptureError("%%explorer_capture needs a folder: %%explorer_capture OUT")
    with capture(folder, **options) as out:
        result = run(cell)
    from explorer.capture.folder import load_capture

    recorded = load_capture(out)
    print(f"explorer: {len(recorded.launches)} launches recorded into {out}")
    return result


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext explorer``: registers the cell magic ``%%explorer_capture``."""

    def explorer_capture(line: str, cell: str) -> Any:
        try:
            return cell_magic(line, cell, ipython.run_cell)
        except CaptureError as exc:
            print(f"explorer capture: {exc}", file=sys.stderr)
            return None

    ipython.register_magic_function(explorer_capture, "cell", "explorer_capture")
