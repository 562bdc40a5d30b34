"""The window's own commands: quit, about, the keyboard shortcuts, and how the execution view
colours its cells."""

from __future__ import annotations

import html

from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QMessageBox,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from explorer.gui.actions import Action, Actions, commands, key_names
from explorer.gui.controllers.roles import Animation

ABOUT = "See how a GPU kernel really works: run, verify, time and trace OpenCL kernels."


class WindowCommands:
    """Closes ``window``, says what the program is, cycles the cells' colouring."""

    def __init__(self, window: QWidget, execution: Animation) -> None:
        self.window = window
        self.execution = execution
        self.keys_dialog: QDialog | None = None

    def quit(self) -> None:
        self.window.close()

    def about(self) -> None:
        QMessageBox.about(self.window, "OpenCL Kernel Explorer", ABOUT)

    def show_keys(self) -> None:
        """Every command with its keys, menu by menu, in a window that stays open beside the
        main one."""
        if self.keys_dialog is None:
            dialog = QDialog(self.window)
            dialog.setWindowTitle("Keyboard shortcuts")
            table = QLabel(shortcuts_table())
            table.setObjectName("shortcuts")
            scroll = QScrollArea()  # a 1280×720 screen is shorter than the list
            scroll.setWidget(table)
            scroll.setWidgetResizable(True)
            note = QLabel(STEPPING)
            note.setWordWrap(True)
            layout = QVBoxLayout(dialog)
            layout.addWidget(scroll, 1)
            layout.addWidget(note)
            height = self.window.screen().availableGeometry().height()
            dialog.resize(560, min(height - 120, table.sizeHint().height() + 140))
            self.keys_dialog = dialog
        self.keys_dialog.show()
        self.keys_dialog.raise_()

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
    Action(
        "keys_help",
        "&Keyboard shortcuts",
        "&Help",
        WindowCommands.show_keys,
        ("F1",),
        "Every command's keys; the stepping keys and where they work",
    ),
    Action("about", "&About", "&Help", WindowCommands.about, tip="What this program is"),
)

STEPPING = (
    "The stepping keys work wherever the Execution view is on screen and no text field has the "
    "focus (click the animation to leave one); in presenter mode, wherever the focus is."
)


def shortcuts_table() -> str:
    """The commands that have keys, menu by menu, as an HTML table."""
    rows = []
    menu = ""
    for action in commands():
        keys = action.keys or action.shortcuts
        if not keys:
            continue
        if action.menu != menu:
            menu = action.menu
            rows.append(f"<tr><td colspan=2><b>{menu.replace('&', '')}</b></td></tr>")
        text = html.escape(action.text.replace("&", ""))
        rows.append(f"<tr><td>{text}</td><td>{html.escape(key_names(keys))}</td></tr>")
    return f"<table cellspacing=4>{''.join(rows)}</table>"
