"""Opening a kernel without a catalog header: pick its family, map its parameters onto the
family's roles, and (on request) write the header into the file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QTableWidget,
    QVBoxLayout,
)

from explorer.engine import signature
from explorer.engine.catalog import header_text, with_header
from explorer.engine.records import Variant
from explorer.engine.signature import Parameter, kernel_signature
from explorer.families import FAMILIES, get_family


def kernel_names(source: str) -> list[str]:
    """The kernels of ``source``, as the front end reads them."""
    return signature.kernel_names(source)


def guess_roles(family: str, params: list[Parameter]) -> list[str]:
    """A first guess of each parameter's role: by name, then by kind and position."""
    problem = get_family(family)
    roles = list(problem.roles)
    buffers = list(problem.buffer_roles)
    scalars = list(problem.scalar_roles)
    chosen: list[str] = [""] * len(params)
    taken: set[str] = set()
    for i, p in enumerate(params):
        name = p.name.lower()
        for role in roles:
            if role not in taken and (
                name == role.lower() or name in problem.role_aliases.get(role, ())
            ):
                kind_ok = (role in problem.local_roles) == (p.space == "local") and (
                    (p.space == "scalar") == (role in scalars)
                )
                if kind_ok:
                    chosen[i] = role
                    taken.add(role)
                    break
    for i, p in enumerate(params):
        if chosen[i]:
            continue
        pool = (
            scalars
            if p.space == "scalar"
            else list(problem.local_roles)
            if p.space == "local"
            else buffers
        )
        free = [r for r in pool if r not in taken]
        if free:
            chosen[i] = free[0]
            taken.add(free[0])
    return chosen


class KernelMappingDialog(QDialog):
    """Family, kernel function, a role per parameter, NDRange; writes the header on request."""

    def __init__(self, path: str | Path, parent=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(parent)
        self.path = Path(path)
        self.source = self.path.read_text(encoding="utf-8")
        self.setWindowTitle(f"Open {self.path.name}: map its parameters")
        layout = QVBoxLayout(self)
        layout.addWidget(
            QLabel(
                "This file has no catalog header. Say which problem it solves and what each of "
                "its parameters is; the explorer then runs, verifies and traces it like any other."
            )
        )
        form = QFormLayout()
        self.family = QComboBox()
        self.family.addItems(list(FAMILIES))
        self.kernel = QComboBox()
        self.kernel.addItems(kernel_names(self.source))
        self.global_size = QLineEdit()
        self.local_size = QLineEdit()
        form.addRow("Family", self.family)
        form.addRow("Kernel", self.kernel)
        form.addRow("Global size", self.global_size)
        form.addRow("Local size", self.local_size)
        layout.addLayout(form)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Parameter", "Kind", "Role"])
        layout.addWidget(self.table)
        self.write = QCheckBox("Write this header at the top of the file")
        layout.addWidget(self.write)
        self.error = QLabel()
        self.error.setStyleSheet("color: #c0392b")
        layout.addWidget(self.error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.family.currentTextChanged.connect(self._refresh)
        self.kernel.currentTextChanged.connect(self._refresh)
        self.variant: Variant | None = None
        self._refresh()

    def params(self) -> list[Parameter]:
        name = self.kernel.currentText()
        return kernel_signature(self.source, name) if name else []

    def _refresh(self) -> None:
        family = self.family.currentText()
        params = self.params()
        guesses = guess_roles(family, params)
        self.table.setRowCount(len(params))
        roles = ["", *FAMILIES[family].roles]
        for row, (p, guess) in enumerate(zip(params, guesses, strict=True)):
            self.table.setCellWidget(row, 0, QLabel(p.name))
            kind = (
                p.scalar_type
                if p.space == "scalar"
                else "image"
                if p.is_image
                else f"__{p.space} pointer"
            )
            self.table.setCellWidget(row, 1, QLabel(kind))
            combo = QComboBox()
            combo.addItems(roles)
            combo.setCurrentText(guess)
            self.table.setCellWidget(row, 2, combo)
        problem = get_family(family)
        self.global_size.setText(", ".join(problem.launch_global))
        self.local_size.setText(", ".join(problem.launch_local))

    def roles(self) -> list[str]:
        return [self.table.cellWidget(r, 2).currentText() for r in range(self.table.rowCount())]

    def header(self) -> str:
        def split(text: str) -> list[str]:
            return [p.strip() for p in text.split(",") if p.strip()]

        return header_text(
            self.path.stem,
            self.family.currentText(),
            self.kernel.currentText(),
            self.roles(),
            split(self.global_size.text()),
            split(self.local_size.text()),
        )

    def accept(self) -> None:
        from explorer.engine.catalog import CatalogError, parse_variant

        roles = self.roles()
        if "" in roles:
            self.error.setText("Every parameter needs a role.")
            return
        try:
            header = self.header()
            if self.write.isChecked():
                self.path.write_text(header + self.source, encoding="utf-8")
                self.variant = parse_variant(header + self.source, self.path)
            else:
                self.variant = with_header(self.source, header, self.path)
        except (CatalogError, OSError) as exc:
            self.error.setText(str(exc))
            return
        super().accept()
