"""Capturing the launches of a user's own PyOpenCL program, and replaying any of them.

``capture OUT -- python host.py`` runs the program unchanged with :mod:`recorder` loaded into
it (:mod:`watch`); the folder (:mod:`folder`, ``docs/capture.md``) holds every launch with its
buffers before and after it. :func:`load_capture` reads it, and :func:`launch_variant` turns
one launch into a kernel of the ``custom`` form (:mod:`replay`) that runs, traces and is checked
like any other, judged against what it left in the original run.
"""

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
