"""The rewrite of one function body: every access to a ``__global``/``__constant``/``__local``
pointer or array, every atomic, ``vloadN``/``vstoreN``, ``barrier`` and ``mem_fence`` becomes a
call into the trace runtime. No newline is added or removed inside the user's code."""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.trace.instrument.model import MAX_SITES, InstrumentError, SiteDecl
from explorer.trace.instrument.tokens import (
    ATOMIC_CALL,
    BARRIERS,
    COMPOUND,
    FENCES,
    OPERAND_END,
    SPACES,
    VLOAD,
    Token,
)
from explorer.trace.records import (
    ATOMIC,
    BARRIER,
    FENCE,
    FENCE_GLOBAL,
    FENCE_LOCAL,
    GLOBAL,
    LOCAL,
    NO_BUFFER,
    NO_SPACE,
    READ,
    RMW,
    WRITE,
)


@dataclass
class Name:
    """What the rewriter knows of a pointer or array name in scope."""

    space: int | str
    buffer: int  # syntactic buffer id (hint for out-of-bounds reports)
    dims: int


@dataclass
class State:
    """What the rewrite of every function of one source adds up to."""

    sites: list[SiteDecl] = field(default_factory=list)
    not_traced: list[tuple[int, str]] = field(default_factory=list)
    uses_local: bool = False


class Rewriter:
    """Rewrites one kernel body; ``code`` holds only significant tokens (no blanks/comments)."""

    def __init__(
        self, source: str, tokens: list[Token], names: dict[str, Name], state: State
    ) -> None:
        self.source = source
        self.tokens = tokens
        self.code = [i for i, t in enumerate(tokens) if t.kind not in ("ws", "comment")]
        self.pos_of = {tok_index: k for k, tok_index in enumerate(self.code)}
        self.names = names
        self.state = state
        self.inserts_after: dict[int, str] = {}
        self.declared: set[int] = set()  # code indices of local array names being declared
        self.helpers: set[str] = set()  # functions that take the trace state as a last argument
        self.in_kernel = False

    # -- token helpers (k indexes self.code) ---------------------------------------
    def tok(self, k: int) -> Token:
        """The significant token at ``k`` (an "eof" token outside the code)."""
        return self.tokens[self.code[k]] if 0 <= k < len(self.code) else Token("eof", "", 0, 0)

    def text(self, k0: int, k1: int) -> str:
        """Original text of significant tokens k0..k1-1, with what lies between them."""
        if k1 <= k0:
            return ""
        start = self.tokens[self.code[k0]].start
        last = self.tokens[self.code[k1 - 1]]
        return self.source[start : last.start + len(last.text)]

    def match(self, k: int) -> int:
        """Index of the bracket closing the one at k."""
        pairs = {"(": ")", "[": "]", "{": "}"}
        opening, closing, depth = self.tok(k).text, pairs[self.tok(k).text], 0
        for j in range(k, len(self.code)):
            t = self.tok(j).text
            if t == opening:
                depth += 1
            elif t == closing:
                depth -= 1
                if depth == 0:
                    return j
        raise InstrumentError(f"unbalanced {opening!r} at line {self.tok(k).line}")

    def unary_position(self, k: int) -> bool:
        """Whether the token at k starts an operand (so * and & there are unary)."""
        prev = self.tok(k - 1)
        if prev.kind in OPERAND_END:
            return prev.text in ("return", "case", "sizeof") or prev.text in SPACES
        return prev.text not in (")", "]", "++", "--")

    def site(self, line: int, op: int, space: int, buffer: int, text: str, fences: int = 0) -> int:
        """Declare an access site and return its id."""
        if len(self.state.sites) >= MAX_SITES:
            raise InstrumentError(f"more than {MAX_SITES} memory accesses to trace")
        sid = len(self.state.sites)
        self.state.sites.append(
            SiteDecl(sid, line, op, space, buffer, " ".join(text.split()), fences)
        )
        return sid

    def fence_flags(self, k0: int, k1: int) -> int:
        """The address spaces the flags between tokens k0 and k1 name; both when they name
        neither (a macro or a variable), so a barrier is never taken to order less than it
        may."""
        words = {self.tok(k).text for k in range(k0, k1)}
        fences = (FENCE_LOCAL if "CLK_LOCAL_MEM_FENCE" in words else 0) | (
            FENCE_GLOBAL if "CLK_GLOBAL_MEM_FENCE" in words else 0
        )
        return fences or (FENCE_LOCAL | FENCE_GLOBAL)

    def context_op(self, k0: int, k1: int) -> int:
        """Whether the access at k0..k1-1 reads, writes or updates, from what surrounds it."""
        before, after = self.tok(k0 - 1).text, self.tok(k1).text
        if before in ("++", "--") or after in ("++", "--") or after in COMPOUND:
            return RMW
        if after == "=":
            return WRITE
        return READ

    # -- expression spans ------------------------------------------------------------
    def is_cast(self, k: int) -> bool:
        """A parenthesised type, e.g. ``(const __global float4*)``."""
        if self.tok(k).text != "(":
            return False
        end = self.match(k)
        inner = [self.tok(j) for j in range(k + 1, end)]
        if not inner or inner[-1].text != "*":
            return False
        return all(t.kind == "ident" or t.text == "*" for t in inner)

    def unary_end(self, k: int) -> int:
        """End (exclusive) of the unary expression starting at k."""
        t = self.tok(k)
        if t.text == "(" and self.is_cast(k):
            return self.unary_end(self.match(k) + 1)
        if t.text in ("&", "*", "-", "+", "!", "~", "++", "--"):
            return self.unary_end(k + 1)
        if t.text == "(":
            j = self.match(k) + 1
        elif t.kind in ("ident", "number", "string"):
            j = k + 1
        else:
            return k + 1
        while True:
            nxt = self.tok(j).text
            if nxt in ("[", "("):
                j = self.match(j) + 1
            elif nxt in (".", "->"):
                j += 2
            elif nxt in ("++", "--"):
                j += 1
            else:
                return j

    def chain_end(self, k: int) -> tuple[int, int]:
        """For a name at k followed by subscripts: (end, number of subscripts)."""
        j, count = k + 1, 0
        while self.tok(j).text == "[":
            j = self.match(j) + 1
            count += 1
        return j, count

    def first_name(self, k0: int, k1: int) -> Name | None:
        """The first traced name among tokens k0..k1-1."""
        for j in range(k0, k1):
            t = self.tok(j)
            if t.kind == "ident" and t.text in self.names:
                return self.names[t.text]
        return None

    def cast_space(self, k0: int, k1: int) -> int | str | None:
        """The address space a cast among tokens k0..k1-1 names, if any."""
        for j in range(k0, k1):
            space = SPACES.get(self.tok(j).text)
            if space is not None:
                return space
        return None

    # -- the rewrite ---------------------------------------------------------------------
    def rewrite(self, k0: int, k1: int, address_only: bool = False) -> str:
        """Rewritten text of code tokens k0..k1-1.

        ``address_only``: the range is an address computation (``&A[i]``, a pointer argument
        of an atomic or vload), so its top-level subscript is not an access.
        """
        out: list[str] = []
        k = k0
        while k < k1:
            t = self.tok(k)
            piece, nxt = self.rewrite_at(k, k1, address_only)
            if piece is None:
                out.append(t.text)
                nxt = k + 1
            else:
                out.append(piece)
            if nxt < k1:  # keep what lies between tokens (blanks, comments, newlines)
                last = self.tokens[self.code[nxt - 1]]
                out.append(self.source[last.start + len(last.text) : self.tok(nxt).start])
            k = nxt
        return "".join(out)

    def rewrite_at(self, k: int, k1: int, address_only: bool) -> tuple[str | None, int]:
        """Rewrite what starts at token ``k``: its text and the next token index."""
        t = self.tok(k)
        if k in self.inserts_after:
            return t.text + self.inserts_after[k], k + 1
        if t.text == "return" and self.tok(k + 1).text == ";" and self.in_kernel:
            return "{ __tr_end(__tr_ptr); return; }", k + 2
        if t.kind == "ident" and self.tok(k + 1).text == "(":
            if t.text in BARRIERS or t.text in FENCES:
                end = self.match(k + 1)
                op = BARRIER if t.text in BARRIERS else FENCE
                fences = self.fence_flags(k + 2, end)
                sid = self.site(t.line, op, NO_SPACE, NO_BUFFER, t.text, fences)
                fn = "__tr_barrier" if op == BARRIER else "__tr_fence"
                call = f"{t.text}({self.rewrite(k + 2, end)})"
                return f"({fn}(__tr_ptr, {sid}u), {call})", end + 1
            if VLOAD.match(t.text):
                return self.rewrite_vector(k)
            if ATOMIC_CALL.match(t.text):
                return self.rewrite_atomic(k)
            if t.text in self.helpers:
                end = self.match(k + 1)
                inner = self.rewrite(k + 2, end)
                glue = ", " if end > k + 2 else ""
                return f"{t.text}({inner}{glue}__tr_ptr)", end + 1
        if t.text == "&" and self.unary_position(k):
            nxt = self.tok(k + 1)
            if nxt.kind == "ident" and nxt.text in self.names:
                end, _ = self.chain_end(k + 1)
                return "&" + self.rewrite_address(k + 1, end), end
        if t.text == "*" and self.unary_position(k):
            return self.rewrite_deref(k)
        if t.kind == "ident" and t.text in self.names and self.tok(k + 1).text == "[":
            name = self.names[t.text]
            end, count = self.chain_end(k)
            if k in self.declared:
                return self.text(k, end), end
            if count < name.dims:  # a row of a local array used as a pointer
                return self.rewrite_address(k, end), end
            op = self.context_op(k, end)
            return self.access(
                t.line,
                op,
                name.space,
                name.buffer,
                "&(" + self.rewrite_address(k, end) + ")",
                self.text(k, end),
            ), end
        if t.text == "[" and self.tok(k - 1).text == ")":
            opening = self.matching_open(k - 1)
            if opening is not None and self.first_name(opening, k) is not None:
                self.state.not_traced.append(
                    (
                        t.line,
                        "a subscript of a parenthesised pointer expression is not traced; "
                        "declare a pointer variable for it",
                    )
                )
        return None, k + 1

    def matching_open(self, k: int) -> int | None:
        """Index of the bracket opening the one that closes at ``k``."""
        depth = 0
        for j in range(k, -1, -1):
            if self.tok(j).text == ")":
                depth += 1
            elif self.tok(j).text == "(":
                depth -= 1
                if depth == 0:
                    return j
        return None

    def rewrite_address(self, k: int, end: int) -> str:
        """``NAME[i][j]`` as an address: the name kept, each index rewritten."""
        parts = [self.tok(k).text]
        j = k + 1
        while j < end:
            close = self.match(j)
            parts.append("[" + self.rewrite(j + 1, close) + "]")
            j = close + 1
        return "".join(parts)

    def access(
        self, line: int, op: int, space: int | str, buffer: int, pointer: str, text: str
    ) -> str:
        """The expression that records one access and stands for the element accessed."""
        if space == LOCAL:
            self.state.uses_local = True
        code = {GLOBAL: "G", LOCAL: "L", "constant": "C"}[space]
        sid = self.site(line, op, LOCAL if space == LOCAL else GLOBAL, buffer, text)
        return f"(*__TR_{code}({pointer}, {sid}u, {buffer}u))"

    def rewrite_deref(self, k: int) -> tuple[str | None, int]:
        """Rewrite a dereference ``*p`` of a traced pointer."""
        end = self.unary_end(k + 1)
        space = self.cast_space(k + 1, end)
        name = self.first_name(k + 1, end)
        if space is None and name is not None:
            space = name.space
        if space is None:  # a private pointer: nothing to trace
            return None, k + 1
        if space not in (GLOBAL, LOCAL, "constant"):
            return None, k + 1
        op = self.context_op(k, end)
        pointer = "(" + self.rewrite(k + 1, end, address_only=True) + ")"
        buffer = name.buffer if name else NO_BUFFER
        return self.access(self.tok(k).line, op, space, buffer, pointer, self.text(k, end)), end

    def split_args(self, open_k: int) -> list[tuple[int, int]]:
        """Token ranges of the comma-separated arguments of the list opening at ``open_k``."""
        close = self.match(open_k)
        args, start, j = [], open_k + 1, open_k + 1
        while j < close:
            if self.tok(j).text in ("(", "[", "{"):
                j = self.match(j) + 1
                continue
            if self.tok(j).text == ",":
                args.append((start, j))
                start = j + 1
            j += 1
        args.append((start, close))
        return args

    def rewrite_vector(self, k: int) -> tuple[str | None, int]:
        """Rewrite a ``vloadN``/``vstoreN`` call on a traced pointer."""
        t = self.tok(k)
        m = VLOAD.match(t.text)
        assert m is not None
        width = int(m.group(2))
        load = m.group(1) == "load"
        args = self.split_args(k + 1)
        close = self.match(k + 1)
        if len(args) != (2 if load else 3):
            return None, k + 1
        p0, p1 = args[-1]
        o0, o1 = args[-2]
        name = self.first_name(p0, p1)
        space = self.cast_space(p0, p1) or (name.space if name else None)
        if space not in (GLOBAL, LOCAL, "constant"):
            self.state.not_traced.append((t.line, f"{t.text} of a pointer of unknown space"))
            return None, k + 1
        if space == LOCAL:
            self.state.uses_local = True
        pointer = self.rewrite(p0, p1, address_only=True)
        offset = self.rewrite(o0, o1)
        code = {GLOBAL: "G", LOCAL: "L", "constant": "C"}[space]
        sid = self.site(
            t.line,
            READ if load else WRITE,
            LOCAL if space == LOCAL else GLOBAL,
            name.buffer if name else NO_BUFFER,
            self.text(k, close + 1),
        )
        traced = (
            f"__TR_V{code}(({pointer}) + (size_t)({offset}) * {width}, {width}, {sid}u, "
            f"{name.buffer if name else NO_BUFFER}u)"
        )
        if load:
            return f"{t.text}(0, {traced})", close + 1
        data = self.rewrite(*args[0])
        return f"{t.text}({data}, 0, {traced})", close + 1

    def rewrite_atomic(self, k: int) -> tuple[str | None, int]:
        """Rewrite an atomic call on a traced pointer."""
        t = self.tok(k)
        args = self.split_args(k + 1)
        close = self.match(k + 1)
        p0, p1 = args[0]
        name = self.first_name(p0, p1)
        space = self.cast_space(p0, p1) or (name.space if name else None)
        if space not in (GLOBAL, LOCAL):
            return None, k + 1
        if space == LOCAL:
            self.state.uses_local = True
        pointer = "(" + self.rewrite(p0, p1, address_only=True) + ")"
        code = "G" if space == GLOBAL else "L"
        buffer = name.buffer if name else NO_BUFFER
        sid = self.site(t.line, ATOMIC, space, buffer, self.text(k, close + 1))
        rest = "".join(", " + self.rewrite(a0, a1) for a0, a1 in args[1:])
        return f"{t.text}(__TR_{code}({pointer}, {sid}u, {buffer}u){rest})", close + 1
