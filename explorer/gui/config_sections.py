"""The configuration panel's sections, each a small widget over one part of the model: what
the variant is, the problem's sizes, the launch (local size and defines), the matrices'
storage order and the input. Each writes the :class:`ConfigModel` and redraws itself when
the panel tells it the model changed; the panel (:mod:`explorer.gui.config_panel`) lays them
out and validates the whole.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from explorer.engine.header.catalog import role_layout
from explorer.engine.records import Variant
from explorer.families import FAMILIES
from explorer.gui.model import ConfigModel
from explorer.paths import kernels_dir, resources_dir

MAX_SIZE = 1 << 20
DEFINES_PER_ROW = 3  # the panel stays narrow enough for a 1600-pixel window without scrolling
BAD_FIELD = "border: 2px solid #c0392b; border-radius: 3px;"
ORDERS = ("row-major", "column-major")
NO_IMAGE = "no image (File ▸ Open image, or drop one here)"


def compose_layout(orders: dict[str, str]) -> str:
    """A variant's ``layout`` text for one storage order per matrix: one word when they agree."""
    if len(set(orders.values())) == 1:
        return next(iter(orders.values()))
    return ",".join(f"{role}:{order}" for role, order in orders.items())


def names(reason: str, name: str) -> bool:
    """Whether a refusal's reason names a size or a define."""
    return re.search(rf"\b{name}\b", reason) is not None


class AboutVariant(QWidget):
    """The variant's name and origin, what it does, and its known bug in red."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # Plain-text labels: rich text is laid out again on every repaint, which the
        # animation's full-window repaints cannot afford.
        self.title = QLabel()
        bold = self.title.font()
        bold.setBold(True)
        self.title.setFont(bold)
        self.title.setWordWrap(True)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setObjectName("about")
        self.bug = QLabel()
        self.bug.setWordWrap(True)
        self.bug.setTextFormat(Qt.TextFormat.PlainText)
        palette = self.bug.palette()
        palette.setColor(self.bug.foregroundRole(), QColor("#c0392b"))
        self.bug.setPalette(palette)
        for label in (self.title, self.text, self.bug):
            layout.addWidget(label)

    def show_variant(self, variant: Variant) -> None:
        self.title.setText(f"{variant.name}  ({variant.source_ref or _made_by(variant)})")
        self.text.setText(variant.text)
        self.bug.setText(f"Known bug: {variant.bug}" if variant.bug else "")
        self.bug.setVisible(bool(variant.bug))


def _made_by(variant: Variant) -> str:
    """Whose a kernel is whose header names no source: the explorer's where it ships with
    it, else the person's own (a file of theirs with a header they wrote)."""
    if not variant.path:
        return "explorer"
    path = Path(variant.path).resolve()
    shipped = (kernels_dir().resolve(), resources_dir().resolve())
    return "explorer" if any(path.is_relative_to(d) for d in shipped) else "your own kernel"


class SizeFields(QGroupBox):
    """A spin box per size the variant takes (its family's, or its header's own)."""

    def __init__(self, model: ConfigModel, parent: QWidget | None = None) -> None:
        super().__init__("Problem size", parent)
        self.model = model
        self.form = QFormLayout(self)
        self.spins: dict[str, QSpinBox] = {}

    def rebuild(self) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.spins = {}
        for name in self.model.size_names:
            spin = QSpinBox()
            spin.setRange(1, MAX_SIZE)
            spin.setKeyboardTracking(False)
            spin.setValue(self.model.sizes.get(name, 1))
            spin.valueChanged.connect(lambda value, n=name: self.model.set_size(n, value))
            self.form.addRow(name, spin)
            self.spins[name] = spin

    def show_sizes(self) -> None:
        if set(self.spins) != set(self.model.size_names):
            self.rebuild()
        for name, spin in self.spins.items():
            value = self.model.sizes.get(name, 1)
            if spin.value() != value:
                spin.blockSignals(True)
                spin.setValue(value)
                spin.blockSignals(False)

    def mark(self, reason: str) -> None:
        """Outline the sizes a refusal names; clear the others."""
        for name, spin in self.spins.items():
            spin.setStyleSheet(BAD_FIELD if names(reason, name) else "")


class LaunchFields(QGroupBox):
    """The work-group size and the kernel's ``-D`` defines (a combo box where the header
    lists the allowed values)."""

    unreadable = Signal(str)  # a local size typed that is not like 16x16

    def __init__(self, model: ConfigModel, parent: QWidget | None = None) -> None:
        super().__init__("Launch", parent)
        self.model = model
        form = QFormLayout(self)
        self.local_edit = QLineEdit()
        self.local_edit.setToolTip("Work-group size, e.g. 16x16; empty for the variant's default")
        form.addRow("L&ocal size", self.local_edit)
        self.define_row = QWidget()
        self.define_layout = QGridLayout(self.define_row)  # DEFINES_PER_ROW name/value pairs
        self.define_layout.setContentsMargins(0, 0, 0, 0)
        form.addRow("Defines", self.define_row)
        self.define_spins: dict[str, QWidget] = {}
        self.local_edit.editingFinished.connect(self._local_edited)

    def show_local(self) -> None:
        local = self.model.local
        self.local_edit.setText("x".join(map(str, local)) if local else "")
        self.local_edit.setPlaceholderText("default: " + "x".join(self.model.variant.local_size))

    def _local_edited(self) -> None:
        text = self.local_edit.text().strip().lower().replace("×", "x")
        if not text:
            self.model.set_local(None)
            return
        try:
            local = tuple(int(p) for p in text.split("x"))
        except ValueError:
            self.unreadable.emit(text)
            return
        self.model.set_local(local)

    def rebuild_defines(self) -> None:
        while self.define_layout.count():
            item = self.define_layout.takeAt(0)
            old = item.widget() if item is not None else None
            if old is not None:
                old.deleteLater()
        self.define_spins = {}
        variant = self.model.variant
        allowed = variant.allowed_values
        for i, (name, default) in enumerate(variant.defines):
            row, column = divmod(i, DEFINES_PER_ROW)
            self.define_layout.addWidget(QLabel(name), row, 2 * column)
            widget: QWidget
            if name in allowed:
                combo = QComboBox()
                for value in allowed[name]:
                    combo.addItem(str(value), value)
                combo.setCurrentIndex(max(0, combo.findData(default)))
                combo.currentIndexChanged.connect(
                    lambda _i, n=name, c=combo: self.model.set_define(n, int(c.currentData()))
                )
                widget = combo
            else:
                spin = QSpinBox()
                spin.setRange(-(2**31), 2**31 - 1)  # what an int define may hold
                spin.setValue(default)
                spin.setKeyboardTracking(False)
                spin.valueChanged.connect(lambda value, n=name: self.model.set_define(n, value))
                widget = spin
            self.define_layout.addWidget(widget, row, 2 * column + 1)
            self.define_spins[name] = widget
        if not variant.defines:
            self.define_layout.addWidget(QLabel("none"), 0, 0)

    def show_defines(self) -> None:
        """The values a run is built with: a ``[[by_size]]`` rule's where it holds for the
        sizes and the device (and no value was chosen here), with a tooltip saying so."""
        values = self.model.built_defines()
        defaults = self.model.variant.default_defines
        chosen = self.model.defines
        for name, widget in self.define_spins.items():
            if name not in values:  # the fields of the variant before, not yet rebuilt
                continue
            by_rule = name not in chosen and values[name] != defaults.get(name)
            widget.setToolTip(
                f"{values[name]} for these sizes on this device, by the kernel's [[by_size]] "
                f"rule (its default: {defaults.get(name)})"
                if by_rule
                else ""
            )
            widget.blockSignals(True)
            if isinstance(widget, QComboBox):
                widget.setCurrentIndex(max(0, widget.findData(values[name])))
            elif isinstance(widget, QSpinBox):
                widget.setValue(values[name])
            widget.blockSignals(False)

    def mark(self, reason: str) -> None:
        """Outline the local size and the defines a refusal names; clear the others."""
        local = "local" in reason.lower() or any(f"L{i}" in reason for i in range(3))
        self.local_edit.setStyleSheet(BAD_FIELD if local else "")
        for name, widget in self.define_spins.items():
            widget.setStyleSheet(BAD_FIELD if names(reason, name) else "")


class LayoutFields(QGroupBox):
    """How the host stores each matrix; a kernel written for another order verifies once
    the order it expects is chosen here (the header's ``[layout]`` is the default)."""

    def __init__(self, model: ConfigModel, parent: QWidget | None = None) -> None:
        super().__init__("Matrix layout", parent)
        self.model = model
        self.form = QFormLayout(self)
        self.combos: dict[str, QComboBox] = {}
        self.b_transposed: QCheckBox | None = None  # matmul only

    def rebuild(self) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.combos = {}
        self.b_transposed = None
        roles = self.model.variant.model.matrix_roles
        self.setVisible(bool(roles))
        for role in roles:
            combo = QComboBox()
            combo.addItems(ORDERS)
            combo.setObjectName(f"layout-{role}")
            combo.currentIndexChanged.connect(self._picked)
            self.form.addRow(role, combo)
            self.combos[role] = combo
        if "A" in roles and "B" in roles:
            self.b_transposed = QCheckBox("B transposed (the host passes Bᵀ)")
            self.b_transposed.setToolTip(
                "Bᵀ in A's order is B in the other order: what kernels that read B by rows "
                "of Bᵀ (the tutorial SGEMMs) expect"
            )
            self.b_transposed.toggled.connect(self._b_transposed_toggled)
            self.form.addRow(self.b_transposed)
        self.show_layout()

    def show_layout(self) -> None:
        layout = self.model.layout
        for role, combo in self.combos.items():
            combo.blockSignals(True)
            combo.setCurrentText(role_layout(layout, role))
            combo.blockSignals(False)
        if self.b_transposed is not None:
            self.b_transposed.blockSignals(True)
            self.b_transposed.setChecked(
                self.combos["A"].currentText() != self.combos["B"].currentText()
            )
            self.b_transposed.blockSignals(False)

    def _picked(self) -> None:
        orders = {role: combo.currentText() for role, combo in self.combos.items()}
        self.model.set_layout(compose_layout(orders))

    def _b_transposed_toggled(self, checked: bool) -> None:
        a, b = self.combos.get("A"), self.combos.get("B")
        if a is None or b is None:
            return
        other = ORDERS[1 - ORDERS.index(a.currentText())]
        b.setCurrentText(other if checked else a.currentText())  # through _picked


class InputFields(QGroupBox):
    """The family's input presets, the text drawn into the IOU input, the image chosen."""

    def __init__(self, model: ConfigModel, parent: QWidget | None = None) -> None:
        super().__init__("Input", parent)
        self.model = model
        self._updating = False
        form = QFormLayout(self)
        self.preset = QComboBox()
        self.text = QLineEdit(model.text)
        self.text.setToolTip("Text drawn into B (matmul) or the input (transpose)")
        self.image = QLabel(NO_IMAGE)
        self.image.setWordWrap(True)
        form.addRow("&Preset", self.preset)
        form.addRow("&Text", self.text)
        form.addRow("Image", self.image)
        self.preset.currentIndexChanged.connect(self._picked)
        self.text.editingFinished.connect(self._picked)

    def show_presets(self) -> None:
        """The presets of the model's family."""
        self._updating = True
        self.preset.clear()
        for preset in FAMILIES[self.model.family].input_presets:
            self.preset.addItem(preset, preset)
        self._updating = False

    def show_input(self) -> None:
        self._updating = True
        self.preset.setCurrentIndex(max(0, self.preset.findData(self.model.input)))
        self._updating = False
        self.text.setEnabled(self.model.input == "iou")
        path = self.model.image_path
        self.image.setText(path.rsplit("/", 1)[-1] if path else NO_IMAGE)

    def _picked(self) -> None:
        if not self._updating and self.preset.currentData():
            self.model.set_input(self.preset.currentData(), self.text.text())
