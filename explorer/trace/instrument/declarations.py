"""Finding what to trace: the functions of a source, the kernel's pointer parameters, and the
pointers and ``__local`` arrays each body declares."""

from __future__ import annotations

from explorer.trace.instrument.model import BufferDecl
from explorer.trace.instrument.rewriter import Name, Rewriter
from explorer.trace.instrument.tokens import SPACES
from explorer.trace.records import LOCAL, NO_BUFFER

# Pointers declared in a body: (name, the name it was derived from, space, line, token index)
Derived = list[tuple[str, Name | None, int | str, int, int]]


def param_spans(rw: Rewriter, open_k: int) -> list[tuple[int, int]]:
    """Token ranges of the non-empty arguments (or parameters) of the list opening at ``open_k``."""
    spans = rw.split_args(open_k)
    return [(a, b) for a, b in spans if b > a]


def declarators(rw: Rewriter, k0: int, k1: int) -> list[tuple[int, int]]:
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


def find_functions(rw: Rewriter) -> list[tuple[str, int, int, int, bool]]:
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


def pointer_params(rw: Rewriter, params_open: int) -> list[tuple[int, str, int | str]]:
    """(position, name, space) of each address-space pointer parameter."""
    out = []
    for index, (a, b) in enumerate(param_spans(rw, params_open)):
        words = [rw.tok(j) for j in range(a, b)]
        ident = [t.text for t in words if t.kind == "ident"]
        space = next((SPACES[w] for w in ident if w in SPACES), None)
        if any(t.text == "*" for t in words) and space is not None:
            out.append((index, ident[-1], space))
    return out


def scan_declarations(
    rw: Rewriter,
    body_open: int,
    body_close: int,
    names: dict[str, Name],
    buffers: list[BufferDecl],
    registrations: dict[int, str],
    allow_arrays: bool,
) -> None:
    """Register the pointers a body declares in ``names`` and, with ``allow_arrays``, its
    ``__local`` arrays as buffers (with the code that registers them at run time)."""
    derived: Derived = []
    k = body_open + 1
    while k < body_close:
        t = rw.tok(k)
        if (
            t.text in SPACES
            and rw.tok(k - 1).text not in ("(", "*")
            and not inside_parens(rw, body_open, k)
        ):
            end = k
            while rw.tok(end).text != ";" and end < body_close:
                if rw.tok(end).text in ("(", "[", "{"):
                    end = rw.match(end)
                end += 1
            space = SPACES[t.text]
            for d0, d1 in declarators(rw, k + 1, end):
                declare(
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
        names[name] = Name(space, source_name.buffer if source_name else NO_BUFFER, 1)


def inside_parens(rw: Rewriter, body_open: int, k: int) -> bool:
    """Whether the token at ``k`` sits inside parentheses (a cast, a parameter list)."""
    depth = 0
    for j in range(body_open + 1, k):
        text = rw.tok(j).text
        if text == "(":
            depth += 1
        elif text == ")":
            depth -= 1
    return depth > 0


def declare(
    rw: Rewriter,
    d0: int,
    d1: int,
    space: int | str,
    names: dict[str, Name],
    buffers: list[BufferDecl],
    registrations: dict[int, str],
    derived: Derived,
    end: int,
) -> None:
    """Record one declarator: a pointer (tracked by name) or a local array (a buffer)."""
    stop = d0
    while stop < d1 and rw.tok(stop).text not in ("[", "=", "("):
        stop += 1
    eq = next((j for j in range(d0, d1) if rw.tok(j).text == "="), d1)
    before = [
        j
        for j in range(d0, stop)
        if rw.tok(j).kind == "ident"
        and rw.tok(j).text not in SPACES
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
        names[name] = Name(space, source_name.buffer if source_name else NO_BUFFER, 1)
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
    names[name] = Name(LOCAL, bid, dims)
    element = name + "[0]" * dims
    shape = [f"(ulong)({d})" for d in dim_texts][:4] + ["1"] * (4 - min(dims, 4))
    registrations[end] = (
        f" __tr.lb[{bid}] = (__local uchar*){name}; __tr.ll[{bid}] = sizeof({name});"
        f" __tr_describe(__tr_ptr, {bid}u, sizeof({element}), sizeof({name}), {', '.join(shape)});"
    )
