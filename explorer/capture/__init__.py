"""Capturing the launches of a user's own PyOpenCL program, and replaying any of them.

``capture OUT -- python host.py`` runs the program unchanged with :mod:`recorder` loaded into
it (:mod:`watch`); the folder (:mod:`folder`, ``docs/capture.md``) holds every launch with its
buffers before and after it. :func:`load_capture` reads it, and :func:`launch_variant` turns
one launch into a kernel of the ``custom`` form (:mod:`replay`) that runs, traces and is checked
like any other, judged against what it left in the original run.
"""

import contextlib
import os
import sys
import types
from pathlib import Path

from explorer.capture.folder import (
    Capture,
    CapturedArg,
    CapturedLaunch,
    CapturedProgram,
    CaptureError,
    load_capture,
)
from explorer.capture.includes import FLAG as ALLOW_OUTSIDE_FLAG
from explorer.capture.includes import capture_outside
from explorer.capture.replay import Replay, launch_variant, replay, save_launch

__all__ = [
    "ALLOW_OUTSIDE_FLAG",
    "Capture",
    "CaptureError",
    "CapturedArg",
    "CapturedLaunch",
    "CapturedProgram",
    "Replay",
    "capture_outside",
    "launch_variant",
    "load_capture",
    "replay",
    "save_launch",
]


class _CallableModule(types.ModuleType):
    """``explorer.capture("out")`` is :func:`explorer.capture.inprocess.capture`: the package
    is called as the context manager it names."""

    def __call__(
        self, out: str | os.PathLike[str], *, launches: int | None = None,
        max_mb: float | None = None,
    ) -> contextlib.AbstractContextManager[Path]:  # fmt: skip
        from explorer.capture.inprocess import capture

        return capture(out, launches=launches, max_mb=max_mb)


sys.modules[__name__].__class__ = _CallableModule
