"""Started by Python in every process of a program that ``python -m explorer capture`` runs
(this folder is first on the program's ``PYTHONPATH``): loads the recorder beside this folder
by its path, so nothing of the explorer needs to be importable by the program's Python, then
runs the ``sitecustomize`` Python would have run without this one.

Imported under any other name (a test that imports every module), it does nothing.
"""

from __future__ import annotations

import importlib.util
import os
import sys


def _start_recording() -> None:
    if not os.environ.get("EXPLORER_CAPTURE_DIR"):
        return
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(os.path.dirname(here), "recorder.py")
    spec = importlib.util.spec_from_file_location("_explorer_capture_recorder", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        module.install_from_environment()
    except Exception as exc:  # never stop the program: say why nothing is recorded
        print(f"explorer capture: not recording ({exc})", file=sys.stderr)


def _run_the_next_one() -> None:
    """Import the ``sitecustomize`` that lies further on ``sys.path`` (a distribution's own)."""
    here = os.path.dirname(os.path.abspath(__file__))
    saved = list(sys.path)
    me = sys.modules.pop("sitecustomize", None)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    try:
        importlib.import_module("sitecustomize")
    except ImportError:
        if me is not None:
            sys.modules["sitecustomize"] = me
    finally:
        sys.path[:] = saved


if __name__ == "sitecustomize":
    _start_recording()
    _run_the_next_one()
