"""A program built with compiler switches that change its results
(-cl-single-precision-constant, -cl-fp32-correctly-rounded-divide-sqrt): its replay builds
with them, so it computes what the program did, to the bit."""

from __future__ import annotations

import pytest

from explorer.capture.replay import split_options
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")
SWITCHES = (
    "-cl-single-precision-constant", "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-opt-disable",
)  # fmt: skip


def test_switches_that_change_results_are_carried_over():
    options = split_options(SWITCHES)
    assert (options.switches, options.dropped) == (SWITCHES, ())


def test_a_launch_built_with_single_precision_constants_replays_to_the_bit(captured):
    """Before, both switches were dropped ("not carried over"): the replay computed the
    literals in double and matched only within tolerance (max abs error 7.63e-06 on PoCL)."""
    capture = captured("single_const.py")
    ran = cli("run", "--capture", str(capture.folder), "--launch", "damp", "--repeat", "1")
    assert ran.code == 0 and "matches the original run" in ran.out, ran.out + ran.err
    assert ran.out.rstrip().endswith("max abs error 0"), ran.out
