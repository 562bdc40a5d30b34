"""A capture's timeline: the launches a program made, in order, each with its kernel and its
sizes; choosing one makes it the kernel on screen. Below it, the verdict of the chosen launch
against the original run, and the commands that replay it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.capture.folder import Capture, CapturedLaunch

COLUMNS = ("#", "Kernel", "Global", "Local", "Arguments")
MIN_TABLE_HEIGHT = 60
MIN_TABLE_WIDTH = 200
VERDICT_STYLE = "QLabel {{ padding: 4px 8px; font-size: 13pt; color: {fg}; background: {bg}; }}"
VERDICT_COLOURS = {
    "match": ("white", "#1e8449"),
    "differs": ("white", "#c0392b"),
    "note": ("#1b2631", "#d6eaf8"),
}


def sizes_text(sizes: tuple[int, ...] | None) -> str:
    """An NDRange as people write it: 1024 × 1024; the driver's choice where none was given."""
    return " × ".join(str(s) for s in sizes) if sizes else "driver's choice"


def arguments_text(launch: CapturedLaunch) -> str:
    """The arguments by name, with what the launch changed marked; why a launch has no data."""
    if not launch.data:
        return f"no data: {launch.why}" if launch.why else "no data"
    names = []
    for arg in launch.args:
        name = arg.name or f"arg{arg.index}"
        names.append(f"{name}*" if arg.has_contents and arg.changed else name)
    return ", ".join(names)


class CaptureView(QDockWidget):
    """The timeline of one capture. ``launch_chosen`` carries the launch's number (from 1)
    whenever a person picks a row (a click, the arrow keys)."""

    launch_chosen = Signal(int)
    run_requested = Signal()
    trace_requested = Signal()
    check_requested = Signal()
    save_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Capture", parent)
        self.setObjectName("capture")
        self.setAllowedAreas(
            Qt.DockWidgetArea.BottomDockWidgetArea | Qt.DockWidgetArea.LeftDockWidgetArea
        )
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)
        self.verdict = QLabel()
        self.verdict.setObjectName("capture-verdict")
        self.verdict.setWordWrap(True)
        layout.addWidget(self.verdict)
        row = QHBoxLayout()
        row.addStretch(1)
        for text, signal, tip in (
            ("Run", self.run_requested, "Run the chosen launch again, timed"),
            ("Trace", self.trace_requested, "Trace the chosen launch and animate it"),
            ("Check with Oclgrind", self.check_requested, "Run it on Oclgrind with its checks"),
            (
                "Save as kernel…",
                self.save_requested,
                "A kernel file with its header and its inputs beside it: a lesson, a test or "
                "a bug report",
            ),
        ):
            button = QPushButton(text)
            button.setToolTip(tip)
            button.clicked.connect(signal.emit)
            row.addWidget(button)
        layout.addLayout(row)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("capture-launches")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        for column in range(len(COLUMNS) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.setMinimumSize(MIN_TABLE_WIDTH, MIN_TABLE_HEIGHT)  # it scrolls
        layout.addWidget(self.table, 1)
        self.setWidget(body)
        self._numbers: list[int] = []

    # -- what the controller shows -----------------------------------------------------
    def show_capture(self, capture: Capture) -> None:
        """List every launch of ``capture``, in order; none is chosen yet."""
        launches = capture.launches
        devices = sorted({launch.device for launch in launches if launch.device})
        # Paths by their last part: the program, not the folders it sits in.
        command = " ".join(Path(word).name if "/" in word else word for word in capture.command)
        command = command or "a program"
        where = f" on {', '.join(devices)}" if devices else ""
        self.setWindowTitle(f"Capture: {capture.folder.name}")
        self.summary.setText(
            f"{command}: {len(launches)} launch{'es' if len(launches) != 1 else ''}{where}. "
            "Choose one to replay it with its captured inputs; * marks what it changed."
        )
        self.table.blockSignals(True)
        self.table.clearContents()
        self.table.setRowCount(len(launches))
        self._numbers = [launch.number for launch in launches]
        for row, launch in enumerate(launches):
            cells = (
                str(launch.number),
                launch.label,
                sizes_text(launch.global_size),
                sizes_text(launch.local_size),
                arguments_text(launch),
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if not launch.data:
                    item.setForeground(Qt.GlobalColor.gray)
                    item.setToolTip(launch.why or "recorded without its buffers")
                self.table.setItem(row, column, item)
        self.table.blockSignals(False)
        self.show_verdict("", "note")

    def select(self, number: int) -> None:
        """Mark launch ``number`` as the chosen one, without telling anyone."""
        if number not in self._numbers:
            return
        self.table.blockSignals(True)
        self.table.selectRow(self._numbers.index(number))
        self.table.blockSignals(False)

    def show_verdict(self, text: str, kind: str = "note") -> None:
        """A line about the chosen launch: ``kind`` match, differs or note."""
        fg, bg = VERDICT_COLOURS.get(kind, VERDICT_COLOURS["note"])
        self.verdict.setStyleSheet(VERDICT_STYLE.format(fg=fg, bg=bg) if text else "")
        self.verdict.setText(text)

    def chosen(self) -> int | None:
        """The number of the launch chosen in the table."""
        rows = self.table.selectionModel().selectedRows()
        return self._numbers[rows[0].row()] if rows else None

    def _selection_changed(self) -> None:
        number = self.chosen()
        if number is not None:
            self.launch_chosen.emit(number)
