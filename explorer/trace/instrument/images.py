"""The rewrite of image calls: each ``read_image*``/``write_image*`` of a 2-D or 3-D image
becomes a call of a function generated for its form (image type, coordinate type, sampler or
none), which records the pixels it reaches as elements of the image's buffer (runtime.cl,
Images) and then makes the call itself, so its arguments are evaluated once.

A sampler's addressing decides which pixel a coordinate reaches. Its mode comes from the
call's sampler: a constant (``CLK_ADDRESS_CLAMP_TO_EDGE | ...`` inline or in the variable it
names) is written into the call; a ``sampler_t`` parameter of the kernel has its mode passed
by the host (``Instrumented.samplers``), and one of a helper is followed to the kernel's
through every call of the helper. A call whose image or sampler cannot be followed so is
``not-traced``.
"""

from __future__ import annotations

from explorer.frontend import ImageCall, ParsedSource
from explorer.trace.instrument.buffers import BufferNames
from explorer.trace.instrument.declared import Declared
from explorer.trace.instrument.edits import Edit, Edits
from explorer.trace.recorded import GLOBAL, NO_BUFFER, READ, WRITE

# The prelude's (and the compilers') CLK_ADDRESS_* values, by the mode's addressing code.
_ADDRESS_CODES = {0x0: 0, 0x2: 1, 0x4: 2, 0x6: 3, 0x8: 4}
_NORMALIZED = 0x1
_LINEAR = 0x20
# The host's names for the addressing modes (description.launch.SAMPLER_ADDRESSES), by code.
ADDRESSES = ("none", "clamp_to_edge", "clamp", "repeat", "mirrored_repeat")

_RESULTS = {"f": "float4", "i": "int4", "ui": "uint4"}
_COORDINATES = {"int2": (2, False), "float2": (2, True), "int4": (4, False), "float4": (4, True)}


def mode(address: str, normalized: bool, linear: bool) -> int:
    """A sampler's mode as the trace runtime reads it: bits 0-2 the addressing, bit 3
    normalised coordinates, bit 4 linear filtering."""
    return ADDRESSES.index(address) | (8 if normalized else 0) | (16 if linear else 0)


def _flags_mode(flags: int) -> int | None:
    """The mode of a sampler given as a constant in the ``CLK_*`` values; None where its
    addressing is none of them."""
    code = _ADDRESS_CODES.get(flags & 0xE)
    if code is None:
        return None
    return mode(ADDRESSES[code], bool(flags & _NORMALIZED), bool(flags & _LINEAR))


class ImageRewriter:
    """Rewrites the image calls of one parsed source for one traced kernel."""

    def __init__(self, parsed: ParsedSource, kernel: str, declared: Declared, edits: Edits) -> None:
        self.parsed = parsed
        self.kernel = kernel
        self.declared = declared
        self.edits = edits
        self.names = BufferNames(parsed, kernel, declared.buffers)
        self.helpers = {f.name: f for f in parsed.helpers}
        self.reached = parsed.reached(kernel)
        self.forms: dict[tuple[str, str, str, bool], str] = {}

    def rewrite_all(self) -> None:
        for call in self.parsed.images:
            if call.function == self.kernel or call.function in self.helpers:
                self.rewrite(call)

    def rewrite(self, call: ImageCall) -> None:
        declared = self.declared

        def skip(why: str) -> None:
            if call.function in self.reached:  # a helper nobody calls never runs
                declared.not_traced.append((call.line, f"{' '.join(call.text.split())}: {why}"))

        found = self.names.resolve(call.function, call.image, frozenset()) if call.image else None
        bid = found.pop() if found is not None and len(found) == 1 else NO_BUFFER
        if bid == NO_BUFFER or not declared.buffers[bid].image:
            skip("not one of the kernel's image parameters")
            return
        if call.coordinate_type not in _COORDINATES:
            skip(f"a coordinate of type {call.coordinate_type}")
            return
        sampler = self._mode(call)
        if sampler is None:
            skip("its sampler's addressing mode is not known here (pass the kernel's sampler)")
            return
        op = WRITE if call.write else READ
        sid = declared.site(call.line, op, GLOBAL, bid, call.text)
        declared.recorded_at(call.span.start, call.span.end, sid)
        name = self._form(call)
        args = call.arguments
        render = self.edits.render

        def emit(edit: Edit) -> str:
            passed = ", ".join(render(a.start, a.end) for a in args)
            tail = f"{sid}u, {bid}u" if call.write else f"{sampler}, {sid}u, {bid}u"
            return f"{name}(__tr_ptr, {passed}, {tail})"

        self.edits.add(call.span.start, call.span.end, emit)

    def _mode(self, call: ImageCall) -> str | None:
        """The expression of the call's sampler mode; None where it is not known."""
        if call.write or not call.has_sampler:
            return "0u"  # no sampler: pixel coordinates, no addressing
        if call.sampler_flags is not None:
            found = _flags_mode(call.sampler_flags)
            return None if found is None else f"{found}u"
        if not call.sampler:
            return None
        params = self._kernel_samplers(call.function, call.sampler, frozenset())
        if params is None or len(params) != 1:
            return None
        index = params.pop()
        samplers = self.declared.samplers
        if index not in samplers:
            samplers.append(index)
        return f"__tr_smode(__tr_ptr, {samplers.index(index)}u)"

    def _kernel_samplers(
        self, function: str, name: str, seen: frozenset[tuple[str, str]]
    ) -> set[int] | None:
        """The positions of the kernel's sampler parameters that ``name`` in ``function``
        can be, followed through the helpers' calls; None where one is not a parameter."""
        if function == self.kernel:
            kernel = self.parsed.kernel(self.kernel)
            index = next(
                (
                    i
                    for i, p in enumerate(kernel.parameters)
                    if p.name == name and "sampler_t" in p.type_text
                ),
                None,
            )
            return None if index is None else {index}
        helper = self.helpers.get(function)
        if helper is None or (function, name) in seen:
            return None
        index = next((i for i, p in enumerate(helper.parameters) if p.name == name), None)
        if index is None:
            return None
        found: set[int] = set()
        for c in self.parsed.calls:
            if c.callee != function:
                continue
            if c.function != self.kernel and c.function not in self.helpers:
                continue  # another kernel's call: it runs untraced
            roots = c.argument_roots[index] if index < len(c.argument_roots) else ()
            if len(roots) != 1:
                return None
            passed = self._kernel_samplers(c.function, roots[0], seen | {(function, name)})
            if passed is None:
                return None
            found |= passed
        return found or None

    def _form(self, call: ImageCall) -> str:
        """The name of the function that makes this form of call, generated once."""
        key = (call.builtin, call.image_type, call.coordinate_type, call.has_sampler)
        if key not in self.forms:
            name = f"__tr_image{len(self.forms)}"
            self.forms[key] = name
            self.declared.image_code.append(_function(name, call))
        return self.forms[key]


def _function(name: str, call: ImageCall) -> str:
    """The OpenCL C of a function that records and makes one form of image call."""
    width, is_float = _COORDINATES[call.coordinate_type]
    coordinate = call.coordinate_type
    zero = "0.0f" if is_float else "0"
    z = "c.z" if width == 4 else zero
    as_float = f"(float4)(c.x, c.y, {z}, 0.0f)" if is_float else "(float4)(0.0f)"
    as_int = "(int4)(0)" if is_float else f"(int4)(c.x, c.y, {z}, 0)"
    depth = "get_image_depth(im)" if call.dims == 3 else "0"
    sides = f"get_image_width(im), get_image_height(im), {depth}"
    suffix = call.builtin.split("_image", 1)[1]
    record = f"__tr_image(st, site, buf, {sides}, {as_float}, {as_int}, {int(is_float)}, mode)"
    if call.write:
        value = _RESULTS[suffix]
        head = ""
        if call.dims == 3:  # a 3-D write needs the extension the kernel itself enables
            head = (
                "#ifdef cl_khr_3d_image_writes\n"
                "#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable\n#endif\n"
            )
        return (
            f"{head}static void {name}(__tr_state* st, {call.image_type} im, {coordinate} c, "
            f"{value} v, uint site, uint buf)\n{{\n"
            f"    uint mode = 0u;\n"
            f"    if (st == 0 || {record})\n"
            f"        {call.builtin}(im, c, v);\n}}\n"
        )
    result = _RESULTS[suffix]
    sampler = ", sampler_t s" if call.has_sampler else ""
    passed = "im, s, c" if call.has_sampler else "im, c"
    return (
        f"static {result} {name}(__tr_state* st, {call.image_type} im{sampler}, {coordinate} c, "
        f"uint mode, uint site, uint buf)\n{{\n"
        f"    if (st != 0 && !{record})\n"
        f"        return ({result})(0);\n"
        f"    return {call.builtin}({passed});\n}}\n"
    )
