"""Trace every catalog variant and print what the trace says, one JSON line per variant.

Run from a checkout root: `PYTHONPATH=. python tests/trace/constructs/compare_variants.py`.
Run it on two checkouts and diff the outputs to see what a change to the instrumentation
did to the findings of the catalog (complete, each finding's kind and line, the sites).
"""

from __future__ import annotations

import json
import subprocess
import sys

FAMILIES = ("matmul", "transpose", "matvec", "rowdot", "stencil")


def variants() -> list[tuple[str, str]]:
    """(family, variant id) of every catalog variant, from `python -m explorer variants`."""
    out = subprocess.run(
        [sys.executable, "-m", "explorer", "variants"], capture_output=True, text=True, check=True
    ).stdout
    found, family = [], ""
    for line in out.splitlines():
        if line and not line.startswith(" "):
            family = line.split(":")[0]
        elif line.strip() and family in FAMILIES:
            found.append((family, line.split()[0]))
    return found


def main() -> None:
    for family, variant in variants():
        cmd = [sys.executable, "-m", "explorer", "trace", "--family", family]
        cmd += ["--variant", variant, "--size", "64", "--json"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        try:
            data = json.loads(done.stdout)
        except json.JSONDecodeError:
            print(
                json.dumps(
                    {
                        "variant": f"{family}/{variant}",
                        "rc": done.returncode,
                        "error": (done.stdout + done.stderr).strip()[-300:],
                    }
                ),
                flush=True,
            )
            continue
        findings = sorted({(f["kind"], f["line"]) for f in data.get("findings", [])})
        sites = sorted({(s["line"], s["op"], s["buffer"]) for s in data.get("sites", [])})
        print(
            json.dumps(
                {
                    "variant": f"{family}/{variant}",
                    "rc": done.returncode,
                    "complete": data.get("complete"),
                    "findings": findings,
                    "sites": sites,
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
