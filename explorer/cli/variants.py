"""``variants``: list the kernel variants of the catalog, grouped by family."""

from __future__ import annotations

import argparse
import json
from typing import Any

from explorer.cli.command import Command
from explorer.engine.executor import Executor
from explorer.engine.header.catalog import catalog
from explorer.engine.records import Variant
from explorer.families import FAMILIES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--family`` and ``--json``."""
    parser.add_argument("--family", choices=list(FAMILIES))
    parser.add_argument("--json", action="store_true")


def variant_json(v: Variant) -> dict[str, Any]:
    """The fields ``variants --json`` prints for one variant."""
    return {
        "family": v.family,
        "id": v.id,
        "name": v.name,
        "kernel": v.kernel,
        "source": v.source_ref,
        "bug": v.bug,
        "defines": v.default_defines,
        "options": {key: " ".join(values) for key, values in v.options},
        "by_size": [{"when": r.when, "defines": dict(r.defines)} for r in v.by_size],
        "local": list(v.local_size),
        "text": v.text,
    }


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Print the catalog (no OpenCL needed)."""
    chosen = [v for v in catalog() if args.family in (None, v.family)]
    if args.json:
        print(json.dumps([variant_json(v) for v in chosen], indent=2))
        return 0
    family = None
    for v in chosen:
        if v.family != family:
            family = v.family
            print(f"{family}: {FAMILIES[family].description}")
        bug = f"  [known bug] {v.bug}" if v.bug else ""
        defines = " ".join(f"{k}={val}" for k, val in v.defines)
        options = "".join(f" [{key}: {' '.join(values)}]" for key, values in v.options)
        by_size = "".join(
            f" [where {r.when}: {' '.join(f'{k}={val}' for k, val in r.defines)}]"
            for r in v.by_size
        )
        print(f"  {v.id:<22} {v.name}  ({v.source_ref or 'ours'}) {defines}{by_size}{options}{bug}")
    return 0


COMMAND = Command("variants", "list kernel variants", add_arguments, run, order=20)
