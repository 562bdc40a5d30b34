"""Kernel source with OpenCL C highlighting and line numbers; the build log with clickable
line references; the kernel's captured printf output."""

from __future__ import annotations

import re

from PySide6.QtCore import QRect, QRegularExpression, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QPaintEvent,
    QPixmap,
    QResizeEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSplitter,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from explorer.engine.record.trace_launch import TracedRun
from explorer.engine.records import RunResult

_KEYWORDS = (
    r"\b(__kernel|kernel|__global|global|__local|local|__constant|constant|__private|private|"
    r"const|volatile|restrict|if|else|for|while|do|return|break|continue|switch|case|default|"
    r"struct|typedef|inline|static|sizeof|void|bool|char|uchar|short|ushort|int|uint|long|"
    r"ulong|float|double|half|size_t|float2|float3|float4|float8|float16|int2|int4|uint2|uint4)\b"
)
_BUILTINS = (
    r"\b(get_global_id|get_local_id|get_group_id|get_global_size|get_local_size|"
    r"get_num_groups|barrier|mem_fence|read_mem_fence|write_mem_fence|vload\d+|vstore\d+|"
    r"atomic_\w+|atom_\w+|printf|mad|fma|min|max|clamp|dot)\b"
)


def monospace() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSize(11)
    return font


class OpenCLHighlighter(QSyntaxHighlighter):
    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)

        def fmt(colour: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
            f = QTextCharFormat()
            f.setForeground(QColor(colour))
            if bold:
                f.setFontWeight(QFont.Weight.Bold)
            f.setFontItalic(italic)
            return f

        self.rules = [
            (QRegularExpression(_KEYWORDS), fmt("#1f4e9c", bold=True)),
            (QRegularExpression(_BUILTINS), fmt("#8e44ad")),
            (QRegularExpression(r"\b[0-9]+(\.[0-9]*)?f?\b"), fmt("#b9770e")),
            (QRegularExpression(r'"[^"]*"'), fmt("#1e8449")),
            (QRegularExpression(r"^\s*#.*"), fmt("#7d6608")),
            (QRegularExpression(r"//[^\n]*"), fmt("#7f8c8d", italic=True)),
        ]
        self.comment = fmt("#7f8c8d", italic=True)

    def highlightBlock(self, text: str) -> None:
        for pattern, style in self.rules:
            it = pattern.globalMatch(text)
            while it.hasNext():
                m = it.next()
                self.setFormat(m.capturedStart(), m.capturedLength(), style)
        # Block comments, across lines.
        self.setCurrentBlockState(0)
        start = 0 if self.previousBlockState() == 1 else text.find("/*")
        while start >= 0:
            end = text.find(
                "*/", start + (0 if self.previousBlockState() == 1 and start == 0 else 2)
            )
            if end < 0:
                self.setCurrentBlockState(1)
                self.setFormat(start, len(text) - start, self.comment)
                break
            self.setFormat(start, end + 2 - start, self.comment)
            start = text.find("/*", end + 2)


class _LineNumbers(QWidget):
    def __init__(self, editor: CodeEditor) -> None:
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self.editor.number_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.editor.paint_numbers(event)


# Flat scroll bars: the platform style's shaded ones cost more to draw than the text itself,
# and the editor repaints on every animation step.
FLAT_SCROLLBARS = """
QScrollBar:vertical { width: 10px; margin: 0; background: palette(base); }
QScrollBar:horizontal { height: 10px; margin: 0; background: palette(base); }
QScrollBar::handle { background: #b3bac1; border-radius: 4px; min-height: 24px; min-width: 24px; }
QScrollBar::handle:hover { background: #85929e; }
QScrollBar::add-line, QScrollBar::sub-line { width: 0; height: 0; }
QScrollBar::add-page, QScrollBar::sub-page { background: none; }
"""


class CodeEditor(QPlainTextEdit):
    """Read-only source with line numbers and highlighted lines."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setFont(monospace())
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setStyleSheet(FLAT_SCROLLBARS)
        self.numbers = _LineNumbers(self)
        self.highlighter = OpenCLHighlighter(self.document())
        self.blockCountChanged.connect(
            lambda _: self.setViewportMargins(self.number_width(), 0, 0, 0)
        )
        self.updateRequest.connect(self._scroll_numbers)
        self.setViewportMargins(self.number_width(), 0, 0, 0)
        self.marked: list[int] = []
        self._gutters: dict[tuple[object, ...], QPixmap] = {}

    def number_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return 12 + self.fontMetrics().horizontalAdvance("9") * digits

    def _scroll_numbers(self, rect: QRect, dy: int) -> None:
        if dy:
            self.numbers.scroll(0, dy)
        else:
            self.numbers.update(0, rect.y(), self.numbers.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        cr = self.contentsRect()
        self.numbers.setGeometry(QRect(cr.left(), cr.top(), self.number_width(), cr.height()))

    def paint_numbers(self, event: QPaintEvent) -> None:
        """The gutter, drawn from a small cache of pictures: while an animation steps through
        a few lines, the same gutter comes back again and again."""
        block = self.firstVisibleBlock()
        offset = self.blockBoundingGeometry(block).translated(self.contentOffset()).top()
        key = (
            block.blockNumber(),
            round(offset),
            tuple(self.marked),
            self.numbers.width(),
            self.numbers.height(),
            self.blockCount(),
        )
        pixmap = self._gutters.get(key)
        if pixmap is None:
            pixmap = QPixmap(self.numbers.size())
            pixmap.fill(QColor("#eef2f5"))
            painter = QPainter(pixmap)
            painter.setFont(self.font())
            number = block.blockNumber()
            top = round(offset)
            height = round(self.blockBoundingRect(block).height())
            while block.isValid() and top <= self.numbers.height():
                if block.isVisible():
                    marked = number + 1 in self.marked
                    painter.setPen(QColor("#c0392b" if marked else "#7f8c8d"))
                    painter.drawText(
                        0,
                        top,
                        self.numbers.width() - 6,
                        height,
                        Qt.AlignmentFlag.AlignRight,
                        str(number + 1),
                    )
                block = block.next()
                top += height
                number += 1
            painter.end()
            if len(self._gutters) > 64:
                self._gutters.clear()
            self._gutters[key] = pixmap
        QPainter(self.numbers).drawPixmap(0, 0, pixmap)

    def mark_lines(self, lines: list[int], colour: str = "#fdebd0") -> None:
        """Highlight whole lines (1-based) and scroll to the first."""
        self.marked = sorted(set(lines))
        selections = []
        for line in self.marked:
            block = self.document().findBlockByNumber(line - 1)
            if not block.isValid():
                continue
            sel = QTextEdit.ExtraSelection()
            sel.format.setBackground(QColor(colour))
            sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            sel.cursor = QTextCursor(block)
            selections.append(sel)
        self.setExtraSelections(selections)
        if self.marked:
            block = self.document().findBlockByNumber(self.marked[0] - 1)
            self.setTextCursor(QTextCursor(block))
            self.centerCursor()
        self.numbers.update()


_LOG_LINE = re.compile(r":(\d+):(?:(\d+):)?")


class SourceView(QWidget):
    """The source, and below it the build log and the kernel's printed output."""

    line_activated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel()
        layout.addWidget(self.title)
        splitter = QSplitter(Qt.Orientation.Vertical)
        self.editor = CodeEditor()
        splitter.addWidget(self.editor)
        self.tabs = QTabWidget()
        self.build_log = QListWidget()
        self.build_log.setFont(monospace())
        self.build_log.itemActivated.connect(self._log_clicked)
        self.build_log.itemClicked.connect(self._log_clicked)
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)
        self.output.setFont(monospace())
        self.tabs.addTab(self.build_log, "Build log")
        self.tabs.addTab(self.output, "Kernel output (printf)")
        splitter.addWidget(self.tabs)
        splitter.setSizes([700, 200])
        layout.addWidget(splitter)
        self.line_activated.connect(lambda line: self.editor.mark_lines([line], "#f9e79f"))

    def show_source(self, title: str, source: str) -> None:
        if self.editor.toPlainText() != source:
            self.editor.setPlainText(source)
        self.title.setText(title)

    def show_build_log(self, log: str | None) -> None:
        self.build_log.clear()
        if not log:
            self.build_log.addItem("Built without messages.")
            return
        for text in log.splitlines():
            item = QListWidgetItem(text)
            m = _LOG_LINE.search(text)
            if m and ("error" in text or "warning" in text or "note" in text):
                item.setData(Qt.ItemDataRole.UserRole, int(m.group(1)))
                item.setForeground(QColor("#c0392b" if "error" in text else "#b9770e"))
                item.setToolTip("Click to show this line in the source")
            self.build_log.addItem(item)
        self.tabs.setCurrentWidget(self.build_log)
        lines = [
            self.build_log.item(i).data(Qt.ItemDataRole.UserRole)
            for i in range(self.build_log.count())
        ]
        errors = [line for line in lines if line]
        if errors:
            self.editor.mark_lines(errors, "#fadbd8")

    def mark_lines(self, lines: list[int], colour: str = "#fdebd0") -> None:
        """Highlight whole lines (1-based) and scroll to the first."""
        self.editor.mark_lines(lines, colour)

    def show_run(self, result: RunResult | None) -> None:
        """A run's build log and its printed output; None (nothing has run in this
        configuration) empties both."""
        if result is None:
            self.build_log.clear()
            self.output.clear()
            return
        self.show_build_log(result.build_log)
        self.show_output(result.output_text)

    def show_traced(self, traced: TracedRun | None) -> None:
        """A trace's findings' lines marked; a trace that did not run, its build log."""
        if traced is None:
            return
        if traced.analysis is None:
            self.show_build_log(traced.result.build_log)
        else:
            self.mark_lines([f.line for f in traced.analysis.findings if f.line])

    def show_output(self, text: str | None) -> None:
        self.output.setPlainText(text or "")
        if text:
            self.tabs.setCurrentWidget(self.output)

    def _log_clicked(self, item: QListWidgetItem) -> None:
        line = item.data(Qt.ItemDataRole.UserRole)
        if line:
            self.line_activated.emit(int(line))
