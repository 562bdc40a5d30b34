"""Accesses of a size that is not a power of two (a ``vload3``/``vstore3`` of floats, 12 bytes;
of uchar, 3; of short, 6; of double, 24; a struct of three or five floats copied whole) are
recorded whole. A record's word codes only log2 of the size, rounded down (12 bytes: 8), and
the decoder gives each record its size back from its site: so a correct kernel has no
finding and its byte totals count every byte, and a race or an unwritten read on the last
component alone is found. Local memory serves such an access in pieces (a vload3 of floats:
three loads of a float), each a pass of its own over the banks. Each kernel finds the same
with the optimised and the unoptimised build, with as many records at each site (one record
per access, never split)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest, trace_and_analyse
from explorer.engine.records import RunRequest
from explorer.trace.diff import diff_traces
from explorer.trace.grids import make_grids
from explorer.trace.playback import Playback
from explorer.trace.recorded import GLOBAL, WRITE, BufferInfo, Site
from tests.trace.synthetic import from_records, grid
from tests.trace.test_same_findings_either_build import _both

KERNELS = Path(__file__).parent / "odd_sizes"


def _trace(device, name: str):
    run = RunRequest(load_variant_file(KERNELS / f"{name}.cl"), {}, device_key=device.key)
    traced = trace_and_analyse(TraceRequest(run), keep_trace=True)
    assert traced.analysis is not None, traced.result.summary()
    assert traced.trace.complete
    return traced


def _findings(traced) -> list[tuple[str, int | None, str | None]]:
    return [(f.kind, f.line, f.buffer) for f in traced.analysis.findings]


def _sites(traced) -> dict[str, tuple[int, int]]:
    """Accesses and requests of each site, by its text."""
    return {s.text: (s.accesses, s.requests) for s in traced.analysis.sites}


def _sizes(traced) -> dict[str, list[int]]:
    """The sizes the trace gives each site's records, by its text."""
    t = traced.trace
    return {
        s.text: sorted(set(t.size[t.site == s.id].tolist()))
        for s in t.sites
        if (t.site == s.id).any()
    }


def test_vload3_and_vstore3_of_floats_find_nothing_and_count_every_byte(device):
    traced = _trace(device, "vec3_ok")
    # Before: "64 of 192 elements of packed were never written (e.g. packed[2], ...)", and
    # "512 bytes read".
    assert _findings(traced) == []
    assert (traced.analysis.global_bytes_read, traced.analysis.global_bytes_written) == (768, 768)
    assert "Global memory: 768 bytes read, 768 bytes written." in traced.report_text
    assert _sizes(traced) == {"vload3(i, xyz)": [12], "vstore3(p.zyx, i, packed)": [12]}
    # One record per access: 64 work-items, two warps of 32.
    assert _sites(traced) == {"vload3(i, xyz)": (64, 2), "vstore3(p.zyx, i, packed)": (64, 2)}


def test_structs_of_12_and_20_bytes_copied_whole_find_nothing(device):
    traced = _trace(device, "struct_ok")
    assert _findings(traced) == []
    assert (traced.analysis.global_bytes_read, traced.analysis.global_bytes_written) == (
        64 * (12 + 20),
        64 * (12 + 20),
    )
    assert _sizes(traced) == {"src[i]": [12], "dst[i]": [12], "dst5[i]": [20], "src5[i]": [20]}


def test_a_race_on_the_third_component_alone_is_found(device):
    """Each work-item stores its triple and then clears its neighbour's z: they overlap in
    that one float only, which an 8-byte record of the vstore3 missed."""
    traced = _trace(device, "race_z")
    found = traced.analysis.findings
    race = [f for f in found if f.kind == "race"]
    assert [(f.line, f.buffer, set(f.other_lines) | {f.line}) for f in race] == [
        (4, "packed", {4, 6})
    ]
    several = [f for f in found if f.kind == "coverage"]
    assert len(several) == 1
    assert "63 elements of packed were written by several work-items" in several[0].message
    assert "e.g. packed[2], packed[5]" in several[0].message


def test_a_z_component_nobody_wrote_is_read_uninitialised(device):
    """A local tile of triples whose x and y are written, read back with vload3: the z is
    read before anything wrote it."""
    traced = _trace(device, "unwritten_z")
    uninit = [f for f in traced.analysis.findings if f.kind == "uninitialized"]
    assert [(f.line, f.buffer, f.count) for f in uninit] == [(9, "tile", 64)]
    # The elements named are the z's, not the x's where each vload3 starts (written).
    assert uninit[0].elements[:4] == (2, 5, 8, 11)
    assert "e.g. tile[2], tile[5], tile[8], tile[11]" in uninit[0].message
    # Nothing else: a vload3 of floats from local memory is three loads of a float, each
    # lane three words apart: no bank conflict (as one 12-byte access of the whole warp it
    # was taken for a 3-way conflict).
    assert _findings(traced) == [("uninitialized", 9, "tile")]
    [vload3] = [s for s in traced.analysis.sites if s.text == "vload3(l, tile)"]
    assert (vload3.bank_conflict_degree, vload3.bank_conflict_worst) == (1.0, 1)


def test_uchar3_and_short3_vectors_find_nothing_and_count_every_byte(device):
    traced = _trace(device, "narrow3_ok")
    assert _findings(traced) == []
    assert (traced.analysis.global_bytes_read, traced.analysis.global_bytes_written) == (
        64 * (3 + 6),
        64 * (3 + 6),
    )
    sizes = _sizes(traced)
    assert sizes["vload3(i, rgb)"] == [3] and sizes["vload3(i, s)"] == [6]


def _has_doubles(device) -> bool:
    import pyopencl as cl

    platform = cl.get_platforms()[device.platform_index]
    return "cl_khr_fp64" in platform.get_devices()[device.device_index].extensions


def test_double3_vectors_find_nothing_and_count_every_byte(device):
    if not _has_doubles(device):
        pytest.skip("the device has no doubles")
    traced = _trace(device, "double3_ok")
    assert _findings(traced) == []
    assert (traced.analysis.global_bytes_read, traced.analysis.global_bytes_written) == (
        64 * 24,
        64 * 24,
    )
    assert set(map(tuple, _sizes(traced).values())) == {(24,)}


@pytest.fixture
def cpu(device):
    if device.type.upper() != "CPU":
        pytest.skip("only a CPU trace is ever built unoptimised")
    return device


@pytest.mark.parametrize(
    "name",
    ["vec3_ok", "struct_ok", "race_z", "unwritten_z", "local_vec3_ok", "narrow3_ok", "double3_ok"],
)
def test_either_build_finds_the_same(name, cpu, monkeypatch):
    if name == "double3_ok" and not _has_doubles(cpu):
        pytest.skip("the device has no doubles")
    run = RunRequest(load_variant_file(KERNELS / f"{name}.cl"), {}, device_key=cpu.key)
    optimised, unoptimised, _ = _both(run, monkeypatch)
    assert optimised == unoptimised


def test_the_diff_tells_a_vstore3_from_a_vstore2_at_the_same_place():
    """Two traces alike but for the size of one store (12 bytes, and 8 at the same offsets):
    both are coded 8 in the record word, and the diff still parts them."""
    wi_group, wi_local = grid((4,), (4,))
    buffers = [BufferInfo("out", "C", GLOBAL, 4, 12, (12,))]

    def traced(size: int) -> object:
        sites = [Site(0, 3, WRITE, GLOBAL, 0, "vstore", size=size)]
        return from_records(
            np.arange(4),
            np.zeros(4),
            np.arange(4) * 12,
            wi_group=wi_group,
            wi_local=wi_local,
            buffers=buffers,
            sites=sites,
            global_size=(4,),
            local_size=(4,),
            size=np.full(4, size),
        )

    assert diff_traces(traced(12), traced(12), values=False).identical
    parted = diff_traces(traced(12), traced(8), values=False)
    assert not parted.identical and parted.work_items_differing == 4


def test_the_playback_cells_of_a_vstore3_are_its_three_elements(device):
    """The animation marks every element an access covers: after the group's vstore3s every
    element of its part of packed is written (not one in three), and every element of xyz
    it read was loaded once."""
    trace = _trace(device, "vec3_ok").trace
    playback = Playback(trace, make_grids(trace, {}))
    grids = {g.name: g for g in playback.grids}
    packed, xyz = grids["packed"], grids["xyz"]
    group = playback.cursor.group_steps
    last = len(group.steps) - 1
    window = (0, 1, 0, packed.cols)
    written = group.written_before(packed, last, window)[0]
    assert written[: 3 * 32].all() and not written[3 * 32 :].any()  # the first group's 32
    assert group.extent(packed)[1] == (0, 1, 0, 3 * 32)
    assert (
        group.touched_by(packed, last)[0, : 3 * 32].tolist() == np.repeat(np.arange(32), 3).tolist()
    )
    assert playback.index.element_heat(xyz).tolist() == [[1] * 192]  # both groups
    reads, writes = playback.index.window_masks(packed, group.step_records(last), window)
    assert writes[0, : 3 * 32].all() and not reads.any()


def test_a_local_tile_of_triples_finds_nothing_and_its_cells_are_whole(device):
    """Triples staged in local memory with vstore3 and read back with vload3: no finding
    (no unwritten read, no bank conflict: each lane three words from the next), and the
    animation's local cells hold every component, each written by its work-item."""
    traced = _trace(device, "local_vec3_ok")
    assert _findings(traced) == []
    trace = traced.trace
    playback = Playback(trace, make_grids(trace, {}))
    tile = next(g for g in playback.grids if g.name == "tile")
    group = playback.cursor.group_steps
    _value, writer, _fresh, _source = playback.values.local_contents(
        group, tile, len(group.steps) - 1
    )
    assert writer.reshape(-1).tolist() == np.repeat(np.arange(32), 3).tolist()


def test_a_local_tile_of_triples_holds_each_component_it_copied(device):
    """vstore3(vload3(i, xyz), l, tile) copies three floats: the animation's tile[3l + k]
    holds xyz[3i + k] and says it came from there (every component showed xyz[3i], the x)."""
    from explorer.gui.execution_view import run_arrays

    traced = _trace(device, "local_vec3_ok")
    trace = traced.trace
    playback = Playback(trace, make_grids(trace, {}), arrays=run_arrays(traced.result))
    tile = next(g for g in playback.grids if g.name == "tile")
    group = playback.cursor.group_steps
    first = 32 * playback.group[0]  # the group's first work-item
    value, _writer, _fresh, source = playback.values.local_contents(
        group, tile, len(group.steps) - 1
    )
    xyz = traced.result.inputs["xyz"]
    assert value.reshape(-1).tolist() == xyz[3 * first : 3 * first + 96].tolist()
    element = source.reshape(-1) & ((1 << 40) - 1)
    assert element.tolist() == list(range(3 * first, 3 * first + 96))


def test_the_heat_of_wide_loads_over_a_large_trace_takes_memory_by_record_not_by_element():
    """Two million vload16s of a uchar buffer (as an image kernel reads 16 pixels at once):
    the heat counts each of the 16 elements each load covers, in memory of the order of the
    records: a few int64 a record (two gigabytes, near 120 a record, before)."""
    import tracemalloc

    from explorer.trace.grids import make_grids
    from explorer.trace.trace_index import TraceIndex
    from tests.trace.synthetic import GLOBAL, READ, buf, from_records, site

    n, items = 1 << 21, 1 << 12
    per = n // items
    length = per * 16
    wi = np.repeat(np.arange(items), per)
    offset = (np.arange(n) % per) * 16  # every work-item reads the whole buffer
    trace = from_records(
        wi, np.zeros(n, dtype=np.int32), offset,
        wi_group=np.zeros((items, 3), dtype=np.int32),
        wi_local=np.stack([np.arange(items), np.zeros(items), np.zeros(items)], axis=1),
        buffers=[buf("pixels", GLOBAL, length, "input", elem=1)],
        sites=[site(0, 3, READ, GLOBAL, 0, "vload16(i, pixels)")],
        global_size=(items,), local_size=(items,), size=np.full(n, 16),
    )  # fmt: skip
    index = TraceIndex(trace, make_grids(trace, {}))
    [grid] = index.grids
    _ = (trace.buffer, trace.op, trace.oob)  # the trace's own columns, made once for all views
    tracemalloc.start()
    try:
        heat = index.element_heat(grid)
        cells = index.heat(grid)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert heat.sum() == 16 * n and set(heat.ravel().tolist()) == {items}
    assert np.allclose(cells, items)
    assert peak < 16 * 8 * n  # less than an int64 for each element the loads cover
