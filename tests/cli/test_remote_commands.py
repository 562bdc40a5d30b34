"""Every command that does OpenCL work, against a host reached through a local command
(``--executor-command``, a real pipe), gives what it gives here: the same devices, verdicts,
timings' shape, traces, findings and animation."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from PIL import Image

from explorer.engine.remote import client
from explorer.engine.remote.client import CommandExecutor
from explorer.engine.remote.hosts import Host
from tests.cli.test_check import needs_oclgrind
from tests.conftest import TEST_KERNELS
from tests.engine.remote_helpers import SERVE
from tests.robustness.helpers import SharedExecutor, cli

FAR = ("--executor-command", SERVE)
TILED = ("--family", "matmul", "--variant", "tiled", "--size", "32")
RACY = ("--kernel-file", str(TEST_KERNELS / "tiled_no_second_barrier.cl"), "--size", "32")


@pytest.fixture(scope="module")
def far_executor():
    with CommandExecutor(Host.parse("", SERVE)) as executor:
        yield executor


@pytest.fixture
def both(fast_cli, far_executor, monkeypatch):
    """``cli(*args)`` here and on the host: one executor process each for every command
    (a checker with Oclgrind's switches still starts its own, there)."""
    real = client.CommandExecutor

    def shared(host, env=None, progress=None):  # type: ignore[no-untyped-def]
        assert host.command == far_executor.host.command and host.label == "remote"
        return real(host, env, progress) if env else SharedExecutor(far_executor)

    monkeypatch.setattr(client, "CommandExecutor", shared)

    def run(*args: str) -> tuple[Any, Any]:
        here, there = cli(*args, "--json"), cli(*args, "--json", *FAR)
        assert here.code == there.code, (here.err, there.err)
        return _json(here.out), _json(there.out)

    return run


def _json(text: str) -> Any:
    """One JSON document, or one per line (bench)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_devices_are_the_same_named_with_the_host(both):
    here, there = both("devices")
    assert [d.pop("host") for d in there] == ["remote"] * len(here)
    assert [d.pop("index") for d in there] == [f"remote/{d.pop('index')}" for d in here]
    assert there == here


def test_run_gives_the_same_verdict_and_timings_shape(both):
    here, there = both("run", *TILED, "--repeat", "3")
    assert there["device"] == f"remote: {here['device']}"
    for key in ("status", "verified", "max_abs_error", "local_size", "global_size", "defines"):
        assert there[key] == here[key], key
    assert len(there["samples_ms"]) == len(here["samples_ms"]) == 3
    assert set(there) == set(here)


def test_trace_gives_the_same_records_and_findings(both):
    here, there = both("trace", *RACY)
    assert there["findings"] and [f["kind"] for f in there["findings"]] == [
        f["kind"] for f in here["findings"]
    ]
    for key in ("complete", "records", "findings", "sites", "loads_per_element", "groups"):
        assert there[key] == here[key], key


def test_bench_gives_the_same_rows(both):
    here, there = both("bench", "--family", "matmul", "--variants", "naive,tiled", "--sizes", "32")
    assert [(r["variant"], r["status"], len(r["samples_ms"])) for r in there] == [
        (r["variant"], r["status"], len(r["samples_ms"])) for r in here
    ]


@needs_oclgrind
def test_check_gives_the_same_verdict_on_the_hosts_oclgrind(both):
    here, there = both("check", *RACY)
    # Oclgrind keeps its first 200 messages, of a race whose order varies: their lines vary.
    assert there["verdict"] == here["verdict"]
    assert {m["kind"] for m in there["messages"]} == {m["kind"] for m in here["messages"]}
    assert there["result"]["status"] == here["result"]["status"] == "wrong"


def test_animate_draws_the_same_frames(fast_cli, tmp_path, qapp):
    def frames(*extra: str) -> int:
        out = tmp_path / f"a{len(extra)}.gif"
        done = cli("animate", *TILED, "--max-frames", "6", "--out", str(out), *extra)
        assert done.code == 0, done.err
        with contextlib.closing(Image.open(out)) as gif:
            return int(gif.n_frames)

    assert frames(*FAR) == frames() == 6


def test_a_long_transfer_tells_its_progress_on_standard_error(monkeypatch):
    monkeypatch.setattr(client, "_SHOW_AFTER_S", 0.0)  # every transfer counts as long
    done = cli("trace", *TILED, *FAR)
    assert done.code == 0, done.err
    assert "receiving trace of matmul/tiled (M=32, N=32, K=32) from remote: " in done.err
