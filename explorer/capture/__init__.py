"""Capturing the launches of a user's own PyOpenCL program, and replaying any of them.

``capture OUT -- python host.py`` runs the program unchanged with the recorder loaded into it
(:mod:`watch`; what runs in the program's own process is :mod:`bootstrap`); the folder
(:mod:`folder`, ``docs/capture.md``) holds every launch with its buffers before and after it.
:func:`folder.load_capture` reads it, and :func:`replay.launch_variant` turns one launch into a
kernel of the ``custom`` form that runs, traces and is checked like any other, judged against
what it left in the original run.

This package imports none of its modules: the engine imports :mod:`bootstrap` (the processor
fix PoCL needs), which must bring nothing of the capture layer with it. Each name is imported
from its module.
"""

import contextlib
import os
import sys
import types
from pathlib import Path


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
