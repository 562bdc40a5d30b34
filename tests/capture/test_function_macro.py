"""A program built with a function-like macro in its -D options (``-DOP(a,b)=...``): its
launches replay, traced and saved, with the macro the build had."""

from __future__ import annotations

import pytest

from explorer.capture.replay import split_options
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")


def test_function_like_macros_are_defined_before_the_source():
    options = split_options(("-DOP(a,b)=((a)+2*(b))", "-D", "F( x )", "-DV(...)=g(__VA_ARGS__)"))
    assert options.macros == (
        "#define OP(a,b) ((a)+2*(b))",
        "#define F( x ) 1",
        "#define V(...) g(__VA_ARGS__)",
    )
    assert options.dropped == ()
    assert split_options(("-DOP(a,=1",)).dropped == ("-DOP(a,=1",)


def test_a_launch_built_with_a_function_like_macro_replays_and_saves(captured, tmp_path):
    """Before, the macro was dropped as 'not carried over' and every replay failed to build:
    "implicit declaration of function 'OP'"."""
    capture = captured("function_macro.py")
    assert [launch.label for launch in capture.launches] == ["blend#1", "blend#2"]
    ran = cli("run", "--capture", str(capture.folder), "--launch", "2", "--repeat", "1")
    assert ran.code == 0 and "matches the original run" in ran.out, ran.out + ran.err
    saved = cli("capture-save", str(capture.folder), "--launch", "blend#2", "--out", str(tmp_path))
    assert saved.code == 0, saved.err
    ran = cli("run", "--kernel-file", str(tmp_path / "blend-2.cl"), "--repeat", "1")
    assert ran.code == 0 and "matches the original run" in ran.out, ran.out + ran.err
