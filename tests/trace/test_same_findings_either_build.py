"""Findings do not depend on the build: every kernel of the findings corpus and of our own
trace kernels, and every catalog variant, traced with the compiler's optimiser and without it
give the same findings and as many records at each site, at a launch above the size where
the trace builds optimised (``QUICK_BUILD_WORK_ITEMS``, 16,384 work-items) wherever the
kernel's header allows one.

The suite runs a sample of each list: the fewest kernels that between them show every
feature any kernel of the list shows (the constructs an optimiser treats apart, the families,
the finding kinds: :func:`features`), the same sample on every run. The whole sweep, some
ninety kernels each built twice, is ``python benchmarks/either_build_sweep.py`` (it sets
``EXPLORER_EITHER_BUILD=all``; docs/benchmarks.md).
"""

from __future__ import annotations

import math
import os
import re

import numpy as np
import pytest

from explorer.engine.header.catalog import catalog, load_variant_file
from explorer.engine.launch import prepare as preparing
from explorer.engine.record.trace_launch import TraceRequest, trace_and_analyse
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS
from tests.trace.findings.test_corpus import CORPUS, FINDINGS

ABOVE = preparing.QUICK_BUILD_WORK_ITEMS  # the launches below are larger than this
# A window of a few groups is recorded; every group of the launch still runs.
BUDGET = 256 << 10
# Room for every record of the whole launch: every group's records are compared, and no
# launch of the kernel as written is needed to check the outputs outside a window.
WHOLE = 64 << 20

# -- the sample the suite runs ------------------------------------------------------------------
SWEEP = "EXPLORER_EITHER_BUILD"  # "all": every kernel of every list, not the sample
EVERY_SWEEP = "EXPLORER_SWEEP"  # "all": every sampled file of the suite runs all its cases

_TYPE = r"(?:u?char|u?short|u?int|u?long|float|double|half)"
_FUNCTION = r"^(?:static\s+|inline\s+)*(?:void|" + _TYPE + r")\w*\s+\w+\s*\([^;{]*\)\s*\{"
# What an optimiser treats apart, read from the kernel's code (comments left out): each is
# a way the two builds could part (PoCL's optimiser once ran a predicated store in every lane).
CONSTRUCTS = {
    "local memory": r"\b__local\b|\blocal\s+[a-z_]",
    "barrier": r"\b(?:work_group_)?barrier\s*\(",
    "fence without a barrier": r"\b(?:read_|write_)?mem_fence\s*\(",
    "a global fence": r"\bCLK_GLOBAL_MEM_FENCE\b",
    "atomics": r"\batomic?_\w+\s*\(",
    "async copies": r"\basync_work_group_(?:strided_)?copy\b",
    "strided async copy": r"\basync_work_group_strided_copy\b",
    "a wait on several events": r"\bwait_group_events\s*\(\s*(?:[2-9]|\d\d+|[a-z_]\w*)\s*,",
    "vector types": _TYPE + r"(?:2|3|4|8|16)\b|\bv(?:load|store)\d",
    "narrow types": r"\bu?(?:char|short)\b",
    "loop": r"\b(?:for|while)\s*\(",
    "unrolled loop": r"#\s*pragma\s+unroll",
    "early return": r"\breturn\s*;",
    "choice in an expression": r"\?|\bselect\s*\(",
    "second dimension": r"\bget_\w+_id\s*\(\s*1\s*\)",
    "helper function": _FUNCTION,
    "private array": r"^\s*" + _TYPE + r"\d*\s+\w+\s*\[[^\]]+\]\s*[=;]",
    "struct": r"\bstruct\b",
    "null pointer": r"\bNULL\b",
    "builtin writing through a pointer": r"\b(?:sincos|modf|fract|frexp|remquo|lgamma_r)\s*\(",
    "printf": r"\bprintf\s*\(",
}


def constructs(source: str) -> set[str]:
    """The :data:`CONSTRUCTS` the kernel's code uses."""
    code = re.sub(r"//[^\n]*", " ", re.sub(r"/\*.*?\*/", " ", source, flags=re.S))
    return {name for name, pattern in CONSTRUCTS.items() if re.search(pattern, code, re.M)}


def sample(features: dict[str, set[str]], cost: dict[str, float] | None = None) -> list[str]:
    """The cases to run: greedily, the one that adds the most features not yet shown per
    unit of ``cost`` (ties: the first by name) until every feature of any case is shown;
    every case when ``$EXPLORER_EITHER_BUILD`` or ``$EXPLORER_SWEEP`` is ``all``. Sorted by
    name."""
    if "all" in (os.environ.get(SWEEP), os.environ.get(EVERY_SWEEP)):
        return sorted(features)
    names = sorted(features)
    missing = set().union(*features.values())
    chosen: list[str] = []
    while missing:
        best = max(names, key=lambda n: len(features[n] & missing) / (cost or {}).get(n, 1.0))
        chosen.append(best)
        missing -= features[best]
    return sorted(chosen)


def corpus_features() -> dict[str, set[str]]:
    """Each corpus kernel's constructs and the kinds of finding it makes ("no finding" for
    the kernels that must make none)."""
    return {
        name: constructs(load_variant_file(CORPUS / f"{name}.cl").source)
        | ({f"finding {kind}" for kind, *_ in expected} or {"no finding"})
        for name, expected in FINDINGS.items()
    }


def _traced(run: RunRequest, unoptimised: bool, monkeypatch, budget: int = BUDGET):
    # A CPU trace of at most QUICK_BUILD_WORK_ITEMS work-items is built unoptimised.
    monkeypatch.setattr(preparing, "QUICK_BUILD_WORK_ITEMS", 1 << 40 if unoptimised else 0)
    traced = trace_and_analyse(TraceRequest(run, budget_bytes=budget), keep_trace=True)
    assert traced.analysis is not None, traced.result.summary()
    return traced


def _findings(traced) -> list[tuple]:
    """The findings, and how many records each site made: the same accesses recorded."""
    per_site = np.bincount(traced.trace.site, minlength=len(traced.trace.sites)).tolist()
    found = [(f.kind, f.line, f.buffer, f.count, f.phase) for f in traced.analysis.findings]
    return [*found, ("records per site", per_site)]


def _both(run: RunRequest, monkeypatch, budget: int = BUDGET):
    """The findings of the optimised and of the unoptimised build, and the optimised run."""
    optimised = _traced(run, False, monkeypatch, budget)
    unoptimised = _traced(run, True, monkeypatch, budget)
    return _findings(optimised), _findings(unoptimised), optimised


@pytest.fixture
def cpu(device):
    if device.type.upper() != "CPU":
        pytest.skip("only a CPU trace is ever built unoptimised")
    return device


# The findings corpus (matvec kernels with one work-group of 32 per row band) at 16,416 rows,
# every group recorded.
LARGE_CORPUS = {"WIDTH": 8, "HEIGHT": 16416}


@pytest.mark.parametrize("name", sample(corpus_features()))
def test_the_findings_corpus_finds_the_same_either_way(name, cpu, monkeypatch):
    run = RunRequest(load_variant_file(CORPUS / f"{name}.cl"), LARGE_CORPUS, device_key=cpu.key)
    optimised, unoptimised, traced = _both(run, monkeypatch, WHOLE)
    trace = traced.trace
    assert math.prod(trace.global_size) > ABOVE
    sizes = zip(trace.global_size, trace.local_size, strict=True)
    assert len(trace.groups_traced) == math.prod(g // size for g, size in sizes)
    assert optimised == unoptimised


def _own_kernels() -> list[str]:
    """Every kernel file of those folders: a .cl with its header, or a .sim (which names
    its own .cl)."""
    found = []
    for folder in ("builds", "complete", "group_ops", "partial", "promised"):
        for p in sorted((TEST_KERNELS / folder).iterdir()):
            headed = p.suffix == ".cl" and p.read_text(encoding="utf-8").startswith("/*---")
            if headed or p.suffix == ".sim":
                found.append(p.relative_to(TEST_KERNELS).as_posix())
    return found


OWN = _own_kernels()


def own_features() -> dict[str, set[str]]:
    """Each of our trace kernels (builds/ apart): its constructs, its folder (a kind of
    coverage: complete, partial, promised, or the group operations), an Oclgrind .sim."""
    found = {}
    for path in OWN:
        folder = path.split("/")[0]
        if folder != "builds":
            variant = load_variant_file(TEST_KERNELS / path)
            sim = {"an Oclgrind .sim"} if path.endswith(".sim") else set()
            found[path] = constructs(variant.source) | {f"folder {folder}"} | sim
    return found


# builds/ is compared both ways by test_csr_rows_at_32768_work_items_have_no_race below.
@pytest.mark.parametrize("path", sample(own_features()))
def test_our_trace_kernels_find_the_same_either_way(path, cpu, monkeypatch):
    """The kernels of the trace's own groups (complete, group_ops, partial, promised) at
    their sizes."""
    run = RunRequest(load_variant_file(TEST_KERNELS / path), {}, device_key=cpu.key)
    optimised, unoptimised, _ = _both(run, monkeypatch)
    assert optimised == unoptimised


@pytest.mark.parametrize("name", sorted(p.stem for p in (TEST_KERNELS / "builds").glob("*.cl")))
def test_csr_rows_at_32768_work_items_have_no_race(name, device, monkeypatch):
    """CSR "vector" SpMV shapes above the unoptimised-build threshold: a warp-sized group of
    lanes per row, a local reduction under the row's condition, lane 0 alone writes the row
    (then, in one, every work-item writes its lane; in another, a launch without rows
    returns at once). PoCL 3.0's optimiser ran the trace build's lane-0 store in every lane
    (see runtime.cl's __tr_end): a race on out, and wrong rows. On a CPU both builds; on a
    GPU the one a trace uses."""
    path = TEST_KERNELS / "builds" / f"{name}.cl"
    run = RunRequest(load_variant_file(path), {}, device_key=device.key)
    if device.type.upper() == "CPU":
        optimised, unoptimised, traced = _both(run, monkeypatch)
        assert optimised == unoptimised
    else:
        traced = _traced(run, False, monkeypatch)
        optimised = _findings(traced)
    assert math.prod(traced.trace.global_size) == 32768
    assert traced.result.status == "verified"  # the trace build computed the reference's rows
    assert [kind for kind, *_ in optimised[:-1]] == ["uncoalesced"]  # x[...] only: no race


BOUNDED_MATVEC = ("uncoalesced1", "coalesced0", "coalesced1", "coalesced2", "coalesced3")
# Sizes that launch more than 16,384 work-items, small otherwise (a short K, narrow rows).
CATALOG_SIZES = {
    "matmul": {"M": 160, "N": 160, "K": 32},
    "transpose": {"WIDTH": 160, "HEIGHT": 160},
    "matvec": {"WIDTH": 8, "HEIGHT": 16640},
    "rowdot": {"D": 272},
    "stencil": {"WIDTH": 160, "HEIGHT": 160},
    "histogram": {"VALUES": 20000, "BINS": 17},
}
# Variants whose work-items each do more: larger problems for the same launch.
VARIANT_SIZES = {
    "matmul/wpt": {"M": 384, "N": 384, "K": 32},
    # On a CPU device 64×64 tiles of 4×4 blocks, 256 work-items a tile: 81 tiles.
    **{
        f"matmul/{name}": {"M": 576, "N": 576, "K": 32}
        for name in ("reg2d", "warp", "fast", "hopper", "wave")
    },
    "matmul/cpu-float8": {"M": 1536, "N": 1536, "K": 32},
    "transpose/padded-rows": {"WIDTH": 288, "HEIGHT": 288},
    "transpose/fast": {"WIDTH": 576, "HEIGHT": 576},
    "transpose/cpu-blocked": {"WIDTH": 2080, "HEIGHT": 2080},
    "rowdot/fast": {"D": 544},
    "stencil/fast": {"WIDTH": 288, "HEIGHT": 288},
    "rowdot/seed004-original": {"D": 1000},
    "rowdot/seed004-local-vector": {"D": 1000},
    "rowdot/seed004-group-row": {"D": 1000},
    "rowdot/local-vector": {"D": 1024},
    # 32 work-items per row: 520 rows are 16,640 work-items.
    "matvec/fast": {"WIDTH": 8, "HEIGHT": 520},
    # A few groups per compute unit walk every row: the rows make the work, not the launch.
    **{f"matvec/nvidia-{name}": {"WIDTH": 64, "HEIGHT": 64} for name in BOUNDED_MATVEC},
}
# Variants whose header bounds the launch at or below 16,384 work-items: a fixed D of 1,000
# (a work-item per row), or a launch of a few groups per compute unit, whatever the sizes.
BOUNDED = {
    "rowdot/seed004-original",
    "rowdot/seed004-local-vector",
    "rowdot/local-vector",  # a work-item per row of a D x D matrix: 16,384 rows is 1 GiB
    *(f"matvec/nvidia-{name}" for name in BOUNDED_MATVEC),
    "histogram/grid-stride",
}


def catalog_sizes(variant) -> dict[str, int]:
    return VARIANT_SIZES.get(variant.qualified_id, CATALOG_SIZES[variant.family])


def catalog_features() -> tuple[dict[str, set[str]], dict[str, float]]:
    """Each catalog variant's constructs, its family, whether it has a known bug and whether
    its header bounds the launch; and what it costs, the product of its sizes (the matmuls
    of larger blocks per work-item cost the most)."""
    features, cost = {}, {}
    for variant in catalog():
        name = variant.qualified_id
        features[name] = constructs(variant.source) | {f"family {variant.family}"}
        features[name] |= {"a known bug"} if variant.bug else set()
        features[name] |= {"a bounded launch"} if name in BOUNDED else set()
        cost[name] = float(math.prod(catalog_sizes(variant).values()))
    return features, cost


@pytest.mark.long
@pytest.mark.parametrize("name", sample(*catalog_features()))
def test_catalog_variants_find_the_same_either_way(name, cpu, monkeypatch):
    variant = next(v for v in catalog() if v.qualified_id == name)
    sizes = catalog_sizes(variant)
    run = RunRequest(variant, sizes, device_key=cpu.key, input="random")
    optimised, unoptimised, traced = _both(run, monkeypatch)
    launched = math.prod(traced.trace.global_size)
    assert (launched > ABOVE) == (variant.qualified_id not in BOUNDED), (
        f"{variant.qualified_id} launched {launched} work-items: give it sizes in VARIANT_SIZES"
    )
    assert optimised == unoptimised
    if not variant.bug:
        assert traced.result.status == "verified", variant.qualified_id


def test_the_sample_shows_every_family_finding_kind_and_folder():
    """What the suite leaves to the sweep is more of the same: its sample of each list shows
    every feature of the list, so every family, every kind of finding the corpus makes and
    every folder of our trace kernels."""
    catalog_cases, cost = catalog_features()
    for features, chosen in [
        (corpus_features(), sample(corpus_features())),
        (own_features(), sample(own_features())),
        (catalog_cases, sample(catalog_cases, cost)),
    ]:
        assert set(chosen) <= set(features)
        assert set().union(*(features[n] for n in chosen)) == set().union(*features.values())
    assert {name.split("/")[0] for name in sample(catalog_cases, cost)} == {
        v.family for v in catalog()
    }
    kinds = {kind for expected in FINDINGS.values() for kind, *_ in expected}
    chosen = sample(corpus_features())
    assert {kind for name in chosen for kind, *_ in FINDINGS[name]} == kinds
    assert any(not FINDINGS[name] for name in chosen)  # and a kernel that must find nothing
    folders = {p.split("/")[0] for p in OWN} - {"builds"}
    assert {p.split("/")[0] for p in sample(own_features())} == folders


# The array members of a private struct: bounds-checked alike either way, the one written
# past its end found at its line by both builds.
STRUCT_MEMBERS = {"19_private_struct_array.cl": [], "20_private_struct_oob.cl": [18]}


@pytest.mark.parametrize("name", sorted(STRUCT_MEMBERS))
def test_private_struct_member_arrays_find_the_same_either_way(name, cpu, monkeypatch):
    constructs_folder = TEST_KERNELS.parent / "trace" / "constructs"
    variant = load_variant_file(constructs_folder / name)
    run = RunRequest(variant, {"WIDTH": 256, "HEIGHT": 128}, device_key=cpu.key)
    optimised, unoptimised, traced = _both(run, monkeypatch)
    assert math.prod(traced.trace.global_size) > ABOVE
    assert optimised == unoptimised
    found = [line for kind, line, *_ in optimised if kind == "out-of-bounds"]
    assert found == STRUCT_MEMBERS[name]
