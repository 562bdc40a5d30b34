"""The buffers a traced kernel records accesses to, and which of them an access names.

A buffer is a pointer parameter of the kernel, a ``__local`` variable of it, a program-scope
``__global`` or ``__constant`` variable, or a private array (an array member of a private
struct too: ``s.v``) of the kernel or a helper it
calls (bounds-checked only).
"""

from __future__ import annotations

from explorer.frontend import AccessSite, AddressSpace, Function, ParsedSource, Variable
from explorer.trace.instrument.declared import Declared
from explorer.trace.instrument.model import MAX_BUFFERS, BufferDecl, InstrumentError
from explorer.trace.instrument.shadows import (
    SHADOW_BYTES,
    checked_arrays,
    described_arrays,
    followed_parameters,
    jump_into,
    shadow_bytes,
    shadow_declaration,
    shadow_name,
    slots,
    without_comments,
)
from explorer.trace.recorded import GLOBAL, LOCAL, NO_BUFFER, PRIVATE

BUFFER_SPACE: dict[AddressSpace, int | str] = {
    AddressSpace.GLOBAL: GLOBAL,
    AddressSpace.LOCAL: LOCAL,
    AddressSpace.CONSTANT: "constant",
}


def declare_buffers(
    parsed: ParsedSource, target: Function, declared: Declared
) -> list[tuple[int, str]]:
    """Declare the traced kernel's buffers, in the order their ids go: its parameters,
    its local variables, program-scope variables, private arrays. Returns the code that
    registers each local variable at run time, with the offset it goes after."""
    kernel, buffers = target.name, declared.buffers
    for index, p in enumerate(target.parameters):
        if p.is_pointer and p.address_space is not AddressSpace.PRIVATE:
            space = BUFFER_SPACE[p.address_space]
            buffers.append(
                BufferDecl(
                    len(buffers), p.name, space, index, 1,
                    padding=p.padding, elem_type=p.element_type,
                )
            )  # fmt: skip
        elif image_dims(p.type_text):  # a buffer of pixels
            dims = image_dims(p.type_text)
            buffers.append(BufferDecl(len(buffers), p.name, GLOBAL, index, dims, image=dims))
    registrations = _declare_locals(parsed, kernel, declared)
    for v in parsed.variables:  # program scope: registered at the kernel's start
        if v.function or v.address_space not in (AddressSpace.GLOBAL, AddressSpace.CONSTANT):
            continue
        space = BUFFER_SPACE[v.address_space]
        buffers.append(
            BufferDecl(
                len(buffers), v.name, space, None, max(1, len(v.shape)),
                v.element_size, v.shape, elem_type=v.element_type,
            )
        )  # fmt: skip
    if len(buffers) > MAX_BUFFERS - 1:
        raise InstrumentError(f"more than {MAX_BUFFERS - 1} buffers to trace")
    registrations += _declare_private_arrays(parsed, kernel, declared)
    return registrations


def image_dims(type_text: str) -> int:
    """2 or 3 for an ``image2d_t`` or ``image3d_t`` type (with its access qualifier), else 0."""
    words = type_text.split()
    return {"image2d_t": 2, "image3d_t": 3}.get(words[-1] if words else "", 0)


def _declare_locals(parsed: ParsedSource, kernel: str, declared: Declared) -> list[tuple[int, str]]:
    """The kernel's ``__local`` variables, and the code that registers each."""
    registrations: list[tuple[int, str]] = []
    for v in parsed.variables:
        if v.function != kernel or v.address_space is not AddressSpace.LOCAL:
            continue
        bid = len(declared.buffers)
        declared.buffers.append(
            BufferDecl(
                bid,
                v.name,
                LOCAL,
                None,
                max(1, len(v.shape)),
                padding=v.padding,
                elem_type=v.element_type,
            )
        )
        declared.uses_local = True
        address = v.name if v.shape else f"&{v.name}"
        dims = [f"(ulong){d}" for d in v.shape[:4]] + ["1"] * (4 - min(len(v.shape), 4))
        registrations.append(
            (
                v.decl_end,
                f" __tr.lb[{bid}] = (__local uchar*){address}; __tr.ll[{bid}] = "
                f"sizeof({v.name}); __tr_describe(__tr_ptr, {bid}u, {v.element_size}, "
                f"sizeof({v.name}), {', '.join(dims)});",
            )
        )
    return registrations


def _declare_private_arrays(
    parsed: ParsedSource, kernel: str, declared: Declared
) -> list[tuple[int, str]]:
    """The private arrays of the kernel and of the helpers it may call. An array member of
    a private struct (``s.v``) is one when an access reaches it: a struct's other members
    take no buffer ids. Returns the declarations of the shadows of those checked for reads
    of unwritten elements (``shadows.py``), with the offset each goes after."""
    helpers = {f.name for f in parsed.helpers}
    reached = {(a.function, r) for a in parsed.accesses for r in a.roots if _member(r)}
    arrays = []
    for v in parsed.variables:
        traced = v.function == kernel or v.function in helpers
        if v.address_space is not AddressSpace.PRIVATE or not traced:
            continue
        if _member(v.name) and (v.function, v.name) not in reached:
            continue
        arrays.append(v)
    followed = followed_parameters(parsed)
    declared.followed = followed
    checked = checked_arrays(parsed, arrays, followed)
    described = described_arrays(parsed, arrays, followed)
    _say_unchecked(parsed, arrays, checked, declared)
    shadows = []
    for v in arrays:
        if len(declared.buffers) >= MAX_BUFFERS - 1:
            declared.not_traced.append(
                (v.line, f"{v.name}: private array not bounds-checked (too many buffers)")
            )
            continue
        bid = len(declared.buffers)
        declared.private_arrays[(v.function, v.name)] = bid
        declared.buffers.append(
            BufferDecl(
                bid,
                v.name,
                PRIVATE,
                None,
                max(1, len(v.shape)),
                v.element_size,
                v.shape,
                v.function,
                components=v.components,
                elem_type=v.element_type,
            )
        )
        code = ""
        if (v.function, v.name) in checked:
            declared.shadows[bid] = shadow_name(bid)
            declared.shadow_slots[bid] = (slots(v)[0], v.components)
            code = shadow_declaration(bid, v)
        if (v.function, v.name) in described:
            declared.descriptions[bid] = description_name(bid)
            code += description(bid, v, declared.shadows.get(bid))
        if code:
            shadows.append((v.decl_end, code))
    return shadows


def _member(name: str) -> bool:
    """Whether ``name`` is an array member of a struct (``s.v``, ``p->v``)."""
    return "." in name or "->" in name


def description_name(buffer: int) -> str:
    return f"__tr_a{buffer}"


def description(buffer: int, v: Variable, shadow: str | None) -> str:
    """The description of a private array a helper is given (runtime.cl's ``__tr_parr``),
    declared after it (and its shadow)."""
    marks = f"{shadow}, &{shadow}_left" if shadow else "0, 0"
    return (
        f" __tr_parr {description_name(buffer)} = {{(__private uchar*){v.name}, {marks}, "
        f"(uint)sizeof({v.name}), {buffer}u, {slots(v)[0]}u}};"
    )


def _say_unchecked(
    parsed: ParsedSource, arrays: list[Variable], checked: set[tuple[str, str]], declared: Declared
) -> None:
    """A `not-traced` note for each array the trace would check for unwritten reads but
    cannot: too large for its shadow, or in a scope a jump may enter past its declaration."""
    bodies = {f.name: f.body for f in (*parsed.kernels, *parsed.helpers)}
    text = without_comments(parsed.source)
    for v in arrays:
        body = bodies.get(v.function)
        if (v.function, v.name) in checked or v.initialised or body is None:
            continue
        if shadow_bytes(v) > SHADOW_BYTES:
            declared.not_traced.append(
                (v.line, f"reads of {v.name}'s elements before they are written are not "
                 f"checked: a private array of over {SHADOW_BYTES} elements (or vector "
                 "components)")
            )  # fmt: skip
            continue
        label = jump_into(text, v, body.start, body.end)
        if label:
            declared.not_traced.append(
                (v.line, f"reads of {v.name}'s elements before they are written are not "
                 f"checked: a jump to the label at line {label} may enter its scope past its "
                 "declaration")
            )  # fmt: skip


class BufferNames:
    """Which of the traced kernel's buffers an access names, through the helpers it calls."""

    def __init__(self, parsed: ParsedSource, kernel: str, buffers: list[BufferDecl]) -> None:
        self.parsed = parsed
        self.kernel = kernel
        self.buffers = buffers
        self.helpers = {f.name: f for f in parsed.helpers}

    def hint(self, access: AccessSite) -> int:
        """The buffer the access names: one of the traced kernel's own, or, in a helper, the
        one buffer every call from the traced kernel passes for the pointer it goes through
        (so the analysis and the animation name it as the kernel does). NO_BUFFER where it
        is not one buffer; the runtime then finds the buffer from the address."""
        found: set[int] = set()
        for root in access.roots:
            ids = self.resolve(access.function, root, frozenset())
            if ids is None:
                return NO_BUFFER
            found |= ids
        return found.pop() if len(found) == 1 else NO_BUFFER

    def resolve(
        self, function: str, name: str, seen: frozenset[tuple[str, str]]
    ) -> set[int] | None:
        """The traced kernel's buffers a name in ``function`` can stand for; None if unknown."""
        if function == self.kernel:
            ids = {b.id for b in self.buffers if b.name == name and b.space != PRIVATE}
            return ids or None
        helper = self.helpers.get(function)
        if helper is None or (function, name) in seen:
            return None
        index = next((i for i, p in enumerate(helper.parameters) if p.name == name), None)
        if index is None:
            return None
        found: set[int] = set()
        callers = [c for c in self.parsed.calls if c.callee == function]
        for call in callers:
            if call.function != self.kernel and call.function not in self.helpers:
                continue  # another kernel's call: it runs untraced
            roots = call.argument_roots[index] if index < len(call.argument_roots) else ()
            if not roots:
                return None
            for root in roots:
                passed = self.resolve(call.function, root, seen | {(function, name)})
                if passed is None:
                    return None
                found |= passed
        return found or None
