"""File ▸ Open kernel… on a file whose header has a key no header knows (a misspelled
``exact_range``) says so in a message box naming the key, its line and the key nearest its
spelling, and keeps the kernel on screen; before, the key was ignored and the file opened."""

from PySide6.QtWidgets import QMessageBox

from tests.engine.test_header_keys import KERNEL, with_line
from tests.gui.conftest import answer_file_dialogs, trigger


def test_open_kernel_names_an_unknown_header_key(qtbot, window, monkeypatch, tmp_path):
    shown = []
    monkeypatch.setattr(
        QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append(text))
    )
    before = window.model.variant
    path = tmp_path / "k.cl"
    path.write_text(with_line("exact_range = true"), encoding="utf-8")
    answer_file_dialogs(monkeypatch, path)
    trigger(window, "Open kernel…")
    assert shown == [f"{path}:7: unknown header key 'exact_range': did you mean 'exact'?"]
    assert window.model.variant is before

    path.write_text(KERNEL, encoding="utf-8")  # spelled right, it opens
    trigger(window, "Open kernel…")
    assert len(shown) == 1
    assert window.model.variant.path == str(path)
