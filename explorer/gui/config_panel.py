"""The configuration panel: device, family, variant, sizes, local size, defines, matrix
layouts, input. A custom kernel's named sizes are fields like a family's.

It writes the :class:`ConfigModel` and redraws itself from the model's signals; it never
talks to another widget. The sections below the device, family and variant (what the variant
is, sizes, launch, matrix layout, input) are widgets of :mod:`explorer.gui.config_sections`;
the panel lays them out and explains a refused configuration.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from explorer.engine.launch.plan import plan
from explorer.engine.records import Refusal
from explorer.families import FAMILIES
from explorer.gui.background import Lane
from explorer.gui.config_sections import (
    AboutVariant,
    InputFields,
    LaunchFields,
    LayoutFields,
    SizeFields,
)
from explorer.gui.fitted_combo import FittedCombo
from explorer.gui.model import ConfigModel


class ConfigPanel(QWidget):
    """Pick what to run; a refused configuration is explained before anything runs."""

    validity_changed = Signal(bool)
    anyway_requested = Signal()  # the "Run anyway" button: Run ▸ Run anyway

    def __init__(self, model: ConfigModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self._validation_generation = 0
        self._refusal_reason = ""
        # A refusal's suggested fix is searched for off the GUI thread (it may try many).
        self._fixes = Lane("local-size fix search", owner=self)
        self._updating = False
        layout = QVBoxLayout(self)

        form = QFormLayout()
        self.device_combo = QComboBox()
        self.device_combo.setToolTip("OpenCL device")
        self.family_combo = QComboBox()
        for family, family_model in FAMILIES.items():
            self.family_combo.addItem(family, family)
            self.family_combo.setItemData(
                self.family_combo.count() - 1, family_model.description, Qt.ItemDataRole.ToolTipRole
            )
        self.variant_combo = FittedCombo()  # a seed's long name: never cut at the edge
        form.addRow("&Device", self.device_combo)
        form.addRow("Fa&mily", self.family_combo)
        form.addRow("V&ariant", self.variant_combo)
        layout.addLayout(form)

        self.about = AboutVariant()
        self.sizes = SizeFields(model)
        self.launch = LaunchFields(model)
        self.layouts = LayoutFields(model)
        self.inputs = InputFields(model)
        for section in (self.about, self.sizes, self.launch, self.layouts, self.inputs):
            layout.addWidget(section)

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
        self.launch.unreadable.connect(
            lambda text: self._show_refusal(Refusal(f"local size {text!r} is not like 16x16.", ""))
        )

        model.devices_changed.connect(self._show_devices)
        model.device_changed.connect(self._show_device)
        model.family_changed.connect(self._show_family)
        model.variant_changed.connect(self._show_variant)
        model.sizes_changed.connect(self.sizes.show_sizes)
        model.sizes_changed.connect(self._order_tabs)  # after a custom kernel's new sizes
        model.local_changed.connect(self.launch.show_local)
        for signal in (model.defines_changed, model.sizes_changed, model.device_changed):
            signal.connect(self.launch.show_defines)  # a [[by_size]] rule may change them
        model.input_changed.connect(self.inputs.show_input)
        model.layout_changed.connect(self.layouts.show_layout)
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
        self.sizes.show_sizes()
        self.inputs.show_input()
        self.validate()

    # -- the sections' fields, as tests and the window name them -------------------------
    @property
    def size_spins(self) -> dict[str, QSpinBox]:
        return self.sizes.spins

    @property
    def layout_combos(self) -> dict[str, QComboBox]:
        return self.layouts.combos

    @property
    def b_transposed(self) -> QCheckBox | None:
        return self.layouts.b_transposed

    @property
    def local_edit(self) -> QLineEdit:
        return self.launch.local_edit

    # -- model → widgets -----------------------------------------------------------
    def _show_devices(self) -> None:
        self._updating = True
        self.device_combo.clear()
        for device in self.model.devices:
            self.device_combo.addItem(f"{device.shown_name} ({device.type})", device.key)
            tip = (
                f"{device.shown_name}\n{device.platform}, {device.opencl_version}\n"
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
        self._updating = False
        self.inputs.show_presets()
        self.sizes.rebuild()
        self.inputs.show_input()
        self._order_tabs()

    def _show_variant(self) -> None:
        variant = self.model.variant
        self._updating = True
        if self.variant_combo.findData(variant.path) < 0:
            self._show_family()
            self._updating = True
        self.variant_combo.setCurrentIndex(self.variant_combo.findData(variant.path))
        self._updating = False
        self.about.show_variant(variant)
        self.launch.rebuild_defines()
        self.launch.show_defines()
        self.launch.show_local()
        self.layouts.rebuild()
        self._order_tabs()

    def _order_tabs(self) -> None:
        """Tab goes down the fields in the order they are drawn. Fields rebuilt for a new
        family or variant join the end of the window's focus chain, so without this Tab
        jumps from the variant to the local size and reaches the sizes, the defines and the
        matrix layouts only after the toolbar."""
        fields: list[QWidget] = [self.device_combo, self.family_combo, self.variant_combo]
        fields += self.sizes.spins.values()
        fields.append(self.launch.local_edit)
        fields += self.launch.define_spins.values()
        fields += self.layouts.combos.values()
        if self.layouts.b_transposed is not None:
            fields.append(self.layouts.b_transposed)
        fields += (self.inputs.preset, self.inputs.text, self.anyway_button)
        for before, after in pairwise(fields):
            QWidget.setTabOrder(before, after)

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
        def search() -> str:
            if generation != self._validation_generation:  # another refusal came meanwhile
                return ""
            found = plan(*selection)
            return found.fix if isinstance(found, Refusal) else ""

        self._fixes.submit(search, lambda fix: self._fix_arrived(generation, fix))

    def stop_searching(self) -> None:
        """End the search for a fix (the window is closing)."""
        self._fixes.stop()

    def _fix_arrived(self, generation: int, fix: str) -> None:
        if generation == self._validation_generation and fix:
            self.validation.setText(f"<b>Refused:</b> {self._refusal_reason} {fix}")

    def _show_refusal(self, refusal: Refusal) -> None:
        self._refusal_reason = refusal.reason
        self.validation.setStyleSheet("color: #c0392b")
        self.validation.setText(f"<b>Refused:</b> {refusal.reason} {refusal.fix}")
        # Mark the fields the reason names: the local size, sizes, defines.
        self.sizes.mark(refusal.reason)
        self.launch.mark(refusal.reason)
        self.validity_changed.emit(False)

    def _clear_marks(self) -> None:
        self.sizes.mark("")
        self.launch.mark("")
