"""A finding kind is one module: a kind added as one module of a package of its own is found,
run, placed, grouped, worded and written out by the analysis and the report like the shipped
ones (the findings view's half is tests/gui/test_findings_view.py)."""

from __future__ import annotations

import pytest

from explorer.trace.analysis import Category, analyse, format_report, registry
from explorer.trace.analysis.report import groups_json
from tests.trace.synthetic import transpose_naive
from tests.trace.toy_kind import ADVICE, CAUSE, KIND, add_toy_kind


def test_a_kind_in_one_module_of_its_own_is_reported_in_text_and_json(tmp_path, monkeypatch):
    trace = transpose_naive(64)  # a global read and a global write on line 5: uncoalesced
    before = analyse(trace)
    assert KIND not in format_report(trace, before)

    add_toy_kind(tmp_path, monkeypatch, "COST", order=65)
    analysis = analyse(trace)
    assert [(f.kind, f.buffer) for f in analysis.findings] == [
        (KIND, "in"),
        (KIND, "out"),
        ("uncoalesced", "out"),  # order 75: after the toy's 65
    ]
    cause = CAUSE.format(n=2, buffers="in and out", where="line 5", several=" (2 findings)")
    advice = ADVICE.format(buffers="in and out")
    text = format_report(trace, analysis)
    assert "Findings (3), by root cause (2 cause(s)):" in text
    assert f"1. [{KIND}] {cause}\n   What to do: {advice}\n" in text
    assert f"  [{KIND}] line 5: toy: out[x*N + y]\n" in text
    assert text.index(f"[{KIND}]") < text.index("2. [uncoalesced]")

    findings = analysis.to_json(trace)["findings"]
    assert [f["kind"] for f in findings] == [KIND, KIND, "uncoalesced"]
    assert groups_json(analysis.findings)[0] == {
        "kind": KIND,
        "cause": cause,
        "advice": advice,
        "lines": [5],
        "findings": [0, 1],
    }
    assert registry.kinds(Category.COST) == (KIND, "uncoalesced", "bank-conflict")


def test_the_added_kind_is_gone_when_its_package_is_no_longer_searched(tmp_path):
    with pytest.MonkeyPatch.context() as patch:
        add_toy_kind(tmp_path, patch)
        assert registry.category(KIND) is Category.COST
    assert registry.category(KIND) is None
    assert KIND not in {f.kind for f in analyse(transpose_naive(64)).findings}


def test_two_modules_declaring_one_kind_are_refused(tmp_path, monkeypatch):
    package = add_toy_kind(tmp_path, monkeypatch)
    copy = (tmp_path / package / "toy_site.py").read_text()
    (tmp_path / package / "toy_copy.py").write_text(copy)
    with pytest.raises(ValueError, match=f"declared by two modules: {KIND}"):
        registry.detectors()


def test_every_shipped_kind_has_a_category_and_the_costs_are_the_measurable_ones():
    shipped = {d.kind: d.category for d in registry.detectors()}
    costs = {k for k, c in shipped.items() if c is Category.COST}
    assert costs == {"uncoalesced", "bank-conflict"}
    assert {k for k, c in shipped.items() if c is Category.TRACE} == {"overflow", "not-traced"}
    assert shipped["same-value-writes"] is Category.NOTE  # "Note, not a race"
