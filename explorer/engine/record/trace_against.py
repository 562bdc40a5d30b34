"""Tracing a reference kernel at the very launch of the traced one, and the trace diff of
the two (``trace --against``, the app's Compare with…): the reference runs with the same
sizes, local size, defines, input and device, so any difference is the kernels'."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from explorer.engine.records import RunResult, Variant
from explorer.trace.diff import LaunchMismatch, TraceDiff, diff_traces
from explorer.trace.recorded import Trace


@dataclass(frozen=True, eq=False)
class Against:
    """The outcome of a comparison: the diff, or why there is none."""

    reference: str  # the reference kernel, as a person names it (family/variant or file)
    result: RunResult | None  # the reference's own trace run, when it ran
    diff: TraceDiff | None
    refused: str = ""  # why there is no diff: the reference failed, the launches differ

    def to_json(self) -> dict[str, object]:
        return {
            "reference": self.reference,
            "reference_status": None if self.result is None else self.result.status,
            "refused": self.refused or None,
            "diff": None if self.diff is None else self.diff.to_json(),
        }

    def text(self) -> str:
        """The comparison as the report's last section."""
        head = f"Trace diff against {self.reference}"
        if self.diff is None:
            return f"{head}: not compared: {self.refused}"
        return f"{head}:\n{self.diff.text()}"


def reference_name(variant: Variant) -> str:
    """How a report names the reference: its catalog id, or its file."""
    from explorer.engine.header.catalog import catalog

    if not variant.path:
        return variant.qualified_id
    path = Path(variant.path).resolve()
    if any(Path(v.path).resolve() == path for v in catalog() if v.path):
        return variant.qualified_id
    return variant.path


def compare(
    name: str,
    result: RunResult,
    mine: Trace,
    reference: Trace | None,
    values: bool,
    quoted: bool = True,
) -> Against:
    """The comparison of ``mine`` with the reference's trace (None: it did not trace,
    ``result`` says why); ``values``: compare the values written too; ``quoted``: the
    differences may quote the reference's source text and lines (else they say what it
    does only, naming it ``name``)."""
    if reference is None:
        why = result.summary().splitlines()[0]
        return Against(name, result, None, f"the reference did not trace: {why}")
    try:
        diff = diff_traces(mine, reference, values=values)
    except LaunchMismatch as exc:
        return Against(name, result, None, f"not the same launch: {exc}")
    return Against(name, result, diff if quoted else diff.unquoted(name))
