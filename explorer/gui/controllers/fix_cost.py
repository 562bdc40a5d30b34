"""Measure the fix: the selected cost finding's kernel and its counterpart, timed alternately
off the GUI thread; the ratio is shown beside the finding."""

from __future__ import annotations

from explorer.engine.measure.fix_cost import FixOffer, offer_fix, summarise
from explorer.engine.records import RunResult
from explorer.gui.controllers.roles import FindingsShower, StatusLine, Worker
from explorer.gui.model import ConfigModel


class FixCostController:
    """Turns "Measure the fix" into alternated runs and their ratio into a sentence."""

    def __init__(
        self, model: ConfigModel, worker: Worker, findings: FindingsShower, status: StatusLine
    ) -> None:
        self.model = model
        self.worker = worker
        self.findings = findings
        self.status = status
        self._generation = -1
        self._offer: FixOffer | None = None
        self._results: list[RunResult] = []
        worker.compare_progress.connect(self._step)
        worker.compare_finished.connect(self._done)

    def measure(self, finding: object) -> None:
        """Time the configuration on screen beside the finding's counterpart."""
        kind = str(getattr(finding, "kind", ""))
        offer = offer_fix(self.model.request(), kind) if self.model.device else None
        if offer is None:
            self.findings.show_fix(
                "This kernel names no counterpart to measure against: add a [counterpart] "
                "to its header (another variant, or other defines or local size)."
            )
            return
        self._offer, self._results = offer, []
        requests = offer.requests()
        self.status.start_progress(len(requests))
        self._generation = self.worker.compare(requests)
        self.status.say(f"Measuring {offer.why}: {offer.fix.variant.qualified_id} …")

    def _step(self, generation: int, _index: int, _total: int, result: object) -> None:
        if generation == self._generation and isinstance(result, RunResult):
            self._results.append(result)

    def _done(self, generation: int) -> None:
        if generation != self._generation or self._offer is None:
            return
        offer, self._offer = self._offer, None
        if len(self._results) < len(offer.requests()):
            self.findings.show_fix("The measurement was cancelled.")
            return
        cost = summarise(offer, self._results)
        self.findings.show_fix(cost.sentence())
        self.status.say(cost.sentence())
