"""OpenCL Kernel Explorer: run, verify, time and trace OpenCL kernels, and watch them work.

``with explorer.capture("out"): ...`` records the kernel launches of this process
(``explorer.capture.inprocess``); ``%load_ext explorer`` gives notebooks ``%%explorer_capture
out``. Both import what they need when used: importing ``explorer`` imports nothing more.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at all: ``capture``'s own process needs none
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext explorer``: the cell magic ``%%explorer_capture OUT``."""
    # Imported by name when used: the engine imports this package (for its version), and
    # nothing here may lay it over the capture layer.
    import importlib

    importlib.import_module("explorer.capture.inprocess").load_ipython_extension(ipython)


def __getattr__(name: str) -> Any:
    # ``explorer.capture`` before anything imported the package: imported now (it is callable).
    if name == "capture":
        import importlib

        return importlib.import_module("explorer.capture")
    raise AttributeError(f"module 'explorer' has no attribute {name!r}")
