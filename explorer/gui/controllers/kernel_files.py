"""A person's own files: kernels (mapped when header-less, watched for saves) and images."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEventLoop, QFileSystemWatcher, QObject, QSettings, QTimer
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox, QWidget

from explorer.engine.build_inputs import included_files
from explorer.engine.header.catalog import CatalogError, load_variant_file, with_header
from explorer.engine.records import RunRequest, RunResult, Variant
from explorer.families import FAMILIES
from explorer.gui import settings as settings_store
from explorer.gui.actions import Action, Actions
from explorer.gui.background import off_gui_thread
from explorer.gui.controllers.roles import Animation, Runner, StatusLine, Tracer, Worker
from explorer.gui.kernel_dialog import KernelMappingDialog
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState
from explorer.paths import read_user_text, shown

IMAGE_SUFFIXES = (".png", ".pgm", ".ppm", ".npy")
KERNEL_SUFFIXES = (".cl", ".sim")
SETTLE_MS = 250  # editors save in steps (or replace the file): wait until it settles
CHECK_TIMEOUT_S = 20.0  # one small launch of the open-kernel dialog's family check


class KernelFilesController(QObject):
    """Opens kernels and images; a saved kernel is rebuilt, re-run and, when its animation
    was showing, re-traced at the same work-group and phase. Dialogs open over ``parent``,
    which owns the controller (its file watcher stops with the window)."""

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        runner: Runner,
        tracer: Tracer,
        execution: Animation,
        status: StatusLine,
        parent: QWidget | None = None,
        worker: Worker | None = None,
        settings: QSettings | None = None,
    ) -> None:
        super().__init__(parent)
        self.worker = worker  # runs the dialog's family checks; None: nothing is checked
        self.settings = settings  # keeps the dialog's answers per file
        self.model = model
        self.state = state
        self.runner = runner
        self.tracer = tracer
        self.execution = execution
        self.status = status
        self.parent_widget = parent
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._file_changed)
        self._reload_timer = QTimer(self)
        self._reload_timer.setSingleShot(True)
        self._reload_timer.timeout.connect(self.reload_kernel)
        self._changed_path: str | None = None
        self._headers: set[str] = set()  # the watched kernel's #include files
        self._includer = ""  # the kernel file whose #include files these are
        self._retrace_generation: int | None = None
        runner.run_finished.connect(self._retrace)

    # -- kernels -------------------------------------------------------------------------
    def open_kernel(self, path: str) -> bool:
        """Open a .cl file (one without a catalog header goes through the mapping dialog) or
        an Oclgrind .sim file (its kernel, NDRange and arguments as declared there)."""
        variant = self.kernel_for(path, "Cannot open kernel")
        if variant is None:
            return False
        self.use_kernel(variant)
        return True

    def kernel_for(
        self, path: str, title: str, compared_with: Variant | None = None
    ) -> Variant | None:
        """The kernel of a file the person chose, as any command of the window takes one:
        its own header, an Oclgrind .sim file, or, without a header, what the open-kernel
        dialog is told (the answers given for the file before are proposed again, and kept).
        None when the person cancels, or the file cannot be read (said in a message box
        titled ``title``). ``compared_with``: the kernel on screen, when the file is the
        reference of a trace comparison."""
        try:  # off the GUI thread: a .sim file's arguments may take a while to expand
            return off_gui_thread(lambda: load_variant_file(path))
        except Exception as exc:
            if not isinstance(exc, CatalogError):
                exc = CatalogError(f"{shown(path)}: cannot be opened ({type(exc).__name__})")
            if "no catalog header" not in str(exc) or path.lower().endswith(".sim"):
                QMessageBox.warning(self.parent_widget, title, str(exc))
                return None
        answers = self.state.user_headers.get(str(Path(path)))
        if answers is None and self.settings is not None:
            answers = settings_store.remembered_header(self.settings, path)
        dialog = KernelMappingDialog(
            path, self.parent_widget, self.check_run, answers, compared_with=compared_with
        )
        if dialog.exec() != QDialog.DialogCode.Accepted or dialog.variant is None:
            return None
        header = dialog.header()
        if not dialog.written:  # kept in memory: reloads and sessions use it
            self.state.user_headers[str(Path(path))] = header
        if self.settings is not None:  # proposed again when the file is opened again
            settings_store.remember_header(self.settings, path, header)
        return dialog.variant

    def check_run(self, variant: Variant, sizes: dict[str, int]) -> RunResult | None:
        """One launch of ``variant`` at ``sizes`` on random data, on the device chosen, off
        the window's thread (the window keeps painting; Cancel stops it); None where there is
        no device yet or the launch was cancelled."""
        worker = self.worker
        if worker is None or self.model.device is None:
            return None
        request = RunRequest(
            variant,
            sizes,
            device_key=self.model.device_key,
            input="random",
            repeat=1,
            warmup=0,
            timeout_s=CHECK_TIMEOUT_S,
            keep_output=False,
            probe_seed=None,
        )
        outcome: dict[str, object] = {}
        loop = QEventLoop()

        def done(finished: int, value: object) -> None:
            if finished == generation:
                outcome["result"] = value
                loop.quit()

        worker.call_finished.connect(done)
        worker.idle.connect(loop.quit)  # cancelled: no result comes
        generation = worker.call(
            lambda executors: executors.run(request), f"checking {Path(variant.path).name}"
        )
        if "result" not in outcome:
            loop.exec()
        worker.call_finished.disconnect(done)
        worker.idle.disconnect(loop.quit)
        result = outcome.get("result")
        name = Path(variant.path).name
        if isinstance(result, RunResult):
            self.status.say(f"Checked {name} as a {variant.family} kernel: {result.status}")
            return result
        self.status.say(f"Did not check {name} as a {variant.family} kernel: cancelled")
        return None

    def open_kernel_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.parent_widget,
            "Open kernel",
            "",
            "Kernels (*.cl *.sim);;OpenCL C (*.cl);;Oclgrind simulation (*.sim)",
        )
        if path:
            self.open_kernel(path)

    def use_kernel(self, variant: Variant) -> None:
        """Make a user's kernel current and watch its file: saving it re-runs it."""
        self.model.add_user_variant(variant)
        if self.model.variant.path != variant.path:
            return  # the person stayed with the kernel they were editing
        self.watch(variant)
        self.status.say(f"Opened {variant.path}; saving it re-runs it")

    def watch(self, variant: Variant) -> None:
        """Watch a user's kernel file, and the files it ``#include``s, in place of those
        watched before: saving one re-runs it (a kernel opened from the command line or
        the settings as one opened from the menu)."""
        for old in self.watcher.files():
            self.watcher.removePath(old)
        self.watcher.addPath(variant.path)
        self._headers = set()
        self._watch_headers(variant)

    def _watch_headers(self, variant: Variant) -> None:
        """Watch the files the kernel ``#include``s too: saving one re-runs the kernel."""
        headers = set(included_files(variant.source, variant.build_options))
        for gone in self._headers - headers:
            self.watcher.removePath(gone)
        watched = set(self.watcher.files())
        for header in headers - watched:
            self.watcher.addPath(header)  # again after an editor replaced the file
        self._headers, self._includer = headers, variant.path

    def file_saved(self, path: str) -> None:
        """The app wrote the kernel's file itself (its editor's Ctrl+S): the reload a save in
        another editor starts, by the same path; the watcher's own report of the write joins
        it, so the kernel runs once. The file was replaced whole: it is watched anew."""
        if path in self.watcher.files():
            self.watcher.removePath(path)
        self.watcher.addPath(path)
        self._file_changed(path)

    def _file_changed(self, path: str) -> None:
        if path in self._headers:  # a header of the kernel: the kernel is built again
            path = self._includer
        self._changed_path = path
        self._reload_timer.start(SETTLE_MS)

    def reload_kernel(self) -> None:
        """The watched file was saved: rebuild, re-run, re-trace; keep the phase and group."""
        path = self._changed_path or self.model.variant.path
        if path not in self.watcher.files() and Path(path).exists():
            self.watcher.addPath(path)  # the editor replaced the file
        try:
            header = self.state.user_headers.get(str(Path(path)))
            variant = off_gui_thread(lambda: _read_kernel(path, header))
        except (CatalogError, OSError, ValueError) as exc:
            self.status.say(f"{Path(path).name}: {exc} (the last good run stays)")
            return
        if variant.path != self.model.variant.path:
            return
        self._watch_headers(variant)
        # Read before the new version replaces the old: a header that declares other sizes
        # is another configuration, and its views are cleared.
        playback = self.state.playback
        keep = None
        if playback is not None and self.state.traced is not None:
            step = self.execution.current
            keep = (playback.group, playback.steps[step].phase if playback.steps else 0)
        self.model.replace_variant(variant)
        self.state.reloads += 1
        generation = self.runner.run()
        if keep is not None and generation is not None:
            self.state.keep_view = keep
            self._retrace_generation = generation

    def _retrace(self, generation: int, result: RunResult) -> None:
        if generation != self._retrace_generation:
            return
        self._retrace_generation = None
        if result.status in ("verified", "wrong"):
            kept = self.state.keep_view
            self.tracer.trace(kept[0] if kept else None)
        else:
            self.state.keep_view = None  # a build error: the animation stays as it was

    # -- images --------------------------------------------------------------------------
    def open_image(self, path: str) -> bool:
        """A picture as the input of a family that takes one (B of matmul, IN of transpose)."""
        if "image" not in FAMILIES[self.model.family].input_presets:
            self.status.say("Images are inputs of matmul and transpose only")
            return False
        self.model.set_input("image", image_path=path)
        self.status.say(f"Input image: {path}")
        return True

    def open_image_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.parent_widget, "Open image", "", "Images (*.png *.pgm *.ppm *.npy)"
        )
        if path:
            self.open_image(path)

    # -- drops ---------------------------------------------------------------------------
    @staticmethod
    def accepts(path: str) -> bool:
        """Whether a dropped file is one this controller opens."""
        return Path(path).suffix.lower() in (*IMAGE_SUFFIXES, *KERNEL_SUFFIXES)

    def open_dropped(self, path: str) -> None:
        if Path(path).suffix.lower() in KERNEL_SUFFIXES:
            self.open_kernel(path)
        else:
            self.open_image(path)


def _read_kernel(path: str, header: str | None) -> Variant:
    """The kernel file with the header kept for it in memory, or its own."""
    if header:
        return with_header(read_user_text(path, "kernel file"), header, path)
    return load_variant_file(path)


ACTIONS = Actions(
    KernelFilesController,
    Action(
        "open_kernel",
        "&Open kernel…",
        "&File",
        KernelFilesController.open_kernel_dialog,
        ("Ctrl+O",),
        "Open your own .cl file with a catalog header",
    ),
    Action(
        "open_image",
        "Open &image as input…",
        "&File",
        KernelFilesController.open_image_dialog,
        ("Ctrl+I",),
        "Use a picture as B (matmul) or IN (transpose)",
    ),
)
