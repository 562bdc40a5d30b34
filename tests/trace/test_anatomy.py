"""Index anatomy: the value of each term of a traced access's index and where each came from,
back to the definitions. Values checked by hand against the kernels' own arithmetic."""

from __future__ import annotations

import numpy as np

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.instrument import instrument
from tests.conftest import TEST_KERNELS

MUTANTS = TEST_KERNELS / "mutants"
STYLES = TEST_KERNELS / "anatomy" / "styles.cl"


def traced(executor, device, path, sizes, **anatomy):
    variant = load_variant_file(path)
    request = TraceRequest(
        RunRequest(variant, sizes, device_key=device.key, input="random"), **anatomy
    )
    result = executor.trace(request, keep_trace=True)
    assert result.analysis is not None, result.result.summary()
    return result


def work_item(trace, group, local):
    match = np.flatnonzero(
        (trace.wi_group == np.array(group)).all(axis=1)
        & (trace.wi_local == np.array(local)).all(axis=1)
    )
    assert match.size == 1
    return int(match[0])


def by_text(explained):
    return {e.text: e for e in explained}


def terms(explanation):
    return {t.text: t for t in explanation.terms}


def test_the_swapped_tx_is_traced_back_from_the_tile_store_to_line_34(executor, device):
    """The mutant's tile store at line 52 uses tx; its anatomy names tx's definition at
    line 34, get_local_id(1), with the values work-item (5, 3) of group (1, 2) used."""
    result = traced(
        executor,
        device,
        MUTANTS / "tiled_tx_swapped.cl",
        {"M": 64, "N": 64, "K": 64},
        anatomy_lines=(52,),
    )
    trace, anatomy = result.trace, result.anatomy
    assert anatomy is not None and anatomy.values is not None and 52 in anatomy.lines
    wi = work_item(trace, (1, 2, 0), (5, 3, 0))
    at_52 = by_text(anatomy.explain_at(trace, 52, wi))
    store = at_52["Asub[ty][tx]"]
    assert store.recorded and store.index == ("ty", "tx")
    tx = terms(store)["tx"]
    assert tx.value == "3"  # get_local_id(1) of local id (5, 3): the bug
    (definition,) = tx.definitions
    assert (definition.line, definition.value_text, definition.ran) == (34, "get_local_id(1)", True)
    assert [(t.text, t.value) for t in definition.terms] == [("get_local_id(1)", "3")]
    assert terms(store)["ty"].value == "3"
    assert store.chains()[1] == "tx = 3 ← get_local_id(1) at line 34"
    # The load beside it: row = get_group_id(1) * 16 + ty = 2 * 16 + 3, kA = t * 16 + tx.
    load = terms(at_52["A[row * K + kA]"])
    assert (load["row"].value, load["K"].value, load["kA"].value) == ("35", "64", "3")
    row_from = load["row"].definitions[0]
    assert row_from.line == 37
    assert {t.text: t.value for t in row_from.terms} == {
        "get_group_id(1)": "2",
        "TS": "16",
        "ty": "3",
    }
    # Its second pass along K: t = 1 came from t++ at line 49, kA = 1 * 16 + 3.
    second = by_text(anatomy.explain_at(trace, 52, wi, occurrence=1))["A[row * K + kA]"]
    ka = terms(second)["kA"]
    assert ka.value == "19"
    t = {x.text: x for x in ka.definitions[0].terms}["t"]
    assert t.value == "1" and [(d.line, d.text, d.value) for d in t.definitions] == [
        (49, "t++", "1")
    ]


def test_findings_carry_the_anatomy_of_the_access_they_report(executor, device):
    """Findings name the chain in their text and carry it in JSON, values or not."""
    result = traced(executor, device, MUTANTS / "tiled_tx_swapped.cl", {"M": 32, "N": 32, "K": 32})
    at_52 = [f for f in result.report_json["findings"] if f["line"] == 52]
    assert at_52, result.report_text
    shown = at_52[0]["anatomy"]
    assert shown["access"] == "Asub[ty][tx]" and shown["values_recorded"] is False
    tx = next(t for t in shown["terms"] if t["text"] == "tx")
    assert [(d["line"], d["text"]) for d in tx["definitions"]] == [(34, "tx = get_local_id(1)")]
    chain = "index of Asub[ty][tx]: ty ← get_local_id(1) at line 35; tx ← get_local_id(1) at"
    assert chain + " line 34" in result.report_text
    # Nothing asked: no anatomy build ran after the trace.
    assert result.anatomy.values is None and result.anatomy.lines == ()


def test_a_loop_bound_past_the_end_is_traced_back_to_the_loop(executor, device):
    """`k <= K` reads A one past its end from the last row: k = 32 came from k++ at line 26
    after k = 31, and the index is 31 * 32 + 32 = 1024, A's length."""
    result = traced(
        executor,
        device,
        MUTANTS / "naive_loop_bound.cl",
        {"M": 32, "N": 32, "K": 32},
        anatomy_findings=True,
    )
    oob = [
        f
        for f in result.report_json["findings"]
        if f["kind"] == "out-of-bounds" and f["buffer"] == "A"
    ]
    assert oob and oob[0]["line"] == 27
    shown = oob[0]["anatomy"]
    assert shown["values_recorded"] is True
    values = {t["text"]: t["value"] for t in shown["terms"]}
    assert values == {"row": "31", "K": "32", "k": "32"}
    k = next(t for t in shown["terms"] if t["text"] == "k")
    assert [(d["line"], d["text"], d["value"]) for d in k["definitions"]] == [(26, "k++", "32")]
    assert "k = 32 ← k++ at line 26 (k = 31)" in result.report_text


def test_helpers_structs_macros_pointers_vload_and_atomics(executor, device):
    """Work-item 5 of group 1 (gid 21): c = {5, 1}, j = flat(c) = 5 * 4 + 1 = 21, its first
    pass reads src[mirror(21, 64)] = src[42], its third src[idx[21]] = src[21] (iota)."""
    result = traced(executor, device, STYLES, {"N": 64}, anatomy_lines=(58, 61, 63, 64))
    trace, anatomy = result.trace, result.anatomy
    wi = work_item(trace, (1, 0, 0), (5, 0, 0))
    first = terms(by_text(anatomy.explain_at(trace, 58, wi))["src[o]"])["o"]
    assert first.value == "42"
    (mirror,) = first.definitions
    assert (mirror.line, mirror.value_text) == (55, "mirror(j, n)")
    parts = {t.text: t for t in mirror.terms}
    assert (parts["mirror(j, n)"].value, parts["j"].value, parts["n"].value) == ("42", "21", "64")
    flat = parts["j"].definitions[0]
    assert (flat.line, flat.value) == (52, "21")
    members = {d.text: d.value for d in {t.text: t for t in flat.terms}["c"].definitions}
    assert members == {"c.row = gid / WIDTH": "5", "c.col = gid % WIDTH": "1"}
    third = terms(by_text(anatomy.explain_at(trace, 58, wi, occurrence=2))["src[o]"])["o"]
    assert third.value == "21"
    (load,) = third.definitions
    assert (load.line, load.text) == (57, "o = idx[j]")
    read = load.terms[0]
    assert (read.text, read.value) == ("idx[j]", "21")
    assert [(t.text, t.value) for t in read.definitions[0].terms] == [("j", "21")]
    store = terms(by_text(anatomy.explain_at(trace, 64, wi))["dst[AT(c.row, c.col)]"])
    assert {k: t.value for k, t in store.items()} == {
        "AT(c.row, c.col)": "21",
        "c.row": "5",
        "c.col": "1",
    }
    assert [d.line for d in store["c.row"].definitions] == [50]
    vector = terms(by_text(anatomy.explain_at(trace, 61, wi))["vload4(0, row)"])["row"]
    (pointer,) = vector.definitions
    assert (pointer.line, pointer.value_text) == (60, "src + AT(c.row, 0)")
    assert {t.text: t.value for t in pointer.terms}["AT(c.row, 0)"] == "20"
    atomic = terms(by_text(anatomy.explain_at(trace, 63, wi))["atomic_add(&hist[bin], 1)"])
    assert atomic["bin"].value == "5"  # 21 & 15
    gid = atomic["bin"].definitions[0].terms[0]
    assert (gid.text, gid.value, gid.definitions[0].line) == ("gid", "21", 48)


def test_a_build_asked_nothing_records_no_anatomy():
    """The plain trace build is the same whether or not anatomy exists: nothing recorded."""
    source = (MUTANTS / "tiled_tx_swapped.cl").read_text()
    plain = instrument(source, "matmul_tiled", {"TS": 16}, values=True)
    asked = instrument(source, "matmul_tiled", {"TS": 16}, values=True, anatomy_lines=(52,))
    assert "__tr_a_" not in plain.source and plain.anatomy is None
    assert "__tr_a_" in asked.source and asked.anatomy is not None
    assert asked.sites[: len(plain.sites)] == plain.sites  # the accesses keep their numbers


def test_an_anatomy_build_records_the_same_accesses(device):
    """The anatomy build's accesses, work-item by work-item, are the plain trace's: only
    its own records come in between."""
    from dataclasses import replace

    from explorer.engine.record.trace_launch import run_trace
    from explorer.trace.recorded import ROLE_ANATOMY

    variant = load_variant_file(MUTANTS / "tiled_tx_swapped.cl")
    request = TraceRequest(
        RunRequest(variant, {"M": 32, "N": 32, "K": 32}, device_key=device.key, input="random")
    )
    plain = run_trace(request).trace
    built = run_trace(replace(request, values=True), (52,)).trace
    own = np.array([s.role == ROLE_ANATOMY for s in built.sites])
    keep = ~own[built.site]
    assert np.array_equal(built.offset[keep], plain.offset)
    assert np.array_equal(built.site[keep], plain.site)
    assert own[built.site].sum() > 0
