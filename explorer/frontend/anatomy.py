"""Index anatomy, its static half: what every memory access's address is made of, and where
each part comes from.

For each access the front end found (``ParsedSource.accesses``), the *terms* of its index
expression (or of the pointer it goes through): the kernel's variables and arguments, the
work-item built-ins (``get_local_id(1)``), the macros (``TS``, with their value when it is a
constant), the reads of memory among them (``rows[i]``) and the calls of the source's own
functions. For every variable among the terms, the *definitions* that can reach the access:
the declarations, assignments and updates of that variable after which no other definition of
it must run before the access (a structured reaching-definitions pass over clang's tree:
straight-line code, ``if``/``else``, ``switch``, loops with their back edges, ``break`` and
``continue``). Each definition has terms of its own, and the definitions reaching it, so the
chain goes back to the kernel's arguments and the built-ins: ``col`` ← ``get_group_id(0) * TS
+ tx`` at line 36 ← ``tx`` ← ``get_local_id(1)`` at line 34. A helper's parameter is defined
by the argument of each call of it.

Where several definitions reach (a loop counter: its start and its ``++``), all are listed;
which of them ran is what the recorded values tell (``explorer.trace.anatomy``).

Besides its address, an access has the *conditions* it runs under: the ``if`` whose branch
holds it (or whose ``else`` does), each loop around it (its condition held for the pass that
made the access), and each earlier ``if`` whose taken branch leaves the block (``if (row >=
M) return;``: past it, the condition was false). A loop bound or a guard makes no access of
its own, but it decides which accesses run: ``for (k = 0; k <= K; k++)`` is where ``A[row *
K + k]`` one past the row comes from. The conditions have terms and reaching definitions as
definitions do. What the pass
does not follow: a variable changed through a pointer to it (``&x`` passed to a function), and
``goto``. Spans are offsets into the text parsed, as the access sites' are, and ``start`` is
-1 where a term has no text of its own there (a part of a macro's expansion). No Qt, no
pyopencl.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import clang.cindex as ci  # type: ignore[import-untyped]  # the wheel ships no type information

from explorer.frontend import clang_bridge
from explorer.frontend.model import AccessSite, ParsedSource
from explorer.frontend.parser import (
    ARRAY_KINDS,
    VECTOR_KINDS,
    AddressSpace,
    _canonical_kind,
    _is_pointerish,
    _is_vector_select,
    _Macro,
    _Node,
    _Positions,
    _raw,
    _space,
    _type_name,
)

K = ci.CursorKind
T = ci.TypeKind

# Term kinds.
VARIABLE = "variable"  # a private scalar (or a member or component of one) of the function
PARAMETER = "parameter"  # a by-value parameter of the function (a kernel's: its argument)
POINTER = "pointer"  # a private pointer variable the address goes through
BUILTIN = "builtin"  # a work-item function such as get_local_id(1)
MACRO = "macro"  # a macro written in the index (its value, when it is a constant)
CONSTANT = "constant"  # an enumerator or a `const` known at compile time
READ = "read"  # a read of memory (another access site) whose value is part of the index
CALL = "call"  # a call of a function the source defines
EFFECT = "side-effect"  # an assignment or ++ inside the index: its value is not recorded

# Condition kinds: how a condition governs the accesses it holds.
HELD = "if"  # in the branch an ``if`` takes where its condition holds
FAILED = "else"  # in its ``else`` branch
LOOP = "loop"  # in a loop's body: the condition held for the pass
PASSED = "past"  # after ``if (c) return;`` (or break, continue): c was false to get there

# Definition kinds.
DECLARATION = "declaration"  # int col = ...;
ASSIGNMENT = "assignment"  # col = ...;
UPDATE = "update"  # t++, acc += x: reads the variable's previous value
PART = "part"  # p.x = ..., v.y = ...: one member or component; the others are kept
ARGUMENT = "argument"  # a helper's parameter, given by a call's argument
HELPER_PARAMETER = "helper-parameter"  # a helper's parameter: the arguments of its calls
KERNEL_ARGUMENT = "kernel-argument"  # a kernel's parameter: set by the host

# The work-item functions: no side effect, the same value wherever evaluated in a work-item.
WORK_ITEM_FUNCTIONS = frozenset(
    {
        "get_global_id",
        "get_local_id",
        "get_group_id",
        "get_global_size",
        "get_local_size",
        "get_num_groups",
        "get_global_offset",
        "get_work_dim",
        "get_enqueued_local_size",
        "get_global_linear_id",
        "get_local_linear_id",
        "get_sub_group_id",
        "get_sub_group_local_id",
        "get_sub_group_size",
    }
)
MAX_LOOP_PASSES = 12  # a loop's entry state only grows; this is far more than a kernel needs
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Term:
    """One part of an index expression (or of a definition's value).

    ``evaluate`` is the text that gives its value again where it is used, when doing so
    has no effect (a variable, a work-item function): "" otherwise. ``start``/``end`` are its
    own text in the parsed source where it has one (-1 inside a macro's expansion), which a
    rewrite may wrap to record its value as it is computed (a call, a macro). ``value`` is a
    value known without running (a constant macro's), ``value_type`` the OpenCL type of the
    value (``int``, ``unsigned long``, ``float``; "" where no number can hold it), and
    ``variable`` the key of the variable it reads (:attr:`Definition.variable`). A ``read``
    names its access site by ``start``/``end`` (``AccessSite.span``). ``inside``: the macro it
    was written in.
    """

    text: str
    kind: str
    variable: str = ""
    evaluate: str = ""
    value: str = ""
    value_type: str = ""
    start: int = -1
    end: int = -1
    inside: str = ""
    member: str = ""  # the member or components of the variable it reads (``.row``, ``.x``)


@dataclass(frozen=True)
class Definition:
    """A place where a variable gets its value.

    ``variable`` is the variable's key (its name and where it is declared), ``name`` as
    written. ``text`` is the definition as written (``col = get_group_id(0) * TS + tx``) and
    ``value_text`` the expression whose value it stores (``get_group_id(0) * TS + tx``;
    ``t++`` for an update). ``terms`` are that expression's terms and ``reaching`` the
    definitions that reach it, per variable key. A helper's parameter (``helper-parameter``)
    has ``sources``: the ``argument`` definitions of its calls. ``start``/``end`` is the
    expression whose value is the variable's after it (the initialiser, the whole assignment,
    the argument; -1 where none can be wrapped), ``post`` +1 or -1 for ``x++``/``x--`` (the
    expression's value is the one before), ``value_type`` the variable's type.
    """

    id: int
    variable: str
    name: str
    function: str
    line: int
    kind: str
    text: str
    value_text: str
    terms: tuple[Term, ...] = ()
    reaching: tuple[tuple[str, tuple[int, ...]], ...] = ()
    sources: tuple[int, ...] = ()
    start: int = -1
    end: int = -1
    post: int = 0
    value_type: str = ""
    member: str = ""  # a ``part``: the member or components it stores (``.row``, ``.x``)

    def defines(self, member: str) -> bool:
        """Whether it can give the value of the variable's ``member`` ("" the whole)."""
        return not self.member or not member or _nested(self.member, member)


def _nested(a: str, b: str) -> bool:
    """Whether one member path holds the other (``.pos`` and ``.pos.row``)."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


@dataclass(frozen=True)
class Condition:
    """A condition that decides whether the accesses it governs run: ``kind`` says how
    (``if``, ``else``, ``loop``, ``past``), ``text`` is the condition as written, ``line``
    the user's line where it starts; its ``terms`` and the definitions ``reaching`` them
    as a definition's."""

    id: int
    function: str
    line: int
    kind: str
    text: str
    terms: tuple[Term, ...] = ()
    reaching: tuple[tuple[str, tuple[int, ...]], ...] = ()
    start: int = -1
    end: int = -1


@dataclass(frozen=True)
class AccessAnatomy:
    """The terms of one access's address and the definitions of its variables that reach it.

    ``start``/``end`` are the access's span (``AccessSite.span``); ``index`` the index
    expressions (or pointer) as written, in order; ``prefix_start``/``prefix_end`` the first
    of them, where a rewrite can evaluate the terms just before the address is computed
    (-1: none, such as a ``__local`` scalar). ``conditions``: the conditions it runs under
    (:attr:`KernelAnatomy.conditions`), the outermost first.
    """

    function: str
    line: int
    start: int
    end: int
    text: str
    index: tuple[str, ...]
    terms: tuple[Term, ...]
    reaching: tuple[tuple[str, tuple[int, ...]], ...]
    prefix_start: int = -1
    prefix_end: int = -1
    conditions: tuple[int, ...] = ()

    def definitions_of(self, variable: str) -> tuple[int, ...]:
        """The ids of the definitions of ``variable`` that reach the access."""
        return dict(self.reaching).get(variable, ())


@dataclass(frozen=True)
class KernelAnatomy:
    """The anatomy of every access of a source's functions, and every definition they name."""

    accesses: tuple[AccessAnatomy, ...]
    definitions: tuple[Definition, ...]
    conditions: tuple[Condition, ...] = ()

    def definition(self, number: int) -> Definition:
        return self.definitions[number]

    def condition(self, number: int) -> Condition:
        return self.conditions[number]

    def access_at(self, start: int, end: int) -> AccessAnatomy | None:
        """The access written at [start, end) (a ``read`` term's span)."""
        for a in self.accesses:
            if (a.start, a.end) == (start, end):
                return a
        return None

    def at_line(self, line: int) -> tuple[AccessAnatomy, ...]:
        """The accesses written at ``line`` of the user's file."""
        return tuple(a for a in self.accesses if a.line == line)

    def of_site(self, line: int, text: str) -> AccessAnatomy | None:
        """The access at ``line`` written as ``text`` (a trace site's text: spaces folded)."""
        wanted = _SPACES.sub(" ", text).strip()
        for a in self.accesses:
            if a.line == line and _SPACES.sub(" ", a.text).strip() == wanted:
                return a
        return None

    def condition_roots(self, access: AccessAnatomy) -> tuple[int, ...]:
        """The definitions that reach the terms of the conditions ``access`` runs under."""
        out: list[int] = []
        for c in access.conditions:
            for _, ids in self.conditions[c].reaching:
                out.extend(ids)
        return tuple(dict.fromkeys(out))

    def chain_definitions(self, roots: tuple[int, ...], limit: int = 400) -> tuple[int, ...]:
        """Every definition reachable from ``roots`` through terms and sources, ``roots``
        first (at most ``limit``)."""
        seen: dict[int, None] = {}
        todo = list(roots)
        while todo and len(seen) < limit:
            number = todo.pop(0)
            if number in seen:
                continue
            seen[number] = None
            d = self.definitions[number]
            todo.extend(d.sources)
            for _, ids in d.reaching:
                todo.extend(ids)
        return tuple(seen)


def analyse(
    parsed: ParsedSource,
    defines: dict[str, int | str],
    filename: str,
    *,
    cl_std: str = "CL1.2",
    include_dirs: tuple[str, ...] = (),
) -> KernelAnatomy:
    """The anatomy of every access of ``parsed`` (the result of ``parse`` or
    ``parse_expanded`` of that source), from a parse of the same text with the same
    ``defines`` (``{}`` for an expanded text). Lines are the user's (``parsed.line_map``)."""
    unit = clang_bridge.parse_unit(parsed.source, filename, defines, cl_std, include_dirs)
    positions = _Positions(parsed.source)
    own: list[Any] = []
    for c in unit.cursor.get_children():
        where = c.location.file
        if where and where.name == filename and c.kind in (K.MACRO_INSTANTIATION, K.FUNCTION_DECL):
            own.append(c)
    macros = [
        _Macro(
            positions.char(c.extent.start.offset), positions.char(c.extent.end.offset), c.spelling
        )
        for c in own
        if c.kind == K.MACRO_INSTANTIATION
    ]
    anatomist = _Anatomist(parsed, positions, macros)
    functions = [c for c in own if c.kind == K.FUNCTION_DECL and c.is_definition()]
    anatomist.own_functions = {str(c.spelling) for c in functions}
    for c in functions:
        anatomist.function(c)
    return anatomist.result()


# -- the pass ------------------------------------------------------------------------------

State = dict[str, frozenset[int]]


def _merge(a: State | None, b: State | None) -> State | None:
    """The state where two paths meet: every definition either brings."""
    if a is None:
        return None if b is None else dict(b)
    if b is None:
        return dict(a)
    out = dict(a)
    for key, defs in b.items():
        out[key] = out.get(key, frozenset()) | defs
    return out


@dataclass
class _Loop:
    breaks: list[State] = field(default_factory=list)
    continues: list[State] = field(default_factory=list)
    switch: bool = False  # a switch: `break` leaves it, `continue` goes to the loop around


@dataclass
class _Building:
    """A definition while the pass runs: its reaching sets grow with each loop pass."""

    record: Definition
    reaching: dict[str, set[int]] = field(default_factory=dict)
    sources: list[int] = field(default_factory=list)


@dataclass
class _Guard:
    """A condition while the pass runs: its reaching sets grow with each loop pass."""

    record: Condition
    reaching: dict[str, set[int]] = field(default_factory=dict)


@dataclass
class _Seen:
    """An access while the pass runs."""

    record: AccessAnatomy
    reaching: dict[str, set[int]] = field(default_factory=dict)


class _Anatomist:
    """Walks each function once in execution order, carrying the reaching definitions."""

    def __init__(self, parsed: ParsedSource, positions: _Positions, macros: list[_Macro]) -> None:
        self.parsed = parsed
        self.source = parsed.source
        self.positions = positions
        self.macros = macros
        self.macro_spans = {(m.start, m.end): m for m in macros}
        self.own_functions: set[str] = set()
        self.function_name = ""
        self.defs: list[_Building] = []
        self.def_at: dict[tuple[str, int, int, str], int] = {}
        self.seen: dict[tuple[int, int], _Seen] = {}
        self.sites: dict[tuple[int, int], AccessSite] = {}
        self.params: dict[str, int] = {}  # key of a helper's parameter -> its definition
        self.param_keys: dict[tuple[str, int], str] = {}  # (function, index) -> key
        self.loops: list[_Loop] = []
        self.switch_entry: list[State | None] = []
        self.pending_sources: list[tuple[str, int]] = []  # (helper parameter, argument)
        self.in_kernel = True  # walking a kernel (its pointer parameters are buffers)
        self.guards: list[_Guard] = []
        self.guard_at: dict[tuple[str, int, int, str], int] = {}
        self.active: list[int] = []  # the conditions the walk is under, the outermost first
        self.switch_depth: list[int] = []  # len(active) where each switch around began

    # -- results --------------------------------------------------------------------------
    def result(self) -> KernelAnatomy:
        for key, number in self.pending_sources:
            if key in self.params:
                self.defs[self.params[key]].sources.append(number)
        definitions = []
        for b in self.defs:
            reaching = tuple((k, tuple(sorted(v))) for k, v in b.reaching.items())
            sources = tuple(dict.fromkeys(b.sources))
            definitions.append(replace(b.record, reaching=reaching, sources=sources))
        accesses: dict[tuple[int, int], AccessAnatomy] = {}
        for a in self.parsed.accesses:
            span = (a.span.start, a.span.end)
            seen = self.seen.get(span)
            if seen is None or span in accesses:
                continue
            reaching = tuple((k, tuple(sorted(v))) for k, v in seen.reaching.items())
            accesses[span] = replace(seen.record, reaching=reaching)
        conditions = tuple(
            replace(g.record, reaching=tuple((k, tuple(sorted(v))) for k, v in g.reaching.items()))
            for g in self.guards
        )
        return KernelAnatomy(tuple(accesses.values()), tuple(definitions), conditions)

    # -- positions ------------------------------------------------------------------------
    def span(self, node: Any) -> tuple[int, int, bool]:
        """The node's stretch of text, widened to a macro invocation it is part of (as the
        parser widens access sites), and whether it was widened."""
        start = self.positions.char(node.extent.start.offset)
        end = self.positions.char(node.extent.end.offset)
        widened = False
        for m in self.macros:
            if m.start <= start < m.end or m.start <= end < m.end:
                start, end = min(start, m.start), max(end, m.end)
                widened = True
        return start, end, widened

    def whole(self, start: int, end: int, widened: bool) -> bool:
        """Whether a whole expression (an initialiser, an argument, an index) at [start, end)
        is text of its own a rewrite can wrap: not part of a macro's expansion (a macro
        invocation that is the whole expression is)."""
        return not widened or (start, end) in self.macro_spans

    def line(self, offset: int) -> int:
        line = self.positions.line_column(offset)[0]
        lines = self.parsed.line_map
        return lines[line - 1] if lines and 0 < line <= len(lines) else line

    def text(self, start: int, end: int) -> str:
        return _SPACES.sub(" ", self.source[start:end]).strip()

    def node_text(self, node: Any) -> str:
        start, end, _ = self.span(node)
        return self.text(start, end)

    # -- functions ------------------------------------------------------------------------
    def function(self, c: Any) -> None:
        self.function_name = str(c.spelling)
        kernel = any(
            t.spelling in ("__kernel", "kernel")
            for t in c.translation_unit.get_tokens(
                extent=ci.SourceRange.from_locations(c.extent.start, c.location)
            )
        )
        self.in_kernel = kernel
        state: State = {}
        for index, p in enumerate(c.get_arguments()):
            key = _key(p)
            name = str(p.spelling)
            self.param_keys[(self.function_name, index)] = key
            line = self.line(self.positions.char(p.location.offset))
            kind = KERNEL_ARGUMENT if kernel else HELPER_PARAMETER
            what = "an argument of the kernel" if kernel else f"a parameter of {c.spelling}()"
            number = self.define(
                Definition(
                    id=0,
                    variable=key,
                    name=name,
                    function=self.function_name,
                    line=line,
                    kind=kind,
                    text=f"{name}: {what}",
                    value_text=name,
                    value_type=_value_type(p.type),
                ),
                (p.location.offset, p.location.offset, "param"),
                {},
            )
            state[key] = frozenset({number})
            if not kernel:
                self.params[key] = number
        self.sites = {
            (a.span.start, a.span.end): a
            for a in self.parsed.accesses
            if a.function == self.function_name
        }
        body = next((_Node(k) for k in c.get_children() if k.kind == K.COMPOUND_STMT), None)
        if body is not None:
            self.loops, self.switch_entry, self.switch_depth, self.active = [], [], [], []
            self.stmt(body, state)

    def define(self, record: Definition, where: tuple[int, int, str], state: State | None) -> int:
        """The definition at ``where`` (made once; each pass adds what reaches it)."""
        key = (self.function_name, *where)
        number = self.def_at.get(key)
        if number is None:
            number = len(self.defs)
            self.def_at[key] = number
            self.defs.append(_Building(replace(record, id=number)))
        building = self.defs[number]
        for term in building.record.terms:
            if term.variable and state is not None:
                reached = building.reaching.setdefault(term.variable, set())
                reached.update(state.get(term.variable, frozenset()))
        return number

    # -- statements -----------------------------------------------------------------------
    def stmt(self, node: Any, state: State | None) -> State | None:
        kind = node.kind
        kids = node.kids
        if state is None and kind not in (K.CASE_STMT, K.DEFAULT_STMT, K.LABEL_STMT):
            # Unreachable as written (after a break or return): walked for its accesses all
            # the same, as if reached with nothing known.
            state = {}
        if kind == K.COMPOUND_STMT:
            depth = len(self.active)
            for k in kids:
                state = self.stmt(k, state)
            del self.active[depth:]  # a ``past`` condition holds to the end of its block
            return state
        if kind == K.DECL_STMT:
            for decl in kids:
                if decl.kind == K.VAR_DECL:
                    state = self.declaration(decl, state)
            return state
        if kind == K.IF_STMT:
            if len(kids) < 2:
                return self.expr(kids[0], state) if kids else state
            state = self.expr(kids[0], state)
            then = self.under(kids[0], HELD, state, kids[1])
            other = self.under(kids[0], FAILED, state, kids[2]) if len(kids) > 2 else state
            if then is None and other is not None:
                # ``if (c) return;``: what follows in the block runs only where c was false.
                self.active.append(self.condition(kids[0], PASSED, state))
            elif other is None and then is not None:
                self.active.append(self.condition(kids[0], HELD, state))
            return _merge(then, other)
        if kind in (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT):
            return self.loop(node, state)
        if kind == K.SWITCH_STMT:
            state = self.expr(kids[0], state) if kids else state
            self.loops.append(_Loop(switch=True))
            self.switch_entry.append(state)
            self.switch_depth.append(len(self.active))
            out = self.scoped(kids[-1], None) if len(kids) > 1 else state
            self.switch_depth.pop()
            self.switch_entry.pop()
            loop = self.loops.pop()
            for s in loop.breaks:
                out = _merge(out, s)
            has_default = any(n.kind == K.DEFAULT_STMT for n in node.walk())
            return out if has_default else _merge(out, state)
        if kind in (K.CASE_STMT, K.DEFAULT_STMT):
            entry = self.switch_entry[-1] if self.switch_entry else {}
            state = _merge(state, entry)
            if self.switch_depth:  # a case is entered from the switch: no earlier case's exits
                del self.active[self.switch_depth[-1] :]
            return self.stmt(kids[-1], state) if kids else state
        if kind == K.BREAK_STMT:
            if self.loops and state is not None:
                self.loops[-1].breaks.append(state)
            return None
        if kind == K.CONTINUE_STMT:
            around = next((x for x in reversed(self.loops) if not x.switch), None)
            if around is not None and state is not None:
                around.continues.append(state)
            return None
        if kind == K.RETURN_STMT:
            for k in kids:
                state = self.expr(k, state)
            return None
        if kind == K.LABEL_STMT:
            return self.stmt(kids[-1], state or {}) if kids else state
        if kind.is_expression():
            return self.expr(node, state)
        for k in kids:
            state = self.stmt(k, state) if k.kind.is_statement() else self.expr(k, state)
        return state

    def declaration(self, decl: Any, state: State | None) -> State | None:
        t = decl.type
        key = _key(decl)
        if not _private_variable(t):
            for k in decl.kids:
                if k.kind.is_expression():
                    state = self.expr(k, state)
            return state
        inits = [k for k in decl.kids if k.kind.is_expression()]
        if not inits:
            out = dict(state or {})
            out[key] = frozenset()
            return out
        value = inits[-1]
        state = self.expr(value, state)
        start, end, widened = self.span(value)
        name = str(decl.spelling)
        value_text = self.text(start, end)
        stripped = _strip_all(value)
        wrappable = self.whole(start, end, widened) and stripped.kind != K.INIT_LIST_EXPR
        number = self.define(
            Definition(
                id=0,
                variable=key,
                name=name,
                function=self.function_name,
                line=self.line(start),
                kind=DECLARATION,
                text=f"{name} = {value_text}",
                value_text=value_text,
                terms=self.terms(value),
                start=start if wrappable else -1,
                end=end if wrappable else -1,
                value_type=_value_type(t) or ("pointer" if _canonical_kind(t) == T.POINTER else ""),
            ),
            (start, end, key),
            state,
        )
        out = dict(state or {})
        out[key] = frozenset({number})
        return out

    def loop(self, node: Any, state: State | None) -> State | None:
        """A loop: its entry state is what comes in merged with what each pass brings back,
        walked again until it stops growing."""
        kind = node.kind
        kids = node.kids
        init = cond = inc = None
        body = kids[-1] if kids else None
        if kind == K.FOR_STMT:
            init, cond, inc = self.for_header(node)
        elif kind == K.WHILE_STMT and len(kids) == 2:
            cond = kids[0]
        elif kind == K.DO_STMT and len(kids) == 2:
            body, cond = kids[0], kids[1]
        if init is not None:
            state = self.stmt(init, state) if init.kind.is_statement() else self.expr(init, state)
        entry = state
        exit_state: State | None = None
        for _ in range(MAX_LOOP_PASSES):
            self.loops.append(_Loop())
            current = entry
            if kind != K.DO_STMT and cond is not None:
                current = self.expr(cond, current)
                exit_state = current
            # A do-while's condition is known after the body: its first pass runs regardless,
            # so it governs none of the body's accesses here.
            after = current
            if body is not None and cond is not None and kind != K.DO_STMT:
                after = self.under(cond, LOOP, current, body)
            elif body is not None:
                after = self.scoped(body, current)
            loop = self.loops.pop()
            for s in loop.continues:
                after = _merge(after, s)
            if kind == K.DO_STMT and cond is not None:
                after = self.expr(cond, after)
                exit_state = after
            if inc is not None:
                after = self.expr(inc, after)
            for s in loop.breaks:
                exit_state = _merge(exit_state, s)
            grown = _merge(entry, after)
            if grown == entry:
                break
            entry = grown
        return exit_state  # where the condition fails, and its breaks (for (;;): only those)

    def under(self, cond: Any, kind: str, state: State | None, body: Any) -> State | None:
        """Walk ``body`` under the condition ``cond`` (``kind``: how it governs it)."""
        number = self.condition(cond, kind, state)
        depth = len(self.active)
        self.active.append(number)
        try:
            return self.stmt(body, state)
        finally:
            del self.active[depth:]

    def scoped(self, body: Any, state: State | None) -> State | None:
        """Walk ``body``; the conditions it adds end with it."""
        depth = len(self.active)
        try:
            return self.stmt(body, state)
        finally:
            del self.active[depth:]

    def condition(self, node: Any, kind: str, state: State | None) -> int:
        """The condition ``node`` governing as ``kind`` (made once; each pass adds what
        reaches its terms)."""
        start, end, _ = self.span(node)
        key = (self.function_name, start, end, kind)
        number = self.guard_at.get(key)
        if number is None:
            number = len(self.guards)
            self.guard_at[key] = number
            record = Condition(
                id=number,
                function=self.function_name,
                line=self.line(start),
                kind=kind,
                text=self.text(start, end),
                terms=self.terms(node),
                start=start,
                end=end,
            )
            self.guards.append(_Guard(record))
        guard = self.guards[number]
        for term in guard.record.terms:
            if term.variable and state is not None:
                guard.reaching.setdefault(term.variable, set()).update(
                    state.get(term.variable, frozenset())
                )
        return number

    def for_header(self, node: Any) -> tuple[Any, Any, Any]:
        """The init, condition and increment of a ``for`` (clang leaves out the missing ones,
        so they are told apart by where they sit between the header's semicolons)."""
        kids = node.kids[:-1]
        start, end, _ = self.span(node)
        opening = self.source.find("(", start, end)
        if opening < 0 or not kids:
            return None, None, None
        semis = []
        depth = 0
        for at in range(opening, end):
            ch = self.source[at]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    break
            elif ch == ";" and depth == 1:
                semis.append(at)
        if len(semis) != 2:  # a header a macro wrote: take the children in order
            padded = [*kids, None, None, None]
            return padded[0], padded[1], padded[2]
        parts: list[Any] = [None, None, None]
        for k in kids:
            s, _, _ = self.span(k)
            parts[0 if s < semis[0] else 1 if s < semis[1] else 2] = k
        return parts[0], parts[1], parts[2]

    # -- expressions ----------------------------------------------------------------------
    def expr(self, node: Any, state: State | None) -> State:
        """Walk an expression in evaluation order: note the accesses it holds and apply the
        definitions it makes."""
        if state is None:
            state = {}
        kind = node.kind
        kids = node.kids
        start, end, _ = self.span(node)
        site = self.sites.get((start, end))
        if site is not None:
            self.note_access(node, site, state)
        if kind == K.BINARY_OPERATOR and len(kids) == 2:
            op = clang_bridge.binary_operator(_raw(node))
            if op == "=":
                state = self.expr(kids[1], state)
                target = self.target(kids[0])
                if target is None:
                    return self.expr(kids[0], state)
                return self.assign(node, target, kids[1], state, ASSIGNMENT)
            if op in ("&&", "||"):
                state = self.expr(kids[0], state)
                return _merge(state, self.expr(kids[1], state)) or {}
            if op == ",":
                return self.expr(kids[1], self.expr(kids[0], state))
        if kind == K.COMPOUND_ASSIGNMENT_OPERATOR and len(kids) == 2:
            state = self.expr(kids[1], state)
            target = self.target(kids[0])
            if target is None:
                return self.expr(kids[0], state)
            return self.assign(node, target, kids[1], state, UPDATE)
        if kind == K.UNARY_OPERATOR and kids:
            op = clang_bridge.unary_operator(_raw(node))
            if op in ("++", "--"):
                target = self.target(kids[0])
                if target is None:
                    return self.expr(kids[0], state)
                post = 0
                if self.source[start:end].rstrip().endswith(op):
                    post = 1 if op == "++" else -1
                return self.assign(node, target, None, state, UPDATE, post)
        if kind == K.CONDITIONAL_OPERATOR and len(kids) == 3:
            state = self.expr(kids[0], state)
            return _merge(self.expr(kids[1], state), self.expr(kids[2], state)) or {}
        if kind == K.CALL_EXPR:
            return self.call(node, state)
        for k in kids:
            state = self.expr(k, state) if k.kind.is_expression() else state
        return state

    def target(self, node: Any) -> tuple[str, str, str] | None:
        """The private variable an assignment stores into: its key, its name and the part of
        it stored ("" for all of it; ``.row`` for a member, ``.x`` for a component)."""
        whole = self.node_text(node)
        n = _strip_all(node)
        part = False
        while True:
            member = n.kind == K.MEMBER_REF_EXPR and n.kids
            if member and _canonical_kind(n.kids[0].type) != T.POINTER:
                n, part = _strip_all(n.kids[0]), True
                continue
            if n.kind == K.UNEXPOSED_EXPR and len(n.kids) == 1 and _is_vector_select(n, n.kids[0]):
                n, part = _strip_all(n.kids[0]), True
                continue
            break
        if n.kind != K.DECL_REF_EXPR:
            return None
        ref = n.referenced
        if ref is None or ref.kind not in (K.VAR_DECL, K.PARM_DECL):
            return None
        if not _private_variable(ref.type):
            return None
        name = str(ref.spelling)
        member = whole[len(name) :].replace(" ", "") if part and whole.startswith(name) else ""
        return _key(ref), name, member or ("." if part else "")

    def assign(
        self,
        node: Any,
        target: tuple[str, str, str],
        value: Any,
        state: State,
        kind: str,
        post: int = 0,
    ) -> State:
        key, name, member = target
        start, end, widened = self.span(node)
        text = self.text(start, end)
        if value is not None:
            terms = self.terms(value)
            value_text = self.node_text(value)
        else:
            terms = ()
            value_text = text
        if kind == UPDATE and value is not None:
            value_text = text
        if kind == UPDATE:
            own_text = name + (member if member != "." else "")
            own = Term(
                own_text,
                VARIABLE,
                key,
                own_text,
                value_type=_value_type(node.type),
                member=member if member != "." else "",
            )
            terms = (own, *terms)
        if member:
            kind = PART
        number = self.define(
            Definition(
                id=0,
                variable=key,
                name=name,
                function=self.function_name,
                line=self.line(start),
                kind=kind,
                text=text,
                value_text=value_text,
                terms=terms,
                start=start if self.whole(start, end, widened) else -1,
                end=end if self.whole(start, end, widened) else -1,
                post=post,
                value_type=_value_type(node.type),
                member=member if member != "." else "",
            ),
            (start, end, key),
            state,
        )
        out = dict(state)
        before: frozenset[int] = frozenset()
        if member:  # the other members keep their definitions; this one's are replaced
            stored = member if member != "." else ""
            before = frozenset(
                d
                for d in state.get(key, frozenset())
                if not stored
                or not self.defs[d].record.member
                or self.defs[d].record.member != stored
            )
        out[key] = before | {number}
        return out

    def call(self, node: Any, state: State) -> State:
        args = node.get_arguments()
        for a in args:
            state = self.expr(a, state)
        callee = node.referenced
        name = str(node.spelling)
        if callee is None or name not in self.own_functions:
            return state
        definition = callee.get_definition() or callee
        params = list(definition.get_arguments())
        for index, (p, a) in enumerate(zip(params, args, strict=False)):
            key = _key(p)
            start, end, widened = self.span(a)
            value_text = self.text(start, end)
            number = self.define(
                Definition(
                    id=0,
                    variable=key,
                    name=str(p.spelling),
                    function=self.function_name,
                    line=self.line(start),
                    kind=ARGUMENT,
                    text=f"{p.spelling} = {value_text} (passed to {name}())",
                    value_text=value_text,
                    terms=self.terms(a),
                    start=start if self.whole(start, end, widened) else -1,
                    end=end if self.whole(start, end, widened) else -1,
                    value_type=_value_type(p.type),
                ),
                (start, end, f"arg{index}:{key}"),
                state,
            )
            self.pending_sources.append((key, number))
        return state

    def note_access(self, node: Any, site: AccessSite, state: State) -> None:
        """The access at ``node``: its address parts and terms, and what reaches it."""
        key = (site.span.start, site.span.end)
        seen = self.seen.get(key)
        if seen is None:
            parts = self.address_parts(node, site)
            terms: list[Term] = []
            for p in parts:
                terms.extend(self.terms(p))
            prefix = (-1, -1)
            for p in parts:
                s, e, widened = self.span(p)
                if self.whole(s, e, widened):
                    prefix = (s, e)
                    break
            record = AccessAnatomy(
                function=self.function_name,
                line=site.line,
                start=site.span.start,
                end=site.span.end,
                text=_SPACES.sub(" ", site.text).strip(),
                index=tuple(self.node_text(p) for p in parts),
                terms=_unique(terms),
                reaching=(),
                prefix_start=prefix[0],
                prefix_end=prefix[1],
                conditions=tuple(dict.fromkeys(self.active)),
            )
            seen = self.seen[key] = _Seen(record)
        for term in seen.record.terms:
            if term.variable:
                seen.reaching.setdefault(term.variable, set()).update(
                    state.get(term.variable, frozenset())
                )

    # -- address parts and terms ----------------------------------------------------------
    def address_parts(self, node: Any, site: AccessSite) -> list[Any]:
        """The expressions an access's address is computed from: its subscripts (outermost
        array first), the pointer when it is not a buffer's own name, a built-in's pointer
        and offset arguments."""
        n = _strip_all(node)
        if n.kind == K.CALL_EXPR:
            args = n.get_arguments()
            name = str(n.spelling)
            if name.startswith("vload") and len(args) == 2:
                return [args[0], *self.pointer_parts(args[1])]
            if name.startswith("vstore") and len(args) == 3:
                return [args[1], *self.pointer_parts(args[2])]
            if name.startswith("async_work_group") and len(args) >= 2:
                return [*self.pointer_parts(args[0]), *self.pointer_parts(args[1])]
            if args and site.kind.value.startswith("atomic"):
                return self.pointer_parts(args[0])
            return self.pointer_parts(args[-1]) if args else []
        return self.lvalue_parts(n)

    def lvalue_parts(self, n: Any) -> list[Any]:
        n = _strip_all(n)
        kids = n.kids
        if n.kind == K.ARRAY_SUBSCRIPT_EXPR and len(kids) == 2:
            first, second = kids
            pointer, index = (first, second) if _is_pointerish(first.type) else (second, first)
            return [*self.pointer_parts(pointer), index]
        if n.kind == K.UNARY_OPERATOR and kids and clang_bridge.unary_operator(_raw(n)) == "*":
            return self.pointer_parts(kids[0])
        if n.kind == K.MEMBER_REF_EXPR and kids:
            if _canonical_kind(kids[0].type) == T.POINTER:
                return self.pointer_parts(kids[0])
            return self.lvalue_parts(kids[0])
        if n.kind == K.UNEXPOSED_EXPR and len(kids) == 1:
            return self.lvalue_parts(kids[0])
        return []

    def pointer_parts(self, p: Any) -> list[Any]:
        """A pointer's own part of an address: nothing for a buffer's name (a kernel's
        parameter, an array), the subscripts of an array of arrays, else the pointer
        expression (a helper's pointer parameter too: the argument of each call gives it)."""
        n = _strip_all(p)
        if n.kind == K.DECL_REF_EXPR:
            ref = n.referenced
            if ref is not None and (
                (ref.kind == K.PARM_DECL and self.in_kernel)
                or _canonical_kind(ref.type) in ARRAY_KINDS
            ):
                return []
            return [p]
        if n.kind == K.ARRAY_SUBSCRIPT_EXPR and _canonical_kind(n.type) in ARRAY_KINDS:
            return self.lvalue_parts(n)
        if n.kind == K.MEMBER_REF_EXPR and _canonical_kind(n.type) in ARRAY_KINDS:
            return self.lvalue_parts(n.kids[0]) if n.kids else []
        if n.kind == K.UNARY_OPERATOR and n.kids and clang_bridge.unary_operator(_raw(n)) == "&":
            return self.lvalue_parts(n.kids[0])
        if n.kind == K.CSTYLE_CAST_EXPR and n.kids:
            return self.pointer_parts(n.kids[-1])
        return [p]

    def terms(self, node: Any) -> tuple[Term, ...]:
        found = _unique(list(self._terms(node, "")))
        changed = _assigned(node) if any(t.kind == EFFECT for t in found) else set()
        # A variable the expression itself assigns (`a[(t = l + 1, t & 15)]`) is not
        # evaluated again in front of it: that would give its value from before.
        return tuple(
            replace(t, evaluate="") if t.kind != EFFECT and t.variable in changed else t
            for t in found
        )

    def _terms(self, node: Any, inside: str) -> Iterator[Term]:
        start, end, widened = self.span(node)
        kind = node.kind
        kids = node.kids
        if not inside and (start, end) in self.macro_spans and kind.is_expression():
            text = self.text(start, end)
            value = clang_bridge.evaluate_int(_raw(node))
            if value is not None:
                yield Term(text, MACRO, value=str(value), start=start, end=end)
                return
            inner = list(self._terms(node, text))
            # A macro that is one variable or one built-in is that term, named by the macro.
            alone = _strip_all(node).kind in (K.DECL_REF_EXPR, K.CALL_EXPR)
            if alone and len(inner) == 1 and inner[0].evaluate:
                yield Term(
                    text,
                    inner[0].kind,
                    inner[0].variable,
                    text,
                    value_type=inner[0].value_type,
                    start=start,
                    end=end,
                )
                return
            yield Term(
                text, MACRO, evaluate="", value_type=_value_type(node.type), start=start, end=end
            )
            yield from inner
            return
        own = (-1, -1) if (widened or inside) else (start, end)
        site = self.sites.get((start, end)) if not inside else None
        if site is not None and site.kind.value in ("read", "read-modify-write", "atomic"):
            stripped = _strip_all(node)
            if stripped.kind != K.DECL_REF_EXPR or _space(stripped.type.spelling) in (
                AddressSpace.LOCAL,
                AddressSpace.CONSTANT,
            ):
                yield Term(
                    self.text(start, end),
                    READ,
                    value_type=_value_type(node.type),
                    start=start,
                    end=end,
                    inside=inside,
                )
                return
        if kind == K.DECL_REF_EXPR:
            yield from self._reference(node, own, inside)
            return
        if kind == K.MEMBER_REF_EXPR and kids and _canonical_kind(kids[0].type) != T.POINTER:
            base = _strip_all(kids[0])
            if base.kind == K.DECL_REF_EXPR and base.referenced is not None:
                ref = base.referenced
                if _space(ref.type.spelling) is AddressSpace.PRIVATE:
                    text = f"{base.spelling}.{node.spelling}"
                    yield Term(
                        text,
                        PARAMETER if ref.kind == K.PARM_DECL else VARIABLE,
                        _key(ref),
                        text,
                        value_type=_value_type(node.type),
                        start=own[0],
                        end=own[1],
                        inside=inside,
                        member=f".{node.spelling}",
                    )
                    return
        if kind == K.UNEXPOSED_EXPR and len(kids) == 1 and _is_vector_select(node, kids[0]):
            base = _strip_all(kids[0])
            if base.kind == K.DECL_REF_EXPR and base.referenced is not None and not inside:
                ref = base.referenced
                if _space(ref.type.spelling) is AddressSpace.PRIVATE:
                    text = self.text(start, end)
                    name = str(base.spelling)
                    yield Term(
                        text,
                        PARAMETER if ref.kind == K.PARM_DECL else VARIABLE,
                        _key(ref),
                        text,
                        value_type=_value_type(node.type),
                        start=own[0],
                        end=own[1],
                        member=text[len(name) :].replace(" ", "") if text.startswith(name) else "",
                    )
                    return
        if kind == K.CALL_EXPR:
            yield from self._call_terms(node, own, inside)
            return
        if (
            kind in (K.COMPOUND_ASSIGNMENT_OPERATOR,)
            or (kind == K.BINARY_OPERATOR and clang_bridge.binary_operator(_raw(node)) == "=")
            or (
                kind == K.UNARY_OPERATOR and clang_bridge.unary_operator(_raw(node)) in ("++", "--")
            )
        ):
            yield Term(self.text(start, end), EFFECT, start=own[0], end=own[1], inside=inside)
            return
        if kind in (K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.CHARACTER_LITERAL, K.STRING_LITERAL):
            return
        if kind == K.CXX_UNARY_EXPR:  # sizeof, alignof: known when compiled
            return
        for k in kids:
            if k.kind.is_expression():
                yield from self._terms(k, inside)

    def _reference(self, node: Any, own: tuple[int, int], inside: str) -> Iterator[Term]:
        ref = node.referenced
        if ref is None:
            return
        name = str(node.spelling)
        if ref.kind == K.ENUM_CONSTANT_DECL:
            value = clang_bridge.evaluate_int(_raw(node))
            yield Term(name, CONSTANT, value="" if value is None else str(value), inside=inside)
            return
        if ref.kind not in (K.VAR_DECL, K.PARM_DECL):
            return
        t = ref.type
        canonical = _canonical_kind(t)
        if canonical in ARRAY_KINDS:
            return  # a buffer's or an array's own name: the base, not a part of the index
        if _space(t.spelling) is not AddressSpace.PRIVATE and canonical != T.POINTER:
            return  # memory (a __local or __constant variable): an access site of its own
        if canonical == T.POINTER:
            if (
                ref.kind == K.PARM_DECL
                and self.in_kernel
                and _space(t.get_pointee().spelling) is not AddressSpace.PRIVATE
            ):
                return  # a kernel's buffer parameter: the base
            yield Term(name, POINTER, _key(ref), start=own[0], end=own[1], inside=inside)
            return
        constant = None
        if t.is_const_qualified() and ref.kind == K.VAR_DECL:
            constant = clang_bridge.evaluate_int(_raw(ref))
        yield Term(
            name,
            PARAMETER if ref.kind == K.PARM_DECL else VARIABLE,
            _key(ref),
            name,
            value="" if constant is None else str(constant),
            value_type=_value_type(t),
            start=own[0],
            end=own[1],
            inside=inside,
        )

    def _call_terms(self, node: Any, own: tuple[int, int], inside: str) -> Iterator[Term]:
        name = str(node.spelling)
        args = node.get_arguments()
        if name in WORK_ITEM_FUNCTIONS:
            values = [clang_bridge.evaluate_int(_raw(a)) for a in args]
            if all(v is not None for v in values):
                text = f"{name}({', '.join(str(v) for v in values)})"
                yield Term(
                    text,
                    BUILTIN,
                    evaluate=text,
                    value_type=_value_type(node.type),
                    start=own[0],
                    end=own[1],
                    inside=inside,
                )
                return
        if name in self.own_functions:
            start, end, _ = self.span(node)
            yield Term(
                self.text(start, end),
                CALL,
                value_type=_value_type(node.type),
                start=own[0],
                end=own[1],
                inside=inside,
            )
        for a in args:
            yield from self._terms(a, inside)


def _key(decl: Any) -> str:
    """A variable's key: its name and the offset of its name where it is declared."""
    return f"{decl.spelling}@{decl.location.offset}"


def _is_effect(n: Any) -> bool:
    """Whether ``n`` assigns or increments what its first operand names."""
    if n.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
        return True
    if n.kind == K.BINARY_OPERATOR:
        return bool(clang_bridge.binary_operator(_raw(n)) == "=")
    return n.kind == K.UNARY_OPERATOR and clang_bridge.unary_operator(_raw(n)) in ("++", "--")


def _assigned(node: Any) -> set[str]:
    """The keys of the variables an assignment or ``++``/``--`` inside ``node`` changes."""
    found: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        kids = list(n.kids)
        if kids and _is_effect(n):
            target = _strip_all(kids[0])
            if target.kind == K.DECL_REF_EXPR and target.referenced is not None:
                found.add(_key(target.referenced))
        stack.extend(kids)
    return found


def _private_variable(t: Any) -> bool:
    """Whether a variable of type ``t`` is a private value the pass follows: a scalar,
    vector, struct or pointer of the work-item's own (not an array, not __local memory)."""
    kind = _canonical_kind(t)
    if kind == T.POINTER:
        return True
    return kind not in ARRAY_KINDS and _space(t.spelling) is AddressSpace.PRIVATE


def _strip_all(n: Any) -> Any:
    """Skip parentheses and implicit conversions (not vector selections)."""
    while n.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR) and len(n.kids) == 1:
        if n.kind == K.UNEXPOSED_EXPR and _is_vector_select(n, n.kids[0]):
            return n
        n = n.kids[0]
    return n


def _value_type(t: Any) -> str:
    """A scalar type's name as the value plane knows it (``int``, ``unsigned long``,
    ``float``); a vector's as ``float4``; "" for anything else (pointers, structs)."""
    canonical = t.get_canonical()
    if canonical.kind == T.POINTER or canonical.kind in ARRAY_KINDS:
        return ""
    if canonical.kind in VECTOR_KINDS:
        return _type_name(t)
    if canonical.kind == T.RECORD or canonical.kind == T.ENUM:
        return "int" if canonical.kind == T.ENUM else ""
    return _type_name(t)


def _unique(terms: list[Term]) -> tuple[Term, ...]:
    """Terms with the same text and kind once, in order."""
    seen: dict[tuple[str, str], Term] = {}
    for t in terms:
        seen.setdefault((t.text, t.kind), t)
    return tuple(seen.values())
