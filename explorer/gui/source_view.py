"""Kernel source with OpenCL C highlighting and line numbers; the build log with clickable
line references; the kernel's captured printf output."""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QKeyEvent,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QPixmap,
    QResizeEvent,
    QShowEvent,
    QTextBlock,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from explorer.engine.record.trace_launch import TracedRun
from explorer.engine.records import RunResult
from explorer.frontend.line_directives import (
    LineNumbering,
    is_own_file,
    line_numbering,
    log_place,
)
from explorer.gui.opencl_highlighter import OpenCLHighlighter


def monospace() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSize(11)
    return font


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
    """Source with line numbers and highlighted lines: read-only, or editable (undo and redo
    are the editor's own; Ctrl+S asks for a save with ``save_requested``).

    Marked lines are numbered as the text last loaded or saved numbers them (the trace's and
    the compiler's numbering, which its ``#line`` directives set): each is shown at its place
    in the text, and while the text is edited each mark follows its line."""

    save_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setFont(monospace())
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        # The family named here too: a window's style sheet that sets a font size (presenter
        # mode's) would otherwise give the code a proportional font.
        family = monospace().family()
        self.setStyleSheet(FLAT_SCROLLBARS + f"CodeEditor {{ font-family: '{family}'; }}")
        self.numbers = _LineNumbers(self)
        self.highlighter = OpenCLHighlighter(self.document())
        self.blockCountChanged.connect(
            lambda _: self.setViewportMargins(self.number_width(), 0, 0, 0)
        )
        self.updateRequest.connect(self._scroll_numbers)
        self.setViewportMargins(self.number_width(), 0, 0, 0)
        self.marked: list[int] = []  # as numbered in the text last loaded or saved
        self.numbering = line_numbering("")  # that text's numbering, through its #line
        self._edited: LineNumbering | None = None  # the edited text's, until the next edit
        self.document().contentsChanged.connect(self._forget_edited)
        self._anchors: list[QTextCursor] = []  # the start of each of those lines, as edited
        self._gutters: dict[tuple[object, ...], QPixmap] = {}
        self.folded = 0  # the first lines hidden (an exercise's header): kept in the text
        self._top: int | None = None  # the line to show first, once laid out (show_from)
        self.cursorPositionChanged.connect(self._out_of_fold)

    # -- text and editing ------------------------------------------------------------------
    def load(self, text: str) -> None:
        """New text: no undo history, nothing modified, lines numbered afresh."""
        self._top = None
        self.setPlainText(text)
        self.set_saved()
        self._apply_fold()

    def fold_top(self, lines: int) -> None:
        """Hide the first ``lines`` lines from view (0: none): they stay in the text, so a
        save writes them, and every line keeps its number in the file; the text cursor and
        edits stay below them."""
        self.folded = max(0, lines)
        self._apply_fold()

    def _apply_fold(self) -> None:
        document = self.document()
        block = document.begin()
        while block.isValid():
            block.setVisible(block.blockNumber() >= self.folded)
            block = block.next()
        document.markContentsDirty(0, document.characterCount())
        self._gutters.clear()
        self.viewport().update()
        self.numbers.update()
        self._out_of_fold()

    def _fold_end(self) -> int:
        """The position where the visible text starts."""
        if not self.folded:
            return 0
        block = self.document().findBlockByNumber(self.folded)
        return block.position() if block.isValid() else self.document().characterCount() - 1

    def _out_of_fold(self) -> None:
        """The text cursor (and a selection's both ends) moved below the hidden lines."""
        end = self._fold_end()
        cursor = self.textCursor()
        if not end or min(cursor.anchor(), cursor.position()) >= end:
            return
        anchor, position = max(cursor.anchor(), end), max(cursor.position(), end)
        cursor.setPosition(anchor)
        cursor.setPosition(position, QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(cursor)

    def set_saved(self) -> None:
        """The text as it is now is what the file holds: its lines are the numbering."""
        self.document().setModified(False)
        self.numbering = line_numbering(self.toPlainText())
        if self.isReadOnly():
            self._anchors = []
            return
        block = self.document().begin()
        self._anchors = []
        while block.isValid():
            self._anchors.append(QTextCursor(block))
            block = block.next()

    def set_editable(self, on: bool) -> None:
        if on == (not self.isReadOnly()):
            return
        self.setReadOnly(not on)
        self.setUndoRedoEnabled(on)
        if on:
            self.set_saved()
        else:
            self._anchors = []

    def event(self, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.matches(QKeySequence.StandardKey.Save)
            and not self.isReadOnly()
        ):
            event.accept()  # Ctrl+S here saves this file, not the window's session
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self.isReadOnly() and event.matches(QKeySequence.StandardKey.Save):
            self.save_requested.emit()
            return
        cursor = self.textCursor()
        if (
            self.folded
            and event.key() == Qt.Key.Key_Backspace
            and not cursor.hasSelection()
            and cursor.position() == self._fold_end()
        ):
            return  # it would join the first visible line to a hidden one
        super().keyPressEvent(event)

    def block_number(self, line: int) -> int:
        """Where line ``line`` (1-based, as the text last loaded or saved numbers it through
        its ``#line`` directives) is now (0-based); -1 where that text has no such line."""
        physical = self.numbering.physical(line)
        if physical is None:
            return -1
        if self._anchors and self.document().isModified() and physical <= len(self._anchors):
            return self._anchors[physical - 1].blockNumber()
        return physical - 1

    # -- the gutter ------------------------------------------------------------------------
    def number_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return 12 + self.fontMetrics().horizontalAdvance("9") * digits

    def _scroll_numbers(self, rect: QRect, dy: int) -> None:
        if dy:
            self.numbers.scroll(0, dy)
        else:
            self.numbers.update(0, rect.y(), self.numbers.width(), rect.height())

    def show_from(self, line: int) -> None:
        """Scroll so that ``line`` (1-based) is the first line shown: at once, and again as
        the editor is laid out (behind another tab it has no height of its own yet)."""
        self._top = line
        self._scroll_to_top()

    def _scroll_to_top(self) -> None:
        if self._top is None:
            return
        block = self.document().findBlockByNumber(self._top - 1)
        if block.isValid():
            self.verticalScrollBar().setValue(block.firstLineNumber())
        if self.isVisible() or not block.isValid():
            self._top = None

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._scroll_to_top()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._scroll_to_top()
        cr = self.contentsRect()
        self.numbers.setGeometry(QRect(cr.left(), cr.top(), self.number_width(), cr.height()))

    def paint_numbers(self, event: QPaintEvent) -> None:
        """The gutter, drawn from a small cache of pictures: while an animation steps through
        a few lines, the same gutter comes back again and again."""
        block = self.firstVisibleBlock()
        offset = self.blockBoundingGeometry(block).translated(self.contentOffset()).top()
        marked = {self.block_number(line) for line in self.marked}
        numbering = self._shown_numbering()
        key = (
            numbering,  # the object, not its id: held here, its id is never another's
            block.blockNumber(),
            round(offset),
            tuple(sorted(marked)),
            self.numbers.width(),
            self.numbers.height(),
            self.blockCount(),
            self.font().pointSizeF(),
            self.font().pixelSize(),
        )
        pixmap = self._gutters.get(key)
        if pixmap is None:
            pixmap = self._draw_gutter(block, round(offset), marked, numbering)
            if len(self._gutters) > 64:
                self._gutters.clear()
            self._gutters[key] = pixmap
        QPainter(self.numbers).drawPixmap(0, 0, pixmap)

    def _shown_numbering(self) -> LineNumbering:
        """The numbering the gutter shows: the text's as it is now (an edited `#line`
        renumbers the lines after it at once; the marks keep the saved text's numbers)."""
        if not self.document().isModified():
            return self.numbering
        if self._edited is None:  # read once an edit, not at every repaint of the gutter
            self._edited = line_numbering(self.toPlainText())
        return self._edited

    def _forget_edited(self) -> None:
        self._edited = None

    def gutter_label(self, number: int, numbering: LineNumbering | None = None) -> str:
        """The gutter's number for block ``number`` (0-based): the line as the compiler and
        the trace name it; "" for the header, a `#line` and another file's lines."""
        numbering = numbering or self._shown_numbering()
        if not numbering.directed:
            return str(number + 1)
        presumed = numbering.presumed(number + 1)
        return "" if presumed is None else str(presumed)

    def _draw_gutter(
        self, block: QTextBlock, top: int, marked: set[int], numbering: LineNumbering
    ) -> QPixmap:
        """Each line's number as the compiler and the trace give it: after a `#line`, the
        number it says; the header, a directive and another file's lines have none."""
        pixmap = QPixmap(self.numbers.size())
        pixmap.fill(QColor("#eef2f5"))
        painter = QPainter(pixmap)
        painter.setFont(self.font())
        number = block.blockNumber()
        height = round(self.blockBoundingRect(block).height())
        while block.isValid() and top <= self.numbers.height():
            label = self.gutter_label(number, numbering)
            if block.isVisible() and label:
                painter.setPen(QColor("#c0392b" if number in marked else "#7f8c8d"))
                painter.drawText(
                    0,
                    top,
                    self.numbers.width() - 6,
                    height,
                    Qt.AlignmentFlag.AlignRight,
                    label,
                )
            block = block.next()
            top += height
            number += 1
        painter.end()
        return pixmap

    # -- marks -----------------------------------------------------------------------------
    def mark_lines(self, lines: list[int], colour: str = "#fdebd0") -> None:
        """Highlight whole lines (1-based) and scroll to the first; while the text is being
        edited the cursor stays where the person left it."""
        self.marked = sorted(set(lines))
        if self.marked:
            self._top = None  # the marked line is scrolled to instead
        selections = []
        blocks = []
        for line in self.marked:
            block = self.document().findBlockByNumber(self.block_number(line))
            if not block.isValid():
                continue
            blocks.append(block)
            sel = QTextEdit.ExtraSelection()
            sel.format.setBackground(QColor(colour))
            sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            sel.cursor = QTextCursor(block)
            selections.append(sel)
        self.setExtraSelections(selections)
        if blocks:
            self._show_block(blocks[0])
        self.numbers.update()

    def _show_block(self, block: QTextBlock) -> None:
        if self.isReadOnly():
            self.setTextCursor(QTextCursor(block))
            self.centerCursor()
        elif not self.hasFocus():  # scrolled to, the text cursor left alone
            rows = max(1, self.viewport().height() // max(1, self.fontMetrics().lineSpacing()))
            self.verticalScrollBar().setValue(max(0, block.firstLineNumber() - rows // 2))


READ_ONLY = "A shipped kernel: read-only."
# A build log line that reports an error (its severity, not a word of its message: a
# warning about a variable named error_count is no error).
_AN_ERROR = re.compile(r"\b(?:fatal )?error:")
EDITABLE = "Ctrl+S saves it and runs it."
UNSAVED = "● Unsaved changes: Ctrl+S saves them and runs the kernel."


class SourceView(QWidget):
    """The source, and below it the build log and the kernel's printed output. The source is
    an editor for a person's own file (``set_editable``); a shipped kernel is read-only, with
    a button to save a copy to edit."""

    line_activated = Signal(int)
    save_requested = Signal()
    copy_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel()
        # A long path is cut at the view's edge (whole in the tooltip): it never widens the
        # view, which stands beside the animation while an exercise is presented.
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.title)
        bar = QHBoxLayout()
        self.editing = QLabel(READ_ONLY)
        self.editing.setWordWrap(True)
        self.editing.setObjectName("editing-state")
        self.copy_button = QPushButton("Save a copy to edit…")
        self.copy_button.setToolTip("Write this kernel to a file of your own and edit that")
        self.copy_button.clicked.connect(self.copy_requested)
        bar.addWidget(self.editing, 1)
        bar.addWidget(self.copy_button)
        layout.addLayout(bar)
        # A build error in a file the kernel includes: said here, no line of the kernel marked.
        self.elsewhere = QLabel()
        self.elsewhere.setObjectName("error-elsewhere")
        self.elsewhere.setWordWrap(True)
        self.elsewhere.setStyleSheet("color: #c0392b;")
        self.elsewhere.hide()
        layout.addWidget(self.elsewhere)
        splitter = QSplitter(Qt.Orientation.Vertical)
        self.editor = CodeEditor()
        self.setFocusProxy(self.editor)  # the view in front (View ▸ Kernel source): the text
        self.editor.save_requested.connect(self.save_requested)
        self.editor.modificationChanged.connect(self._show_editing)
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
        self._loaded = ""  # the text last loaded or saved
        self._file_name = ""  # the name the build log gives the kernel's text

    def show_source(self, title: str, source: str, file_name: str = "") -> None:
        """The kernel's text; unsaved edits of the kernel shown (the same title) stay.
        ``file_name`` is the name its build log gives it (a message naming another file is
        an included file's and marks none of its lines); "" where it is not known."""
        self._file_name = file_name
        if self.modified() and title == self.title.text():
            if source != self._loaded:
                self.editing.setText(
                    "● Unsaved changes, and the file changed on disk: Ctrl+S writes yours."
                )
            return
        if self.editor.toPlainText() != source:
            self.editor.load(source)
        self.editor.document().setModified(False)
        self._loaded = source
        self.title.setText(title)
        self.title.setToolTip(title)

    # -- editing ---------------------------------------------------------------------------
    def set_editable(self, on: bool) -> None:
        """Editable (a person's own file) or read-only (a shipped kernel, with "Save a copy
        to edit")."""
        self.editor.set_editable(on)
        self.copy_button.setVisible(not on)
        self._show_editing()

    def editable(self) -> bool:
        return not self.editor.isReadOnly()

    def text(self) -> str:
        return self.editor.toPlainText()

    def modified(self) -> bool:
        """Whether the text holds edits not saved yet."""
        return self.editable() and self.editor.document().isModified()

    def set_saved(self) -> None:
        """The text shown was written to the file."""
        self._loaded = self.text()
        self.editor.set_saved()
        self._show_editing()

    def discard(self) -> None:
        """Back to the text last loaded or saved."""
        self.editor.load(self._loaded)
        self._show_editing()

    def fold_header(self, lines: int) -> None:
        """Hide the first ``lines`` lines (an exercise's header) from the editor, kept in
        the text and the file; 0 shows every line again."""
        self.editor.fold_top(lines)

    def reveal(self, line: int) -> None:
        """The text cursor at the start of ``line`` (1-based), scrolled to the top, and the
        keys typed there (an exercise opened: the fix is typed at its line)."""
        block = self.editor.document().findBlockByNumber(max(0, line - 1))
        self.editor.setTextCursor(QTextCursor(block))
        self.editor.verticalScrollBar().setValue(max(0, block.firstLineNumber() - 1))
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def set_compact(self, on: bool) -> None:
        """Only the title and the editor (presenting an exercise: the grade says what the
        build log would); the build log and the printed output come back after."""
        self.tabs.setVisible(not on)
        self.copy_button.setVisible(not on and not self.editable())

    def _show_editing(self, *_: object) -> None:
        if not self.editable():
            self.editing.setText(READ_ONLY)
        else:
            self.editing.setText(UNSAVED if self.modified() else EDITABLE)

    def show_build_log(self, log: str | None) -> None:
        self.build_log.clear()
        self.elsewhere.hide()
        if not log:
            self.build_log.addItem("Built without messages.")
            return
        named = self.editor.numbering.named  # files a `#line N "name"` of the text names
        elsewhere: list[tuple[str, int]] = []  # errors of included files: (file, line)
        for text in log.splitlines():
            item = QListWidgetItem(text)
            place = log_place(text)
            if place is not None and ("error" in text or "warning" in text or "note" in text):
                item.setForeground(QColor("#c0392b" if _AN_ERROR.search(text) else "#b9770e"))
                file, line = place
                if is_own_file(file, self._file_name, named):
                    item.setData(Qt.ItemDataRole.UserRole, line)
                    item.setToolTip("Click to show this line in the source")
                else:  # an included file's line: no line of the kernel is its place
                    item.setToolTip(
                        f"Line {line} of {file}, a file the kernel includes, "
                        "not a line of this kernel"
                    )
                    if _AN_ERROR.search(text) and (file, line) not in elsewhere:
                        elsewhere.append((file, line))
            self.build_log.addItem(item)
        self._show_elsewhere(elsewhere)
        self.tabs.setCurrentWidget(self.build_log)
        lines = [
            self.build_log.item(i).data(Qt.ItemDataRole.UserRole)
            for i in range(self.build_log.count())
        ]
        errors = [line for line in lines if line]
        if errors:
            self.editor.mark_lines(errors, "#fadbd8")

    def _show_elsewhere(self, errors: list[tuple[str, int]]) -> None:
        """A note above the source naming the included file (and line) of a build error."""
        if not errors:
            return
        file, line = errors[0]
        name = file.replace("\\", "/").rsplit("/", 1)[-1]
        more = f" (and {len(errors) - 1} more in included files)" if len(errors) > 1 else ""
        self.elsewhere.setText(
            f"Build error in {name}, line {line}{more}: a file this kernel "
            "includes, not a line shown here (see the build log)."
        )
        self.elsewhere.setToolTip(file)
        self.elsewhere.show()

    def mark_lines(self, lines: list[int], colour: str = "#fdebd0") -> None:
        """Highlight whole lines (1-based) and scroll to the first."""
        self.editor.mark_lines(lines, colour)

    def show_run(self, result: RunResult | None) -> None:
        """A run's build log and its printed output; None (nothing has run in this
        configuration) empties both."""
        if result is None:
            self.build_log.clear()
            self.elsewhere.hide()
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
