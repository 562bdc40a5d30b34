"""The entry of both executables of the PyInstaller bundle (see kernel-explorer.spec).

``kernel-explorer`` opens the window (``explorer.app.main``, as ``main.py`` does);
``kernel-explorer-cli`` is ``python -m explorer``: the command line, run exactly as
``explorer/__main__.py`` runs it. Which one is decided by the executable's own name.

A bundle holds no Python interpreter of its own: an executor's process is started by running
the same executable again (multiprocessing's "spawn", ``sys.executable``), so the very first
thing either one does is to hand such a start to multiprocessing, which runs the child's work
and exits, before any window or command line is looked at.

``capture`` runs the person's program with the person's own Python (the command after
``--``): the recorder is shipped as source files that Python imports as a package from the
capture bootstrap's folder. That program gets
the environment the person started the bundle with (kept by rthook_environment.py), not the
one the bundle made for itself; capture needs nothing of Qt. ``install-desktop`` from either
executable adds a menu entry that starts the window.
"""

from __future__ import annotations

import multiprocessing
import os
import sys

GUI_NAME = "kernel-explorer"
CLI_NAME = "kernel-explorer-cli"


def is_cli(executable: str) -> bool:
    """Whether ``executable`` is the bundle's command-line executable (``.exe`` on Windows)."""
    name = os.path.basename(executable).lower()
    return name == CLI_NAME or name == CLI_NAME + ".exe"


def restore_environment(person: dict[str, str] | None) -> None:
    """Make ``os.environ`` the person's environment again (None: leave it as it is)."""
    if person is None:
        return
    os.environ.clear()
    os.environ.update(person)


if __name__ == "__main__":
    multiprocessing.freeze_support()  # an executor's start (or its tracker's): runs it, exits
    if is_cli(sys.executable):
        import runpy

        if sys.argv[1:2] == ["capture"]:
            restore_environment(globals().get("_PERSON_ENVIRONMENT"))
        elif sys.argv[1:2] == ["install-desktop"]:
            # The menu entry must start the window: explorer.desktop names this executable
            # (sys.executable) in a bundle, so name the window's, beside it, instead.
            window = os.path.join(os.path.dirname(sys.executable), GUI_NAME)
            sys.executable = window + os.path.splitext(sys.executable)[1]  # .exe on Windows
        runpy.run_module("explorer", run_name="__main__", alter_sys=True)  # sys.exit()s
    else:
        from explorer.app import main

        sys.exit(main())
