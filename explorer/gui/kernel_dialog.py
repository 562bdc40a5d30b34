"""Opening a kernel without a catalog header: pick its family and map its parameters onto
the family's roles, or declare each parameter (the ``custom`` form, guessed from the parsed
parameter list); then, on request, write the header into the file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TypeVar

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from explorer.description.declarations import (
    ACCESS,
    BufferDecl,
    Declaration,
    DeclarationError,
    LocalDecl,
    ScalarDecl,
)
from explorer.engine.header import signature
from explorer.engine.header.catalog import CatalogError, header_text, load_variant_file, with_header
from explorer.engine.header.guess import (
    SIZE_TYPES,
    CustomGuess,
    custom_header,
    guess_declarations,
)
from explorer.engine.header.signature import Parameter, SignatureError, kernel_signature
from explorer.engine.records import Variant
from explorer.families import FAMILIES, fixed_family, get_family

CUSTOM = "custom"
W = TypeVar("W", bound=QWidget)
# What a buffer may start as in the dialog; the header takes more (image, npy, data).
DIALOG_CONTENTS = ("random", "zeros", "ones", "iota", "iou")
DECLARATION_COLUMNS = (
    "Parameter",
    "Kind",
    "Type",
    "Count / value",
    "Contents",
    "Access",
    "Result",
    "Shape",
    "Writes",
)
SHAPE_TIP = (
    "How the buffer is drawn: rows, cols (names of sizes or expressions, e.g. H, W); "
    "empty: a vector (wrapped into rows when long)"
)
WRITES_TIP = (
    "What the kernel promises to write: all, or a region of the shape such as [1:-1, 1:-1]; "
    "the trace reports promised elements never written. Empty: nothing promised"
)
_LEADING_HEADER = re.compile(r"\A\s*/\*---[ \t]*\n.*?\n[ \t]*---\*/[ \t]*\n?", re.DOTALL)
_SIZE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\d+)\s*$")


def with_written_header(source: str, header: str) -> str:
    """``source`` with ``header`` at its top, in place of the header it had (if any); the
    kernel text below is kept byte for byte."""
    match = _LEADING_HEADER.match(source)
    return header + (source[match.end() :] if match else source)


def parse_sizes(text: str) -> tuple[tuple[str, int], ...]:
    """``N = 1024, M = 64`` → (("N", 1024), ("M", 64)); a ValueError says what is wrong."""
    sizes = []
    for part in (p for p in text.split(",") if p.strip()):
        match = _SIZE.match(part)
        if match is None or int(match[2]) < 1:
            raise ValueError(f"sizes: {part.strip()!r} is not like N = 1024")
        sizes.append((match[1], int(match[2])))
    return tuple(sizes)


def kernel_names(source: str) -> list[str]:
    """The kernels of ``source``, as the front end reads them."""
    return signature.kernel_names(source)


# Words in a kernel's name that say which family it is (a word of the name, or part of a
# longer word for the longer cues): ``blur3`` is a stencil, ``sgemm_naive`` a matmul.
_NAME_CUES: dict[str, tuple[str, ...]] = {
    "matmul": ("matmul", "gemm", "mm", "matrixmul", "matmult"),
    "transpose": ("transpose", "trans"),
    "matvec": ("matvec", "gemv", "mv", "spmv"),
    "rowdot": ("rowdot",),
    "stencil": ("stencil", "blur", "conv", "convolve", "laplace", "jacobi", "sobel", "smooth"),
    "histogram": ("hist", "histogram", "histo", "bincount"),
}


def _named_after(family: str, kernel: str) -> bool:
    """Whether the kernel's name says it is one of ``family``'s."""
    words = re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1_\2", kernel).lower())
    return any(
        word == cue or (len(cue) >= 4 and cue in word)
        for word in words
        for cue in _NAME_CUES.get(family, ())
    )


def guess_family(params: list[Parameter], kernel: str, source: str = "") -> str:
    """The family a kernel most likely is: among the families whose roles take every
    parameter, the one whose role names (and their usual spellings) name the most parameters,
    its name counting as two; ``custom`` where nothing names one, or where a scalar is not a
    size (a ``float`` by value means a kernel of its own). A histogram counts with atomics:
    a source without them is not one (a reduction's in, out, scratch and n would fit)."""
    if any(p.space == "scalar" and p.scalar_type not in SIZE_TYPES for p in params):
        return CUSTOM
    best, best_score = CUSTOM, 0
    for family, family_model in FAMILIES.items():
        if family == CUSTOM or len(family_model.roles) < len(params):
            continue
        if family == "histogram" and source and not re.search(r"\b(?:atomic|atom)_", source):
            continue
        if "" in guess_roles(family, params):
            continue
        named = sum(1 for role in roles_by_name(family, params) if role)
        score = named + 2 * _named_after(family, kernel)
        if score > best_score:  # the first family of the best score
            best, best_score = family, score
    return best


def roles_by_name(family: str, params: list[Parameter]) -> list[str]:
    """Each parameter's role where its name is the role's or one of its usual spellings
    (and its kind fits), else ""."""
    family_model = fixed_family(family)
    scalars = list(family_model.scalar_roles)
    chosen: list[str] = [""] * len(params)
    taken: set[str] = set()
    for i, p in enumerate(params):
        name = p.name.lower()
        for role in family_model.roles:
            if role not in taken and (
                name == role.lower() or name in family_model.role_aliases.get(role, ())
            ):
                kind_ok = (role in family_model.local_roles) == (p.space == "local") and (
                    (p.space == "scalar") == (role in scalars)
                )
                if kind_ok:
                    chosen[i] = role
                    taken.add(role)
                    break
    return chosen


def guess_roles(family: str, params: list[Parameter]) -> list[str]:
    """A first guess of each parameter's role: by name, then by kind and position."""
    family_model = fixed_family(family)
    buffers = list(family_model.buffer_roles)
    scalars = list(family_model.scalar_roles)
    chosen = roles_by_name(family, params)
    taken = {role for role in chosen if role}
    for i, p in enumerate(params):
        if chosen[i]:
            continue
        pool = (
            scalars
            if p.space == "scalar"
            else list(family_model.local_roles)
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

    def __init__(self, path: str | Path, parent: QWidget | None = None) -> None:
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
        # The custom form: the named sizes, one declaration per parameter, a reference.
        custom_page = QWidget()
        custom_form = QFormLayout(custom_page)
        custom_form.setContentsMargins(0, 0, 0, 0)
        self.sizes = QLineEdit()
        self.sizes.setToolTip("The named sizes and their values, e.g. N = 1024, M = 64")
        self.declarations_table = QTableWidget(0, len(DECLARATION_COLUMNS))
        self.declarations_table.setHorizontalHeaderLabels(list(DECLARATION_COLUMNS))
        self.reference = QLineEdit()
        self.reference.setPlaceholderText(
            "numpy expression for the first result, e.g. alpha * x + y (empty: not checked)"
        )
        custom_form.addRow("Sizes", self.sizes)
        custom_form.addRow(self.declarations_table)
        custom_form.addRow("Reference", self.reference)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.table)
        self.pages.addWidget(custom_page)
        layout.addWidget(self.pages)
        self.write = QCheckBox("Write this header at the top of the file")
        layout.addWidget(self.write)
        self.error = QLabel()
        self.error.setStyleSheet("color: #c0392b")
        self.error.setWordWrap(True)
        layout.addWidget(self.error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.write_button = QPushButton("&Write header into the file")
        self.write_button.setToolTip(
            "Put this header at the top of the file now (replacing one it has); the kernel "
            "text below stays as it is"
        )
        buttons.addButton(self.write_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.write_button.clicked.connect(self.write_header)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.variant: Variant | None = None
        self.written = False  # the header is in the file (not only in memory)
        self._params: list[Parameter] = []
        self._guess_family()
        self.family.currentTextChanged.connect(self._refresh)
        self.kernel.currentTextChanged.connect(self._refresh)
        self._refresh()

    def params(self) -> list[Parameter]:
        name = self.kernel.currentText()
        return kernel_signature(self.source, name) if name else []

    def _guess_family(self) -> None:
        """The family :func:`guess_family` takes the kernel for."""
        kernel = self.kernel.currentText()
        self.family.setCurrentText(guess_family(self.params(), kernel, self.source))

    def _refresh(self) -> None:
        family = self.family.currentText()
        self.error.setText("")
        if family == CUSTOM:
            self.pages.setCurrentIndex(1)
            self._refresh_custom()
            return
        self.pages.setCurrentIndex(0)
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
        family_model = get_family(family)
        self.global_size.setText(", ".join(family_model.launch_global))
        self.local_size.setText(", ".join(family_model.launch_local))

    def _refresh_custom(self) -> None:
        """Guessed declarations from the parsed parameter list, one editable row each."""
        name = self.kernel.currentText()
        table = self.declarations_table
        table.setRowCount(0)
        if not name:
            return
        try:
            guess = guess_declarations(self.source, name)
        except (DeclarationError, SignatureError) as exc:
            self.error.setText(str(exc))
            return
        self.sizes.setText(", ".join(f"{size} = {value}" for size, value in guess.sizes))
        self.global_size.setText(", ".join(guess.global_size))
        self.local_size.setText(", ".join(guess.local_size))
        table.setRowCount(len(guess.params))
        for row, decl in enumerate(guess.params):
            table.setCellWidget(row, 0, QLabel(decl.name))
            if isinstance(decl, BufferDecl):
                kind, amount = "buffer", decl.count
            elif isinstance(decl, LocalDecl):
                kind, amount = "local", decl.count
            else:
                kind, amount = "scalar", ", ".join(decl.value)
            table.setCellWidget(row, 1, QLabel(kind))
            table.setCellWidget(row, 2, QLineEdit(decl.type))
            table.setCellWidget(row, 3, QLineEdit(amount))
            if isinstance(decl, BufferDecl):
                contents = QComboBox()
                contents.addItems(DIALOG_CONTENTS)
                contents.setCurrentText(decl.contents)
                access = QComboBox()
                access.addItems(ACCESS)
                access.setCurrentText(decl.access)
                result = QCheckBox()
                result.setChecked(decl.result)
                table.setCellWidget(row, 4, contents)
                table.setCellWidget(row, 5, access)
                table.setCellWidget(row, 6, result)
                shape = QLineEdit(", ".join(decl.shape))
                shape.setPlaceholderText("vector")
                shape.setToolTip(SHAPE_TIP)
                table.setCellWidget(row, 7, shape)
                writes = QLineEdit(decl.writes)
                writes.setPlaceholderText("nothing promised")
                writes.setToolTip(WRITES_TIP)
                table.setCellWidget(row, 8, writes)
        table.resizeColumnsToContents()

    def declarations(self) -> CustomGuess:
        """The custom form as it stands: sizes, a declaration per row, the NDRange."""
        table = self.declarations_table
        params: list[Declaration] = []
        for row in range(table.rowCount()):
            name = _cell(table, row, 0, QLabel).text()
            kind = _cell(table, row, 1, QLabel).text()
            type_name = _cell(table, row, 2, QLineEdit).text().strip()
            amount = _cell(table, row, 3, QLineEdit).text().strip()
            if kind == "local":
                params.append(LocalDecl(name, type_name, amount))
            elif kind == "scalar":
                values = tuple(v.strip() for v in amount.split(",") if v.strip())
                params.append(ScalarDecl(name, type_name, values))
            else:
                params.append(
                    BufferDecl(
                        name=name,
                        type=type_name,
                        count=amount,
                        contents=_cell(table, row, 4, QComboBox).currentText(),
                        access=_cell(table, row, 5, QComboBox).currentText(),
                        result=_cell(table, row, 6, QCheckBox).isChecked(),
                        shape=tuple(_split(_cell(table, row, 7, QLineEdit).text())),
                        writes=_cell(table, row, 8, QLineEdit).text().strip(),
                    )
                )
        return CustomGuess(
            parse_sizes(self.sizes.text()),
            tuple(params),
            tuple(_split(self.global_size.text())),
            tuple(_split(self.local_size.text())),
        )

    def roles(self) -> list[str]:
        table = self.table
        return [_cell(table, r, 2, QComboBox).currentText() for r in range(table.rowCount())]

    def header(self) -> str:
        """The catalog header the dialog's fields describe."""
        if self.family.currentText() == CUSTOM:
            return custom_header(
                self.path.stem,
                self.kernel.currentText(),
                self.declarations(),
                self.reference.text(),
            )
        return header_text(
            self.path.stem,
            self.family.currentText(),
            self.kernel.currentText(),
            self.roles(),
            _split(self.global_size.text()),
            _split(self.local_size.text()),
        )

    def accept(self) -> None:
        self._finish(write=self.write.isChecked())

    def write_header(self) -> None:
        """Write the header into the file now (replacing a leading one), and open the file."""
        self._finish(write=True)

    def _finish(self, write: bool) -> None:
        if self.family.currentText() != CUSTOM and "" in self.roles():
            self.error.setText("Every parameter needs a role.")
            return
        try:
            header = self.header()
            variant = with_header(self.source, header, self.path)  # refused before writing
            if write:
                self.path.write_text(with_written_header(self.source, header), encoding="utf-8")
                variant = load_variant_file(self.path)
        except (CatalogError, OSError, ValueError) as exc:
            self.error.setText(str(exc))
            return
        self.variant = variant
        self.written = write
        super().accept()


def _cell(table: QTableWidget, row: int, column: int, kind: type[W]) -> W:
    """The widget the dialog put in a cell, as the kind it put there."""
    widget = table.cellWidget(row, column)
    assert isinstance(widget, kind), (row, column)
    return widget


def _split(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]
