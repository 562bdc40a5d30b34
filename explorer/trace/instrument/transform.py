"""``instrument``: the traced version of one kernel of a source."""

from __future__ import annotations

import re

from explorer.trace.instrument.declarations import (
    find_functions,
    pointer_params,
    scan_declarations,
)
from explorer.trace.instrument.model import MAX_BUFFERS, BufferDecl, Instrumented, InstrumentError
from explorer.trace.instrument.rewriter import Name, Rewriter, State
from explorer.trace.instrument.runtime import EXTRA_PARAMS, begin_code, prelude
from explorer.trace.instrument.tokens import tokenize
from explorer.trace.records import NO_BUFFER


def instrument(source: str, kernel: str) -> Instrumented:
    """The traced version of ``kernel`` in ``source``.

    Helper functions that take ``__global``/``__local``/``__constant`` pointers are traced
    too: they receive the trace state as an extra last argument. Other kernels in the file
    keep working, untraced.
    """
    tokens = tokenize(source)
    state = State()
    probe = Rewriter(source, tokens, {}, state)
    functions = find_functions(probe)
    target = [f for f in functions if f[0] == kernel and f[4]]
    if not target:
        raise InstrumentError(f"no '__kernel void {kernel}(...)' definition in the source")
    helpers = {f[0] for f in functions if not f[4] and pointer_params(probe, f[1])}

    buffers: list[BufferDecl] = []
    kernel_names: dict[str, Name] = {}
    _, params_open, body_open, body_close, _ = target[0]
    for index, name, space in pointer_params(probe, params_open):
        bid = len(buffers)
        buffers.append(BufferDecl(bid, name, space, index, 1))
        kernel_names[name] = Name(space, bid, 1)
    registrations: dict[int, str] = {}
    kernel_rw = Rewriter(source, tokens, kernel_names, state)
    scan_declarations(
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
            opening = begin_code(buffers, state.uses_local)  # filled after the rewrite
        elif name in helpers:
            names: dict[str, Name] = {
                n: Name(space, NO_BUFFER, 1) for _, n, space in pointer_params(probe, f_params)
            }
            rw = Rewriter(source, tokens, names, state)
            scan_declarations(rw, f_open, f_close, names, [], {}, allow_arrays=False)
            extra, opening = ", __tr_state* __tr_ptr", ""
        elif is_kernel:
            rw = Rewriter(source, tokens, {}, state)
            extra, opening = "", " __tr_state* __tr_ptr = 0;"
        else:
            continue
        rw.helpers = helpers
        body = rw.rewrite(f_open + 1, f_close) if f_close > f_open + 1 else ""
        if is_kernel and name == kernel:
            opening = begin_code(buffers, state.uses_local)
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
    return Instrumented(
        source=prelude(len(buffers)) + new_source,
        kernel=kernel,
        buffers=tuple(buffers),
        sites=tuple(state.sites),
        not_traced=tuple(state.not_traced),
        extra_params=EXTRA_PARAMS,
    )
