"""The sweep and measure-the-fix controllers with a fake worker and mocked views: the
requests they make, the cells and sentences they show, a clicked cell loaded."""

from __future__ import annotations

from types import SimpleNamespace

from explorer.engine.header.catalog import find_variant
from explorer.engine.measure.sweep_metrics import SWEEP_BUDGET_BYTES
from explorer.engine.record.trace_launch import TraceRequest
from explorer.gui.controllers.fix_cost import FixCostController
from explorer.gui.controllers.sweep import SweepController
from tests.gui.controllers.fakes import FakeWorker, model_on, result, said, views


def _sweep(metric="time"):
    v = views()
    model = model_on()
    model.set_variant(find_variant("matmul", "tiled"))
    v.sweep.grid_metric = metric
    v.sweep.configurations.return_value = [
        {"local": (8, 8), "TS": 8},
        {"local": (16, 16), "TS": 8},
        {"local": (8, 8), "TS": 16},
        {"local": (16, 16), "TS": 16},
    ]
    worker = FakeWorker()
    return SweepController(model, worker, v.sweep, v.status), worker, v


def test_the_sweep_view_follows_the_variant():
    controller, _worker, v = _sweep()
    v.sweep.set_variant.assert_called_with(find_variant("matmul", "tiled"))
    naive = find_variant("matmul", "naive")
    controller.model.set_variant(naive)
    v.sweep.set_variant.assert_called_with(naive)


def test_a_sweep_runs_every_cell_and_fills_its_own_cells():
    controller, worker, v = _sweep()
    controller.run_sweep()
    requests = worker.last("compare")
    assert [(r.local, r.defines["TS"]) for r in requests] == [
        ((8, 8), 8),
        ((16, 16), 8),
        ((8, 8), 16),
        ((16, 16), 16),
    ]
    assert all(r.sizes == controller.model.sizes and not r.keep_output for r in requests)
    v.status.start_progress.assert_called_with(4)
    refused = result("tiled", status="wrong")
    worker.compare_progress.emit(worker.generation, 1, 4, refused)
    v.sweep.show_cell.assert_called_once_with(1, refused, None)
    assert said(v.status) == "Sweep 2/4: wrong"
    worker.compare_progress.emit(worker.generation - 1, 2, 4, result())  # not the sweep's
    assert v.sweep.show_cell.call_count == 1


def test_a_sweep_by_a_trace_figure_traces_every_cell():
    controller, worker, _v = _sweep("bank-degree")
    controller.run_sweep()
    requests = worker.last("compare")
    assert all(isinstance(r, TraceRequest) for r in requests)
    assert all(r.budget_bytes == SWEEP_BUDGET_BYTES for r in requests)


def test_a_clicked_cell_becomes_the_configuration():
    controller, _worker, v = _sweep()
    shown = result("tiled")
    controller.load_cell({"local": [16, 16], "TS": 16}, shown)
    assert controller.model.local == (16, 16) and controller.model.defines["TS"] == 16
    assert said(v.status) == f"Loaded local=[16, 16], TS=16: {shown.summary()}"


def test_measure_the_fix_times_both_and_says_the_ratio():
    v = views()
    model = model_on()
    model.set_family("transpose")
    model.set_variant(find_variant("transpose", "tiled"))
    worker = FakeWorker()
    controller = FixCostController(model, worker, v.findings, v.status)
    controller.measure(SimpleNamespace(kind="race"))  # not a cost: nothing to measure
    assert worker.requests == []
    assert "names no counterpart" in v.findings.show_fix.call_args.args[0]
    controller.measure(SimpleNamespace(kind="bank-conflict"))
    requests = worker.last("compare")
    assert len(requests) >= 2 and requests[0].variant.id == "tiled"
    assert requests[1].variant.id != "tiled" or requests[1].defines != requests[0].defines
    v.status.start_progress.assert_called_with(len(requests))
    for i, request in enumerate(requests):
        worker.compare_progress.emit(
            worker.generation, i, len(requests), result(request.variant.id, median_ms=2 - i % 2)
        )
    worker.compare_finished.emit(worker.generation)
    sentence = v.findings.show_fix.call_args.args[0]
    assert "2.00× faster on test cpu" in sentence and said(v.status) == sentence


def test_a_cancelled_measurement_says_so():
    v = views()
    model = model_on()
    model.set_family("transpose")
    model.set_variant(find_variant("transpose", "tiled"))
    worker = FakeWorker()
    controller = FixCostController(model, worker, v.findings, v.status)
    controller.measure(SimpleNamespace(kind="bank-conflict"))
    worker.compare_progress.emit(worker.generation, 0, 2, result("tiled"))
    worker.compare_finished.emit(worker.generation)
    v.findings.show_fix.assert_called_with("The measurement was cancelled.")
