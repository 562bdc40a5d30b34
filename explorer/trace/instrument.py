"""Automatic source-to-source instrumentation of plain OpenCL C for tracing.

Every subscript of a ``__global``/``__constant``/``__local`` pointer or array (parameters,
pointers derived from them in the kernel body, local arrays of any rank), every dereference
of such a pointer, ``vloadN``/``vstoreN``, ``atomic_*``/``atom_*``, ``barrier`` and
``mem_fence`` is rewritten to record what it did into a per-work-item region of a trace
buffer. The kernel records its own buffers' base addresses at start, so a record holds
(buffer, byte offset) resolved on the device and pointer arithmetic needs no special case.

Each access is bounds-checked against every buffer of its address space: an access outside
all of them is recorded as out of bounds and redirected to a scratch slot, so an indexing
bug becomes a finding instead of a crash.

No newline is added or removed inside the user's code, and the prelude ends with
``#line 1``, so compiler messages and recorded lines are the user's own line numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from explorer.trace.records import (
    ATOMIC,
    BARRIER,
    BUFFER_SHIFT,
    FENCE,
    GLOBAL,
    LOCAL,
    MAX_PHASE,
    NO_BUFFER,
    NO_SPACE,
    OOB_BIT,
    PHASE_SHIFT,
    READ,
    RMW,
    SITE_MASK,
    SIZE_SHIFT,
    WRITE,
)

MAX_BUFFERS = NO_BUFFER  # 4 bits in a record; NO_BUFFER means "no buffer"
MAX_SITES = SITE_MASK + 1  # 12 bits in a record

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<pp>\#(?:[^\n\\]|\\.)*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>0[xX][0-9a-fA-F]+[a-zA-Z]*|(?:\d+\.?\d*|\.\d+)(?:[eEpP][+-]?\d+)?[a-zA-Z]*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<punct><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=
               |[-+*/%&|^!~=<>?:;,.(){}\[\]])
    """,
    re.VERBOSE | re.DOTALL,
)
_SPACES = {
    "__global": GLOBAL,
    "global": GLOBAL,
    "__local": LOCAL,
    "local": LOCAL,
    "__constant": "constant",
    "constant": "constant",
}
_COMPOUND = {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
_OPERAND_END = {"ident", "number", "string"}
_LINE_DIRECTIVE = re.compile(r"#\s*line\s+(\d+)")
_VLOAD = re.compile(r"^v(load|store)(2|3|4|8|16)$")
_ATOMIC = re.compile(r"^(atomic|atom)_\w+$")
_BARRIERS = {"barrier", "work_group_barrier"}
_FENCES = {"mem_fence", "read_mem_fence", "write_mem_fence", "atomic_work_item_fence"}


class InstrumentError(ValueError):
    """The source cannot be instrumented at all (no such kernel, too many buffers)."""


@dataclass
class _Tok:
    kind: str
    text: str
    start: int
    line: int


@dataclass(frozen=True)
class BufferDecl:
    """A buffer the instrumented kernel registers: a pointer parameter or a local array."""

    id: int
    name: str
    space: int | str  # GLOBAL, LOCAL or "constant"
    param_index: int | None  # position in the kernel's parameter list, or None for arrays
    dims: int  # subscripts that make one element access (1 for pointers)


@dataclass(frozen=True)
class SiteDecl:
    id: int
    line: int
    op: int
    space: int
    buffer: int
    text: str


@dataclass(frozen=True)
class Instrumented:
    source: str
    kernel: str
    buffers: tuple[BufferDecl, ...]
    sites: tuple[SiteDecl, ...]
    not_traced: tuple[tuple[int, str], ...]
    extra_params: tuple[str, ...]  # appended to the kernel's parameters, in order


def tokenize(source: str) -> list[_Tok]:
    tokens = []
    pos, line = 0, 1
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if m is None:  # a stray character: keep it as punctuation
            tokens.append(_Tok("punct", source[pos], pos, line))
            line += source[pos] == "\n"
            pos += 1
            continue
        kind = m.lastgroup or "punct"
        text = m.group(0)
        tokens.append(_Tok(kind, text, pos, line))
        line += text.count("\n")
        directive = _LINE_DIRECTIVE.match(text) if kind == "pp" else None
        if directive:  # "#line N": the next line is line N of the user's file
            line = int(directive.group(1)) - 1
        pos = m.end()
    return tokens


@dataclass
class _Name:
    space: int | str
    buffer: int  # syntactic buffer id (hint for out-of-bounds reports)
    dims: int


@dataclass
class _State:
    sites: list[SiteDecl] = field(default_factory=list)
    not_traced: list[tuple[int, str]] = field(default_factory=list)
    uses_local: bool = False


class _Rewriter:
    """Rewrites one kernel body; ``code`` holds only significant tokens (no blanks/comments)."""

    def __init__(
        self, source: str, tokens: list[_Tok], names: dict[str, _Name], state: _State
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
    def tok(self, k: int) -> _Tok:
        return self.tokens[self.code[k]] if 0 <= k < len(self.code) else _Tok("eof", "", 0, 0)

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
        if prev.kind in _OPERAND_END:
            return prev.text in ("return", "case", "sizeof") or prev.text in _SPACES
        return prev.text not in (")", "]", "++", "--")

    def site(self, line: int, op: int, space: int, buffer: int, text: str) -> int:
        if len(self.state.sites) >= MAX_SITES:
            raise InstrumentError(f"more than {MAX_SITES} memory accesses to trace")
        sid = len(self.state.sites)
        self.state.sites.append(SiteDecl(sid, line, op, space, buffer, " ".join(text.split())))
        return sid

    def context_op(self, k0: int, k1: int) -> int:
        before, after = self.tok(k0 - 1).text, self.tok(k1).text
        if before in ("++", "--") or after in ("++", "--") or after in _COMPOUND:
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

    def first_name(self, k0: int, k1: int) -> _Name | None:
        for j in range(k0, k1):
            t = self.tok(j)
            if t.kind == "ident" and t.text in self.names:
                return self.names[t.text]
        return None

    def cast_space(self, k0: int, k1: int) -> int | str | None:
        for j in range(k0, k1):
            space = _SPACES.get(self.tok(j).text)
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
        t = self.tok(k)
        if k in self.inserts_after:
            return t.text + self.inserts_after[k], k + 1
        if t.text == "return" and self.tok(k + 1).text == ";" and self.in_kernel:
            return "{ __tr_end(__tr_ptr); return; }", k + 2
        if t.kind == "ident" and self.tok(k + 1).text == "(":
            if t.text in _BARRIERS or t.text in _FENCES:
                end = self.match(k + 1)
                op = BARRIER if t.text in _BARRIERS else FENCE
                sid = self.site(t.line, op, NO_SPACE, NO_BUFFER, t.text)
                fn = "__tr_barrier" if op == BARRIER else "__tr_fence"
                call = f"{t.text}({self.rewrite(k + 2, end)})"
                return f"({fn}(__tr_ptr, {sid}u), {call})", end + 1
            if _VLOAD.match(t.text):
                return self.rewrite_vector(k)
            if _ATOMIC.match(t.text):
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
        if space == LOCAL:
            self.state.uses_local = True
        code = {GLOBAL: "G", LOCAL: "L", "constant": "C"}[space]
        sid = self.site(line, op, LOCAL if space == LOCAL else GLOBAL, buffer, text)
        return f"(*__TR_{code}({pointer}, {sid}u, {buffer}u))"

    def rewrite_deref(self, k: int) -> tuple[str | None, int]:
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
        t = self.tok(k)
        m = _VLOAD.match(t.text)
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


_PRELUDE = r"""
/* ---- trace instrumentation (added by OpenCL Kernel Explorer) ---- */
#define EXPLORER_TRACE 1
#define __TR_NB @NB@
typedef struct {
    __global uint* roff;
    __global uint* rword;
    ulong base;
    uint cap;
    uint n;
    uint phase;
    int on;
    uint wi;
    __global uint* cnt;
    __global ulong* meta;
    __global uchar* gdummy;
    __local uchar* ldummy;
    __global uchar* gb[__TR_NB];
    ulong gl[__TR_NB];
    __constant uchar* cb[__TR_NB];
    ulong cl[__TR_NB];
    __local uchar* lb[__TR_NB];
    ulong ll[__TR_NB];
} __tr_state;

static void __tr_put(__tr_state* st, uint site, uint buf, long off, uint size, uint oob)
{
    if (st == 0 || !st->on)
        return;
    if (st->n < st->cap) {
        uint code = 31u - clz(size);
        ulong i = st->base + st->n;
        st->roff[i] = (uint)(int)off;
        st->rword[i] =
            site | (min(st->phase, @MAX_PHASE@u) << @PHASE_SHIFT@) | (buf << @BUFFER_SHIFT@)
            | (oob << @OOB_SHIFT@) | (code << @SIZE_SHIFT@);
    }
    st->n++;
}

static __global uchar* __tr_g(__tr_state* st, __global uchar* p, uint size, uint site, uint hint)
{
    if (st == 0)
        return p;
    if (hint < __TR_NB && st->gb[hint] != 0 && p >= st->gb[hint]
        && p + size <= st->gb[hint] + st->gl[hint]) {  /* most accesses: the named buffer */
        __tr_put(st, site, hint, (long)(p - st->gb[hint]), size, 0u);
        return p;
    }
    for (uint i = 0; i < __TR_NB; i++) {
        if (st->gb[i] != 0 && p >= st->gb[i] && p + size <= st->gb[i] + st->gl[i]) {
            __tr_put(st, site, i, (long)(p - st->gb[i]), size, 0u);
            return p;
        }
    }
    long off = (hint < __TR_NB && st->gb[hint] != 0) ? (long)(p - st->gb[hint]) : 0;
    __tr_put(st, site, hint, off, size, 1u);
    return st->gdummy;
}

static __constant uchar* __tr_c(__tr_state* st, __constant uchar* p, uint size, uint site,
                                uint hint)
{
    if (st == 0)
        return p;
    if (hint < __TR_NB && st->cb[hint] != 0 && p >= st->cb[hint]
        && p + size <= st->cb[hint] + st->cl[hint]) {  /* most accesses: the named buffer */
        __tr_put(st, site, hint, (long)(p - st->cb[hint]), size, 0u);
        return p;
    }
    for (uint i = 0; i < __TR_NB; i++) {
        if (st->cb[i] != 0 && p >= st->cb[i] && p + size <= st->cb[i] + st->cl[i]) {
            __tr_put(st, site, i, (long)(p - st->cb[i]), size, 0u);
            return p;
        }
    }
    long off = (hint < __TR_NB && st->cb[hint] != 0) ? (long)(p - st->cb[hint]) : 0;
    __tr_put(st, site, hint, off, size, 1u);
    return (hint < __TR_NB && st->cb[hint] != 0) ? st->cb[hint] : p;
}

static __local uchar* __tr_l(__tr_state* st, __local uchar* p, uint size, uint site, uint hint)
{
    if (st == 0)
        return p;
    if (hint < __TR_NB && st->lb[hint] != 0 && p >= st->lb[hint]
        && p + size <= st->lb[hint] + st->ll[hint]) {  /* most accesses: the named buffer */
        __tr_put(st, site, hint, (long)(p - st->lb[hint]), size, 0u);
        return p;
    }
    for (uint i = 0; i < __TR_NB; i++) {
        if (st->lb[i] != 0 && p >= st->lb[i] && p + size <= st->lb[i] + st->ll[i]) {
            __tr_put(st, site, i, (long)(p - st->lb[i]), size, 0u);
            return p;
        }
    }
    long off = (hint < __TR_NB && st->lb[hint] != 0) ? (long)(p - st->lb[hint]) : 0;
    __tr_put(st, site, hint, off, size, 1u);
    return st->ldummy;
}

static void __tr_barrier(__tr_state* st, uint site)
{
    __tr_put(st, site, @NO_BUFFER@u, 0, 1u, 0u);
    if (st != 0)
        st->phase++;
}

static void __tr_fence(__tr_state* st, uint site)
{
    __tr_put(st, site, @NO_BUFFER@u, 0, 1u, 0u);
}

static void __tr_end(__tr_state* st)
{
    if (st != 0 && st->on)
        st->cnt[st->wi] = st->n;
}

static void __tr_begin(__tr_state* st, __global uint* roff, __global uint* rword,
                       __global const ulong* off,
                       __global uint* cnt, volatile __global uint* disp,
                       __global const int* slot, __global ulong* meta,
                       __global uchar* gdummy, __local uchar* ldummy, uint count_only)
{
    uint gx = get_num_groups(0), gy = get_num_groups(1);
    uint group = get_group_id(0) + gx * (get_group_id(1) + gy * get_group_id(2));
    uint lx = get_local_size(0), ly = get_local_size(1);
    uint local_id = get_local_id(0) + lx * (get_local_id(1) + ly * get_local_id(2));
    uint per_group = lx * ly * get_local_size(2);
    if (local_id == 0)
        disp[1 + group] = atomic_inc(&disp[0]);
    int s = slot[group];
    st->on = s >= 0;
    st->wi = st->on ? (uint)s * per_group + local_id : 0u;
    st->roff = roff;
    st->rword = rword;
    st->base = st->on ? off[st->wi] : 0ul;
    st->cap = (st->on && !count_only) ? (uint)(off[st->wi + 1] - off[st->wi]) : 0u;
    st->n = 0u;
    st->phase = 0u;
    st->cnt = cnt;
    st->meta = meta;
    st->gdummy = gdummy;
    st->ldummy = ldummy;
    for (uint i = 0; i < __TR_NB; i++) {
        st->gb[i] = 0; st->gl[i] = 0; st->cb[i] = 0; st->cl[i] = 0; st->lb[i] = 0; st->ll[i] = 0;
    }
}

static void __tr_describe(__tr_state* st, uint id, ulong elem, ulong bytes, ulong d0, ulong d1,
                      ulong d2, ulong d3)
{
    if (st->on && st->wi == 0) {
        __global ulong* m = st->meta + 8 * id;
        m[0] = elem; m[1] = bytes; m[2] = d0; m[3] = d1; m[4] = d2; m[5] = d3;
    }
}

#define __TR_G(P, SITE, HINT) ((__typeof__(P)) __tr_g(__tr_ptr, (__global uchar*)(P), \
    (uint)sizeof(*(P)), SITE, HINT))
#define __TR_C(P, SITE, HINT) ((__typeof__(P)) __tr_c(__tr_ptr, (__constant uchar*)(P), \
    (uint)sizeof(*(P)), SITE, HINT))
#define __TR_L(P, SITE, HINT) ((__typeof__(P)) __tr_l(__tr_ptr, (__local uchar*)(P), \
    (uint)sizeof(*(P)), SITE, HINT))
#define __TR_VG(P, W, SITE, HINT) ((__typeof__(P)) __tr_g(__tr_ptr, (__global uchar*)(P), \
    (uint)((W) * sizeof(*(P))), SITE, HINT))
#define __TR_VC(P, W, SITE, HINT) ((__typeof__(P)) __tr_c(__tr_ptr, (__constant uchar*)(P), \
    (uint)((W) * sizeof(*(P))), SITE, HINT))
#define __TR_VL(P, W, SITE, HINT) ((__typeof__(P)) __tr_l(__tr_ptr, (__local uchar*)(P), \
    (uint)((W) * sizeof(*(P))), SITE, HINT))
/* ---- end of trace instrumentation ---- */
#line 1
"""

EXTRA_PARAMS = (
    "__global uint* __tr_roff",
    "__global uint* __tr_rword",
    "__global const ulong* __tr_off",
    "__global uint* __tr_cnt",
    "volatile __global uint* __tr_disp",
    "__global const int* __tr_slot",
    "__global const ulong* __tr_len",
    "__global ulong* __tr_meta",
    "__global uchar* __tr_gdummy",
    "uint __tr_count_only",
)


def _param_spans(rw: _Rewriter, open_k: int) -> list[tuple[int, int]]:
    spans = rw.split_args(open_k)
    return [(a, b) for a, b in spans if b > a]


def _find_kernel(rw: _Rewriter, kernel: str) -> tuple[int, int, int]:
    """(index of '(' of the parameter list, index of '{', index of '}') of the kernel."""
    for k in range(len(rw.code)):
        t = rw.tok(k)
        if t.kind == "ident" and t.text == kernel and rw.tok(k + 1).text == "(":
            close = rw.match(k + 1)
            if rw.tok(close + 1).text != "{":
                continue
            back = k - 1
            while back >= 0 and rw.tok(back).text not in (";", "}", "{"):
                if rw.tok(back).text in ("__kernel", "kernel"):
                    body = close + 1
                    return k + 1, body, rw.match(body)
                back -= 1
    raise InstrumentError(f"no '__kernel void {kernel}(...)' definition in the source")


def _declarators(rw: _Rewriter, k0: int, k1: int) -> list[tuple[int, int]]:
    """Comma-separated declarators of a declaration statement k0..k1 (k1 = the ';')."""
    parts, start, j = [], k0, k0
    while j < k1:
        if rw.tok(j).text in ("(", "[", "{"):
            j = rw.match(j) + 1
            continue
        if rw.tok(j).text == ",":
            parts.append((start, j))
            start = j + 1
        j += 1
    parts.append((start, k1))
    return parts


def _functions(rw: _Rewriter) -> list[tuple[str, int, int, int, bool]]:
    """Top-level function definitions: (name, '(' of params, '{', '}', is_kernel)."""
    found = []
    depth = 0
    k = 0
    while k < len(rw.code):
        t = rw.tok(k)
        if t.text == "{":
            depth += 1
        elif t.text == "}":
            depth -= 1
        elif (
            depth == 0
            and t.kind == "ident"
            and rw.tok(k + 1).text == "("
            and t.text not in ("if", "for", "while", "switch", "__attribute__")
        ):
            close = rw.match(k + 1)
            if rw.tok(close + 1).text == "{":
                body_close = rw.match(close + 1)
                back, is_kernel = k - 1, False
                while back >= 0 and rw.tok(back).text not in (";", "}", "{"):
                    if rw.tok(back).text in ("__kernel", "kernel"):
                        is_kernel = True
                    back -= 1
                found.append((t.text, k + 1, close + 1, body_close, is_kernel))
                k = body_close + 1
                continue
        k += 1
    return found


def _pointer_params(rw: _Rewriter, params_open: int) -> list[tuple[int, str, int | str]]:
    """(position, name, space) of each address-space pointer parameter."""
    out = []
    for index, (a, b) in enumerate(_param_spans(rw, params_open)):
        words = [rw.tok(j) for j in range(a, b)]
        ident = [t.text for t in words if t.kind == "ident"]
        space = next((_SPACES[w] for w in ident if w in _SPACES), None)
        if any(t.text == "*" for t in words) and space is not None:
            out.append((index, ident[-1], space))
    return out


def _scan_declarations(
    rw: _Rewriter,
    body_open: int,
    body_close: int,
    names: dict[str, _Name],
    buffers: list[BufferDecl],
    registrations: dict[int, str],
    allow_arrays: bool,
) -> None:
    derived: list = []  # type: ignore[type-arg]
    k = body_open + 1
    while k < body_close:
        t = rw.tok(k)
        if (
            t.text in _SPACES
            and rw.tok(k - 1).text not in ("(", "*")
            and not _inside_parens(rw, body_open, k)
        ):
            end = k
            while rw.tok(end).text != ";" and end < body_close:
                if rw.tok(end).text in ("(", "[", "{"):
                    end = rw.match(end)
                end += 1
            space = _SPACES[t.text]
            for d0, d1 in _declarators(rw, k + 1, end):
                _declare(
                    rw,
                    d0,
                    d1,
                    space,
                    names,
                    buffers if allow_arrays else [],
                    registrations,
                    derived,
                    end,
                )
            k = end + 1
            continue
        k += 1
    for name, source_name, space, _line, _ in derived:
        names[name] = _Name(space, source_name.buffer if source_name else NO_BUFFER, 1)


def instrument(source: str, kernel: str) -> Instrumented:
    """The traced version of ``kernel`` in ``source``.

    Helper functions that take ``__global``/``__local``/``__constant`` pointers are traced
    too: they receive the trace state as an extra last argument. Other kernels in the file
    keep working, untraced.
    """
    tokens = tokenize(source)
    state = _State()
    probe = _Rewriter(source, tokens, {}, state)
    functions = _functions(probe)
    target = [f for f in functions if f[0] == kernel and f[4]]
    if not target:
        raise InstrumentError(f"no '__kernel void {kernel}(...)' definition in the source")
    helpers = {f[0] for f in functions if not f[4] and _pointer_params(probe, f[1])}

    buffers: list[BufferDecl] = []
    kernel_names: dict[str, _Name] = {}
    _, params_open, body_open, body_close, _ = target[0]
    for index, name, space in _pointer_params(probe, params_open):
        bid = len(buffers)
        buffers.append(BufferDecl(bid, name, space, index, 1))
        kernel_names[name] = _Name(space, bid, 1)
    registrations: dict[int, str] = {}
    kernel_rw = _Rewriter(source, tokens, kernel_names, state)
    _scan_declarations(
        kernel_rw, body_open, body_close, kernel_names, buffers, registrations, allow_arrays=True
    )
    if len(buffers) > MAX_BUFFERS - 1:
        raise InstrumentError(f"more than {MAX_BUFFERS - 1} buffers to trace")
    kernel_rw.inserts_after = registrations
    kernel_rw.declared = probe.declared | kernel_rw.declared

    for j in range(len(probe.code)):
        t = probe.tok(j)
        if t.kind == "pp" and "[" in t.text:
            used = [n for n in kernel_names if re.search(rf"\b{re.escape(n)}\s*\[", t.text)]
            if used:
                state.not_traced.append(
                    (t.line, f"accesses to {', '.join(used)} inside a macro are not traced")
                )

    # Replacements over the original text, applied back to front: (start, end, new text).
    edits: list[tuple[int, int, str]] = []
    for name, f_params, f_open, f_close, is_kernel in functions:
        if is_kernel and name == kernel:
            rw = kernel_rw
            rw.in_kernel = True
            extra = ", " + ", ".join(EXTRA_PARAMS)
            opening = _begin_code(buffers, state.uses_local)  # filled after the rewrite
        elif name in helpers:
            names: dict[str, _Name] = {
                n: _Name(space, NO_BUFFER, 1) for _, n, space in _pointer_params(probe, f_params)
            }
            rw = _Rewriter(source, tokens, names, state)
            _scan_declarations(rw, f_open, f_close, names, [], {}, allow_arrays=False)
            extra, opening = ", __tr_state* __tr_ptr", ""
        elif is_kernel:
            rw = _Rewriter(source, tokens, {}, state)
            extra, opening = "", " __tr_state* __tr_ptr = 0;"
        else:
            continue
        rw.helpers = helpers
        body = rw.rewrite(f_open + 1, f_close) if f_close > f_open + 1 else ""
        if is_kernel and name == kernel:
            opening = _begin_code(buffers, state.uses_local)
            closing = " __tr_end(__tr_ptr); "
        else:
            closing = ""
        params_close = rw.match(f_params)
        close_at = rw.tok(params_close).start
        if extra:
            empty = params_close == f_params + 1 or (
                params_close == f_params + 2 and rw.tok(f_params + 1).text == "void"
            )
            if empty:
                edits.append((rw.tok(f_params).start + 1, close_at, extra.lstrip(", ")))
            else:
                edits.append((close_at, close_at, extra))
        open_end = rw.tok(f_open).start + 1
        if f_close > f_open + 1:
            first = rw.tok(f_open + 1).start
            last = rw.tok(f_close - 1)
            body_end = last.start + len(last.text)
            edits.append((open_end, open_end, opening))
            edits.append((first, body_end, body + closing))
        else:
            edits.append((open_end, open_end, opening + closing))

    new_source = source
    for start, end_, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        new_source = new_source[:start] + text + new_source[end_:]
    prelude = _PRELUDE
    for name, value in (
        ("NB", max(1, len(buffers))),  # the record word's layout is the one records.py reads
        ("NO_BUFFER", NO_BUFFER),
        ("MAX_PHASE", MAX_PHASE),
        ("PHASE_SHIFT", PHASE_SHIFT),
        ("BUFFER_SHIFT", BUFFER_SHIFT),
        ("OOB_SHIFT", OOB_BIT.bit_length() - 1),
        ("SIZE_SHIFT", SIZE_SHIFT),
    ):
        prelude = prelude.replace(f"@{name}@", str(value))
    return Instrumented(
        source=prelude + new_source,
        kernel=kernel,
        buffers=tuple(buffers),
        sites=tuple(state.sites),
        not_traced=tuple(state.not_traced),
        extra_params=EXTRA_PARAMS,
    )


def _inside_parens(rw: _Rewriter, body_open: int, k: int) -> bool:
    depth = 0
    for j in range(body_open + 1, k):
        text = rw.tok(j).text
        if text == "(":
            depth += 1
        elif text == ")":
            depth -= 1
    return depth > 0


def _declare(
    rw: _Rewriter,
    d0: int,
    d1: int,
    space: int | str,
    names: dict[str, _Name],
    buffers: list[BufferDecl],
    registrations: dict[int, str],
    derived: list,
    end: int,
) -> None:  # type: ignore[type-arg]
    """Record one declarator: a pointer (tracked by name) or a local array (a buffer)."""
    stop = d0
    while stop < d1 and rw.tok(stop).text not in ("[", "=", "("):
        stop += 1
    eq = next((j for j in range(d0, d1) if rw.tok(j).text == "="), d1)
    before = [
        j
        for j in range(d0, stop)
        if rw.tok(j).kind == "ident"
        and rw.tok(j).text not in _SPACES
        and rw.tok(j).text not in ("const", "volatile")
    ]
    if not before:
        return
    name_k = before[-1]
    name = rw.tok(name_k).text
    pointer = any(rw.tok(j).text == "*" for j in range(d0, name_k))
    if pointer:
        source_name = rw.first_name(eq + 1, d1) if eq < d1 else None
        derived.append((name, source_name, space, rw.tok(name_k).line, name_k))
        names[name] = _Name(space, source_name.buffer if source_name else NO_BUFFER, 1)
        return
    dims = 0
    j = name_k + 1
    dim_texts = []
    while rw.tok(j).text == "[":
        close = rw.match(j)
        dim_texts.append(rw.text(j + 1, close))
        dims += 1
        j = close + 1
    if space != LOCAL or dims == 0:
        return
    bid = len(buffers)
    rw.declared.add(name_k)
    buffers.append(BufferDecl(bid, name, LOCAL, None, dims))
    names[name] = _Name(LOCAL, bid, dims)
    element = name + "[0]" * dims
    shape = [f"(ulong)({d})" for d in dim_texts][:4] + ["1"] * (4 - min(dims, 4))
    registrations[end] = (
        f" __tr.lb[{bid}] = (__local uchar*){name}; __tr.ll[{bid}] = sizeof({name});"
        f" __tr_describe(__tr_ptr, {bid}u, sizeof({element}), sizeof({name}), {', '.join(shape)});"
    )


def _begin_code(buffers: list[BufferDecl], uses_local: bool) -> str:
    dummy = " __local uchar __tr_ldummy[256];" if uses_local else ""
    ldummy = "__tr_ldummy" if uses_local else "0"
    code = [
        f"{dummy} __tr_state __tr; __tr_state* __tr_ptr = &__tr;"
        f" __tr_begin(__tr_ptr, __tr_roff, __tr_rword, __tr_off, __tr_cnt, __tr_disp,"
        f" __tr_slot, __tr_meta, __tr_gdummy, {ldummy}, __tr_count_only);"
        # A counting launch covers only the groups it was given; the others leave at once
        # (the whole group: no barrier is left waiting).
        " if (__tr_count_only && !__tr.on) return;"
    ]
    for b in buffers:
        if b.param_index is None:
            continue
        prefix = {GLOBAL: "g", LOCAL: "l", "constant": "c"}[b.space]
        cast = {GLOBAL: "__global", LOCAL: "__local", "constant": "__constant"}[b.space]
        code.append(
            f" __tr.{prefix}b[{b.id}] = ({cast} uchar*){b.name};"
            f" __tr.{prefix}l[{b.id}] = __tr_len[{b.id}];"
            f" __tr_describe(__tr_ptr, {b.id}u, sizeof(*{b.name}), __tr_len[{b.id}], "
            f"__tr_len[{b.id}] / sizeof(*{b.name}), 1, 1, 1);"
        )
    return "".join(code)
