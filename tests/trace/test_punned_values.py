"""A value stored through a cast to another type than its buffer's (tests/trace/punned): a
cell of the buffer shows the element as the buffer's own type holds it, the number read back
after the run, never the bits as the store's type reads them (a uint cell showing -83)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest, trace_and_analyse
from explorer.engine.records import RunRequest
from explorer.trace.columns import element_column, element_value_reader
from explorer.trace.grids import make_grids
from explorer.trace.playback import Playback

KERNEL = Path(__file__).parent / "punned" / "punned.cl"


@pytest.fixture(scope="module")
def traced(device):
    request = RunRequest(load_variant_file(KERNEL), {}, device_key=device.key)
    traced = trace_and_analyse(TraceRequest(request, values=True), keep_trace=True)
    assert traced.analysis is not None, traced.result.summary()
    assert traced.trace.complete
    return traced


def _shown(traced, buffer: str) -> list[float]:
    """What the animation's cells of ``buffer`` show once the (only) group has run."""
    playback = Playback(traced.trace, make_grids(traced.trace, {}))
    steps = playback.cursor.group_steps
    grid = next(grid for grid in playback.grids if grid.name == buffer)
    window = (0, grid.rows, 0, grid.cols)
    shown = playback.values.written_values(steps, grid, len(steps.steps) - 1, window)
    return shown.reshape(-1).tolist()


def _read_back(traced, buffer: str) -> list[float]:
    return traced.result.outputs[buffer].astype(np.float64).tolist()


def test_an_int_stored_into_a_uint_buffer_shows_as_the_uint_it_became(traced):
    """``*(__global int *)&u[i] = -83 - i``: u[0] holds 4294967213, not -83."""
    assert _read_back(traced, "u")[0] == 2**32 - 83
    assert _shown(traced, "u") == _read_back(traced, "u")


def test_an_int4_vstored_into_a_uint_buffer_shows_four_uints(traced):
    """``vstore4((int4)(-1, ...), i, (__global int *)v)`` with v a uint buffer: every one of
    the four elements each work-item stored shows as the uint it holds."""
    assert min(_read_back(traced, "v")) >= 0 and max(_read_back(traced, "v")) > 2**31
    assert _shown(traced, "v") == _read_back(traced, "v")


def test_a_float_written_by_its_bits_shows_as_the_float(traced):
    """``*(__global int *)&f[i] = 0x3fc00000 + i``: f[0] is 1.5, not 1069547520."""
    assert _read_back(traced, "f")[0] == 1.5
    assert _shown(traced, "f") == _read_back(traced, "f")


def test_a_uchar4_stored_into_a_uint_buffer_shows_the_uint_its_bytes_make(traced):
    """``((__global uchar4 *)b)[i] = (uchar4)(200, 1, 2i, 255)``: one uint of four bytes,
    not 200 (the first byte) in the first element."""
    assert _read_back(traced, "b")[0] == 200 + (1 << 8) + (255 << 24)
    assert _shown(traced, "b") == _read_back(traced, "b")


def test_an_int_stored_into_a_short_buffer_shows_both_its_halves(traced):
    """``((__global int *)halves)[i] = -70000 - i``: two shorts each, as they hold them."""
    assert _shown(traced, "halves") == _read_back(traced, "halves")


def test_a_short_stored_into_half_a_uint_shows_no_value(traced):
    """``*(__global short *)&w[i] = -7 - i``: the store sets two bytes of the uint, which
    alone say nothing of what it holds: its cell shows no number rather than -7."""
    assert _read_back(traced, "w")[0] == 0xFFF9
    assert np.isnan(_shown(traced, "w")).all()


def test_a_store_of_the_buffer_s_own_type_shows_as_it_did(traced):
    """``same[i] = -5i - 1`` into an int buffer: the negative ints themselves."""
    assert _read_back(traced, "same") == [-5.0 * i - 1 for i in range(8)]
    assert _shown(traced, "same") == _read_back(traced, "same")


def test_a_read_through_an_int_cast_of_a_float_buffer_reads_as_its_float(traced):
    """``((__global const int *)x)[i]``: the element of x that read is x's float (what its
    cell shows), the int the kernel made of its bits going only into ``got``."""
    trace, x = traced.trace, traced.result.inputs["x"]
    [site] = [s for s in trace.sites if s.text == "((__global const int *)x)[i]"]
    records = np.flatnonzero(trace.site == site.id)
    element = element_column(trace)[records]
    read = element_value_reader(trace)(records, np.zeros(records.size, dtype=np.int64))
    assert read.tolist() == x[element].astype(np.float64).tolist()
    assert traced.result.outputs["got"].tolist() == x.view(np.int32).tolist()


LOCAL_KERNEL = Path(__file__).parent / "punned" / "local_punned.cl"


@pytest.fixture(scope="module")
def traced_local(device):
    request = RunRequest(load_variant_file(LOCAL_KERNEL), {}, device_key=device.key)
    traced = trace_and_analyse(TraceRequest(request, values=True), keep_trace=True)
    assert traced.analysis is not None, traced.result.summary()
    assert traced.trace.complete
    return traced


def _reversed_read_back(traced, buffer: str) -> list[float]:
    """What the tile held, as the kernel copied it out reversed into ``buffer``."""
    return _read_back(traced, buffer)[::-1]


def test_a_local_float_tile_written_by_its_bits_shows_the_floats(traced_local):
    """``*(__local int *)&bits_tile[i] = 0x3fc00000 + i``: the tile's cells show 1.5 and the
    floats after it, what ``f`` read back from it, not 1069547520."""
    shown = _shown(traced_local, "bits_tile")
    assert shown[0] == 1.5
    assert shown == _reversed_read_back(traced_local, "f")


def test_a_local_uint_tile_written_by_an_int_shows_the_uints(traced_local):
    """``((__local int *)wrapped)[i] = -83 - i`` into a uint tile: 4294967213, not -83."""
    shown = _shown(traced_local, "wrapped")
    assert shown[0] == 2**32 - 83
    assert shown == _reversed_read_back(traced_local, "u")


def test_a_local_tile_of_its_own_type_shows_as_it_did(traced_local):
    assert _shown(traced_local, "same") == [-5.0 * i - 1 for i in range(8)]
    assert _reversed_read_back(traced_local, "s") == [-5.0 * i - 1 for i in range(8)]
