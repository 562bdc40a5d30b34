"""PyInstaller runtime hook of the bundle, run before PyInstaller's own (see
kernel-explorer.spec): no Qt in the processes multiprocessing starts.

A bundle starts an executor's process, and multiprocessing's resource tracker, by running the
bundle's executable again; every runtime hook runs in them too, and PySide6's imports
``PySide6.QtCore`` (to register a qt.conf) in each. Neither process ever uses Qt (the engine
never imports it), so there the import is refused: PySide6's hook then does nothing, the
process starts that much sooner, and anything that would still reach for Qt in an executor
fails loudly instead of loading it.
"""


def _refuse_qt_in_workers() -> None:
    import sys

    args = sys.argv[1:]
    executor = "--multiprocessing-fork" in args
    tracker = len(args) >= 2 and args[-2] == "-c" and "multiprocessing" in args[-1]
    if executor or tracker:
        sys.modules["PySide6.QtCore"] = None  # type: ignore[assignment]  # import refused


_refuse_qt_in_workers()
del _refuse_qt_in_workers
