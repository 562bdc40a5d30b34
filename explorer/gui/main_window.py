"""The main window: configuration on the left; result, timing, source and findings on tabs.

The window is the one place where the model, the controller and the views meet: views
emit signals, the window calls the others. Views never talk to each other.
"""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QImage, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDockWidget,
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QToolBar,
)

from explorer.engine.catalog import CatalogError, find_variant, load_variant_file, with_header
from explorer.engine.devices import NO_PLATFORM_HELP
from explorer.engine.oclgrind import find_oclgrind
from explorer.engine.records import RunRequest, RunResult, result_record
from explorer.engine.tracing import TraceRequest
from explorer.families import FAMILIES
from explorer.gui import settings as settings_store
from explorer.gui.config_panel import ConfigPanel
from explorer.gui.execution_view import ExecutionView
from explorer.gui.findings_view import FindingsView
from explorer.gui.kernel_dialog import KernelMappingDialog
from explorer.gui.model import ConfigModel
from explorer.gui.result_view import ResultView
from explorer.gui.roofline_view import RooflineView
from explorer.gui.source_view import SourceView
from explorer.gui.sweep_view import SweepView
from explorer.gui.timing_view import TimingView
from explorer.gui.worker import RunController
from explorer.trace.playback import Playback, make_grids

IMAGE_SUFFIXES = (".png", ".pgm", ".ppm", ".npy")
# The window keeps the trace it animates: 64 MiB of records is 8 M accesses, dozens of
# work-groups of a tiled matmul; a click on any other group traces a window around it.
GUI_TRACE_BUDGET = 64 << 20
TOUR = (("naive", False), ("tiled", True), ("reg2d", False))
PRESENTER_STYLE = """
QWidget { font-size: 13pt; background: #ffffff; color: #111111; }
QPushButton { font-size: 14pt; padding: 4px 10px; }
QLabel#badge { font-size: 20pt; }
QLabel#step-label { font-size: 17pt; font-weight: bold; }
"""


class MainWindow(QMainWindow):
    def __init__(
        self, controller: RunController | None = None, settings: QSettings | None = None
    ) -> None:
        super().__init__()
        self.setWindowTitle("OpenCL Kernel Explorer")
        self.setAcceptDrops(True)
        self.model = ConfigModel()
        self.settings = settings if settings is not None else QSettings()
        self.controller = controller or RunController(self)
        self.last_result: RunResult | None = None
        self.last_trace = None
        self.history: list[RunResult] = []
        self.compare_results: list[RunResult] = []
        self.notice: str | None = None
        self.playback: Playback | None = None
        self.pending_group: tuple[int, int, int] | None = None

        self.panel = ConfigPanel(self.model)
        self.panel_scroll = QScrollArea()
        self.panel_scroll.setWidget(self.panel)
        self.panel_scroll.setWidgetResizable(True)
        self.panel_scroll.setMinimumWidth(360)
        dock = QDockWidget("Configuration", self)
        dock.setObjectName("configuration")
        dock.setWidget(self.panel_scroll)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)

        self.result_view = ResultView()
        self.timing_view = TimingView()
        self.source_view = SourceView()
        self.findings_view = FindingsView()
        self.execution_view = ExecutionView()
        self.roofline_view = RooflineView()
        self.sweep_view = SweepView()
        self.tabs = QTabWidget()
        # No frame around the pages: drawing it filled the whole area on every repaint.
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.result_view, "Result")
        self.tabs.addTab(self.execution_view, "Execution")
        self.tabs.addTab(self.timing_view, "Timing")
        self.tabs.addTab(self.source_view, "Kernel source")
        self.tabs.addTab(self.findings_view, "Findings")
        self.tabs.addTab(self.roofline_view, "Roofline")
        self.tabs.addTab(self.sweep_view, "Sweep")
        self.presenter_split = QSplitter(Qt.Orientation.Horizontal)
        self.presenter_side = QSplitter(Qt.Orientation.Vertical)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.tabs)
        self.stack.addWidget(self.presenter_split)
        self.setCentralWidget(self.stack)
        self.presenting = False
        self.tour_stage = -1
        self.tour_results: list[RunResult] = []
        self.tour_wants_trace = False
        self.sweeping = False
        self.last_oclgrind = None
        self.user_headers: dict[str, str] = {}  # header kept in memory for header-less files
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._file_changed)
        self.reload_timer = QTimer(self)
        self.reload_timer.setSingleShot(True)
        self.reload_timer.timeout.connect(self.reload_kernel)
        self.reloads = 0
        self.keep_view: tuple | None = None  # type: ignore[type-arg]
        self.retrace_after_run = False
        self.last_good: RunResult | None = None

        self._make_actions()
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setVisible(False)
        self.statusBar().addPermanentWidget(self.progress)

        self.panel.validity_changed.connect(self._validity)
        self.model.variant_changed.connect(self._show_source)
        self.source_view.line_activated.connect(self._goto_line)
        self.findings_view.line_selected.connect(self._goto_line)
        self.findings_view.finding_selected.connect(self._show_finding)
        self.execution_view.group_requested.connect(self._trace_group)
        self.execution_view.step_changed.connect(
            lambda _phase, line: self.source_view.editor.mark_lines([line], "#f9e79f")
        )
        self.controller.devices_ready.connect(self._devices_ready)
        self.controller.devices_failed.connect(self._devices_failed)
        self.controller.started.connect(self._started)
        self.controller.finished.connect(self._finished)
        self.controller.compare_progress.connect(self._compare_step)
        self.controller.compare_finished.connect(self._compare_done)
        self.controller.trace_finished.connect(self._trace_done)
        self.controller.idle.connect(self._idle)
        self.controller.limits_ready.connect(self.roofline_view.set_limits)
        self.controller.oclgrind_finished.connect(self._oclgrind_done)
        self.model.variant_changed.connect(lambda: self.sweep_view.set_variant(self.model.variant))
        self.model.device_changed.connect(self._device_changed)
        self.sweep_view.run_requested.connect(self.run_sweep)
        self.sweep_view.cell_chosen.connect(self._sweep_cell_chosen)
        self.sweep_view.set_variant(self.model.variant)

        self.notice = settings_store.restore(self.settings, self.model)
        geometry = self.settings.value("geometry")
        if (geometry is not None and not self.restoreGeometry(geometry)) or geometry is None:
            self.resize(1500, 950)
        state = self.settings.value("state")
        if state is not None:
            self.restoreState(state)
        self._show_source()
        self.statusBar().showMessage(self.notice or "Looking for OpenCL devices …")
        self._set_runnable(False)
        self.controller.discover_devices()

    # -- actions and menus ------------------------------------------------------------
    def _action(
        self, text: str, shortcut: str | QKeySequence | None, slot, tip: str = ""
    ) -> QAction:  # type: ignore[no-untyped-def]
        action = QAction(text, self)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.setToolTip(tip or text.replace("&", ""))
        action.setStatusTip(tip)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _make_actions(self) -> None:
        self.run_action = self._action("&Run", "Ctrl+R", self.run, "Run this configuration")
        self.compare_action = self._action(
            "&Compare all variants",
            "Ctrl+Shift+R",
            self.compare_all,
            "Run every variant of the family at this size, side by side",
        )
        self.trace_action = self._action(
            "&Trace",
            "Ctrl+T",
            lambda: self.trace(),
            "Record every access and barrier; list findings",
        )
        self.oclgrind_action = self._action(
            "Check with &Oclgrind",
            "Ctrl+Shift+O",
            self.check_with_oclgrind,
            "Run this configuration on Oclgrind with its race and uninitialised-read checks",
        )
        self.oclgrind_action.setEnabled(False)
        self.cancel_action = self._action(
            "Ca&ncel", QKeySequence(Qt.Key.Key_Escape), self.cancel, "Stop what is running"
        )
        self.cancel_action.setEnabled(False)
        open_kernel = self._action(
            "&Open kernel…",
            "Ctrl+O",
            self.open_kernel_dialog,
            "Open your own .cl file with a catalog header",
        )
        self.save_session_action = self._action(
            "&Save session…",
            "Ctrl+S",
            lambda: self.save_session(None),
            "Save the configuration and the view as a .kexp.json session",
        )
        self.open_session_action = self._action(
            "Open session…",
            "Ctrl+Alt+O",
            lambda: self.open_session(None),
            "Open a .kexp.json session",
        )
        open_image = self._action(
            "Open &image as input…",
            "Ctrl+I",
            self.open_image_dialog,
            "Use a picture as B (matmul) or IN (transpose)",
        )
        export_csv = self._action(
            "Export timing history as &CSV…", None, lambda: self.export_history(None)
        )
        export_png = self._action(
            "Export timing chart as &PNG…",
            None,
            lambda: self.export_view_png(self.timing_view, None),
        )
        export_result = self._action(
            "Export result view as P&NG…",
            None,
            lambda: self.export_view_png(self.result_view, None),
        )
        quit_action = self._action("&Quit", QKeySequence.StandardKey.Quit, self.close)
        self.presenter_action = self._action(
            "&Presenter mode",
            "F11",
            lambda: self.set_presenter(not self.presenting),
            "Full screen, large type: the execution, the result and the timing bars",
        )
        self.presenter_action.setShortcuts([QKeySequence("F11"), QKeySequence("F5")])
        self.tour_action = self._action(
            "Guided &tour",
            "Ctrl+G",
            self.start_tour,
            "naive → tiled → register-blocked matmul on the IOU input; Space advances",
        )

        menu = self.menuBar().addMenu("&File")
        for a in (
            open_kernel,
            open_image,
            None,
            export_csv,
            export_png,
            export_result,
            None,
            quit_action,
        ):
            menu.addSeparator() if a is None else menu.addAction(a)
        run_menu = self.menuBar().addMenu("&Run")
        for a in (
            self.run_action,
            self.compare_action,
            self.trace_action,
            self.oclgrind_action,
            self.cancel_action,
        ):
            run_menu.addAction(a)
        view_menu = self.menuBar().addMenu("&View")
        view_menu.addAction(self.presenter_action)
        view_menu.addAction(self.tour_action)
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction(self._action("&About", None, self._about))

        toolbar = QToolBar("Run")
        toolbar.setObjectName("run-toolbar")
        toolbar.setStyleSheet("QToolBar { border: none; background: palette(window); }")  # flat
        self.addToolBar(toolbar)
        self.run_button = QPushButton("▶ Run  (Ctrl+R)")
        self.run_button.clicked.connect(self.run_action.trigger)
        toolbar.addWidget(self.run_button)
        toolbar.addAction(self.compare_action)
        toolbar.addAction(self.trace_action)
        toolbar.addAction(self.cancel_action)

    def _about(self) -> None:
        QMessageBox.about(
            self,
            "OpenCL Kernel Explorer",
            "See how a GPU kernel really works: run, verify, time and trace OpenCL kernels.",
        )

    # -- devices -------------------------------------------------------------------
    def _devices_ready(self, devices: list, default_key: str | None) -> None:
        if not devices:
            self._devices_failed(NO_PLATFORM_HELP)
            return
        self.model.set_devices(devices, default_key)
        self.oclgrind_action.setEnabled(find_oclgrind(devices) is not None)
        self.panel.validate()
        device = self.model.device
        message = f"Device: {device.label if device else '?'}"
        self.statusBar().showMessage(f"{self.notice}  ·  {message}" if self.notice else message)

    def _devices_failed(self, message: str) -> None:
        self.statusBar().showMessage("No OpenCL device")
        self.result_view.show_message("No OpenCL device", message)
        self.result_view.badge.setText("No OpenCL device: see below how to get one.")

    # -- running -------------------------------------------------------------------
    def _set_runnable(self, ok: bool) -> None:
        for widget in (self.run_button, self.run_action, self.trace_action):
            widget.setEnabled(ok)
        self.compare_action.setEnabled(self.model.device is not None)

    def _validity(self, ok: bool) -> None:
        self._set_runnable(ok)

    def _request(self) -> RunRequest:
        return self.model.request()

    def run(self) -> None:
        if not self.panel.validate():
            return
        self.tabs.setCurrentWidget(self.result_view)
        self.controller.run(self._request())

    def _device_changed(self) -> None:
        self.roofline_view.set_limits(None)
        if self.model.device is not None:
            self.controller.measure_limits(self.model.device_key)

    def run_sweep(self, x_axis: str, xs: list, y_axis: str, ys: list) -> None:
        """Every combination of the two parameters, through the compare machinery."""
        if self.model.device is None:
            return
        requests = []
        for params in self.sweep_view.configurations():
            local = params.get("local", self.model.local)
            defines = {**self.model.defines, **{k: v for k, v in params.items() if k != "local"}}
            requests.append(
                RunRequest(
                    self.model.variant,
                    self.model.sizes,
                    local=local,
                    defines=defines,
                    device_key=self.model.device_key,
                    input=self.model.input,
                    text=self.model.text,
                    image_path=self.model.image_path,
                    keep_output=False,
                )
            )
        self.sweeping = True
        self.progress.setRange(0, len(requests))
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.controller.compare(requests)

    def _sweep_cell_chosen(self, params: dict, result) -> None:  # type: ignore[no-untyped-def]
        for key, value in params.items():
            if key == "local":
                self.model.set_local(tuple(value))
            else:
                self.model.set_define(key, int(value))
        self.statusBar().showMessage(
            "Loaded "
            + ", ".join(f"{k}={v}" for k, v in params.items())
            + (f": {result.summary()}" if result is not None else "")
        )

    def compare_all(self) -> None:
        if self.model.device is None:
            return
        self.compare_results = []
        requests = [
            RunRequest(
                variant,
                self.model.sizes,
                device_key=self.model.device_key,
                input=self.model.input,
                text=self.model.text,
                image_path=self.model.image_path,
                keep_output=False,
            )
            for variant in self.model.variants()
        ]
        self.progress.setRange(0, len(requests))
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.tabs.setCurrentWidget(self.timing_view)
        self.timing_view.clear()
        self.controller.compare(requests)

    def trace(self, center: tuple[int, int, int] | None = None) -> None:
        if not self.panel.validate():
            return
        self.findings_view.clear("Tracing …")
        self.pending_group = center
        self.controller.trace(
            TraceRequest(self._request(), center=center, budget_bytes=GUI_TRACE_BUDGET)
        )

    def check_with_oclgrind(self) -> None:
        device = find_oclgrind(self.model.devices)
        if device is None:
            self.statusBar().showMessage(
                'No Oclgrind platform: pip install "pyopencl[oclgrind]" to get one'
            )
            return
        request = replace(self._request(), device_key=device.key)
        self.findings_view.oclgrind.setPlainText("Oclgrind is checking (it simulates: slow) …")
        self.tabs.setCurrentWidget(self.findings_view)
        self.controller.oclgrind(request)

    def _oclgrind_done(self, outcome) -> None:  # type: ignore[no-untyped-def]
        self.findings_view.show_oclgrind(outcome)
        self.last_oclgrind = outcome
        self.statusBar().showMessage(outcome if isinstance(outcome, str) else outcome.verdict)

    def _trace_group(self, gx: int, gy: int, gz: int) -> None:
        """A click on a group the trace did not cover: trace a window around it."""
        self.statusBar().showMessage(f"Tracing around work-group ({gx}, {gy}, {gz}) …")
        self.trace((gx, gy, gz))

    def _escape(self) -> None:
        if self.presenting and not self.controller.busy:
            self.set_presenter(False)
        else:
            self.cancel()

    # -- presenter mode and the guided tour -------------------------------------------------
    def set_presenter(self, on: bool, full_screen: bool = True) -> None:
        """Full screen, large type, high contrast: execution, result and timing together."""
        if on == self.presenting:
            return
        self.presenting = on
        for widget in (
            self.menuBar(),
            self.findChild(QToolBar, "run-toolbar"),
            self.findChild(QDockWidget, "configuration"),
        ):
            if widget is not None:
                widget.setVisible(not on)
        if on:
            for view in (self.execution_view, self.result_view, self.timing_view):
                self.tabs.removeTab(self.tabs.indexOf(view))
            self.presenter_split.addWidget(self.execution_view)
            self.presenter_side.addWidget(self.result_view)
            self.presenter_side.addWidget(self.timing_view)
            self.presenter_split.addWidget(self.presenter_side)
            for view in (self.execution_view, self.result_view, self.timing_view):
                view.show()  # a widget taken out of a tab page stays hidden otherwise
            self.presenter_split.setStretchFactor(0, 3)
            self.presenter_split.setStretchFactor(1, 2)
            self.presenter_split.setSizes([3 * self.width() // 5, 2 * self.width() // 5])
            self.stack.setCurrentWidget(self.presenter_split)
            self.setStyleSheet(PRESENTER_STYLE)
            if full_screen:
                self.showFullScreen()
            self.execution_view.setFocus()
        else:
            self.tabs.insertTab(0, self.result_view, "Result")
            self.tabs.insertTab(1, self.execution_view, "Execution")
            self.tabs.insertTab(2, self.timing_view, "Timing")
            self.stack.setCurrentWidget(self.tabs)
            self.setStyleSheet("")
            self.tour_stage = -1
            if self.isFullScreen():
                self.showNormal()

    def start_tour(self) -> None:
        if self.model.device is None:
            return
        self.set_presenter(True)
        self.tour_stage = -1
        self.tour_results = []
        self.tour_next()

    def tour_next(self) -> None:
        """One stage further along naive → tiled → register-blocked (Space)."""
        if self.controller.busy:
            return
        self.tour_stage += 1
        if self.tour_stage >= len(TOUR):
            self.result_view.badge.setText(
                "That was the ladder: each step keeps data closer to the arithmetic. "
                "Esc leaves presenter mode."
            )
            self.tour_stage = len(TOUR)
            return
        variant_id, trace = TOUR[self.tour_stage]
        self.model.set_family("matmul")
        self.model.set_variant(find_variant("matmul", variant_id))
        self.model.set_input("iou")
        self.tour_wants_trace = trace
        self.controller.run(self._request())

    def keyPressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if (
            self.presenting
            and event.key() == Qt.Key.Key_Space
            and 0 <= self.tour_stage < len(TOUR) + 1
        ):
            self.tour_next()
        elif self.presenting and event.key() in (
            Qt.Key.Key_Space,
            Qt.Key.Key_Left,
            Qt.Key.Key_Right,
        ):
            self.execution_view.keyPressEvent(event)
        else:
            super().keyPressEvent(event)

    def cancel(self) -> None:
        self.controller.cancel()
        self.cancel_action.setEnabled(False)
        self.progress.setVisible(False)
        self.statusBar().showMessage("Cancelled")
        self.result_view.badge.setText("Cancelled")

    def _started(self, what: str) -> None:
        self.cancel_action.setEnabled(True)
        self.result_view.show_running(what)
        self.statusBar().showMessage(what[:1].upper() + what[1:] + " …")

    def _idle(self) -> None:
        self.sweeping = False
        self.cancel_action.setEnabled(False)
        self.progress.setVisible(False)

    def _finished(self, result: RunResult) -> None:
        self.last_result = result
        self.history.append(result)
        self.roofline_view.show_results(self.history)
        keep = (
            result.error_kind == "build"
            and self.last_good is not None
            and self.last_good.variant == result.variant
        )
        if keep:
            # A build error while editing: the previous good result stays on screen.
            self.result_view.badge.setText(
                f"⚠ Build failed: {result.error}. Showing the last good result."
            )
        else:
            self.result_view.show_result(result)
        if result.status in ("verified", "wrong"):
            self.last_good = result
            if self.retrace_after_run:
                self.retrace_after_run = False
                group = self.keep_view[0] if self.keep_view else None
                self.trace(group)
        if 0 <= self.tour_stage < len(TOUR):
            self.tour_results.append(result)
            self.timing_view.show_compare(self.tour_results)  # the bars grow stage by stage
            if self.tour_wants_trace:
                self.trace()
        else:
            self.timing_view.show_run(result)
        self.source_view.show_build_log(result.build_log)
        self.source_view.show_output(result.output_text)
        if result.error_kind == "build" and not keep:
            self.tabs.setCurrentWidget(self.source_view)
        device = self.model.device
        timing = f", kernel {result.timing.median_ms:.3f} ms" if result.timing else ""
        self.statusBar().showMessage(
            f"{device.name if device else ''} · {result.variant}: {result.status}{timing}"
        )

    def _compare_step(self, index: int, total: int, result: RunResult) -> None:
        self.history.append(result)
        self.progress.setValue(index + 1)
        if self.sweeping:
            self.sweep_view.show_cell(index, result)
            self.statusBar().showMessage(f"Sweep {index + 1}/{total}: {result.status}")
            return
        self.compare_results.append(result)
        self.timing_view.show_compare(self.compare_results)
        self.statusBar().showMessage(
            f"Comparing {index + 1}/{total}: {result.variant} {result.status}"
        )

    def _compare_done(self) -> None:
        self.roofline_view.show_results(self.history)
        if self.sweeping:
            self.sweeping = False
            return
        verified = sum(r.status == "verified" for r in self.compare_results)
        self.statusBar().showMessage(
            f"Compared {len(self.compare_results)} variants: {verified} verified"
        )

    def _trace_done(self, traced) -> None:  # type: ignore[no-untyped-def]
        self.last_trace = traced
        self.result_view.show_result(traced.result)
        if traced.analysis is None:
            self.findings_view.clear(f"The trace did not run: {traced.result.summary()}")
            self.source_view.show_build_log(traced.result.build_log)
            return
        self.findings_view.show_trace(traced.report_json, traced.analysis)
        lines = [f.line for f in traced.analysis.findings if f.line]
        self.source_view.editor.mark_lines(lines)
        if traced.trace is not None:
            variant = self.model.variant
            if self.presenting:
                self.result_view.show_result(self.last_result or traced.result)
            grids = make_grids(
                traced.trace,
                FAMILIES[variant.family].shapes(traced.result.sizes),
                column_major=variant.layout == "column-major",
            )
            self.playback = Playback(traced.trace, grids)
            self.execution_view.set_playback(self.playback, variant.source)
            group = getattr(self, "pending_group", None)
            if group is not None:
                self.execution_view.select_group(group)
            if self.keep_view is not None:  # after a reload: the same phase of the same group
                kept_group, phase = self.keep_view
                self.keep_view = None
                if kept_group is not None:
                    self.execution_view.select_group(kept_group)
                step = self.playback.first_step_of(phase)
                if step is not None:
                    self.execution_view.set_step(step)
            if not self.presenting:
                self.tabs.setCurrentWidget(self.execution_view)
            else:
                self.execution_view.play()
        else:
            self.tabs.setCurrentWidget(self.findings_view)
        self.statusBar().showMessage(
            f"Trace: {traced.report_json['records']:,} records, "
            f"{len(traced.analysis.findings)} finding(s)"
        )

    def _show_source(self) -> None:
        v = self.model.variant
        self.source_view.show_source(f"<b>{v.name}</b> — {v.path}", v.source)
        self.sweep_view.set_variant(v)

    def _show_finding(self, finding) -> None:  # type: ignore[no-untyped-def]
        """A finding selected: the animation jumps to its phase and line, its work-items and
        elements marked; without a trace to play, the source shows the line."""
        if self.playback is None:
            return
        self.execution_view.show_finding(finding)
        if finding.line:
            self.source_view.editor.mark_lines([finding.line], "#f9e79f")
        self.tabs.setCurrentWidget(self.execution_view)

    def _goto_line(self, line: int) -> None:
        self.source_view.editor.mark_lines([line], "#f9e79f")
        self.tabs.setCurrentWidget(self.source_view)

    # -- files -----------------------------------------------------------------------
    def open_kernel(self, path: str) -> bool:
        try:
            variant = load_variant_file(path)
        except CatalogError as exc:
            if "no catalog header" not in str(exc):
                QMessageBox.warning(self, "Cannot open kernel", str(exc))
                return False
            dialog = KernelMappingDialog(path, self)
            if dialog.exec() != QDialog.DialogCode.Accepted or dialog.variant is None:
                return False
            if not dialog.write.isChecked():
                self.user_headers[str(Path(path))] = dialog.header()
            variant = dialog.variant
        self.use_kernel(variant)
        return True

    def use_kernel(self, variant) -> None:  # type: ignore[no-untyped-def]
        """Make a user's kernel current and watch its file: saving it re-runs it."""
        self.model.add_user_variant(variant)
        for old in self.watcher.files():
            self.watcher.removePath(old)
        self.watcher.addPath(variant.path)
        self.statusBar().showMessage(f"Opened {variant.path}; saving it re-runs it")

    def _file_changed(self, path: str) -> None:
        # Editors save in steps (or replace the file): wait until it settles.
        self.reload_timer.start(250)
        self._changed_path = path

    def reload_kernel(self) -> None:
        """The watched file was saved: rebuild, re-run, re-trace; keep the phase and group."""
        path = getattr(self, "_changed_path", None) or self.model.variant.path
        if path not in self.watcher.files() and Path(path).exists():
            self.watcher.addPath(path)  # the editor replaced the file
        try:
            source = Path(path).read_text(encoding="utf-8")
            header = self.user_headers.get(str(Path(path)))
            variant = with_header(source, header, path) if header else load_variant_file(path)
        except (CatalogError, OSError) as exc:
            self.statusBar().showMessage(f"{Path(path).name}: {exc} (the last good run stays)")
            return
        if variant.path != self.model.variant.path:
            return
        self.model.replace_variant(variant)
        self.reloads += 1
        if self.playback is not None and self.last_trace is not None:
            step = self.execution_view.current
            self.keep_view = (
                self.playback.group,
                self.playback.steps[step].phase if self.playback.steps else 0,
            )
            self.retrace_after_run = True
        self.run()

    def open_kernel_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open kernel", "", "OpenCL C (*.cl)")
        if path:
            self.open_kernel(path)

    def open_image(self, path: str) -> bool:
        if "image" not in FAMILIES[self.model.family].input_presets:
            self.statusBar().showMessage("Images are inputs of matmul and transpose only")
            return False
        self.model.set_input("image", image_path=path)
        self.statusBar().showMessage(f"Input image: {path}")
        return True

    def open_image_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open image", "", "Images (*.png *.pgm *.ppm *.npy)"
        )
        if path:
            self.open_image(path)

    def dragEnterEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        urls = event.mimeData().urls()
        if urls and Path(urls[0].toLocalFile()).suffix.lower() in (*IMAGE_SUFFIXES, ".cl"):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        path = event.mimeData().urls()[0].toLocalFile()
        if path.lower().endswith(".cl"):
            self.open_kernel(path)
        else:
            self.open_image(path)

    def export_history(self, path: str | None) -> bool:
        if path is None:
            path, _ = QFileDialog.getSaveFileName(
                self, "Export timing history", "timings.csv", "CSV (*.csv)"
            )
            if not path:
                return False
        records = [result_record(r) for r in self.history]
        fields = list(records[0]) if records else ["family", "variant"]
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields)
            writer.writeheader()
            for record in records:
                writer.writerow(
                    {
                        k: json.dumps(v) if isinstance(v, (dict, list)) else v
                        for k, v in record.items()
                    }
                )
        self.statusBar().showMessage(f"Wrote {len(records)} runs to {path}")
        return True

    def export_view_png(self, view, path: str | None) -> bool:  # type: ignore[no-untyped-def]
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export as PNG", "view.png", "PNG (*.png)")
            if not path:
                return False
        ok = view.grab().save(path, "PNG")
        self.statusBar().showMessage(f"Wrote {path}" if ok else f"Could not write {path}")
        return bool(ok)

    def _current_view(self):  # type: ignore[no-untyped-def]
        if self.presenting:
            return self.presenter_split
        return self.tabs.currentWidget()

    def export_view_svg(self, view, path: str | None) -> bool:  # type: ignore[no-untyped-def]
        from PySide6.QtCore import QPoint
        from PySide6.QtGui import QPainter, QRegion
        from PySide6.QtSvg import QSvgGenerator
        from PySide6.QtWidgets import QWidget

        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export as SVG", "view.svg", "SVG (*.svg)")
            if not path:
                return False
        generator = QSvgGenerator()
        generator.setFileName(path)
        generator.setSize(view.size())
        generator.setViewBox(view.rect())
        generator.setTitle("OpenCL Kernel Explorer")
        painter = QPainter(generator)
        view.render(painter, QPoint(), QRegion(), QWidget.RenderFlag.DrawChildren)
        painter.end()
        self.statusBar().showMessage(f"Wrote {path}")
        return Path(path).exists()

    def export_animation(self, path: str | None, max_frames: int = 240) -> bool:
        """Every step of the animation as a looping GIF (or numbered PNG frames when the path
        ends in .png): what a slide or an issue comment can show."""
        import numpy as np

        from explorer.families.images import save_gif

        view = self.execution_view
        if self.playback is None or not view.steps:
            self.statusBar().showMessage("Trace a kernel first (Ctrl+T): nothing to animate")
            return False
        if path is None:
            path, _ = QFileDialog.getSaveFileName(
                self, "Export animation", "animation.gif", "GIF (*.gif);;PNG frames (*.png)"
            )
            if not path:
                return False
        start = view.current
        frames = []
        steps = range(min(view.steps, max_frames))
        for i in steps:
            view.set_step(i)
            image = view.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
            if image.width() > 1000:
                image = image.scaledToWidth(1000, Qt.TransformationMode.SmoothTransformation)
            bits = np.frombuffer(image.constBits(), dtype=np.uint8)
            stride = image.bytesPerLine()
            frames.append(
                bits.reshape(image.height(), stride)[:, : image.width() * 3]
                .reshape(image.height(), image.width(), 3)
                .copy()
            )
            if path.lower().endswith(".png"):
                image.save(path[:-4] + f"-{i:04d}.png", "PNG")
        view.set_step(start)
        if not path.lower().endswith(".png"):
            save_gif(frames, path, delay_ms=400)
        self.statusBar().showMessage(f"Wrote {len(frames)} frames to {path}")
        return True

    def save_session(self, path: str | None) -> bool:
        from explorer.gui.session_io import save_session_file

        if path is None:
            path, _ = QFileDialog.getSaveFileName(
                self, "Save session", "session.kexp.json", "Sessions (*.kexp.json *.json)"
            )
            if not path:
                return False
        ok = save_session_file(self, path)
        self.statusBar().showMessage(f"Saved {path}" if ok else f"Could not save {path}")
        return ok

    def open_session(self, path: str | None) -> bool:
        from explorer.gui.session_io import open_session
        from explorer.session import SessionError, load_session

        if path is None:
            path, _ = QFileDialog.getOpenFileName(
                self, "Open session", "", "Sessions (*.kexp.json *.json)"
            )
            if not path:
                return False
        try:
            open_session(self, load_session(path))
        except (SessionError, CatalogError) as exc:
            QMessageBox.warning(self, "Cannot open the session", str(exc))
            return False
        self.statusBar().showMessage(f"Opened {path}")
        return True

    def export_history_json(self, path: str | None) -> bool:
        if path is None:
            path, _ = QFileDialog.getSaveFileName(
                self, "Export timing history", "timings.json", "JSON (*.json)"
            )
            if not path:
                return False
        with open(path, "w", encoding="utf-8") as handle:
            json.dump([result_record(r) for r in self.history], handle, indent=1)
        self.statusBar().showMessage(f"Wrote {len(self.history)} runs to {path}")
        return True

    def closeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        settings_store.save(self.settings, self.model, self.saveGeometry(), self.saveState())
        self.controller.shutdown()
        super().closeEvent(event)
