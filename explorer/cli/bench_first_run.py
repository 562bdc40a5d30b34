"""``bench-first-run``: each variant's first run with empty caches, and the same run again."""

from __future__ import annotations

import argparse
import json

from explorer.benchmarks.first_run import ODD_SIZES, first_runs, odd_sized
from explorer.cli.command import Command, executor_for
from explorer.engine.executor import Executor
from explorer.engine.header.catalog import find_variant
from explorer.selection import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--variants``, ``--device`` and ``--json``."""
    parser.add_argument(
        "--variants",
        default="all",
        help="'all' (every variant of " + ", ".join(ODD_SIZES) + ") or comma-separated "
        "FAMILY/ID, e.g. matmul/fast,matmul/wave",
    )
    parser.add_argument("--device")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")


def run(args: argparse.Namespace, executor: Executor) -> int:
    """One line (or JSON object) per variant as it finishes; each runs in an executor of its
    own whose caches are empty."""
    if args.variants == "all":
        variants = odd_sized()
    else:
        variants = []
        for name in args.variants.split(","):
            family, _, variant = name.strip().partition("/")
            if family not in ODD_SIZES or not variant:
                raise UsageError(
                    f"--variants: {name.strip()!r} is not FAMILY/ID with a family among "
                    f"{', '.join(ODD_SIZES)}"
                )
            variants.append(find_variant(family, variant))

    def executors(env: dict[str, str]) -> Executor:
        return executor_for(args, env)

    for record in first_runs(variants, args.device, executors):
        print(json.dumps(record.to_json()) if args.json else record.summary(), flush=True)
    return 0


COMMAND = Command(
    "bench-first-run",
    "each variant's first run with empty caches (its builds) and the same run again",
    add_arguments,
    run,
    order=52,
)
