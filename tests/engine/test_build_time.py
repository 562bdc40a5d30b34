"""A build is not the kernel's time: a run whose build takes longer than its timeout still
runs, and says that it is building while it does; a build has a bound of its own."""

from __future__ import annotations

import pytest

from explorer.engine import executor as executor_module
from explorer.engine.executor import Executor
from explorer.engine.header.catalog import load_variant_file
from explorer.engine.records import RunRequest
from tests.engine.slow_build import fresh_copy, late_next_launch, slow_next_build

SIZES = {"WIDTH": 37, "HEIGHT": 21}


def _told(executor: Executor) -> list[str]:
    told: list[str] = []
    executor.on_build = told.append
    return told


@pytest.fixture
def told(executor):
    said = _told(executor)
    yield said
    executor.on_build = None


def test_a_build_longer_than_the_timeout_does_not_time_the_run_out(
    executor, device, told, tmp_path
):
    variant = load_variant_file(fresh_copy(tmp_path))
    executor.call(slow_next_build, 2.5)
    result = executor.run(RunRequest(variant, SIZES, device_key=device.key, timeout_s=1))
    assert result.status == "verified", result.summary()
    name = f"{variant.qualified_id} (WIDTH=37, HEIGHT=21)"
    assert told == [f"building {name} (first time; cached after)", ""]


def test_a_launch_that_waits_for_its_code_is_not_the_kernels_time(executor, device, told, tmp_path):
    variant = load_variant_file(fresh_copy(tmp_path))
    executor.call(late_next_launch, 2.5)
    result = executor.run(RunRequest(variant, SIZES, device_key=device.key, timeout_s=1))
    assert result.status == "verified", result.summary()
    assert told == [
        f"building {variant.qualified_id} (WIDTH=37, HEIGHT=21) (first time; cached after)",
        "",
    ]


def test_a_quick_build_is_not_said(executor, device, told, tmp_path):
    variant = load_variant_file(fresh_copy(tmp_path))
    result = executor.run(RunRequest(variant, SIZES, device_key=device.key))
    assert result.status == "verified", result.summary()
    assert told == []


def test_a_build_past_its_own_bound_is_stopped_and_named(device, tmp_path, monkeypatch):
    monkeypatch.setattr(executor_module, "BUILD_LIMIT_S", 1.0)
    variant = load_variant_file(fresh_copy(tmp_path))
    with Executor() as ex:
        told = _told(ex)
        ex.call(slow_next_build, 30.0)
        result = ex.run(RunRequest(variant, SIZES, device_key=device.key, timeout_s=60))
        assert result.status == "timeout"
        assert result.error.startswith("the build took longer than 1 s while preparing")
        assert "it was stopped and the executor restarted" in result.error
        assert told[-1] == ""  # the window's progress is told it is over
        again = ex.run(RunRequest(variant, SIZES, device_key=device.key))
        assert again.status == "verified", again.summary()
