"""Why is this element wrong: a traced run's element explained by its trace beside what its
reference needs. Both command lines and the window ask here; the trace says what flowed in
(:mod:`explorer.trace.provenance`), the kernel's model what the reference needs
(``KernelModel.reference_needs``), :mod:`explorer.trace.explain` puts them side by side."""

from __future__ import annotations

import numpy as np

from explorer.description.expressions import ExpressionError
from explorer.description.launch import DescriptionError, Setting
from explorer.description.reference_needs import Needs
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
    found = provenance(trace, buffer, stored, layout, bits, _contents(trace, layout, result))
    setting = Setting(
        dict(result.sizes),
        dict(result.defines),
        tuple(result.local_size or trace.local_size),
        compute_units,
    )
    inputs = result.inputs or {}

    def needs_of(where: tuple[int, ...]) -> Needs | str:
        try:
            return variant.model.reference_needs(setting, inputs, str(name), where)
        except (DescriptionError, InputError, ExpressionError, ValueError, KeyError) as exc:
            return f"the reference could not be read ({exc})"

    needs = needs_of(tuple(index))
    siblings = [needs_of(w) for w in found.siblings] if not isinstance(needs, str) else []
    shared = [s for s in siblings if not isinstance(s, str)]
    return explain(found, dict(result.shapes), needs, value, reference, shared)


def _contents(trace: Trace, layout: Layout, result: RunResult) -> dict[int, np.ndarray]:
    """Each input's values as the device holds them: their bits, zero-extended."""
    out = {}
    for b, info in enumerate(trace.buffers):
        array = (result.inputs or {}).get(info.role or "")
        if info.space != GLOBAL or array is None:
            continue
        array = np.ascontiguousarray(array)
        if array.dtype.itemsize != info.elem_size or array.dtype.itemsize not in (1, 2, 4, 8):
            continue
        flat = layout.storage(b, array)
        out[b] = flat.view(f"u{array.dtype.itemsize}").astype(np.uint64)
    return out


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
