"""The kernel's source as an editor: a person's own file (an exercise's attempt included) is
edited in the app and saved with Ctrl+S; a shipped kernel is read-only, with "Save a copy to
edit". A save writes the file whole (:func:`explorer.file_writes.replace_text`) and then
takes the path a save in another editor takes (the file watch of
:mod:`~explorer.gui.controllers.kernel_files`): rebuilt, re-run, re-traced. Unsaved edits are
never lost: another kernel, or closing the window, first asks to save, discard or stay."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, QStandardPaths, SignalInstance
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from explorer.engine.records import Variant
from explorer.file_writes import WriteFailed, replace_text
from explorer.gui.actions import Action, Actions, AppContext
from explorer.gui.controllers.roles import StatusLine
from explorer.gui.model import ConfigModel
from explorer.paths import kernels_dir, resources_dir


class SourceEditor(Protocol):
    """The source view as an editor."""

    save_requested: SignalInstance
    copy_requested: SignalInstance

    def set_editable(self, on: bool) -> None: ...

    def editable(self) -> bool: ...

    def text(self) -> str: ...

    def modified(self) -> bool: ...

    def set_saved(self) -> None: ...

    def discard(self) -> None: ...


class SavedFiles(Protocol):
    """The kernel files' controller: a file the app wrote is reloaded as a watched one."""

    def file_saved(self, path: str) -> None: ...

    def open_kernel(self, path: str) -> bool: ...


def editable_path(variant: Variant) -> str | None:
    """The file a variant's source is edited in: a person's own ``.cl`` file, never a
    shipped one (the catalog, the lessons, the exercises' starting kernels)."""
    path = Path(variant.path)
    if path.suffix.lower() != ".cl" or not path.is_file():
        return None
    resolved = path.resolve()
    for shipped in (kernels_dir(), resources_dir()):
        if resolved.is_relative_to(shipped.resolve()):
            return None
    return str(path)


class KernelEditingController(QObject):
    """Saves the edited kernel, makes copies of shipped ones, and guards unsaved edits."""

    def __init__(
        self,
        model: ConfigModel,
        source: SourceEditor,
        files: SavedFiles,
        status: StatusLine,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.source = source
        self.files = files
        self.status = status
        self.parent_widget = parent
        source.save_requested.connect(self.save)
        source.copy_requested.connect(self.save_copy)
        model.variant_changed.connect(self._follow)
        model.may_leave_kernel = self.may_leave
        self._follow()

    def _follow(self) -> None:
        self.source.set_editable(editable_path(self.model.variant) is not None)

    # -- saving ----------------------------------------------------------------------------
    def save(self) -> bool:
        """Write the editor's text to the kernel's file, then rebuild and re-run it as a save
        in another editor would. Whether the file now holds the text."""
        path = editable_path(self.model.variant)
        if path is None:
            self.status.say("A shipped kernel is read-only: save a copy to edit it")
            return False
        if not self._write(path):
            return False
        self.files.file_saved(path)
        self.status.say(f"Saved {Path(path).name}; building and running it …")
        return True

    def _write(self, path: str) -> bool:
        try:
            replace_text(path, self.source.text())
        except WriteFailed as exc:
            QMessageBox.warning(self.parent_widget, "Cannot save the kernel", str(exc))
            return False
        self.source.set_saved()
        return True

    def save_copy(self) -> None:
        """A shipped kernel written to a file of the person's own, opened there to edit."""
        variant = self.model.variant
        folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        suggested = str(Path(folder) / f"{variant.family}-{variant.id}.cl")
        path, _ = QFileDialog.getSaveFileName(
            self.parent_widget, "Save a copy to edit", suggested, "OpenCL C (*.cl)"
        )
        if not path:
            return
        try:
            replace_text(path, variant.source)
        except WriteFailed as exc:
            QMessageBox.warning(self.parent_widget, "Cannot save a copy", str(exc))
            return
        if self.files.open_kernel(path):
            self.status.say(f"Editing your copy {path}: Ctrl+S in the source saves and runs it")

    # -- unsaved edits ---------------------------------------------------------------------
    def may_leave(self) -> bool:
        """Whether the kernel may be left: no unsaved edits, or the person saved or discarded
        them when asked; False when they chose to stay."""
        if not self.source.modified():
            return True
        name = self.model.variant.name
        answer = QMessageBox.question(
            self.parent_widget,
            "Unsaved changes",
            f"{name} has changes that are not saved. Save them before going on?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            path = editable_path(self.model.variant)
            return path is not None and self._write(path)
        if answer == QMessageBox.StandardButton.Discard:
            self.source.discard()
            return True
        return False


def _editable(context: AppContext) -> bool:
    return editable_path(context.model.variant) is not None


ACTIONS = Actions(
    KernelEditingController,
    Action(
        "save_kernel",
        "Save &kernel",
        "&File",
        KernelEditingController.save,
        (),
        "Save the kernel edited in the source (Ctrl+S there), then build and run it",
        enabled_when=_editable,
    ),
    Action(
        "save_kernel_copy",
        "Save a cop&y of the kernel to edit…",
        "&File",
        KernelEditingController.save_copy,
        (),
        "Write the kernel shown to a file of your own and edit it in the source",
    ),
)
