"""Every catalog variant, and the suite's own header and .sim kernels, give the outcome and the
outputs recorded before the engine took one path for every kernel (record_outcomes.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.engine.record_outcomes import RECORDED, cases, outcome, outputs_of, run_case

RECORDS = json.loads((RECORDED / "outcomes.json").read_text(encoding="utf-8"))
CASES = list(cases())


def test_every_case_was_recorded():
    assert sorted(RECORDS) == sorted(key for key, *_ in CASES)


@pytest.fixture(scope="module")
def recorded_outputs():
    with np.load(RECORDED / "outputs.npz") as data:
        yield {name: data[name] for name in data.files}


@pytest.mark.parametrize("case", CASES, ids=lambda case: case[0])
def test_the_outcome_is_the_recorded_one(executor, device, on_pocl, recorded_outputs, case):
    if not on_pocl:
        pytest.skip("recorded on PoCL: seed kernels' races come out otherwise elsewhere")
    key, variant, sizes, preset = case
    result = run_case(executor.run, variant, sizes, preset, device.key)
    recorded = dict(RECORDS[key])
    if not recorded.pop("repeatable"):  # a kernel that reads what it never wrote
        assert result.status == recorded["status"], result.summary()
        return
    assert outcome(result) == recorded, result.summary()
    for name, value in outputs_of(result).items():
        expected = recorded_outputs[f"{key}|{name}"]
        assert value.shape == expected.shape and value.dtype == expected.dtype, name
        if value.dtype.kind == "f":
            scale = max(1.0, float(np.nanmax(np.abs(expected), initial=0.0)))
            assert np.allclose(value, expected, rtol=1e-5, atol=1e-6 * scale, equal_nan=True), name
        else:
            assert np.array_equal(value, expected), name
