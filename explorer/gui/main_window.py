"""The main window: configuration on the left, the verdict and result image on the right."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QToolBar,
)

from explorer.engine.devices import NO_PLATFORM_HELP
from explorer.engine.records import RunResult
from explorer.gui.config_panel import ConfigPanel
from explorer.gui.model import ConfigModel
from explorer.gui.result_view import ResultView
from explorer.gui.worker import RunController


class MainWindow(QMainWindow):
    def __init__(self, controller: RunController | None = None) -> None:
        super().__init__()
        self.setWindowTitle("OpenCL Kernel Explorer")
        self.model = ConfigModel()
        self.controller = controller or RunController(self)
        self.last_result: RunResult | None = None

        self.panel = ConfigPanel(self.model)
        scroll = QScrollArea()
        scroll.setWidget(self.panel)
        scroll.setWidgetResizable(True)
        dock = QDockWidget("Configuration", self)
        dock.setObjectName("configuration")
        dock.setWidget(scroll)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)

        self.result_view = ResultView()
        self.setCentralWidget(self.result_view)

        self.run_action = QAction("&Run", self)
        self.run_action.setShortcut(QKeySequence("Ctrl+R"))
        self.run_action.setToolTip("Run the configuration (Ctrl+R)")
        self.run_action.triggered.connect(self.run)
        self.cancel_action = QAction("&Cancel", self)
        self.cancel_action.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        self.cancel_action.setEnabled(False)
        self.cancel_action.triggered.connect(self.cancel)
        toolbar = QToolBar("Run")
        toolbar.setObjectName("run-toolbar")
        self.addToolBar(toolbar)
        run_button = QPushButton("▶ Run  (Ctrl+R)")
        run_button.clicked.connect(self.run_action.trigger)
        self.run_button = run_button
        toolbar.addWidget(run_button)
        toolbar.addAction(self.cancel_action)
        self.addAction(self.run_action)

        self.panel.validity_changed.connect(self._validity)
        self.controller.devices_ready.connect(self._devices_ready)
        self.controller.devices_failed.connect(self._devices_failed)
        self.controller.finished.connect(self._finished)
        self.statusBar().showMessage("Looking for OpenCL devices …")
        self.run_button.setEnabled(False)
        self.controller.discover_devices()
        self.resize(1400, 900)

    # -- devices -------------------------------------------------------------------
    def _devices_ready(self, devices: list, default_key: str | None) -> None:
        if not devices:
            self._devices_failed(NO_PLATFORM_HELP)
            return
        self.model.set_devices(devices, default_key)
        self.panel.validate()
        device = self.model.device
        self.statusBar().showMessage(f"Device: {device.label if device else '?'}")

    def _devices_failed(self, message: str) -> None:
        self.statusBar().showMessage("No OpenCL device")
        self.result_view.message.setText(f"<h3>No OpenCL device</h3><pre>{message}</pre>")
        self.result_view.stack.setCurrentWidget(self.result_view.message)
        self.result_view.badge.setText("No OpenCL device: see below how to get one.")

    # -- running -------------------------------------------------------------------
    def _validity(self, ok: bool) -> None:
        self.run_button.setEnabled(ok)
        self.run_action.setEnabled(ok)

    def run(self) -> None:
        if not self.panel.validate():
            return
        request = self.model.request()
        self.controller.run(request)
        self.cancel_action.setEnabled(True)
        self.result_view.show_running(request.variant.name)
        self.statusBar().showMessage(f"Running {request.variant.qualified_id} …")

    def cancel(self) -> None:
        self.controller.cancel()
        self.cancel_action.setEnabled(False)
        self.statusBar().showMessage("Cancelled")
        self.result_view.badge.setText("Cancelled")

    def _finished(self, result: RunResult) -> None:
        self.last_result = result
        self.cancel_action.setEnabled(False)
        self.result_view.show_result(result)
        device = self.model.device
        timing = f", kernel {result.timing.median_ms:.3f} ms" if result.timing else ""
        self.statusBar().showMessage(
            f"{device.name if device else ''} · {result.variant}: {result.status}{timing}"
        )

    def closeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self.controller.shutdown()
        super().closeEvent(event)


def about_box(parent: MainWindow) -> None:
    QMessageBox.about(parent, "OpenCL Kernel Explorer", "See how a GPU kernel really works.")
