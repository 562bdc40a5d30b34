"""Opening a kernel without a catalog header: pick its family and map its parameters onto
the family's roles, or declare each parameter (the ``custom`` form, guessed from the parsed
parameter list); then, on request, write the header into the file."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
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

from explorer.description.contents import make_buffers
from explorer.description.declarations import (
    ACCESS,
    BufferDecl,
    Declaration,
    DeclarationError,
    LocalDecl,
    ScalarDecl,
)
from explorer.description.expressions import evaluate
from explorer.description.launch import Setting
from explorer.description.numpy_expressions import check_expression
from explorer.engine.header import signature
from explorer.engine.header.catalog import CatalogError, header_text, load_variant_file, with_header
from explorer.engine.header.guess import (
    SIZE_TYPES,
    CustomGuess,
    custom_header,
    guess_declarations,
    required_local_size,
)
from explorer.engine.header.signature import Parameter, SignatureError, kernel_signature
from explorer.engine.launch.judge import references
from explorer.engine.records import RunResult, Variant
from explorer.families import FAMILIES, fixed_family, get_family
from explorer.frontend.line_directives import HEADER

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
_HEADER_LINE_END = re.compile(r"[ \t]*\r?\n?")  # the rest of the header's last line
_SIZE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\d+)\s*$")


def with_written_header(source: str, header: str) -> str:
    """``source`` with ``header`` at its top, in place of the header it had (if any); the
    kernel text below is kept byte for byte."""
    match = HEADER.match(source)
    if match is None:
        return header + source
    line_end = _HEADER_LINE_END.match(source, match.end())
    return header + source[line_end.end() if line_end else match.end() :]


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
    size (a ``float`` by value means a kernel of its own). A family whose required roles the
    parameters cannot all take is none (a reduction's in, out, scratch and n lack matvec's
    vector). A histogram counts with atomics: a source without them is not one."""
    if any(p.space == "scalar" and p.scalar_type not in SIZE_TYPES for p in params):
        return CUSTOM
    best, best_score = CUSTOM, 0
    for family, family_model in FAMILIES.items():
        if family == CUSTOM or len(family_model.roles) < len(params):
            continue
        if family == "histogram" and source and not re.search(r"\b(?:atomic|atom)_", source):
            continue
        guessed = guess_roles(family, params)
        if "" in guessed or not set(family_model.required_roles) <= set(guessed):
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


# Runs a kernel once on random data at the given sizes (the family check); None: no device.
Checker = Callable[[Variant, dict[str, int]], RunResult | None]
CHECK_SIDE = 64  # each size of a family check, at least: small, and a multiple of common tiles
# Buffers larger than this (elements, all together) are not made to try a reference as it is
# typed: only what can be told without computing it is checked then.
TRY_ELEMENTS = 4 << 20
REFERENCE_TIP = (
    "A numpy expression over the buffers (in their shapes), the scalars and the sizes: "
    "+ - * / // % ** @, comparisons, subscripts and slices, None/np.newaxis, .T, .shape; "
    "numpy's functions with or without np. (sum, cumsum, reshape, pad, where, dot, einsum, "
    "concatenate, stack, roll, clip, ...) and the array methods that are those functions "
    "(x.reshape(H, W), x.sum(axis=1)). Empty: the result runs, not checked."
)


def check_sizes(family: str, local: tuple[str, ...]) -> dict[str, int]:
    """The small sizes a family check runs at: each of the family's sizes
    :data:`CHECK_SIDE`, or the next multiple of the largest side of the local size."""
    sides = [int(side) for side in local if side.isdigit()] or [1]
    step = max(sides)
    value = -(-max(CHECK_SIDE, step) // step) * step
    return {name: value for name in fixed_family(family).size_names}


def sizes_in_words(sizes: dict[str, int]) -> str:
    return ", ".join(f"{name} = {value}" for name, value in sizes.items())


class KernelMappingDialog(QDialog):
    """Family, kernel function, a role per parameter, NDRange; writes the header on request.

    It proposes only what it has checked: the family a kernel's names point at is offered
    only where one run at small sizes (``checker``) agrees with that family's reference;
    otherwise the ``custom`` form is proposed with the shapes guessed from the source. The
    local size comes from the kernel's own text (``reqd_work_group_size``, a ``__local`` tile,
    a ``#define``d side). A reference is tried as it is typed, against what the evaluator
    supports. ``answers``: the header kept from the last time this file was opened, proposed
    again. ``compared_with``: the kernel on screen, when this file is mapped as the reference
    of a trace comparison (its family is the one this file is mapped to)."""

    def __init__(
        self,
        path: str | Path,
        parent: QWidget | None = None,
        checker: Checker | None = None,
        answers: str | None = None,
        compared_with: Variant | None = None,
    ) -> None:
        super().__init__(parent)
        self.path = Path(path)
        self.source = self.path.read_text(encoding="utf-8")
        self.checker = checker
        self.compared_with = compared_with
        if compared_with is None:
            self.setWindowTitle(f"Open {self.path.name}: map its parameters")
            intro = (
                "This file has no catalog header. Say which problem it solves and what each of "
                "its parameters is; the explorer then runs, verifies and traces it like any other."
            )
        else:
            self.setWindowTitle(f"Compare with {self.path.name}: map its parameters")
            intro = (
                f"{self.path.name} has no catalog header. It is traced at the launch of "
                f"{compared_with.name}, a {compared_with.family} kernel: say what each of its "
                "parameters is, as for the kernel on screen."
            )
        layout = QVBoxLayout(self)
        heading = QLabel(intro)
        heading.setWordWrap(True)
        layout.addWidget(heading)
        form = QFormLayout()
        self.family = QComboBox()
        self.family.addItems(list(FAMILIES))
        self.kernel = QComboBox()
        self.kernel.addItems(kernel_names(self.source))
        self.global_size = QLineEdit()
        self.local_size = QLineEdit()
        self.local_size.setToolTip(
            "The work-group size: taken from the kernel's reqd_work_group_size, a __local tile "
            "it declares or a #define'd tile side where it has one"
        )
        form.addRow("&Family", self.family)
        form.addRow("&Kernel", self.kernel)
        form.addRow("&Global size", self.global_size)
        form.addRow("&Local size", self.local_size)
        layout.addLayout(form)
        # What was checked, and why this is what is proposed.
        self.note = QLabel()
        self.note.setObjectName("proposal-note")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #1a5276")
        layout.addWidget(self.note)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Parameter", "Kind", "Role"])
        self.table.setTabKeyNavigation(False)  # Tab goes on through its fields and out
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # its fields take the focus
        # The custom form: the named sizes, one declaration per parameter, a reference.
        custom_page = QWidget()
        custom_form = QFormLayout(custom_page)
        custom_form.setContentsMargins(0, 0, 0, 0)
        self.sizes = QLineEdit()
        self.sizes.setToolTip("The named sizes and their values, e.g. N = 1024, M = 64")
        self.declarations_table = QTableWidget(0, len(DECLARATION_COLUMNS))
        self.declarations_table.setHorizontalHeaderLabels(list(DECLARATION_COLUMNS))
        self.declarations_table.setTabKeyNavigation(False)
        self.declarations_table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.reference = QLineEdit()
        self.reference.setPlaceholderText(
            "numpy expression for the first result, e.g. alpha * x + y (empty: not checked)"
        )
        self.reference.setToolTip(REFERENCE_TIP)
        self.reference_note = QLabel()
        self.reference_note.setObjectName("reference-note")
        self.reference_note.setWordWrap(True)
        custom_form.addRow("&Sizes", self.sizes)
        custom_form.addRow(self.declarations_table)
        custom_form.addRow("&Reference", self.reference)
        custom_form.addRow(self.reference_note)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.table)
        self.pages.addWidget(custom_page)
        layout.addWidget(self.pages, 1)
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
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.write_button.clicked.connect(self.write_header)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.variant: Variant | None = None
        self.written = False  # the header is in the file (not only in memory)
        # The family checks made, by family: the run, or why there was none.
        self.checked: dict[str, RunResult | str] = {}
        self._proposing = True  # the dialog, not the person, is setting the fields
        # A reference is tried once typing pauses, not at every key.
        self._try_timer = QTimer(self)
        self._try_timer.setSingleShot(True)
        self._try_timer.setInterval(250)
        self._try_timer.timeout.connect(self.try_reference)
        self.reference.textChanged.connect(self._try_timer.start)
        self.sizes.editingFinished.connect(self._try_timer.start)
        self._propose(answers)
        self.family.currentTextChanged.connect(self._family_chosen)
        self.kernel.currentTextChanged.connect(self._kernel_chosen)
        self._proposing = False
        # As wide as the custom form's columns need, within a 1280×720 screen.
        # The parent window's screen: asking an unshown dialog for its own screen here let
        # PySide delete the application's QScreen later (a crash at a random place).
        screen = parent.screen() if parent is not None else QGuiApplication.primaryScreen()
        available = screen.availableGeometry()
        self.resize(min(1000, available.width() - 60), min(640, available.height() - 40))

    def params(self) -> list[Parameter]:
        name = self.kernel.currentText()
        return kernel_signature(self.source, name) if name else []

    # -- what is proposed --------------------------------------------------------------
    def _propose(self, answers: str | None) -> None:
        """The first proposal: the answers given last time, the kernel on screen's family
        for a comparison, else the family the names point at where a run agrees with it
        (checked once the dialog is up, the dialog disabled meanwhile), else the custom
        form."""
        on_screen = self.compared_with
        if on_screen is not None:
            self.family.setEnabled(False)  # a comparison needs the family on screen
        if answers and self._apply_answers(answers):
            return
        kernel = self.kernel.currentText()
        if on_screen is not None:
            self._set_family(on_screen.family)
            self.note.setText(
                f"Mapped as a {on_screen.family} kernel, as {on_screen.name} on screen is: a "
                "trace comparison runs both at the same launch."
            )
            return
        named = guess_family(self.params(), kernel, self.source)
        if named == CUSTOM:
            self._set_family(CUSTOM)
            self.note.setText(
                "Its names point at none of the families: declare its parameters below."
            )
            return
        self._set_family(named)  # the roles and NDRange the check runs with
        if self.checker is None:
            self._propose_checked(named)
        else:
            self.setEnabled(False)  # until the check has said what to propose
            QTimer.singleShot(0, lambda: self._propose_checked(named))

    def _propose_checked(self, named: str) -> None:
        """``named`` where a run agrees with its reference, else the custom form, saying
        why."""
        result = self._check(named)
        self.setEnabled(True)
        if isinstance(result, RunResult) and result.status == "verified":
            self.note.setText(self._agrees(named))
            return
        why = self._disagrees(named, result)
        self._set_family(CUSTOM)
        self.note.setText(
            f"Its names suggest the {named} family, but {why}. It is proposed as your own "
            "kernel instead: check the declarations and give it a reference to have it verified."
        )

    def _apply_answers(self, answers: str) -> bool:
        """Fill the fields from the header kept for this file; False (nothing changed) where
        it no longer fits the file (another kernel name, other parameters)."""
        try:
            kept = with_header(self.source, answers, self.path)
            names = [p.name for p in kernel_signature(self.source, kept.kernel)]
        except (CatalogError, SignatureError, ValueError):
            self.note.setText(
                f"The answers kept for {self.path.name} no longer fit it: proposed afresh."
            )
            return False
        if self.kernel.findText(kept.kernel) < 0:
            return False
        on_screen = self.compared_with
        if on_screen is not None and kept.family != on_screen.family:
            return False  # given for another use of the file: the comparison needs its family
        self.kernel.setCurrentText(kept.kernel)
        self.family.setCurrentText(kept.family)
        if kept.custom is not None:
            spec = kept.custom
            if [p.name for p in spec.params] != names:
                return False
            self.pages.setCurrentIndex(1)
            guess = CustomGuess(spec.sizes, spec.params, kept.global_size, kept.local_size)
            self._fill_custom(guess)
            results = dict(spec.reference_numpy)
            first = spec.results[0].name if spec.results else ""
            self.reference.setText(results.get(first, next(iter(results.values()), "")))
        else:
            if len(kept.args) != len(names):
                return False
            self.pages.setCurrentIndex(0)
            self._fill_roles(kept.family, list(kept.args), kept.global_size, kept.local_size)
        self.note.setText(f"Your answers from the last time you opened {self.path.name}.")
        return True

    def _set_family(self, family: str) -> None:
        """Show ``family``'s form with its guesses (the dialog's own change)."""
        proposing, self._proposing = self._proposing, True
        self.family.setCurrentText(family)
        self._refresh()
        self._proposing = proposing

    def _family_chosen(self) -> None:
        """The person picked a family: its form with its guesses, and, for a family, whether
        a run at small sizes agrees with its reference (said, not enforced)."""
        if self._proposing:
            return
        self._refresh()
        family = self.family.currentText()
        if family == CUSTOM:
            self.note.setText("")
            return
        result = self._check(family)
        if isinstance(result, RunResult) and result.status == "verified":
            self.note.setText(self._agrees(family))
        else:
            self.note.setText(
                f"Not proposed: {self._disagrees(family, result)}. A run as a {family} kernel "
                f"would be judged by that reference."
            )

    def _kernel_chosen(self) -> None:
        if not self._proposing:
            self._refresh()

    def _check(self, family: str) -> RunResult | str:
        """One run as a ``family`` kernel, with the roles and NDRange shown, at small sizes
        on random data (kept per family); why there is none otherwise, as a clause."""
        if family in self.checked:
            return self.checked[family]
        try:
            variant = with_header(self.source, self._family_header(family), self.path)
        except (CatalogError, ValueError) as exc:
            why = str(exc).removeprefix(f"{self.path}: ")
            return f"its parameters cannot be mapped onto that family's roles ({why})"
        if self.checker is None:
            return "there is no device to check that on"
        sizes = check_sizes(family, variant.local_size)
        self.note.setText(
            f"Checking whether it is a {family} kernel: one run at {sizes_in_words(sizes)} …"
        )
        focused = self.focusWidget()
        self.setEnabled(False)
        try:
            result = self.checker(variant, sizes)
        finally:
            self.setEnabled(True)
            # Disabled, the dialog lost the focus (or was shown without one): the field the
            # person was in again, else the first one, so the keys act on the dialog at once.
            if focused is None or not focused.isEnabled():
                focused = self.family if self.family.isEnabled() else self.kernel
            focused.setFocus()
        outcome = result or "the check did not run (it was cancelled, or no device is ready)"
        self.checked[family] = outcome
        return outcome

    def _family_header(self, family: str) -> str:
        return header_text(
            self.path.stem,
            family,
            self.kernel.currentText(),
            self.roles(),
            _split(self.global_size.text()),
            _split(self.local_size.text()),
        )

    @staticmethod
    def _agrees(family: str) -> str:
        return (
            f"Checked: a run on random data agrees with the {family} family's reference "
            f"({fixed_family(family).description.rstrip('.')})."
        )

    def _disagrees(self, family: str, result: RunResult | str) -> str:
        """Why ``family`` was not checked to agree, in words (a clause)."""
        reference = fixed_family(family).description.rstrip(".")
        if isinstance(result, str):
            return result
        at = sizes_in_words(result.sizes)
        if result.verdict is not None and result.error is None and result.refused is None:
            verdict = result.verdict
            total = math.prod(fixed_family(family).output_shape(result.sizes))
            of = f" of {total:,}" if total else ""
            nan = f", {verdict.not_a_number:,} of them NaN" if verdict.not_a_number else ""
            return (
                f"a run at {at} does not agree with that family's reference ({reference}): "
                f"{verdict.mismatches:,}{of} elements differ{nan}"
            )
        why = result.refused.reason if result.refused is not None else result.error or ""
        return f"a run as one at {at} did not complete ({why.rstrip('.')})"

    def _refresh(self) -> None:
        family = self.family.currentText()
        self.error.setText("")
        if family == CUSTOM:
            self.pages.setCurrentIndex(1)
            self._refresh_custom()
            return
        self.pages.setCurrentIndex(0)
        family_model = get_family(family)
        local = required_local_size(
            self.source, self.kernel.currentText(), len(family_model.launch_local)
        )
        self._fill_roles(
            family,
            guess_roles(family, self.params()),
            family_model.launch_global,
            local or family_model.launch_local,
        )

    def _fill_roles(
        self,
        family: str,
        roles: list[str],
        global_size: tuple[str, ...],
        local_size: tuple[str, ...],
    ) -> None:
        """A role per parameter (the choices ``family`` has), and the NDRange."""
        params = self.params()
        self.table.setRowCount(len(params))
        choices = ["", *FAMILIES[family].roles]
        for row, (p, role) in enumerate(zip(params, roles, strict=True)):
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
            combo.addItems(choices)
            combo.setCurrentText(role)
            self.table.setCellWidget(row, 2, combo)
        self.table.resizeColumnsToContents()
        self._order_tabs()
        self.global_size.setText(", ".join(global_size))
        self.local_size.setText(", ".join(local_size))

    def _refresh_custom(self) -> None:
        """Guessed declarations from the parsed parameter list, one editable row each (the
        kernel on screen's own, for the parameters it shares, in a comparison)."""
        name = self.kernel.currentText()
        self.declarations_table.setRowCount(0)
        if not name:
            return
        try:
            guess = guess_declarations(self.source, name)
        except (DeclarationError, SignatureError) as exc:
            self.error.setText(str(exc))
            return
        on_screen = self.compared_with
        if on_screen is not None and on_screen.custom is not None:
            theirs = {p.name: p for p in on_screen.custom.params}
            same = tuple(theirs.get(p.name, p) for p in guess.params)
            guess = CustomGuess(
                on_screen.custom.sizes, same, on_screen.global_size, on_screen.local_size
            )
        self._fill_custom(guess)

    def _fill_custom(self, guess: CustomGuess) -> None:
        """The custom form from ``guess``: sizes, a row per declaration, the NDRange."""
        table = self.declarations_table
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
            elif isinstance(decl, ScalarDecl):
                kind, amount = "scalar", ", ".join(decl.value)
            else:  # a sampler: the form guesses none (images are declared in the header)
                continue
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
        self._order_tabs()

    def _order_tabs(self) -> None:
        """Tab in the order the fields are drawn, through each table's fields row by row and
        on to what follows it (a field put in a table joins the end of the focus chain, after
        the buttons, and a table's own Tab would keep the focus among its cells)."""
        fields: list[QWidget] = [self.family, self.kernel, self.global_size, self.local_size]
        for table in (self.table, self.declarations_table):
            if table is self.declarations_table:
                fields.append(self.sizes)
            for row in range(table.rowCount()):
                for column in range(table.columnCount()):
                    cell = table.cellWidget(row, column)
                    if cell is not None and cell.focusPolicy() & Qt.FocusPolicy.TabFocus:
                        fields.append(cell)
        fields += [self.reference, self.write]
        if self.ok_button is not None:
            fields.append(self.ok_button)
        for before, after in pairwise(fields):
            QWidget.setTabOrder(before, after)

    # -- the reference, tried as it is typed ---------------------------------------------
    def try_reference(self) -> str | None:
        """Try the reference on the form's declarations at its sizes: the sentence that says
        what is wrong with it (shown under it, in red), or None where it computes a value
        for the first result (said under it too)."""
        self._try_timer.stop()
        problem, fine = self._reference_outcome()
        colour = "#c0392b" if problem else "#1e8449" if fine.startswith("Computes") else "#555555"
        self.reference_note.setStyleSheet(f"color: {colour}")
        self.reference_note.setText(problem or fine)
        return problem

    def _reference_outcome(self) -> tuple[str | None, str]:
        text = self.reference.text().strip()
        if self.family.currentText() != CUSTOM or not text:
            return None, ""
        try:
            guess = self.declarations()
            variant = with_header(
                self.source,
                custom_header(self.path.stem, self.kernel.currentText(), guess, text),
                self.path,
            )
        except (CatalogError, ValueError):
            # The declarations are not complete yet (OK says what): the names are checked.
            names = {name for name, _ in parse_sizes_or_none(self.sizes.text())}
            names |= {p.name for p in self.params()} | {"L0", "L1", "L2", "COMPUTE_UNITS"}
            problem = check_expression(text, names)
            return (f"Reference: {problem}" if problem else None), ""
        return reference_outcome(variant, text)

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
        return self._family_header(self.family.currentText())

    def accept(self) -> None:
        self._finish(write=self.write.isChecked())

    def write_header(self) -> None:
        """Write the header into the file now (replacing a leading one), and open the file."""
        self._finish(write=True)

    def _finish(self, write: bool) -> None:
        if self.family.currentText() != CUSTOM and "" in self.roles():
            self.error.setText("Every parameter needs a role.")
            return
        problem = self.try_reference()
        if problem:
            self.error.setText(problem)
            self.reference.setFocus()
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


def parse_sizes_or_none(text: str) -> tuple[tuple[str, int], ...]:
    """The sizes typed so far, or none where they do not read yet."""
    try:
        return parse_sizes(text)
    except ValueError:
        return ()


def reference_outcome(variant: Variant, text: str) -> tuple[str | None, str]:
    """What the reference ``text`` of a custom ``variant`` gives at its declared sizes: (the
    sentence saying why it cannot be computed, or None; what it computes, in words). Tried
    as a run would compute it (:func:`~explorer.engine.launch.judge.references`) on inputs of
    the declared shapes, or, where they are large, only as far as can be told without them."""
    names = {p.name for p in (variant.custom.params if variant.custom else ())}
    sizes = dict(variant.custom.sizes) if variant.custom else {}
    try:
        setting_names = {**sizes, **variant.default_defines}
        local = tuple(evaluate(side, setting_names) for side in variant.local_size)
        setting = Setting(sizes, variant.default_defines, local)
        description = variant.model.describe(setting, variant.args, variant.layout, variant.element)
    except (ValueError, KeyError) as exc:
        problem = check_expression(text, names | set(sizes) | {"L0", "L1", "L2", "COMPUTE_UNITS"})
        if problem:
            return f"Reference: {problem}", ""
        return None, f"Tried once the declarations above are complete ({exc})."
    problem = check_expression(text, names | set(setting.names))
    if problem:
        return f"Reference: {problem}", ""
    if sum(b.count for b in description.buffers) > TRY_ELEMENTS:
        return None, "Its names and functions are known (too large to compute here)."
    try:
        inputs = make_buffers(description.buffers)
        answers = references(description, inputs, setting.names, lambda _check: {})
    except (ValueError, ArithmeticError, IndexError, TypeError, MemoryError) as exc:
        message = str(exc)
        prefix = re.match(r"\[reference\] numpy for '[^']*': ", message)
        return f"Reference: {message[prefix.end() :] if prefix else message}", ""
    if not answers:
        return None, ""
    result, answer = next(iter(answers.items()))
    shape = " × ".join(str(side) for side in answer.value.shape) or "1"
    return None, f"Computes {shape} values for {result} at {sizes_in_words(sizes)}."


def _cell(table: QTableWidget, row: int, column: int, kind: type[W]) -> W:
    """The widget the dialog put in a cell, as the kind it put there."""
    widget = table.cellWidget(row, column)
    assert isinstance(widget, kind), (row, column)
    return widget


def _split(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]
