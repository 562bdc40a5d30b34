"""``--layout``: the matrix orders of the app's Matrix layout box, from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.engine.header.catalog import find_variant, load_variant_file
from explorer.selection import UsageError, with_layout
from tests.test_cli import Ran, cli

ROOT = Path(__file__).resolve().parents[2]
READS_BT = str(ROOT / "tests" / "kernels" / "matmul_bt.cl")


def _explorer(*args: str) -> Ran:
    """``python -m explorer ARGS``, run in this process on the session's executor."""
    return cli(*args)


@pytest.mark.usefixtures("fast_cli")
def test_a_kernel_reading_b_transposed_verifies_only_with_the_layout():
    common = ("run", "--kernel-file", READS_BT, "--size", "40", "--json")
    plain = _explorer(*common)
    assert plain.returncode == 1, plain.stderr
    assert json.loads(plain.stdout)["status"] == "wrong"
    laid_out = _explorer(*common, "--layout", "A=row,B=T")
    assert laid_out.returncode == 0, laid_out.stderr
    assert json.loads(laid_out.stdout)["status"] == "verified"


@pytest.mark.usefixtures("fast_cli")
def test_trace_and_bench_take_the_layout_too():
    common = ("trace", "--kernel-file", READS_BT, "--size", "24")
    assert _explorer(*common).stdout.startswith("WRONG")
    assert _explorer(*common, "--layout", "B=T").stdout.startswith("VERIFIED")
    bench = ("bench", "--family", "matmul", "--variants", "naive", "--sizes", "32", "--json")
    assert _statuses(_explorer(*bench)) == ["verified"]
    assert _statuses(_explorer(*bench, "--layout", "B=T")) == ["wrong"]


def _statuses(done: Ran) -> list[str]:
    records = [json.loads(line) for line in done.stdout.splitlines()]
    return [r["status"] for r in records if r["variant"] == "naive"]


@pytest.mark.parametrize(
    ("spec", "layout"),
    [
        ("column-major", "column-major"),
        ("col", "column-major"),
        ("B=T", "A:row-major,B:column-major,C:row-major"),
        ("A=col,B=T", "A:column-major,B:row-major,C:row-major"),
        ("A=T,C=col", "A:column-major,B:row-major,C:column-major"),
    ],
)
def test_layout_specs_name_each_matrix_order(spec, layout):
    assert with_layout(find_variant("matmul", "naive"), spec).layout == layout


@pytest.mark.parametrize("spec", ["T", "D=col", "B=diagonal", "B"])
def test_a_bad_layout_names_what_to_give(spec):
    with pytest.raises(UsageError, match="--layout"):
        with_layout(load_variant_file(READS_BT), spec)


def test_a_family_without_matrices_refuses_a_layout_with_a_usage_error():
    done = _explorer(
        "run", "--kernel-file", str(ROOT / "tests/kernels/custom/sim/stale.sim"), "--layout", "col"
    )
    assert done.returncode == 2 and "--layout" in done.stderr
