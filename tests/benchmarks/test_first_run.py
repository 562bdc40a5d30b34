"""The first-run benchmark: a variant's first run with empty caches and the same run again,
the fields `bench-first-run --json` prints."""

from __future__ import annotations

import json

from explorer.benchmarks.first_run import ODD_SIZES, first_runs, odd_sized
from explorer.engine.header.catalog import catalog, find_variant
from explorer.families import FAMILIES
from tests.robustness.helpers import cli


def test_a_first_run_reports_its_wall_and_cpu_seconds_and_the_run_again(tmp_path):
    (record,) = first_runs([find_variant("transpose", "naive")])
    listed = record.to_json()
    assert list(listed) == [
        "variant",
        "device",
        "status",
        "local_size",
        "first_s",
        "first_cpu_s",
        "again_s",
        "again_cpu_s",
        "build_s",
    ]
    assert record.variant == "transpose/naive" and record.status == "verified"
    assert record.first_cpu_s is not None and record.first_cpu_s > 0
    assert record.again_cpu_s is not None and record.again_cpu_s >= 0
    assert listed["build_s"] == round(max(0.0, record.first_s - record.again_s), 3)
    assert record.summary().startswith("transpose/naive (32x8): verified; first run ")
    json.dumps(listed)  # a line of JSON as it is


def test_every_fixed_family_has_odd_sizes_and_every_catalog_variant_is_measured():
    fixed = {f for f in FAMILIES if f != "custom"}
    assert set(ODD_SIZES) == fixed
    for family, sizes in ODD_SIZES.items():
        assert FAMILIES[family].check_sizes(sizes) == sizes
        assert any(v % 2 == 1 and v > 1 for v in sizes.values())
    assert odd_sized() == [v for v in catalog() if v.family in fixed]


def test_an_unknown_variant_is_a_usage_error():
    ran = cli("bench-first-run", "--variants", "fast")
    assert ran.code == 2 and "'fast' is not FAMILY/ID" in ran.err
