"""Findings of the trace analysis and the per-site table; selecting one names its line."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.engine.record.oclgrind import OclgrindCheck
from explorer.engine.record.trace_launch import TracedRun
from explorer.trace.analysis import Analysis, registry
from explorer.trace.analysis.detector import Category
from explorer.trace.analysis.report import group_findings
from explorer.trace.recorded import Finding

# A finding's kind is drawn in its category's colour: each readable on white (a contrast of
# 4.5 or more) and told apart from the others by hue and lightness alike.
CATEGORY_COLOURS = {
    Category.BUG: "#c0392b",  # red
    Category.COST: "#1a5490",  # blue
    Category.NOTE: "#117a65",  # teal
    Category.TRACE: "#666666",  # grey
}
UNKNOWN_COLOUR = "#1b2631"  # a kind no module declares
FINDING_ROLE = Qt.ItemDataRole.UserRole + 1  # the Finding an item stands for
OCLGRIND_READY = (
    "Oclgrind is installed: Run ▸ Check with Oclgrind (Ctrl+Shift+O) runs this configuration "
    "on its simulator for a second opinion on races and uninitialised reads."
)
OCLGRIND_MISSING = (
    "No Oclgrind platform is installed. For a second opinion on races and uninitialised "
    'reads, pip install "pyopencl[oclgrind]" and start the explorer again.'
)


class FindingsView(QWidget):
    line_selected = Signal(int)
    finding_selected = Signal(object)
    measure_fix_requested = Signal(object)  # the selected cost finding

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.shown: list[Finding] = []
        self.summary = QLabel("Trace the kernel (Ctrl+T) to see what every work-item did.")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        splitter = QSplitter(Qt.Orientation.Vertical)
        self.findings = QTreeWidget()
        self.setFocusProxy(self.findings)  # the view in front (View ▸ Findings): the list
        self.findings.setHeaderLabels(["Kind", "Line", "Phase", "Buffer", "What to do"])
        self.findings.setRootIsDecorated(True)
        self.findings.setWordWrap(True)
        self.findings.itemSelectionChanged.connect(self._selected)
        self.findings.itemActivated.connect(lambda *_: self._selected())  # Enter: jump again
        self.sites = QTreeWidget()
        self.sites.setHeaderLabels(
            [
                "Line",
                "Buffer",
                "Space",
                "Op",
                "Accesses",
                "Sectors/request",
                "Bank conflicts",
                "Access",
            ]
        )
        self.sites.setRootIsDecorated(False)
        self.sites.itemSelectionChanged.connect(self._site_selected)
        findings_box = QWidget()
        box = QVBoxLayout(findings_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.findings)
        # The whole of the selected row's text (the first cause's before any selection): a
        # cause and its advice are longer than the column, which cuts them off.
        self.detail = QLabel("")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.addWidget(self.detail)
        fix_row = QHBoxLayout()
        self.measure_fix = QPushButton("Measure the fix")
        self.measure_fix.setToolTip(
            "Time the kernel beside its counterpart (padded, re-mapped), alternately, on this "
            "device, and show what the selected bank conflict or uncoalesced access costs"
        )
        self.measure_fix.setEnabled(False)
        self.measure_fix.clicked.connect(self._measure_fix)
        self.fix_result = QLabel("")
        self.fix_result.setWordWrap(True)
        fix_row.addWidget(self.measure_fix)
        fix_row.addWidget(self.fix_result, 1)
        box.addLayout(fix_row)
        splitter.addWidget(findings_box)
        splitter.addWidget(self.sites)
        self.oclgrind = QPlainTextEdit()
        self.oclgrind.setReadOnly(True)
        self.set_oclgrind_available(False)
        splitter.addWidget(self.oclgrind)
        layout.addWidget(splitter)

    def clear(self, message: str = "") -> None:
        self.findings.clear()
        self.sites.clear()
        self.detail.setText("")
        self.summary.setText(message)
        self.show_fix("")

    def selected_finding(self) -> object | None:
        """The finding selected; a cause's heading stands for its first finding."""
        items = self.findings.selectedItems()
        return items[0].data(0, FINDING_ROLE) if items else None

    def select_next(self, delta: int) -> bool:
        """Select the finding ``delta`` rows on (-1: back), wrapping around; False when there
        is none. Selecting one shows it (``finding_selected``)."""
        count = self.findings.topLevelItemCount()
        if count == 0:
            return False
        current = self.findings.currentItem()
        while current is not None and current.parent() is not None:
            current = current.parent()  # a cause's finding stands for its cause
        at = self.findings.indexOfTopLevelItem(current) if current is not None else -1
        index = (at + delta) % count if at >= 0 else (0 if delta > 0 else count - 1)
        item = self.findings.topLevelItem(index)
        if item is None:
            return False
        if item is self.findings.currentItem() and item.isSelected():
            self._selected()  # the only one: shown again
        else:
            self.findings.setCurrentItem(item)
        return True

    def show_fix(self, text: str, measuring: bool = False) -> None:
        """The measured cost of the selected finding (or why there is none)."""
        self.fix_result.setText(text)
        finding = self.selected_finding()
        self.measure_fix.setEnabled(not measuring and _is_cost(finding))

    def _measure_fix(self) -> None:
        finding = self.selected_finding()
        if finding is not None and _is_cost(finding):
            self.show_fix("Measuring the kernel beside its counterpart …", measuring=True)
            self.measure_fix_requested.emit(finding)

    def show_traced(self, traced: TracedRun | None) -> None:
        """A trace's findings and sites; a trace that did not run, why."""
        if traced is None:
            return
        if traced.analysis is None:
            self.clear(f"The trace did not run: {traced.result.summary()}")
        else:
            self.show_trace(traced.report_json or {}, traced.analysis)

    def show_checking(self, text: str) -> None:
        """What the Oclgrind pane says while a check runs."""
        self.oclgrind.setPlainText(text)

    def show_trace(self, report: dict[str, Any], analysis: Analysis) -> None:
        self.findings.clear()
        self.sites.clear()
        self.fix_result.setText("")
        self.detail.setText("")
        complete = "complete" if report["complete"] else "incomplete"
        # What the trace could not record is not a finding about the kernel.
        bad = [f for f in analysis.findings if registry.category(f.kind) is not Category.TRACE]
        self.summary.setText(
            f"<b>{len(bad)} finding(s)</b> from {report['records']:,} records of "
            f"{len(report['groups_traced'])} work-group(s), {complete}."
        )
        # One row per root cause; a cause with several findings lists them under it.
        groups = group_findings(analysis.findings)
        self.shown = [g.findings[0] for g in groups]
        for group in groups:
            first = group.findings[0]
            if len(group.findings) == 1 and not group.advice:
                self.findings.addTopLevelItem(_finding_item(first))
                continue
            text = f"{group.cause} What to do: {group.advice}".strip()
            heading = QTreeWidgetItem(
                [
                    first.kind,
                    str(first.line or ""),
                    "" if first.phase is None else str(first.phase),
                    first.buffer or "",
                    text,
                ]
            )
            heading.setForeground(0, QColor(colour_of(first.kind)))
            heading.setData(0, Qt.ItemDataRole.UserRole, first.line)
            heading.setData(0, FINDING_ROLE, first)
            heading.setToolTip(4, text)
            font = heading.font(4)
            font.setBold(True)
            heading.setFont(4, font)
            heading.addChildren([_finding_item(f) for f in group.findings])
            self.findings.addTopLevelItem(heading)
        first_item = self.findings.topLevelItem(0)
        if first_item is not None:
            self.detail.setText(first_item.toolTip(4))
        for s in analysis.sites:
            sectors = "" if s.sectors_per_request is None else f"{s.sectors_per_request:.2f}"
            banks = "" if s.bank_conflict_degree is None else f"{s.bank_conflict_degree:.2f}"
            item = QTreeWidgetItem(
                [str(s.line), s.buffer, s.space, s.op, f"{s.accesses:,}", sectors, banks, s.text]
            )
            item.setData(0, Qt.ItemDataRole.UserRole, s.line)
            self.sites.addTopLevelItem(item)
        for tree in (self.findings, self.sites):
            for column in range(tree.columnCount() - 1):
                tree.resizeColumnToContents(column)

    def set_oclgrind_available(self, available: bool) -> None:
        """What the empty Oclgrind pane says: how to ask for a check where an Oclgrind
        platform is installed, how to install one where none is."""
        self.oclgrind.setPlaceholderText(OCLGRIND_READY if available else OCLGRIND_MISSING)

    def show_oclgrind(self, outcome: object) -> None:
        """Oclgrind's verdict beside the explorer's own findings; None empties the pane
        (the configuration changed)."""
        if outcome is None:
            self.oclgrind.clear()
            return
        if isinstance(outcome, str):
            self.oclgrind.setPlainText(f"Oclgrind check failed: {outcome}")
            return
        assert isinstance(outcome, OclgrindCheck)
        counts: dict[tuple[str, int | None], int] = {}
        for m in outcome.messages:
            counts[(m.kind, m.line)] = counts.get((m.kind, m.line), 0) + 1
        lines = [f"Oclgrind (second opinion): {outcome.verdict}"]
        lines += [
            f"  line {line}: {kind} ×{n}"
            for (kind, line), n in sorted(
                counts.items(), key=lambda item: (item[0][1] or 0, item[0][0])
            )
        ]
        if outcome.messages:
            lines += ["", "First report:", outcome.messages[0].text]
        self.oclgrind.setPlainText("\n".join(lines))

    def _selected(self) -> None:
        items = self.findings.selectedItems()
        self.show_fix("")
        if not items:
            return
        self.detail.setText(items[0].toolTip(4))
        if items[0].data(0, Qt.ItemDataRole.UserRole):
            self.line_selected.emit(int(items[0].data(0, Qt.ItemDataRole.UserRole)))
        finding = items[0].data(0, FINDING_ROLE)
        if finding is not None:
            self.finding_selected.emit(finding)

    def _site_selected(self) -> None:
        items = self.sites.selectedItems()
        if items and items[0].data(0, Qt.ItemDataRole.UserRole):
            self.line_selected.emit(int(items[0].data(0, Qt.ItemDataRole.UserRole)))


def _finding_item(f: Finding) -> QTreeWidgetItem:
    """One finding's row: kind, line, phase, buffer and its message."""
    item = QTreeWidgetItem(
        [
            f.kind,
            str(f.line or ""),
            "" if f.phase is None else str(f.phase),
            f.buffer or "",
            f.message,
        ]
    )
    item.setForeground(0, QColor(colour_of(f.kind)))
    item.setData(0, Qt.ItemDataRole.UserRole, f.line)
    item.setData(0, FINDING_ROLE, f)
    item.setToolTip(4, f.message)
    return item


def colour_of(kind: str) -> str:
    """The colour a finding of ``kind`` is drawn in: its category's."""
    category = registry.category(kind)
    return UNKNOWN_COLOUR if category is None else CATEGORY_COLOURS[category]


def _is_cost(finding: object) -> bool:
    """A cost finding: one "Measure the fix" can time beside its counterpart."""
    return registry.category(str(getattr(finding, "kind", ""))) is Category.COST
