"""The packed trace: every field the recorder wrote comes back unpacked, per record."""

from dataclasses import replace

import numpy as np

from explorer.trace.recorded import (
    BARRIER,
    GLOBAL,
    LOCAL,
    READ,
    WRITE,
    BufferInfo,
    Site,
    Trace,
    pack_words,
)


def _trace(site, phase, buffer, oob, size, offset, kept) -> Trace:
    sites = (
        Site(0, 3, READ, GLOBAL, 0, "A[i]"),
        Site(1, 4, WRITE, LOCAL, 1, "t[j]"),
        Site(2, 5, BARRIER, -1, -1, "barrier(CLK_LOCAL_MEM_FENCE)"),
    )
    buffers = (
        BufferInfo("A", "A", GLOBAL, 4, 64, (64,)),
        BufferInfo("t", None, LOCAL, 4, 16, (16,)),
    )
    W = len(kept)
    return Trace(
        offset=np.asarray(offset, dtype=np.int32),
        word=pack_words(site, phase, buffer, oob, size),
        kept=np.asarray(kept, dtype=np.int64),
        wi_group=np.zeros((W, 3), dtype=np.int32),
        wi_local=np.stack([np.arange(W), np.zeros(W), np.zeros(W)], axis=1).astype(np.int32),
        wi_count=np.asarray(kept, dtype=np.int64),
        buffers=buffers,
        sites=sites,
        global_size=(W,),
        local_size=(W,),
        groups_traced=((0, 0, 0),),
        dispatch_order=((0, 0, 0),),
        capacity=16,
    )


def test_columns_unpack_what_was_packed():
    site = [0, 1, 2, 0, 0, 2, 1]
    phase = [0, 0, 0, 1, 0, 0, 1]
    buffer = [0, 1, -1, 0, 0, -1, 1]
    oob = [False, False, False, True, False, False, False]
    size = [16, 4, 1, 4, 8, 1, 4]
    offset = [0, 8, 0, -4, 248, 0, 60]
    t = _trace(site, phase, buffer, oob, size, offset, kept=[4, 3])
    assert t.records == 7
    assert t.wi.tolist() == [0, 0, 0, 0, 1, 1, 1]
    assert t.seq.tolist() == [0, 1, 2, 3, 0, 1, 2]
    assert t.site.tolist() == site
    assert t.phase.tolist() == phase
    assert t.buffer.tolist() == buffer
    assert t.oob.tolist() == oob
    assert t.size.tolist() == size
    assert t.op.tolist() == [READ, WRITE, BARRIER, READ, READ, BARRIER, WRITE]
    assert t.offset.tolist() == offset
    assert t.index().tolist() == [0, 2, 0, -1, 62, 0, 15]


def test_phase_saturates():
    t = _trace([2], [5000], [-1], [False], [1], [0], kept=[1])
    assert t.phase.tolist() == [4095]  # the recorder's 12 bits saturate


def test_a_size_no_code_says_reads_back_from_its_site():
    """The word codes log2 of the size rounded down, as the kernel does (12 bytes: 8); a
    site whose accesses are 12 bytes gives its records their size back, and only those of
    that code (a component of it recorded alone keeps its 4); another site keeps 8."""
    sites = (
        Site(0, 3, READ, GLOBAL, 0, "vload3(i, A)", size=12),
        Site(1, 4, READ, GLOBAL, 0, "vload2(i, A)"),
        Site(2, 5, WRITE, GLOBAL, 0, "big[i]", size=300),
    )
    word = pack_words(
        np.array([0, 0, 1, 2]),
        np.zeros(4),
        np.zeros(4),
        np.zeros(4, dtype=bool),
        np.array([12, 4, 8, 300]),
    )
    t = replace(_trace([0], [0], [0], [False], [4], [0], kept=[1]), sites=sites)
    assert t.sizes_of(word).tolist() == [12, 4, 8, 300]
    # Without a site of such a size, the code alone: what the word says.
    plain = _trace([0, 1], [0, 0], [0, 1], [False, False], [12, 8], [0, 0], kept=[2])
    assert plain.size.tolist() == [8, 8]


def test_buffer_ids_past_fifteen_survive_the_record_word():
    t = _trace([3, 4], [1, 2], [17, 61], [False, True], [4, 8], [0, 8], kept=[2])
    assert t.buffer.tolist() == [17, 61]
    assert t.oob.tolist() == [False, True] and t.size.tolist() == [4, 8]
    assert t.site.tolist() == [3, 4] and t.phase.tolist() == [1, 2]


def test_a_pickled_trace_carries_the_packed_records_only():
    import pickle

    t = _trace([0, 1, 0], [0, 0, 1], [0, 1, 0], [False] * 3, [4] * 3, [0, 4, 8], kept=[3])
    before = len(pickle.dumps(t))
    assert t.site.tolist() == [0, 1, 0] and t.wi.tolist() == [0, 0, 0]  # unpacked, cached
    again = pickle.loads(pickle.dumps(t))
    assert len(pickle.dumps(t)) == before  # the cached columns did not travel
    assert again.site.tolist() == [0, 1, 0] and again.phase.tolist() == [0, 0, 1]
    assert again.offset.tolist() == [0, 4, 8] and again.records == 3
