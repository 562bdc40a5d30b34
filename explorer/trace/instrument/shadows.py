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

An array is checked only where every write to it is an instrumented one: not when its
declaration (or its struct's) gives it a value, not when it has more elements than
``SHADOW_ELEMENTS``, and not when its name is used anywhere but in its own element accesses
and in the value of a private pointer variable whose accesses all lead to it alone (a
helper given the array or such a pointer, a struct assigned whole, an address the front end
does not follow: any of those may write elements the trace does not see).
"""

from __future__ import annotations

import math
import re

from explorer.frontend import AccessKind, AccessSite, ParsedSource, Variable

SHADOW_ELEMENTS = 256  # larger arrays are not checked: a byte per element of private memory
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


def checked_arrays(parsed: ParsedSource, variables: list[Variable]) -> set[tuple[str, str]]:
    """The (function, name) of each private array of ``variables`` whose unwritten reads the
    trace can check (see the module's docstring)."""
    declared: dict[tuple[str, str], int] = {}
    for v in variables:
        key = (v.function, v.name)
        declared[key] = declared.get(key, 0) + 1
    bodies = {f.name: f.body for f in (*parsed.kernels, *parsed.helpers)}
    unsure = {u.function for u in parsed.unclassified}
    out = set()
    for v in variables:
        key = (v.function, v.name)
        body = bodies.get(v.function)
        if (
            body is None
            or v.initialised
            or declared[key] > 1  # two arrays of one name (in two scopes): not told apart
            or v.function in unsure
            or not 0 < math.prod(v.shape or (1,)) <= SHADOW_ELEMENTS
        ):
            continue
        if _only_own_accesses(parsed, v, body.start, body.end):
            out.add(key)
    return out


def _only_own_accesses(parsed: ParsedSource, v: Variable, start: int, end: int) -> bool:
    """Whether every write to ``v`` is one of its own element accesses the runtime sees."""
    mine = [a for a in parsed.accesses if a.function == v.function and v.name in a.roots]
    if any(len(a.roots) != 1 or not _seen(a) for a in mine):
        return False  # through a pointer that may point elsewhere too, or not rewritten
    for call in parsed.calls:
        if call.function == v.function and any(v.name in r for r in call.argument_roots):
            return False  # a helper is given it
    spans = [(a.span.start, a.span.end) for a in mine]
    text = _without_comments(parsed.source)
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


def _without_comments(text: str) -> str:
    """``text`` with its comments and strings blanked (every offset kept)."""
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
