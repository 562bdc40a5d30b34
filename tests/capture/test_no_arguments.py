"""A launch of a kernel that takes no arguments replays (there is nothing to judge) and
traces; a header may declare such a kernel with an empty [args] table."""

from __future__ import annotations

import pytest

from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")


def test_a_kernel_without_parameters_replays_and_traces(captured):
    capture = captured("no_arguments.py")
    assert [launch.label for launch in capture.launches] == [
        "empty#1",
        "empty#2",
        "empty#3",
        "ones#1",
    ]
    folder = str(capture.folder)
    ran = cli("run", "--capture", folder, "--launch", "empty#2", "--repeat", "1")
    assert ran.code == 0, ran.out + ran.err
    assert ran.out.startswith("RAN, NOT CHECKED  custom/empty#2"), ran.out
    traced = cli("trace", "--capture", folder, "--launch", "empty#2")
    assert traced.code == 0, traced.out + traced.err
    assert "(complete)" in traced.out and "Findings: none." in traced.out
    ones = cli("run", "--capture", folder, "--launch", "ones", "--repeat", "1")
    assert ones.code == 0 and "matches the original run" in ones.out, ones.out + ones.err
