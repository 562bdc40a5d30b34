"""A first start a person can use: the window fits the screen, Alt+letter opens the menu
a person expects."""

import re

from PySide6.QtWidgets import QLabel


def mnemonic(text: str) -> str | None:
    found = re.search(r"&([^&])", text)
    return found[1].lower() if found else None


def test_no_field_label_takes_a_menus_alt_letter(window):
    menus = {mnemonic(a.text()): a for a in window.menuBar().actions()}
    assert set(menus) >= {"f", "r", "v", "h"}
    fields = {
        mnemonic(label.text()): label.text()
        for label in window.findChildren(QLabel)
        if label.isVisibleTo(window) and mnemonic(label.text())
    }
    assert fields, "the configuration panel labels its fields with mnemonics"
    clash = {letter: fields[letter] for letter in set(menus) & set(fields)}
    assert clash == {}, f"these field labels take a menu's Alt+letter: {clash}"


def test_a_first_start_fits_a_small_screen():
    from PySide6.QtCore import QSize

    from explorer.gui.main_window import first_size, fits

    assert first_size(QSize(1920, 1050)) == QSize(1500, 950)
    assert fits(QSize(1500, 950), QSize(1920, 1050))
    small = QSize(1280, 720)
    assert first_size(small) == small
    assert not fits(first_size(small), small)  # so the window starts maximised there


def test_the_app_maximises_a_window_that_would_not_fit_and_not_one_that_would(window, qtbot):
    screen = window.screen().availableGeometry().size()
    window.resize(screen.width() // 2, screen.height() // 2)
    window.show_fitted()
    qtbot.waitExposed(window)
    assert not window.isMaximized()

    window.hide()
    window.resize(screen)  # with its title bar it would hang below the screen's edge
    window.show_fitted()
    qtbot.waitUntil(window.isMaximized, timeout=3000)


def test_garbage_is_collected_on_the_gui_thread_while_the_worker_runs(window, qtbot):
    """A cycle freed on the worker thread can take Qt objects with it there, which hangs the
    app; while a window lives, its garbage goes on the GUI thread, whatever thread made it."""
    import gc
    import threading

    from tests.gui.conftest import run_and_wait

    freed_on: list[str] = []

    class Cycle:
        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            freed_on.append(threading.current_thread().name)

    def make_garbage() -> None:
        for _ in range(50):
            Cycle()
        allocations = [[] for _ in range(20000)]  # enough to start a collection here
        del allocations

    assert not gc.isenabled()
    maker = threading.Thread(target=make_garbage, name="not-the-gui")
    maker.start()
    maker.join()
    run_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: len(freed_on) == 50, timeout=10000)
    assert set(freed_on) == {threading.main_thread().name}


def test_the_gui_threads_collector_walks_every_object_only_when_the_oldest_has_grown(
    monkeypatch,
):
    """Like the interpreter's own collector: counts past every threshold collect the middle
    generation; the oldest (every object the application holds) only once it has grown by a
    quarter since its last collection."""
    from explorer.gui import worker

    collected: list[int] = []
    oldest = [[object()] * 1000]

    class FakeGc:
        get_threshold = staticmethod(lambda: (700, 10, 10))
        get_count = staticmethod(lambda: (701, 11, 11))
        get_objects = staticmethod(lambda generation: oldest[0])
        collect = staticmethod(collected.append)

    monkeypatch.setattr(worker, "gc", FakeGc)
    monkeypatch.setattr(worker._GuiThreadCollection, "long_lived", 0)
    worker._GuiThreadCollection.collect()
    assert collected == [2]  # nothing collected yet: everything is new
    oldest[0] = oldest[0] + [object()] * 200
    worker._GuiThreadCollection.collect()
    assert collected == [2, 1]  # grown by a fifth
    oldest[0] = oldest[0] + [object()] * 100
    worker._GuiThreadCollection.collect()
    assert collected == [2, 1, 2]  # by three tenths
