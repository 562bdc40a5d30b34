"""Views on their own, fed as the state feeds them: the timing bars of a comparison with
refusals, the panel marking the fields a refusal names, the animation cleared when the
kernel changes. No window, no executor."""

from __future__ import annotations

from dataclasses import replace

from explorer.engine.header.catalog import find_variant
from explorer.engine.records import Refusal
from tests.gui.conftest import labels_inside_the_chart
from tests.gui.controllers.fakes import device, model_on, result, traced_run


def test_the_comparison_bars_name_every_variant_and_its_verdict(qtbot):
    from explorer.gui.timing_view import TimingView

    view = TimingView()
    qtbot.addWidget(view)
    refused = replace(
        result("seed003-func2"), timing=None, verdict=None, refused=Refusal("K % 16 == 0", "")
    )
    view.show_compare((result("naive"), refused, result("tiled", status="wrong")))
    assert view.bar_count == 2
    assert sum("refused" in label for label in view.labels) == 1
    assert any("K % 16 == 0" in label for label in view.labels)
    assert any("✘ wrong" in label for label in view.labels)
    view.show_compare(())  # a new comparison starts: the old bars leave
    assert view.bar_count == 0 and view.labels == []


def test_the_timing_labels_lie_inside_the_chart_whatever_the_times(qtbot):
    """Each label starts at the chart's left edge, where the time 0 is drawn: for some times
    (one in about seventy here) that pixel, computed from the axis's end, came out a rounding
    error left of the chart, and the label counted as outside it."""
    from explorer.gui.timing_view import TimingView

    view = TimingView()
    qtbot.addWidget(view)
    view.resize(400, 220)
    view.show()
    qtbot.waitExposed(view)
    outside = []
    for step in range(200):
        median_ms = 2.0 + step * 0.137  # past the numpy bar's 2 ms, the axis ends at each
        view.show_run(result("tiled", median_ms=median_ms))
        view.plot.grab()  # drawn: the chart places its items as it paints
        if not labels_inside_the_chart(view):
            outside.append(median_ms)
    assert outside == []


def test_a_refusal_marks_the_fields_it_names(qtbot):
    from explorer.gui.config_panel import ConfigPanel

    model = model_on(device())
    panel = ConfigPanel(model)
    qtbot.addWidget(panel)
    verdicts = []
    panel.validity_changed.connect(verdicts.append)
    model.set_variant(find_variant("matmul", "seed003-func2"))
    model.set_size("K", 100)
    assert verdicts[-1] is False and panel.refusal is not None
    assert "Refused" in panel.validation.text() and "K % 16 == 0" in panel.validation.text()
    assert "#c0392b" in panel.size_spins["K"].styleSheet()
    assert panel.size_spins["M"].styleSheet() == ""
    for name in ("M", "N", "K"):
        model.set_size(name, 96)
    assert verdicts[-1] is True and panel.refusal is None
    assert panel.size_spins["K"].styleSheet() == ""


def test_the_panels_run_anyway_button_asks_for_run_anyway(qtbot):
    from PySide6.QtCore import Qt

    from explorer.gui.config_panel import ConfigPanel

    model = model_on(device())
    panel = ConfigPanel(model)
    qtbot.addWidget(panel)
    model.set_family("transpose")
    model.set_variant(find_variant("transpose", "tiled"))
    model.set_define("TILE", 32)
    model.set_local((16, 16))
    assert panel.refusal is not None and panel.refusal.overridable
    assert panel.anyway_button.isVisibleTo(panel)
    asked = []
    panel.anyway_requested.connect(lambda: asked.append(True))
    qtbot.mouseClick(panel.anyway_button, Qt.MouseButton.LeftButton)
    assert asked == [True]


def test_the_animation_cleared_for_a_new_kernel_keeps_nothing_of_the_old(qtbot):
    from explorer.gui.execution_view import ExecutionView
    from explorer.trace.grids import make_grids
    from explorer.trace.playback import Playback

    view = ExecutionView()
    qtbot.addWidget(view)
    trace = traced_run().trace
    source = find_variant("matmul", "tiled").source
    view.set_playback(Playback(trace, make_grids(trace, {})), source)
    view.set_step(1)
    assert view.steps > 1 and view.buffers.canvases and view.code.marked
    view.clear("Naive: trace it (Ctrl+T) to watch it run.")
    assert view.playback is None and not view.buffers.canvases and view.steps == 0
    assert view.lines.step_label.text() == "Naive: trace it (Ctrl+T) to watch it run."
    assert view.code.marked == []


def test_the_settings_keep_the_configuration_for_the_next_start(settings):
    from explorer.gui import settings as stored
    from explorer.gui.model import ConfigModel

    first = model_on(device())
    first.set_family("transpose")
    first.set_variant(find_variant("transpose", "fast"))
    first.set_size("WIDTH", 300)
    first.set_local((32, 8))
    first.set_input("random")
    stored.save(settings, first)
    second = ConfigModel()
    assert stored.restore(settings, second) is None  # no fallback notice
    assert (second.family, second.variant.id) == ("transpose", "fast")
    assert second.sizes["WIDTH"] == 300 and second.local == (32, 8)
    assert second.input == "random"
    # the device by its name and platform, chosen once the devices are known
    remembered = stored.device_name(settings)
    assert remembered is not None
    assert (remembered.name, remembered.platform) == (device().name, device().platform)


def test_the_defines_shown_are_those_a_run_is_built_with(qtbot):
    """reg2d's header gives a CPU device 4×4 blocks of a 64×64 tile (its [[by_size]] rule):
    the panel showed the header's 8×8 blocks and 128 columns above a run built with 4 and 64.
    wave's rules choose by size on a GPU. A value the person picks wins, as in the run."""
    from explorer.engine.launch.plan import resolve_defines
    from explorer.gui.config_panel import ConfigPanel

    cpu, gpu = device("CPU"), device("GPU", platform="NVIDIA CUDA", index=1)
    model = model_on(cpu, gpu)
    panel = ConfigPanel(model)
    qtbot.addWidget(panel)

    def shown() -> dict[str, int]:
        return {name: int(w.currentData()) for name, w in panel.launch.define_spins.items()}

    model.set_variant(find_variant("matmul", "reg2d"))
    spins = panel.launch.define_spins  # the variant's own fields
    assert (shown()["TSN"], shown()["WPTM"], shown()["WPTN"]) == (64, 4, 4)
    assert shown() == resolve_defines(model.variant, model.defines, model.sizes, "CPU")
    assert "[[by_size]]" in spins["TSN"].toolTip() and "default: 128" in spins["TSN"].toolTip()
    model.set_device(gpu.key)
    assert (shown()["TSN"], shown()["WPTM"]) == (128, 8) and spins["TSN"].toolTip() == ""
    model.set_device(cpu.key)
    spins["TSN"].setCurrentIndex(spins["TSN"].findData(128))  # the person's choice
    assert model.defines == {"TSN": 128}
    assert (shown()["TSN"], shown()["WPTM"]) == (128, 4) and spins["TSN"].toolTip() == ""

    model.set_device(gpu.key)
    model.set_variant(find_variant("matmul", "wave"))
    for name in ("M", "N", "K"):
        model.set_size(name, 4096)
    assert (shown()["BM"], shown()["BK"]) == (128, 8)
    for name in ("M", "N", "K"):
        model.set_size(name, 256)  # fewer than 256 tiles of 128×128: 64×128, BK 16
    assert (shown()["BM"], shown()["BK"]) == (64, 16)


def test_the_error_map_is_made_when_its_tab_is_first_shown(qtbot):
    """An image result's error map (an image view with a colour map, some 70 ms) is made
    when the person first opens its tab, drawn then with |result − reference|; the tab's
    place and title are there from the start, and the next result reuses the map."""
    import numpy as np
    from PySide6.QtCore import Qt

    from explorer.gui.result_view import ERROR_TAB, ResultView

    view = ResultView()
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    run = result("tiled", arrays=True)
    wrong = np.arange(16.0).reshape(4, 4)
    run = replace(run, outputs={"C": wrong}, references={"C": np.zeros((4, 4))})
    view.show_result(run)
    titles = [view.tabs.tabText(i) for i in range(view.tabs.count())]
    assert ERROR_TAB in titles and "error_map" not in view.__dict__
    bar = view.tabs.tabBar()
    at = titles.index(ERROR_TAB)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(at).center())
    assert view.tabs.currentIndex() == at and view.tabs.currentWidget() is view.error_map
    assert np.array_equal(view.error_map.getImageItem().image, wrong)
    made = view.error_map
    view.show_result(replace(run, outputs={"C": wrong + 1}))
    assert view.tabs.currentWidget() is made  # the tab looked at, the same map, redrawn
    assert np.array_equal(made.getImageItem().image, wrong + 1)


def test_a_define_without_a_list_of_values_is_shown_as_it_is(qtbot, tmp_path):
    """A define of a kernel's own with no [allowed] list sits in a spin box: it held 1 to
    4096, so a default of 0 showed as 1 and one of 65536 as 4096, above a build with 0."""
    from explorer.engine.header.catalog import load_variant_file
    from explorer.gui.config_panel import ConfigPanel

    kernel = tmp_path / "pad.cl"
    kernel.write_text(
        '/*---\nname = "pad"\nfamily = "custom"\nkernel = "k"\nglobal = ["4"]\n'
        'local = ["1"]\n[defines]\nPAD = 0\nSPAN = 65536\nSHIFT = -3\n[args.out]\n'
        'buffer = "int"\ncount = "4"\ncontents = "zeros"\nwrites = "all"\n---*/\n'
        "__kernel void k(__global int* out) { out[get_global_id(0)] = PAD + SPAN + SHIFT; }\n"
    )
    model = model_on(device())
    panel = ConfigPanel(model)
    qtbot.addWidget(panel)
    model.add_user_variant(load_variant_file(kernel))
    spins = panel.launch.define_spins
    assert {name: spin.value() for name, spin in spins.items()} == {
        "PAD": 0,
        "SPAN": 65536,
        "SHIFT": -3,
    }
