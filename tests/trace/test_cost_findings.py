"""Cost findings: bank conflicts at __local sites and uncoalesced __global sites, from the
per-site figures of a real trace."""

import pytest

from explorer.engine.header.catalog import catalog, find_variant
from explorer.trace.analysis import Category, registry
from tests.trace.test_tracing import kinds, traced

SIZES = {
    "matmul": {"M": 48, "N": 32, "K": 64},
    "transpose": {"WIDTH": 70, "HEIGHT": 33},
    "matvec": {"WIDTH": 300, "HEIGHT": 9},
    "rowdot": {"D": 1000},
    "stencil": {"WIDTH": 67, "HEIGHT": 45},
    "histogram": {"VALUES": 300, "BINS": 1000},
}


def _line_of(variant, text):
    return next(i + 1 for i, t in enumerate(variant.source.splitlines()) if text in t)


def test_the_unpadded_tile_column_read_is_a_bank_conflict_and_padding_removes_it(executor, device):
    tiled = find_variant("transpose", "tiled")
    result = traced(executor, device, tiled, {"WIDTH": 64, "HEIGHT": 64})
    found = kinds(result, "bank-conflict")
    assert [f.line for f in found] == [_line_of(tiled, "] = tile[lx][ly];")]
    assert found[0].buffer == "tile" and "32.00" in found[0].message
    padded = traced(
        executor, device, find_variant("transpose", "tiled-padded"), {"WIDTH": 64, "HEIGHT": 64}
    )
    assert not kinds(padded, "bank-conflict")


def test_the_naive_transpose_writes_are_uncoalesced_and_its_reads_are_not(executor, device):
    naive = find_variant("transpose", "naive")
    result = traced(executor, device, naive, {"WIDTH": 64, "HEIGHT": 64})
    found = kinds(result, "uncoalesced")
    assert [(f.buffer, f.line) for f in found] == [("OUT", _line_of(naive, "OUT[x * HEIGHT + y]"))]
    assert "12% of the bytes" in found[0].message


def test_halo_reads_beside_vector_loads_are_not_called_uncoalesced(executor, device):
    result = traced(executor, device, find_variant("stencil", "fast"), SIZES["stencil"])
    assert not kinds(result, "uncoalesced")


@pytest.mark.parametrize(
    "variant_id", [v.qualified_id for v in catalog() if v.counterpart is not None]
)
def test_a_named_counterpart_removes_the_cost_it_is_offered_for(executor, device, variant_id):
    family, vid = variant_id.split("/")
    variant = find_variant(family, vid)
    before = traced(executor, device, variant, SIZES[family])
    costs = {f.kind for f in before.analysis.findings} & set(registry.kinds(Category.COST))
    assert costs, f"{variant_id} names a counterpart but shows no cost finding"
    fix = find_variant(family, variant.counterpart.variant)
    after = traced(executor, device, fix, SIZES[family])
    assert not {f.kind for f in after.analysis.findings} & costs, fix.qualified_id
