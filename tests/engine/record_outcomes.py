"""Record what every catalog variant (and the test suite's own header and .sim kernels) gives
at two sizes: its status, its counts of wrong and NaN elements, and its outputs.

``tests/engine/test_recorded_outcomes.py`` checks the engine still gives the same. Run from
the repository root to record again (only when a change of outcome is intended and
explained)::

    python -m tests.engine.record_outcomes
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from explorer.engine.header.catalog import catalog, load_variant_file
from explorer.engine.records import RunRequest, RunResult, Variant
from explorer.families import FAMILIES

HERE = Path(__file__).parent
RECORDED = HERE / "recorded"
CUSTOM = HERE.parent / "kernels" / "custom"


def two_sizes(variant: Variant) -> list[dict[str, int]]:
    """A size of tile multiples and one that is not, from the family's test sizes."""
    sizes = FAMILIES[variant.family].test_sizes
    multiple = next(s for s in sizes if all(v % 16 == 0 for v in s.values()))
    odd = next(s for s in sizes if any(v % 2 == 1 and v > 1 for v in s.values()))
    return [multiple, odd]


def cases() -> Iterator[tuple[str, Variant, dict[str, int], str]]:
    """(key, variant, sizes, input) of every recorded run."""
    for variant in catalog():
        for n, sizes in enumerate(two_sizes(variant)):
            # The IOU picture at the size of tile multiples, where it reads as text.
            inputs = ("random", "iou") if variant.family == "matmul" and n == 0 else ("random",)
            for preset in inputs:
                size_text = ",".join(f"{k}={v}" for k, v in sizes.items())
                yield f"{variant.qualified_id}@{size_text}:{preset}", variant, sizes, preset
    for path in sorted(CUSTOM.glob("*.cl")) + sorted((CUSTOM / "sim").glob("*.sim")):
        if path.suffix == ".cl" and "/*---" not in path.read_text(encoding="utf-8"):
            continue  # a kernel without a header is opened through the dialog
        variant = load_variant_file(path)
        yield f"{variant.qualified_id}:{path.name}", variant, {}, "random"


def request(variant: Variant, sizes: dict[str, int], preset: str, key: str | None) -> RunRequest:
    return RunRequest(variant, sizes, device_key=key, input=preset, repeat=1)


def outputs_of(result: RunResult) -> dict[str, np.ndarray]:
    """Every result buffer a run shows, by name."""
    return {k: np.asarray(v) for k, v in (result.outputs or {}).items()}


def outcome(result: RunResult) -> dict[str, object]:
    verdict = result.verdict
    return {
        "status": result.status,
        "mismatches": verdict.mismatches if verdict else None,
        "nan": verdict.not_a_number if verdict else None,
        "unchanged": list(verdict.unchanged) if verdict else None,
        "outputs": sorted(outputs_of(result)),
        # How many bytes a write past a buffer changed depends on the values written.
        "error": re.sub(r"\d+ bytes changed", "some bytes changed", result.error or "") or None,
    }


def run_case(run, variant: Variant, sizes: dict[str, int], preset: str, key: str | None):
    """The run, or the run anyway where only the kernel's own constraints refuse it."""
    result = run(request(variant, sizes, preset, key))
    if result.refused is not None and result.refused.overridable:
        anyway = RunRequest(variant, sizes, device_key=key, input=preset, repeat=1, anyway=True)
        result = run(anyway)
    return result


def main() -> None:
    from explorer.engine.executor import Executor

    records: dict[str, dict[str, object]] = {}
    arrays: dict[str, np.ndarray] = {}
    with Executor() as executor:
        from explorer.engine.launch.devices import default_device

        device = default_device(executor.devices())
        for key, variant, sizes, preset in cases():
            first = run_case(executor.run, variant, sizes, preset, device.key)
            again = run_case(executor.run, variant, sizes, preset, device.key)
            a, b = outputs_of(first), outputs_of(again)
            record = outcome(first)
            record["repeatable"] = outcome(again) == record and all(
                np.array_equal(a[k], b[k], equal_nan=True) for k in a
            )
            records[key] = record
            arrays.update({f"{key}|{name}": value for name, value in a.items()})
            print(key, record["status"], "" if record["repeatable"] else "(not repeatable)")
    RECORDED.mkdir(exist_ok=True)
    text = json.dumps(records, indent=1, sort_keys=True) + "\n"
    (RECORDED / "outcomes.json").write_text(text, encoding="utf-8")
    np.savez_compressed(RECORDED / "outputs.npz", **arrays)


if __name__ == "__main__":
    main()
