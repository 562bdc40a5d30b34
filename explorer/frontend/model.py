"""The records one parse of an OpenCL C source produces.

Every later consumer (kernel signatures, the open-kernel dialog, the instrumentation rewrite)
reads these frozen records instead of parsing the text again. Positions are always in the
user's own file: 1-based line and column, and 0-based character offsets into the source
string that was given to `parse`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace


class AddressSpace(enum.Enum):
    """The OpenCL C 1.2 address spaces an access or a parameter lives in."""

    GLOBAL = "global"
    LOCAL = "local"
    CONSTANT = "constant"
    PRIVATE = "private"


class AccessKind(enum.Enum):
    """What an access does to memory, as the instrumentation must record it."""

    READ = "read"
    WRITE = "write"
    READ_MODIFY_WRITE = "read-modify-write"
    ATOMIC = "atomic"
    VLOAD = "vload"
    VSTORE = "vstore"
    ASYNC_COPY_READ = "async-copy-read"
    ASYNC_COPY_WRITE = "async-copy-write"


class SyncKind(enum.Enum):
    """Synchronisation points: barriers order work-items, fences order one item's accesses."""

    BARRIER = "barrier"
    WORK_GROUP_BARRIER = "work_group_barrier"
    MEM_FENCE = "mem_fence"
    READ_MEM_FENCE = "read_mem_fence"
    WRITE_MEM_FENCE = "write_mem_fence"
    WAIT_GROUP_EVENTS = "wait_group_events"


@dataclass(frozen=True)
class Span:
    """A stretch of the user's file a rewriter can wrap: offsets [start, end) and positions."""

    start: int
    end: int
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Parameter:
    """One kernel or helper parameter as the OpenCL runtime and the dialog must see it.

    `type_text` is the type as clang prints it with typedefs kept (`gbuf`, `index_t`);
    `element_type` is the pointee's canonical type for pointers and the type itself otherwise.
    `element_size` is in bytes (a `float4` is 16) and `vector_width` is 1 for scalars.
    """

    name: str
    type_text: str
    address_space: AddressSpace
    is_pointer: bool
    element_type: str
    element_size: int
    vector_width: int
    is_const: bool
    is_restrict: bool
    # The bytes of one element no member of its struct covers (the compiler's padding), as
    # [start, end) ranges; empty for an element that is no struct or has none.
    padding: tuple[tuple[int, int], ...] = ()

    @property
    def is_local_pointer(self) -> bool:
        """A `__local` pointer: the host passes only a size, never data."""
        return self.is_pointer and self.address_space is AddressSpace.LOCAL

    @property
    def is_scalar(self) -> bool:
        """A by-value argument (a number or a vector), not a buffer."""
        return not self.is_pointer


@dataclass(frozen=True)
class Function:
    """A function defined in the source; kernels carry `is_kernel`."""

    name: str
    line: int
    is_kernel: bool
    parameters: tuple[Parameter, ...]
    body: Span
    params_close: int = -1  # offset of the `)` that closes the parameter list
    params_empty: bool = False  # `()` or `(void)`: a parameter added goes alone
    # The macro that wrote its name or parameter list (`SCALE_KERNEL(mul, *)`): where a
    # parameter is added is then only in the expanded source.
    macro: str | None = None


@dataclass(frozen=True)
class Prototype:
    """A function declared without a body (a forward prototype): where its parameters end."""

    name: str
    line: int
    params_close: int
    params_empty: bool
    macro: str | None = None  # as Function.macro


@dataclass(frozen=True)
class Variable:
    """A `__local` variable a function body declares (an array or a scalar), a private
    array (`address_space` PRIVATE), or a program-scope `__global`/`__constant` variable
    (`function` empty), whose accesses trace builds bounds-check.

    `shape` holds the array's dimensions (empty for a scalar), `element_size` the bytes of
    one element and `decl_end` the offset just past the declaration's `;`, where a rewriter
    may add statements that run once the variable exists; `decl_start` the offset where that
    declaration starts (its type: `float a[4] = {0}, b[4];` declares `b` from `float` on).
    `initialised`: the declaration gives it a value (`= {0}`; for an array member of a struct,
    the struct's `= {...}` or `= other`, or the struct is a parameter, a copy of the
    caller's), so every element of it holds one from the start. `components`: the number of
    components of a vector element (3 for `float3`, whose element takes the bytes of 4), 0
    for an element that is no vector. `padding`: the bytes of a struct element that no member
    covers, as [start, end) ranges. `element_type`: the element's type as `Parameter` gives a
    pointer's (`float`, `uint`, `float4`), what a value stored through a cast reads as.
    """

    name: str
    function: str
    line: int
    address_space: AddressSpace
    shape: tuple[int, ...]
    element_size: int
    decl_end: int
    initialised: bool = False
    decl_start: int = -1
    components: int = 0
    padding: tuple[tuple[int, int], ...] = ()
    element_type: str = ""


@dataclass(frozen=True)
class Call:
    """A call of a function the source itself defines: a rewriter may add an argument.

    `argument_roots` holds, per argument, the parameters or variables a pointer argument is
    computed from (empty for a value or an address of unknown origin), so an access in the
    callee can be named by the caller's buffer.
    """

    function: str
    callee: str
    line: int
    span: Span
    args_close: int  # offset of the call's closing `)`
    args_empty: bool
    macro: str | None = None
    argument_roots: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Return:
    """A `return` statement, so a rewriter can run code on every way out of a function."""

    function: str
    line: int
    span: Span
    has_value: bool


@dataclass(frozen=True)
class AccessSite:
    """One place in the source that reads or writes memory the trace must record.

    `base` is the name the access goes through as written (`a`, `row`, `v.src`, `cells`);
    `derived` says the address is computed from it (pointer arithmetic, a pointer variable,
    a cast, a ternary) rather than a plain subscript of it, and `roots` names the parameters
    or variables the address comes from. `size` is the number of bytes touched: an element,
    a struct member, the chosen vector components, or N elements for `vloadN`/`vstoreN`.
    `components` holds a vector selector such as `x`, `s0`, `lo` or `zw` when there is one,
    or a chain of them (`wz.x`), and `vector_width` the number of components of the vector
    the first one selects from.
    For builtin calls (atomics, vload/vstore, async copies) `builtin` names the function and
    `arguments` are the spans of its arguments, so a rewriter can reuse the comparison
    value of `atomic_cmpxchg`. `macro` names the macro the access was written in when it
    does not appear in the file itself; its `span` is then the whole macro invocation.
    """

    function: str
    line: int
    column: int
    span: Span
    text: str
    address_space: AddressSpace
    base: str
    derived: bool
    roots: tuple[str, ...]
    element_type: str
    size: int
    kind: AccessKind
    components: str | None = None
    builtin: str | None = None
    arguments: tuple[Span, ...] = ()
    macro: str | None = None
    vector_width: int = 0
    # A struct read whole into a private variable (`P q = loc[i];`, `q = loc[i];`): the bytes
    # of the access, [start, end) from its first, that hold members the function never reads
    # from that variable (`q.pad` written nowhere after); empty where every member may be read
    # (the variable used otherwise than by its members: passed, copied, its address taken).
    unused: tuple[tuple[int, int], ...] = ()
    # A vstoreN's first argument: the type of the vector it stores (`float4`; a
    # `vstore_half4` stores a `float4` or a `double4` as halves).
    data_type: str = ""


@dataclass(frozen=True)
class ImageCall:
    """A ``read_image*`` or ``write_image*`` call of a 2-D or 3-D image: which image (the
    name it goes through, ``image``, and the parameters or variables it comes from,
    ``roots``), its type as clang prints it (``__read_only image2d_t``), the coordinate's
    type (``int2``, ``float4``) and the sampler. ``sampler`` names the parameter a sampler
    argument is; ``sampler_flags`` is its value where it is a constant (an inline
    ``CLK_ADDRESS_CLAMP | ...`` or a variable initialised with one), in the values of the
    prelude's ``CLK_*`` macros; neither for a call without a sampler or a sampler of
    unknown origin (``has_sampler`` tells them apart). ``arguments`` are the spans of the
    call's arguments."""

    function: str
    line: int
    column: int
    span: Span
    text: str
    builtin: str
    write: bool
    image: str
    roots: tuple[str, ...]
    image_type: str
    coordinate_type: str
    arguments: tuple[Span, ...]
    has_sampler: bool = False
    sampler: str = ""
    sampler_flags: int | None = None
    macro: str | None = None

    @property
    def dims(self) -> int:
        """2 or 3 for an ``image2d_t`` or ``image3d_t``; 0 for another image type."""
        words = self.image_type.split()
        return {"image2d_t": 2, "image3d_t": 3}.get(words[-1] if words else "", 0)


@dataclass(frozen=True)
class SyncSite:
    """A barrier, a fence or a wait on async copies, with the address spaces it orders."""

    function: str
    line: int
    column: int
    span: Span
    kind: SyncKind
    fences: frozenset[AddressSpace]
    macro: str | None = None
    # The call's arguments (a wait records how many events it names); a barrier or fence
    # whose flags are not a constant has ``dynamic_flags`` and records them where it runs.
    arguments: tuple[Span, ...] = ()
    dynamic_flags: bool = False


@dataclass(frozen=True)
class Unclassified:
    """Something that touches memory but that the front end cannot describe: never dropped."""

    line: int
    text: str
    reason: str
    function: str = ""


@dataclass(frozen=True)
class Diagnostic:
    """A compiler message at a line of the user's file."""

    line: int
    column: int
    severity: str
    message: str


@dataclass(frozen=True)
class ReturnedCopy:
    """A helper's ``return loc[i];`` that reads a whole struct from memory: the helper, the
    span of that read (one access site has it) and the bytes of each named member of the
    struct, (name, start, end) from its first; no members where a member's place is not
    known (a bit-field), so nothing can be claimed. What its callers read of the result
    decides which of those bytes the copy never hands on (``ParsedSource.for_kernel``)."""

    function: str
    span: Span
    members: tuple[tuple[str, int, int], ...]


@dataclass(frozen=True)
class ResultUse:
    """What one call of a function returning a private struct reads of the result: the
    members named (``r = get(loc, i); ... r.x``, ``get(loc, i).x``), or None where the result
    is used whole (passed on, copied, returned, its address taken). ``function`` is the
    caller."""

    function: str
    callee: str
    members: frozenset[str] | None


@dataclass(frozen=True)
class ParsedSource:
    """Everything one parse found: functions, memory accesses, synchronisation, leftovers."""

    filename: str
    source: str
    functions: tuple[Function, ...]
    accesses: tuple[AccessSite, ...]
    syncs: tuple[SyncSite, ...]
    unclassified: tuple[Unclassified, ...]
    warnings: tuple[Diagnostic, ...]
    prototypes: tuple[Prototype, ...] = ()
    variables: tuple[Variable, ...] = ()
    calls: tuple[Call, ...] = ()
    returns: tuple[Return, ...] = ()
    line_map: tuple[int, ...] = ()  # user line of each line of `source`, when it was expanded
    images: tuple[ImageCall, ...] = ()  # read_image*/write_image* calls
    # Lines where arithmetic combines two addresses, each a constant place in the same
    # `__local` variable (`(char *)&s.first - (char *)&s`: pyopencl's offsetof). PoCL 3.0
    # crashes building such a kernel without optimisation, which folds them.
    local_address_arithmetic: tuple[int, ...] = ()
    # Helpers' whole-struct returns and what each call of such a helper reads of the result:
    # judged per traced kernel (`for_kernel`), since another kernel's calls never run.
    returned_copies: tuple[ReturnedCopy, ...] = ()
    result_uses: tuple[ResultUse, ...] = ()

    @property
    def has_macro_sites(self) -> bool:
        """Whether an access, a barrier, a call or a function's declaration was written
        inside a macro."""
        return (
            any(f.macro for f in self.functions)
            or any(p.macro for p in self.prototypes)
            or any(a.macro for a in self.accesses)
            or any(s.macro for s in self.syncs)
            or any(c.macro for c in self.calls)
            or any(i.macro for i in self.images)
        )

    @property
    def kernels(self) -> tuple[Function, ...]:
        """The `__kernel` functions, in source order."""
        return tuple(f for f in self.functions if f.is_kernel)

    @property
    def helpers(self) -> tuple[Function, ...]:
        """The non-kernel functions with a body, in source order."""
        return tuple(f for f in self.functions if not f.is_kernel)

    def reached(self, kernel: str) -> frozenset[str]:
        """The functions a launch of ``kernel`` can run: itself and the functions of this
        source it calls, through other functions too."""
        callees: dict[str, set[str]] = {}
        for c in self.calls:
            callees.setdefault(c.function, set()).add(c.callee)
        found, todo = {kernel}, [kernel]
        while todo:
            for callee in callees.get(todo.pop(), ()):
                if callee not in found:
                    found.add(callee)
                    todo.append(callee)
        return frozenset(found)

    def for_kernel(self, kernel: str) -> ParsedSource:
        """This parse as a launch of ``kernel`` runs it: each helper's whole-struct return
        (``return tile[at];``) marked with the bytes of the members that no call the kernel
        can run reads from the result (``AccessSite.unused``). Calls in other kernels, and in
        helpers only they call, never run in this launch: what they read counts for nothing
        here. A result used whole by one such call, or a helper this kernel never calls,
        claims nothing."""
        if not self.returned_copies:
            return self
        reached = self.reached(kernel)
        marks: dict[tuple[str, int, int], tuple[tuple[int, int], ...]] = {}
        for r in self.returned_copies:
            uses = [
                u.members
                for u in self.result_uses
                if u.callee == r.function and u.function in reached
            ]
            if not uses or not r.members:
                continue
            read: set[str] = set()
            for members in uses:
                if members is None:
                    break
                read |= members
            else:
                unused = unread_bytes(r.members, read)
                if unused:
                    marks[(r.function, r.span.start, r.span.end)] = unused
        if not marks:
            return self
        return replace(
            self,
            accesses=tuple(
                replace(a, unused=marks[(a.function, a.span.start, a.span.end)])
                if (a.function, a.span.start, a.span.end) in marks
                else a
                for a in self.accesses
            ),
        )

    def kernel(self, name: str) -> Function:
        """The kernel called `name`; KeyError names the kernels there are."""
        for f in self.kernels:
            if f.name == name:
                return f
        raise KeyError(f"no kernel {name!r}; kernels: {[k.name for k in self.kernels]}")


def unread_bytes(
    members: tuple[tuple[str, int, int], ...], read: set[str]
) -> tuple[tuple[int, int], ...]:
    """The bytes, [start, end), of the members not named in ``read`` (neighbours joined)."""
    ranges: list[tuple[int, int]] = []
    for name, start, end in members:
        if name in read:
            continue
        if ranges and ranges[-1][1] == start:
            ranges[-1] = (ranges[-1][0], end)
        else:
            ranges.append((start, end))
    return tuple(ranges)


class ParseError(Exception):
    """The source is not valid OpenCL C for these defines; carries the compiler's messages."""

    def __init__(self, filename: str, diagnostics: tuple[Diagnostic, ...]) -> None:
        self.filename = filename
        self.diagnostics = diagnostics
        first = diagnostics[0] if diagnostics else None
        where = f"{filename}:{first.line}:{first.column}: {first.message}" if first else filename
        super().__init__(f"OpenCL C does not parse: {where}")
