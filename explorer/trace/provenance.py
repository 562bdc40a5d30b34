"""Where one element of a result came from, by the recorded trace alone (numpy only).

For an output element, the query finds the store(s) that wrote it and follows what flowed
into each, backwards through the records:

- through local memory by address and order: a read of a local element was given its value
  by the last write to that element before the read in barrier order (the reader's own
  earlier write in the same phase, else the writes of the latest earlier phase; several
  writes of one phase are all kept, narrowed by the values where the trace has them; where
  no ordered write gave the value read, an unordered write of the same phase that did is
  taken, and marked as a race);
- through registers at work-item granularity: a store whose statement copies a load (the
  load just before it on the same line, with the same value where values were recorded)
  carries that load; any other store carries every load its work-item made before it since
  its previous store to the same buffer. That is an over-approximation (a work-item that
  computes several outputs is credited with all of their inputs), narrowed by the loop where
  the kernel stores inside it;
- a read-modify-write or atomic also carries the element's previous value.

The global loads reached are the inputs that flowed in. Each is told with the access that
loaded it, the local write it went through (and which fill of that local buffer it was) and
the access by which it entered the writing work-item, so a later query (the index anatomy of
one access) can start from any of them: :class:`Access` carries the record, line and
work-item.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from explorer.trace.recorded import (
    ATOMIC,
    GLOBAL,
    LOCAL,
    OP_NAMES,
    READ,
    RMW,
    VALUE_READ,
    VALUE_WRITTEN,
    WRITE,
    Trace,
    word_buffer,
    word_oob,
    word_phase,
    word_site,
)

_STORES = (WRITE, RMW, ATOMIC)
# Nodes one query may visit before it stops and says it stopped (a long chain of atomics).
VISIT_BUDGET = 2_000_000


@dataclass(frozen=True)
class Access:
    """One recorded access: where in the source (line, the access's text), by whom (group
    and local id), in which phase, on which element. ``record`` is its index in the trace:
    the handle to ask more of it (the values of its index terms, say)."""

    record: int
    line: int
    text: str
    op: str
    buffer: str
    element: int  # in the buffer's storage order
    where: tuple[int, ...]  # as a person indexes it (rows first)
    work_item: tuple[int, ...]  # group (x, y, z) then local (x, y, z)
    phase: int
    local: bool = False  # an access to local memory

    @property
    def element_text(self) -> str:
        return element_text(self.buffer, self.where, self.local)

    def to_json(self) -> dict[str, object]:
        return {
            "record": self.record,
            "line": self.line,
            "access": self.text,
            "op": self.op,
            "buffer": self.buffer,
            "element": list(self.where),
            "work_item": {"group": list(self.work_item[:3]), "local": list(self.work_item[3:])},
            "phase": self.phase,
        }


@dataclass(frozen=True)
class Inflow:
    """One input element that flowed into the output element."""

    buffer: str
    element: int  # storage order
    where: tuple[int, ...]
    load: Access  # the global load that fetched it
    entry: Access  # how it entered the writing work-item (a local read, or the load itself)
    stored: Access | None = None  # the local write the loaded value went into
    tile_step: int | None = None  # which fill of that local buffer by the group (0: the first)
    race: bool = False  # it came through a write not ordered before its read
    # It came through a store to local memory computed in registers from several loads, all
    # of them credited: it may not really have flowed in (an over-approximation).
    approximate: bool = False
    outside: bool = False  # an element outside the buffer (read out of bounds, skipped)

    def to_json(self) -> dict[str, object]:
        return {
            "buffer": self.buffer,
            "element": list(self.where),
            "load": self.load.to_json(),
            "entry": self.entry.to_json(),
            "stored": self.stored.to_json() if self.stored else None,
            "tile_step": self.tile_step,
            "race": self.race,
            "approximate": self.approximate,
            "outside": self.outside,
        }


@dataclass(frozen=True)
class Provenance:
    """What the trace says of one output element: who wrote it, and what flowed in."""

    output: str
    element: int
    where: tuple[int, ...]
    stores: tuple[Access, ...]  # the store that gave its value first, then any others
    inflow: tuple[Inflow, ...]  # in the order they entered the writing work-item
    notes: tuple[str, ...] = ()
    complete: bool = True  # every access of the kernel was recorded
    # Other elements of the output the writing work-item stored from the same loads (a
    # register-blocked kernel's block): through registers their inputs cannot be told apart.
    siblings: tuple[tuple[int, ...], ...] = ()
    every_group: bool = True  # every work-group of the launch was traced
    # The reads of local memory on the way that nothing wrote before them (the notes say
    # so in words): where a value that never came from an input entered.
    unwritten: tuple[Access, ...] = ()

    @property
    def written(self) -> bool:
        return bool(self.stores)


def element_text(buffer: str, where: tuple[int, ...], local: bool = False) -> str:
    """``A[3, 5]`` (a buffer as a person indexes it), ``Asub[3][5]`` (a local array, as C
    indexes it)."""
    if local:
        return buffer + "".join(f"[{w}]" for w in where)
    return f"{buffer}[{', '.join(str(w) for w in where)}]"


class Layout:
    """How each buffer's elements are indexed by a person: its shape (rows first) and
    whether it is stored column by column; a local array by its declared shape. A buffer is
    named as the launch names it (a family's role, a custom kernel's parameter), a local
    array as the kernel does."""

    def __init__(
        self,
        trace: Trace,
        shapes: dict[str, tuple[int, ...]],
        column_major: tuple[str, ...] | frozenset[str] = (),
    ) -> None:
        self.trace = trace
        self.shapes: list[tuple[int, ...]] = []
        self.column: list[bool] = []
        self.names: list[str] = []
        for b in trace.buffers:
            shape = shapes.get(b.role or "") if b.role else None
            if shape is None or int(np.prod(shape)) != b.length:
                shape = tuple(d for d in b.shape if d > 0) or (b.length,)
                if int(np.prod(shape)) != b.length:
                    shape = (b.length,)
            self.shapes.append(tuple(int(d) for d in shape))
            self.column.append(b.role in column_major and len(shape) == 2)
            self.names.append(b.role if b.role and b.space == GLOBAL else b.name)

    def where(self, buffer: int, element: int) -> tuple[int, ...]:
        shape = self.shapes[buffer]
        element = int(element)
        if not 0 <= element < math.prod(shape):
            return (element,)
        if self.column[buffer]:
            return (element % shape[0], element // shape[0])
        out = []
        for size in reversed(shape[1:]):
            element, rest = divmod(element, size)
            out.append(rest)
        out.append(element)
        return tuple(out[::-1])

    def element(self, buffer: int, where: tuple[int, ...]) -> int:
        """The storage index of an element given as a person indexes it; ValueError outside."""
        shape = self.shapes[buffer]
        name = self.names[buffer]
        if len(where) != len(shape) or any(
            not 0 <= w < s for w, s in zip(where, shape, strict=True)
        ):
            raise ValueError(
                f"{element_text(name, where)} is outside {name}, of shape "
                f"{'×'.join(map(str, shape))}"
            )
        if self.column[buffer]:
            return int(where[1] * shape[0] + where[0])
        return int(np.ravel_multi_index(where, shape))

    def storage(self, buffer: int, array: np.ndarray) -> np.ndarray:
        """An array as a person indexes it (rows first), flat in storage order."""
        array = np.asarray(array).reshape(self.shapes[buffer])
        return (array.T if self.column[buffer] else array).ravel()


# A node of the walk: ("read", p, -1) a load; ("store", p, i) the i-th element of a store;
# ("element", p, k) the k-th element of a vector load alone (the one a store holds).
Node = tuple[str, int, int]


class _WorkItem:
    """One work-item's positions, sorted: its loads (which are copies into the store after
    them), its stores by buffer, and where the value of each element it loaded from an input
    lies (to find a later store that holds exactly that value)."""

    def __init__(self, g: _Group, start: int, end: int) -> None:
        span = np.arange(start, end)
        reading = (g.op[span] == READ) & np.isin(g.space[span], (GLOBAL, LOCAL))
        self.loads = span[reading]
        self.copy = g.copy_loads(self.loads)
        stores = span[np.isin(g.op[span], _STORES) & ~g.oob[span] & (g.buffer[span] >= 0)]
        self.stores = {int(b): stores[g.buffer[stores] == b] for b in np.unique(g.buffer[stores])}
        # Each input element loaded, by its bits: (bits, position, lane), sorted by bits.
        keys, pos, lane = [], [], []
        for q in self.loads[~g.oob[self.loads]]:
            bits = g.contents.get(int(g.buffer[q]))
            if bits is None or g.space[q] != GLOBAL:
                continue
            first, n = int(g.element[q]), int(g.count[q])
            got = bits[first : first + n]
            keys.append(got)
            pos.append(np.full(got.size, q, dtype=np.int64))
            lane.append(np.arange(got.size, dtype=np.int64))
        if keys:
            every = np.concatenate(keys)
            order = np.argsort(every, kind="stable")
            self.bits = every[order]
            self.bit_pos = np.concatenate(pos)[order]
            self.bit_lane = np.concatenate(lane)[order]
        else:
            self.bits = np.zeros(0, dtype=np.uint64)
            self.bit_pos = self.bit_lane = np.zeros(0, dtype=np.int64)
        self.staged: np.ndarray | None = None  # loads whose value a later local store holds

    def cut(self, g: _Group, p: int) -> int:
        """Where the register window of a store at ``p`` begins (exclusive): its
        work-item's previous store to the same buffer before the last load before it."""
        before = int(np.searchsorted(self.loads, p))
        if before == 0:
            return p
        last = int(self.loads[before - 1])
        same = self.stores.get(int(g.buffer[p]))
        if same is None:
            return -1
        at = int(np.searchsorted(same, last))
        return int(same[at - 1]) if at else -1

    def holding(self, g: _Group, p: int) -> list[tuple[int, int]]:
        """The (load, lane) pairs of the window of store ``p`` whose input value is the very
        value ``p`` stored: a value staged in registers, then stored (empty where values
        were not recorded or none matches)."""
        if g.value is None or g.value_kind[p] != VALUE_WRITTEN or self.bits.size == 0:
            return []
        v = np.uint64(int(g.value[p]))
        lo, hi = np.searchsorted(self.bits, v), np.searchsorted(self.bits, v, side="right")
        pos, lane = self.bit_pos[lo:hi], self.bit_lane[lo:hi]
        inside = (pos > self.cut(g, p)) & (pos < p)
        return [(int(q), int(k)) for q, k in zip(pos[inside], lane[inside], strict=True)]

    def staged_loads(self, g: _Group) -> np.ndarray:
        """Loads whose value a later computed store to local memory holds (a tile staged
        through registers): they reach other stores through that local memory."""
        if self.staged is None:
            found: set[int] = set()
            for b, stores in self.stores.items():
                if g.trace.buffers[b].space != LOCAL:
                    continue
                for p in stores:
                    if g.op[p] == WRITE and g.copy_source(int(p)) is None:
                        found.update(q for q, _ in self.holding(g, int(p)))
            self.staged = np.array(sorted(found), dtype=np.int64)
        return self.staged

    def window(self, g: _Group, p: int) -> np.ndarray:
        """The loads that reach a computed store through the registers: every load of the
        work-item before it since :meth:`cut`, copies and staged tiles excepted."""
        loads, copy = self.loads, self.copy
        inside = (loads > self.cut(g, p)) & (loads < p) & ~copy
        chosen = loads[inside]
        staged = self.staged_loads(g)
        return chosen[~np.isin(chosen, staged)] if staged.size else chosen


class _Group:
    """One work-group's records, each work-item's together in its own order, with the
    columns the query reads; positions index these arrays."""

    def __init__(
        self, trace: Trace, wis: np.ndarray, layout: Layout, contents: dict[int, np.ndarray]
    ) -> None:
        self.trace, self.layout, self.contents = trace, layout, contents
        kept = np.asarray(trace.kept, dtype=np.int64)
        starts = np.cumsum(kept) - kept
        counts = kept[wis]
        self.first = np.cumsum(counts) - counts  # each work-item's first position
        self.ends = self.first + counts
        self.seq = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(self.first, counts)
        self.rec = np.repeat(starts[wis], counts) + self.seq
        self.wi = np.repeat(wis.astype(np.int64), counts)
        word = np.asarray(trace.word[self.rec])
        site = word_site(word)
        self.site = site
        self.phase = word_phase(word).astype(np.int64)
        self.buffer = word_buffer(word).astype(np.int64)
        self.oob = word_oob(word)
        self.op = trace.site_ops()[site]
        lines = np.array([s.line for s in trace.sites] + [0], dtype=np.int64)
        self.line = lines[site]
        elem = np.array([b.elem_size for b in trace.buffers] + [1], dtype=np.int64)
        offset = np.asarray(trace.offset[self.rec])
        if offset.dtype == np.uint32:  # an int32 really: out of bounds it may be negative
            offset = offset.view(np.int32)
        self.element = offset.astype(np.int64) // elem[self.buffer]
        self.count = np.maximum(1, trace.sizes_of(word).astype(np.int64) // elem[self.buffer])
        spaces = np.array([b.space for b in trace.buffers] + [-1], dtype=np.int64)
        self.space = spaces[self.buffer]
        kinds = np.array([s.value for s in trace.sites] + [0], dtype=np.int64)
        self.value_kind = kinds[site]
        self.value = None if trace.values is None else np.asarray(trace.values[self.rec])
        self._writes: tuple[np.ndarray, np.ndarray] | None = None
        self._copy_sites: set[int] | None = None
        self._fills: dict[int, np.ndarray] = {}
        self._items: dict[int, _WorkItem] = {}
        self._access: dict[int, Access] = {}

    def item(self, p: int) -> _WorkItem:
        """The work-item of position ``p``, its sorted positions made once."""
        at = int(np.searchsorted(self.first, p, side="right") - 1)
        if at not in self._items:
            self._items[at] = _WorkItem(self, int(self.first[at]), int(self.ends[at]))
        return self._items[at]

    # -- single records ----------------------------------------------------------------
    def access(self, p: int) -> Access:
        if p in self._access:
            return self._access[p]
        t, b = self.trace, int(self.buffer[p])
        site = t.sites[int(self.site[p])]
        w = int(self.wi[p])
        element = int(self.element[p])
        made = Access(
            record=int(self.rec[p]),
            line=int(self.line[p]),
            text=site.text,
            op=OP_NAMES.get(int(self.op[p]), "?"),
            buffer=self.layout.names[b] if b >= 0 else "",
            element=element,
            where=self.layout.where(b, element) if b >= 0 else (),
            work_item=tuple(int(v) for v in t.wi_group[w]) + tuple(int(v) for v in t.wi_local[w]),
            phase=int(self.phase[p]),
            local=b >= 0 and t.buffers[b].space == LOCAL,
        )
        self._access[p] = made
        return made

    def copy_source(self, p: int) -> int | None:
        """The load a store copies: the record just before it, a load on the same line
        (with the same value, where values were recorded; a load out of bounds, skipped,
        is copied as it is: the explanation names it)."""
        if self.seq[p] == 0 or self.op[p] not in _STORES:
            return None
        q = p - 1
        if self.op[q] != READ or self.line[q] != self.line[p]:
            return None
        if self.op[p] == WRITE and self.value is not None and not self.oob[q]:
            known = self.value_kind[q] == VALUE_READ and self.value_kind[p] == VALUE_WRITTEN
            if known and self.value[q] != self.value[p]:
                return None
        return q

    def copy_sites(self) -> set[int]:
        """Store sites that copy a load at least once: where such a store runs without its
        load (a guard chose a constant, ``cond ? A[i] : 0.0f``), nothing flowed in."""
        if self._copy_sites is None:
            stores = np.flatnonzero((self.op == WRITE) & (self.seq > 0))
            self._copy_sites = {
                int(s) for s in np.unique(self.site[stores[self._copies(stores - 1, stores)]])
            }
        return self._copy_sites

    def copy_loads(self, loads: np.ndarray) -> np.ndarray:
        """Which of these loads went straight into the store after them (a tile being
        filled): they flow through that store, not through the work-item's registers."""
        if loads.size == 0:
            return np.zeros(0, dtype=bool)
        nxt = np.minimum(loads + 1, self.rec.size - 1)
        ok = (nxt > loads) & (self.wi[nxt] == self.wi[loads])
        return ok & self._copies(loads, nxt)

    def _copies(self, loads: np.ndarray, stores: np.ndarray) -> np.ndarray:
        """Per pair: the store copies the load just before it (same line, same value)."""
        copy = (self.op[loads] == READ) & np.isin(self.op[stores], _STORES)
        copy &= self.line[stores] == self.line[loads]
        if self.value is not None:  # a load skipped out of bounds has no value to compare
            known = (self.op[stores] == WRITE) & (self.value_kind[loads] == VALUE_READ)
            known &= ~self.oob[loads]
            known &= self.value_kind[stores] == VALUE_WRITTEN
            copy &= ~known | (self.value[loads] == self.value[stores])
        return copy

    # -- where values come from --------------------------------------------------------
    def writes_to(self, buffer: int, element: int) -> np.ndarray:
        """Positions of the group's stores that cover this element of this buffer."""
        if self._writes is None:
            stores = np.flatnonzero(np.isin(self.op, _STORES) & ~self.oob & (self.buffer >= 0))
            reps = self.count[stores]
            pos = np.repeat(stores, reps)
            offs = np.arange(int(reps.sum()), dtype=np.int64) - np.repeat(
                np.cumsum(reps) - reps, reps
            )
            keys = self.buffer[pos] * (1 << 40) + self.element[pos] + offs
            order = np.argsort(keys, kind="stable")
            self._writes = keys[order], pos[order]
        keys, pos = self._writes
        key = buffer * (1 << 40) + element
        lo, hi = np.searchsorted(keys, key), np.searchsorted(keys, key, side="right")
        return pos[lo:hi]

    def writers(self, p: int, element: int) -> tuple[list[int], bool]:
        """The stores whose value a read (or a read-modify-write's old value) of one element
        saw: the reader's own latest earlier store in its phase, else the stores of the
        latest earlier phase (those whose value is the one read, where recorded); failing
        those, in local memory, the stores of the same phase by other work-items (that gave
        the value read, where recorded): a race, told by True."""
        cands = self.writes_to(int(self.buffer[p]), element)
        cands = cands[cands != p]
        if cands.size == 0:
            return [], False
        own = (self.wi[cands] == self.wi[p]) & (self.seq[cands] < self.seq[p])
        own_now = own & (self.phase[cands] == self.phase[p])
        if own_now.any():
            return [int(cands[own_now].max())], False
        if self.space[p] == GLOBAL:  # across work-items global memory is not ordered here
            earlier = cands[own]
        else:
            earlier = cands[(self.phase[cands] < self.phase[p]) | own]
        read_value = None
        if self.value is not None and self.op[p] == READ and self.value_kind[p] == VALUE_READ:
            read_value = self.value[p]
        chosen: list[int] = []
        if earlier.size:
            latest = earlier[self.phase[earlier] == self.phase[earlier].max()]
            chosen = [int(x) for x in latest]
            plain = latest[(self.op[latest] == WRITE) & (self.value_kind[latest] == VALUE_WRITTEN)]
            if read_value is None or not plain.size:
                return chosen, False
            match = plain[self.value[plain] == read_value]  # type: ignore[index]
            if match.size and plain.size > 1:
                chosen = [int(x) for x in match]
                chosen += [int(x) for x in latest[self.op[latest] != WRITE]]
            if match.size or plain.size < latest.size:
                return chosen, False
        if self.space[p] != LOCAL:
            return chosen, False
        now = cands[(self.phase[cands] == self.phase[p]) & (self.wi[cands] != self.wi[p])]
        if read_value is not None:
            now = now[(self.op[now] == WRITE) & (self.value_kind[now] == VALUE_WRITTEN)]
            now = now[self.value[now] == read_value]  # type: ignore[index]
        if now.size:
            return [int(x) for x in now], True
        return chosen, False

    def fill_step(self, p: int) -> int:
        """Which fill of its local buffer a store was: how many earlier phases the group
        wrote that buffer in."""
        b = int(self.buffer[p])
        if b not in self._fills:
            self._fills[b] = np.unique(
                self.phase[(self.buffer == b) & np.isin(self.op, _STORES) & ~self.oob]
            )
        return int(np.searchsorted(self._fills[b], self.phase[p]))


@dataclass(frozen=True)
class _Leaf:
    load: int  # the global load
    lane: int | None  # the one element of a vector load it is, where that is known
    stored: int | None  # the local store it went through, nearest the load
    race: bool
    via: Node  # the node of the writing work-item it was reached from
    # It went through a store to local memory whose value was computed in registers from
    # several loads: every one of them is credited, which may be more than the truth.
    approximate: bool = False
    outside: bool = False  # a load outside its buffer (the trace skipped it)


class _Walk:
    """Follows values backwards through one work-group's records, each node once: a read
    to the stores it saw, a store to the reads its value came from."""

    def __init__(self, group: _Group) -> None:
        self.g = group
        self.seen: set[Node] = set()
        self.visits = 0
        self.uninitialised: set[int] = set()
        self.out_of_bounds: set[int] = set()
        self.stopped = False

    def sources(self, store: int, lane: int = 0) -> tuple[list[tuple[Node, bool]], bool]:
        """Where element ``lane`` of a store's value came from: the load it copies; else
        the element of an input it holds (a value staged in registers); else the loads of
        its work-item's registers (nothing for a guarded copy that chose a constant): True
        then, an over-approximation; and a read-modify-write's or atomic's previous value."""
        g = self.g
        src = g.copy_source(store)
        found: list[tuple[Node, bool]]
        approximate = False
        if src is not None:
            vector = int(g.count[src]) == int(g.count[store]) > 1
            node: Node = ("element", src, lane) if vector else ("read", src, -1)
            found = [(node, False)]
        elif g.op[store] == WRITE and int(g.site[store]) in g.copy_sites():
            found = []
        else:
            item = g.item(store)
            held = item.holding(g, store) if g.space[store] == LOCAL else []
            if held:
                q, k = held[-1]
                found = [(("element", q, k + lane), False)]
            else:
                window = item.window(g, store)
                if g.space[store] == LOCAL and (g.space[window] == GLOBAL).any():
                    # A store into local memory after loads from global memory stages them
                    # (a tile fetched into registers first): what it read of local memory
                    # before went into other registers.
                    window = window[g.space[window] == GLOBAL]
                found = [(("read", int(q), -1), False) for q in window]
                approximate = bool(found)
        if g.op[store] in (RMW, ATOMIC):
            element = int(g.element[store]) + lane
            before, race = g.writers(store, element)
            found += [(("store", w, element - int(g.element[w])), race) for w in before]
        return found, approximate

    def leaves(self, start: Node) -> list[_Leaf]:
        """The global loads a node carries, depth first."""
        g, out = self.g, []
        stack: list[tuple[Node, int | None, bool, bool]] = [(start, None, False, False)]
        while stack:
            node, stored, race, approx = stack.pop()
            if node in self.seen:
                continue
            self.seen.add(node)
            self.visits += 1
            if self.visits > VISIT_BUDGET:
                self.stopped = True
                break
            kind, p, lane = node
            if kind == "store":
                local = g.space[p] == LOCAL
                stored = p if local else stored
                sources, guessed = self.sources(p, lane)
                for source, r in reversed(sources):
                    stack.append((source, stored, race or r, approx or (guessed and local)))
                continue
            if kind == "element":
                if 0 <= lane < int(g.count[p]):
                    out.append(_Leaf(p, lane, stored, race, start, approx))
                continue
            if g.oob[p]:
                self.out_of_bounds.add(p)
                out.append(_Leaf(p, None, stored, race, start, approx, outside=True))
                continue
            found: list[tuple[Node, bool]] = []
            for k in range(int(g.count[p])):
                element = int(g.element[p]) + k
                writes, r = g.writers(p, element)
                found += [(("store", w, element - int(g.element[w])), r) for w in writes]
            if not found:
                if g.space[p] == GLOBAL:
                    out.append(_Leaf(p, None, stored, race, start, approx))
                else:
                    self.uninitialised.add(p)
                continue
            for w, r in reversed(found):
                stack.append((w, stored, race or r, approx))
        return out


def provenance(
    trace: Trace,
    output: int,
    element: int,
    layout: Layout,
    final_bits: int | None = None,
    contents: dict[int, np.ndarray] | None = None,
) -> Provenance:
    """Who wrote ``element`` (storage order) of buffer ``output``, and every input element
    that flowed into it. ``final_bits``: the element's value as the run left it (its bits),
    to tell which of several plain stores gave it. ``contents``: the inputs' values, by
    buffer, as stored (their bits, zero-extended to 64), to tell which loaded element a
    value staged in registers and then stored is."""
    name = layout.names[output]
    where = layout.where(output, element)
    stores = _stores_of(trace, output, element)
    all_groups = len(set(trace.groups_traced)) >= math.prod(trace.num_groups)
    if stores.size == 0:
        return Provenance(name, element, where, (), (), (), trace.complete, (), all_groups)
    groups: dict[tuple[int, ...], _Group] = {}
    notes: list[str] = []
    ends = np.cumsum(np.asarray(trace.kept, dtype=np.int64))

    def placed(record: int) -> tuple[_Group, int]:
        w = int(np.searchsorted(ends, record, side="right"))
        key = tuple(int(v) for v in trace.wi_group[w])
        if key not in groups:
            same = np.flatnonzero((trace.wi_group == np.array(key)).all(axis=1))
            groups[key] = _Group(trace, same, layout, contents or {})
        g = groups[key]
        return g, int(np.searchsorted(g.rec, record))

    every = [placed(int(r)) for r in stores]
    plain = [(g, p) for g, p in every if g.op[p] == WRITE]
    ordered = [(g, p) for g, p in every if g.op[p] != WRITE]
    if plain:
        ordered.insert(0, _final_plain(plain, final_bits))
        writers = len({(id(g), int(g.wi[p])) for g, p in plain})
        if writers > 1:
            notes.append(
                f"{writers - 1} other work-item(s) also wrote {element_text(name, where)}: "
                "the store whose value it kept is explained"
            )
    found: list[tuple[tuple[int, int], Inflow]] = []
    seen_inputs: set[tuple[int, int]] = set()
    walks: dict[int, _Walk] = {}
    for rank, (g, p) in enumerate(ordered):
        walk = walks.setdefault(id(g), _Walk(g))
        lane = element - int(g.element[p])
        for node, race in walk.sources(p, lane)[0]:
            for leaf in walk.leaves(node):
                entry = _entry(g, leaf, p)
                key = (rank, entry.record)
                for inflow in _inflows(g, leaf, entry, race, seen_inputs):
                    found.append((key, inflow))
    found.sort(key=lambda item: item[0])
    for walk in walks.values():
        notes += _walk_notes(walk)
    g, p = ordered[0]
    return Provenance(
        name,
        element,
        where,
        tuple(g.access(p) for g, p in ordered),
        tuple(inflow for _, inflow in found),
        tuple(notes),
        trace.complete,
        tuple(layout.where(output, e) for e in _siblings(g, p) if e != element),
        all_groups,
        tuple(w.g.access(q) for w in walks.values() for q in sorted(w.uninitialised)),
    )


def _siblings(g: _Group, p: int) -> list[int]:
    """Elements of the same buffer that a computed store's work-item stored between the
    same two loads (its block of outputs, computed from the same registers)."""
    if g.copy_source(p) is not None or g.op[p] != WRITE:
        return []
    item = g.item(p)
    at = int(np.searchsorted(item.loads, p))
    lo = int(item.loads[at - 1]) if at else -1
    hi = int(item.loads[at]) if at < item.loads.size else g.rec.size
    same = item.stores.get(int(g.buffer[p]), np.zeros(0, dtype=np.int64))
    run = same[(same > lo) & (same < hi)]
    return sorted({int(g.element[q]) + k for q in run for k in range(int(g.count[q]))})


def _entry(g: _Group, leaf: _Leaf, store: int) -> Access:
    """How a leaf entered the writing work-item: the read it was reached from, or, through
    the element's previous value, its own load where the writer made it."""
    kind, at = leaf.via[0], leaf.via[1]
    if kind != "store":
        return g.access(at)
    if g.wi[leaf.load] == g.wi[store]:
        return g.access(leaf.load)
    return g.access(at)


def _inflows(
    g: _Group, leaf: _Leaf, entry: Access, race: bool, seen: set[tuple[int, int]]
) -> list[Inflow]:
    out = []
    lanes = range(int(g.count[leaf.load])) if leaf.lane is None else (leaf.lane,)
    if leaf.outside:
        lanes = range(1)  # where the access began: the element it names
    for k in lanes:
        b, e = int(g.buffer[leaf.load]), int(g.element[leaf.load]) + k
        if (b, e) in seen:
            continue
        seen.add((b, e))
        out.append(
            Inflow(
                buffer=g.layout.names[b],
                element=e,
                where=g.layout.where(b, e),
                load=g.access(leaf.load),
                entry=entry,
                stored=g.access(leaf.stored) if leaf.stored is not None else None,
                tile_step=g.fill_step(leaf.stored) if leaf.stored is not None else None,
                race=race or leaf.race,
                approximate=leaf.approximate,
                outside=leaf.outside,
            )
        )
    return out


def _walk_notes(walk: _Walk) -> list[str]:
    g, notes = walk.g, []
    for node in sorted(walk.uninitialised):
        a = g.access(node)
        notes.append(
            f"line {a.line}: {a.element_text} was read before anything wrote it "
            f"(work-item {_who(a)}, phase {a.phase})"
        )
    by_line: dict[tuple[int, str, str], list[Access]] = {}
    for node in sorted(walk.out_of_bounds):
        a = g.access(node)
        by_line.setdefault((a.line, a.buffer, a.text), []).append(a)
    for (line, buffer, text), reads in by_line.items():
        shown = ", ".join(f"{buffer}[{a.element}]" for a in reads[:4])
        more = ", …" if len(reads) > 4 else ""
        notes.append(
            f"line {line}: {len(reads)} read(s) outside {buffer} (`{text}`) flowed in: "
            f"{shown}{more}; the trace skipped them (what a device reads there is anything)"
        )
    if walk.stopped:
        notes.append(f"the query stopped after {VISIT_BUDGET:,} steps: the inflow is partial")
    return notes


def _stores_of(trace: Trace, output: int, element: int) -> np.ndarray:
    """Records that store into one element of a buffer (vector stores included)."""
    elem = trace.buffers[output].elem_size
    offset = np.asarray(trace.offset)
    top = element * elem
    low = max(0, (element - 15) * elem)
    near = np.flatnonzero((offset >= offset.dtype.type(low)) & (offset <= offset.dtype.type(top)))
    if near.size == 0:
        return near
    word = np.asarray(trace.word[near])
    ok = (word_buffer(word) == output) & ~word_oob(word)
    ok &= np.isin(trace.site_ops()[word_site(word)], _STORES)
    ok &= offset[near].astype(np.int64) + trace.sizes_of(word) > top
    return near[ok]


def _final_plain(plain: list[tuple[_Group, int]], final_bits: int | None) -> tuple[_Group, int]:
    """Of several plain stores, the one whose recorded value is the element's as the run
    left it; else the last recorded."""
    if final_bits is not None:
        for g, p in reversed(plain):
            known = g.value is not None and g.value_kind[p] == VALUE_WRITTEN
            if known and int(g.value[p]) == final_bits:  # type: ignore[index]
                return g, p
    return plain[-1]


def _who(a: Access) -> str:
    return f"{a.work_item[:3]}/{a.work_item[3:]}"
