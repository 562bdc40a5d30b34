"""The trace diff's rules on hand-built traces (no device): what makes a difference first,
an access one side never made, records lost to an overflow, local arrays of other names,
vector accesses, and work-items only one trace recorded."""

import numpy as np

from explorer.trace.diff import diff_traces
from tests.trace.synthetic import GLOBAL, LOCAL, READ, WRITE, barrier, buf, build_trace, site

BUFFERS = [buf("IN", GLOBAL, 64, "IN"), buf("OUT", GLOBAL, 8, "OUT")]
SITES = [
    site(0, 10, READ, GLOBAL, 0, "IN[i]"),
    site(1, 12, WRITE, GLOBAL, 1, "OUT[g]"),
    barrier(2, 11),
    site(3, 14, READ, GLOBAL, 0, "IN[j]"),
]


def trace(items, buffers=BUFFERS, sites=SITES, **kw):
    """One group of len(items) work-items; ``items`` lists each one's accesses."""
    work = [((0,), (lid,), accesses) for lid, accesses in enumerate(items)]
    return build_trace(
        work,
        buffers=buffers,
        sites=sites,
        global_size=(len(items),),
        local_size=(len(items),),
        **kw,
    )


def test_the_first_difference_is_the_lowest_phase_then_the_fewest_accesses_before_it():
    right = trace([[(0, 0), (0, 4), (2,), (1, 0)], [(0, 8), (0, 12), (0, 16), (2,), (1, 4)]])
    # work-item 0 parts in phase 1; work-item 1 in phase 0 at its third access
    mine = trace([[(0, 0), (0, 4), (2,), (1, 4)], [(0, 8), (0, 12), (0, 20), (2,), (1, 4)]])
    first = diff_traces(mine, right).first
    assert (first.local, first.phase, first.position) == ((1, 0, 0), 0, 2)
    # both in phase 1, work-item 0 after one access there, work-item 1 at its first: work-item
    # 1 is first though it made more accesses before the barrier (position 4, not 3)
    right = trace(
        [[(0, 0), (0, 4), (2,), (3, 0), (1, 0)], [(0, 8), (0, 12), (0, 16), (0, 20), (2,), (1, 4)]]
    )
    mine = trace(
        [[(0, 0), (0, 4), (2,), (3, 0), (1, 4)], [(0, 8), (0, 12), (0, 16), (0, 20), (2,), (1, 0)]]
    )
    diff = diff_traces(mine, right)
    first = diff.first
    assert (first.local, first.phase, first.position, first.what) == ((1, 0, 0), 1, 4, "element")
    assert diff.work_items_differing == 2


def test_an_access_only_one_kernel_makes_is_missing_or_extra_at_the_last_line():
    right = trace([[(0, 0), (0, 4), (3, 8)]])
    short = trace([[(0, 0), (0, 4)]])
    first = diff_traces(short, right).first
    assert (first.what, first.mine, first.line) == ("missing", None, 10)  # its last access
    assert (first.reference.line, first.reference.element) == (14, 2)
    assert "makes no access after its access 2 (line 10); the reference goes on" in (
        first.sentence()
    )
    assert "differs in its missing" not in first.sentence()
    assert "it makes no more accesses (no access; the reference: " in first.brief()
    first = diff_traces(right, short).first
    assert (first.what, first.reference, first.line) == ("extra", None, 14)
    assert "the reference has no such access" in first.sentence()
    assert "makes an access more, its access 3" in first.sentence()
    assert "it makes an access more (" in first.brief()
    nothing = trace([[]])
    first = diff_traces(nothing, right).first
    assert first.line is None and "makes no access at all" in first.sentence()
    assert "line None" not in diff_traces(nothing, right).text()


def test_records_an_overflow_lost_are_no_difference():
    right = trace([[(0, 0), (0, 4), (3, 8)]])
    cut = trace([[(0, 0), (0, 4)]], wi_count=np.array([3]), capacity=2)
    diff = diff_traces(cut, right)
    assert diff.identical and not diff.complete
    assert any("incomplete" in note for note in diff.notes)


def test_local_arrays_of_other_names_meet_in_the_order_they_are_declared():
    def tiled(name):
        buffers = [*BUFFERS, buf(name, LOCAL, 4)]
        sites = [*SITES, site(4, 16, WRITE, LOCAL, 2, f"{name}[l]")]
        return trace([[(0, 0), (4, 0)], [(0, 4), (4, 4)]], buffers, sites)

    diff = diff_traces(tiled("tile"), tiled("Asub"))
    assert diff.identical
    local = [b for b in diff.buffers if b.buffer == "tile"]
    assert [(b.reference_name, b.same) for b in local] == [("Asub", True)]


def test_a_vector_load_reads_every_element_it_covers():
    vector = [*SITES, site(4, 20, READ, GLOBAL, 0, "vload4(0, IN)")]
    wide = trace([[(4, 0, 16)]], sites=vector)
    narrow = trace([[(0, 0)]], sites=vector)
    diff = diff_traces(wide, narrow)
    assert diff.first.what == "element"  # the same offset, four times the bytes
    assert "reads IN[0..3] (vload4(0, IN)" in diff.first.sentence()  # what it covers
    assert diff.first.mine.count == 4 and diff.first.mine.to_json()["count"] == 4
    inputs = next(b for b in diff.buffers if b.buffer == "IN")
    assert inputs.read_only_here.examples == (1, 2, 3)
    assert inputs.loads_here == {"min": 0, "max": 1, "mean": 0.0625}


def test_only_work_items_both_traces_recorded_are_compared():
    everyone = trace([[(0, 0)], [(0, 4)]])
    one = build_trace(
        [((0,), (1,), [(0, 4)])], buffers=BUFFERS, sites=SITES, global_size=(2,), local_size=(2,)
    )
    diff = diff_traces(one, everyone)
    assert diff.identical and diff.work_items_compared == 1
    assert diff.notes[0].startswith("only the 1 work-items both traces recorded are compared")


def test_a_local_array_of_another_shape_is_compared_element_by_element():
    def tiled(length, element):
        buffers = [*BUFFERS, buf("tile", LOCAL, length)]
        sites = [*SITES, site(4, 16, WRITE, LOCAL, 2, "tile[l]")]
        return trace([[(0, 0), (4, 4 * element)]], buffers, sites)

    padded, plain = tiled(17, 16), tiled(16, 15)
    local = next(b for b in diff_traces(padded, plain).buffers if b.buffer == "tile")
    assert (local.written_only_here.examples, local.written_only_reference.examples) == (
        (16,),
        (15,),
    )
    local = next(b for b in diff_traces(plain, padded).buffers if b.buffer == "tile")
    assert (local.written_only_here.examples, local.written_only_reference.examples) == (
        (15,),
        (16,),
    )


def test_floats_written_match_within_a_relative_1e_4_and_integers_bit_for_bit():
    from dataclasses import replace

    def written(value, value_type):
        sites = [replace(s, value_type=value_type) for s in SITES]
        t = trace([[(0, 0), (1, 0)]], sites=sites)
        bits = np.array([value], dtype=np.float32 if value_type == "float" else np.int32)
        return replace(t, values=np.array([0, bits.view(np.uint32)[0]], dtype=np.uint32))

    one = written(1.0, "float")
    assert diff_traces(written(1.00005, "float"), one).identical
    first = diff_traces(written(1.0002, "float"), one).first
    assert (first.what, first.line) == ("value", 12)
    assert first.mine.value == np.float32(1.0002) and first.reference.value == 1.0
    assert diff_traces(written(7, "int"), written(8, "int")).first.what == "value"
    assert diff_traces(written(7, "int"), written(7, "int")).identical
