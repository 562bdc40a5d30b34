"""The values a vstoreN stored, in the trace: every element it writes holds what the kernel
wrote there, as a scalar store's does, in local memory and in global memory, for every width,
for integer types and for vstore_halfN, written plainly or through a macro
(tests/trace/vstores). Recording them changes no other record and no finding, optimised or
not, and Oclgrind's trace holds the same."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.launch.devices import list_devices
from explorer.engine.record.oclgrind import find_oclgrind
from explorer.engine.record.trace_launch import TraceRequest, trace_and_analyse
from explorer.engine.records import RunRequest
from explorer.trace.columns import element_column, element_value_reader, last_element_column, spread
from explorer.trace.grids import make_grids
from explorer.trace.playback import Playback
from explorer.trace.recorded import VALUE_WRITTEN
from tests.trace.test_same_findings_either_build import _both

KERNELS = Path(__file__).parent / "vstores"
GROUP = 16  # registers_to_tile's local size


def _run(device, name: str, **defines: int) -> RunRequest:
    variant = load_variant_file(KERNELS / f"{name}.cl")
    return RunRequest(variant, {}, defines=defines, device_key=device.key)


def _traced(device, name: str, values: bool = True, **defines: int):
    request = TraceRequest(_run(device, name, **defines), values=values)
    traced = trace_and_analyse(request, keep_trace=True)
    assert traced.analysis is not None, traced.result.summary()
    assert traced.trace.complete
    return traced


def _stored(trace, text: str) -> tuple[str, np.ndarray, np.ndarray, np.ndarray]:
    """The vstore written ``text``: its buffer's name, and for every element each of its
    records covers, the element, the work-item that stored it and the value the trace holds."""
    [site] = [s for s in trace.sites if s.text.startswith(text)]
    assert (site.value, site.buffer >= 0) == (VALUE_WRITTEN, True)
    records = np.flatnonzero(trace.site == site.id)
    first = element_column(trace)[records]
    element, which = spread(first, last_element_column(trace)[records])
    values = element_value_reader(trace)(records[which], element - first[which])
    return trace.buffers[site.buffer].name, element, trace.wi[records[which]], values


def _tile(x: np.ndarray, group: int) -> np.ndarray:
    """What registers_to_tile's group stores in its tile: work-item l's float4 of pairwise
    sums of its eight floats, halved, plus l."""
    g = group * GROUP + np.arange(GROUP)
    pairs = x.astype(np.float32).reshape(-1, 4, 2)[g]
    halves = (pairs[:, :, 0] + pairs[:, :, 1]) * np.float32(0.5)
    return halves + np.arange(GROUP, dtype=np.float32)[:, None]


def test_a_tile_stored_from_registers_by_vstore4_holds_every_float_it_stored(device):
    """vstore4(acc * 0.5f + (float4)(l), l, tile) of a float4 summed in registers: each of
    the four floats of every work-item's store is in the trace (the first alone was, or none
    at all: Bsub of the register-blocked matmul drew empty), equal to what the work-items of
    the group read back after the barrier, and the animation's tile shows them all."""
    traced = _traced(device, "registers_to_tile")
    trace = traced.trace
    x, out = traced.result.inputs["x"], traced.result.outputs["out"]
    name, element, wi, values = _stored(trace, "vstore4(acc")
    assert name == "tile" and element.size == 4 * 64  # four floats by each of 64 work-items
    group, local = wi // GROUP, wi % GROUP
    assert (element // 4 == local).all()
    expected = np.concatenate([_tile(x, G) for G in range(4)]).reshape(4, GROUP * 4)
    assert values.tolist() == expected[group, element].tolist()
    # out[4g + k] read tile[4 * ((l + k) % 16) + k], stored by work-item (l + k) % 16
    g = np.arange(64)
    read_back = expected[g // GROUP][:, None, :]
    k = np.arange(4)
    at = 4 * ((g[:, None] % GROUP + k) % GROUP) + k
    assert out.reshape(64, 4).tolist() == np.take_along_axis(read_back[:, 0], at, 1).tolist()

    playback = Playback(trace, make_grids(trace, {}))
    tile = next(grid for grid in playback.grids if grid.name == "tile")
    steps = playback.cursor.group_steps
    shown, writer, _fresh, _source = playback.values.local_contents(
        steps, tile, len(steps.steps) - 1
    )
    assert shown.reshape(-1).tolist() == _tile(x, playback.group[0]).reshape(-1).tolist()
    assert writer.reshape(-1).tolist() == np.repeat(np.arange(GROUP), 4).tolist()
    assert not {f.kind for f in traced.analysis.findings} & {"race", "uninitialized"}


def test_vstores_of_every_width_and_integer_type_hold_what_the_buffers_hold(device):
    """vstore2 at a mirrored offset, vstore8 of a float8 loaded from a private array it was
    vstore8'd into, vstore16 of a short16, vstore4 of an int4 through a macro and of a
    uchar4: every element each one wrote holds in the trace what its buffer holds after the
    run (32 work-items, each storing once with each). The animation's output cells too."""
    traced = _traced(device, "wide_and_typed")
    trace, outputs = traced.trace, traced.result.outputs
    stores = {
        "vstore2(": ("pairs", 2, "float2"),
        "vstore8(e": ("eights", 8, "float8"),
        "vstore16(": ("sixteens", 16, "short16"),
        "vstore4(((int4)": ("ints", 4, "int4"),
        "vstore4(convert": ("bytes", 4, "uchar4"),
    }
    for text, (buffer, width, value_type) in stores.items():
        name, element, _wi, values = _stored(trace, text)
        assert name == buffer
        assert sorted(element.tolist()) == list(range(32 * width)), text  # each written once
        assert values.tolist() == outputs[buffer][element].astype(np.float64).tolist(), text
        assert next(s.value_type for s in trace.sites if s.text.startswith(text)) == value_type
    assert not traced.analysis.findings

    playback = Playback(trace, make_grids(trace, {}))
    eights = next(grid for grid in playback.grids if grid.name == "eights")
    steps = playback.cursor.group_steps
    first = 8 * 8 * playback.group[0]  # eight work-items a group, eight floats each
    shown = playback.values.written_values(
        steps, eights, len(steps.steps) - 1, (0, 1, 0, eights.cols)
    )
    assert shown[0, first : first + 64].tolist() == outputs["eights"][first : first + 64].tolist()
    assert np.isnan(np.delete(shown[0], np.s_[first : first + 64])).all()


def test_vstore_halves_hold_the_halves_each_rounding_stored(device):
    """vstore_half4_rtz into a local tile read back with vload_half4 after the barrier,
    vstore_half4, vstorea_half3_rtp (three halves, four apart) and vstore_half into a half
    buffer: each element holds the half the store wrote, rounded as the device rounded it
    (the trace held no half value before)."""
    traced = _traced(device, "halves")
    trace, h = traced.trace, traced.result.outputs["h"]
    assert h.dtype == np.float16
    for text, width, value_type in (
        ("vstore_half4(back", 4, "half4"),
        ("vstorea_half3_rtp(", 3, "half3"),
        ("vstore_half(x[g]", 1, "half"),
    ):
        name, element, _wi, values = _stored(trace, text)
        assert name == "h" and element.size == 32 * width
        assert values.tolist() == h[element].astype(np.float64).tolist(), text
        assert next(s.value_type for s in trace.sites if s.text.startswith(text)) == value_type
    # h[8g + c] = vload_half4((l + 1) % 8, staged): work-item l + 1's halves of its group.
    # The tile is declared ushort, so its elements read as the ushorts those halves' bits
    # make, as a value stored through a cast reads in any buffer.
    name, element, wi, values = _stored(trace, "vstore_half4_rtz(")
    assert name == "tile" and element.size == 4 * 32
    after = (wi // 8) * 8 + (element // 4 + 7) % 8  # the work-item that read them back
    held = h[8 * after + element % 4].view(np.uint16)
    assert values.tolist() == held.astype(np.float64).tolist()
    assert not traced.analysis.findings


def test_recording_the_stored_values_changes_no_record_and_no_finding(device):
    """RACY=1 leaves out the barrier and reads a row of the tile nobody stores: the same
    records (every site, offset and order) and the same race and uninitialised reads whether
    the trace records values or not."""
    with_values = _traced(device, "registers_to_tile", RACY=1)
    without = _traced(device, "registers_to_tile", values=False, RACY=1)
    assert np.array_equal(with_values.trace.word, without.trace.word)
    assert np.array_equal(with_values.trace.offset, without.trace.offset)
    assert with_values.trace.kept.tolist() == without.trace.kept.tolist()
    assert _findings(with_values) == _findings(without)
    assert {"race", "uninitialized"} <= {kind for kind, *_ in _findings(with_values)}


def test_the_racy_tile_finds_the_same_optimised_or_not(cpu_device, monkeypatch):
    optimised, unoptimised, _ = _both(_run(cpu_device, "registers_to_tile", RACY=1), monkeypatch)
    assert optimised == unoptimised


def test_oclgrind_records_the_same_values_and_finds_the_same(device):
    """Another compiler builds the functions the vstores become: Oclgrind's trace of both
    kernels holds the same value in every element and gives the same findings."""
    oclgrind = find_oclgrind(list_devices())
    if oclgrind is None:
        pytest.skip('Oclgrind is not installed (pip install "pyopencl[oclgrind]")')
    kernels = (("registers_to_tile", {"RACY": 1}, 1), ("wide_and_typed", {}, 5), ("halves", {}, 4))
    for name, defines, stores in kernels:
        here, there = (_traced(d, name, **defines) for d in (device, oclgrind))
        assert _findings(here) == _findings(there), name
        texts = [s.text for s in here.trace.sites if s.value_type and "vstore" in s.text]
        assert len(texts) == stores
        for text in texts:
            assert _in_order(_stored(here.trace, text)) == _in_order(_stored(there.trace, text))


def _findings(traced) -> list[tuple]:
    return [(f.kind, f.line, f.buffer, f.count, f.phase) for f in traced.analysis.findings]


def _in_order(stored: tuple[str, np.ndarray, np.ndarray, np.ndarray]) -> list[tuple]:
    _name, element, wi, values = stored
    return sorted(zip(wi.tolist(), element.tolist(), values.tolist(), strict=True))


@pytest.fixture
def cpu_device(device):
    if device.type.upper() != "CPU":
        pytest.skip("only a CPU trace is ever built unoptimised")
    return device
