"""Every command of the window, declared once: text, shortcuts, tip, menu and handler.

The window builds its menus, toolbar and QActions from :data:`COMMANDS`; a command is added,
renamed or rebound here and nowhere else. ``handler`` names a controller and its method
(``"runs.run"``); the window resolves it when it wires the controllers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu


@dataclass(frozen=True)
class Command:
    """One user command. A new ``section`` within a menu starts after a separator."""

    key: str
    text: str
    menu: str
    handler: str
    shortcuts: tuple[str, ...] = ()
    tip: str = ""
    section: int = 0
    toolbar: bool = False
    enabled: bool = True  # at start; controllers enable it when it can act


MENUS = ("&File", "&Run", "&View", "&Help")

COMMANDS: tuple[Command, ...] = (
    # -- File ----------------------------------------------------------------------------
    Command(
        "open_kernel",
        "&Open kernel…",
        "&File",
        "kernels.open_kernel_dialog",
        ("Ctrl+O",),
        "Open your own .cl file with a catalog header",
    ),
    Command(
        "open_image",
        "Open &image as input…",
        "&File",
        "kernels.open_image_dialog",
        ("Ctrl+I",),
        "Use a picture as B (matmul) or IN (transpose)",
    ),
    Command(
        "open_session",
        "Open s&ession…",
        "&File",
        "sessions.open_dialog",
        ("Ctrl+Alt+O",),
        "Open a .kexp.json session: its configuration, device and view",
        section=1,
    ),
    Command(
        "save_session",
        "&Save session…",
        "&File",
        "sessions.save_dialog",
        ("Ctrl+S",),
        "Save the configuration and the view as a .kexp.json session",
        section=1,
    ),
    Command(
        "export_view_png",
        "Export view as &PNG…",
        "&File",
        "exports.view_png_dialog",
        ("Ctrl+E",),
        "The page on screen as a PNG image",
        section=2,
    ),
    Command(
        "export_view_svg",
        "Export view as S&VG…",
        "&File",
        "exports.view_svg_dialog",
        ("Ctrl+Shift+E",),
        "The page on screen as a scalable SVG drawing",
        section=2,
    ),
    Command(
        "export_timing_png",
        "Export timing chart as PN&G…",
        "&File",
        "exports.timing_png_dialog",
        tip="The timing bars as a PNG image",
        section=2,
    ),
    Command(
        "export_gif",
        "Export animation as GI&F…",
        "&File",
        "exports.animation_gif_dialog",
        ("Ctrl+Shift+G",),
        "Every step of the traced animation as a looping GIF",
        section=2,
    ),
    Command(
        "export_mp4",
        "Export animation as MP&4…",
        "&File",
        "exports.animation_mp4_dialog",
        tip="Every step of the traced animation as an MP4 video for slides",
        section=2,
    ),
    Command(
        "export_frames",
        "Export animation as PNG fra&mes…",
        "&File",
        "exports.animation_frames_dialog",
        tip="Every step of the traced animation as numbered PNG files",
        section=2,
    ),
    Command(
        "export_csv",
        "Export timing history as &CSV…",
        "&File",
        "exports.history_csv_dialog",
        tip="Every run of this session, one row each",
        section=3,
    ),
    Command(
        "export_json",
        "Export timing history as &JSON…",
        "&File",
        "exports.history_json_dialog",
        tip="Every run of this session as the records of `run --json`",
        section=3,
    ),
    Command("quit", "&Quit", "&File", "window.close", ("Ctrl+Q",), "Close the window", section=4),
    # -- Run -----------------------------------------------------------------------------
    Command(
        "run", "&Run", "&Run", "runs.run", ("Ctrl+R",), "Run this configuration", enabled=False
    ),
    Command(
        "compare",
        "&Compare all variants",
        "&Run",
        "runs.compare_all",
        ("Ctrl+Shift+R",),
        "Run every variant of the family at this size, side by side",
        toolbar=True,
        enabled=False,
    ),
    Command(
        "trace",
        "&Trace",
        "&Run",
        "runs.trace",
        ("Ctrl+T",),
        "Record every access and barrier; list findings",
        toolbar=True,
        enabled=False,
    ),
    Command(
        "run_anyway",
        "Run &anyway, outside the kernel's constraints",
        "&Run",
        "runs.run_anyway",
        ("Ctrl+Alt+R",),
        "Run a configuration that only the kernel's own constraints refuse, to show its bug "
        "(the result is marked as outside them; the device's limits still hold)",
        enabled=False,
    ),
    Command(
        "trace_anyway",
        "Trace an&yway, outside the kernel's constraints",
        "&Run",
        "runs.trace_anyway",
        ("Ctrl+Alt+T",),
        "Trace a configuration that only the kernel's own constraints refuse",
        enabled=False,
    ),
    Command(
        "oclgrind",
        "Check with &Oclgrind",
        "&Run",
        "runs.check_with_oclgrind",
        ("Ctrl+Shift+O",),
        "Run this configuration on Oclgrind with its race and uninitialised-read checks",
        enabled=False,
    ),
    Command(
        "cancel",
        "Ca&ncel",
        "&Run",
        "runs.cancel",
        ("Esc",),
        "Stop what is running (in presenter mode Esc leaves presenter mode first)",
        section=1,
        toolbar=True,
        enabled=False,
    ),
    # -- View ----------------------------------------------------------------------------
    Command(
        "presenter",
        "&Presenter mode",
        "&View",
        "presenter.toggle",
        ("F11", "F5"),
        "Full screen, large type: the execution, the result and the timing bars",
    ),
    Command(
        "leave_presenter",
        "&Leave presenter mode",
        "&View",
        "presenter.leave",
        ("Esc",),
        "Back to the window with its menus and tabs",
        enabled=False,
    ),
    Command(
        "tour",
        "Guided &tour",
        "&View",
        "presenter.start_tour",
        ("Ctrl+G",),
        "naive → tiled → register-blocked matmul on the IOU input; Space advances",
    ),
    Command(
        "space",
        "Next stage / play–pause",
        "&View",
        "presenter.space",
        ("Space",),
        "In presenter mode: the tour's next stage, else play or pause the animation",
        section=1,
        enabled=False,
    ),
    Command(
        "step_forward",
        "Step &forward",
        "&View",
        "presenter.step_forward",
        ("Right",),
        "In presenter mode: the animation's next step",
        section=1,
        enabled=False,
    ),
    Command(
        "step_back",
        "Step &back",
        "&View",
        "presenter.step_back",
        ("Left",),
        "In presenter mode: the animation's previous step",
        section=1,
        enabled=False,
    ),
    Command(
        "colour_cells",
        "&Colour cells by…",
        "&View",
        "window.cycle_colouring",
        ("Ctrl+Shift+C",),
        "The execution view's cells: this step's accesses, then by value, then by the "
        "work-item that last touched them",
        section=1,
    ),
    # -- Help ----------------------------------------------------------------------------
    Command("about", "&About", "&Help", "window.about", tip="What this program is"),
)

# Only one of these is enabled at a time; they share Esc (see PresenterController).
ESCAPE_KEYS = ("cancel", "leave_presenter")


def build_actions(
    window: QMainWindow, resolve: Callable[[str], Callable[[], object]]
) -> dict[str, QAction]:
    """A QAction per command, added to the window (so its shortcut works while the menus are
    hidden) and to its menu; ``resolve`` turns a handler name into the callable."""
    menus: dict[str, QMenu] = {}
    for title in MENUS:
        menu = QMenu(title, window)
        window.menuBar().addMenu(menu)
        menus[title] = menu
    actions: dict[str, QAction] = {}
    last_section: dict[str, int] = {}
    for command in COMMANDS:
        action = QAction(command.text, window)
        action.setObjectName(command.key)
        action.setShortcuts([QKeySequence(s) for s in command.shortcuts])
        action.setToolTip(command.tip or command.text.replace("&", ""))
        action.setStatusTip(command.tip)
        action.setEnabled(command.enabled)
        handler = resolve(command.handler)
        action.triggered.connect(lambda _checked=False, h=handler: h())
        window.addAction(action)
        menu = menus[command.menu]
        if command.menu in last_section and last_section[command.menu] != command.section:
            menu.addSeparator()
        last_section[command.menu] = command.section
        menu.addAction(action)
        actions[command.key] = action
    return actions
