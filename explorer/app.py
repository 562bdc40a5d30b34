"""QApplication bootstrap: ``kernel-explorer``, ``python main.py``."""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    multiprocessing.freeze_support()
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from explorer.gui.main_window import MainWindow
    from explorer.paths import resources_dir

    args = list(sys.argv if argv is None else [sys.argv[0], *argv])
    app = QApplication.instance() or QApplication(args)
    app.setApplicationName("OpenCL Kernel Explorer")
    app.setOrganizationName("OpenCL Kernel Explorer")
    app.setDesktopFileName("kernel-explorer")
    icon = resources_dir() / "icon.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    window = MainWindow()
    window.show()
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main())
