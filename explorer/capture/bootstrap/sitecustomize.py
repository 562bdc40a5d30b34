"""Started by Python in every process of a program that ``python -m explorer capture`` runs
(this folder is first on the program's ``PYTHONPATH``): imports this folder as a package of a
name no program uses, has its recorder start when the program imports pyopencl (a Python that
never does, a wrapper or a helper, imports nothing more), and runs the ``sitecustomize``
Python would have run without this one. The folder then leaves ``sys.path``, which is the
program's own again: its modules are reached through the package only.

Imported under any other name (as ``explorer.capture.bootstrap.sitecustomize``), it does
nothing.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

TYPE_CHECKING = False  # typing is not imported at every Python's start
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

# The name this folder's package has in the program (``explorer.capture.bootstrap`` in the
# explorer): no program's module, nor the explorer's should the program import it too.
PACKAGE = "_explorer_capture_bootstrap"


def _folder() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def _import_package() -> None:
    """This folder as the package :data:`PACKAGE`: its modules are then imported by name
    (``PACKAGE.recorder``), and import each other relatively."""
    here = _folder()
    spec = importlib.util.spec_from_file_location(
        PACKAGE, os.path.join(here, "__init__.py"), submodule_search_locations=[here]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"{here} is not a package")
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    spec.loader.exec_module(package)


class _OnImport:
    """Imports the recorder when the program imports pyopencl, and has it wrap pyopencl
    (:class:`recorder._PatchOnImport`), with the settings ``capture`` gave the program's
    environment at its start. A finder of ``sys.meta_path``, there until then."""

    def __init__(self, environ: dict[str, str]) -> None:
        self.environ = environ

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != "pyopencl":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        try:
            recorder = importlib.import_module(f"{PACKAGE}.recorder")
            hook = recorder.install_from_environment(self.environ, wait=True)
            return None if hook is None else hook.find_spec(fullname, path, target)
        except Exception as exc:  # never stop the program: say why nothing is recorded
            print(f"explorer capture: not recording ({exc})", file=sys.stderr)
            return None


def _start_recording() -> None:
    if not os.environ.get("EXPLORER_CAPTURE_DIR"):
        return
    try:
        _import_package()
        names = sys.modules[PACKAGE].ENVIRONMENT
        environ = {name: os.environ[name] for name in names if name in os.environ}
        if "pyopencl" in sys.modules:  # imported before this ran: recorded from here on
            importlib.import_module(f"{PACKAGE}.recorder").install_from_environment(environ)
        else:
            sys.meta_path.insert(0, _OnImport(environ))
    except Exception as exc:  # never stop the program: say why nothing is recorded
        print(f"explorer capture: not recording ({exc})", file=sys.stderr)


def _leave_the_path() -> None:
    """Take this folder off ``sys.path`` (its modules would shadow a program's ``recorder``),
    and import the ``sitecustomize`` that lies further on it (a distribution's own)."""
    here = _folder()
    me = sys.modules.pop("sitecustomize", None)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    try:
        importlib.import_module("sitecustomize")
    except ImportError:
        if me is not None:
            sys.modules["sitecustomize"] = me


if __name__ == "sitecustomize":
    _start_recording()
    _leave_the_path()
