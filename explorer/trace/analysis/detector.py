"""What a finding kind's module provides: its kind and the function that finds it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from explorer.trace.analysis.context import Context
from explorer.trace.analysis.units import Units
from explorer.trace.recorded import Finding


@dataclass(frozen=True)
class Detector:
    """One finding kind: ``find`` returns every finding of ``kind`` in the grouped records.
    ``order`` places its findings in the report: trace problems first, then the kernel's bugs,
    then coverage."""

    kind: str
    find: Callable[[Context, Units], list[Finding]]
    order: int
