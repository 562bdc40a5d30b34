"""Measure the fix: a cost finding (a bank conflict, an uncoalesced access) timed beside its
counterpart, so a learner sees what it costs on this device instead of guessing.

The counterpart comes from the kernel's header (``[counterpart]``: another variant of the
family, or this one with other defines or another local size). Both run through the engine's
one timing routine on the same device, at the same sizes, with the same input, alternated
round by round so that a drift of the machine falls on both alike. On a CPU device a bank
conflict costs nothing, and the ratio says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from explorer.engine.executor import Executor
from explorer.engine.header.catalog import CatalogError, find_variant, load_variant_file
from explorer.engine.records import RunRequest, RunResult, Variant
from explorer.trace.analysis import Category, registry

ROUNDS = 3


@dataclass(frozen=True)
class FixOffer:
    """The configuration a finding was seen in and its counterpart, ready to run."""

    original: RunRequest
    fix: RunRequest
    why: str  # the change, in a few words: "padding the tile"

    def requests(self, rounds: int = ROUNDS) -> list[RunRequest]:
        """Original and fix alternated, ``rounds`` times: the order they are timed in."""
        return [self.original, self.fix] * max(1, rounds)


@dataclass(frozen=True)
class FixCost:
    """Original and counterpart timed side by side. ``time_ratio`` is the original's median
    time over the fix's: above 1 the fix is faster."""

    variant: str  # the counterpart, family/id
    defines: dict[str, int]
    local: tuple[int, ...] | None
    why: str
    device: str
    original_ms: float | None
    fix_ms: float | None
    time_ratio: float | None
    round_ratios: tuple[float, ...]
    note: str = ""  # why there is no ratio (a refused or wrong run), else empty

    def to_json(self) -> dict[str, Any]:
        """The ``fix`` field of a finding in ``trace --json``."""
        return {
            "variant": self.variant,
            "defines": dict(self.defines),
            "local": list(self.local) if self.local is not None else None,
            "why": self.why,
            "device": self.device,
            "original_ms": self.original_ms,
            "fix_ms": self.fix_ms,
            "time_ratio": self.time_ratio,
            "round_ratios": list(self.round_ratios),
            "note": self.note or None,
        }

    @property
    def within_noise(self) -> bool:
        """Some rounds found the fix faster and others slower."""
        return any(r > 1 for r in self.round_ratios) and any(r < 1 for r in self.round_ratios)

    def sentence(self) -> str:
        """What a person reads: "padding the tile makes it 1.60× faster on <device>"."""
        if self.time_ratio is None:
            return f"{self.why}: not measured ({self.note})"
        ratio = self.time_ratio
        how = f"{ratio:.2f}× faster" if ratio >= 1 else f"{1 / ratio:.2f}× slower"
        text = f"{self.why} makes it {how} on {self.device}"
        if self.within_noise:
            text += " (within the noise of these runs)"
        return text


def offer_fix(request: RunRequest, kind: str) -> FixOffer | None:
    """The counterpart of the configuration ``request`` for a finding of ``kind``, or None
    when the kind is not a cost or the kernel's header names no counterpart."""
    counterpart = request.variant.counterpart
    if kind not in registry.kinds(Category.COST) or counterpart is None:
        return None
    if counterpart.variant:
        target = _find_counterpart(request.variant, counterpart.variant)
        if target is None:
            return None
        defines = {**target.default_defines, **dict(counterpart.defines)}
        local = counterpart.local
    else:
        target = request.variant
        defines = {**request.defines, **dict(counterpart.defines)}
        local = counterpart.local or request.local
    original = dataclasses.replace(request, keep_output=False, pair_copy=False)
    fix = dataclasses.replace(original, variant=target, defines=defines, local=local)
    why = counterpart.why or _describe_change(request, fix)
    return FixOffer(original, fix, why)


def _find_counterpart(variant: Variant, variant_id: str) -> Variant | None:
    """A file of that name beside the kernel (a user's own pair), else the catalog's."""
    beside = Path(variant.path).with_name(f"{variant_id}.cl")
    try:
        if beside.is_file() and beside.resolve() != Path(variant.path).resolve():
            found = load_variant_file(beside)
            return found if found.family == variant.family else None
        return find_variant(variant.family, variant_id)
    except CatalogError:
        return None


def _describe_change(original: RunRequest, fix: RunRequest) -> str:
    if fix.variant.path != original.variant.path:
        return fix.variant.qualified_id
    changed = [f"{k}={v}" for k, v in fix.defines.items() if original.defines.get(k) != v]
    if fix.local != original.local and fix.local is not None:
        changed.append("local " + "x".join(map(str, fix.local)))
    return ", ".join(changed) or "the counterpart"


def summarise(offer: FixOffer, results: Sequence[RunResult]) -> FixCost:
    """The measured cost from ``results``, which alternate original and fix as
    :meth:`FixOffer.requests` ordered them."""
    originals, fixes = list(results[0::2]), list(results[1::2])
    fix = offer.fix
    device = next((r.device for r in results if r.device), "")
    local = next((r.local_size for r in fixes if r.local_size), fix.local)
    base = FixCost(
        variant=fix.variant.qualified_id,
        defines=dict(fix.defines),
        local=tuple(local) if local else None,
        why=offer.why,
        device=device,
        original_ms=None,
        fix_ms=None,
        time_ratio=None,
        round_ratios=(),
    )
    for label, runs in (("the original", originals), ("the fix", fixes)):
        bad = next((r for r in runs if r.status != "verified" or r.timing is None), None)
        if bad is not None or not runs:
            what = bad.summary() if bad is not None else "it did not run"
            return dataclasses.replace(base, note=f"{label} did not verify: {what}")
    a = [s for r in originals if r.timing for s in r.timing.kernel_ms]
    b = [s for r in fixes if r.timing for s in r.timing.kernel_ms]
    original_ms, fix_ms = float(np.median(a)), float(np.median(b))
    rounds = tuple(
        float(o.timing.median_ms / f.timing.median_ms)
        for o, f in zip(originals, fixes, strict=False)
        if o.timing and f.timing and f.timing.median_ms > 0
    )
    return dataclasses.replace(
        base,
        original_ms=original_ms,
        fix_ms=fix_ms,
        time_ratio=original_ms / fix_ms if fix_ms > 0 else None,
        round_ratios=rounds,
    )


def measure_fix(executor: Executor, offer: FixOffer, rounds: int = ROUNDS) -> FixCost:
    """Time the original and its fix alternately through the executor."""
    return summarise(offer, [executor.run(r) for r in offer.requests(rounds)])
