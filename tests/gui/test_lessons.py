"""Lessons: shipped sessions in a menu, each opening a configuration worth showing, traced."""

from explorer.paths import resources_dir
from explorer.session import load_session, resolve_variant


def test_every_shipped_lesson_loads_and_names_a_catalog_kernel():
    paths = sorted((resources_dir() / "lessons").glob("*.kexp.json"))
    assert len(paths) >= 5
    for path in paths:
        session = load_session(path)
        assert resolve_variant(session).family == session.family


def test_the_lessons_menu_opens_and_traces_a_lesson(window, qtbot):
    titles = list(window.lessons)
    assert titles and all(t[0].isdigit() for t in titles)
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus.index("&Lessons") == len(menus) - 2  # before Help
    missing_barrier = next(t for t in titles if "barrier" in t)
    window.lessons[missing_barrier].trigger()
    assert window.model.variant.id == "seed004-local-vector"
    qtbot.waitUntil(lambda: window.state.traced is not None, timeout=120000)
    kinds = {f.kind for f in window.state.traced.analysis.findings}
    assert "race" in kinds  # mem_fence where a barrier is needed: seen, not guessed


def test_the_iou_lesson_traces_around_its_work_group(window, qtbot):
    window.controllers.traces.trace_budget = 4 << 20  # a few groups: quick
    lesson = next(t for t in window.lessons if "768" in t)
    window.lessons[lesson].trigger()
    qtbot.waitUntil(lambda: window.state.playback is not None, timeout=240000)
    assert window.state.playback.group == (20, 18, 0)


def test_a_lessons_number_opens_it_from_the_open_menu(window, qtbot, monkeypatch):
    """Keyboard only: Alt+L opens the menu, and the number written before a lesson's title
    chooses it (the digit is its mnemonic, as the menu shows it)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMenu

    opened: list[str] = []
    monkeypatch.setattr(window.controllers.sessions, "open_lesson", opened.append)
    window.show()
    qtbot.waitExposed(window)
    menu = next(
        a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "Lessons"
    )
    assert isinstance(menu, QMenu)
    menu.popup(window.mapToGlobal(window.rect().center()))
    qtbot.waitExposed(menu)
    qtbot.keyClick(menu, Qt.Key.Key_4)
    assert len(opened) == 1 and opened[0].endswith(".kexp.json")
    assert "4-" in opened[0].rsplit("/", 1)[-1]
    assert [a.text() for a in menu.actions()][3].startswith("&4 · ")


def test_a_session_whose_group_and_phase_the_launch_lacks_says_what_is_shown_instead(
    window, qtbot, monkeypatch, tmp_path
):
    """A session edited to name work-group (500, 0) and phase 99999 of a 4×4-group launch
    was shown at group (0, 0, 0), phase 0, without a word."""
    import json

    from tests.gui.conftest import answer_file_dialogs, trigger

    lesson = json.loads(
        (resources_dir() / "lessons" / "1-naive-streams-from-global-memory.kexp.json").read_text()
    )
    lesson["view"] = {"tab": "grid", "group": [500, 0], "phase": 99999}
    path = tmp_path / "edited.kexp.json"
    path.write_text(json.dumps(lesson))
    answer_file_dialogs(monkeypatch, path)
    trigger(window, "Open session…")
    qtbot.waitUntil(lambda: window.state.playback is not None, timeout=120000)
    said = window.statusBar().currentMessage()
    assert said.startswith("Trace: ")
    assert "this launch has no work-group (500, 0, 0) and no phase 99999" in said
    assert said.endswith("work-group (0, 0, 0) is shown")
