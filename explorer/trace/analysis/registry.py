"""The finding kinds: every module of the searched packages that provides ``DETECTOR``.

``PACKAGES`` names the packages searched, this one first; a package of one's own appended to
it (``registry.PACKAGES += ("my_kinds",)``) adds its kinds to the analysis, the report and
the findings view like the shipped ones. The report's order comes from each kind's
``order``, never from which module was imported first.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Sequence

from explorer.trace.analysis.detector import Category, Detector
from explorer.trace.recorded import Finding

PACKAGES: tuple[str, ...] = ("explorer.trace.analysis",)


def discover(package: str) -> tuple[Detector, ...]:
    """The ``DETECTOR`` of every module of ``package`` (an importable package's name)."""
    found = []
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        module = importlib.import_module(f"{package}.{info.name}")
        detector = getattr(module, "DETECTOR", None)
        if isinstance(detector, Detector):
            found.append(detector)
    return tuple(found)


@functools.lru_cache(maxsize=4)
def _found(packages: tuple[str, ...]) -> tuple[Detector, ...]:
    found = [d for package in packages for d in discover(package)]
    kinds = [d.kind for d in found]
    twice = sorted({k for k in kinds if kinds.count(k) > 1})
    if twice:
        raise ValueError(f"finding kind(s) declared by two modules: {', '.join(twice)}")
    return tuple(sorted(found, key=lambda d: (d.order, d.kind)))


def detectors() -> tuple[Detector, ...]:
    """Every finding kind of ``PACKAGES``, in the report's order."""
    return _found(PACKAGES)


def detector(kind: str) -> Detector | None:
    """The kind named ``kind``, or None for a kind no module declares."""
    return next((d for d in detectors() if d.kind == kind), None)


def category(kind: str) -> Category | None:
    """The category of the kind named ``kind`` (None for a kind no module declares)."""
    found = detector(kind)
    return None if found is None else found.category


def kinds(of: Category) -> tuple[str, ...]:
    """The kinds of one category, in the report's order (the costs: what a counterpart can
    be measured against)."""
    return tuple(d.kind for d in detectors() if d.category is of)


def causes_of_a_wrong_result(found: Sequence[Finding]) -> tuple[str, ...]:
    """The kinds of bug among ``found`` that can make a kernel's result wrong (a race, a read
    of memory never written, an index outside a buffer, ...), in the report's order: what
    explains a wrong verdict better than a suspicion of the device's compiler."""
    present = {f.kind for f in found}
    return tuple(
        d.kind
        for d in detectors()
        if d.kind in present and d.category is Category.BUG and not d.symptom
    )
