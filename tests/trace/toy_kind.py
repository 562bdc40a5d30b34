"""A finding kind of one's own, written as one module into a package of its own and added to
the searched packages the way the analysis finds its shipped kinds: what the tests of the
report and of the findings view add, to prove a kind needs no second file."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from explorer.trace.analysis import registry

KIND = "toy-site"
CAUSE = "Toy cause: {n} global sites of {buffers} on {where}{several}."
ADVICE = "Toy advice: look at {buffers}."

_MODULE = '''
"""Every global access site is a toy finding (a cost, say), all of them one cause."""

from explorer.trace.analysis.detector import Category, Detector, several, span
from explorer.trace.recorded import GLOBAL, Finding

KIND = {kind!r}


def find(ctx, units):
    t = ctx.trace
    return [
        Finding(KIND, s.line, None, t.buffers[s.buffer].name, (), 1, f"toy: {{s.text}}")
        for s in t.sites
        if s.space == GLOBAL and s.buffer >= 0
    ]


def buffers(findings):
    return " and ".join(dict.fromkeys(f.buffer for f in findings))


def cause(findings):
    return {cause!r}.format(
        n=len(findings), buffers=buffers(findings), where=span(findings),
        several=several(findings),
    )


def advice(findings):
    return {advice!r}.format(buffers=buffers(findings))


DETECTOR = Detector(
    KIND, find, order={order}, category=Category.{category}, cause=cause, advice=advice,
    same_cause=lambda f: (),
)
'''

_packages = itertools.count()


def add_toy_kind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, category: str = "COST", order: int = 65
) -> str:
    """Write the toy kind as the one module of a new package under ``tmp_path`` and add the
    package to the searched ones (until the test ends); the package's name is returned."""
    package = f"toy_kinds_{next(_packages)}"
    folder = tmp_path / package
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "toy_site.py").write_text(
        _MODULE.format(kind=KIND, cause=CAUSE, advice=ADVICE, order=order, category=category)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "PACKAGES", (*registry.PACKAGES, package))
    return package
