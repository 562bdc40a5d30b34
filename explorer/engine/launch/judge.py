"""How a launch is judged: every result against its answer (an array, a float64 function of
the inputs, a numpy expression, another kernel), and what the verdict says of them all."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from explorer.description.expressions import ExpressionError
from explorer.description.launch import (
    BufferParam,
    Computed,
    DescriptionError,
    Expected,
    LaunchDescription,
    NumpyExpression,
    Reference,
    ReferenceKernel,
)
from explorer.description.numpy_expressions import evaluate_reference
from explorer.description.reference_needs import reference_scope, shown
from explorer.engine.launch.verify import verify
from explorer.engine.records import Verdict

# Elements named of those a result's inputs do not decide (the rest are counted).
_NAMED_ELEMENTS = 4

# The results another kernel computes from the same inputs, by buffer name.
KernelResults = Callable[[ReferenceKernel], dict[str, np.ndarray]]


def references(
    description: LaunchDescription,
    inputs: Mapping[str, np.ndarray],
    names: Mapping[str, int],
    kernel_results: KernelResults,
) -> dict[str, Reference]:
    """The expected value of every checked result, in float64 (integers given as arrays stay
    integers), in its shown shape, with its tolerance terms. ``names`` are the sizes and
    defines a numpy expression may use."""
    out: dict[str, Reference] = {}
    kernels: dict[ReferenceKernel, dict[str, np.ndarray]] = {}
    for b in description.results:
        check = b.check
        if check is None:
            continue
        if isinstance(check, Computed):
            ref = check.compute(inputs)
        elif isinstance(check, Expected):
            ref = _given(np.asarray(check.value), check.terms)
        elif isinstance(check, ReferenceKernel):
            if check not in kernels:
                kernels[check] = kernel_results(check)
            ref = _given(kernels[check][b.name], check.terms)
        else:
            ref = _numpy_reference(check, b, description, inputs, names)
        size = math.prod(b.shown_shape)
        if ref.value.size != size:
            raise DescriptionError(
                f"the reference for {b.name!r} has {ref.value.size} values; the buffer has {size}"
            )
        out[b.name] = Reference(
            ref.value.reshape(b.shown_shape), ref.magnitude.reshape(b.shown_shape), ref.terms
        )
    return out


def _given(value: np.ndarray, terms: int) -> Reference:
    """An answer given as an array: integers as they are (float64 holds 53 bits of a 64-bit
    integer), anything else in float64."""
    if value.dtype.kind not in "iub":
        value = value.astype(np.float64)
    return Reference(value, np.abs(value.astype(np.float64)), terms)


def _numpy_reference(
    check: NumpyExpression,
    b: BufferParam,
    description: LaunchDescription,
    inputs: Mapping[str, np.ndarray],
    names: Mapping[str, int],
) -> Reference:
    """The expression over the sizes, the scalars and every buffer as shown, in float64,
    with the absolute terms behind each element for the tolerance."""
    scope = reference_scope(description, inputs, names)
    try:
        value, magnitude = evaluate_reference(check.expression, scope)
    except ExpressionError as exc:
        raise DescriptionError(f"[reference] numpy for {b.name!r}: {exc}") from None
    if value.size != math.prod(b.shown_shape):
        raise DescriptionError(
            f"[reference] numpy for {b.name!r} has {value.size} values; the buffer "
            f"has {math.prod(b.shown_shape)}"
        )
    return Reference(value, magnitude, check.terms)


@dataclass(frozen=True)
class Judged:
    """The verdict over every result, and each result and its answer as shown."""

    verdict: Verdict
    outputs: dict[str, np.ndarray]
    references: dict[str, np.ndarray]


def judge(
    description: LaunchDescription,
    results: Mapping[str, np.ndarray],
    initial: Mapping[str, np.ndarray],
    refs: Mapping[str, Reference],
    unsettled: Mapping[str, np.ndarray] | None = None,
) -> Judged:
    """Each result against its reference (when it has one), and against its initial contents:
    a result the kernel left as it was is named in ``unchanged``. ``unsettled``: by result,
    the elements (True, in its shown shape) its inputs do not decide, left out of the
    comparison and counted in ``undetermined``."""
    unsettled = unsettled or {}
    outputs = {b.name: shown(b, results[b.name]) for b in description.results}
    unchanged = tuple(
        b.name
        for b in description.results
        if results[b.name].size
        and np.array_equal(
            results[b.name], initial[b.name], equal_nan=results[b.name].dtype.kind == "f"
        )
    )
    checked = [b for b in description.results if b.name in refs]
    not_checked = tuple(b.name for b in description.results if b.name not in refs)
    if not checked:
        verdict = Verdict(
            verified=False,
            max_abs_error=float("nan"),
            max_rel_error=float("nan"),
            mismatches=0,
            tolerance="no reference",
            checked=False,
            unchanged=unchanged,
        )
        return Judged(verdict, outputs, {})
    verdicts = [
        verify(outputs[b.name], refs[b.name], b.element.base, unsettled.get(b.name))
        for b in checked
    ]
    undetermined = tuple(
        (
            b.name,
            int(unsettled[b.name].sum()),
            tuple(int(i) for i in np.flatnonzero(unsettled[b.name])[:_NAMED_ELEMENTS]),
        )
        for b in checked
        if b.name in unsettled and unsettled[b.name].any()
    )
    sources = {b.check.source if isinstance(b.check, Expected) else "" for b in checked}
    verdict = Verdict(
        verified=all(v.verified for v in verdicts),
        max_abs_error=max(v.max_abs_error for v in verdicts),
        max_rel_error=max(v.max_rel_error for v in verdicts),
        mismatches=sum(v.mismatches for v in verdicts),
        tolerance=verdicts[0].tolerance,
        not_a_number=sum(v.not_a_number for v in verdicts),
        unchanged=unchanged,
        compared_with=sources.pop() if len(sources) == 1 else "",
        not_checked=not_checked,
        undetermined=undetermined,
    )
    return Judged(verdict, outputs, {b.name: refs[b.name].value for b in checked})


def worse(a: Judged, b: Judged) -> Judged:
    """The judgement to show of two launches: the wrong one, else the larger error."""
    key = (a.verdict.verified, -a.verdict.max_abs_error)
    return a if key <= (b.verdict.verified, -b.verdict.max_abs_error) else b


def with_probe(
    verdict: Verdict, probe: Verdict | None, seed: int, shown: str, hides: str
) -> Verdict:
    """The verdict on the input shown and on the random probe drawn with ``seed``: verified
    only where both are, its figures the input shown's (what the window draws), the probe's
    beside them. ``probe`` None: the probe did not launch (see :func:`without_probe`)."""
    if probe is None or not verdict.checked:
        return verdict
    return replace(
        verdict,
        verified=verdict.verified and probe.verified,
        probe_seed=seed,
        probe_verified=probe.verified,
        probe_mismatches=probe.mismatches,
        probe_max_abs_error=probe.max_abs_error,
        probe_not_a_number=probe.not_a_number,
        shown_input=shown,
        hides=hides,
        probe_note="",
    )


def without_probe(verdict: Verdict, why: str) -> Verdict:
    """The verdict of a launch that had no random probe, saying why."""
    return replace(verdict, probe_seed=None, probe_note=why)
