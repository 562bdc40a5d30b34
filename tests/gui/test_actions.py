"""The action table: every command reachable from a menu, its shortcut shown beside it."""

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMenu, QStyleOptionMenuItem

from explorer.gui.actions import commands


def _menu_entries(window):
    """(menu title, action) for every item of every menu of the menu bar; the Lessons menu
    lists shipped session files, and the Exercises menu the shipped exercises before its
    commands: those are not commands."""
    for entry in window.menuBar().actions():
        if entry.menu().title() == "&Lessons":
            continue
        for action in entry.menu().actions():
            if not action.isSeparator() and not action.objectName().startswith("exercise:"):
                yield entry.menu(), action


def test_every_command_is_in_a_menu_showing_its_shortcut(window):
    entries = list(_menu_entries(window))
    assert len(entries) == len(commands())
    for command in commands():
        found = [(m, a) for m, a in entries if a.objectName() == command.key]
        assert len(found) == 1, command.key
        menu, action = found[0]
        assert menu.title() == command.menu, command.key
        assert action.text().split("\t")[0] == command.text
        assert [s.toString() for s in action.shortcuts()] == [
            QKeySequence(s).toString() for s in command.shortcuts
        ], command.key
        native = QKeySequence.SequenceFormat.NativeText
        if command.shortcuts:
            option = QStyleOptionMenuItem()
            QMenu.initStyleOption(menu, option, action)
            shown = option.text.split("\t")
            assert shown[-1] == QKeySequence(command.shortcuts[0]).toString(native), command.key
        if command.keys:  # stepping keys: shown, never a window shortcut (see stage_keys)
            assert not command.shortcuts, command.key
            option = QStyleOptionMenuItem()
            QMenu.initStyleOption(menu, option, action)
            named = option.text.split("\t")[-1]
            assert QKeySequence(command.keys[0]).toString(native) in named, command.key


def test_the_file_menu_reaches_sessions_and_every_export(window):
    file_menu = next(m for m, _ in _menu_entries(window) if m.title() == "&File")
    texts = [a.text().replace("&", "") for a in file_menu.actions() if not a.isSeparator()]
    for wanted in (
        "Save session…",
        "Open session…",
        "Export view as PNG…",
        "Export view as SVG…",
        "Export animation as GIF…",
        "Export animation as PNG frames…",
        "Export timing history as CSV…",
        "Export timing history as JSON…",
    ):
        assert wanted in texts


def test_no_two_enabled_actions_share_a_shortcut(window):
    """Qt fires neither of two enabled actions on one key: Esc must belong to one at a time."""
    for presenting in (False, True, False):
        if window.state.presenting != presenting:
            window.commands["presenter"].trigger()
        enabled = [a for a in window.commands.values() if a.isEnabled()]
        keys = [s.toString() for a in enabled for s in a.shortcuts()]
        assert len(keys) == len(set(keys)), presenting
        assert ("Esc" in keys) == presenting  # idle: Esc has nothing to cancel


ONE_FILE = '''
"""A command of one's own: its text, menu, key, what it runs and when it can."""

from explorer.gui.actions import Action, Actions
from explorer.gui.controllers.window_commands import WindowCommands

CALLS = []


def shout(commands: WindowCommands) -> None:
    CALLS.append(commands)


ACTIONS = Actions(
    WindowCommands,
    Action(
        "shout",
        "S&hout",
        "&Help",
        shout,
        ("Ctrl+Shift+H",),
        "Say the result out loud",
        enabled_when=lambda app: app.state.result is not None,
    ),
)
'''


def test_a_menu_command_is_one_file(qtbot, settings, tmp_path, monkeypatch):
    """An action declared in a module of its own appears in its menu with its key, runs its
    callable from the menu and from the key, and is greyed out while its predicate is
    false."""
    import importlib

    from PySide6.QtCore import Qt

    from explorer.gui import actions
    from explorer.gui.main_window import MainWindow
    from tests.gui.controllers.fakes import result

    package = tmp_path / "my_commands"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "shout.py").write_text(ONE_FILE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(actions, "PACKAGES", (*actions.PACKAGES, "my_commands"))
    calls = importlib.import_module("my_commands.shout").CALLS

    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    help_menu = next(m for m, _ in _menu_entries(window) if m.title() == "&Help")
    item = next(a for a in help_menu.actions() if a.text() == "S&hout")
    option = QStyleOptionMenuItem()
    QMenu.initStyleOption(help_menu, option, item)
    assert option.text.split("\t")[-1] == QKeySequence("Ctrl+Shift+H").toString(
        QKeySequence.SequenceFormat.NativeText
    )
    assert not item.isEnabled()  # no result yet
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # keys reach a window's shortcuts once it is active
    shift_ctrl = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(window, Qt.Key.Key_H, shift_ctrl)
    assert calls == []
    window.state.result = result()  # a run came back: the predicate holds
    assert item.isEnabled()
    item.trigger()
    qtbot.keyClick(window, Qt.Key.Key_H, shift_ctrl)
    assert calls == [window.controllers.window] * 2
    window.state.result = None
    assert not item.isEnabled()
    window.close()


def test_each_command_is_enabled_exactly_when_it_can_act():
    """The predicates declared beside the commands, read over a state and a model."""
    from explorer.engine.records import Refusal
    from explorer.gui.actions import AppContext
    from explorer.gui.model import ConfigModel
    from explorer.gui.state import AppState
    from tests.gui.controllers.fakes import device

    state, model = AppState(), ConfigModel()
    context = AppContext(state, model)

    def enabled() -> set[str]:
        return {c.key for c in commands() if c.enabled(context)}

    always = {
        "open_kernel", "open_image", "open_capture", "open_session", "save_session",
        "export_view_png", "export_view_svg", "export_timing_png", "export_gif", "export_mp4",
        "export_frames",
        "export_csv", "export_json", "quit", "presenter", "tour", "colour_cells", "about",
        "keys_help", "save_kernel_copy", "next_exercise", "add_host", "forget_host",
        "next_finding", "previous_finding",
        "each_line", "loop", "warp", "heat_map", "faster", "slower",  # the animation's switches
        "full_digits",  # the followed work-item's values in full: a switch too
    }  # fmt: skip
    tabs = {f"tab_{page}" for page in ("result", "execution", "timing", "source", "findings")}
    tabs |= {"tab_roofline", "tab_sweep"}  # none in presenter mode: no tabs there
    always |= tabs
    assert enabled() == always  # no device yet, nothing valid, nothing running
    model.set_devices([device()], device().key)
    assert enabled() == always | {"compare"}
    state.runnable = True
    assert enabled() == always | {"compare", "run", "trace", "compare_trace"}
    state.runnable, state.refusal = False, Refusal("L0 == TS", "", overridable=True)
    assert enabled() == always | {"compare", "run_anyway", "trace_anyway"}
    state.refusal = Refusal("local size 4096 > 1024", "")  # the device's own limit
    assert enabled() == always | {"compare"}
    state.working = True
    assert "cancel" in enabled()
    state.presenting = True  # Esc cancels the work first: one action for the key
    keys = {"space", "step_forward", "step_back"}
    assert enabled() == (always - tabs) | {"compare", "cancel"} | keys
    state.working = False  # then Esc leaves presenter mode
    assert enabled() == (always - tabs) | {"compare", "leave_presenter"} | keys
    state.working = True
    state.presenting, state.playback = False, object()  # an animation to step
    stepping = keys | {
        "first_step", "last_step", "next_phase", "previous_phase", "next_line", "previous_line",
        "ten_phases_on", "ten_phases_back", "go_to_group", "go_to_work_item",
        "work_item_left", "work_item_right", "work_item_up", "work_item_down",
    }  # fmt: skip
    assert enabled() == always | {"compare"} | stepping | {"cancel"}
    state.playback = None
    model.set_devices([device(), device(platform="Oclgrind", index=1)], device().key)
    assert "oclgrind" in enabled()
    on_exercise = {"exercise_hint", "check_exercise", "show_solution"}
    assert not on_exercise & enabled()
    state.exercise = "index-map"  # an exercise open: its hint, check and solution
    assert on_exercise <= enabled()
