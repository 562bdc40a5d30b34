import pytest


@pytest.fixture
def settings(tmp_path):
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(qtbot, settings):
    from explorer.gui.main_window import MainWindow

    w = MainWindow(settings=settings)
    qtbot.addWidget(w)
    qtbot.waitUntil(lambda: w.model.device is not None, timeout=60000)
    yield w
    w.close()


def run_and_wait(qtbot, window, timeout=120000):
    before = len(window.history)
    window.run_action.trigger()
    qtbot.waitUntil(lambda: len(window.history) > before, timeout=timeout)
    return window.last_result
