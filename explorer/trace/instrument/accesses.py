"""The rewrite of memory accesses: each becomes ``(*__TR_G(&(access), site, buffer))`` (or
its local, constant, vector, atomic, component or async-copy form), which records the byte
offset and returns the same pointer, or a scratch slot when the access is out of bounds. A
private array's element is only bounds-checked. With values on, the expression that has an
access's value is wrapped too, so the value is recorded.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from explorer.frontend import AccessKind, AccessSite, AddressSpace, ParsedSource
from explorer.trace.instrument.buffers import BufferNames
from explorer.trace.instrument.declared import Declared
from explorer.trace.instrument.edits import Edit, Edits
from explorer.trace.instrument.events import EventShadows
from explorer.trace.instrument.values import (
    SCALARS,
    VectorStore,
    expression_end,
    increment_before,
    operator_after,
    value_type,
)
from explorer.trace.recorded import (
    ATOMIC,
    FENCE,
    GLOBAL,
    LOCAL,
    NO_BUFFER,
    NO_SPACE,
    PRIVATE,
    READ,
    RMW,
    ROLE_COPY,
    ROLE_COPY_EVENT,
    ROLE_UNSET,
    VALUE_READ,
    VALUE_WRITTEN,
    WRITE,
)

OPS = {
    AccessKind.READ: READ,
    AccessKind.WRITE: WRITE,
    AccessKind.READ_MODIFY_WRITE: RMW,
    AccessKind.ATOMIC: ATOMIC,
    AccessKind.VLOAD: READ,
    AccessKind.VSTORE: WRITE,
    AccessKind.ASYNC_COPY_READ: READ,
    AccessKind.ASYNC_COPY_WRITE: WRITE,
}
SPACE_CODE = {AddressSpace.GLOBAL: "G", AddressSpace.LOCAL: "L", AddressSpace.CONSTANT: "C"}
SPACE_WORD = {
    AddressSpace.GLOBAL: "__global",
    AddressSpace.LOCAL: "__local",
    AddressSpace.CONSTANT: "__constant",
}
SCALAR_BYTES = {
    "char": 1,
    "uchar": 1,
    "short": 2,
    "ushort": 2,
    "half": 2,
    "int": 4,
    "uint": 4,
    "float": 4,
    "long": 8,
    "ulong": 8,
    "double": 8,
}
PRIVATE_KINDS = (AccessKind.READ, AccessKind.WRITE, AccessKind.READ_MODIFY_WRITE)
PRIVATE_SCRATCH_BYTES = 256  # the runtime's scratch slot for a skipped private access
DESCRIPTION_PREFIX = "__tr_a_"  # a helper's parameter describing the array it was given
ASYNC_HALVES = (AccessKind.ASYNC_COPY_READ, AccessKind.ASYNC_COPY_WRITE)


def _scalar(element_type: str) -> str:
    """The OpenCL name of the component type of ``element_type`` as clang spells it
    (``unsigned char4`` -> ``uchar``)."""
    spelled = " ".join(re.sub(r"\d+$", "", element_type).split())
    return SCALARS[spelled][0] if spelled in SCALARS else spelled


_SELECTOR = re.compile(r"\s*\.\s*([A-Za-z]\w*)\s*$")


def _selected(inner: str) -> tuple[str, list[str]]:
    """The vector a component access selects from and its selectors, outermost last:
    ``col[1].wx.x`` is ``col[1]`` and ``["wx", "x"]``."""
    selectors: list[str] = []
    base = inner
    while True:
        m = _SELECTOR.search(base)
        if m is None or _picks(m.group(1), 16) is None:
            return base, selectors
        selectors.insert(0, m.group(1))
        base = base[: m.start()]
        if base.rstrip().endswith(("]", ")")):
            return base, selectors


def _picks(selector: str, width: int) -> list[int] | None:
    """Which of ``width`` components one selector takes, in order; None where it is none."""
    half = max(1, (4 if width == 3 else width) // 2)
    stored = 4 if width == 3 else width
    named = {
        "lo": range(half),
        "hi": range(half, stored),
        "even": range(0, stored, 2),
        "odd": range(1, stored, 2),
    }
    if selector in named:
        return list(named[selector])
    if selector[:1] in ("s", "S") and len(selector) > 1:
        if any(ch not in "0123456789abcdefABCDEF" for ch in selector[1:]):
            return None
        picked = [int(ch, 16) for ch in selector[1:]]
    elif all(ch in "xyzw" for ch in selector):
        picked = ["xyzw".index(ch) for ch in selector]
    else:
        return None
    return picked if all(i < stored for i in picked) else None


def _reached(selectors: list[str], width: int) -> list[int] | None:
    """The components of a vector of ``width`` components a chain of selections (``.y``,
    ``.s3``, ``.xy``, ``.lo``, ``.odd``, ``.wx.x``) reaches, in order; None where it cannot
    be told."""
    if width < 2 or not selectors:
        return None
    reached = list(range(4 if width == 3 else width))
    for selector in selectors:
        picked = _picks(selector, len(reached) if len(reached) != 4 or width != 3 else 3)
        if picked is None or any(i >= len(reached) for i in picked):
            return None
        reached = [reached[i] for i in picked]
    return reached


def _in_place(a: AccessSite) -> bool:
    """Whether a component selection's components are those its record covers, in their
    order (``.xy``, ``.hi``, ``.s23``): its value's first component is the first element's."""
    reached = _reached([c.strip() for c in (a.components or "").split(".")], a.vector_width)
    if reached is None:
        return True  # the components cannot be told: its record keeps the value
    return reached == list(range(reached[0], reached[0] + len(reached)))


def _first_byte(a: AccessSite) -> int | None:
    """The byte in its vector of the first component a selection reaches; None where it
    cannot be told."""
    reached = _reached([c.strip() for c in (a.components or "").split(".")], a.vector_width)
    scalar = SCALAR_BYTES.get(_scalar(a.element_type))
    return min(reached) * scalar if reached and scalar is not None else None


def _within(a: AccessSite, offset: int, size: int) -> int:
    """``offset`` moved back so that ``size`` bytes from it stay in the vector: the record of
    three components from the second (``q[i].s123 = v``, 16 bytes as a power of two) covers
    the whole vector, not the next one's first element, which another work-item may write."""
    scalar = SCALAR_BYTES.get(_scalar(a.element_type))
    if scalar is None or a.vector_width < 2:
        return offset
    whole = (4 if a.vector_width == 3 else a.vector_width) * scalar
    return max(0, min(offset, whole - size))


def _component_mask(selectors: list[str], width: int) -> int:
    """:func:`_reached`'s components, one bit each; 0 where they cannot be told."""
    reached = _reached(selectors, width)
    return 0 if reached is None else sum(1 << i for i in set(reached))


def _chain_base(text: str, selectors: int) -> str:
    """``text`` without its last ``selectors`` component selections: ``a[i].wx.x`` with 2
    is ``a[i]``."""
    for _ in range(selectors):
        m = _SELECTOR.search(text)
        if m is None:
            break
        text = text[: m.start()]
    return text


def _whole(a: AccessSite) -> int:
    """The bytes each record of ``a``'s site holds, where its type says them: the access's
    own size (a struct's, N elements of a vloadN), known to the decoder even where a record's
    size code cannot say it (12 bytes: a vload3 of floats). 0 for a selection of components:
    recorded by component, or by a part of the vector, whatever its type's size."""
    return 0 if a.components else a.size


class AccessRewriter:
    """Rewrites the memory accesses of one parsed source for one traced kernel."""

    def __init__(
        self,
        parsed: ParsedSource,
        kernel: str,
        declared: Declared,
        edits: Edits,
        values: bool = False,
        events: EventShadows | None = None,
    ) -> None:
        self.parsed = parsed
        self.events = events or EventShadows()
        self.kernel = kernel
        self.declared = declared
        self.edits = edits
        self.text = edits.text
        self.values = values
        self.names = BufferNames(parsed, kernel, declared.buffers)
        self.helpers = {f.name for f in parsed.helpers}
        self.reached = parsed.reached(kernel)

    def rewrite_all(self) -> None:
        """Every access the front end found, each async copy once for its two halves."""
        async_halves: dict[tuple[int, int], list[AccessSite]] = {}
        for a in self.parsed.accesses:
            if a.kind in ASYNC_HALVES:
                async_halves.setdefault((a.span.start, a.span.end), []).append(a)
            self.access(a)
        for halves in async_halves.values():
            write = next((a for a in halves if a.kind is AccessKind.ASYNC_COPY_WRITE), None)
            read = next((a for a in halves if a.kind is AccessKind.ASYNC_COPY_READ), None)
            if write is None or read is None:
                if self._runs(halves[0].function):
                    self.declared.not_traced.append(
                        (halves[0].line, f"{halves[0].text}: not traced")
                    )
            else:
                self.async_copy(write, read)

    def _runs(self, function: str) -> bool:
        """Whether the traced kernel can run ``function``: itself or a helper it calls,
        directly or through other helpers (another kernel of the program, and a helper only
        it calls or nobody calls, is rewritten too, but never runs, so what the trace cannot
        follow there is nothing it misses)."""
        return function in self.reached

    def access(self, a: AccessSite) -> None:
        """Wrap one access site (private memory only where it is an array's element)."""
        if a.address_space is AddressSpace.PRIVATE:
            self.private(a)
            return
        declared = self.declared
        hint = self.names.hint(a)
        unnamed_constant = a.address_space is AddressSpace.CONSTANT and hint == NO_BUFFER
        if unnamed_constant and (
            a.function == self.kernel or not any(b.space == "constant" for b in declared.buffers)
        ):
            if self._runs(a.function):
                declared.not_traced.append(
                    (a.line, f"{a.text}: a __constant array that is not a kernel parameter")
                )
            return
        if a.address_space is AddressSpace.LOCAL:
            declared.uses_local = True
        space = LOCAL if a.address_space is AddressSpace.LOCAL else GLOBAL
        code = SPACE_CODE[a.address_space]
        if a.kind in ASYNC_HALVES:
            return  # both halves are written by `async_copy`
        sid = declared.site(
            a.line, OPS[a.kind], space, hint, a.text, size=_whole(a), unused=a.unused
        )
        declared.recorded_at(a.span.start, a.span.end, sid)
        self.value(a, sid)  # first: an edit of the same span goes around the access's own
        if a.builtin is not None and a.kind is AccessKind.ATOMIC:
            self.atomic(a, code, sid, hint)
        elif a.builtin is not None and a.kind is AccessKind.WRITE:
            self.stored_through(a, code, sid, hint)
        elif a.kind in (AccessKind.VLOAD, AccessKind.VSTORE):
            self.vector(a, code, sid, hint)
        elif a.components:
            self.components(a, code, sid, hint)
        else:
            self.edits.add(
                a.span.start,
                a.span.end,
                lambda edit: f"(*__TR_{code}(&({self.edits.inner(edit)}), {sid}u, {hint}u))",
            )

    def private(self, a: AccessSite) -> None:
        """A private array's element: bounds-checked, and recorded only when out of bounds
        (no other work-item sees private memory). Other private accesses are not recorded.
        Of an array with a shadow (``shadows.py``), a read of an element the work-item has
        not written is recorded too, once, at a site of its own (``ROLE_UNSET``)."""
        bid = self._private_array(a)
        builtin_write = a.builtin is not None and a.kind is AccessKind.WRITE
        vector = a.kind in (AccessKind.VLOAD, AccessKind.VSTORE)
        if a.kind not in PRIVATE_KINDS and not vector:
            return
        if bid is None:
            if len(a.roots) == 1 and (a.function, a.roots[0]) in self.declared.followed:
                self._through_parameter(a, a.roots[0])
            return
        if a.size > PRIVATE_SCRATCH_BYTES:
            self.declared.not_traced.append(
                (a.line, f"{a.text}: a private element over {PRIVATE_SCRATCH_BYTES} bytes")
            )
            return
        declared = self.declared
        declared.uses_private = True
        array = declared.buffers[bid].name
        sid = declared.site(a.line, OPS[a.kind], PRIVATE, bid, a.text, size=_whole(a))
        declared.recorded_at(a.span.start, a.span.end, sid)
        shadow = declared.shadows.get(bid)
        if shadow is None and vector:
            return  # as before shadows: a vector access of an unchecked array is not checked
        inner = self.edits.inner
        bounds = lambda p: f"__TR_P({p}, {array}, {sid}u, {bid}u)"  # noqa: E731
        mode = unset = width = 0
        if shadow is None:
            wrap = bounds
            sized = None
        else:
            reads = a.kind in (AccessKind.READ, AccessKind.READ_MODIFY_WRITE, AccessKind.VLOAD)
            writes = a.kind is not AccessKind.READ and a.kind is not AccessKind.VLOAD
            mode = int(reads) | (2 * int(writes))
            elem, width = declared.shadow_slots.get(bid, (declared.buffers[bid].elem_size, 0))
            elem = max(1, elem)
            unset = 0
            if reads:  # a record per element (or component) read unwritten: `elem` bytes
                unset = declared.site(
                    a.line, FENCE, NO_SPACE, bid, a.text, role=ROLE_UNSET, size=elem
                )
                declared.recorded_at(a.span.start, a.span.end, unset)

            def sized(p: str, size: str) -> str:
                # Once every element is written (the count beside the shadow is 0), only the
                # bounds check: a test of a private scalar a compiler keeps in a register.
                return (
                    f"({shadow}_left == 0u ? __TR_P({p}, {array}, {sid}u, {bid}u) : "
                    f"__TR_PS({p}, {size}, {array}, {shadow}, {elem}u, {mode}u, {sid}u, "
                    f"{unset}u, {bid}u))"
                )

            wrap = lambda p: sized(p, f"sizeof(*({p}))")  # noqa: E731
        if builtin_write:
            self._private_stored_through(a, wrap)
        elif vector:
            assert sized is not None
            self._private_vector(a, sized)
        elif a.components:

            def picked(p: str, selectors: list[str]) -> str:
                mask = _component_mask(selectors, width) if shadow is not None else 0
                if width and not mask and mode & 1:
                    return bounds(p)  # components it cannot tell: no read of others reported
                if not mask:
                    return wrap(p)
                # Of a vector element with a shadow per component: the components selected.
                return (
                    f"({shadow}_left == 0u ? __TR_P({p}, {array}, {sid}u, {bid}u) : "
                    f"__TR_PSM({p}, {array}, {shadow}, {elem}u, {mode}u, {sid}u, {unset}u, "
                    f"{bid}u, {mask}u))"
                )

            def emit(edit: Edit) -> str:
                base, selectors = _selected(inner(edit))
                chain = "".join(f".{s}" for s in selectors)
                return f"(*{picked(f'&({base})', selectors)}){chain}"

            self.edits.add(a.span.start, a.span.end, emit)
        else:
            self.edits.add(a.span.start, a.span.end, lambda edit: f"(*{wrap(f'&({inner(edit)})')})")

    def _through_parameter(self, a: AccessSite, parameter: str) -> None:
        """An access through a helper's followed pointer parameter (shadows.py): checked at
        run time against the array the call gave it (its description, runtime.cl's
        ``__tr_parr``), bounds and unwritten reads alike; nothing where the call gave none."""
        declared = self.declared
        if a.size > PRIVATE_SCRATCH_BYTES:
            declared.not_traced.append(
                (a.line, f"{a.text}: a private element over {PRIVATE_SCRATCH_BYTES} bytes")
            )
            return
        declared.uses_private = True
        given = self._given_arrays(a.function, parameter, frozenset())
        # The bytes a shadow byte stands for in the arrays it may be given: the size of a
        # record of an element read unwritten, where they all agree.
        slots = {declared.shadow_slots[b][0] for b in given if b in declared.shadow_slots}
        bid = given.pop() if len(given) == 1 else NO_BUFFER
        sid = declared.site(a.line, OPS[a.kind], PRIVATE, bid, a.text, size=_whole(a))
        declared.recorded_at(a.span.start, a.span.end, sid)
        reads = a.kind in (AccessKind.READ, AccessKind.READ_MODIFY_WRITE, AccessKind.VLOAD)
        writes = a.kind is not AccessKind.READ and a.kind is not AccessKind.VLOAD
        mode = int(reads) | (2 * int(writes))
        unset = 0
        if reads:
            slot = slots.pop() if len(slots) == 1 else 0
            unset = declared.site(a.line, FENCE, NO_SPACE, bid, a.text, role=ROLE_UNSET, size=slot)
            declared.recorded_at(a.span.start, a.span.end, unset)
        d = f"{DESCRIPTION_PREFIX}{parameter}"

        def sized(p: str, size: str, mask: int = 0, comp: int = 0, how: int = mode) -> str:
            return f"__TR_PD({p}, {size}, {d}, {how}u, {sid}u, {unset}u, {mask}u, {comp}u)"

        wrap = lambda p: sized(p, f"sizeof(*({p}))")  # noqa: E731
        inner = self.edits.inner
        if a.builtin is not None and a.kind is AccessKind.WRITE:
            self._private_stored_through(a, wrap)
        elif a.kind in (AccessKind.VLOAD, AccessKind.VSTORE):
            self._private_vector(a, sized)
        elif a.components:
            width, element = self._parameter_vector(a.function, parameter)
            stored = 4 if width == 3 else width

            def emit(edit: Edit) -> str:
                base, selectors = _selected(inner(edit))
                chain = "".join(f".{s}" for s in selectors)
                mask = _component_mask(selectors, width)
                p = f"&({base})"
                if mask and stored and element % stored == 0:
                    traced = sized(p, f"sizeof(*({p}))", mask, element // stored)
                else:  # components it cannot tell: bounds, and no read of others reported
                    traced = sized(p, f"sizeof(*({p}))", how=mode & 2)
                return f"(*{traced}){chain}"

            self.edits.add(a.span.start, a.span.end, emit)
        else:
            self.edits.add(a.span.start, a.span.end, lambda edit: f"(*{wrap(f'&({inner(edit)})')})")

    def _parameter_vector(self, function: str, parameter: str) -> tuple[int, int]:
        """The components and bytes of the vector a helper's pointer parameter points to."""
        helper = next((f for f in self.parsed.helpers if f.name == function), None)
        p = next((q for q in helper.parameters if q.name == parameter), None) if helper else None
        if p is None or p.vector_width < 2:
            return 0, 0
        return p.vector_width, p.element_size

    def _given_arrays(
        self, function: str, parameter: str, seen: frozenset[tuple[str, str]]
    ) -> set[int]:
        """The private arrays the traced kernel's calls give a followed parameter (through
        other helpers' too), by id."""
        helper = next((f for f in self.parsed.helpers if f.name == function), None)
        if helper is None or (function, parameter) in seen:
            return set()
        index = next((i for i, p in enumerate(helper.parameters) if p.name == parameter), -1)
        found: set[int] = set()
        for call in self.parsed.calls:
            if call.callee != function or index >= len(call.argument_roots) or index < 0:
                continue
            roots = call.argument_roots[index]
            if len(roots) != 1:
                continue
            bid = self.declared.private_arrays.get((call.function, roots[0]))
            if bid is not None and bid in self.declared.descriptions:
                found.add(bid)
            elif (call.function, roots[0]) in self.declared.followed:
                found |= self._given_arrays(call.function, roots[0], seen | {(function, parameter)})
        return found

    def _private_stored_through(self, a: AccessSite, wrap: Callable[[str], str]) -> None:
        """``sincos(x, &c[k])`` into a private array: its last argument goes through the
        runtime, an element it writes."""
        pointer = a.arguments[-1]
        render, text = self.edits.render, self.text

        def emit(edit: Edit) -> str:
            p = render(pointer.start, pointer.end)
            head = render(edit.start, pointer.start)
            return f"{head}{wrap(f'({p})')}{text[pointer.end : edit.end]}"

        self.edits.add(a.span.start, a.span.end, emit)

    def _private_vector(self, a: AccessSite, sized: Callable[[str, str], str]) -> None:
        """``vloadN(offset, a)`` / ``vstoreN(data, offset, a + k)`` of a checked private
        array: the N elements at the pointer plus offset*N."""
        self._vector_edit(a, lambda at, p, width: sized(at, f"{width} * sizeof(*({p}))"))

    def _private_array(self, a: AccessSite) -> int | None:
        """The buffer of the private array an access reaches, when it is one the function
        declares (a subscript of it, or a pointer computed from it alone)."""
        if len(a.roots) != 1:
            return None
        return self.declared.private_arrays.get((a.function, a.roots[0]))

    def value(self, a: AccessSite, sid: int) -> None:
        """With values on: wrap the expression that has the access's value (the load, the
        assignment, the atomic call) so the value is recorded, and say which value the site's
        records hold. Where no such expression can be found the site records none."""
        if not self.values or a.kind in (AccessKind.VSTORE, AccessKind.ASYNC_COPY_READ):
            return  # a vstoreN's value is recorded by the function it becomes (`vector`)
        if a.builtin is not None and a.kind is AccessKind.WRITE:
            return  # the call's value is its first result, not what it stored
        if self.read_apart(a) is not None:
            return  # a record per component: none holds the selection's value
        if a.components and not self._in_place(a):
            # `q[i].wzyx = v`, `.odd = v.even`, `r = q[i].yx`, `q[i].s123 = v` (its record
            # the whole vector): the selection's components are not the elements its record
            # covers from its first, in their order; its value would put them in wrong cells.
            return
        width = 1
        if a.kind is AccessKind.VLOAD:
            match = re.match(r"^vload(\d+)$", a.builtin or "")
            if match is None and a.builtin != "vload":
                return  # vload_half: the value is a conversion, not the memory's bits
            width = int(match.group(1)) if match else 1
        vtype = value_type(a.element_type, width)
        if vtype is None:
            return
        sites, value_types = self.declared.sites, self.declared.value_types
        if a.kind is AccessKind.ATOMIC and (a.builtin or "").endswith("cmpxchg"):
            value_types.append(vtype)  # __tr_cas_done records what it returned
            sites[sid] = replace(sites[sid], value=VALUE_READ, value_type=vtype.name)
            return
        stretch = self._value_stretch(a)
        if stretch is None:
            return
        start, end, kind = stretch
        value_types.append(vtype)
        sites[sid] = replace(sites[sid], value=kind, value_type=vtype.name)
        function = f"__tr_v_{vtype.name}"
        if kind == VALUE_WRITTEN and vtype.width > 1:
            # Every component a vector store wrote (`*(__global float4*)p = v`, `+=`): the
            # views draw each element it covers. A load keeps its first component and a
            # digest: what it read is what memory held, and parts for every vector load of
            # an inner loop would cost the trace much of its room (docs/trace.md).
            self.declared.stored_vectors.append(vtype)
            function = f"__tr_w_{vtype.name}"
        self.edits.add(
            start,
            end,
            lambda edit: f"{function}(__tr_ptr, {sid}u, {self.edits.inner(edit)})",
        )

    def _value_stretch(self, a: AccessSite) -> tuple[int, int, int] | None:
        """The stretch of text whose value is the access's, and which value that is (read or
        written); None where there is none to wrap."""
        start, end = a.span.start, a.span.end
        if a.kind is not AccessKind.WRITE and a.kind is not AccessKind.READ_MODIFY_WRITE:
            return start, end, VALUE_READ
        after = operator_after(self.text, end)
        prefix = increment_before(self.text, start)
        if after is not None and after[0] in ("++", "--"):
            return start, after[1], VALUE_READ  # x++: its value is the old one
        if after is not None:
            rhs = expression_end(self.text, after[1])
            return None if rhs is None else (start, rhs, VALUE_WRITTEN)
        if prefix is not None and a.kind is AccessKind.READ_MODIFY_WRITE:
            return prefix, end, VALUE_WRITTEN
        return None

    def components(self, a: AccessSite, code: str, sid: int, hint: int) -> None:
        """A component selection (``v.x``, ``v.lo``, ``v.s3``) of a vector in memory."""
        inner = self.edits.inner
        chain = [c.strip() for c in (a.components or "").split(".")]
        apart = self.read_apart(a)
        if apart is not None:
            # A read of components not side by side (`.odd`, `.xz`) or three of them: each
            # its own record, so a write of the ones between is not taken for this read.
            mask, bytes_each = apart

            def emit_apart(edit: Edit) -> str:
                base = _chain_base(inner(edit), len(chain))
                selected = "".join(f".{s}" for s in chain)
                traced = f"__TR_{code}M(&({base}), {mask}u, {bytes_each}u, {sid}u, {hint}u)"
                return f"(*{traced}){selected}"

            self.edits.add(a.span.start, a.span.end, emit_apart)
            return
        single = self.single_component(a)
        if single is not None:
            # One component (`out4[i].y = v`) becomes that scalar's own access: through a
            # pointer to the whole vector a GPU compiler may store all of it, losing the other
            # components other work-items write (seen on NVIDIA).
            index, scalar = single
            space_word = SPACE_WORD[a.address_space]

            def emit_scalar(edit: Edit) -> str:
                base = _chain_base(inner(edit), len(chain))
                element = f"((({space_word} {scalar}*)&({base}))[{index}])"
                return f"(*__TR_{code}(&{element}, {sid}u, {hint}u))"

            self.edits.add(a.span.start, a.span.end, emit_scalar)
            return
        offset, size = self.component(a)

        def emit(edit: Edit) -> str:
            base = _chain_base(inner(edit), len(chain))
            selected = "".join(f".{s}" for s in chain)
            return f"(*__TR_{code}X(&({base}), {offset}u, {size}u, {sid}u, {hint}u)){selected}"

        self.edits.add(a.span.start, a.span.end, emit)

    def _in_place(self, a: AccessSite) -> bool:
        """Whether a component selection's value lands in the elements it selects: they are
        side by side in their order, from its record's first (``.xy``, ``.hi``, ``.s23``)."""
        first = _first_byte(a)
        return _in_place(a) and (first is None or self.component(a)[0] == first)

    def read_apart(self, a: AccessSite) -> tuple[int, int] | None:
        """Of a read of a vector's components in memory that are not side by side or not a
        power of two of them: the components (one bit each) and the bytes of one; None for
        any other access (a write keeps one record: a compiler may store the whole vector)."""
        if a.kind is not AccessKind.READ or not a.components:
            return None
        scalar = SCALAR_BYTES.get(_scalar(a.element_type))
        reached = _reached([c.strip() for c in a.components.split(".")], a.vector_width)
        if scalar is None or reached is None or len(reached) < 2:
            return None
        low, high = min(reached), max(reached)
        count = len(set(reached))
        if count == high - low + 1 and count & (count - 1) == 0:
            return None  # side by side, a power of two of them: one record holds them
        return sum(1 << c for c in set(reached)), scalar

    def single_component(self, a: AccessSite) -> tuple[int, str] | None:
        """The index and scalar type of a one-component selection (``.y``, ``.s3``), or None."""
        selector = (a.components or "").strip()
        scalar = _scalar(a.element_type)
        if scalar not in SCALAR_BYTES or a.size != SCALAR_BYTES[scalar]:
            return None
        if "." in selector:  # a chain (`.wx.x`): the one component it ends at
            reached = _reached([c.strip() for c in selector.split(".")], a.vector_width)
            return (reached[0], scalar) if reached is not None and len(reached) == 1 else None
        if len(selector) == 1 and selector in "xyzw":
            return "xyzw".index(selector), scalar
        if len(selector) == 2 and selector[0] in "sS" and selector[1] in "0123456789abcdefABCDEF":
            return int(selector[1], 16), scalar
        return None

    def component(self, a: AccessSite) -> tuple[int, int]:
        """Byte offset in the vector and bytes touched of a component selection."""
        selector = (a.components or "").strip()
        scalar = SCALAR_BYTES.get(_scalar(a.element_type), 4)
        size = 1 << max(0, a.size.bit_length() - 1)
        if "." in selector:  # a chain (`.zyx.xy`): from the first component it reaches
            reached = _reached([c.strip() for c in selector.split(".")], a.vector_width)
            return _within(a, min(reached) * scalar if reached else 0, size), size
        if selector in ("lo", "even"):
            first = 0
        elif selector == "odd":
            first = 1
        elif selector == "hi":
            first = max(1, a.size // scalar)
        elif selector[:1] in ("s", "S"):
            first = min(int(ch, 16) for ch in selector[1:]) if selector[1:] else 0
        else:
            first = min("xyzw".index(ch) for ch in selector if ch in "xyzw")
        return _within(a, first * scalar, size), size

    def atomic(self, a: AccessSite, code: str, sid: int, hint: int) -> None:
        """An atomic call: its pointer argument goes through the runtime. A compare-and-swap
        is recorded as a write only when it swapped; otherwise as a read."""
        pointer, rest = a.arguments[0], a.arguments[1:]
        cmpxchg = (a.builtin or "").endswith("cmpxchg") and len(rest) == 2
        sites = self.declared.sites
        fail = 0
        if cmpxchg:
            fail = self.declared.site(a.line, READ, sites[sid].space, hint, a.text, atomic=True)
            self.declared.recorded_at(a.span.start, a.span.end, fail)
            own = sites[sid]
            sites[fail] = replace(sites[fail], value=own.value, value_type=own.value_type)
        render, text = self.edits.render, self.text

        def emit(edit: Edit) -> str:
            p = render(pointer.start, pointer.end)
            head = text[edit.start : pointer.start]
            if not cmpxchg:
                tail = render(pointer.end, edit.end)
                return f"{head}__TR_{code}(({p}), {sid}u, {hint}u){tail}"
            compare, value = rest
            between = text[pointer.end : compare.start]
            middle = text[compare.end : value.start]
            call = (  # the record waits for the outcome: __TR_*P keeps it pending
                f"{head}__TR_{code}P(({p}), {sid}u, {hint}u){between}"
                f"__TR_KEEP({render(compare.start, compare.end)}){middle}"
                f"{render(value.start, edit.end)}"
            )
            return f"__TR_CAS(({call}), {sid}u, {fail}u)"

        self.edits.add(a.span.start, a.span.end, emit)

    def stored_through(self, a: AccessSite, code: str, sid: int, hint: int) -> None:
        """``sincos(x, p)`` and its kind: the pointer the built-in stores its second result
        through goes through the runtime, recorded as a write of the value's bytes."""
        pointer = a.arguments[-1]
        render, text = self.edits.render, self.text

        def emit(edit: Edit) -> str:
            p = render(pointer.start, pointer.end)
            head = render(edit.start, pointer.start)
            return f"{head}__TR_{code}(({p}), {sid}u, {hint}u){text[pointer.end : edit.end]}"

        self.edits.add(a.span.start, a.span.end, emit)

    def vector(self, a: AccessSite, code: str, sid: int, hint: int) -> None:
        """``vloadN(offset, p)`` / ``vstoreN(data, offset, p)``: N elements at p + offset*N."""
        if self.values and a.kind is AccessKind.VSTORE and self.stored_vector(a, code, sid, hint):
            return
        self._vector_edit(a, lambda at, p, width: f"__TR_V{code}({at}, {width}, {sid}u, {hint}u)")

    def stored_vector(self, a: AccessSite, code: str, sid: int, hint: int) -> bool:
        """With values on, ``vstoreN(data, offset, p)`` into global or local memory becomes
        ``__tr_vs_<space>_<type>(__tr_ptr, data, p + offset*N, site, buffer)``, a function
        that records the access, stores and records the value (values.VectorStore): a
        value-recording wrapper around ``data`` alone could run before the address's record
        is made, and land in the site's previous record. A ``vstore_halfN`` records the
        halves it stored. False where the value cannot be recorded (a type the plane has no
        room for), which is then traced as before, without it."""
        if len(a.arguments) != 3 or code not in ("G", "L"):
            return False
        builtin = a.builtin or ""
        plain = re.fullmatch(r"vstore(\d+)", builtin)
        half = re.fullmatch(r"vstore(a?)_half(\d*)(_rt[ezpn])?", builtin)
        store: VectorStore | None = None
        shown, stride = "", 0
        if plain is not None:
            vtype = value_type(a.element_type, int(plain.group(1)))
            if vtype is not None:
                store, shown, stride = VectorStore(code, vtype), vtype.name, vtype.width
        elif half is not None and re.fullmatch(r"(?:float|double)\d*", a.data_type):
            # The bits of the halves it stored, which the views read as halves.
            width = int(half.group(2) or 1)
            vtype = value_type("unsigned short", width)
            if vtype is not None:
                store = VectorStore(code, vtype, builtin, a.data_type)
                shown = "half" + (str(width) if width > 1 else "")
                stride = 4 if half.group(1) and width == 3 else width  # vstorea_half3: a half4's
        if store is None:
            return False
        declared = self.declared
        declared.value_types.append(store.value)
        declared.stored_vectors.append(store.value)
        declared.vector_stores.append(store)
        declared.sites[sid] = replace(declared.sites[sid], value=VALUE_WRITTEN, value_type=shown)
        data, offset, pointer = a.arguments
        render, function = self.edits.render, store.name
        pointee = f"{SPACE_WORD[a.address_space]} {_scalar(a.element_type)}*"

        def emit(edit: Edit) -> str:
            p = render(pointer.start, pointer.end)
            o = render(offset.start, offset.end)
            at = f"({pointee})(({p}) + (size_t)({o}) * {stride})"
            v = render(data.start, data.end)
            return f"{function}(__tr_ptr, ({v}), {at}, {sid}u, {hint}u)"

        self.edits.add(a.span.start, a.span.end, emit)
        return True

    def _vector_edit(self, a: AccessSite, traced: Callable[[str, str, int], str]) -> None:
        """A ``vloadN``/``vstoreN`` call rewritten to go through ``traced(at, p, N)``: the
        address of its N elements (``p`` + offset*N) made into the pointer it uses, its
        offset argument then 0."""
        match = re.match(r"^v(load|store)(a?)(_half)?(\d*)", a.builtin or "")
        width = int(match.group(4) or 1) if match else 1
        # vloada_half3/vstorea_half3 step four halves a triple (aligned as a half4 is)
        stride = 4 if match and match.group(2) and width == 3 else width
        args = a.arguments
        render, text = self.edits.render, self.text

        def emit(edit: Edit) -> str:
            pointer, offset = args[-1], args[-2]
            p = render(pointer.start, pointer.end)
            o = render(offset.start, offset.end)
            call = traced(f"({p}) + (size_t)({o}) * {stride}", p, width)
            head = text[edit.start : args[0].start]
            if len(args) == 2:
                return f"{head}0, {call})"
            data = render(args[0].start, args[0].end)
            return f"{head}{data}, 0, {call})"

        self.edits.add(a.span.start, a.span.end, emit)

    def async_copy(self, write: AccessSite, read: AccessSite) -> None:
        """``async_work_group_copy``/``..._strided_copy``: the copy is shared out over the
        group's work-items as the device may do it, one element each in turn; every
        element is recorded as a read of the source and a write of the destination."""
        args = write.arguments
        declared = self.declared
        if len(args) < 4:
            declared.not_traced.append((write.line, f"{write.text}: an unexpected async copy"))
            return
        for a in (write, read):
            if a.address_space is AddressSpace.LOCAL:
                declared.uses_local = True
        hint_w, hint_r = self.names.hint(write), self.names.hint(read)
        to_local = write.address_space is AddressSpace.LOCAL
        from_local = read.address_space is AddressSpace.LOCAL
        sw = declared.site(
            write.line, WRITE, LOCAL if to_local else GLOBAL, hint_w, write.text, role=ROLE_COPY
        )
        sr = declared.site(
            read.line, READ, LOCAL if from_local else GLOBAL, hint_r, read.text, role=ROLE_COPY
        )
        sc = declared.site(write.line, FENCE, NO_SPACE, NO_BUFFER, write.text, role=ROLE_COPY)
        se = declared.site(write.line, FENCE, NO_SPACE, NO_BUFFER, write.text, role=ROLE_COPY_EVENT)
        event = self._copy_event(write, se)
        fn = "__tr_async_lg" if to_local else "__tr_async_gl"
        strided = len(args) == 5
        count = args[2]
        render, text = self.edits.render, self.text

        def raw(i: int) -> str:
            return text[args[i].start : args[i].end]

        def emit(edit: Edit) -> str:
            stride = f"(size_t)({raw(3)})" if strided else "1"
            dst_space, src_space = ("__local", "__global") if to_local else ("__global", "__local")
            n = f"({event}, (size_t)({render(count.start, count.end)}))"
            traced = (
                f"{fn}(__tr_ptr, ({dst_space} uchar*)({raw(0)}), ({src_space} uchar*)({raw(1)}),"
                f" (size_t)({n}), sizeof(*({raw(0)})), {stride}, {sw}u, {sr}u, {hint_w}u,"
                f" {hint_r}u, {sc}u)"
            )
            return render(edit.start, count.start) + traced + render(count.end, edit.end)

        self.edits.add(write.span.start, write.span.end, emit)

    def _copy_event(self, write: AccessSite, site: int) -> str:
        """The expression that records, at ``site``, the number of the event a copy returns
        and keeps it in the shadow of the variable the result goes to (``events.py``); a
        copy given an event the trace cannot follow is "not traced"."""
        events, args = self.events, write.arguments
        given = self.text[args[-1].start : args[-1].end]
        number = events.event_number(given) if write.function == self.kernel else "0u"
        into = events.stored_in(self.text[max(0, write.span.start - 200) : write.span.start])
        if number == "0u" and self._runs(write.function):
            self.declared.not_traced.append(
                (write.line, f"{write.text}: the event it is given is not followed")
            )
        note = f"__tr_ev_note(__tr_ptr, {site}u, {number})"
        return f"{into} = {note}" if into and write.function == self.kernel else note
