"""The decoded trace and the findings drawn from it (numpy only, no OpenCL, no Qt).

A trace is what the instrumented kernel itself recorded on the device: one record per
access to ``__global``/``__local`` memory, barrier and fence, per traced work-item, in the
order that work-item executed them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from explorer.description.launch import Promise

# Operation codes, as recorded by the instrumented kernel.
READ, WRITE, RMW, ATOMIC, BARRIER, FENCE = 0, 1, 2, 3, 4, 5
OP_NAMES = {
    READ: "read",
    WRITE: "write",
    RMW: "rmw",
    ATOMIC: "atomic",
    BARRIER: "barrier",
    FENCE: "fence",
}
# Memory spaces. Of a PRIVATE array only the accesses out of its bounds are recorded, and the
# reads of elements the work-item had not written (ROLE_UNSET).
GLOBAL, LOCAL, PRIVATE, NO_SPACE = 0, 1, 2, -1
SPACE_NAMES = {GLOBAL: "global", LOCAL: "local", PRIVATE: "private", NO_SPACE: "none"}
# The address spaces a barrier or fence orders (its CLK_*_MEM_FENCE flags), as bits.
FENCE_LOCAL, FENCE_GLOBAL = 1, 2
# What a site's records hold in ``Trace.values``: nothing, the value the access read (a load,
# an atomic's return, the old value of ``x++``), or the value it stored (an assignment, the
# new value of ``x += y`` and ``++x``).
VALUE_NONE, VALUE_READ, VALUE_WRITTEN = 0, 1, 2
# How much of a written value the plane holds (``value_form``): all its bytes, as they lie in
# memory; its first component then a digest of the others (a vector wider than the plane);
# or only its first bytes (a vector of components as wide as the plane, such as a double2).
WHOLE_VALUE, DIGEST_VALUE, PART_VALUE = "whole", "digest", "part"
_COMPONENT_BYTES = {
    "char": 1, "uchar": 1, "short": 2, "ushort": 2, "half": 2, "int": 4, "uint": 4,
    "float": 4, "long": 8, "ulong": 8, "double": 8,
}  # fmt: skip


def value_form(value_type: str, plane_bytes: int) -> str:
    """What the plane (``plane_bytes`` wide) holds of a value of ``value_type`` (float,
    uchar4): WHOLE_VALUE, DIGEST_VALUE or PART_VALUE (the instrumentation's values.py)."""
    base = value_type.rstrip("0123456789")
    width = int(value_type[len(base) :] or 1)
    size = _COMPONENT_BYTES.get(base, plane_bytes)
    if size * width <= plane_bytes:
        return WHOLE_VALUE
    return DIGEST_VALUE if width > 1 and size < plane_bytes else PART_VALUE


# What a site is besides its op (``Site.role``): an element an async copy moves (its reads
# and writes) or the copy's call itself (a FENCE record per work-item holding a digest of
# its arguments); a wait on async copies (a BARRIER record holding how many events it
# names); a barrier or fence whose flags are computed where it runs (its records hold them);
# the event a copy returns (a FENCE record holding its number, 0 where it is not known) and
# the events a wait names (a FENCE record each, just before the wait's; instrument/events.py).
ROLE_NONE, ROLE_COPY, ROLE_WAIT, ROLE_FLAGS = "", "async-copy", "wait", "dynamic-flags"
ROLE_COPY_EVENT, ROLE_WAIT_EVENT = "copy-event", "wait-event"
# A value an index anatomy build records (explorer.trace.anatomy): a term of an index where an
# access uses it, or what a definition stored (a FENCE record holding the value, no memory).
ROLE_ANATOMY = "anatomy"
# A read of a private array's element that the work-item had not written (indeterminate): a
# FENCE record, no buffer in its word, the byte offset in the array (the site's buffer) as its
# offset; one per element and work-item at most (instrument/shadows.py).
ROLE_UNSET = "unset-private"
# The components of a vector a vstoreN stored that its own record's value has no room for
# (a vstore4 of floats: the value plane holds 4 or 8 bytes): FENCE records right after the
# store's, each holding some of them in its value, the first one's number as its offset.
# Only the build that records values makes them, and the decoder takes them out of the
# records (``Trace.value_parts``): nothing else ever sees them.
ROLE_PARTS = "vector-parts"


@dataclass(frozen=True)
class BufferInfo:
    """A buffer the kernel can address: a ``__global`` or ``__local`` parameter, or a
    ``__local`` array declared in the kernel."""

    name: str  # the kernel's own name for it (parameter or array)
    role: str | None  # the family role (A, B, C, ...) for parameters, else None
    space: int  # GLOBAL, LOCAL or PRIVATE (a private array: only its out-of-bounds accesses)
    elem_size: int  # bytes of one element of the declared type
    length: int  # elements
    shape: tuple[int, ...] = ()  # declared shape for local arrays (e.g. (16, 17)), else (length,)
    is_input: bool = False  # a __global buffer the kernel was given to read, not to write
    # A __global buffer the host filled before the launch though it is not an input (a custom
    # kernel's readwrite buffer with declared contents): its reads before writes are fine.
    host_filled: bool = False
    # The elements the launch promised to write (a family's output: all of them; a custom
    # buffer: what its ``writes`` declares); None: no promise, no element is missing.
    promised: Promise | None = None
    # 2 or 3: an image2d_t or image3d_t, whose elements are pixels, ``shape`` (height,
    # width) or (depth, height, width); an access outside it holds its coordinates
    # (``outside_pixels``).
    image: int = 0
    # A private array of vectors: the components of one element (a finding names `w[0].y`).
    components: int = 0
    # The bytes of one element that no member of its struct covers (the compiler's padding),
    # as [start, end) ranges: what no one writes, so no read of them is uninitialised.
    padding: tuple[tuple[int, int], ...] = ()
    # Accesses out of bounds whose offset a record cannot hold (recorded as FAR_PAST or
    # FAR_BEFORE): the byte offset of one of them (0: there were none), and whether another
    # one differed from it (then only that one is known).
    far: int = 0
    far_several: bool = False
    # The element's type as the kernel declares it (``uint``, ``float``, ``uchar4``): what a
    # cell shows an element as, whatever type an access wrote it through. Empty where the
    # trace does not know it (a local array, a struct).
    elem_type: str = ""


# What a record out of bounds holds where its offset does not fit in 32 bits (runtime.cl's
# __tr_far): at least this far past the start, or before it. The offset itself is the
# buffer's ``far`` where every such access of the buffer reached the same element.
FAR_PAST = 2**31 - 1
FAR_BEFORE = -(2**31)

# The words (ulong) of metadata each traced buffer has (runtime.cl's __TR_META): 0 its
# element's bytes, 1 its bytes, 2-5 its dimensions; 6-9 its accesses too far for a record
# (__tr_far): 6 the offset of one of them, 7 whether there was one, 8 the least of their low
# and high 32 bits, 9 the greatest (8 and 9 alike: every one reached the same element).
META_WORDS = 10
# What each word holds before a launch: the least starts above every offset's halves.
META_START = (0, 0, 0, 0, 0, 0, 0, 0, 2**64 - 1, 0)


def true_offsets(offsets: np.ndarray, info: BufferInfo) -> np.ndarray:
    """The byte offsets of records out of bounds of ``info`` (int64), those too far for a
    record (FAR_PAST, FAR_BEFORE) given the offset they reached where the trace knows it (the
    buffer's one ``far`` offset); kept as recorded where it does not."""
    out = np.asarray(offsets).astype(np.int64)
    if info.far and not info.far_several:
        out[(out == FAR_PAST) | (out == FAR_BEFORE)] = info.far
    return out


@dataclass(frozen=True)
class Site:
    """One place in the source that accesses memory or synchronises."""

    id: int
    line: int  # 1-based line in the user's file
    op: int  # READ, WRITE, RMW, ATOMIC, BARRIER or FENCE
    space: int  # GLOBAL, LOCAL or NO_SPACE
    buffer: int  # index into Trace.buffers of the name subscripted, or -1
    text: str  # the source text of the access, e.g. "As[col][row]"
    fences: int = 0  # for BARRIER and FENCE sites: FENCE_LOCAL | FENCE_GLOBAL bits it orders
    # A READ made by an atomic operation (a compare-exchange that did not swap): it races
    # with plain writes, never with other atomics.
    atomic: bool = False
    value: int = VALUE_NONE  # what its records hold in Trace.values, when values were recorded
    value_type: str = ""  # the type of that value: float, int, uchar4 (a vector: its first)
    role: str = ROLE_NONE  # ROLE_*: a copy's element or call, a wait, flags known at run time
    # The bytes each of its accesses holds, where the instrumentation knows them from the
    # access's type (0 where it does not): what a record of a size its word cannot say (not a
    # power of two, such as a vload3 of floats or a struct of three floats, 12; over 128)
    # accessed. See ``Trace.sizes_of``.
    size: int = 0
    # A struct read whole into a private variable (`P q = loc[i];`): the bytes of the access,
    # [start, end) from its first, holding members never read from that variable afterwards.
    # Reading them unwritten is no uninitialised read: the kernel never uses what they held.
    unused: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class NotTraced:
    line: int
    reason: str


# The record word the instrumented kernel writes beside each byte offset (see instrument.py):
# bits 0-9 site, 10-21 phase (saturating), 22-27 buffer (NO_BUFFER for barriers and fences),
# 28 out of bounds, 29-31 log2 of the bytes accessed, rounded down (a 12-byte vload3 of floats
# is coded 8; the decoder gives such a record back its true size from its site, whose
# accesses all have that size: ``Trace.sizes_of``). Six bits of buffer, so a kernel with
# fifteen or more buffers (Oclgrind's lvalue_loads, a tiled kernel's private arrays beside its
# parameters) is traced whole; a thousand sites is twenty times the largest catalog kernel's.
SITE_MASK = 0x3FF
PHASE_SHIFT, PHASE_MASK = 10, 0xFFF
BUFFER_SHIFT, BUFFER_MASK = 22, 0x3F
NO_BUFFER = 63
OOB_BIT = 1 << 28
SIZE_SHIFT = 29
SIZE_CODES = 8  # three bits of log2
MAX_PHASE = PHASE_MASK


def pack_words(
    site: np.ndarray, phase: np.ndarray, buffer: np.ndarray, oob: np.ndarray, size: np.ndarray
) -> np.ndarray:
    """Record words from per-record fields (buffer -1 for none), as the instrumented kernel
    packs them: a size is coded as log2 of it rounded down, in three bits (runtime.cl's
    ``__tr_put``), so a size that is not a power of two below 256 reads back whole only
    through its site (``Site.size``, ``Trace.sizes_of``)."""
    size = np.maximum(np.asarray(size, dtype=np.int64), 1)
    code = np.log2(size).astype(np.int64) & (SIZE_CODES - 1)  # rounded down; its low bits
    buffer = np.where(np.asarray(buffer) < 0, NO_BUFFER, buffer).astype(np.int64)
    word = (
        np.asarray(site, dtype=np.int64)
        | (np.minimum(np.asarray(phase, dtype=np.int64), MAX_PHASE) << PHASE_SHIFT)
        | (buffer << BUFFER_SHIFT)
        | (np.asarray(oob, dtype=np.int64) * OOB_BIT)
        | (code << SIZE_SHIFT)
    )
    return word.astype(np.uint32)


def word_site(word: np.ndarray) -> np.ndarray:
    return (word & SITE_MASK).astype(np.int32)


def word_phase(word: np.ndarray) -> np.ndarray:
    return ((word >> PHASE_SHIFT) & PHASE_MASK).astype(np.int32)


def word_buffer(word: np.ndarray) -> np.ndarray:
    buffer = ((word >> BUFFER_SHIFT) & BUFFER_MASK).astype(np.int16)
    buffer[buffer == NO_BUFFER] = -1
    return buffer


def word_oob(word: np.ndarray) -> np.ndarray:
    return (word & OOB_BIT) != 0


def coded_size(word: np.ndarray) -> np.ndarray:
    """The size a record word's code says: a power of two, the access's own size only where
    that is one (up to 128 bytes). Analysis wants ``Trace.sizes_of``, which knows the rest."""
    return np.left_shift(np.int32(1), (word >> SIZE_SHIFT).astype(np.int32))


def _coded(size: int) -> bool:
    """Whether a record's size code says ``size`` (0: a site of no known size)."""
    return size <= 0 or (size < 1 << SIZE_CODES and size & (size - 1) == 0)


def size_table(sites: tuple[Site, ...] | list[Site]) -> np.ndarray | None:
    """The bytes a record accessed, by its site and its size code ((SITE_MASK + 1, 8)
    int32), where some site's accesses have a size no code says (``Site.size``): a record of
    such a site whose code is that size's (log2 rounded down, three bits) had that size;
    every other record the size its code says. None where every site's size is a code's.

    A site whose accesses have one size records only that size, save the records made of
    its parts: the components of a selection (``v.xz``) each their own, and the elements a
    private array's read found unwritten at a site of their own. Those are smaller powers of
    two, whose codes are not the site's; so no record is given a size it did not have."""
    odd = [(s.id, s.size) for s in sites if 0 <= s.id <= SITE_MASK and not _coded(s.size)]
    if not odd:
        return None
    table = np.tile(np.left_shift(1, np.arange(SIZE_CODES, dtype=np.int32)), (SITE_MASK + 1, 1))
    for sid, size in odd:
        table[sid, (size.bit_length() - 1) & (SIZE_CODES - 1)] = size
    return table


_UNPACKED = ("wi", "seq", "phase", "site", "op", "buffer", "size", "oob", "_sizes")


@dataclass(frozen=True, eq=False)
class Trace:
    """Records are in (work-item, sequence) order: work-item 0's ``kept[0]`` records first.

    Stored per record, as the device wrote them:
      offset    int32   byte offset from the buffer's start (may be outside it when ``oob``;
                        widen to int64 before packing it into keys)
      word      uint32  site, phase, buffer, out-of-bounds flag and size, packed (above)
    Unpacked on first use (a trace of tens of millions of records is analysed mostly from the
    packed words; the columns cost memory and time only where they are needed):
      wi        int32  index into the work-item tables below
      seq       int32  position in that work-item's own sequence
      phase     int32  barriers that work-item had passed
      site      int32  index into ``sites``
      op        int8   READ/WRITE/RMW/ATOMIC/BARRIER/FENCE (the site's op)
      buffer    int16  index into ``buffers``, -1 for barriers and fences
      size      int32  bytes accessed (4 for a float, 16 for a vload4 of floats, 12 for a
                       vload3 of floats: ``sizes_of``)
      oob       bool   the access fell outside every buffer and was skipped
    Per traced work-item (length W):
      kept      (W,)   int64  records kept
      wi_group  (W, 3) int32  work-group id
      wi_local  (W, 3) int32  local id
      wi_count  (W,)   int64  records the work-item tried to write (more than kept = overflow)
    Optional, when the trace was built to record values:
      values    uint32 (uint64 when the kernel accesses 8-byte values) the first bytes of the
                       value each access read or stored, as they lie in memory (the bits of a
                       float, not a conversion; a vector's first components), zero-extended;
                       what each site's records hold is its ``Site.value``, and records of
                       sites with VALUE_NONE hold 0. None when values were not recorded
      value_parts  (P, 3) int64: of the writes that stored a vector wider than their value
                       (a vstore4 of floats), the components past the first, one row each:
                       the record, the component's number, its bits (as ``values`` holds
                       a scalar's, zero-extended). None where there are none.
    """

    offset: np.ndarray
    word: np.ndarray
    kept: np.ndarray
    wi_group: np.ndarray
    wi_local: np.ndarray
    wi_count: np.ndarray
    buffers: tuple[BufferInfo, ...]
    sites: tuple[Site, ...]
    global_size: tuple[int, ...]
    local_size: tuple[int, ...]
    groups_traced: tuple[tuple[int, int, int], ...]
    dispatch_order: tuple[tuple[int, int, int], ...]  # every group, in the order it started
    capacity: int  # records kept per work-item
    not_traced: tuple[NotTraced, ...] = ()
    output_role: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    values: np.ndarray | None = None
    value_parts: np.ndarray | None = None
    # The integers the kernel names (its integer arguments as launched, its defines, its
    # macros), so that a finding can write its advice in the kernel's own terms.
    names: tuple[tuple[str, int], ...] = ()
    # The integer type each name the kernel declares has (its parameters and variables:
    # uint, size_t, ushort), where a name has one: a guard tests an unsigned index against
    # the end, never against zero.
    types: tuple[tuple[str, str], ...] = ()

    @cached_property
    def wi(self) -> np.ndarray:
        kept = np.asarray(self.kept, dtype=np.int64)
        return np.repeat(np.arange(kept.size, dtype=np.int32), kept)

    @cached_property
    def seq(self) -> np.ndarray:
        kept = np.asarray(self.kept, dtype=np.int64)
        narrow = np.int32 if self.records < 2**31 else np.int64
        seq = np.arange(self.records, dtype=narrow)
        seq -= np.repeat((np.cumsum(kept) - kept).astype(narrow), kept)
        return seq.astype(np.int32, copy=False)

    @cached_property
    def phase(self) -> np.ndarray:
        return word_phase(self.word)

    @cached_property
    def site(self) -> np.ndarray:
        return word_site(self.word)

    @cached_property
    def op(self) -> np.ndarray:
        return self.site_ops()[self.site]

    @cached_property
    def buffer(self) -> np.ndarray:
        return word_buffer(self.word)

    @cached_property
    def size(self) -> np.ndarray:
        return self.sizes_of(self.word)

    @cached_property
    def _sizes(self) -> np.ndarray | None:
        return size_table(self.sites)

    def sizes_of(self, word: np.ndarray) -> np.ndarray:
        """The bytes each of these record words (some of this trace's) accessed: what its
        size code says, or, for a site whose accesses have a size no code says (a vload3 of
        floats, 12 bytes, is coded 8), that size (``size_table``)."""
        word = np.asarray(word)
        table = self._sizes
        if table is None:
            return coded_size(word)
        return table[word & SITE_MASK, (word >> SIZE_SHIFT) & (SIZE_CODES - 1)]

    @cached_property
    def oob(self) -> np.ndarray:
        return word_oob(self.word)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled packed: the unpacked columns are rebuilt where they are used (a trace
        crosses from the executor process to the app, and they would multiply its size)."""
        return {k: v for k, v in self.__dict__.items() if k not in _UNPACKED}

    def site_ops(self) -> np.ndarray:
        """The op of each site, and 0 for an index one past the last."""
        return np.array([s.op for s in self.sites] + [0], dtype=np.int8)

    @property
    def value_bytes(self) -> int:
        """Bytes of each access's value that ``values`` holds (0 without values)."""
        return 0 if self.values is None else int(self.values.dtype.itemsize)

    @property
    def records(self) -> int:
        return int(self.word.size)

    @property
    def overflowed(self) -> np.ndarray:
        """Indices of work-items whose records did not all fit."""
        capacity = self.extra.get("capacity_per_wi")
        if capacity is None:
            capacity = self.capacity
        return np.nonzero(self.wi_count > capacity)[0]

    @property
    def complete(self) -> bool:
        return not self.not_traced and self.overflowed.size == 0

    @property
    def num_groups(self) -> tuple[int, int, int]:
        # Rounded up: in non-uniform work-groups the last group of a dimension is smaller.
        dims = [-(-g // lo) for g, lo in zip(self.global_size, self.local_size, strict=True)]
        return tuple((dims + [1, 1, 1])[:3])  # type: ignore[return-value]

    def local_linear(self) -> np.ndarray:
        """Per work-item: linear local id (x fastest), as a warp is formed."""
        lx, ly = (list(self.local_size) + [1, 1])[:2]
        return self.wi_local[:, 0] + lx * (self.wi_local[:, 1] + ly * self.wi_local[:, 2])

    def group_linear(self) -> np.ndarray:
        """Per work-item: linear work-group id (x fastest)."""
        gx, gy, _ = self.num_groups
        return self.wi_group[:, 0] + gx * (self.wi_group[:, 1] + gy * self.wi_group[:, 2])

    def index(self) -> np.ndarray:
        """Per record: element index in its buffer (offset / the buffer's element size)."""
        sizes = np.array([b.elem_size for b in self.buffers] + [1], dtype=np.int64)
        return self.offset.astype(np.int64) // sizes[self.buffer]


@dataclass(frozen=True)
class Finding:
    """Something a person should look at, with where and what to do. ``kind`` names the
    finding kind (``explorer.trace.analysis``: one module per kind) that found it."""

    kind: str
    line: int | None
    phase: int | None
    buffer: str | None
    work_items: tuple[tuple[int, ...], ...]  # a few (group..., local...) examples
    count: int
    message: str
    elements: tuple[int, ...] = ()  # a few element indices involved
    # Which form of its kind the finding is, where the cause and advice differ by form (a
    # race between work-groups, or past a barrier that lacks the space's fence flag); set by
    # the kind's detector, read by the same kind's cause and advice.
    subkind: str = ""
    other_lines: tuple[int, ...] = ()  # source lines the message names besides ``line``
    # The change the finding proposes, in the kernel's own terms, for its cause's advice to
    # quote: the guard an out-of-bounds access needs, the barrier a fence should be.
    remedy: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "line": self.line,
            "phase": self.phase,
            "buffer": self.buffer,
            "work_items": [list(w) for w in self.work_items],
            "count": self.count,
            "message": self.message,
        }


@dataclass(frozen=True)
class SiteStats:
    line: int
    buffer: str
    space: str
    op: str
    accesses: int
    requests: int
    sectors_per_request: float | None
    bank_conflict_degree: float | None  # mean over requests
    bank_conflict_worst: int | None
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "buffer": self.buffer,
            "space": self.space,
            "op": self.op,
            "accesses": self.accesses,
            "requests": self.requests,
            "sectors_per_request": self.sectors_per_request,
            "bank_conflict_degree": self.bank_conflict_degree,
        }


def outside_pixels(offsets: np.ndarray, dims: int) -> list[tuple[int, ...]]:
    """The (x, y[, z]) coordinates of out-of-bounds accesses of an image, from their
    records' offsets (the trace runtime packs them into a negative offset: runtime.cl's
    ``__tr_outside``; saturated at ±16384 in 2-D, ±512 in 3-D)."""
    packed = -1 - np.asarray(offsets, dtype=np.int64)
    if dims == 3:
        parts = [(packed >> shift) & 0x3FF for shift in (0, 10, 20)]
        return list(zip(*[(p - 512).tolist() for p in parts], strict=True))
    parts = [(packed >> shift) & 0x7FFF for shift in (0, 15)]
    return list(zip(*[(p - 16384).tolist() for p in parts], strict=True))
