"""Findings do not depend on the build: the findings corpus and the catalog's correct variants
traced with the compiler's optimiser and without it give the same findings."""

from __future__ import annotations

import pytest

from explorer.engine.header.catalog import catalog, load_variant_file
from explorer.engine.launch import prepare as preparing
from explorer.engine.record.trace_launch import TraceRequest, trace_and_analyse
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS
from tests.trace.findings.test_corpus import CORPUS, FINDINGS, SIZES


def _findings(run: RunRequest, unoptimised: bool, monkeypatch) -> list[tuple]:
    # A CPU trace of at most QUICK_BUILD_WORK_ITEMS work-items is built unoptimised.
    monkeypatch.setattr(preparing, "QUICK_BUILD_WORK_ITEMS", 1 << 40 if unoptimised else 0)
    traced = trace_and_analyse(TraceRequest(run))
    assert traced.analysis is not None, traced.result.summary()
    return [(f.kind, f.line, f.buffer, f.count, f.phase) for f in traced.analysis.findings]


# The kernels whose findings depend on order and placement: races, a missing barrier, a
# fence that names the wrong space, an uninitialised read, a predicated store.
ORDERED = [
    "local_race",
    "missing_barrier",
    "global_race_local_fence",
    "uninitialized_local",
    "coverage_written_twice",
]


@pytest.mark.parametrize("name", ORDERED)
def test_the_corpus_finds_the_same_either_way(name, device, monkeypatch):
    assert name in FINDINGS
    if device.type.upper() != "CPU":
        pytest.skip("only a CPU trace is ever built unoptimised")
    run = RunRequest(load_variant_file(CORPUS / f"{name}.cl"), SIZES, device_key=device.key)
    assert _findings(run, True, monkeypatch) == _findings(run, False, monkeypatch)


@pytest.mark.parametrize(
    "variant",
    [v for v in catalog() if v.id in ("tiled", "nvidia-coalesced3", "local-bins")],
    ids=lambda v: v.qualified_id,
)
def test_catalog_variants_find_the_same_either_way(variant, device, monkeypatch):
    if device.type.upper() != "CPU":
        pytest.skip("only a CPU trace is ever built unoptimised")
    sizes = {name: 64 for name in variant.model.size_names}
    run = RunRequest(variant, sizes, device_key=device.key, input="random")
    assert _findings(run, True, monkeypatch) == _findings(run, False, monkeypatch)


def test_csr_rows_at_32768_work_items_find_the_same_either_way(device, monkeypatch):
    """A CSR "vector" SpMV shape above the unoptimised-build threshold: a warp-sized group of
    lanes per row, a local reduction, lane 0 alone writes the row. Both builds give the same
    findings, and no race on out."""
    if device.type.upper() != "CPU":
        pytest.skip("only a CPU trace is ever built unoptimised")
    variant = load_variant_file(TEST_KERNELS / "builds" / "csr_vector_rows.cl")
    run = RunRequest(variant, {}, device_key=device.key)
    optimised = _findings(run, False, monkeypatch)
    assert optimised == _findings(run, True, monkeypatch)
    kinds = [(kind, line, buffer) for kind, line, buffer, _, _ in optimised]
    if ("race", 26, "out") in kinds and "portable computing language" in device.platform.lower():
        # PoCL 5.0 runs the traced build's lane-0 store (after a barrier inside the row's
        # condition) in every lane, in both builds; the kernel as written is right there.
        pytest.xfail("PoCL mis-executes the traced build of this kernel (both builds alike)")
    assert kinds == [("uncoalesced", 17, "x")]
