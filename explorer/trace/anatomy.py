"""Index anatomy of a traced access: the value of each term of its index and where each came
from, back through the kernel's own variables to their definitions.

``col = 37 ← get_group_id(0) * TS + tx at line 36 (get_group_id(0) = 2, TS = 16, tx = 5 ←
get_local_id(1) at line 34)``: a bug is often reported at the access that uses a wrong value
(``Asub[ty][tx]`` races at line 52) while the value went wrong elsewhere (``tx =
get_local_id(1)`` at line 34); the anatomy names the chain back there.

Two halves. The static one (``explorer.frontend.anatomy``: the terms of every access and the
definitions that can reach them) is known for every access without running anything. The
values come from an anatomy build (``explorer.trace.instrument.anatomy``) run for the lines
asked about only, so a trace asked nothing costs what it did: its records line up with the
plain trace's work-item by work-item and occurrence by occurrence (the k-th record of a site in
a work-item is the same access in both), and where several definitions could reach, the
records say which one ran, with the value it stored. Kept small to cross from the executor:
only the records of the anatomy's own sites and of the accesses it explains
(:class:`AnatomyValues`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from explorer.frontend.anatomy import (
    ARGUMENT,
    BUILTIN,
    CALL,
    CONSTANT,
    FAILED,
    HELD,
    HELPER_PARAMETER,
    KERNEL_ARGUMENT,
    LOOP,
    MACRO,
    PARAMETER,
    PART,
    PASSED,
    UPDATE,
    AccessAnatomy,
    Condition,
    Definition,
    KernelAnatomy,
    Term,
)
from explorer.frontend.anatomy import (
    READ as READ_TERM,
)
from explorer.trace.columns import _VALUE_DTYPES
from explorer.trace.instrument.model import ACCESS, DEFINITION, AnatomyBuild, AnatomySite
from explorer.trace.instrument.values import value_type
from explorer.trace.recorded import (
    ATOMIC,
    READ,
    RMW,
    ROLE_ANATOMY,
    ROLE_PARTS,
    ROLE_UNSET,
    VALUE_NONE,
    WRITE,
    Finding,
    Trace,
    word_buffer,
    word_oob,
    word_phase,
    word_site,
)

MAX_DEPTH = 8  # definitions followed back from one term (a chain longer is cut, and says so)
CONDITION = "condition"  # a condition's terms: no site of their own records them
# Definitions one term's JSON follows (each four levels of nesting; the executor's messages
# nest 48 levels at most, a report's anatomy starts some ten levels in).
JSON_LEVELS = 7
ACCESS_OPS = (READ, WRITE, RMW, ATOMIC)


@dataclass(frozen=True, eq=False)
class AnatomyValues:
    """The records an anatomy build kept for the anatomy: per work-item of its window
    (``wi_group``, ``wi_local``), ``site`` and raw ``value`` of each record, in the order the
    work-item made them, from ``starts[w]`` to ``starts[w + 1]``. ``site_types`` gives the
    OpenCL type of the value each kept site's records hold."""

    wi_group: np.ndarray
    wi_local: np.ndarray
    starts: np.ndarray
    site: np.ndarray
    value: np.ndarray
    site_types: tuple[tuple[int, str], ...]


@dataclass(frozen=True, eq=False)
class TraceAnatomy:
    """The index anatomy of a trace's accesses: static for every access, with values for the
    ``lines`` an anatomy build recorded (``values``; None when none was asked or it failed,
    ``note`` then says why where something went wrong)."""

    static: KernelAnatomy
    lines: tuple[int, ...] = ()
    sites: tuple[AnatomySite, ...] = ()
    access_sites: tuple[tuple[int, tuple[int, ...]], ...] = ()
    values: AnatomyValues | None = None
    note: str = ""

    def explain(self, trace: Trace, record: int) -> AccessExplanation | None:
        """The anatomy of the access ``record`` of ``trace`` made (a record of an access
        site), with the values that work-item's access used where they were recorded; None
        for a record of no access the front end knows."""
        record = int(record)
        sid = int(word_site(trace.word[record : record + 1])[0])
        site = trace.sites[sid]
        access = self._access_of(sid, site.line, site.text)
        if access is None:
            return None
        number, a = access
        # From the packed words, a work-item's stretch at a time: the trace's unpacked columns
        # would cost a number per record of the whole trace for one access.
        ends = np.cumsum(trace.kept)
        wi = int(np.searchsorted(ends, record, side="right"))
        start = int(ends[wi] - trace.kept[wi])
        occurrence = int(np.count_nonzero(word_site(trace.word[start:record]) == sid))
        group = tuple(int(v) for v in trace.wi_group[wi])
        local = tuple(int(v) for v in trace.wi_local[wi])
        resolver = None
        note = ""
        if a.line in self.lines and self.values is not None:
            resolver = _Resolver.of(self, group, local)
            if resolver is None:
                note = "values not recorded for this work-item (its group was not in the window)"
            elif not resolver.anchor_of(sid, occurrence):
                resolver, note = None, "values not recorded for this access"
        elif self.note and a.line in self.lines:
            note = self.note
        terms = (
            resolver.access_terms(number, sid, occurrence)
            if resolver is not None
            else _Static(self.static).terms(a.terms, a.reaching, frozenset(), 0)
        )
        known = {t.text: t.value for t in terms if t.value}
        names = {name: str(value) for name, value in trace.names}
        conditions = tuple(
            _condition(
                self.static.condition(c),
                resolver.condition_terms(c, sid, occurrence)
                if resolver is not None
                else _Static(self.static).condition_terms(c),
                known,
                names,
            )
            for c in a.conditions
        )
        return AccessExplanation(
            line=a.line,
            text=a.text,
            index=a.index,
            group=group,
            local=local,
            occurrence=occurrence,
            recorded=resolver is not None,
            terms=terms,
            note=note,
            conditions=conditions,
        )

    def explain_at(
        self, trace: Trace, line: int, work_item: int, occurrence: int = 0
    ) -> list[AccessExplanation]:
        """The anatomy of each access at ``line`` that work-item ``work_item`` (an index
        into the trace's work-items) made, at its ``occurrence``-th pass there."""
        start = int(np.cumsum(trace.kept)[work_item] - trace.kept[work_item])
        end = start + int(trace.kept[work_item])
        sites = word_site(trace.word[start:end])
        out = []
        for s in trace.sites:
            if s.line != line or s.op not in ACCESS_OPS or s.role == ROLE_ANATOMY:
                continue
            at = np.flatnonzero(sites == s.id)
            if occurrence < at.size:
                explained = self.explain(trace, start + int(at[occurrence]))
                if explained is not None:
                    out.append(explained)
        return out

    def explain_finding(self, trace: Trace, finding: Finding) -> AccessExplanation | None:
        """The anatomy of the access a finding reports: its first work-item's access at its
        line (the one out of bounds, in its phase, of its buffer, where it says)."""
        record = finding_record(trace, finding)
        return None if record is None else self.explain(trace, record)

    def _access_of(self, sid: int, line: int, text: str) -> tuple[int, AccessAnatomy] | None:
        for number, sites in self.access_sites:
            if sid in sites:
                return number, self.static.accesses[number]
        if self.access_sites:
            return None
        found = self.static.of_site(line, text)
        if found is None:
            return None
        return self.static.accesses.index(found), found


def finding_record(trace: Trace, finding: Finding) -> int | None:
    """The record of the access a finding reports: at its line, by its first example
    work-item, preferring an access out of bounds (an out-of-bounds finding), in the
    finding's phase, of its buffer; None where the trace has none."""
    if finding.line is None or not finding.work_items:
        return None
    sites = [
        s.id
        for s in trace.sites
        if s.line == finding.line
        and ((s.op in ACCESS_OPS and s.role != ROLE_ANATOMY) or s.role == ROLE_UNSET)
    ]
    if not sites:
        return None
    label = finding.work_items[0]
    g, lo = tuple(label[:3]), tuple(label[3:6])
    match = np.flatnonzero(
        (trace.wi_group == np.array(g)).all(axis=1) & (trace.wi_local == np.array(lo)).all(axis=1)
    )
    if match.size == 0:
        return None
    wi = int(match[0])
    start = int(np.cumsum(trace.kept)[wi] - trace.kept[wi])
    end = start + int(trace.kept[wi])
    mine = start + np.flatnonzero(np.isin(word_site(trace.word[start:end]), sites))
    if mine.size == 0:
        return None
    words = trace.word[mine]
    score = np.zeros(mine.size)
    if finding.kind == "out-of-bounds":
        score += 4 * word_oob(words)
    if finding.phase is not None:
        score += 2 * (word_phase(words) == finding.phase)
    if finding.buffer is not None:
        names = np.array([b.name == finding.buffer for b in trace.buffers] + [False])
        # A private array's unset reads name no buffer of their own (-1): their site does.
        named = word_buffer(words).astype(np.int64)
        own = np.array([s.buffer for s in trace.sites], dtype=np.int64)[word_site(words)]
        buffers = np.where((named < 0) | (named >= len(trace.buffers)), own, named)
        score += names[buffers]
        # Of two accesses of that buffer alike so far (`t[l] + t[l + 1]`, one of them
        # unwritten), the one that touched an element the finding names.
        if finding.elements:
            sizes = np.array([max(1, b.elem_size) for b in trace.buffers] + [1])
            clipped = np.clip(buffers, 0, len(trace.buffers))
            element = trace.offset[mine].astype(np.int64) // sizes[clipped]
            touched = np.isin(element, np.array(finding.elements, dtype=np.int64))
            score += 0.75 * (names[buffers] & touched)
    # Of two accesses alike so far (cell[n].a and cell[n].b), the one the message quotes.
    quoted = np.array([bool(s.text) and s.text in finding.message for s in trace.sites])
    score += 0.5 * quoted[word_site(words)]
    return int(mine[int(np.argmax(score))])


# -- what an explanation says ------------------------------------------------------------


@dataclass(frozen=True)
class ExplainedDefinition:
    """A definition behind a term: where, what it stored (``value`` where recorded), whether
    the records show it is the one that ran (``ran``), and its own terms."""

    line: int
    kind: str
    text: str
    value_text: str
    value: str = ""
    ran: bool = False
    terms: tuple[ExplainedTerm, ...] = ()
    cut: bool = False  # the chain goes on, but was not followed further

    def to_json(self, levels: int = JSON_LEVELS) -> dict[str, Any]:
        return {
            "line": self.line,
            "kind": self.kind,
            "text": self.text,
            "value": self.value or None,
            "ran": self.ran,
            "terms": [t.to_json(levels - 1) for t in self.terms],
        }


@dataclass(frozen=True)
class ExplainedTerm:
    """A term with its value (``""`` where unknown) and the definitions it came from."""

    text: str
    kind: str
    value: str = ""
    definitions: tuple[ExplainedDefinition, ...] = ()
    inside: str = ""

    def to_json(self, levels: int = JSON_LEVELS) -> dict[str, Any]:
        """The term with its definitions ``levels`` deep (deeper ones are left out, and
        ``cut`` says so: the chain's text has them all)."""
        out: dict[str, Any] = {
            "text": self.text,
            "kind": self.kind,
            "value": self.value or None,
            "inside": self.inside or None,
            "definitions": [d.to_json(levels) for d in self.definitions] if levels > 0 else [],
        }
        if levels <= 0 and self.definitions:
            out["cut"] = True
        return out

    def chain(self) -> str:
        """The term, its value and where it came from, in one line: ``tx = 5 ←
        get_local_id(1) at line 34``."""
        head = f"{self.text} = {self.value}" if self.value else self.text
        if self.kind in (BUILTIN, MACRO, CONSTANT) or not self.definitions:
            return head
        if self.kind == READ_TERM:
            inner = [t.chain() for d in self.definitions for t in d.terms]
            where = f"read at line {self.definitions[0].line}"  # `bufs[1]`: no terms of its own
            return head + (f" ({where}: {', '.join(inner)})" if inner else f" ({where})")
        defs = self.definitions
        ran = [d for d in defs if d.ran]
        if len(ran) == 1 or len(defs) == 1:
            return head + " ← " + _origin(ran[0] if ran else defs[0])
        if ran:  # the members of a struct or vector, each from where it was stored
            return head + " ← " + "; ".join(_origin(d) for d in ran)
        shown = "; ".join(_origin(d) for d in defs)
        return f"{head} ← one of {len(defs)} definitions: {shown}"


def _origin(d: ExplainedDefinition) -> str:
    """A definition as a chain link: ``get_group_id(0) * TS + tx at line 36 (TS = 16, tx =
    5 ← get_local_id(1) at line 34)``."""
    if d.kind == KERNEL_ARGUMENT:
        return f"kernel argument (line {d.line})"
    what = d.text if d.kind in (UPDATE, ARGUMENT, PART) else d.value_text
    if d.kind == HELPER_PARAMETER:
        calls = [t.definitions[0] for t in d.terms if t.definitions]
        if len(calls) == 1:  # the argument of the call that ran (or of its only call)
            return _origin(calls[0])
        if not calls:
            return f"{d.text} (line {d.line})"
        return f"{d.text}, from {len(calls)} calls: " + "; ".join(_origin(c) for c in calls)
    text = f"{what} at line {d.line}"
    terms = list(d.terms)
    if d.kind == UPDATE and terms and not terms[0].value and not terms[0].definitions:
        terms = terms[1:]  # ``k++`` reads k: worth naming with its value only
    # ``tx = get_local_id(1)``: its one term is its value; but where that term is a variable
    # (``p = row``), where the variable came from goes on.
    redundant = len(terms) == 1 and terms[0].text == d.value_text and not terms[0].definitions
    parts = [] if redundant else [t.chain() for t in terms]
    if d.cut:
        parts.append("…")
    return text + (f" ({', '.join(parts)})" if parts else "")


@dataclass(frozen=True)
class ExplainedCondition:
    """A condition an access ran under (``kind``: ``if``, ``else``, ``loop``, ``past``), with
    its terms' values where known and the definitions behind them."""

    line: int
    kind: str
    text: str
    terms: tuple[ExplainedTerm, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "kind": self.kind,
            "text": self.text,
            "held": self.kind != FAILED and self.kind != PASSED,
            "terms": [t.to_json(JSON_LEVELS - 1) for t in self.terms],
        }

    def chain(self, shown: frozenset[str] = frozenset()) -> str:
        """The condition in one line, each term with its value (and, where the index does
        not show it already, where it came from): ``loop while (k <= K) at line 71 (k = 67,
        K = 67: k equals K, which <= lets through)``."""
        head = {
            HELD: f"under if ({self.text}) at line {self.line}",
            FAILED: f"under the else of if ({self.text}) at line {self.line}",
            LOOP: f"loop while ({self.text}) at line {self.line}",
            PASSED: f"past if ({self.text}) at line {self.line}, not taken",
        }.get(self.kind, f"under ({self.text}) at line {self.line}")
        parts = []
        for t in self.terms:
            if t.kind in (BUILTIN, MACRO, CONSTANT) or t.text in shown:
                if t.value:
                    parts.append(f"{t.text} = {t.value}")
            elif t.definitions and t.kind != PARAMETER:
                parts.append(t.chain())
            elif t.value:
                parts.append(f"{t.text} = {t.value}")
        edge = self.edge()
        inner = ", ".join(parts) + (f": {edge}" if edge else "")
        return head + (f" ({inner})" if inner else "")

    def edge(self) -> str:
        """Where the access ran only because its two sides were equal at a comparison's
        edge (a loop one pass past its bound: ``k <= K`` with k = K; an early return that
        lets one work-item too many through: ``i > n`` not taken with i = n), that in words;
        "" otherwise."""
        match = _EDGE.fullmatch(self.text)
        if match is None:
            return ""
        values = {t.text: t.value for t in self.terms if t.value}
        left, op, right = match.group(1), match.group(2), match.group(3)
        a, b = values.get(left, _literal(left)), values.get(right, _literal(right))
        if not a or a != b:
            return ""
        if self.kind in (HELD, LOOP) and op in ("<=", ">="):
            return f"{left} equals {right}, which {op} lets through and {op[0]} would not"
        if self.kind in (FAILED, PASSED) and op in ("<", ">"):
            return f"{left} equals {right}, which {op} lets past and {op}= would not"
        return ""


_EDGE = re.compile(r"\s*([A-Za-z_][\w.]*|\d+)\s*(<=|>=|<|>)\s*([A-Za-z_][\w.]*|\d+)\s*")


def _literal(text: str) -> str:
    return text if text.isdigit() else ""


def _condition(
    c: Condition, terms: tuple[ExplainedTerm, ...], known: dict[str, str], names: dict[str, str]
) -> ExplainedCondition:
    """A condition explained: its terms with the values known where they have none of
    their own (the same term in the index; a kernel argument as launched)."""
    filled = []
    for t in terms:
        value = t.value or known.get(t.text, "")
        if (
            not value
            and t.kind == PARAMETER
            and all(d.kind == KERNEL_ARGUMENT for d in t.definitions)
        ):
            value = names.get(t.text, "")
        filled.append(replace(t, value=value) if value != t.value else t)
    return ExplainedCondition(c.line, c.kind, c.text, tuple(filled))


@dataclass(frozen=True)
class AccessExplanation:
    """The index anatomy of one access a work-item made: its index expressions, each term
    with its value and origin. ``recorded``: the values are the ones that access used (an
    anatomy build ran for its line); otherwise only what can be known without running."""

    line: int
    text: str
    index: tuple[str, ...]
    group: tuple[int, ...]
    local: tuple[int, ...]
    occurrence: int
    recorded: bool
    terms: tuple[ExplainedTerm, ...] = field(default=())
    note: str = ""
    # The conditions it ran under, the outermost first: each ``if`` around it, each loop,
    # each earlier ``if`` that would have left (a loop bound or a guard makes no access).
    conditions: tuple[ExplainedCondition, ...] = ()

    def chains(self) -> list[str]:
        """One line per term of the index: its value and where it came from; then one per
        condition it ran under."""
        shown = frozenset(t.text for t in self.terms)
        return [t.chain() for t in self.terms] + [c.chain(shown) for c in self.conditions]

    def text_line(self) -> str:
        """The whole anatomy in one line, for a caption or a finding."""
        chains = "; ".join(self.chains()) or "no variable in its index"
        return f"index of {self.text}: {chains}"

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "access": self.text,
            "index": list(self.index),
            "work_item": {"group": list(self.group), "local": list(self.local)},
            "occurrence": self.occurrence,
            "values_recorded": self.recorded,
            "note": self.note or None,
            "terms": [t.to_json() for t in self.terms],
            "conditions": [c.to_json() for c in self.conditions],
            "chain": self.chains(),
        }


# -- static: what can reach -------------------------------------------------------------


class _Static:
    """Explanations from the static half alone: every definition that can reach."""

    def __init__(self, static: KernelAnatomy) -> None:
        self.static = static

    def terms(
        self,
        terms: tuple[Term, ...],
        reaching: tuple[tuple[str, tuple[int, ...]], ...],
        path: frozenset[str],
        depth: int,
    ) -> tuple[ExplainedTerm, ...]:
        reach = dict(reaching)
        out = []
        for t in terms:
            defs: tuple[ExplainedDefinition, ...] = ()
            if t.variable and t.variable not in path and depth < MAX_DEPTH:
                candidates = _reaching(self.static, reach, t)
                defs = self.definitions(candidates, path | {t.variable}, depth)
            elif t.kind == READ_TERM and depth < MAX_DEPTH:
                nested = self.static.access_at(t.start, t.end)
                if nested is not None:
                    inner = self.terms(nested.terms, nested.reaching, path, depth + 1)
                    defs = (_read(nested, inner),)
            out.append(ExplainedTerm(t.text, t.kind, t.value, defs, t.inside))
        return tuple(out)

    def condition_terms(self, number: int) -> tuple[ExplainedTerm, ...]:
        """The terms of condition ``number`` and every definition that can reach them."""
        c = self.static.condition(number)
        return self.terms(c.terms, c.reaching, frozenset(), 0)

    def definitions(
        self, candidates: tuple[int, ...], path: frozenset[str], depth: int
    ) -> tuple[ExplainedDefinition, ...]:
        """Every definition among ``candidates``, as far as the static half knows them."""
        return tuple(self.definition(d, path, depth + 1) for d in candidates)

    def definition(self, number: int, path: frozenset[str], depth: int) -> ExplainedDefinition:
        d = self.static.definition(number)
        terms = self.terms(d.terms, d.reaching, path, depth)
        if d.kind == HELPER_PARAMETER and d.sources:
            terms = (
                tuple(
                    ExplainedTerm(
                        self.static.definition(s).value_text,
                        "argument",
                        definitions=(self.definition(s, path, depth),),
                    )
                    for s in d.sources
                )
                if depth < MAX_DEPTH
                else ()
            )
        return _explained(d, terms)


def _reaching(static: KernelAnatomy, reach: dict[str, tuple[int, ...]], t: Term) -> tuple[int, ...]:
    """The definitions reaching that can give term ``t``'s value (of its member, where it
    reads one)."""
    return tuple(d for d in reach.get(t.variable, ()) if static.definition(d).defines(t.member))


def _read(
    access: AccessAnatomy, terms: tuple[ExplainedTerm, ...], ran: bool = False
) -> ExplainedDefinition:
    """The access a read among the terms is, with its own index's terms."""
    return ExplainedDefinition(access.line, READ_TERM, access.text, access.text, "", ran, terms)


def _explained(
    d: Definition,
    terms: tuple[ExplainedTerm, ...],
    value: str = "",
    ran: bool = False,
    cut: bool = False,
) -> ExplainedDefinition:
    return ExplainedDefinition(d.line, d.kind, d.text, d.value_text, value, ran, terms, cut)


# -- with values: what ran --------------------------------------------------------------


class _Resolver:
    """One work-item's records of an anatomy build, read back into explanations."""

    def __init__(self, anatomy: TraceAnatomy, site: np.ndarray, value: np.ndarray) -> None:
        assert anatomy.values is not None
        self.anatomy = anatomy
        self.static = anatomy.static
        self.site = site
        self.value = value
        self.types = dict(anatomy.values.site_types)
        self.term_site: dict[tuple[str, int, int], int] = {
            (s.point, s.index, s.term): s.site for s in anatomy.sites
        }
        self.by_span = {(a.start, a.end): number for number, a in enumerate(self.static.accesses)}
        self.sites_of_access = dict(anatomy.access_sites)
        self._positions: dict[int, np.ndarray] = {}

    @classmethod
    def of(
        cls, anatomy: TraceAnatomy, group: tuple[int, ...], local: tuple[int, ...]
    ) -> _Resolver | None:
        values = anatomy.values
        if values is None:
            return None
        match = np.flatnonzero(
            (values.wi_group == np.array(group)).all(axis=1)
            & (values.wi_local == np.array(local)).all(axis=1)
        )
        if match.size == 0:
            return None
        w = int(match[0])
        lo, hi = int(values.starts[w]), int(values.starts[w + 1])
        return cls(anatomy, values.site[lo:hi], values.value[lo:hi])

    def positions(self, site: int) -> np.ndarray:
        if site not in self._positions:
            self._positions[site] = np.flatnonzero(self.site == site)
        return self._positions[site]

    def latest(self, site: int, before: int, after: int = -1) -> int | None:
        """The last record of ``site`` in (after, before)."""
        at = self.positions(site)
        i = int(np.searchsorted(at, before)) - 1
        if i < 0 or int(at[i]) <= after:
            return None
        return int(at[i])

    def earliest(self, site: int, after: int, before: int) -> int | None:
        """The first record of ``site`` in (after, before)."""
        at = self.positions(site)
        i = int(np.searchsorted(at, after, side="right"))
        if i >= at.size or int(at[i]) >= before:
            return None
        return int(at[i])

    def around(self, site: int, position: int) -> tuple[int, int]:
        """The records of ``site`` just before and just after ``position`` (-1 and the end
        where there is none)."""
        at = self.positions(site)
        i = int(np.searchsorted(at, position))
        before = int(at[i - 1]) if i > 0 else -1
        j = int(np.searchsorted(at, position, side="right"))
        after = int(at[j]) if j < at.size else self.site.size
        return before, after

    def anchor_of(self, site: int, occurrence: int) -> bool:
        return occurrence < self.positions(site).size

    def read(self, position: int) -> str:
        """The value a record holds, as its site's type reads."""
        return format_value(int(self.value[position]), self.types.get(int(self.site[position]), ""))

    def access_terms(self, number: int, site: int, occurrence: int) -> tuple[ExplainedTerm, ...]:
        a = self.static.accesses[number]
        at = self.positions(site)
        anchor = int(at[occurrence])
        previous = int(at[occurrence - 1]) if occurrence > 0 else -1
        window = (previous, anchor, False)
        return self.terms(ACCESS, number, a.terms, a.reaching, anchor, window, frozenset(), 0)

    def condition_terms(self, number: int, site: int, occurrence: int) -> tuple[ExplainedTerm, ...]:
        """The terms of condition ``number`` as they stood for the access recorded at the
        ``occurrence``-th record of ``site``: each variable's value the one its latest
        definition before the access stored (a loop counter: the pass's)."""
        c = self.static.condition(number)
        at = self.positions(site)
        anchor = int(at[occurrence])
        previous = int(at[occurrence - 1]) if occurrence > 0 else -1
        window = (previous, anchor, False)
        return self.terms(CONDITION, number, c.terms, c.reaching, anchor, window, frozenset(), 0)

    def terms(
        self,
        point: str,
        index: int,
        terms: tuple[Term, ...],
        reaching: tuple[tuple[str, tuple[int, ...]], ...],
        anchor: int,
        window: tuple[int, int, bool],
        path: frozenset[str],
        depth: int,
    ) -> tuple[ExplainedTerm, ...]:
        """The terms of a point whose record is at ``anchor``: each one's value from its
        record in ``window`` (after, before, and whether it comes after the anchor: the
        terms computed in a definition that records a marker before its value), each
        variable's definition the latest one before the anchor."""
        reach = dict(reaching)
        lo, hi, forward = window
        out = []
        for j, t in enumerate(terms):
            value = t.value
            site = self.term_site.get((point, index, j))
            if site is not None:
                if forward and not _wrapped(t):
                    # A definition without a value records the terms it evaluates again
                    # before its marker (``anchor``), those computed in place after it.
                    found = self.latest(site, anchor)
                elif forward:
                    found = self.earliest(site, lo, hi)
                else:
                    found = self.latest(site, hi, lo)
                if found is not None:
                    value = self.read(found)
            defs: tuple[ExplainedDefinition, ...] = ()
            if t.kind == READ_TERM:
                value, defs = self.read_term(t, window, path, depth)
            own_update = point == DEFINITION and j == 0 and self._is_update(index)
            if t.variable and t.variable not in path and not own_update and depth < MAX_DEPTH:
                candidates = _reaching(self.static, reach, t)
                defs = self.definitions(t.variable, candidates, anchor, path, depth)
            whole = len(defs) == 1 and (defs[0].kind != PART or bool(t.member))
            if not value and whole and defs[0].ran and defs[0].value:
                value = defs[0].value  # no record of its own: the value its definition stored
            out.append(ExplainedTerm(t.text, t.kind, value, defs, t.inside))
        return tuple(out)

    def _is_update(self, number: int) -> bool:
        return self.static.definition(number).kind == UPDATE

    def read_term(
        self, t: Term, window: tuple[int, int, bool], path: frozenset[str], depth: int
    ) -> tuple[str, tuple[ExplainedDefinition, ...]]:
        """A read of memory among the terms: the value its record in the window read (the
        value plane holds it), and that access with its own index's terms."""
        number = self.by_span.get((t.start, t.end))
        if number is None:
            return t.value, ()
        lo, hi, forward = window
        best: tuple[int, int] | None = None
        for s in self.sites_of_access.get(number, ()):
            found = self.earliest(s, lo, hi) if forward else self.latest(s, hi)
            better = best is None or (found is not None and (found < best[1]) == forward)
            if found is not None and better:
                best = (s, found)
        nested = self.static.accesses[number]
        if best is None:
            inner = _Static(self.static).terms(nested.terms, nested.reaching, path, depth + 1)
            return t.value, (_read(nested, inner),)
        site, position = best
        previous, _ = self.around(site, position)
        inner = self.terms(
            ACCESS,
            number,
            nested.terms,
            nested.reaching,
            position,
            (previous, position, False),
            path,
            depth + 1,
        )
        return self.read(position), (_read(nested, inner, ran=True),)

    def definitions(
        self,
        variable: str,
        candidates: tuple[int, ...],
        before: int,
        path: frozenset[str],
        depth: int,
    ) -> tuple[ExplainedDefinition, ...]:
        """The definition of ``variable`` among ``candidates`` that ran last before
        ``before`` (its value and its own terms), or, where none was recorded, every
        candidate as the static half knows it."""
        path = path | {variable}
        parts: dict[str, list[int]] = {}
        for c in candidates:
            parts.setdefault(self.static.definition(c).member, []).append(c)
        if len(parts) > 1 and "" not in parts:
            # The whole of a struct or vector stored member by member: each member's latest.
            found = [self._latest_definition(tuple(m), before) for m in parts.values()]
            ran_parts = sorted((p for p in found if p is not None), key=lambda p: p[1])
            if ran_parts:
                return tuple(self.ran(n, at, path, depth + 1) for n, at in ran_parts)
        ran = self._latest_definition(candidates, before)
        if ran is not None:
            number, position = ran
            return (self.ran(number, position, path, depth + 1),)
        arguments = [c for c in candidates if self.static.definition(c).kind == KERNEL_ARGUMENT]
        if arguments and len(arguments) == len(candidates):
            return tuple(_explained(self.static.definition(c), (), ran=True) for c in arguments)
        helpers = [c for c in candidates if self.static.definition(c).kind == HELPER_PARAMETER]
        for c in helpers:
            d = self.static.definition(c)
            through = self._latest_definition(d.sources, before)
            if through is not None:
                number, position = through
                passed = self.ran(number, position, path, depth + 1)
                term = ExplainedTerm(passed.value_text, "argument", passed.value, (passed,))
                return (_explained(d, (term,), passed.value, ran=True),)
        return _Static(self.static).definitions(candidates, path, depth)

    def _latest_definition(
        self, candidates: tuple[int, ...], before: int
    ) -> tuple[int, int] | None:
        best: tuple[int, int] | None = None
        for c in candidates:
            site = self.term_site.get((DEFINITION, c, -1))
            if site is None:
                continue
            found = self.latest(site, before)
            if found is not None and (best is None or found > best[1]):
                best = (c, found)
        return best

    def ran(
        self, number: int, position: int, path: frozenset[str], depth: int
    ) -> ExplainedDefinition:
        d = self.static.definition(number)
        value = self.read(position) if value_type(d.value_type) is not None else ""
        if d.post and value:
            value = _stepped(value, d.post)
        previous, following = self.around(self.term_site[(DEFINITION, number, -1)], position)
        if depth >= MAX_DEPTH:
            return _explained(d, (), value, ran=True, cut=bool(d.terms))
        # A definition with a value records it last; one without records a marker first.
        window = (previous, position, False) if value_type(d.value_type) else None
        terms = self.terms(
            DEFINITION,
            number,
            d.terms,
            d.reaching,
            position,
            window or (position, following, True),
            path,
            depth,
        )
        return _explained(d, terms, value, ran=True)


def _wrapped(t: Term) -> bool:
    """Whether an anatomy build records ``t`` where it is computed (a call or a macro with
    text of its own), not evaluated again in front (``AnatomyRewrite._wrappable``)."""
    return t.kind in (CALL, MACRO) and t.start >= 0 and not t.value and bool(t.value_type)


def _stepped(value: str, step: int) -> str:
    """The value after ``x++``/``x--`` from the value the expression had (the one before)."""
    try:
        return str(int(value) + step)
    except ValueError:
        try:
            return _number(float(value) + step)
        except ValueError:
            return value


def format_value(bits: int, vtype: str) -> str:
    """The value of raw plane bits as a number of the OpenCL type ``vtype`` (a vector: its
    first component)."""
    base = re.sub(r"\d+$", "", vtype)
    if base not in _VALUE_DTYPES:
        return str(bits)
    size, dtype = _VALUE_DTYPES[base]
    raw = np.array([bits & ((1 << (8 * size)) - 1)], dtype=np.dtype(f"u{size}"))
    number = raw.view(dtype)[0]
    if np.issubdtype(dtype, np.floating):
        return _number(float(number))
    return str(int(number))


def _number(value: float) -> str:
    return repr(value) if value != int(value) or abs(value) >= 1e16 else str(int(value))


# -- made from an anatomy build's trace ---------------------------------------------------


def recorded_anatomy(build: AnatomyBuild, trace: Trace) -> TraceAnatomy:
    """The anatomy with the values an anatomy build's ``trace`` recorded: only the records of
    its anatomy sites and of the accesses it explains are kept."""
    static = build.static
    wanted = {s.site for s in build.sites}
    sites_of = dict(build.access_sites)
    by_span = {(a.start, a.end): n for n, a in enumerate(static.accesses)}
    points = {s.index for s in build.sites if s.point == ACCESS}
    points |= {n for n, a in enumerate(static.accesses) if a.line in build.lines}
    explained = set(points)
    for n in points:
        for t in static.accesses[n].terms:
            if t.kind == READ_TERM and (t.start, t.end) in by_span:
                explained.add(by_span[(t.start, t.end)])
    for s in build.sites:
        if s.point == DEFINITION:
            for t in static.definition(s.index).terms:
                if t.kind == READ_TERM and (t.start, t.end) in by_span:
                    explained.add(by_span[(t.start, t.end)])
    for n in explained:
        wanted.update(sites_of.get(n, ()))
    keep = np.flatnonzero(np.isin(trace.site, np.array(sorted(wanted), dtype=np.int32)))
    wi = trace.wi[keep]
    counts = np.bincount(wi, minlength=trace.kept.size)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    raw = (
        trace.values[keep].astype(np.uint64)
        if trace.values is not None
        else np.zeros(keep.size, dtype=np.uint64)
    )
    types = tuple(
        (s.id, s.value_type)
        for s in trace.sites
        if s.id in wanted and s.value != VALUE_NONE and s.value_type
    )
    values = AnatomyValues(
        np.asarray(trace.wi_group, dtype=np.int32),
        np.asarray(trace.wi_local, dtype=np.int32),
        starts,
        trace.site[keep].astype(np.int32),
        raw,
        types,
    )
    return TraceAnatomy(static, build.lines, build.sites, build.access_sites, values)


def lines_up(build_sites: tuple[Any, ...], plain_sites: tuple[Any, ...]) -> bool:
    """Whether the access sites of an anatomy build's trace are the plain trace's
    (``Trace.sites``), number for number (the anatomy's own come after them, and after the
    site of stored vectors' parts, which a plain trace without values lacks)."""
    mine = [(s.line, s.op, s.text) for s in build_sites if s.role not in (ROLE_ANATOMY, ROLE_PARTS)]
    theirs = [(s.line, s.op, s.text) for s in plain_sites if s.role != ROLE_PARTS]
    return mine == theirs
