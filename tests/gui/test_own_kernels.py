"""Your own kernels: mapping a header-less file, and live reload on save."""

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from tests.gui.conftest import answer_file_dialogs, run_and_wait, trigger

BARE = """// my first matmul, no header yet
__kernel void mm(__global const float* a, __global const float* b, __global float* c,
                 const int M, const int N, const int K)
{
    int col = get_global_id(0), row = get_global_id(1);
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += a[row * K + k] * b[k * N + col];
    c[row * N + col] = acc;
}
"""


def test_mapping_dialog_guesses_roles_and_writes_the_header(qtbot, tmp_path, window, monkeypatch):
    """Ctrl+O on a matmul without a header: a run at 64³ agrees with the family's reference,
    so the family is proposed with its roles; written into the file, it runs verified."""
    from PySide6.QtWidgets import QApplication

    from explorer.gui.kernel_dialog import KernelMappingDialog

    path = tmp_path / "mm.cl"
    path.write_text(BARE)
    proposed = {}

    def answer():
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, KernelMappingDialog) or not dialog.isEnabled():
            QTimer.singleShot(20, answer)
            return
        proposed.update(
            family=dialog.family.currentText(), kernel=dialog.kernel.currentText(),
            roles=dialog.roles(), note=dialog.note.text(),
        )  # fmt: skip
        dialog.write.setChecked(True)
        dialog.accept()

    answer_file_dialogs(monkeypatch, path)
    QTimer.singleShot(0, answer)
    trigger(window, "Open kernel…")
    assert proposed["family"] == "matmul" and proposed["kernel"] == "mm"
    assert proposed["roles"] == ["A", "B", "C", "M", "N", "K"]
    assert proposed["note"].startswith("Checked: a run on random data agrees with the matmul")
    assert window.model.variant.args == ("A", "B", "C", "M", "N", "K")
    assert path.read_text().startswith("/*---")
    for name in ("M", "N", "K"):
        window.model.set_size(name, 40)
    assert run_and_wait(qtbot, window).status == "verified"


def test_header_kept_in_memory_keeps_the_files_line_numbers(qtbot, tmp_path):
    from explorer.gui.kernel_dialog import KernelMappingDialog
    from explorer.trace.instrument import instrument

    path = tmp_path / "mm.cl"
    path.write_text(BARE)
    dialog = KernelMappingDialog(path)
    qtbot.addWidget(dialog)
    dialog.accept()
    assert path.read_text() == BARE  # not written
    sites = instrument(dialog.variant.source, "mm").sites
    line = next(i + 1 for i, t in enumerate(BARE.splitlines()) if "acc +=" in t)
    assert {s.line for s in sites if s.text.startswith("a[")} == {line}


def test_saving_the_file_reruns_it_and_a_build_error_keeps_the_last_result(window, qtbot, tmp_path):
    from explorer.engine.header.catalog import load_variant_file

    source = (Path(__file__).parents[2] / "kernels/matmul/naive.cl").read_text()
    path = tmp_path / "mine.cl"
    path.write_text(source)
    window.controllers.kernels.use_kernel(load_variant_file(path))
    for name in ("M", "N", "K"):
        window.model.set_size(name, 32)
    assert run_and_wait(qtbot, window).status == "verified"

    before = len(window.state.history)
    path.write_text(source.replace("C[row * N + col] = acc;", "C[row * N + col] = 2 * acc;"))
    qtbot.waitUntil(lambda: len(window.state.history) > before, timeout=60000)
    assert window.state.result.status == "wrong"  # the edit changed the result
    shown = window.views.result_view.image.getImageItem().image.copy()

    before = len(window.state.history)
    broken = source.replace("float acc = 0.0f;", "float acc = 0.0f")
    path.write_text(broken)
    qtbot.waitUntil(lambda: len(window.state.history) > before, timeout=60000)
    assert window.state.result.error_kind == "build"
    line = next(i + 1 for i, t in enumerate(broken.splitlines()) if "float acc = 0.0f" in t)
    assert (
        line in window.views.source_view.editor.marked
        or line + 1 in window.views.source_view.editor.marked
    )
    assert "last good result" in window.views.result_view.badge.text()
    assert (window.views.result_view.image.getImageItem().image == shown).all()


def _kernel_with_a_header(tmp_path):
    """naive.cl scaled by SCALE from scale.h beside it."""
    source = (Path(__file__).parents[2] / "kernels/matmul/naive.cl").read_text()
    source = source.replace("C[row * N + col] = acc;", "C[row * N + col] = SCALE * acc;")
    marker = source.index("__kernel")
    path = tmp_path / "mine.cl"
    path.write_text(source[:marker] + '#include "scale.h"\n' + source[marker:])
    header = tmp_path / "scale.h"
    header.write_text("#define SCALE 1.0f\n")
    return path, header


def test_saving_a_header_the_kernel_includes_reruns_it(window, qtbot, tmp_path):
    """A header saved in another editor (replaced whole, as editors save) re-runs the kernel
    that includes it, built again with the header as saved; and again at the next save."""
    from explorer.engine.header.catalog import load_variant_file

    path, header = _kernel_with_a_header(tmp_path)
    window.controllers.kernels.use_kernel(load_variant_file(path))
    for name in ("M", "N", "K"):
        window.model.set_size(name, 32)
    assert run_and_wait(qtbot, window).status == "verified"
    for scale, status in (("2.0f", "wrong"), ("1.0f", "verified")):
        before = len(window.state.history)
        replacement = tmp_path / "scale.h.new"
        replacement.write_text(f"#define SCALE {scale}\n")
        replacement.replace(header)  # a new file under the old name
        qtbot.waitUntil(lambda count=before: len(window.state.history) > count, timeout=60000)
        assert window.state.result.status == status


def _saved_in_an_editor(qtbot, window, path, text, status):
    """``text`` saved into ``path`` as editors save (a new file under the old name): the
    kernel runs again, and its verdict is ``status``."""
    before = len(window.state.history)
    replacement = path.with_name(path.name + ".new")
    replacement.write_text(text)
    replacement.replace(path)
    qtbot.waitUntil(lambda: len(window.state.history) > before, timeout=60000)
    assert window.state.result.status == status


def test_a_kernel_opened_from_the_command_line_or_at_start_is_watched(
    window, qtbot, tmp_path, settings
):
    """`kernel-explorer --kernel-file mine.cl`, and the next start that reopens it, did not
    watch the file nor the headers it includes: a save in another editor re-ran nothing."""
    from explorer.app import _open_with_options, build_parser
    from explorer.gui.main_window import MainWindow

    path, header = _kernel_with_a_header(tmp_path)
    args = build_parser().parse_args(["--kernel-file", str(path), "--size", "32"])
    _open_with_options(window, args)
    assert run_and_wait(qtbot, window).status == "verified"
    _saved_in_an_editor(qtbot, window, header, "#define SCALE 2.0f\n", "wrong")
    trigger(window, "Quit")

    again = MainWindow(settings=settings)  # opens on the same file
    qtbot.addWidget(again)
    qtbot.waitUntil(lambda: again.model.device is not None, timeout=60000)
    assert again.model.variant.path == str(path)
    assert run_and_wait(qtbot, again).status == "wrong"
    _saved_in_an_editor(qtbot, again, header, "#define SCALE 1.0f\n", "verified")
    again.close()


def test_a_kernel_a_session_opens_is_watched(window, qtbot, tmp_path, monkeypatch):
    """A session naming a kernel file of yours opened it unwatched: a save in another
    editor re-ran nothing."""
    from explorer.engine.header.catalog import load_variant_file

    path, header = _kernel_with_a_header(tmp_path)
    window.controllers.kernels.use_kernel(load_variant_file(path))
    for name in ("M", "N", "K"):
        window.model.set_size(name, 32)
    session = tmp_path / "mine.kexp.json"
    answer_file_dialogs(monkeypatch, session)
    trigger(window, "Save session…")
    window.model.set_family("transpose")
    window.controllers.kernels.watch(window.model.variant)  # watching another file now
    trigger(window, "Open session…")
    assert window.model.variant.path == str(path)
    assert run_and_wait(qtbot, window).status == "verified"
    _saved_in_an_editor(qtbot, window, header, "#define SCALE 2.0f\n", "wrong")


def test_saving_a_header_of_a_kernel_left_for_another_reruns_nothing(window, qtbot, tmp_path):
    """The header belongs to the kernel that includes it: once another kernel is shown, a
    save of that header is no reason to reload and run the one on screen."""
    from explorer.engine.header.catalog import find_variant, load_variant_file

    path, header = _kernel_with_a_header(tmp_path)
    window.controllers.kernels.use_kernel(load_variant_file(path))
    shipped = find_variant("matmul", "tiled")
    window.model.set_variant(shipped)
    runs, reloads = len(window.state.history), window.state.reloads
    header.write_text("#define SCALE 2.0f\n")
    qtbot.wait(1000)  # four times the settling time of a save
    assert window.state.reloads == reloads and len(window.state.history) == runs
    assert window.model.variant is shipped


def test_session_saved_from_the_window_reopens_the_same_configuration(
    window, tmp_path, monkeypatch
):
    from explorer.engine.header.catalog import find_variant

    window.model.set_family("transpose")
    window.model.set_variant(find_variant("transpose", "fast"))
    window.model.set_size("WIDTH", 300)
    window.model.set_local((32, 8))
    window.views.tabs.setCurrentWidget(window.views.timing_view)
    path = tmp_path / "s.kexp.json"
    answer_file_dialogs(monkeypatch, path)
    trigger(window, "Save session…")
    window.model.set_family("matmul")
    window.views.tabs.setCurrentWidget(window.views.result_view)
    trigger(window, "Open session…")
    assert (window.model.family, window.model.variant.id) == ("transpose", "fast")
    assert window.model.sizes["WIDTH"] == 300 and window.model.local == (32, 8)
    assert window.views.tabs.currentWidget() is window.views.timing_view
    path.write_text("{not json")
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda *a, **k: shown.append(a[2])))
    trigger(window, "Open session…")
    assert shown and "s.kexp.json" in shown[0]


GUESSED = {
    # A 3×3 blur named as such: a stencil, not the first family with room for 2 + 2 params.
    "stencil": "__kernel void blur3(__global const float *src, __global float *dst,\n"
    "                    const int width, const int height)\n"
    "{\n    int x = get_global_id(0), y = get_global_id(1);\n"
    "    if (x < 1 || y < 1 || x >= width - 1 || y >= height - 1) return;\n"
    "    float s = 0.0f;\n    for (int dy = -1; dy <= 1; dy++)\n"
    "        for (int dx = -1; dx <= 1; dx++) s += src[(y + dy) * width + x + dx];\n"
    "    dst[y * width + x] = s / 9.0f;\n}\n",
    # Counts with atomics into bins: a histogram.
    "histogram": "__kernel void count_values(__global const uint *data, __global uint *bins,"
    " const int n)\n{\n    int i = get_global_id(0);\n"
    "    if (i < n) atomic_inc(&bins[data[i] % 256]);\n}\n",
    # Named for what it is, its parameters named as NVIDIA's sample names them.
    "transpose": "__kernel void transpose(__global float *odata, __global const float *idata,"
    " int width, int height)\n{\n    int x = get_global_id(0), y = get_global_id(1);\n"
    "    odata[x * height + y] = idata[y * width + x];\n}\n",
    "matvec": "__kernel void gemv(__global const float *A, __global const float *x,"
    " __global float *y, int rows, int cols)\n{\n    int r = get_global_id(0);\n"
    "    float s = 0.0f;\n    for (int c = 0; c < cols; c++) s += A[r * cols + c] * x[c];\n"
    "    y[r] = s;\n}\n",
    # Like the histogram's names (in, out, scratch, n), but no atomic: not a histogram; nor a
    # matvec, whose roles it fits but for the vector that family needs.
    "custom ": "__kernel void reduce(__global const float *in, __global float *out,"
    " __local float *scratch, int n)\n{\n    int l = get_local_id(0);\n"
    "    scratch[l] = in[get_global_id(0)];\n    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (l == 0) out[get_group_id(0)] = scratch[0];\n}\n",
    "matmul": BARE,
    # Nothing in its names points at a family: the custom form, not the first that fits.
    "custom": "__kernel void step(__global const float *p, __global float *q)\n{\n"
    "    int i = get_global_id(0);\n    q[i] = p[i] * p[i];\n}\n",
}


@pytest.mark.parametrize("family", list(GUESSED))
def test_the_names_and_atomics_point_at_a_family(family):
    """The guess the dialog then checks with a run (tests/gui/test_open_kernel_checks.py)."""
    from explorer.engine.header.signature import kernel_signature
    from explorer.gui.kernel_dialog import guess_family, guess_roles, kernel_names

    source = GUESSED[family]
    kernel = kernel_names(source)[0]
    params = kernel_signature(source, kernel)
    assert guess_family(params, kernel, source) == family.strip()
    if family.strip() != "custom":
        assert "" not in guess_roles(family.strip(), params)


def test_a_traced_wrong_result_points_at_the_race_the_trace_found(window, qtbot, monkeypatch):
    """Trace (menu) of a kernel that reads its neighbour's slot with no barrier: where the
    result comes out wrong, the verdict in the window names the trace's race as what can
    explain it, as the command line's verdict does."""
    from tests.conftest import TEST_KERNELS
    from tests.gui.conftest import answer_file_dialogs, trace_and_wait, trigger

    path = TEST_KERNELS / "causes" / "rotate_without_barrier.cl"
    answer_file_dialogs(monkeypatch, path)
    trigger(window, "Open kernel…")
    trace_and_wait(qtbot, window)
    traced = window.state.traced
    assert [f.kind for f in traced.analysis.findings] == ["race"]
    badge = window.views.result_view.badge.text()
    if traced.result.status != "wrong":  # work-items in lockstep can hide this race
        assert "can explain" not in badge
        return
    assert badge.startswith("✘ Wrong")
    assert badge.endswith("the trace's race findings can explain it")
