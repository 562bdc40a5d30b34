"""Which private arrays are checked for reads of elements the work-item never wrote, and the
shadow each of them gets.

A private array starts with indeterminate values (C, and so OpenCL C: a GPU gives whatever
the registers or stack held, a CPU often zeros). A checked array gets a shadow declared just
after it, ``uchar __tr_w<id>[elements] = {0};``, one byte per element, in the same scope (so it
starts over wherever the array does), and ``uint __tr_w<id>_left``, how many elements are
still unwritten. Its instrumented writes set their elements' bytes; an instrumented read of an
element whose byte is 0 makes one record (``ROLE_UNSET``) and sets it, so each element is
reported once per work-item and a correct kernel records nothing more. Once every element is
set, an access tests ``_left`` alone (a scalar a compiler keeps in a register) beside its
bounds check: a zeroed accumulator costs little more in the hot loop than before.

An array of vectors has a byte per component (``slots``): ``w[0].x = 1`` sets one, and a
read of ``w[0].y`` or of the whole ``w[0]`` tests its own.

An array is checked only where every write to it is an instrumented one: not when its
declaration (or its struct's) gives it a value, not when its shadow would take more than
``SHADOW_BYTES``, not where a jump may enter its scope past its declaration (``jump_into``:
the shadow's initialiser would be jumped over too), and not when its name is used anywhere
but in its own element accesses, in the value of a private pointer variable whose accesses
all lead to it alone, and as the argument of a helper's followed parameter
(``followed_parameters``: the helper's accesses through it are checked against the array the
call describes). A struct assigned whole, a helper that lets the pointer go, an address the
front end does not follow: any of those may write elements the trace does not see. The
arrays too large or jumped into are `not-traced` notes (buffers.py).
"""

from __future__ import annotations

import functools
import math
import re

from explorer.frontend import AccessKind, AccessSite, AddressSpace, ParsedSource, Variable

# Larger arrays are not checked (a byte of private memory per element, or per component of
# a vector element, beside the array), and the trace says so.
SHADOW_BYTES = 4096
SHADOW_PREFIX = "__tr_w"
# The accesses that read or write a checked array's elements through the runtime.
CHECKED_KINDS = (
    AccessKind.READ,
    AccessKind.WRITE,
    AccessKind.READ_MODIFY_WRITE,
    AccessKind.VLOAD,
    AccessKind.VSTORE,
)
_IDENT = re.compile(r"[A-Za-z_]\w*")
# A private pointer variable given the array's address: `float *p = a + 2;`, `p = &a[k];`.
_POINTER_VALUE = re.compile(r"(?:\*\s*[A-Za-z_]\w*|(?<![\w.\]>])[A-Za-z_]\w*)\s*=\s*[^=;]*$")


def checked_arrays(
    parsed: ParsedSource,
    variables: list[Variable],
    followed: set[tuple[str, str]] | None = None,
) -> set[tuple[str, str]]:
    """The (function, name) of each private array of ``variables`` whose unwritten reads the
    trace can check (see the module's docstring); ``followed``: the helpers' parameters
    whose accesses are checked as the array's own (``followed_parameters``)."""
    followed = followed if followed is not None else set()
    declared = _declared_names(variables)
    bodies = {f.name: f.body for f in (*parsed.kernels, *parsed.helpers)}
    unsure = {u.function for u in parsed.unclassified}
    text = without_comments(parsed.source)
    out = set()
    for v in variables:
        key = (v.function, v.name)
        body = bodies.get(v.function)
        if (
            body is None
            or v.initialised
            or declared[key] > 1  # two arrays of one name (in two scopes): not told apart
            or v.function in unsure
            or not 0 < shadow_bytes(v) <= SHADOW_BYTES
            or jump_into(text, v, body.start, body.end)
        ):
            continue
        if _only_own_accesses(parsed, v, body.start, body.end, followed):
            out.add(key)
    return out


def _declared_names(variables: list[Variable]) -> dict[tuple[str, str], int]:
    declared: dict[tuple[str, str], int] = {}
    for v in variables:
        key = (v.function, v.name)
        declared[key] = declared.get(key, 0) + 1
    return declared


def shadow_bytes(v: Variable) -> int:
    """The bytes of ``v``'s shadow: one per element, or per component of a vector element."""
    return math.prod(v.shape or (1,)) * slots(v)[1]


def described_arrays(
    parsed: ParsedSource, variables: list[Variable], followed: set[tuple[str, str]]
) -> set[tuple[str, str]]:
    """The private arrays a call passes to a followed parameter of a helper: each gets a
    description beside it (runtime.cl's ``__tr_parr``) whose address the call passes. Not
    one whose declaration a jump may pass (its description would hold nothing), nor one of
    two arrays of one name."""
    declared = _declared_names(variables)
    bodies = {f.name: f.body for f in (*parsed.kernels, *parsed.helpers)}
    text = without_comments(parsed.source)
    passed = {
        (c.function, roots[0])
        for c in parsed.calls
        for i, roots in enumerate(c.argument_roots)
        if len(roots) == 1 and (c.callee, parameter_name(parsed, c.callee, i)) in followed
    }
    out = set()
    for v in variables:
        key = (v.function, v.name)
        body = bodies.get(v.function)
        if key not in passed or body is None or declared[key] > 1:
            continue
        if not jump_into(text, v, body.start, body.end):
            out.add(key)
    return out


def parameter_name(parsed: ParsedSource, function: str, index: int) -> str:
    """The name of a helper's ``index``-th parameter, "" where there is none."""
    helper = next((f for f in parsed.helpers if f.name == function), None)
    if helper is None or index >= len(helper.parameters):
        return ""
    return helper.parameters[index].name


def followed_parameters(parsed: ParsedSource) -> set[tuple[str, str]]:
    """The (helper, parameter) of each private pointer parameter whose accesses the trace
    checks against the array a call gives it: every use of it in the helper is one of its
    own accesses (through it alone), the value of a private pointer whose accesses lead to
    it alone, or an argument for another followed parameter. A call that gives it an array
    passes that array's description; any other call passes none (nothing checked there)."""
    unsure = {u.function for u in parsed.unclassified}
    helpers = {f.name: f for f in parsed.helpers if f.name not in unsure}
    followed = {
        (f.name, p.name)
        for f in helpers.values()
        for p in f.parameters
        if (p.is_pointer or "[" in p.type_text)  # `float acc[4][4]` is a pointer too
        and p.address_space is AddressSpace.PRIVATE
        and p.name
    }
    changed = True
    while changed:
        changed = False
        for fn, name in sorted(followed):
            body = helpers[fn].body
            own = Variable(name, fn, 0, AddressSpace.PRIVATE, (), 0, body.start, False, body.start)
            if not _only_own_accesses(parsed, own, body.start, body.end, followed):
                followed.discard((fn, name))
                changed = True
    return followed


_LABEL = re.compile(r"(?<=[;{}:])\s*(?:(case)\b[^;{}]*?|(default)|([A-Za-z_]\w*))\s*:(?!:)")


def jump_into(text: str, v: Variable, start: int, end: int) -> int:
    """The line of a label through which a jump may enter the scope of ``v`` past its
    declaration (a ``case`` of a switch whose body holds the declaration, a label after it
    that a ``goto`` from before it or outside its block names), 0 where there is none: the
    shadow declared after it would hold nothing there."""
    opening = _enclosing_brace(text, v.decl_start if v.decl_start >= 0 else v.decl_end, start)
    if opening < 0:
        return 0
    closing = _matching_brace(text, opening, end)
    for m in _LABEL.finditer(text, v.decl_end, closing):
        at = m.start(m.lastindex or 0)
        line = v.line + text.count("\n", v.decl_end, at)  # the user's, as v.line is
        if m.group(1) or m.group(2):
            if _enclosing_brace(text, at, start) < v.decl_end:  # the switch holds the array
                return line
            continue
        for g in re.finditer(rf"\bgoto\s+{m.group(3)}\s*;", text[start:end]):
            if not v.decl_end <= start + g.start() < closing:
                return line
    return 0


def _enclosing_brace(text: str, at: int, start: int) -> int:
    """The offset of the innermost ``{`` open at ``at`` (from ``start``), -1 if none."""
    depth = 0
    for i in range(at - 1, start - 1, -1):
        ch = text[i]
        if ch == "}":
            depth += 1
        elif ch == "{":
            if depth == 0:
                return i
            depth -= 1
    return -1


def _matching_brace(text: str, opening: int, end: int) -> int:
    depth = 0
    for i in range(opening, end):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return end


def _only_own_accesses(
    parsed: ParsedSource,
    v: Variable,
    start: int,
    end: int,
    followed: set[tuple[str, str]] | None = None,
) -> bool:
    """Whether every write to ``v`` is one of its own element accesses the runtime sees (or
    an access through a followed parameter of a helper a call gives it to)."""
    followed = followed or set()
    mine = [a for a in parsed.accesses if a.function == v.function and v.name in a.roots]
    if any(len(a.roots) != 1 or not _seen(a) for a in mine):
        return False  # through a pointer that may point elsewhere too, or not rewritten
    calls = []
    for call in parsed.calls:
        if call.function != v.function:
            continue
        for i, roots in enumerate(call.argument_roots):
            if not any(v.name in r for r in roots):
                continue
            into = (call.callee, parameter_name(parsed, call.callee, i))
            if roots != (v.name,) or into not in followed:
                return False  # a helper is given it, and its accesses are not followed
            calls.append((call.span.start, call.span.end))
    spans = [(a.span.start, a.span.end) for a in mine] + calls
    text = without_comments(parsed.source)
    root = v.name.split(".")[0]
    statement_start = v.decl_start  # `float a[4] = {0}, b[4];`: b's declaration from `float`
    if statement_start < 0:
        statement_start = max(text.rfind(ch, start, v.decl_end - 1) for ch in ";{}") + 1
    for m in _IDENT.finditer(text, start, end):
        if m.group() != root or _member_name(text, m.start()):
            continue
        at = m.start()
        if statement_start <= at < v.decl_end:
            continue  # its own declaration
        if any(s <= at < e for s, e in spans) or re.search(r"\bsizeof\s*\(?\s*$", text[:at]):
            continue
        path = _dotted(text, at)
        if "." in v.name and path != v.name and not _overlaps(path, v.name):
            continue  # another member of the struct (`s.n = 3`)
        if "." in v.name and path != v.name and _read_whole(text, at, len(path)):
            continue  # the struct (or a member holding the array) copied: `t = s`, `f(s)`
        if "." not in v.name or path == v.name:
            head = text[max(text.rfind(ch, start, at) for ch in ";{}(,") + 1 : at]
            if _POINTER_VALUE.search(head) and not head.lstrip().startswith("return"):
                continue  # the value of a private pointer: its accesses lead to it (above)
        return False
    return True


_COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.DOTALL)


@functools.lru_cache(maxsize=4)
def without_comments(text: str) -> str:
    """``text`` with its comments and strings blanked (every offset kept); one source's is
    asked for once an array and a pass, so the last few are kept."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def _read_whole(text: str, at: int, length: int) -> bool:
    """Whether the value at ``at`` (``length`` characters of its dotted name) is only read:
    not assigned, incremented, nor its address taken."""
    after = text[at:].lstrip()
    rest = text[at + length :].lstrip()
    if text[:at].rstrip().endswith("&") or rest[:2] in ("++", "--"):
        return False
    assigned = re.match(r"(?:[-+*/%&|^]|<<|>>)?=(?!=)", rest)
    return assigned is None and not after.startswith("[")


def _seen(a: AccessSite) -> bool:
    """Whether the rewrite passes the access through the runtime with the array's shadow."""
    if a.kind is AccessKind.WRITE and a.builtin is not None:
        return bool(a.arguments)  # sincos(x, &a[k]): through its last argument
    return a.kind in CHECKED_KINDS


def _member_name(text: str, at: int) -> bool:
    """Whether the identifier at ``at`` is a member name (``x.s``, ``p->s``)."""
    before = text[:at].rstrip()
    return before.endswith(".") or before.endswith("->")


def _dotted(text: str, at: int) -> str:
    """The name with the members taken of it from ``at`` (``s.inner.v``)."""
    m = re.compile(r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*").match(text, at)
    return re.sub(r"\s+", "", m.group()) if m else ""


def _overlaps(path: str, name: str) -> bool:
    """Whether ``path`` is ``name``, a struct holding it, or inside it."""
    return path == name or name.startswith(path + ".") or path.startswith(name + ".")


def shadow_name(buffer: int) -> str:
    return f"{SHADOW_PREFIX}{buffer}"


def slots(v: Variable) -> tuple[int, int]:
    """The bytes one shadow byte stands for in ``v`` and how many of those an element holds:
    a component of a vector element (``w[0].x`` sets one and ``w[0].y`` reads another), else
    the whole element. A 3-component vector takes the bytes of 4: its fourth is padding."""
    if v.components > 0:
        stored = 4 if v.components == 3 else v.components
        if v.element_size % stored == 0:
            return v.element_size // stored, stored
    return max(1, v.element_size), 1


def shadow_declaration(buffer: int, v: Variable) -> str:
    """The shadow of a checked array, declared just after it: every element (every
    component of a vector element) unwritten, and how many are (``<shadow>_left``; the
    runtime counts it down). The padding of a 3-component vector is never read: set."""
    per = slots(v)[1]
    n = math.prod(v.shape or (1,)) * per
    name = shadow_name(buffer)
    if v.components == 3 and per == 4:
        k = f"{name}_k"
        padding = f" for (uint {k} = 3u; {k} < {n}u; {k} += 4u) {name}[{k}] = 1u;"
        return f" uchar {name}[{n}] = {{0}};{padding} uint {name}_left = {n // 4 * 3}u;"
    return f" uchar {name}[{n}] = {{0}}; uint {name}_left = {n}u;"
