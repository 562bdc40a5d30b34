"""What the rewrite of one kernel declares as it goes: the sites it records, the buffers they
name, what it cannot trace, the types of the values it records, and whether the kernel's
local or private memory is traced."""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.trace.instrument.model import (
    MAX_SITES,
    BufferDecl,
    InstrumentError,
    SiteDecl,
)
from explorer.trace.instrument.values import ValueType, VectorStore, wide_vectors
from explorer.trace.recorded import (
    FENCE,
    NO_BUFFER,
    NO_SPACE,
    ROLE_PARTS,
    VALUE_NONE,
    VALUE_WRITTEN,
)


@dataclass
class Declared:
    """The declarations of one rewrite; sites and buffers are numbered in declaration
    order."""

    sites: list[SiteDecl] = field(default_factory=list)
    buffers: list[BufferDecl] = field(default_factory=list)
    not_traced: list[tuple[int, str]] = field(default_factory=list)  # (line, why)
    value_types: list[ValueType] = field(default_factory=list)
    # The vstoreN calls that record their values through a function of their own, the
    # vector types whose stored values record every component (``__tr_w_<type>``: a vstoreN,
    # an assignment, ``+=``), and the site of the records holding the components their own
    # records have no room for (declared after every other access's site, ``parts``).
    vector_stores: list[VectorStore] = field(default_factory=list)
    stored_vectors: list[ValueType] = field(default_factory=list)
    parts_site: int | None = None
    private_arrays: dict[tuple[str, str], int] = field(default_factory=dict)  # (fn, name) -> id
    # The private arrays checked for reads of unwritten elements: id -> its shadow's name.
    shadows: dict[int, str] = field(default_factory=dict)
    # Of each: the bytes one shadow byte stands for, and the components of a vector element
    # (0: the element is no vector), shadows.slots.
    shadow_slots: dict[int, tuple[int, int]] = field(default_factory=dict)
    # The helpers' private pointer parameters checked against the array a call gives them
    # (shadows.followed_parameters), and the arrays given so: id -> its description's name.
    followed: set[tuple[str, str]] = field(default_factory=set)
    descriptions: dict[int, str] = field(default_factory=dict)
    # The sites that record each access, by the access's span (start, end) in the text.
    access_sites: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    samplers: list[int] = field(default_factory=list)  # kernel sampler parameters passed
    image_code: list[str] = field(default_factory=list)  # the image calls' functions
    uses_local: bool = False
    uses_private: bool = False
    barriers: int = 0

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
        role: str = "",
        size: int = 0,
        unused: tuple[tuple[int, int], ...] = (),
    ) -> int:
        """Declare a site and return its id; ``size``, the bytes each access it records holds
        where the access's type says them (SiteDecl.size)."""
        if len(self.sites) >= MAX_SITES:
            raise InstrumentError(f"more than {MAX_SITES} memory accesses to trace")
        sid = len(self.sites)
        text = " ".join(text.split())
        self.sites.append(
            SiteDecl(
                sid,
                line,
                op,
                space,
                buffer,
                text,
                fences,
                atomic,
                value,
                role=role,
                size=size,
                unused=unused,
            )
        )
        return sid

    def parts(self) -> None:
        """Declare the site of the components of stored vectors too wide for one record's
        value (``ROLE_PARTS``), where ``__tr_w_<type>`` records them. After every
        access's own: the sites of a build with values are numbered as those of a build
        without them (an anatomy build's trace is read against the plain trace's sites)."""
        if self.parts_site is None and wide_vectors(self.stored_vectors, self.value_types):
            self.parts_site = self.site(
                0,
                FENCE,
                NO_SPACE,
                NO_BUFFER,
                "vector components",
                value=VALUE_WRITTEN,
                role=ROLE_PARTS,
            )

    def recorded_at(self, start: int, end: int, sid: int) -> None:
        """Note that site ``sid`` records the access written at [start, end)."""
        self.access_sites.setdefault((start, end), []).append(sid)

    def barrier(self) -> int:
        """Number the next barrier."""
        index = self.barriers
        self.barriers += 1
        return index
