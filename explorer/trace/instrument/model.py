"""What instrumentation produces: the traced source and the buffers and access sites it
declares, which the decoder maps records back onto."""

from __future__ import annotations

from dataclasses import dataclass

from explorer.frontend.anatomy import KernelAnatomy
from explorer.trace.recorded import NO_BUFFER, SITE_MASK

MAX_BUFFERS = NO_BUFFER  # 6 bits in a record; NO_BUFFER means "no buffer"
MAX_SITES = SITE_MASK + 1  # 10 bits in a record


class InstrumentError(ValueError):
    """The source cannot be instrumented at all (no such kernel, too many buffers)."""


@dataclass(frozen=True)
class BufferDecl:
    """A buffer the instrumented kernel registers: a pointer parameter or a local array."""

    id: int
    name: str
    space: int | str  # GLOBAL, LOCAL, PRIVATE or "constant"
    param_index: int | None  # position in the kernel's parameter list, or None for arrays
    dims: int  # subscripts that make one element access (1 for pointers)
    # Private arrays are described here, not by the kernel: element bytes and shape.
    elem_size: int = 0
    shape: tuple[int, ...] = ()
    function: str = ""  # the function that declares a private array
    image: int = 0  # 2 or 3: an image2d_t or image3d_t parameter, whose elements are pixels
    components: int = 0  # a private array of vectors: the components of one (3 for float3)
    # The bytes of one element no struct member covers, [start, end) (frontend.Variable).
    padding: tuple[tuple[int, int], ...] = ()
    # The element type as clang spells it canonically (`unsigned int`, `float`): a pointer
    # parameter's, a local, program-scope or private array's; empty where unknown.
    elem_type: str = ""


@dataclass(frozen=True)
class SiteDecl:
    """One access site (or barrier, or fence): its line, operation, space, buffer, text."""

    id: int
    line: int
    op: int
    space: int
    buffer: int
    text: str
    fences: int = 0  # barrier and fence sites: FENCE_LOCAL | FENCE_GLOBAL (records.py)
    atomic: bool = False  # a READ made by an atomic (records.Site.atomic)
    value: int = 0  # what its records hold in the value plane (records.VALUE_*)
    value_type: str = ""  # the OpenCL type of that value (records.Site.value_type)
    role: str = ""  # records.ROLE_*: an async copy's site, a wait, run-time barrier flags
    size: int = 0  # bytes of each of its accesses, where its type says them (records.Site.size)
    # A struct read whole into a private variable: the bytes of the access that hold members
    # never read from that variable (frontend AccessSite.unused; records.Site.unused).
    unused: tuple[tuple[int, int], ...] = ()


ACCESS, DEFINITION = "access", "definition"  # the points an anatomy build records at


@dataclass(frozen=True)
class AnatomySite:
    """A site of an anatomy build: which term of which point its records hold.

    ``point`` is ``access`` (``index`` into ``KernelAnatomy.accesses``) or ``definition``
    (``index`` a definition's id); ``term`` indexes the point's terms, -1 for the value a
    definition stored.
    """

    site: int
    point: str
    index: int
    term: int


@dataclass(frozen=True)
class AnatomyBuild:
    """What an anatomy build records: the static anatomy it was made from, the lines asked,
    its anatomy sites, and the sites that record each access (by the access's index into
    ``static.accesses``)."""

    static: KernelAnatomy
    lines: tuple[int, ...]
    sites: tuple[AnatomySite, ...]
    access_sites: tuple[tuple[int, tuple[int, ...]], ...]


@dataclass(frozen=True)
class Instrumented:
    """The traced source of one kernel and what it records."""

    source: str
    kernel: str
    buffers: tuple[BufferDecl, ...]
    sites: tuple[SiteDecl, ...]
    not_traced: tuple[tuple[int, str], ...]
    extra_params: tuple[str, ...]  # appended to the kernel's parameters, in order
    barriers: int = 0  # barrier sites, each counted per work-item to find divergence
    value_bytes: int = 0  # width of the value plane (4 or 8); 0: values not recorded
    # What an index anatomy build records besides (anatomy.py); None: a plain build.
    anatomy: AnatomyBuild | None = None
    # The kernel's sampler parameters (their positions) whose addressing modes the host
    # passes after the buffers' lengths, in this order (images.py encodes a mode).
    samplers: tuple[int, ...] = ()
    # Why the traced kernel must be built with optimisation even where a small trace on a
    # CPU would build quicker without it (PoCL 3.0 crashes building it unoptimised); "" when
    # either build will do.
    optimised_only: str = ""
