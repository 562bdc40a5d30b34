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

import bisect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from explorer.frontend import (
    AccessKind,
    AccessSite,
    AddressSpace,
    ParsedSource,
    ParseError,
    SyncKind,
    SyncSite,
    parse,
    parse_expanded,
)
from explorer.trace.instrument.model import (
    MAX_BUFFERS,
    MAX_SITES,
    BufferDecl,
    Instrumented,
    InstrumentError,
    SiteDecl,
)
from explorer.trace.instrument.runtime import EXTRA_PARAMS, begin_code, prelude
from explorer.trace.instrument.values import (
    SCALARS,
    ValueType,
    expression_end,
    increment_before,
    operator_after,
    plane_bytes,
    value_code,
    value_type,
)
from explorer.trace.recorded import (
    ATOMIC,
    BARRIER,
    FENCE,
    FENCE_GLOBAL,
    FENCE_LOCAL,
    GLOBAL,
    LOCAL,
    NO_BUFFER,
    NO_SPACE,
    PRIVATE,
    READ,
    RMW,
    VALUE_NONE,
    VALUE_READ,
    VALUE_WRITTEN,
    WRITE,
)

FILENAME = "kernel.cl"
STATE_PARAM = "__tr_state* __tr_ptr"
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
BUFFER_SPACE: dict[AddressSpace, int | str] = {
    AddressSpace.GLOBAL: GLOBAL,
    AddressSpace.LOCAL: LOCAL,
    AddressSpace.CONSTANT: "constant",
}
PRIVATE_KINDS = (AccessKind.READ, AccessKind.WRITE, AccessKind.READ_MODIFY_WRITE)
PRIVATE_SCRATCH_BYTES = 256  # the runtime's scratch slot for a skipped private access
BARRIERS = (SyncKind.BARRIER, SyncKind.WORK_GROUP_BARRIER)
FENCES = (SyncKind.MEM_FENCE, SyncKind.READ_MEM_FENCE, SyncKind.WRITE_MEM_FENCE)


def _scalar(element_type: str) -> str:
    """The OpenCL name of the component type of ``element_type`` as clang spells it
    (``unsigned char4`` -> ``uchar``)."""
    spelled = " ".join(re.sub(r"\d+$", "", element_type).split())
    return SCALARS[spelled][0] if spelled in SCALARS else spelled


@dataclass
class _Edit:
    """A stretch [start, end) of the text to replace; `emit` renders it (zero width: insert)."""

    start: int
    end: int
    emit: Callable[[], str]


class _Rewrite:
    """One rewrite of one parsed source: the sites declared and the edits that record them."""

    def __init__(self, parsed: ParsedSource, kernel: str, values: bool = False) -> None:
        self.parsed = parsed
        self.values = values
        self.value_types: list[ValueType] = []
        self.text = parsed.source
        self.kernel = kernel
        self.sites: list[SiteDecl] = []
        self.not_traced: list[tuple[int, str]] = []
        self.buffers: list[BufferDecl] = []
        self.edits: list[_Edit] = []
        self.uses_local = False
        self.uses_private = False
        self.private_arrays: dict[tuple[str, str], int] = {}  # (function, name) -> buffer
        self.helpers = {f.name: f for f in parsed.helpers}
        self.barriers = 0
        self._starts: list[int] = []
        self._order: dict[int, int] = {}  # id of an edit -> its place in the sorted edits

    # -- declarations -----------------------------------------------------------------
    def site(
        self,
        line: int,
        op: int,
        space: int,
        buffer: int,
        text: str,
        fences: int = 0,
        atomic: bool = False,
        value: int = VALUE_NONE,
    ) -> int:
        """Declare a site and return its id."""
        if len(self.sites) >= MAX_SITES:
            raise InstrumentError(f"more than {MAX_SITES} memory accesses to trace")
        sid = len(self.sites)
        text = " ".join(text.split())
        self.sites.append(SiteDecl(sid, line, op, space, buffer, text, fences, atomic, value))
        return sid

    def value(self, a: AccessSite, sid: int) -> None:
        """With values on: wrap the expression that has the access's value (the load, the
        assignment, the atomic call) so the value is recorded, and say which value the site's
        records hold. Where no such expression can be found the site records none."""
        if not self.values or a.kind in (AccessKind.VSTORE, AccessKind.ASYNC_COPY_READ):
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
        start, end = a.span.start, a.span.end
        kind = VALUE_READ
        if a.kind is AccessKind.WRITE or a.kind is AccessKind.READ_MODIFY_WRITE:
            after = operator_after(self.text, end)
            prefix = increment_before(self.text, start)
            if after is not None and after[0] in ("++", "--"):
                end = after[1]  # x++: its value is the old one
            elif after is not None:
                rhs = expression_end(self.text, after[1])
                if rhs is None:
                    return
                end, kind = rhs, VALUE_WRITTEN
            elif prefix is not None and a.kind is AccessKind.READ_MODIFY_WRITE:
                start, kind = prefix, VALUE_WRITTEN
            else:
                return
        elif a.kind is AccessKind.ATOMIC and (a.builtin or "").endswith("cmpxchg"):
            self.value_types.append(vtype)  # __tr_cas_done records what it returned
            self.sites[sid] = replace(self.sites[sid], value=VALUE_READ, value_type=vtype.name)
            return
        self.value_types.append(vtype)
        self.sites[sid] = replace(self.sites[sid], value=kind, value_type=vtype.name)
        self.add(
            start,
            end,
            lambda edit: f"__tr_v_{vtype.name}(__tr_ptr, {sid}u, {self.inner(edit)})",
        )

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

    def render(self, start: int, end: int, skip: _Edit | None = None) -> str:
        """The text of [start, end) with every edit inside it applied (outermost first).
        With ``skip``, an edit being rendered: it, and the edits of the same stretch that go
        around it (they come before it in order), are left out."""
        out: list[str] = []
        pos = start
        i = bisect.bisect_left(self._starts, start)
        if skip is not None:
            i = max(i, self._order[id(skip)] + 1)
        while i < len(self.edits) and self.edits[i].start < end:
            edit = self.edits[i]
            i += 1
            if edit.start < pos or edit.end > end:
                continue
            out.append(self.text[pos : edit.start])
            out.append(edit.emit())
            pos = edit.end
        out.append(self.text[pos:end])
        return "".join(out)

    def inner(self, edit: _Edit) -> str:
        """The edit's own stretch with the edits nested in it applied."""
        return self.render(edit.start, edit.end, skip=edit)

    def add(self, start: int, end: int, emit: Callable[[_Edit], str]) -> None:
        edit = _Edit(start, end, lambda: "")
        edit.emit = lambda: emit(edit)
        self.edits.append(edit)

    def insert(self, start: int, end: int, text: str) -> None:
        """Replace [start, end) (usually empty) by fixed text."""
        self.edits.append(_Edit(start, end, lambda: text))

    # -- accesses -----------------------------------------------------------------------
    def private_array(self, a: AccessSite) -> int | None:
        """The buffer of the private array an access reaches, when it is one the function
        declares (a subscript of it, or a pointer computed from it alone)."""
        if len(a.roots) != 1:
            return None
        return self.private_arrays.get((a.function, a.roots[0]))

    def private(self, a: AccessSite) -> None:
        """A private array's element: bounds-checked, and recorded only when out of bounds
        (no other work-item sees private memory). Other private accesses are not recorded."""
        bid = self.private_array(a)
        if bid is None or a.kind not in PRIVATE_KINDS:
            return
        if a.size > PRIVATE_SCRATCH_BYTES:
            self.not_traced.append(
                (a.line, f"{a.text}: a private element over {PRIVATE_SCRATCH_BYTES} bytes")
            )
            return
        self.uses_private = True
        array = self.buffers[bid].name
        sid = self.site(a.line, OPS[a.kind], PRIVATE, bid, a.text)
        if a.components:

            def emit(edit: _Edit) -> str:
                base, _, selector = self.inner(edit).rpartition(".")
                return f"(*__TR_P(&({base}), {array}, {sid}u, {bid}u)).{selector}"

            self.add(a.span.start, a.span.end, emit)
        else:
            self.add(
                a.span.start,
                a.span.end,
                lambda edit: f"(*__TR_P(&({self.inner(edit)}), {array}, {sid}u, {bid}u))",
            )

    def access(self, a: AccessSite) -> None:
        """Wrap one access site (private memory only where it is an array's element)."""
        if a.address_space is AddressSpace.PRIVATE:
            self.private(a)
            return
        hint = self.hint(a)
        unnamed_constant = a.address_space is AddressSpace.CONSTANT and hint == NO_BUFFER
        if unnamed_constant and (
            a.function == self.kernel or not any(b.space == "constant" for b in self.buffers)
        ):
            self.not_traced.append(
                (a.line, f"{a.text}: a __constant array that is not a kernel parameter")
            )
            return
        if a.address_space is AddressSpace.LOCAL:
            self.uses_local = True
        space = LOCAL if a.address_space is AddressSpace.LOCAL else GLOBAL
        code = SPACE_CODE[a.address_space]
        op = OPS[a.kind]
        if a.kind in (AccessKind.ASYNC_COPY_READ, AccessKind.ASYNC_COPY_WRITE):
            return  # both halves are written by `async_copy`
        sid = self.site(a.line, op, space, hint, a.text)
        self.value(a, sid)  # first: an edit of the same span goes around the access's own
        if a.builtin is not None and a.kind is AccessKind.ATOMIC:
            self.atomic(a, code, sid, hint)
        elif a.kind in (AccessKind.VLOAD, AccessKind.VSTORE):
            self.vector(a, code, sid, hint)
        elif a.components and self.single_component(a) is not None:
            # One component (`out4[i].y = v`) becomes that scalar's own access: through a
            # pointer to the whole vector a GPU compiler may store all of it, losing the other
            # components other work-items write (seen on NVIDIA).
            index, scalar = self.single_component(a) or (0, "float")
            space_word = SPACE_WORD[a.address_space]

            def emit_scalar(edit: _Edit) -> str:
                base, _, _selector = self.inner(edit).rpartition(".")
                element = f"((({space_word} {scalar}*)&({base}))[{index}])"
                return f"(*__TR_{code}(&{element}, {sid}u, {hint}u))"

            self.add(a.span.start, a.span.end, emit_scalar)
        elif a.components:
            offset, size = self.component(a)

            def emit(edit: _Edit) -> str:
                base, _, selector = self.inner(edit).rpartition(".")
                return f"(*__TR_{code}X(&({base}), {offset}u, {size}u, {sid}u, {hint}u)).{selector}"

            self.add(a.span.start, a.span.end, emit)
        else:
            self.add(
                a.span.start,
                a.span.end,
                lambda edit: f"(*__TR_{code}(&({self.inner(edit)}), {sid}u, {hint}u))",
            )

    def single_component(self, a: AccessSite) -> tuple[int, str] | None:
        """The index and scalar type of a one-component selection (``.y``, ``.s3``), or None."""
        selector = (a.components or "").strip()
        scalar = _scalar(a.element_type)
        if scalar not in SCALAR_BYTES or a.size != SCALAR_BYTES[scalar]:
            return None
        if len(selector) == 1 and selector in "xyzw":
            return "xyzw".index(selector), scalar
        if len(selector) == 2 and selector[0] in "sS" and selector[1] in "0123456789abcdefABCDEF":
            return int(selector[1], 16), scalar
        return None

    def component(self, a: AccessSite) -> tuple[int, int]:
        """Byte offset in the vector and bytes touched of a component selection."""
        selector = (a.components or "").strip()
        scalar = SCALAR_BYTES.get(_scalar(a.element_type), 4)
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
        size = 1 << max(0, a.size.bit_length() - 1)
        return first * scalar, size

    def atomic(self, a: AccessSite, code: str, sid: int, hint: int) -> None:
        """An atomic call: its pointer argument goes through the runtime. A compare-and-swap
        is recorded as a write only when it swapped; otherwise as a read."""
        pointer, rest = a.arguments[0], a.arguments[1:]
        cmpxchg = (a.builtin or "").endswith("cmpxchg") and len(rest) == 2
        space = self.sites[sid].space
        fail = 0
        if cmpxchg:
            fail = self.site(a.line, READ, space, hint, a.text, atomic=True)
            own = self.sites[sid]
            self.sites[fail] = replace(self.sites[fail], value=own.value, value_type=own.value_type)

        def emit(edit: _Edit) -> str:
            p = self.render(pointer.start, pointer.end)
            head = self.text[edit.start : pointer.start]
            if not cmpxchg:
                tail = self.render(pointer.end, edit.end)
                return f"{head}__TR_{code}(({p}), {sid}u, {hint}u){tail}"
            compare, value = rest
            between = self.text[pointer.end : compare.start]
            middle = self.text[compare.end : value.start]
            call = (  # the record waits for the outcome: __TR_*P keeps it pending
                f"{head}__TR_{code}P(({p}), {sid}u, {hint}u){between}"
                f"__TR_KEEP({self.render(compare.start, compare.end)}){middle}"
                f"{self.render(value.start, edit.end)}"
            )
            return f"__TR_CAS(({call}), {sid}u, {fail}u)"

        self.add(a.span.start, a.span.end, emit)

    def vector(self, a: AccessSite, code: str, sid: int, hint: int) -> None:
        """``vloadN(offset, p)`` / ``vstoreN(data, offset, p)``: N elements at p + offset*N."""
        match = re.match(r"^v(load|store)a?(_half)?(\d*)", a.builtin or "")
        width = int(match.group(3) or 1) if match else 1
        args = a.arguments

        def emit(edit: _Edit) -> str:
            pointer, offset = args[-1], args[-2]
            p = self.render(pointer.start, pointer.end)
            o = self.render(offset.start, offset.end)
            traced = f"__TR_V{code}(({p}) + (size_t)({o}) * {width}, {width}, {sid}u, {hint}u)"
            head = self.text[edit.start : args[0].start]
            if len(args) == 2:
                return f"{head}0, {traced})"
            data = self.render(args[0].start, args[0].end)
            return f"{head}{data}, 0, {traced})"

        self.add(a.span.start, a.span.end, emit)

    def async_copy(self, write: AccessSite, read: AccessSite) -> None:
        """``async_work_group_copy``/``..._strided_copy``: the copy is shared out over the
        group's work-items as the device may do it, one element each in turn; every
        element is recorded as a read of the source and a write of the destination."""
        args = write.arguments
        if len(args) < 4:
            self.not_traced.append((write.line, f"{write.text}: an unexpected async copy"))
            return
        for a in (write, read):
            if a.address_space is AddressSpace.LOCAL:
                self.uses_local = True
        hint_w, hint_r = self.hint(write), self.hint(read)
        sw = self.site(
            write.line,
            WRITE,
            LOCAL if write.address_space is AddressSpace.LOCAL else GLOBAL,
            hint_w,
            write.text,
        )
        sr = self.site(
            read.line,
            READ,
            LOCAL if read.address_space is AddressSpace.LOCAL else GLOBAL,
            hint_r,
            read.text,
        )
        to_local = write.address_space is AddressSpace.LOCAL
        fn = "__tr_async_lg" if to_local else "__tr_async_gl"
        strided = len(args) == 5
        count = args[2]

        def raw(i: int) -> str:
            return self.text[args[i].start : args[i].end]

        def emit(edit: _Edit) -> str:
            stride = f"(size_t)({raw(3)})" if strided else "1"
            dst_space, src_space = ("__local", "__global") if to_local else ("__global", "__local")
            n = self.render(count.start, count.end)
            traced = (
                f"{fn}(__tr_ptr, ({dst_space} uchar*)({raw(0)}), ({src_space} uchar*)({raw(1)}),"
                f" (size_t)({n}), sizeof(*({raw(0)})), {stride}, {sw}u, {sr}u, {hint_w}u,"
                f" {hint_r}u)"
            )
            return self.render(edit.start, count.start) + traced + self.render(count.end, edit.end)

        self.add(write.span.start, write.span.end, emit)

    # -- synchronisation ------------------------------------------------------------
    def sync(self, s: SyncSite) -> None:
        """Barriers and fences are recorded where they are. ``wait_group_events`` is recorded
        as a barrier: after it every work-item of the group sees what the copies wrote (it
        always runs: a copy not waited for would still be in flight)."""
        fences = (FENCE_LOCAL if AddressSpace.LOCAL in s.fences else 0) | (
            FENCE_GLOBAL if AddressSpace.GLOBAL in s.fences else 0
        )
        name = s.kind.value
        if s.kind is SyncKind.WAIT_GROUP_EVENTS:
            sid = self.site(s.line, BARRIER, NO_SPACE, NO_BUFFER, name, fences)
            index = self.barriers
            self.barriers += 1
            self.add(
                s.span.start,
                s.span.end,
                lambda edit: f"(__tr_barrier(__tr_ptr, {sid}u, {index}u), {self.inner(edit)})",
            )
        elif s.kind in BARRIERS:
            sid = self.site(s.line, BARRIER, NO_SPACE, NO_BUFFER, name, fences)
            index = self.barriers
            self.barriers += 1
            self.add(
                s.span.start,
                s.span.end,
                lambda edit: f"__TR_BARRIER({sid}u, {index}u, {self.inner(edit)})",
            )
        else:
            sid = self.site(s.line, FENCE, NO_SPACE, NO_BUFFER, name, fences)
            self.add(
                s.span.start,
                s.span.end,
                lambda edit: f"(__tr_fence(__tr_ptr, {sid}u), {self.inner(edit)})",
            )

    # -- the whole source -----------------------------------------------------------
    def build(self) -> str:
        parsed = self.parsed
        target = next((f for f in parsed.kernels if f.name == self.kernel), None)
        if target is None:
            raise InstrumentError(f"no '__kernel void {self.kernel}(...)' definition in the source")
        for index, p in enumerate(target.parameters):
            if p.is_pointer and p.address_space is not AddressSpace.PRIVATE:
                space = BUFFER_SPACE[p.address_space]
                self.buffers.append(BufferDecl(len(self.buffers), p.name, space, index, 1))
        registrations: list[tuple[int, str]] = []
        for v in parsed.variables:
            if v.function != self.kernel or v.address_space is not AddressSpace.LOCAL:
                continue
            bid = len(self.buffers)
            self.buffers.append(BufferDecl(bid, v.name, LOCAL, None, max(1, len(v.shape))))
            self.uses_local = True
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
        for v in parsed.variables:  # program scope: registered at the kernel's start
            if v.function or v.address_space not in (AddressSpace.GLOBAL, AddressSpace.CONSTANT):
                continue
            space = BUFFER_SPACE[v.address_space]
            self.buffers.append(
                BufferDecl(
                    len(self.buffers), v.name, space, None, max(1, len(v.shape)),
                    v.element_size, v.shape,
                )
            )  # fmt: skip
        if len(self.buffers) > MAX_BUFFERS - 1:
            raise InstrumentError(f"more than {MAX_BUFFERS - 1} buffers to trace")
        for v in parsed.variables:
            traced = v.function == self.kernel or v.function in self.helpers
            if v.address_space is not AddressSpace.PRIVATE or not traced:
                continue
            if len(self.buffers) >= MAX_BUFFERS - 1:
                self.not_traced.append(
                    (v.line, f"{v.name}: private array not bounds-checked (too many buffers)")
                )
                continue
            bid = len(self.buffers)
            self.private_arrays[(v.function, v.name)] = bid
            self.buffers.append(
                BufferDecl(
                    bid,
                    v.name,
                    PRIVATE,
                    None,
                    max(1, len(v.shape)),
                    v.element_size,
                    v.shape,
                    v.function,
                )
            )

        helpers = {f.name for f in parsed.helpers}
        async_halves: dict[tuple[int, int], list[AccessSite]] = {}
        for a in parsed.accesses:
            if a.kind in (AccessKind.ASYNC_COPY_READ, AccessKind.ASYNC_COPY_WRITE):
                async_halves.setdefault((a.span.start, a.span.end), []).append(a)
            self.access(a)
        for halves in async_halves.values():
            write = next((a for a in halves if a.kind is AccessKind.ASYNC_COPY_WRITE), None)
            read = next((a for a in halves if a.kind is AccessKind.ASYNC_COPY_READ), None)
            if write is None or read is None:
                self.not_traced.append((halves[0].line, f"{halves[0].text}: not traced"))
            else:
                self.async_copy(write, read)
        for s in parsed.syncs:
            self.sync(s)
        for u in parsed.unclassified:
            if u.function == self.kernel or u.function in helpers:
                self.not_traced.append((u.line, f"{' '.join(u.text.split())}: {u.reason}"))

        for c in parsed.calls:
            if c.callee in helpers:
                glue = "__tr_ptr" if c.args_empty else ", __tr_ptr"
                self.insert(c.args_close, c.args_close, glue)
        declared = [(f.name, f.params_close, f.params_empty) for f in parsed.helpers]
        declared += [(f.name, f.params_close, f.params_empty) for f in parsed.prototypes]
        for name, close, empty in declared:
            if name in helpers and close >= 0:
                glue = STATE_PARAM if empty else ", " + STATE_PARAM
                start = self.text.rfind("(", 0, close) + 1 if empty else close  # `(void)` too
                self.insert(start, close, glue)
        for f in parsed.kernels:
            if f.name == self.kernel:
                continue
            self.insert(f.body.start + 1, f.body.start + 1, " __tr_state* __tr_ptr = 0;")
        for r in parsed.returns:
            if r.function == self.kernel and not r.has_value:
                self.insert(r.span.start, r.span.start, "{ __tr_end(__tr_ptr); ")
                after = self.text.find(";", r.span.end) + 1
                self.insert(after, after, " }")
        for at, code in registrations:
            self.insert(at, at, code)
        glue = ", ".join(EXTRA_PARAMS)
        start = target.params_close
        if target.params_empty:
            start = self.text.rfind("(", 0, target.params_close) + 1
        else:
            glue = ", " + glue
        self.insert(start, target.params_close, glue)
        opening = target.body.start + 1
        self.add(
            opening,
            opening,
            lambda edit: begin_code(self.buffers, self.uses_local, self.uses_private),
        )
        closing = target.body.end - 1
        self.insert(closing, closing, " __tr_end(__tr_ptr); ")

        # Outermost first at each offset; insertions at an offset go before what starts there.
        self.edits.sort(key=lambda e: (e.start, e.end > e.start, -(e.end - e.start)))
        self._starts = [e.start for e in self.edits]
        self._order = {id(e): i for i, e in enumerate(self.edits)}
        return self.render(0, len(self.text))


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


def instrument(
    source: str,
    kernel: str,
    defines: Mapping[str, int | str] | None = None,
    values: bool = False,
    cl_std: str = "CL1.2",
) -> Instrumented:
    """The traced version of ``kernel`` in ``source`` built with ``defines``; with
    ``values``, a build that also records the value of every access it can (``values.py``).
    ``cl_std`` is the OpenCL C standard the build asks for (program-scope variables, the 2.0
    work-item functions need CL2.0).

    Helper functions the source defines receive the trace state as an extra last argument
    (their prototypes too). Other kernels in the file keep working, untraced.
    """
    chosen: dict[str, int | str] = {**dict(defines or {}), "EXPLORER_TRACE": 1}  # as built
    try:
        parsed = parse(source, chosen, FILENAME, cl_std=cl_std)
        if parsed.has_macro_sites:
            parsed = parse_expanded(source, chosen, FILENAME, cl_std=cl_std)
    except ParseError as exc:
        raise InstrumentError(str(exc)) from None
    rewrite = _Rewrite(parsed, kernel, values)
    body = without_unrolling(rewrite.build())
    width = plane_bytes(rewrite.value_types) if values else 0
    code = value_code(rewrite.value_types, width) if values else ""
    return Instrumented(
        source=prelude(len(rewrite.buffers), rewrite.barriers, width, code) + body,
        kernel=kernel,
        buffers=tuple(rewrite.buffers),
        sites=tuple(rewrite.sites),
        not_traced=tuple(sorted(set(rewrite.not_traced))),
        extra_params=EXTRA_PARAMS,
        barriers=rewrite.barriers,
        value_bytes=width,
    )
