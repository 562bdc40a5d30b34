"""What a trace request asks and what comes back from it: the records that cross between a
caller and its executor, in a module of their own, so that a caller (the command line) reads
them without importing the recording's machinery (numpy's launch path, the front end, the
analysis).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.engine.records import RunRequest, RunResult, Variant
from explorer.trace.anatomy import TraceAnatomy
from explorer.trace.recorded import Trace

# Records are 8 bytes (a byte offset and a packed word, in two planes): 320 MiB holds 42 M
# records, every group of a 256² tiled matmul, recorded and analysed in about half a second on
# two cores.
DEFAULT_BUDGET_BYTES = 320 << 20


@dataclass(frozen=True)
class TraceRequest:
    run: RunRequest
    groups: tuple[tuple[int, int], ...] | None = None  # explicit ranges per dimension
    center: tuple[int, int, int] | None = None  # trace a window around this group
    budget_bytes: int = DEFAULT_BUDGET_BYTES
    # Record each access's value too (a third plane: Trace.values). Findings depend on it
    # (work-items writing one element the same value is a note, not a race), so every trace
    # that reports findings records values; a sweep's cost figures and the record-pass
    # benchmark turn it off.
    values: bool = True
    # A reference kernel traced at the same launch (its sizes, local size, defines, input and
    # device) and compared access by access with this one: ``TracedRun.against``.
    against: Variant | None = None
    # The reference's device, where it is not this one's (a kernel on two devices).
    against_device: str | None = None
    # How the comparison names the reference ("" : its catalog id or file), and whether its
    # findings and report may quote the reference's source text and lines (not an exercise's
    # solution, which a learner must not read by accident).
    against_called: str = ""
    against_quoted: bool = True
    # Index anatomy (explorer.trace.anatomy): the lines whose accesses also record the values
    # of their index terms and of the definitions behind them, in a second, anatomy build run
    # after the trace (the trace itself is the plain one: nothing asked, nothing paid); with
    # ``anatomy_findings``, the lines of the bug findings too, and the static anatomy of
    # every access even without a finding (the window shows it on hover).
    # ``anatomy_work_item`` (group then local id, six numbers) is the work-item whose access
    # at each asked line the report explains; none: the first that made one.
    anatomy_lines: tuple[int, ...] = ()
    anatomy_findings: bool = False
    anatomy_work_item: tuple[int, ...] = ()
    # The reply carries the report (its text, and its JSON with the findings' groups) and no
    # Analysis: what the command line prints, without the analysis's modules in its process.
    report_only: bool = False


@dataclass(frozen=True, eq=False)
class TracedRun:
    """What crosses back from the executor: the verdict, the analysis, maybe the trace."""

    result: RunResult
    # explorer.trace.analysis.Analysis; None when the trace did not run, or for a request
    # with ``report_only`` (then ``report_json`` says whether it ran).
    analysis: Any
    trace: Trace | None
    timings_ms: dict[str, float]
    peak_rss_mb: float = 0.0
    report_json: dict[str, Any] | None = None  # the `trace --json` object
    report_text: str = ""  # the human report
    finished_at: float = 0.0  # when the executor was done (time.time()): the transfer starts
    # The comparison with ``TraceRequest.against`` (explorer.engine.record.trace_against.
    # Against): its diff's first difference per work-group are findings of the analysis too.
    against: Any = None
    # The index anatomy of the trace's accesses: for the findings' lines and those asked, with
    # values where an anatomy build recorded them; it comes with the trace it explains
    # (``keep_trace``), and is None where nothing needed it (no finding at a line, nothing
    # asked). Reports carry it in their JSON and text. Typed, so that the wire checks what a
    # host sends field by field (the anatomy module, without the analysis, is imported for it).
    anatomy: TraceAnatomy | None = None
