"""The values of vectors stored and loaded by plain assignment, in the trace: every element a
``float4`` store writes holds what the kernel wrote there, as a scalar store's does, whether
it is written through a pointer cast, a ``float4*`` parameter indexed, a macro, ``+=``, into a
local tile, or as an ``int2``, a ``uchar4`` or a ``double2`` (tests/trace/vassigns). A vector
load's record holds its first component. Recording them changes no other record and no
finding, optimised or not."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.launch.devices import list_devices
from explorer.engine.record.oclgrind import find_oclgrind
from explorer.engine.record.trace_launch import TraceRequest, trace_and_analyse
from explorer.engine.records import RunRequest
from explorer.trace.columns import element_column, element_value_reader, last_element_column, spread
from explorer.trace.decode import _parts_apart, _value_parts
from explorer.trace.grids import make_grids
from explorer.trace.playback import Playback
from explorer.trace.recorded import ROLE_PARTS, VALUE_READ, VALUE_WRITTEN
from tests.trace.test_odd_sizes import _has_doubles
from tests.trace.test_same_findings_either_build import _both

KERNELS = Path(__file__).parent / "vassigns"
GROUP = 8  # the kernels' local size
ITEMS = 32  # and global size


def _run(device, name: str, **defines: int) -> RunRequest:
    variant = load_variant_file(KERNELS / f"{name}.cl")
    return RunRequest(variant, {}, defines=defines, device_key=device.key)


def _traced(device, name: str, values: bool = True, **defines: int):
    request = TraceRequest(_run(device, name, **defines), values=values)
    traced = trace_and_analyse(request, keep_trace=True)
    assert traced.analysis is not None, traced.result.summary()
    assert traced.trace.complete
    return traced


def _accessed(trace, text: str, line: int, value: int):
    """The access written ``text`` at ``line``: its buffer's name, and for every element each
    of its records covers, the element, the work-item and the value the trace holds."""
    [site] = [s for s in trace.sites if s.text == text and s.line == line]
    assert (site.value, site.buffer >= 0) == (value, True), text
    records = np.flatnonzero(trace.site == site.id)
    first = element_column(trace)[records]
    element, which = spread(first, last_element_column(trace)[records])
    values = element_value_reader(trace)(records[which], element - first[which])
    return trace.buffers[site.buffer].name, element, trace.wi[records[which]], values


# (text, line) of each store -> (buffer, components each work-item stores)
STORES = {
    ("*(__global float4 *)p", 16): ("out", 4),
    ("((__global float4 *)(shifted))[(g)]", 18): ("shifted", 4),
    ("s4[g]", 21): ("sums", 4),  # the += : the sum
    ("((__global int2 *)pairs)[g]", 22): ("pairs", 2),
    ("((__global uchar4 *)bytes)[g]", 23): ("bytes", 4),
    ("((__global float4 *)back)[g]", 28): ("back", 4),
}


def test_vector_assignments_hold_every_component_the_buffers_hold(device):
    """A float4 stored through a cast pointer, into a float4* parameter indexed (its value a
    float4 loaded in the same statement), through a macro, by ``+=`` (the sum), an int2 and
    a uchar4 through casts: every element each one wrote holds in the trace what its buffer
    holds after the run (the first component alone did: three of every four cells of the
    register-blocked matmul's C drew empty). The animation's output cells show them all."""
    traced = _traced(device, "assigns")
    trace, outputs, x = traced.trace, traced.result.outputs, traced.result.inputs["x"]
    for (text, line), (buffer, width) in STORES.items():
        name, element, wi, values = _accessed(trace, text, line, VALUE_WRITTEN)
        assert name == buffer, text
        assert sorted(element.tolist()) == list(range(ITEMS * width)), text  # each once
        assert (element // width == wi).all(), text
        assert values.tolist() == outputs[buffer][element].astype(np.float64).tolist(), text
    # A float4* parameter's elements are float4s: one element a store, its components
    # its record's value and its parts.
    [site] = [s for s in trace.sites if s.text == "quads[g]"]
    records = np.flatnonzero(trace.site == site.id)
    assert element_column(trace)[records].tolist() == trace.wi[records].tolist()
    quads = _float4s(trace, records)
    assert quads.tolist() == outputs["quads"].reshape(-1, 4)[trace.wi[records]].tolist()
    # s4[g] = a before the +=: x's four floats of the work-item
    _name, element, wi, values = _accessed(trace, "s4[g]", 20, VALUE_WRITTEN)
    assert values.tolist() == x[element].astype(np.float64).tolist()
    assert not traced.analysis.findings

    playback = Playback(trace, make_grids(trace, {}))
    steps = playback.cursor.group_steps
    first = 4 * GROUP * playback.group[0]  # eight work-items a group, four floats each
    for buffer in ("out", "shifted", "sums", "back"):
        grid = next(grid for grid in playback.grids if grid.name == buffer)
        window = (0, grid.rows, 0, grid.cols)
        shown = playback.values.written_values(steps, grid, len(steps.steps) - 1, window)
        shown = shown.reshape(-1)
        assert shown[first : first + 4 * GROUP].tolist() == (
            outputs[buffer][first : first + 4 * GROUP].tolist()
        ), buffer
        assert np.isnan(np.delete(shown, np.s_[first : first + 4 * GROUP])).all(), buffer


def test_vector_loads_hold_the_first_component_memory_held(device):
    """A float4 loaded through a cast pointer, by vload4, and indexed on a cast in a store's
    right-hand side: its record holds the first float x held there (a load records no parts:
    what it read is what memory held, and every vector load of an inner loop recording them
    shrank the traced window of the register-blocked matmul at 1024 from 29 groups to 11)."""
    traced = _traced(device, "assigns")
    trace, x = traced.trace, traced.result.inputs["x"]
    loads = {
        ("*(__global const float4 *)(x + 4 * g)", 13): range(0, 128),
        ("vload4(g + 32, x)", 14): range(128, 256),
        ("((__global const float4 *)x)[63 - g]", 17): range(128, 256),
    }
    for (text, line), covered in loads.items():
        name, element, _wi, values = _accessed(trace, text, line, VALUE_READ)
        assert name == "x" and sorted(element.tolist()) == list(covered), text
        first = element % 4 == 0
        assert values[first].tolist() == x[element[first]].astype(np.float64).tolist(), text


def test_a_local_float4_tile_holds_every_float_stored_and_read(device):
    """((__local float4 *)tile)[l] = a + b, read back by the next work-item after the
    barrier: the trace's stores into the tile hold what ``back`` received, and the
    animation's tile shows every float of it."""
    traced = _traced(device, "assigns")
    trace, back = traced.trace, traced.result.outputs["back"]
    # back[4g + c] = tile[4 * ((l + 1) % 8) + c] of g's group
    name, element, wi, stored = _accessed(trace, "((__local float4 *)tile)[l]", 24, VALUE_WRITTEN)
    assert name == "tile" and element.size == 4 * ITEMS
    reader = (wi // GROUP) * GROUP + (wi % GROUP + GROUP - 1) % GROUP
    assert stored.tolist() == back[4 * reader + element % 4].astype(np.float64).tolist()

    playback = Playback(trace, make_grids(trace, {}))
    tile = next(grid for grid in playback.grids if grid.name == "tile")
    steps = playback.cursor.group_steps
    shown, writer, _fresh, _source = playback.values.local_contents(
        steps, tile, len(steps.steps) - 1
    )
    group = playback.group[0]
    own = back[4 * GROUP * group : 4 * GROUP * (group + 1)].reshape(GROUP, 4)
    assert shown.reshape(-1).tolist() == np.roll(own, 1, axis=0).reshape(-1).tolist()
    assert writer.reshape(-1).tolist() == np.repeat(np.arange(GROUP), 4).tolist()


def test_double2_pairs_hold_both_doubles(device):
    """A double2 fills a record's value: the second double it stored was recorded nowhere."""
    if not _has_doubles(device):
        pytest.skip("the device has no doubles")
    traced = _traced(device, "doubles")
    trace, src, dst = traced.trace, traced.result.inputs["src"], traced.result.outputs["dst"]
    text = "((__global double2 *)dst)[g]"
    name, element, _wi, values = _accessed(trace, text, 6, VALUE_WRITTEN)
    assert name == "dst" and sorted(element.tolist()) == list(range(2 * ITEMS))
    assert values.tolist() == dst[element].tolist()
    text = "((__global const double2 *)src)[31 - g]"
    name, element, _wi, values = _accessed(trace, text, 5, VALUE_READ)
    assert name == "src" and sorted(element.tolist()) == list(range(2 * ITEMS))
    first = element % 2 == 0
    assert values[first].tolist() == src[element[first]].tolist()
    assert not traced.analysis.findings


def test_recording_the_values_changes_no_record_and_no_finding(device):
    """RACY=1 leaves out the barrier: the same records (every site, offset and order) and the
    same race whether the trace records values or not."""
    with_values = _traced(device, "assigns", RACY=1)
    without = _traced(device, "assigns", values=False, RACY=1)
    assert np.array_equal(with_values.trace.word, without.trace.word)
    assert np.array_equal(with_values.trace.offset, without.trace.offset)
    assert with_values.trace.kept.tolist() == without.trace.kept.tolist()
    assert _findings(with_values) == _findings(without)
    assert "race" in {kind for kind, *_ in _findings(with_values)}


def test_the_racy_assignments_find_the_same_optimised_or_not(cpu_device, monkeypatch):
    optimised, unoptimised, traced = _both(_run(cpu_device, "assigns", RACY=1), monkeypatch)
    assert optimised == unoptimised
    assert traced.trace.value_parts is not None and traced.trace.value_parts.size


def test_oclgrind_records_the_same_values_and_finds_the_same(device):
    """Another compiler evaluates the assignments: Oclgrind's trace holds the same value in
    every element each store wrote, and gives the same findings."""
    oclgrind = find_oclgrind(list_devices())
    if oclgrind is None:
        pytest.skip('Oclgrind is not installed (pip install "pyopencl[oclgrind]")')
    here, there = (_traced(d, "assigns") for d in (device, oclgrind))
    assert _findings(here) == _findings(there)
    for text, line in [*STORES, ("s4[g]", 20), ("((__local float4 *)tile)[l]", 24)]:
        mine, theirs = (_accessed(t.trace, text, line, VALUE_WRITTEN) for t in (here, there))
        assert _in_order(mine) == _in_order(theirs), text
        assert np.isfinite(mine[3]).all(), text


def _in_order(accessed: tuple[str, np.ndarray, np.ndarray, np.ndarray]) -> list[tuple]:
    _name, element, wi, values = accessed
    return sorted(zip(wi.tolist(), element.tolist(), values.tolist(), strict=True))


def test_a_store_s_parts_are_its_own_when_a_load_s_record_comes_between():
    """C leaves open whether ``C4[i] = A4[j]`` makes A's record before C's or after: where a
    compiler makes C's first, A's comes between C's record and C's parts (recorded once the
    assignment's value is known). The parts name their store's site, so they are C's, not
    A's, and a work-item's parts never go to the work-item before it."""
    float4_site = SimpleNamespace(id=0, role="", value=VALUE_WRITTEN, value_type="float4")
    load_site = SimpleNamespace(id=1, role="", value=VALUE_READ, value_type="float4")
    parts_site = SimpleNamespace(id=2, role=ROLE_PARTS, value=VALUE_WRITTEN, value_type="")
    inst = SimpleNamespace(sites=(float4_site, load_site, parts_site))
    floats = np.array([1.5, 2.5, -3.0, 4.0], dtype=np.float32).view(np.uint32).astype(np.uint64)
    # work-item 0: C's record, A's, C's parts (components 1-2, then 3); work-item 1: its
    # parts alone (its store's record was dropped: the region was full)
    word = np.array([0, 1, 2, 2, 2], dtype=np.uint32)
    offset = np.array([64, 0, 0 * 16 + 1, 0 * 16 + 3, 0 * 16 + 1], dtype=np.int32)
    value = np.array(
        [floats[0], 7, floats[1] | floats[2] << 32, floats[3], floats[1]], dtype=np.uint64
    )
    kept = np.array([4, 1])
    is_part, owner = _parts_apart(inst, word, offset, kept)
    assert is_part.tolist() == [False, False, True, True, True]
    assert owner.tolist() == [0, 0, -1]
    parts = _value_parts(inst, word, offset, value, is_part, owner)
    assert parts[:, :2].tolist() == [[0, 1], [0, 2], [0, 3]]  # record 0: C's
    assert parts[:, 2].astype(np.uint32).view(np.float32).tolist() == [2.5, -3.0, 4.0]


def _float4s(trace, records: np.ndarray) -> np.ndarray:
    """The float4 each of ``records`` holds: its first float from the record's value, the
    others from ``Trace.value_parts`` (record, component, bits)."""
    out = np.full((records.size, 4), np.nan, dtype=np.float32)
    out[:, 0] = (trace.values[records] & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
    parts = trace.value_parts
    for k in range(1, 4):
        rows = parts[(parts[:, 1] == k) & np.isin(parts[:, 0], records)]
        at = np.searchsorted(records, rows[:, 0])
        out[at, k] = rows[:, 2].astype(np.uint32).view(np.float32)
    return out


def _findings(traced) -> list[tuple]:
    return [(f.kind, f.line, f.buffer, f.count, f.phase) for f in traced.analysis.findings]


@pytest.fixture
def cpu_device(device):
    if device.type.upper() != "CPU":
        pytest.skip("only a CPU trace is ever built unoptimised")
    return device
