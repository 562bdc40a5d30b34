"""The window's own commands: quit, about, and how the execution view colours its cells."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from explorer.gui.actions import Action, Actions
from explorer.gui.controllers.roles import Animation

ABOUT = "See how a GPU kernel really works: run, verify, time and trace OpenCL kernels."


class WindowCommands:
    """Closes ``window``, says what the program is, cycles the cells' colouring."""

    def __init__(self, window: QWidget, execution: Animation) -> None:
        self.window = window
        self.execution = execution

    def quit(self) -> None:
        self.window.close()

    def about(self) -> None:
        QMessageBox.about(self.window, "OpenCL Kernel Explorer", ABOUT)

    def cycle_colouring(self) -> None:
        """The execution view's cells: by step, by value, by who touched them."""
        self.execution.cycle_colouring()


ACTIONS = Actions(
    WindowCommands,
    Action(
        "quit",
        "&Quit",
        "&File",
        WindowCommands.quit,
        ("Ctrl+Q",),
        "Close the window",
        section=4,
    ),
    Action(
        "colour_cells",
        "&Colour cells by…",
        "&View",
        WindowCommands.cycle_colouring,
        ("Ctrl+Shift+C",),
        "The execution view's cells: this step's accesses, then by value, then by the "
        "work-item that last touched them",
        section=1,
    ),
    Action("about", "&About", "&Help", WindowCommands.about, tip="What this program is"),
)
