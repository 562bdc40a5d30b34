"""The Sweep tab: every combination of two parameters, run through the compare machinery."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from explorer.engine.measure.sweep_metrics import FIELDS, SWEEP_BUDGET_BYTES, site_figures
from explorer.engine.record.trace_launch import TracedRun, TraceRequest
from explorer.engine.records import RunRequest, RunResult
from explorer.gui.controllers.roles import StatusLine, SweepGrid, Worker
from explorer.gui.model import ConfigModel


class SweepController:
    """Turns the sweep view's axes into requests, fills its cells, loads a clicked cell; the
    view's axes follow the variant, and its grid is emptied when the kernel, device, sizes,
    input or layout change (a clicked cell's local size or define keeps it)."""

    def __init__(
        self, model: ConfigModel, worker: Worker, sweep: SweepGrid, status: StatusLine
    ) -> None:
        self.model = model
        self.worker = worker
        self.sweep = sweep
        self.status = status
        self._generation = -1  # the sweep's batch; other batches are not ours
        self._kernel = model.kernel_identity()
        worker.compare_progress.connect(self._step)
        model.variant_changed.connect(self._variant_changed)
        for signal in (
            model.device_changed,
            model.family_changed,
            model.sizes_changed,
            model.input_changed,
            model.layout_changed,
        ):
            signal.connect(self._kernel_changed)
        self.sweep.set_variant(self.model.variant)

    def _variant_changed(self) -> None:
        self.sweep.set_variant(self.model.variant)
        self._kernel_changed()

    def _kernel_changed(self) -> None:
        kernel = self.model.kernel_identity()
        if kernel != self._kernel:
            self._kernel = kernel
            self._generation = -1  # cells still coming belong to the grid cleared here
            self.sweep.clear(f"{self.model.variant.name}: pick two parameters, then Run sweep.")

    def run_sweep(self, *_axes: object) -> None:
        """Every cell of the sweep view's grid (its axes are read from the view)."""
        if self.model.device is None:
            return
        requests: list[RunRequest] = []
        base = self.model.request()  # sizes (a custom kernel's own), layout, input, device
        for params in self.sweep.configurations():
            local = params.get("local", self.model.local)
            chosen = {k: v for k, v in params.items() if isinstance(v, int)}  # the defines
            requests.append(
                replace(
                    base,
                    local=local if isinstance(local, tuple) else None,
                    defines={**self.model.defines, **chosen},
                    keep_output=False,
                )
            )
        self.status.start_progress(len(requests))
        if self.sweep.grid_metric != "time":  # each point from a real trace
            traces = [
                TraceRequest(r, budget_bytes=SWEEP_BUDGET_BYTES, values=False) for r in requests
            ]
            self._generation = self.worker.compare(traces)
        else:
            self._generation = self.worker.compare(requests)

    def _step(self, generation: int, index: int, total: int, outcome: object) -> None:
        if generation != self._generation:
            return
        figure = None
        if isinstance(outcome, TracedRun):
            field = FIELDS.get(self.sweep.grid_metric, "")
            if outcome.analysis is not None:
                figure = site_figures(outcome.analysis.sites).get(field)
            outcome = outcome.result
        if not isinstance(outcome, RunResult):
            return
        self.sweep.show_cell(index, outcome, figure)
        self.status.say(f"Sweep {index + 1}/{total}: {outcome.status}")

    def load_cell(self, params: dict[str, Any], result: RunResult | None) -> None:
        """A clicked cell becomes the configuration."""
        for key, value in params.items():
            if key == "local":
                self.model.set_local(tuple(value))
            else:
                self.model.set_define(key, int(value))
        self.status.say(
            "Loaded "
            + ", ".join(f"{k}={v}" for k, v in params.items())
            + (f": {result.summary()}" if result is not None else "")
        )
