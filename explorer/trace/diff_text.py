"""A trace diff as a person reads it on a terminal: the verdict, the first difference, each
work-group's first, then per buffer the elements only one kernel touched and the loads per
element of both."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explorer.trace.diff import TraceDiff
    from explorer.trace.diff_sets import BufferDiff, OnlyOne


def diff_text(diff: TraceDiff, groups_shown: int = 8) -> str:
    """The report (see the module); at most ``groups_shown`` work-groups are listed."""
    lines = [_verdict(diff)]
    if diff.first is not None:
        d = diff.first
        lines.append(f"First difference (line {d.line}, phase {d.phase}): {d.sentence()}")
    if len(diff.first_per_group) > 1:
        lines.append("First difference per work-group:")
        for d in diff.first_per_group[:groups_shown]:
            lines.append(f"  group {d.group}: line {d.line}, phase {d.phase}: {d.sentence()}")
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
