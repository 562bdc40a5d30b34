"""What a trace diff finds, as records that cross layers (frozen dataclasses), with their
JSON and text forms: each access compared, each work-item's first difference, the diff of
two whole traces (see :mod:`explorer.trace.diff`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from explorer.trace.diff_sets import BufferDiff, OnlyOne


@dataclass(frozen=True)
class Access:
    """One memory access as one of the two traces recorded it."""

    line: int  # the source line, in that kernel's own file
    phase: int  # barriers the work-item had passed
    op: str  # read, write, rmw or atomic
    buffer: str  # that kernel's own name for the buffer
    element: int  # element index in the buffer (of the buffer's declared type)
    text: str  # the source text of the access, e.g. "p[32]"
    value: float | int | None = None  # the value written, where recorded and compared
    out_of_bounds: bool = False
    count: int = 1  # elements it covers from ``element`` on (4 for a vload4 of floats)

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "phase": self.phase,
            "op": self.op,
            "buffer": self.buffer,
            "element": self.element,
            "text": self.text,
            "value": self.value,
            "out_of_bounds": self.out_of_bounds,
            "count": self.count,
        }

    @property
    def elements(self) -> str:
        """The element it addresses, or the range a vector access covers: "32", "0..3"."""
        if self.count > 1:
            return f"{self.element}..{self.element + self.count - 1}"
        return str(self.element)

    def words(self) -> str:
        """Like "reads partialDotProduct[32] (p[32], line 55, phase 1)"; a vector access
        names the elements it covers ("reads mat[0..3]")."""
        verb = {
            "read": "reads",
            "write": "writes",
            "rmw": "updates",
            "atomic": "atomically updates",
        }
        value = "" if self.value is None or self.op == "read" else f" = {self.value:g}"
        # An access told without its source (``unquoted``) has no text and no line.
        where = [self.text] if self.text else []
        where += [f"line {self.line}"] if self.line > 0 else []
        where.append(f"phase {self.phase}")
        shown = f"{self.buffer}[{self.elements}]{value}"
        return f"{verb.get(self.op, self.op)} {shown} ({', '.join(where)})"

    def unquoted(self) -> Access:
        """This access without its source text and line (a solution's, told to a learner)."""
        return replace(self, text="", line=0)


@dataclass(frozen=True)
class Difference:
    """A work-item's first access that differs from the reference's at the same position
    of its sequence. ``mine`` is None where this kernel made no such access (the reference
    made more), ``reference`` None where the reference made none ("no such access")."""

    group: tuple[int, int, int]
    local: tuple[int, int, int]
    position: int  # 0-based, in the work-item's own sequence of memory accesses
    phase: int  # this kernel's phase at that access (the reference's where it made none)
    line: int | None  # the line in this kernel: of the access, else of its last access
    # What differs: phase, operation, buffer, element, value; "missing": this kernel made no
    # such access, "extra": the reference made none.
    what: str
    mine: Access | None
    reference: Access | None
    # How sentences name the other kernel ("the solution" for an exercise's).
    called: str = "the reference"
    # Where the phases differ: the line of the barrier one side passed before this access
    # and the other did not, and whose it is ("reference": this kernel lacks it; "mine": an
    # extra one here). None where not known (or told without the other kernel's lines).
    barrier_line: int | None = None
    barrier_in: str = ""

    @property
    def buffer(self) -> str | None:
        side = self.mine or self.reference
        return side.buffer if side else None

    @property
    def element(self) -> int | None:
        return self.mine.element if self.mine else None

    def to_json(self) -> dict[str, Any]:
        return {
            "group": list(self.group),
            "work_item": list(self.local),
            "position": self.position,
            "phase": self.phase,
            "line": self.line,
            "what": self.what,
            "mine": None if self.mine is None else self.mine.to_json(),
            "reference": None if self.reference is None else self.reference.to_json(),
            "barrier_line": self.barrier_line,
            "barrier_in": self.barrier_in or None,
        }

    def barrier_words(self) -> str:
        """The barrier that makes the phases differ, in words ("" where none is named)."""
        if self.barrier_line is None:
            return ""
        if self.barrier_in == "reference":
            return (
                f"{self.called} passes the barrier at line {self.barrier_line} before it, "
                "this kernel passes none there"
            )
        return (
            f"this kernel passes a barrier at line {self.barrier_line} that {self.called} does not"
        )

    def brief(self) -> str:
        """Like "line 56, phase 1, work-item (0, 0, 0): its phase differs (p[16]; reference:
        ...)"; a work-item that stops early "makes no more accesses", one that goes on "makes
        an access more"."""
        ours = self.mine.text if self.mine else "no access"
        theirs = "no access"
        if self.reference is not None:
            r = self.reference
            theirs = ", ".join(
                ([r.text] if r.text else []) + ([f"line {r.line}"] if r.line > 0 else [])
                + [f"phase {r.phase}"]
            )  # fmt: skip
        what = {
            "missing": "it makes no more accesses",
            "extra": "it makes an access more",
        }.get(self.what, f"its {self.what} differs")
        where = f"line {self.line}, " if self.line is not None else ""
        barrier = self.barrier_words()
        return (
            f"{where}phase {self.phase}, work-item {self.local}: {what} ({ours}; "
            f"{self.called}: {theirs})" + (f": {barrier}" if barrier else "")
        )

    def sentence(self) -> str:
        """The difference in words, one sentence."""
        who = f"work-item {self.local} of work-group {self.group}"
        if self.what == "missing":  # this kernel made no more accesses
            theirs = self.reference.words() if self.reference else "goes on"
            if self.position == 0:
                return f"{who} makes no access at all; {self.called} {theirs}."
            return (
                f"{who} makes no access after its access {self.position} (line {self.line}); "
                f"{self.called} goes on: it {theirs}."
            )
        ours = f"here it {self.mine.words()}" if self.mine else "here it makes no such access"
        if self.what == "extra":
            return (
                f"{who} makes an access more, its access {self.position + 1}: {ours}; "
                f"{self.called} has no such access."
            )
        theirs = (
            f"{self.called} {self.reference.words()}"
            if self.reference
            else f"{self.called} has no such access"
        )
        barrier = self.barrier_words()
        return (
            f"{who}, its access {self.position + 1}, differs in its {self.what}: {ours}; {theirs}"
            + (f": {barrier}." if barrier else ".")
        )

    def unquoted(self, called: str) -> Difference:
        """This difference told without the other kernel's source text and lines, naming
        it ``called``."""
        theirs = self.reference.unquoted() if self.reference is not None else None
        hidden = self.barrier_in == "reference"  # a line of the other kernel's source
        return replace(
            self,
            reference=theirs,
            called=called,
            barrier_line=None if hidden else self.barrier_line,
            barrier_in="" if hidden else self.barrier_in,
        )


@dataclass(frozen=True, eq=False)
class TraceDiff:
    """Two traces of one launch compared work-item by work-item (see the module)."""

    identical: bool
    first: Difference | None
    first_per_group: tuple[Difference, ...]  # each differing group's first, in program order
    work_items_compared: int
    work_items_differing: int
    groups_compared: int
    groups_differing: int
    buffers: tuple[BufferDiff, ...]  # elements touched by one only, loads side by side
    complete: bool  # both traces recorded every access of the work-items compared
    notes: tuple[str, ...] = ()
    # The records of this kernel's trace that are a work-item's first difference (where it
    # made one): what the execution view marks.
    first_records: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def to_json(self) -> dict[str, Any]:
        """Plain Python types only: the ``trace --against --json`` object's ``diff``."""
        return {
            "identical": self.identical,
            "first": None if self.first is None else self.first.to_json(),
            "first_per_group": [d.to_json() for d in self.first_per_group],
            "work_items_compared": self.work_items_compared,
            "work_items_differing": self.work_items_differing,
            "groups_compared": self.groups_compared,
            "groups_differing": self.groups_differing,
            "buffers": [b.to_json() for b in self.buffers],
            "complete": self.complete,
            "notes": list(self.notes),
        }

    def unquoted(self, called: str) -> TraceDiff:
        """The diff with every difference told without the other kernel's source text and
        lines, naming it ``called`` (an exercise's solution: the learner reads what it does,
        never how it is written)."""
        return replace(
            self,
            first=None if self.first is None else self.first.unquoted(called),
            first_per_group=tuple(d.unquoted(called) for d in self.first_per_group),
        )

    def text(self, groups_shown: int = 8) -> str:
        """A short report: the verdict, the first difference, each group's first (up to
        ``groups_shown``), then elements touched by one kernel only and loads per element."""
        return diff_text(self, groups_shown)


def diff_text(diff: TraceDiff, groups_shown: int = 8) -> str:
    """The report (see the module); at most ``groups_shown`` work-groups are listed."""
    lines = [_verdict(diff)]
    if diff.first is not None:
        d = diff.first
        where = f"line {d.line}, " if d.line is not None else ""
        lines.append(f"First difference ({where}phase {d.phase}): {d.sentence()}")
    if len(diff.first_per_group) > 1:
        lines.append("First difference per work-group:")
        for d in diff.first_per_group[:groups_shown]:
            lines.append(f"  group {d.group}: {d.brief()}")
        more = len(diff.first_per_group) - groups_shown
        if more > 0:
            lines.append(f"  … and {more} more work-group(s)")
    for b in diff.buffers:
        lines += _buffer_lines(b)
    loads = [
        f"{b.buffer} {_loads(b.loads_here)} / {_loads(b.loads_reference)}"
        for b in diff.buffers
        if b.loads_here and b.loads_reference and (b.loads_here["max"] or b.loads_reference["max"])
    ]
    if loads:
        lines.append("Loads per element (here / reference): " + ", ".join(loads))
    lines += [f"Note: {n}" for n in diff.notes]
    return "\n".join(lines)


def _verdict(diff: TraceDiff) -> str:
    if diff.identical:
        return (
            f"Identical: the {diff.work_items_compared} work-items of "
            f"{diff.groups_compared} work-group(s) made the same accesses as the reference, "
            "in the same order and phases."
        )
    return (
        f"Differs: {diff.work_items_differing} of {diff.work_items_compared} work-items "
        f"({diff.groups_differing} of {diff.groups_compared} work-group(s)) part from the "
        "reference."
    )


def _buffer_lines(b: BufferDiff) -> list[str]:
    name = (
        b.buffer if b.buffer == b.reference_name else f"{b.buffer} (reference: {b.reference_name})"
    )
    out = []
    sets = (
        ("read here only", b.read_only_here),
        ("read by the reference only", b.read_only_reference),
        ("written here only", b.written_only_here),
        ("written by the reference only", b.written_only_reference),
    )
    shown = [f"{count_words(s)} {what}" for what, s in sets if s.count]
    if shown:
        out.append(f"{name}: " + "; ".join(shown))
    return out


def count_words(s: OnlyOne) -> str:
    """Like "3 elements (0, 5, 9)"."""
    examples = ", ".join(str(e) for e in s.examples)
    more = ", …" if s.count > len(s.examples) else ""
    return f"{s.count} element{'s' if s.count != 1 else ''} ({examples}{more})"


def _loads(loads: dict[str, float]) -> str:
    if loads["min"] == loads["max"]:
        return f"{loads['min']:g}"
    return f"{loads['min']:g}–{loads['max']:g} (mean {loads['mean']:g})"
