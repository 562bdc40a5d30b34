"""The rewritten vector stores compute what the kernel as written computes and record what it
stored, for stores written as people write them (tests/trace/vreview): arguments with side
effects (``vstore4(v, i++, p)``, ``q[i++] = v``, ``vstore4(next(&s), ...)``), stores in the arms
of ``?:``, in a for-loop's header, through a macro in an if/else without braces, and stores of
a vector's components. A selection whose components are not the elements its record covers,
in their order (``q[i].wzyx = v``, ``q[i].odd = v.even``, a read of ``.yx``), records no value:
its value would have put the components in the wrong cells. A store of three components from
the second (``r4[g].s123 = v.xyz``) is recorded as its whole vector, not 16 bytes from its
second component: that ran into the next vector, a false race, and past the buffer's end the
last one was not stored at all. A race and a read of unwritten
local memory inside such stores are found with values and without."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.launch.devices import list_devices
from explorer.engine.launch.run import run_request
from explorer.engine.record.oclgrind import find_oclgrind
from explorer.engine.record.trace_launch import TraceRequest, trace_and_analyse
from explorer.engine.records import RunRequest
from explorer.trace.columns import element_column, element_value_reader, last_element_column, spread
from explorer.trace.recorded import VALUE_NONE, VALUE_READ, VALUE_WRITTEN

KERNEL = Path(__file__).parent / "vreview" / "swizzles.cl"
ITEMS = 8


def _request(device) -> RunRequest:
    return RunRequest(load_variant_file(KERNEL), {}, device_key=device.key)


def _traced(device, values: bool):
    traced = trace_and_analyse(TraceRequest(_request(device), values=values), keep_trace=True)
    assert traced.analysis is not None, traced.result.summary()
    assert traced.trace.complete
    return traced


def _findings(traced) -> list[tuple]:
    return [(f.kind, f.line, f.buffer, f.count, f.phase) for f in traced.analysis.findings]


def _records_per_site(traced, sites: int) -> list[int]:
    """How many records each of the first ``sites`` sites made (a build with values declares
    the site of vector parts after every access's)."""
    return np.bincount(traced.trace.site, minlength=sites)[:sites].tolist()


def _recorded(trace, site):
    """For every element each record of ``site`` covers: the element, the record's first
    element and the value the trace holds there."""
    records = np.flatnonzero(trace.site == site.id)
    first = element_column(trace)[records]
    element, which = spread(first, last_element_column(trace)[records])
    values = element_value_reader(trace)(records[which], element - first[which])
    return element, first[which], values


def _expected(x: np.ndarray) -> np.ndarray:
    """What the kernel leaves in ``o``, worked out from ``x``."""
    o = np.zeros((ITEMS, 64), dtype=np.float32)
    v = x.reshape(ITEMS, 4)
    g = np.arange(ITEMS)[:, None]
    o[:, 0:4] = v
    o[:, 4:8] = v + 1
    o[:, 8:12] = v + 2
    o[:, 12:16] = v + 1
    o[:, 16:20] = np.where(g & 1, v * 2, v * 3)
    o[:, 20:24] = v - 1  # j++ runs first
    o[:, 24:28] = v - 2
    o[:, 28:32] = np.where(g > 3, v * 5, v * 7)
    o[:, 32:34] = v[:, 2:4]
    o[:, 38:40] = v[:, 0:2]
    o[:, 40:44] = v[:, ::-1]
    o[:, 45], o[:, 47] = v[:, 0], v[:, 2]
    o[:, 60] = v[:, 1] - v[:, 0]
    o[:, 61] = 12
    r4 = np.zeros((ITEMS, 4), dtype=np.float32)
    r4[:, 0], r4[:, 1:] = np.arange(ITEMS), v[:, :3]
    return np.concatenate([o.reshape(-1), r4.reshape(-1)])


def test_the_traced_kernel_computes_what_the_kernel_computes(device):
    """Each argument with a side effect is evaluated once, each store in an arm, a loop's
    header or a macro runs when the kernel's does: the traced build's output, with values
    and without, is the kernel's own, and the same race and unwritten read are found."""
    plain = run_request(_request(device))
    x = plain.inputs["x"]
    assert plain.outputs["o"].tolist() == _expected(x).tolist()
    with_values, without = _traced(device, True), _traced(device, False)
    for traced in (with_values, without):
        assert traced.result.outputs["o"].tolist() == plain.outputs["o"].tolist()
    assert _findings(with_values) == _findings(without)
    sites = len(without.trace.sites)
    assert _records_per_site(with_values, sites) == _records_per_site(without, sites)
    kinds = {finding[0] for finding in _findings(with_values)}
    assert {"race", "uninitialized"} <= kinds
    # `r4[g].s123 = v.xyz` recorded 16 bytes from its second float: r4[g + 1].x, which
    # work-item g + 1 writes, was reported as a race, and the last work-item's store, taken
    # to run past the buffer's end, was not made (o[541..543] stayed 0 in the traced run).
    races = [f for f in with_values.analysis.findings if f.kind == "race"]
    assert {f.buffer for f in races} == {"shared"}


def test_every_value_recorded_is_in_the_element_it_names(device):
    """Every value a store's record holds is what its element holds after the run, and a
    load's first value what ``x`` holds: ``q[i].wzyx = v`` recorded v.x in o[40], which holds
    v.w; ``q[i].odd = v.even`` recorded v.z in o[46], which it never wrote; a read of
    ``.yx`` recorded x[1] as x[0]. Those record no value now; a selection of components side
    by side in their order (``.xy``, ``.hi``) keeps its values."""
    traced = _traced(device, True)
    trace, outputs, x = traced.trace, traced.result.outputs, traced.result.inputs["x"]
    held = {"o": outputs["o"], "x": x}
    checked = set()
    for site in trace.sites:
        if site.buffer < 0 or site.value == VALUE_NONE:
            continue
        name = trace.buffers[site.buffer].name
        if name not in held:
            continue
        element, first, values = _recorded(trace, site)
        if site.value == VALUE_WRITTEN:
            shown = ~np.isnan(values)
            assert shown.any(), site.text
            expected = held[name][element[shown]].astype(np.float64)
            assert values[shown].tolist() == expected.tolist(), (site.line, site.text)
        else:
            assert site.value == VALUE_READ
            at = element == first
            expected = held[name][element[at]].astype(np.float64)
            assert values[at].tolist() == expected.tolist(), (site.line, site.text)
        checked.add(site.text)
    assert {"q[i++].xy", "q[i++].hi", "vstore4(next(&s), i++, p)", "q[i++]"} <= checked
    wrong_cells = ("q[i++].wzyx", "q[i++].odd", "((__global const float4 *)x)[g].yx", "r4[g].s123")
    for text in wrong_cells:
        [site] = [s for s in trace.sites if s.text == text]
        assert site.value == VALUE_NONE, text


def test_oclgrind_computes_the_same_traced(device):
    """Another compiler evaluates the rewritten stores: the traced build's output on
    Oclgrind is its run's, and it finds the same."""
    oclgrind = find_oclgrind(list_devices())
    if oclgrind is None:
        pytest.skip('Oclgrind is not installed (pip install "pyopencl[oclgrind]")')
    plain = run_request(_request(oclgrind))
    traced = _traced(oclgrind, True)
    assert traced.result.outputs["o"].tolist() == plain.outputs["o"].tolist()
    assert _findings(traced) == _findings(_traced(device, True))
