"""The action table: every command reachable from a menu, its shortcut shown beside it."""

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMenu, QStyleOptionMenuItem

from explorer.gui.actions import commands


def _menu_entries(window):
    """(menu title, action) for every item of every menu of the menu bar; the Lessons menu
    lists shipped session files, not commands."""
    for entry in window.menuBar().actions():
        if entry.menu().title() == "L&essons":
            continue
        for action in entry.menu().actions():
            if not action.isSeparator():
                yield entry.menu(), action


def test_every_command_is_in_a_menu_showing_its_shortcut(window):
    entries = list(_menu_entries(window))
    assert len(entries) == len(commands())
    for command in commands():
        found = [(m, a) for m, a in entries if a.objectName() == command.key]
        assert len(found) == 1, command.key
        menu, action = found[0]
        assert menu.title() == command.menu, command.key
        assert action.text() == command.text
        assert [s.toString() for s in action.shortcuts()] == [
            QKeySequence(s).toString() for s in command.shortcuts
        ], command.key
        if command.shortcuts:
            option = QStyleOptionMenuItem()
            QMenu.initStyleOption(menu, option, action)
            shown = option.text.split("\t")
            assert shown[-1] == QKeySequence(command.shortcuts[0]).toString(
                QKeySequence.SequenceFormat.NativeText
            ), command.key


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
