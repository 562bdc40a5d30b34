"""The configuration panel: device, family, variant, sizes, local size, defines, matrix
layouts, input. A custom kernel's named sizes are fields like a family's.

It writes the :class:`ConfigModel` and redraws itself from the model's signals; it never
talks to another widget.
"""

from __future__ import annotations

import contextlib
import re
import threading
from typing import Any

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
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from explorer.engine.header.catalog import role_layout
from explorer.engine.launch.plan import plan
from explorer.engine.records import Refusal
from explorer.families import FAMILIES
from explorer.gui.model import ConfigModel

MAX_SIZE = 1 << 20
DEFINES_PER_ROW = 3  # the panel stays narrow enough for a 1600-pixel window without scrolling
BAD_FIELD = "border: 2px solid #c0392b; border-radius: 3px;"
ORDERS = ("row-major", "column-major")


def compose_layout(orders: dict[str, str]) -> str:
    """A variant's ``layout`` text for one storage order per matrix: one word when they agree."""
    if len(set(orders.values())) == 1:
        return next(iter(orders.values()))
    return ",".join(f"{role}:{order}" for role, order in orders.items())


class ConfigPanel(QWidget):
    """Pick what to run; a refused configuration is explained before anything runs."""

    validity_changed = Signal(bool)
    anyway_requested = Signal()  # the "Run anyway" button: Run ▸ Run anyway
    # A refusal's suggested fix, found off the GUI thread: (validation generation, fix text).
    fix_found = Signal(int, str)

    def __init__(self, model: ConfigModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self._validation_generation = 0
        self._refusal_reason = ""
        self.fix_found.connect(self._fix_arrived)
        self._updating = False
        layout = QVBoxLayout(self)

        form = QFormLayout()
        self.device_combo = QComboBox()
        self.device_combo.setToolTip("OpenCL device")
        self.family_combo = QComboBox()
        for family, problem in FAMILIES.items():
            self.family_combo.addItem(family, family)
            self.family_combo.setItemData(
                self.family_combo.count() - 1, problem.description, Qt.ItemDataRole.ToolTipRole
            )
        self.variant_combo = QComboBox()
        form.addRow("&Device", self.device_combo)
        form.addRow("Fa&mily", self.family_combo)
        form.addRow("V&ariant", self.variant_combo)
        layout.addLayout(form)

        # Plain-text labels: rich text is laid out again on every repaint, which the
        # animation's full-window repaints cannot afford.
        self.about_title = QLabel()
        bold = self.about_title.font()
        bold.setBold(True)
        self.about_title.setFont(bold)
        self.about_title.setWordWrap(True)
        self.about = QLabel()
        self.about.setWordWrap(True)
        self.about.setTextFormat(Qt.TextFormat.PlainText)
        self.about.setObjectName("about")
        self.about_bug = QLabel()
        self.about_bug.setWordWrap(True)
        self.about_bug.setTextFormat(Qt.TextFormat.PlainText)
        palette = self.about_bug.palette()
        palette.setColor(self.about_bug.foregroundRole(), QColor("#c0392b"))
        self.about_bug.setPalette(palette)
        for label in (self.about_title, self.about, self.about_bug):
            layout.addWidget(label)

        self.size_box = QGroupBox("Problem size")
        self.size_form = QFormLayout(self.size_box)
        layout.addWidget(self.size_box)
        self.size_spins: dict[str, QSpinBox] = {}

        launch = QGroupBox("Launch")
        launch_form = QFormLayout(launch)
        self.local_edit = QLineEdit()
        self.local_edit.setToolTip("Work-group size, e.g. 16x16; empty for the variant's default")
        launch_form.addRow("&Local size", self.local_edit)
        self.define_row = QWidget()
        self.define_layout = QGridLayout(self.define_row)  # DEFINES_PER_ROW name/value pairs a row
        self.define_layout.setContentsMargins(0, 0, 0, 0)
        launch_form.addRow("Defines", self.define_row)
        self.define_spins: dict[str, QWidget] = {}
        layout.addWidget(launch)

        # How the host stores each matrix; a kernel written for another order verifies once
        # the order it expects is chosen here (the header's [layout] is the default).
        self.layout_box = QGroupBox("Matrix layout")
        self.layout_form = QFormLayout(self.layout_box)
        self.layout_combos: dict[str, QComboBox] = {}
        self.b_transposed: QCheckBox | None = None  # matmul only
        layout.addWidget(self.layout_box)

        inputs = QGroupBox("Input")
        input_form = QFormLayout(inputs)
        self.input_combo = QComboBox()
        self.text_edit = QLineEdit(model.text)
        self.text_edit.setToolTip("Text drawn into B (matmul) or the input (transpose)")
        self.image_label = QLabel("no image (File ▸ Open image, or drop one here)")
        self.image_label.setWordWrap(True)
        input_form.addRow("&Preset", self.input_combo)
        input_form.addRow("&Text", self.text_edit)
        input_form.addRow("Image", self.image_label)
        layout.addWidget(inputs)

        self.validation = QLabel()
        self.validation.setWordWrap(True)
        self.validation.setObjectName("validation")
        layout.addWidget(self.validation)
        # Shown when only the kernel's own constraints refuse: triggers Run ▸ Run anyway.
        self.anyway_button = QPushButton("Run anyway, outside its constraints (Ctrl+Alt+R)")
        self.anyway_button.setObjectName("run-anyway")
        self.anyway_button.setVisible(False)
        self.anyway_button.clicked.connect(lambda: self.anyway_requested.emit())
        layout.addWidget(self.anyway_button)
        self.refusal: Refusal | None = None  # the current configuration's, None when valid
        layout.addStretch(1)

        self.device_combo.currentIndexChanged.connect(self._device_picked)
        self.family_combo.currentIndexChanged.connect(self._family_picked)
        self.variant_combo.currentIndexChanged.connect(self._variant_picked)
        self.local_edit.editingFinished.connect(self._local_edited)
        self.input_combo.currentIndexChanged.connect(self._input_picked)
        self.text_edit.editingFinished.connect(self._input_picked)

        model.devices_changed.connect(self._show_devices)
        model.device_changed.connect(self._show_device)
        model.family_changed.connect(self._show_family)
        model.variant_changed.connect(self._show_variant)
        model.sizes_changed.connect(self._show_sizes)
        model.local_changed.connect(self._show_local)
        model.defines_changed.connect(self._show_defines)
        model.input_changed.connect(self._show_input)
        model.layout_changed.connect(self._show_layout)
        for signal in (
            model.device_changed,
            model.variant_changed,
            model.sizes_changed,
            model.local_changed,
            model.defines_changed,
        ):
            signal.connect(self.validate)
        self._show_family()
        self._show_variant()
        self._show_sizes()
        self._show_input()
        self.validate()

    # -- model → widgets -----------------------------------------------------------
    def _show_devices(self) -> None:
        self._updating = True
        self.device_combo.clear()
        for device in self.model.devices:
            self.device_combo.addItem(f"{device.name} ({device.type})", device.key)
            tip = (
                f"{device.name}\n{device.platform}, {device.opencl_version}\n"
                f"driver {device.driver_version}\n{device.compute_units} compute units, "
                f"{device.clock_mhz} MHz\nmax work-group {device.max_work_group_size}, "
                f"local memory {device.local_mem_bytes // 1024} KiB, global memory "
                f"{device.global_mem_bytes / 2**30:.1f} GiB"
            )
            self.device_combo.setItemData(
                self.device_combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole
            )
        self._updating = False
        self._show_device()

    def _show_device(self) -> None:
        index = self.device_combo.findData(self.model.device_key)
        if index >= 0 and index != self.device_combo.currentIndex():
            self._updating = True
            self.device_combo.setCurrentIndex(index)
            self._updating = False

    def _show_family(self) -> None:
        self._updating = True
        self.family_combo.setCurrentIndex(self.family_combo.findData(self.model.family))
        self.variant_combo.clear()
        for variant in self.model.variants():
            label = variant.name + ("  ⚠ known bug" if variant.bug else "")
            self.variant_combo.addItem(label, variant.path)
        problem = FAMILIES[self.model.family]
        self.input_combo.clear()
        for preset in problem.input_presets:
            self.input_combo.addItem(preset, preset)
        self._updating = False
        self._rebuild_sizes()
        self._show_input()

    def _show_variant(self) -> None:
        variant = self.model.variant
        self._updating = True
        if self.variant_combo.findData(variant.path) < 0:
            self._show_family()
            self._updating = True
        self.variant_combo.setCurrentIndex(self.variant_combo.findData(variant.path))
        self._updating = False
        self.about_title.setText(f"{variant.name}  ({variant.source_ref or 'explorer'})")
        self.about.setText(variant.text)
        self.about_bug.setText(f"Known bug: {variant.bug}" if variant.bug else "")
        self.about_bug.setVisible(bool(variant.bug))
        self._rebuild_defines()
        self._show_local()
        self._rebuild_layout()

    def _rebuild_sizes(self) -> None:
        while self.size_form.rowCount():
            self.size_form.removeRow(0)
        self.size_spins = {}
        for name in self.model.size_names:
            spin = QSpinBox()
            spin.setRange(1, MAX_SIZE)
            spin.setKeyboardTracking(False)
            spin.setValue(self.model.sizes.get(name, 1))
            spin.valueChanged.connect(lambda value, n=name: self.model.set_size(n, value))
            self.size_form.addRow(name, spin)
            self.size_spins[name] = spin

    def _show_sizes(self) -> None:
        if set(self.size_spins) != set(self.model.size_names):
            self._rebuild_sizes()
        for name, spin in self.size_spins.items():
            value = self.model.sizes.get(name, 1)
            if spin.value() != value:
                spin.blockSignals(True)
                spin.setValue(value)
                spin.blockSignals(False)

    def _rebuild_defines(self) -> None:
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
            if name in allowed:
                combo = QComboBox()
                for value in allowed[name]:
                    combo.addItem(str(value), value)
                combo.setCurrentIndex(max(0, combo.findData(default)))
                combo.currentIndexChanged.connect(
                    lambda _i, n=name, c=combo: self.model.set_define(n, int(c.currentData()))
                )
                widget: QWidget = combo
            else:
                spin = QSpinBox()
                spin.setRange(1, 4096)
                spin.setValue(default)
                spin.setKeyboardTracking(False)
                spin.valueChanged.connect(lambda value, n=name: self.model.set_define(n, value))
                widget = spin
            self.define_layout.addWidget(widget, row, 2 * column + 1)
            self.define_spins[name] = widget
        if not variant.defines:
            self.define_layout.addWidget(QLabel("none"), 0, 0)

    def _show_defines(self) -> None:
        values = {**self.model.variant.default_defines, **self.model.defines}
        for name, widget in self.define_spins.items():
            widget.blockSignals(True)
            if isinstance(widget, QComboBox):
                widget.setCurrentIndex(max(0, widget.findData(values[name])))
            elif isinstance(widget, QSpinBox):
                widget.setValue(values[name])
            widget.blockSignals(False)

    def _rebuild_layout(self) -> None:
        while self.layout_form.rowCount():
            self.layout_form.removeRow(0)
        self.layout_combos = {}
        self.b_transposed = None
        variant = self.model.variant
        roles = variant.model.matrix_roles
        self.layout_box.setVisible(bool(roles))
        for role in roles:
            combo = QComboBox()
            combo.addItems(ORDERS)
            combo.setObjectName(f"layout-{role}")
            combo.currentIndexChanged.connect(self._layout_picked)
            self.layout_form.addRow(role, combo)
            self.layout_combos[role] = combo
        if "A" in roles and "B" in roles:
            self.b_transposed = QCheckBox("B transposed (the host passes Bᵀ)")
            self.b_transposed.setToolTip(
                "Bᵀ in A's order is B in the other order: what kernels that read B by rows "
                "of Bᵀ (the tutorial SGEMMs) expect"
            )
            self.b_transposed.toggled.connect(self._b_transposed_toggled)
            self.layout_form.addRow(self.b_transposed)
        self._show_layout()

    def _show_layout(self) -> None:
        layout = self.model.layout
        for role, combo in self.layout_combos.items():
            combo.blockSignals(True)
            combo.setCurrentText(role_layout(layout, role))
            combo.blockSignals(False)
        if self.b_transposed is not None:
            self.b_transposed.blockSignals(True)
            self.b_transposed.setChecked(
                self.layout_combos["A"].currentText() != self.layout_combos["B"].currentText()
            )
            self.b_transposed.blockSignals(False)

    def _show_local(self) -> None:
        local = self.model.local
        self.local_edit.setText("x".join(map(str, local)) if local else "")
        self.local_edit.setPlaceholderText("default: " + "x".join(self.model.variant.local_size))

    def _show_input(self) -> None:
        self._updating = True
        self.input_combo.setCurrentIndex(max(0, self.input_combo.findData(self.model.input)))
        self._updating = False
        self.text_edit.setEnabled(self.model.input == "iou")
        path = self.model.image_path
        self.image_label.setText(
            path.rsplit("/", 1)[-1] if path else "no image (File ▸ Open image, or drop one here)"
        )

    # -- widgets → model -----------------------------------------------------------
    def _device_picked(self) -> None:
        if not self._updating:
            self.model.set_device(self.device_combo.currentData())

    def _family_picked(self) -> None:
        if not self._updating:
            self.model.set_family(self.family_combo.currentData())

    def _variant_picked(self) -> None:
        if self._updating:
            return
        path = self.variant_combo.currentData()
        for variant in self.model.variants():
            if variant.path == path:
                self.model.set_variant(variant)

    def _local_edited(self) -> None:
        text = self.local_edit.text().strip().lower().replace("×", "x")
        if not text:
            self.model.set_local(None)
            return
        try:
            local = tuple(int(p) for p in text.split("x"))
        except ValueError:
            self._show_refusal(Refusal(f"local size {text!r} is not like 16x16.", ""))
            return
        self.model.set_local(local)

    def _layout_picked(self) -> None:
        orders = {role: combo.currentText() for role, combo in self.layout_combos.items()}
        self.model.set_layout(compose_layout(orders))

    def _b_transposed_toggled(self, checked: bool) -> None:
        a, b = self.layout_combos.get("A"), self.layout_combos.get("B")
        if a is None or b is None:
            return
        other = ORDERS[1 - ORDERS.index(a.currentText())]
        b.setCurrentText(other if checked else a.currentText())  # through _layout_picked

    def _input_picked(self) -> None:
        if not self._updating and self.input_combo.currentData():
            self.model.set_input(self.input_combo.currentData(), self.text_edit.text())

    # -- validation ----------------------------------------------------------------
    def validate(self) -> bool:
        device = self.model.device
        if device is None:
            self.validation.setText("No OpenCL device yet.")
            self.validity_changed.emit(False)
            return False
        self._validation_generation += 1
        selection = (
            self.model.variant,
            dict(self.model.sizes),
            self.model.local,
            dict(self.model.defines),
            device,
        )
        # The search for values that satisfy the kernel's constraints runs off this thread;
        # the reason shows at once.
        outcome = plan(*selection, suggest=False)
        if isinstance(outcome, Refusal):
            self.refusal = outcome
            self.anyway_button.setVisible(outcome.overridable)
            self._show_refusal(outcome)
            if not outcome.fix:
                self._search_fix(self._validation_generation, selection)
            return False
        self.refusal = None
        self.anyway_button.setVisible(False)
        self._clear_marks()
        self.validation.setStyleSheet("color: #1e8449")
        self.validation.setText(
            f"Global {'x'.join(map(str, outcome.global_size))}, local "
            f"{'x'.join(map(str, outcome.local_size))}: ready to run (Ctrl+R)."
        )
        self.validity_changed.emit(True)
        return True

    def _search_fix(self, generation: int, selection: tuple[Any, ...]) -> None:
        def search() -> None:
            found = plan(*selection)
            fix = found.fix if isinstance(found, Refusal) else ""
            with contextlib.suppress(RuntimeError):  # the panel closed while it searched
                self.fix_found.emit(generation, fix)

        threading.Thread(target=search, name="local-size fix search", daemon=True).start()

    def _fix_arrived(self, generation: int, fix: str) -> None:
        if generation == self._validation_generation and fix:
            self.validation.setText(f"<b>Refused:</b> {self._refusal_reason} {fix}")

    def _show_refusal(self, refusal: Refusal) -> None:
        self._refusal_reason = refusal.reason
        self.validation.setStyleSheet("color: #c0392b")
        self.validation.setText(f"<b>Refused:</b> {refusal.reason} {refusal.fix}")
        # Mark the fields the reason names: the local size, sizes, defines.
        reason = refusal.reason
        local = "local" in reason.lower() or any(f"L{i}" in reason for i in range(3))
        self.local_edit.setStyleSheet(BAD_FIELD if local else "")
        for name, spin in self.size_spins.items():
            spin.setStyleSheet(BAD_FIELD if re.search(rf"\b{name}\b", reason) else "")
        for name, widget in self.define_spins.items():
            widget.setStyleSheet(BAD_FIELD if re.search(rf"\b{name}\b", reason) else "")
        self.validity_changed.emit(False)

    def _clear_marks(self) -> None:
        for widget in (self.local_edit, *self.size_spins.values(), *self.define_spins.values()):
            widget.setStyleSheet("")
