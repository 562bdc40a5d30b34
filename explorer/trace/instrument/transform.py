"""``instrument``: the traced version of one kernel of a source, driven by the front end.

The front end (``explorer.frontend``) has already decided, with clang's preprocessor and
typing, what every expression does to memory; this module only rewrites the spans it gives.
When an access, a barrier or a call of a helper was written inside a macro, the source is
first expanded (with the build's own defines, ``#line`` kept) and the expanded text is
rewritten instead, so every access a macro writes is wrapped on its own and compiler
messages still carry the user's lines.

Each access becomes ``(*__TR_G(&(access), site, buffer))``: the runtime records the byte
offset and returns the same pointer (or a scratch slot when the access is out of bounds).
Rewrites nest: an access inside the index of another is rewritten first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from explorer.frontend import Call, ParsedSource, ParseError, Span, parse, parse_expanded
from explorer.frontend import anatomy as index_anatomy
from explorer.trace.instrument.accesses import DESCRIPTION_PREFIX, AccessRewriter
from explorer.trace.instrument.anatomy import AnatomyRewrite
from explorer.trace.instrument.buffers import declare_buffers
from explorer.trace.instrument.declared import Declared
from explorer.trace.instrument.edits import Edits
from explorer.trace.instrument.events import EventShadows
from explorer.trace.instrument.images import ImageRewriter
from explorer.trace.instrument.model import AnatomyBuild, Instrumented, InstrumentError
from explorer.trace.instrument.runtime import (
    EXIT_LABEL,
    EXTRA_PARAMS,
    RETURN_LABEL,
    begin_code,
    prelude,
)
from explorer.trace.instrument.syncs import rewrite_sync
from explorer.trace.instrument.values import plane_bytes, value_code

FILENAME = "kernel.cl"
STATE_PARAM = "__tr_state* __tr_ptr"


class _Rewrite:
    """One rewrite of one parsed source for one kernel: its buffers declared, then its
    accesses (:mod:`accesses`) and synchronisation (:mod:`syncs`) rewritten to record what
    they do, the trace state passed to the helpers it calls, and its entry and exits."""

    def __init__(
        self,
        parsed: ParsedSource,
        kernel: str,
        values: bool = False,
        anatomy: tuple[index_anatomy.KernelAnatomy, tuple[int, ...]] | None = None,
    ) -> None:
        self.parsed = parsed
        self.kernel = kernel
        self.values = values
        self.declared = Declared()
        self.edits = Edits(parsed.source)
        self.events = EventShadows()
        self.anatomy = anatomy  # the static anatomy and the lines whose values to record
        self.anatomy_rewrite: AnatomyRewrite | None = None
        self.anatomy_build: AnatomyBuild | None = None

    def build(self) -> str:
        """The rewritten source (what it declared is in ``declared``)."""
        parsed, declared = self.parsed, self.declared
        target = next((f for f in parsed.kernels if f.name == self.kernel), None)
        if target is None:
            raise InstrumentError(f"no '__kernel void {self.kernel}(...)' definition in the source")
        registrations = declare_buffers(parsed, target, declared)
        body = parsed.source[target.body.start : target.body.end]
        self.events = EventShadows.of(body)
        for start, end, shadows in self.events.assignments(body):
            at = target.body.start
            self.edits.insert(at + start, at + start, f"({shadows}")
            self.edits.insert(at + end, at + end, ")")
        AccessRewriter(
            parsed, self.kernel, declared, self.edits, self.values, self.events
        ).rewrite_all()
        ImageRewriter(parsed, self.kernel, declared, self.edits).rewrite_all()
        helpers = frozenset(f.name for f in parsed.helpers)
        reached = parsed.reached(self.kernel)  # what a helper nobody calls does never runs
        for s in parsed.syncs:
            rewrite_sync(s, declared, self.edits, self.events, self.kernel, reached)
        declared.parts()  # after every access's site: theirs keep their numbers
        if self.anatomy is not None:  # after every other site: theirs keep their numbers
            static, lines = self.anatomy
            self.anatomy_rewrite = AnatomyRewrite(static, lines, declared, self.edits)
            self.anatomy_build = self.anatomy_rewrite.build()
        for u in parsed.unclassified:
            if u.function in reached:
                declared.not_traced.append((u.line, f"{' '.join(u.text.split())}: {u.reason}"))
        self._pass_state(set(helpers))
        returns = [r for r in parsed.returns if r.function == self.kernel and not r.has_value]
        for r in returns:
            # Every return goes to the kernel's one end (runtime.cl's __tr_end says why).
            self.edits.insert(r.span.start, r.span.start + len("return"), f"goto {RETURN_LABEL}")
        for at, code in registrations:
            self.edits.insert(at, at, code)
        self._enter_and_leave(target.params_close, target.params_empty, target.body, bool(returns))
        return self.edits.apply()

    def _pass_state(self, helpers: set[str]) -> None:
        """The trace state as an extra last argument of every call of a helper, and an
        extra last parameter of its definition and prototypes; other kernels, untraced,
        declare a null one for the helpers they call."""
        parsed, edits, text = self.parsed, self.edits, self.edits.text
        followed = self.declared.followed
        described = {
            p: [q.name for q in f.parameters if (f.name, q.name) in followed]
            for f in parsed.helpers
            for p in [f.name]
        }
        for c in parsed.calls:
            if c.callee in helpers:
                glue = "__tr_ptr" if c.args_empty else ", __tr_ptr"
                glue += "".join(f", {self._description_given(c, q)}" for q in described[c.callee])
                edits.insert(c.args_close, c.args_close, glue)
        declared = [(f.name, f.params_close, f.params_empty) for f in parsed.helpers]
        declared += [(f.name, f.params_close, f.params_empty) for f in parsed.prototypes]
        for name, close, empty in declared:
            if name in helpers and close >= 0:
                glue = STATE_PARAM if empty else ", " + STATE_PARAM
                glue += "".join(
                    f", __private __tr_parr* {DESCRIPTION_PREFIX}{q}" for q in described[name]
                )
                start = text.rfind("(", 0, close) + 1 if empty else close  # `(void)` too
                edits.insert(start, close, glue)
        for f in parsed.kernels:
            if f.name == self.kernel:
                continue
            edits.insert(f.body.start + 1, f.body.start + 1, " __tr_state* __tr_ptr = 0;")

    def _description_given(self, call: Call, parameter: str) -> str:
        """What a call passes for a helper's followed parameter (shadows.py): the address
        of the description of the private array its argument points into, the caller's own
        parameter's where it passes that on, or 0 (nothing checked through it)."""
        declared = self.declared
        traced = {self.kernel, *(f.name for f in self.parsed.helpers)}
        if call.function not in traced:
            return "0"
        helper = next(f for f in self.parsed.helpers if f.name == call.callee)
        index = next(i for i, p in enumerate(helper.parameters) if p.name == parameter)
        roots = call.argument_roots[index] if index < len(call.argument_roots) else ()
        if len(roots) != 1:
            return "0"
        bid = declared.private_arrays.get((call.function, roots[0]))
        if bid is not None and bid in declared.descriptions:
            return f"&{declared.descriptions[bid]}"
        if (call.function, roots[0]) in declared.followed:
            return f"{DESCRIPTION_PREFIX}{roots[0]}"
        return "0"

    def _enter_and_leave(
        self, params_close: int, params_empty: bool, body: Span, returns: bool
    ) -> None:
        """The traced kernel's extra parameters, the trace's start at the top of its body
        and its one end at the bottom: where its returns go (``returns``: it has some), a
        barrier every work-item that ran the kernel reaches, and where the groups outside
        the traced window go at once (runtime.cl's ``__tr_end`` says why)."""
        edits, declared = self.edits, self.declared
        glue = ", ".join(EXTRA_PARAMS)
        start = params_close
        if params_empty:
            start = edits.text.rfind("(", 0, params_close) + 1
        else:
            glue = ", " + glue
        edits.insert(start, params_close, glue)
        opening = body.start + 1
        edits.add(
            opening,
            opening,
            lambda edit: (
                begin_code(declared.buffers, declared.uses_local, declared.uses_private)
                + self.events.declarations()
            ),
        )
        closing = body.end - 1
        label = f" {RETURN_LABEL}:" if returns else ""  # an unused label is a warning
        # Only where barriers sit in the kernel: a kernel without any keeps its shape.
        barrier = " __TR_EXIT_BARRIER();" if declared.barriers else ""
        end = f"{label}{barrier} {EXIT_LABEL}: __tr_end(__tr_ptr); "
        edits.insert(closing, closing, end)


_UNROLL_PRAGMA = re.compile(r"^([ \t]*#[ \t]*pragma[ \t]+unroll)\b[^\n\\]*$", re.MULTILINE)
_UNROLL_OPERATOR = re.compile(r'_Pragma\s*\(\s*"\s*unroll\b[^"]*"\s*\)')
_UNROLL_HINT = re.compile(r"\bopencl_unroll_hint\b(\s*\([^()]*\))?")


def without_unrolling(text: str) -> str:
    """Every loop the source asks to unroll, kept rolled (``#pragma unroll 1``), each on its
    own line as before. A rolled loop makes the same accesses in the same order, so it
    records the same trace; unrolled, every pass copies each access's recording call, and
    the trace builds of the unrolled matmul kernels took NVIDIA's compiler minutes."""
    text = _UNROLL_PRAGMA.sub(r"\1 1", text)
    text = _UNROLL_OPERATOR.sub('_Pragma("unroll 1")', text)
    return _UNROLL_HINT.sub("opencl_unroll_hint(1)", text)


def _parsed(
    source: str, defines: dict[str, int | str], cl_std: str, include_dirs: tuple[str, ...]
) -> tuple[ParsedSource, dict[str, int | str]]:
    """The parse a rewrite works on (the source expanded, where an access, a barrier or a
    call was written inside a macro) and the defines that text was parsed with."""
    try:
        parsed = parse(source, defines, FILENAME, cl_std=cl_std, include_dirs=include_dirs)
        if parsed.has_macro_sites:
            expanded = parse_expanded(
                source, defines, FILENAME, cl_std=cl_std, include_dirs=include_dirs
            )
            return expanded, {}
    except ParseError as exc:
        raise InstrumentError(str(exc)) from None
    return parsed, defines


def static_anatomy(
    source: str,
    defines: Mapping[str, int | str] | None = None,
    cl_std: str = "CL1.2",
    include_dirs: tuple[str, ...] = (),
) -> index_anatomy.KernelAnatomy:
    """The index anatomy of every access of ``source`` as its trace build sees it (the same
    parse, the same positions): what each address is made of and the definitions behind
    it, without running anything (``explorer.frontend.anatomy``)."""
    chosen: dict[str, int | str] = {**dict(defines or {}), "EXPLORER_TRACE": 1}  # as built
    parsed, used = _parsed(source, chosen, cl_std, include_dirs)
    try:
        return index_anatomy.analyse(
            parsed, used, FILENAME, cl_std=cl_std, include_dirs=include_dirs
        )
    except ParseError as exc:
        raise InstrumentError(str(exc)) from None


def instrument(
    source: str,
    kernel: str,
    defines: Mapping[str, int | str] | None = None,
    values: bool = False,
    cl_std: str = "CL1.2",
    include_dirs: tuple[str, ...] = (),
    anatomy_lines: tuple[int, ...] = (),
) -> Instrumented:
    """The traced version of ``kernel`` in ``source`` built with ``defines``; with
    ``values``, a build that also records the value of every access it can (``values.py``).
    ``cl_std`` is the OpenCL C standard the build asks for (program-scope variables, the 2.0
    work-item functions need CL2.0); ``include_dirs`` are where its ``#include "..."`` files
    are (what they define is known; calls into them with a pointer are not traced).
    ``anatomy_lines``: lines of the user's file whose accesses also record their index
    anatomy's values (``anatomy.py``; values are then recorded too); none, the plain build.

    Helper functions the source defines receive the trace state as an extra last argument
    (their prototypes too). Other kernels in the file keep working, untraced.
    """
    chosen: dict[str, int | str] = {**dict(defines or {}), "EXPLORER_TRACE": 1}  # as built
    parsed, used = _parsed(source, chosen, cl_std, include_dirs)
    anatomy = None
    if anatomy_lines:
        values = True
        try:
            static = index_anatomy.analyse(
                parsed, used, FILENAME, cl_std=cl_std, include_dirs=include_dirs
            )
        except ParseError as exc:
            raise InstrumentError(str(exc)) from None
        anatomy = (static, tuple(sorted(set(anatomy_lines))))
    # What a helper's returned struct hands on is judged by the calls this kernel runs.
    rewrite = _Rewrite(parsed.for_kernel(kernel), kernel, values, anatomy)
    body = without_unrolling(rewrite.build())
    declared = rewrite.declared
    own = rewrite.anatomy_rewrite.types if rewrite.anatomy_rewrite is not None else []
    width = plane_bytes(declared.value_types + own) if values else 0
    code = ""
    if values:
        stores, stored = declared.vector_stores, declared.stored_vectors
        code = value_code(declared.value_types, width, own, stores, stored, declared.parts_site)
    code += "".join(declared.image_code)
    return Instrumented(
        source=prelude(len(declared.buffers), declared.barriers, width, code) + body,
        kernel=kernel,
        buffers=tuple(declared.buffers),
        sites=tuple(declared.sites),
        not_traced=tuple(sorted(set(declared.not_traced))),
        extra_params=EXTRA_PARAMS,
        barriers=declared.barriers,
        value_bytes=width,
        anatomy=rewrite.anatomy_build,
        samplers=tuple(declared.samplers),
        optimised_only=_optimised_only(rewrite.parsed),
    )


def _optimised_only(parsed: ParsedSource) -> str:
    """Why the traced kernel cannot be built without optimisation, or "": arithmetic on
    two constant addresses in one ``__local`` variable (pyopencl's ``offsetof`` of a struct's
    first field, ``(char *)&s.first - (char *)&s``) stays a constant expression unoptimised,
    and PoCL 3.0 (LLVM 14) crashes turning the variable into a kernel argument then."""
    lines = sorted(set(parsed.local_address_arithmetic))
    if not lines:
        return ""
    named = ", ".join(str(n) for n in lines)
    word = "lines" if len(lines) > 1 else "line"
    return f"{word} {named}: arithmetic on addresses in one __local variable"
