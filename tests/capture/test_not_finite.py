"""A captured result that holds NaN and infinities matches its replay: the same NaN, the same
infinity, are the same answer (they counted as wrong elements, with a largest error of 0)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")


def test_nan_and_infinities_in_a_captured_result_match_their_replay(captured):
    capture = captured("not_finite.py")
    launch = capture.find("logs")
    after = np.load(capture.path(launch.args[1].after))
    assert np.isnan(after).sum() == 8 and np.isinf(after).sum() == 4  # log(-x), log(0)
    outcome = cli("run", "--capture", str(capture.folder), "--launch", "logs", "--json")
    record = json.loads(outcome.out)
    assert (outcome.code, record["status"], record["max_abs_error"]) == (0, "verified", 0.0)
