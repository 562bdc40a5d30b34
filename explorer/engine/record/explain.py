"""Why is this element wrong: a traced run's element explained by its trace beside what its
reference needs. Both command lines and the window ask here; the trace says what flowed in
(:mod:`explorer.trace.provenance`), the kernel's model what the reference needs
(``KernelModel.reference_needs``), :mod:`explorer.trace.explain` puts them side by side."""

from __future__ import annotations

import numpy as np

from explorer.description.expressions import ExpressionError
from explorer.description.launch import DescriptionError, Setting
from explorer.engine.records import RunResult, Variant
from explorer.families.base import InputError
from explorer.trace.explain import ElementError, Explanation, explain, parse_element
from explorer.trace.provenance import Layout, provenance
from explorer.trace.recorded import GLOBAL, Trace


def explain_element(
    trace: Trace,
    result: RunResult,
    variant: Variant,
    element: str | tuple[str | None, tuple[int, ...]],
    compute_units: int = 1,
) -> Explanation:
    """Explain one element of a result the trace recorded: ``element`` as written on the
    command line (``C[3,5]``, ``3,5`` for the first result) or as (name, index), rows first.
    Raises :class:`ElementError` naming what is wrong with it."""
    name, index = parse_element(element) if isinstance(element, str) else element
    outputs = result.outputs or {}
    results = list(outputs) or ([trace.output_role] if trace.output_role else [])
    if name is None:
        if not results:
            raise ElementError("the kernel has no result to explain")
        name = results[0]
    buffer = next(
        (i for i, b in enumerate(trace.buffers) if b.role == name and b.space == GLOBAL), None
    )
    if buffer is None or trace.buffers[buffer].is_input:
        known = ", ".join(results) or "none"
        raise ElementError(f"{name} is not a result of {variant.name} (its results: {known})")
    layout = Layout(trace, result.shapes, tuple(result.column_major))
    try:
        stored = layout.element(buffer, tuple(index))
    except ValueError as exc:
        raise ElementError(str(exc)) from None
    value, reference, bits = _values(result, name, tuple(index))
    found = provenance(trace, buffer, stored, layout, bits)
    setting = Setting(
        dict(result.sizes),
        dict(result.defines),
        tuple(result.local_size or trace.local_size),
        compute_units,
    )
    try:
        needs = variant.model.reference_needs(setting, result.inputs or {}, name, tuple(index))
    except (DescriptionError, InputError, ExpressionError, ValueError, KeyError) as exc:
        needs = f"the reference could not be read ({exc})"
    return explain(found, dict(result.shapes), needs, value, reference)


def _values(
    result: RunResult, name: str, index: tuple[int, ...]
) -> tuple[float | None, float | None, int | None]:
    """The element as the run left it, as the reference has it, and its stored bits."""
    value = reference = None
    bits = None
    out = (result.outputs or {}).get(name)
    if out is not None and np.ndim(out) == len(index):
        item = np.asarray(out)[index]
        value = float(item)
        raw = np.asarray(item)
        if raw.dtype.itemsize in (4, 8):
            bits = int(raw.view(np.uint32 if raw.dtype.itemsize == 4 else np.uint64))
    ref = (result.references or {}).get(name)
    if ref is not None and np.ndim(ref) == len(index):
        reference = float(np.asarray(ref)[index])
    return value, reference, bits
