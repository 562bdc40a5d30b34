"""A trace's records as columns computed on demand (work-item, sequence, phase, site, op,
buffer, element, line, value), for the records a view asks for (numpy only, no Qt)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from explorer.trace.recorded import (
    SITE_MASK,
    VALUE_NONE,
    Trace,
    word_buffer,
    word_oob,
    word_phase,
    word_site,
)


class RecordColumn:
    """A per-record column computed only for the records asked for (``column[records]``):
    the animation looks at one group's records at a time, and a column of every record of a
    large trace costs hundreds of milliseconds of fresh memory before the first frame."""

    def __init__(self, compute: Callable[[Any], np.ndarray]) -> None:
        self._compute = compute
        self._key: np.ndarray | None = None  # the last large index array asked for
        self._value = np.zeros(0)

    def __getitem__(self, key: Any) -> np.ndarray:
        # A frame asks each column for the same group's records again and again (one buffer
        # at a time): the last large answer is kept, read-only, for the same index array.
        if key is self._key:
            return self._value
        value = self._compute(key)
        if isinstance(key, np.ndarray) and key.size >= 4096:
            value.setflags(write=False)
            self._key, self._value = key, value
        return value


def element_column(trace: Trace) -> RecordColumn:
    """Per record: the element index in its buffer (``Trace.index``, for the records asked
    for)."""
    sizes = np.array([b.elem_size for b in trace.buffers] + [1], dtype=np.int64)

    def compute(key: Any) -> np.ndarray:
        offset = np.asarray(trace.offset[key]).astype(np.int64)
        buffer = word_buffer(np.atleast_1d(trace.word[key])).reshape(offset.shape)
        return offset // sizes[buffer]

    return RecordColumn(compute)


def last_element_column(trace: Trace) -> RecordColumn:
    """Per record: the last element of its buffer it covers, from its true size
    (``Trace.sizes_of``): its own element but for an access wider than one (a vstore3 into
    an array of floats covers three, a vload4 four)."""
    sizes = np.array([b.elem_size for b in trace.buffers] + [1], dtype=np.int64)
    sizes = np.maximum(sizes, 1)

    def compute(key: Any) -> np.ndarray:
        offset = np.asarray(trace.offset[key]).astype(np.int64)
        word = np.atleast_1d(trace.word[key])
        buffer = word_buffer(word).reshape(offset.shape)
        size = trace.sizes_of(word).reshape(offset.shape)
        return last_elements(offset, size, sizes[buffer])

    return RecordColumn(compute)


def last_elements(offset: np.ndarray, size: np.ndarray, elem: Any) -> np.ndarray:
    """The last element (of ``elem`` bytes, at least 1) that each access of ``size`` bytes at
    byte ``offset`` covers: its first element's, but for an access wider than one element."""
    end = np.asarray(offset, dtype=np.int64) + np.maximum(np.asarray(size, dtype=np.int64), 1)
    return (end - 1) // np.maximum(elem, 1)


def spread(first: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every element from ``first`` to ``last`` of each access, and which access each is
    of (its position in ``first``): an access one element wide is that element alone."""
    first = np.asarray(first, dtype=np.int64)
    extra = np.asarray(last, dtype=np.int64) - first
    if first.size == 0 or not extra.any():
        return first, np.arange(first.size)
    n = np.maximum(extra, 0) + 1
    which = np.repeat(np.arange(first.size), n)
    step = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
    return first[which] + step, which


def coverage(first: np.ndarray, last: np.ndarray, size: int) -> np.ndarray:
    """How many of these accesses (each from element ``first`` to ``last``) cover each of
    ``size`` elements, those outside left out: what counting ``spread``'s elements gives, in
    memory of the order of the accesses, not of every element they cover (two million
    vload16s of a uchar buffer spread took two gigabytes)."""
    lo = np.clip(np.asarray(first, dtype=np.int64), 0, size)
    hi = np.clip(np.asarray(last, dtype=np.int64) + 1, 0, size)
    inside = lo < hi
    edges = np.bincount(lo[inside], minlength=size + 1)
    edges -= np.bincount(hi[inside], minlength=size + 1)
    return np.cumsum(edges[:size])


def line_column(trace: Trace) -> RecordColumn:
    """Per record: the source line of its site."""
    lines = np.array([s.line for s in trace.sites] + [0], dtype=np.int32)
    return RecordColumn(lambda key: lines[word_site(np.asarray(trace.word[key]))])


def record_columns(trace: Trace) -> tuple[RecordColumn, ...]:
    """Per record, for the records asked for: work-item, sequence, phase, site, op, buffer
    and out-of-bounds flag (``Trace``'s columns of the same names)."""
    kept = np.asarray(trace.kept, dtype=np.int64)
    ends = np.cumsum(kept)
    starts = ends - kept
    ops = trace.site_ops()

    def words(key: Any) -> np.ndarray:
        return np.asarray(trace.word[key])

    def positions(key: Any) -> np.ndarray:
        key = np.asarray(key)
        return np.flatnonzero(key) if key.dtype == bool else key

    def wi(key: Any) -> np.ndarray:
        return np.searchsorted(ends, positions(key), side="right").astype(np.int32)

    def seq(key: Any) -> np.ndarray:
        at = positions(key)
        return (at - starts[wi(at)]).astype(np.int32)

    def buffer(key: Any) -> np.ndarray:
        w = words(key)
        return word_buffer(np.atleast_1d(w)).reshape(w.shape)

    return (
        RecordColumn(wi),
        RecordColumn(seq),
        RecordColumn(lambda key: word_phase(words(key))),
        RecordColumn(lambda key: word_site(words(key))),
        RecordColumn(lambda key: ops[word_site(words(key))]),
        RecordColumn(buffer),
        RecordColumn(lambda key: word_oob(words(key))),
    )


# How the value plane's bits of each type read as a number: (bytes, numpy type).
_VALUE_DTYPES = {
    "char": (1, np.int8),
    "uchar": (1, np.uint8),
    "short": (2, np.int16),
    "ushort": (2, np.uint16),
    "half": (2, np.float16),  # a vstore_halfN's halves
    "int": (4, np.int32),
    "uint": (4, np.uint32),
    "float": (4, np.float32),
    "long": (8, np.int64),
    "ulong": (8, np.uint64),
    "double": (8, np.float64),
}


def opencl_type(spelling: str) -> str:
    """A type as OpenCL C names it (``uint``, ``uchar4``) from clang's canonical spelling
    (``unsigned int``, ``const __global unsigned char4``): its qualifiers left out."""
    words = [w for w in spelling.split() if w.lstrip("_") not in _QUALIFIERS]
    if len(words) == 2 and words[0] in ("unsigned", "signed"):
        return ("u" if words[0] == "unsigned" else "") + words[1]
    return " ".join(words)


_QUALIFIERS = frozenset(
    ("const", "volatile", "restrict", "global", "local", "constant", "private", "generic")
)


def value_reader(trace: Trace) -> Callable[[np.ndarray, np.ndarray], np.ndarray] | None:
    """How records' raw value bits read as float64 (a vector: its first component; NaN
    where its site records none), given the raw values and the records' words; None when
    the trace has no values."""
    if trace.values is None:
        return None
    # Per site: which of the value types its records hold (-1: none the view can show).
    names = [name for name, (size, _) in _VALUE_DTYPES.items() if size <= trace.value_bytes]
    types = [_VALUE_DTYPES[name] for name in names]
    kind_of = {name: i for i, name in enumerate(names)}
    site_kind = np.full(SITE_MASK + 1, -1, dtype=np.int8)
    for s in trace.sites:
        if s.value != VALUE_NONE and s.value_type:
            site_kind[s.id] = kind_of.get(re.sub(r"\d+$", "", s.value_type), -1)

    def read(values: np.ndarray, words: np.ndarray) -> np.ndarray:
        raw = np.atleast_1d(values)
        kinds = site_kind[word_site(np.atleast_1d(words))]
        out = np.full(raw.shape, np.nan)
        present = np.flatnonzero(np.bincount(kinds + 1, minlength=len(types) + 1)[1:])
        for kind in present:
            size, dtype = types[int(kind)]
            sel = kinds == kind
            every = present.size == 1 and bool(sel.all())
            bits = raw if every else raw[sel]
            if bits.dtype.itemsize != size:
                bits = bits.astype(np.uint64) & np.uint64((1 << (8 * size)) - 1)
                bits = bits.astype(np.dtype(f"u{size}"))
            shown = bits.view(dtype).astype(np.float64)
            if every:
                return shown
            out[sel] = shown
        return out

    return read


def value_shapes(sites: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Per site (by id, and one more for none): the bytes of one component of the value its
    records hold and how many components it has (0 and 1 where it holds none the views can
    read: no value, a struct)."""
    comp = np.zeros(len(sites) + 1, dtype=np.int64)
    width = np.ones(len(sites) + 1, dtype=np.int64)
    for s in sites:
        base = re.sub(r"\d+$", "", s.value_type)
        if s.value != VALUE_NONE and base in _VALUE_DTYPES:
            comp[s.id] = _VALUE_DTYPES[base][0]
            width[s.id] = int(s.value_type[len(base) :] or 1)
    return comp, width


def punned_records(trace: Trace) -> Callable[[np.ndarray], np.ndarray]:
    """Which records (given their words) hold a value of another type than their buffer's
    elements: a store or load through a cast (``*(__global int *)&u[i] = -83`` into a
    ``uint`` buffer, ``vstore4(int4, i, (__global uint *)u)``, a ``uchar4`` into a ``uint``
    buffer). Their values read as the buffer's type only by their bytes
    (:func:`element_value_reader`). Only a buffer of scalars whose type the trace knows."""
    names = list(_VALUE_DTYPES)
    site_type = np.full(SITE_MASK + 2, -1, dtype=np.int16)
    for s in trace.sites:
        base = re.sub(r"\d+$", "", s.value_type)
        if s.value != VALUE_NONE and base in _VALUE_DTYPES:
            site_type[s.id] = names.index(base)
    buffer_type = np.full(len(trace.buffers) + 1, -1, dtype=np.int16)
    for i, b in enumerate(trace.buffers):
        if b.elem_type in _VALUE_DTYPES and _VALUE_DTYPES[b.elem_type][0] == b.elem_size:
            buffer_type[i] = names.index(b.elem_type)
    last = buffer_type.size - 1

    def punned(words: np.ndarray) -> np.ndarray:
        words = np.atleast_1d(np.asarray(words))
        mine = buffer_type[np.minimum(word_buffer(words), last)]
        theirs = site_type[word_site(words)]
        return (mine >= 0) & (theirs >= 0) & (mine != theirs)

    return punned


def element_value_reader(trace: Trace) -> Callable[[np.ndarray, np.ndarray], np.ndarray] | None:
    """How the value a write stored in each element it covers reads as float64, given the
    records and each element's place among the record's elements (0: its first, what
    :func:`value_reader` reads; 2: the third float a vstore4 of floats stored): taken from
    the record's own value where it holds the whole vector (a float2, a uchar4), else from
    the parts of the vector the trace recorded apart (``Trace.value_parts``). NaN where the
    trace has none: the record stored no vector, or one whose components are not the
    buffer's elements. None when the trace has no values."""
    read = value_reader(trace)
    values = trace.values
    if read is None or values is None:
        return None
    n = len(trace.sites)
    comp, width = value_shapes(trace.sites)
    punned = punned_records(trace)
    buffer_types = [_VALUE_DTYPES.get(b.elem_type, (0, None)) for b in trace.buffers]
    whole = comp * width <= trace.value_bytes  # one record's value holds every component
    elem = np.array([b.elem_size for b in trace.buffers] + [0], dtype=np.int64)
    parts = trace.value_parts
    keys = np.zeros(0, dtype=np.int64)
    part_bits = np.zeros(0, dtype=values.dtype)
    if parts is not None and parts.size:
        keys = parts[:, 0] * 16 + parts[:, 1]  # a vector has 16 components at most
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        part_bits = parts[order, 2].view(np.uint64).astype(values.dtype)

    def component_bits(
        records: np.ndarray, site: np.ndarray, c: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The bits of component ``c`` of the value each record holds, and whether the trace
        holds them: in the record's own value where it holds them, else among the parts
        recorded apart."""
        size = comp[site]
        bits = np.zeros(records.size, dtype=np.uint64)
        mask = (np.uint64(1) << (8 * size).astype(np.uint64)) - np.uint64(1)
        mask[size >= 8] = np.uint64(0xFFFFFFFFFFFFFFFF)
        own = (c == 0) | whole[site]
        held = own.copy()
        raw = values[records[own]].astype(np.uint64)
        shift = (8 * size[own] * c[own]).astype(np.uint64)
        bits[own] = (raw >> shift) & mask[own]
        apart = np.flatnonzero(~own & (c < width[site]))
        if apart.size and keys.size:
            key = records[apart] * 16 + c[apart]
            at = np.minimum(np.searchsorted(keys, key), keys.size - 1)
            found = keys[at] == key
            bits[apart[found]] = part_bits[at[found]].astype(np.uint64) & mask[apart[found]]
            held[apart[found]] = True
        return bits, held

    def as_buffer(records: np.ndarray, k: np.ndarray, words: np.ndarray) -> np.ndarray:
        """Element ``k`` of each record's access as its buffer's element type holds it: the
        bytes of the value the access wrote or read that fall on that element, reassembled
        (a uchar4 into a uint: four bytes; an int into two shorts: the half of it), NaN
        where they do not cover the element whole or the trace holds some of them nowhere."""
        site = np.minimum(word_site(words), n)
        buffer = np.minimum(word_buffer(words), elem.size - 1)
        size, e = comp[site], elem[buffer]
        offset = np.asarray(trace.offset[records]).astype(np.int64)
        start = (offset // np.maximum(e, 1) + k) * e - offset  # its first byte in the value
        ok = (start >= 0) & (start + e <= size * width[site]) & (size > 0)
        out = np.full(records.size, np.nan)
        bits = np.zeros(records.size, dtype=np.uint64)
        c = np.where(ok, start // np.maximum(size, 1), 0)
        for _ in range(8):  # an element of 8 bytes at most spans 8 components
            more = ok & (c * size < start + e)
            if not more.any():
                break
            part, held = component_bits(records[more], site[more], c[more])
            missing = ~held
            ok[np.flatnonzero(more)[missing]] = False
            at = 8 * (c[more] * size[more] - start[more])  # where it lies in the element
            left = np.where(at >= 0, at, 0).astype(np.uint64)
            right = np.where(at < 0, -at, 0).astype(np.uint64)
            bits[more] |= np.where(missing, np.uint64(0), (part << left) >> right)
            c = c + more
        for b in np.unique(buffer[ok]):
            _bytes, dtype = buffer_types[int(b)]
            sel = ok & (buffer == b)
            raw = bits[sel] & np.uint64((1 << (8 * _bytes)) - 1)
            out[sel] = raw.astype(np.dtype(f"u{_bytes}")).view(dtype).astype(np.float64)
        return out

    def element_values(records: np.ndarray, k: np.ndarray) -> np.ndarray:
        records = np.asarray(records, dtype=np.int64)
        k = np.asarray(k, dtype=np.int64)
        words = np.asarray(trace.word[records])
        out = np.full(records.size, np.nan)
        first = k == 0
        if first.any():
            out[first] = read(values[records[first]], words[first])
        site = np.minimum(word_site(words), n)
        size = comp[site]
        pun = punned(words)
        if pun.any():
            out[pun] = as_buffer(records[pun], k[pun], words[pun])
        ok = (
            ~pun
            & ~first
            & (k > 0)
            & (k < width[site])
            & (size == elem[np.minimum(word_buffer(words), elem.size - 1)])
        )
        inside = ok & whole[site]
        if inside.any():
            shift = (8 * size[inside] * k[inside]).astype(np.uint64)
            bits = (values[records[inside]].astype(np.uint64) >> shift).astype(values.dtype)
            out[inside] = read(bits, words[inside])
        apart = np.flatnonzero(ok & ~whole[site])
        if apart.size and keys.size:
            key = records[apart] * 16 + k[apart]
            at = np.minimum(np.searchsorted(keys, key), keys.size - 1)
            found = keys[at] == key
            out[apart[found]] = read(part_bits[at[found]], words[apart[found]])
        return out

    return element_values
