import pytest


@pytest.fixture
def settings(tmp_path):
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture(scope="session")
def kept_executor():
    """One executor process that outlives the windows of a test run: starting one (a Python
    with numpy and PyOpenCL, then device discovery) for each of some seventy windows costs
    more than the tests themselves. A window's close does not stop it; a cancel, a crash or
    a timeout still discards its process, and the next request starts a fresh one."""
    from explorer.engine.executor import Executor

    class Kept(Executor):
        def close(self) -> None:
            pass

    kept = Kept()
    yield kept
    Executor.close(kept)


@pytest.fixture(autouse=True)
def _windows_share_the_kept_executor(kept_executor, monkeypatch):
    """Every window a GUI test opens, through ``window`` or its own ``MainWindow``, runs on
    the kept process (an Oclgrind check still starts its own, with its environment)."""
    from explorer.engine.executor import Executor
    from explorer.gui import worker

    def executor(env=None, on_build=None):
        if env is not None:
            return Executor(env=env, on_build=on_build)
        kept_executor.on_build = on_build  # the newest window hears of its builds
        return kept_executor

    monkeypatch.setattr(worker, "Executor", executor)
    yield
    kept_executor.on_build = None


@pytest.fixture
def window(qtbot, settings):
    from explorer.gui.main_window import MainWindow

    w = MainWindow(settings=settings)
    qtbot.addWidget(w)
    qtbot.waitUntil(lambda: w.model.device is not None, timeout=60000)
    yield w
    w.close()


def menu_action(window, text):
    """The action a person finds in the menu bar under ``text`` (without its & mnemonic)."""
    for entry in window.menuBar().actions():
        for action in entry.menu().actions():
            if action.text().split("\t")[0].replace("&", "") == text:  # keys after a tab
                return action
    raise AssertionError(f"no menu item {text!r}")


def labels_inside_the_chart(timing_view):
    """Every label drawn in the timing chart lies inside the chart's visible area."""
    import pyqtgraph as pg

    box = timing_view.plot.getPlotItem().getViewBox().sceneBoundingRect()
    texts = [i for i in timing_view.plot.getPlotItem().items if isinstance(i, pg.TextItem)]
    assert texts
    return all(box.contains(t.sceneBoundingRect()) for t in texts)


def trigger(window, text):
    """Choose a menu item, as a click would: only an enabled one does anything."""
    action = menu_action(window, text)
    assert action.isEnabled(), f"{text!r} is disabled"
    action.trigger()


def answer_file_dialogs(monkeypatch, path):
    """The next file dialogs answer ``path``, as if the person had picked it; a choice asked
    after it (an animation's frame size) is answered with its default."""
    from PySide6.QtWidgets import QFileDialog, QInputDialog

    answer = staticmethod(lambda *args, **kwargs: (str(path), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", answer)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", answer)
    default = staticmethod(
        lambda parent, title, label, items, current=0, *rest: (items[current], True)
    )
    monkeypatch.setattr(QInputDialog, "getItem", default)


def run_and_wait(qtbot, window, timeout=120000):
    before = len(window.state.history)
    trigger(window, "Run")
    qtbot.waitUntil(lambda: len(window.state.history) > before, timeout=timeout)
    return window.state.result


def trace_and_wait(qtbot, window, timeout=120000):
    before = window.state.playback
    trigger(window, "Trace")
    qtbot.waitUntil(
        lambda: window.state.playback is not None and window.state.playback is not before,
        timeout=timeout,
    )
    return window.views.execution_view
