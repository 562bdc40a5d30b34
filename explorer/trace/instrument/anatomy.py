"""The rewrite that records index anatomy's values, for the lines asked about only.

The static half (``explorer.frontend.anatomy``) says what each access's address is made of and
which definitions can reach it. This build records, besides every access (and its value), at
each access of the lines asked about the value of each of its terms just before the address
is computed, and at each definition in the chains behind them the value it stored (and the
values of its own terms). A build without lines asked is the plain one: the normal trace pays
nothing for anatomy.

How: the terms that can be evaluated again at no cost (a variable, a work-item function) go
in front of the first index as a comma expression, ``A[(__tr_a_int(__tr_ptr, 40u, (row)),
..., row * K + kA)]``; a call or a macro is wrapped where it is computed; a definition's value
is its expression wrapped, ``int col = (... , __tr_a_int(__tr_ptr, 44u, get_group_id(0) * TS
+ tx))``. Each ``__tr_a_<type>`` makes a record of its own (a FENCE-like record of site role
``anatomy``, no memory) holding the value in the value plane, and returns the value unchanged.
The sites of the accesses themselves keep their numbers (anatomy's sites come after them), so
the records of a plain trace of the same kernel line up with this build's, work-item by
work-item and occurrence by occurrence (``explorer.trace.anatomy``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from explorer.frontend.anatomy import (
    ARGUMENT,
    ASSIGNMENT,
    CALL,
    DECLARATION,
    MACRO,
    PART,
    READ,
    UPDATE,
    KernelAnatomy,
    Term,
)
from explorer.trace.instrument.declared import Declared
from explorer.trace.instrument.edits import Edit, Edits
from explorer.trace.instrument.model import ACCESS, DEFINITION, AnatomyBuild, AnatomySite
from explorer.trace.instrument.values import ValueType, value_type
from explorer.trace.recorded import FENCE, NO_BUFFER, NO_SPACE, ROLE_ANATOMY, VALUE_WRITTEN

WRAPPED = (DECLARATION, ASSIGNMENT, UPDATE, PART, ARGUMENT)
MAX_DEFINITIONS = 200  # the chains behind a few lines; a kernel has far fewer
# What a definition whose value no number holds (a pointer, a struct) records: a marker.
MARKER = ValueType("uint", "unsigned int", 1)


def access_sites(
    static: KernelAnatomy, declared: Declared
) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The sites that record each access of ``static`` (those the rewrite recorded)."""
    out = []
    for number, a in enumerate(static.accesses):
        sites = declared.access_sites.get((a.start, a.end))
        if sites:
            out.append((number, tuple(sites)))
    return tuple(out)


class AnatomyRewrite:
    """Adds the recording of anatomy's values to one rewrite (after every other site is
    declared, so the accesses' sites keep their numbers)."""

    def __init__(
        self, static: KernelAnatomy, lines: tuple[int, ...], declared: Declared, edits: Edits
    ) -> None:
        self.static = static
        self.lines = lines
        self.declared = declared
        self.edits = edits
        self.sites: list[AnatomySite] = []
        self.types: list[ValueType] = []

    def build(self) -> AnatomyBuild:
        static = self.static
        recorded = dict(access_sites(static, self.declared))
        points, chain = self._points(recorded)
        for n in points:
            a = static.accesses[n]
            wrapped = self._wrappable(a.terms)
            codes = self._evaluated(a.terms, a.line, ACCESS, n, wrapped)
            if codes and a.prefix_start >= 0:
                self._add(a.prefix_start, a.prefix_end, _in_front(codes, self.edits))
            self._wrap_terms(a.terms, a.line, ACCESS, n, wrapped)
        for number in chain:
            d = static.definition(number)
            if d.kind not in WRAPPED or d.start < 0:
                continue
            wrapped = self._wrappable(d.terms)
            codes = self._evaluated(d.terms, d.line, DEFINITION, number, wrapped)
            vtype = value_type(d.value_type) if d.value_type else None
            text = f"{d.name} ({d.text})"
            # The definition's edit goes around its terms' own: its record, the anchor its
            # terms are read back from, comes after theirs.
            if vtype is not None:
                sid = self._site(d.line, text, vtype, DEFINITION, number, -1)
                codes.append(f"__tr_a_{vtype.name}(__tr_ptr, {sid}u, ")
                self._add(d.start, d.end, _in_front(codes, self.edits, closing=")"))
            else:  # a pointer or a struct: a marker after its terms, before its value
                sid = self._site(d.line, text, MARKER, DEFINITION, number, -1)
                codes.append(f"__tr_a_{MARKER.name}(__tr_ptr, {sid}u, 0u), ")
                self._add(d.start, d.end, _in_front(codes, self.edits))
            self._wrap_terms(d.terms, d.line, DEFINITION, number, wrapped)
        return AnatomyBuild(static, self.lines, tuple(self.sites), tuple(sorted(recorded.items())))

    def _points(self, recorded: dict[int, tuple[int, ...]]) -> tuple[list[int], tuple[int, ...]]:
        """The accesses whose terms are recorded (those of the lines asked, and the reads of
        memory among the terms behind them) and the definitions in their chains."""
        static = self.static
        by_span = {(a.start, a.end): n for n, a in enumerate(static.accesses)}
        points = [n for n, a in enumerate(static.accesses) if a.line in self.lines]
        chain: tuple[int, ...] = ()
        while True:
            roots: list[int] = []
            for n in points:
                for _, ids in static.accesses[n].reaching:
                    roots.extend(ids)
                roots.extend(static.condition_roots(static.accesses[n]))
            chain = static.chain_definitions(tuple(dict.fromkeys(roots)), MAX_DEFINITIONS)
            terms = [t for n in points for t in static.accesses[n].terms]
            terms += [t for d in chain for t in static.definition(d).terms]
            reads = [by_span.get((t.start, t.end)) for t in terms if t.kind == READ]
            more = [n for n in dict.fromkeys(reads) if n is not None and n not in points]
            if not more:
                return [n for n in points if n in recorded], chain
            points.extend(more)

    def _site(
        self, line: int, text: str, vtype: ValueType, point: str, index: int, term: int
    ) -> int:
        declared = self.declared
        sid = declared.site(line, FENCE, NO_SPACE, NO_BUFFER, text, role=ROLE_ANATOMY)
        declared.sites[sid] = replace(
            declared.sites[sid], value=VALUE_WRITTEN, value_type=vtype.name
        )
        self.types.append(vtype)
        self.sites.append(AnatomySite(sid, point, index, term))
        return sid

    def _evaluated(
        self, terms: tuple[Term, ...], line: int, point: str, index: int, wrapped: set[int]
    ) -> list[str]:
        """The calls that record the terms that can be evaluated again where they are used."""
        codes = []
        for j, term in enumerate(terms):
            if j in wrapped or not term.evaluate or term.value:
                continue
            vtype = value_type(term.value_type) if term.value_type else None
            if vtype is None:
                continue
            sid = self._site(line, term.text, vtype, point, index, j)
            codes.append(f"__tr_a_{vtype.name}(__tr_ptr, {sid}u, ({term.evaluate})), ")
        return codes

    @staticmethod
    def _wrappable(terms: tuple[Term, ...]) -> set[int]:
        """The terms recorded where they are computed (a call evaluated again would run
        twice; a macro may hold one): calls and macros with text of their own."""
        return {
            j
            for j, term in enumerate(terms)
            if term.kind in (CALL, MACRO)
            and term.start >= 0
            and not term.value
            and bool(term.value_type)
            and value_type(term.value_type) is not None
        }

    def _wrap_terms(
        self, terms: tuple[Term, ...], line: int, point: str, index: int, wrapped: set[int]
    ) -> None:
        """Wrap the text of the ``wrapped`` terms to record each value as it is computed."""
        for j in sorted(wrapped):
            term = terms[j]
            vtype = value_type(term.value_type)
            assert vtype is not None
            sid = self._site(line, term.text, vtype, point, index, j)
            code = f"__tr_a_{vtype.name}(__tr_ptr, {sid}u, "
            self._add(term.start, term.end, _in_front([code], self.edits, ")"))

    def _add(self, start: int, end: int, emit: Callable[[Edit], str]) -> None:
        self.edits.add(start, end, emit, outer=True)


def _in_front(codes: list[str], edits: Edits, closing: str = "") -> Callable[[Edit], str]:
    """An edit that puts ``codes`` before the stretch's own text (as rewritten), inside
    parentheses, and ``closing`` after it."""
    head = "".join(codes)

    def emit(edit: Edit) -> str:
        return f"({head}{edits.inner(edit)}{closing})"

    return emit
