"""The analysis as a person reads it: plain text (the JSON form is :meth:`Analysis.to_json`)."""

from __future__ import annotations

from explorer.trace.analysis.result import Analysis
from explorer.trace.records import Trace


def format_report(trace: Trace, analysis: Analysis) -> str:
    """A plain-text report: summary, findings, per-site table, loads per element."""
    gx, gy, gz = trace.num_groups
    total = gx * gy * gz
    state = "complete" if trace.complete else "INCOMPLETE"
    lines = [
        f"Trace: {trace.records:,} records from {len(trace.groups_traced)} of {total} "
        f"work-group(s) ({state}).",
        f"Global memory: {analysis.global_bytes_read:,} bytes read, "
        f"{analysis.global_bytes_written:,} bytes written.",
        "",
    ]
    if analysis.findings:
        lines.append(f"Findings ({len(analysis.findings)}):")
        for f in analysis.findings:
            where = f"line {f.line}" if f.line is not None else "kernel"
            phase = f", phase {f.phase}" if f.phase is not None else ""
            lines.append(f"  [{f.kind}] {where}{phase}: {f.message}")
            if f.work_items:
                shown = "; ".join("({},{},{})/({},{},{})".format(*w) for w in f.work_items)
                lines.append(f"      e.g. group/local {shown}  (count {f.count})")
    else:
        lines.append("Findings: none.")
    lines.append("")
    if analysis.sites:
        header = (
            "line",
            "buffer",
            "space",
            "op",
            "accesses",
            "requests",
            "sectors/req",
            "bank deg",
            "access",
        )
        rows = [header]
        for s in analysis.sites:
            rows.append(
                (
                    str(s.line),
                    s.buffer,
                    s.space,
                    s.op,
                    f"{s.accesses:,}",
                    f"{s.requests:,}",
                    "-" if s.sectors_per_request is None else f"{s.sectors_per_request:.2f}",
                    "-"
                    if s.bank_conflict_degree is None
                    else f"{s.bank_conflict_degree:.2f} (worst {s.bank_conflict_worst})",
                    s.text,
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
        lines.append("Memory accesses by site:")
        for r in rows:
            cells = [
                r[i].rjust(widths[i]) if i in (0, 4, 5, 6) else r[i].ljust(widths[i])
                for i in range(len(widths))
            ]
            lines.append("  " + "  ".join(cells) + "  " + r[-1])
        lines.append("")
    if analysis.loads_per_element:
        lines.append("Loads per element (global inputs):")
        for name, v in analysis.loads_per_element.items():
            lines.append(f"  {name}: min {v['min']}, max {v['max']}, mean {v['mean']:g}")
    return "\n".join(lines).rstrip() + "\n"
