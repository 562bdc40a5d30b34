"""Benchmarks: baselines and their ratios, sweeps, the cached device limits."""

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from explorer.engine import calls
from explorer.engine.executor import Executor
from explorer.engine.header.catalog import find_variant
from explorer.engine.measure.baselines import clblast_missing, device_limits, torch_device
from explorer.engine.measure.bench import add_ratios, bench, parse_sweep, sweep_points

ROOT = Path(__file__).resolve().parents[2]
calls.allow(clblast_missing)


def test_parse_sweep_reads_local_sizes_and_defines():
    sweep = parse_sweep(["local=8x8,16x16,32x8", "TS=8,16,32"])
    assert sweep == {"local": [(8, 8), (16, 16), (32, 8)], "TS": [8, 16, 32]}
    points = sweep_points(sweep)
    assert len(points) == 9
    assert points[0] == {"local": (8, 8), "TS": 8}
    assert points[-1] == {"local": (32, 8), "TS": 32}
    assert sweep_points({}) == [{}]


@pytest.mark.parametrize("bad", ["TS", "TS=", "TS=a,b", "local=8xq", "=4"])
def test_parse_sweep_rejects_nonsense(bad):
    with pytest.raises(ValueError):
        parse_sweep([bad])


def test_ratios_follow_their_definitions():
    rows = [
        {"status": "verified", "kernel_ms_median": 2.0, "gflops": 50.0, "gbps": 10.0},
        {"status": "verified", "kernel_ms_median": 4.0, "gflops": 25.0, "gbps": 5.0},
        {"status": "refused", "kernel_ms_median": None, "gflops": None, "gbps": None},
    ]
    base = {"status": "verified", "kernel_ms_median": 1.0, "gflops": 100.0, "gbps": 20.0}
    add_ratios(rows, base, "numpy")  # time: baseline / row
    assert [r["ratio_to_baseline"] for r in rows] == [0.5, 0.25, None]
    add_ratios(rows, base, "copy")  # bandwidth: row / copy
    assert [r["ratio_to_baseline"] for r in rows] == [0.5, 0.25, None]
    add_ratios(rows, base, "fma")  # arithmetic: row / fma
    assert [r["ratio_to_baseline"] for r in rows] == [0.5, 0.25, None]
    assert all(r["baseline"] == "fma" for r in rows)
    add_ratios(rows, None, "torch")  # a skipped baseline gives no ratios
    assert [r["ratio_to_baseline"] for r in rows] == [None, None, None]


def test_copy_baseline_row_and_ratio_on_the_device(executor, device):
    variant = find_variant("transpose", "fast")
    records = bench(
        executor, [variant], [{"WIDTH": 256, "HEIGHT": 128}], device.key, 3, baseline="copy"
    )
    assert [r["variant"] for r in records] == ["fast", "numpy", "copy"]
    fast, numpy_row, copy = records
    assert copy["status"] == "verified" and copy["ratio_to_baseline"] == 1.0
    assert fast["status"] == "verified"
    # The copy ran right after each timed launch of the row: the ratio is taken pair by pair
    # (both count the problem's bytes, so the rate ratio is the time ratio) ...
    pairs = list(zip(fast["paired_copy_ms"], fast["samples_ms"], strict=True))
    assert len(pairs) == 3
    assert fast["ratio_to_baseline"] == pytest.approx(np.median([c / k for c, k in pairs]))
    # ... and the copy row is made of those same copies.
    assert sorted(copy["samples_ms"]) == sorted(fast["paired_copy_ms"])
    assert copy["gbps"] == pytest.approx(
        fast["gbps"] * fast["kernel_ms_median"] / copy["kernel_ms_median"]
    )
    assert numpy_row["ratio_to_baseline"] is not None
    assert numpy_row["ratio_to_baseline"] == pytest.approx(numpy_row["gbps"] / copy["gbps"])


def test_fma_baseline_counts_flops(executor, device):
    records = bench(
        executor,
        [find_variant("matmul", "tiled")],
        [{"M": 64, "N": 64, "K": 64}],
        device.key,
        2,
        baseline="fma",
    )
    tiled, _, fma = records
    assert fma["variant"] == "fma" and fma["gflops"] > 0
    assert tiled["ratio_to_baseline"] == pytest.approx(tiled["gflops"] / fma["gflops"])


def test_fma_ratio_is_none_for_a_family_without_arithmetic(executor, device):
    records = bench(
        executor,
        [find_variant("transpose", "naive")],
        [{"WIDTH": 64, "HEIGHT": 64}],
        device.key,
        2,
        baseline="fma",
    )
    assert records[0]["status"] == "verified"
    assert records[0]["ratio_to_baseline"] is None


def test_torch_baseline_is_skipped_with_a_note_when_it_cannot_run(executor, device):
    index, note = torch_device(device.name)
    if index is not None:
        pytest.skip("torch with CUDA drives this device")
    records = bench(
        executor,
        [find_variant("matmul", "naive")],
        [{"M": 32, "N": 32, "K": 32}],
        device.key,
        1,
        baseline="torch",
        device_name=device.name,
    )
    torch_row = records[-1]
    assert torch_row["variant"] == "torch"
    assert torch_row["status"] == "skipped" and torch_row["error"] == note
    assert all(r["ratio_to_baseline"] is None for r in records)


def test_sweep_runs_the_product_and_reports_refusals(executor, device):
    records = bench(
        executor,
        [find_variant("transpose", "fast")],
        [{"WIDTH": 100, "HEIGHT": 70}],
        device.key,
        2,
        sweep=parse_sweep(["TILE=16,32", "ROWS=4,64"]),
    )
    swept = [r for r in records if r["variant"] == "fast"]
    assert [r["sweep"] for r in swept] == [
        {"TILE": 16, "ROWS": 4},
        {"TILE": 16, "ROWS": 64},
        {"TILE": 32, "ROWS": 4},
        {"TILE": 32, "ROWS": 64},
    ]
    assert [r["status"] for r in swept] == ["verified", "refused", "verified", "refused"]
    assert all("ROWS=64" in r["refused"] for r in swept if r["status"] == "refused")
    assert swept[2]["defines"] == {"TILE": 32, "ROWS": 4}
    assert swept[2]["local_size"] == [32, 4]
    assert records[-1]["variant"] == "numpy"


def test_sweep_of_local_sizes(executor, device):
    records = bench(
        executor,
        [find_variant("matmul", "naive")],
        [{"M": 40, "N": 24, "K": 8}],
        device.key,
        1,
        sweep=parse_sweep(["local=8x8,4x2"]),
    )
    assert [r["local_size"] for r in records[:2]] == [[8, 8], [4, 2]]
    assert [r["sweep"] for r in records[:2]] == [{"local": "8x8"}, {"local": "4x2"}]
    assert all(r["status"] == "verified" for r in records)


def test_device_limits_are_measured_once_and_cached(tmp_path, monkeypatch, device):
    """The one real measurement of the suite: the copy and FMA kernels on the device."""
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    with Executor() as ex:  # a fresh process, so it sees the cache folder
        first = ex.call(device_limits, device.key)
        second = ex.call(device_limits, device.key)
    assert first["device"] == device.name
    assert first["copy_gbps"] > 0 and first["fma_gflops"] > 0
    assert first["cached"] is False and second["cached"] is True
    assert (second["copy_gbps"], second["fma_gflops"]) == (first["copy_gbps"], first["fma_gflops"])
    assert "T" in first["measured"]  # an ISO date and time
    stored = json.loads((tmp_path / "device-limits.json").read_text())
    (key,) = stored
    assert device.name in key and device.driver_version in key


def test_refreshed_device_limits_are_measured_again_and_replace_the_cached_ones(
    tmp_path, monkeypatch, device
):
    """``refresh`` measures again and keeps the new figures; another driver of the device is
    measured on its own. The kernels are stand-ins here (the test above times the real
    ones), each call giving new figures, so that a figure read from the cache shows."""
    from explorer.engine.measure import baselines

    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    newer = dataclasses.replace(
        device, device_index=device.device_index + 1, driver_version="a newer driver"
    )
    assert newer.key != device.key
    monkeypatch.setattr(baselines, "runtime", lambda: SimpleNamespace(devices=[device, newer]))
    measured = []

    def copy(device_key, bytes_moved, repeat=10):
        measured.append(("copy", device_key))
        return {"gbps": 10.0 * len(measured), "bytes_moved": bytes_moved}

    def fma(device_key, repeat=10):
        measured.append(("fma", device_key))
        return {"gflops": 100.0 * len(measured)}

    monkeypatch.setattr(baselines, "measure_copy", copy)
    monkeypatch.setattr(baselines, "measure_fma", fma)

    first = device_limits(device.key)
    assert measured == [("copy", device.key), ("fma", device.key)]
    assert (first["cached"], first["copy_gbps"], first["fma_gflops"]) == (False, 10.0, 200.0)
    second = device_limits(device.key)
    assert len(measured) == 2  # read, not measured
    assert (second["cached"], second["copy_gbps"], second["fma_gflops"]) == (True, 10.0, 200.0)

    again = device_limits(device.key, True)
    assert measured[2:] == [("copy", device.key), ("fma", device.key)]
    assert (again["cached"], again["copy_gbps"], again["fma_gflops"]) == (False, 30.0, 400.0)
    kept = device_limits(device.key)
    assert (kept["cached"], kept["copy_gbps"], kept["fma_gflops"]) == (True, 30.0, 400.0)
    assert kept["measured"] == again["measured"]

    other = device_limits(newer.key)
    assert measured[4:] == [("copy", newer.key), ("fma", newer.key)]
    assert other["cached"] is False and other["driver"] == "a newer driver"
    assert device_limits(device.key)["copy_gbps"] == 30.0  # the first driver's entry stays
    stored = json.loads((tmp_path / "device-limits.json").read_text())
    assert len(stored) == 2
    assert {entry["driver"] for entry in stored.values()} == {
        device.driver_version,
        "a newer driver",
    }


def test_cli_bench_with_baseline_and_sweep(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "explorer",
            "bench",
            "--family",
            "rowdot",
            "--variants",
            "fast",
            "--sizes",
            "64",
            "--sweep",
            "TEAM=16,32",
            "--baseline",
            "copy",
            "--repeat",
            "2",
            "--csv",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**__import__("os").environ, "EXPLORER_CACHE_DIR": str(tmp_path)},
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    rows = out.stdout.strip().splitlines()
    header = rows[0].split(",")
    assert header[-4:] == ["sweep", "defines", "baseline", "ratio_to_baseline"]
    assert len(rows) == 1 + 2 + 2  # two sweep points, numpy, copy
    assert rows[1].split(",")[-4] == "TEAM=16"
    assert rows[-1].startswith("rowdot,copy,")
    assert float(rows[-1].split(",")[-1]) == 1.0


def test_cli_rejects_an_unknown_baseline():
    from tests.robustness.helpers import cli

    out = cli("bench", "--family", "matmul", "--baseline", "gpu")  # argparse's, in this process
    assert out.code == 2
    assert "copy" in out.err


def test_clblast_baseline_is_skipped_with_a_note_when_pyclblast_does_not_import(executor, device):
    if executor.call(clblast_missing) is None:
        pytest.skip("pyclblast imports here")
    records = bench(
        executor,
        [find_variant("matmul", "naive")],
        [{"M": 32, "N": 32, "K": 32}],
        device.key,
        1,
        baseline="clblast",
        device_name=device.name,
    )
    row = records[-1]
    assert row["variant"] == "clblast" and row["status"] == "skipped"
    assert "pyclblast is not importable" in row["error"]
    assert all(r["ratio_to_baseline"] is None for r in records)


FAKE_PYCLBLAST = '''
"""A stand-in for pyclblast: C = A·B through numpy, as CLBlast's gemm is called."""
__version__ = "0.0-test"
WRONG = False


def gemm(queue, m, n, k, a, b, c, a_ld, b_ld, c_ld):
    product = a.get().reshape(m, a_ld)[:, :k] @ b.get().reshape(k, b_ld)[:, :n]
    c.set(product + (1.0 if WRONG else 0.0))
'''


@pytest.mark.parametrize("wrong", [False, True])
def test_cli_bench_against_clblast_where_pyclblast_imports(tmp_path, wrong):
    """The clblast row is timed, checked and gives the ratios when pyclblast imports (here a
    stand-in computing with numpy); a wrong product is a wrong row and gives none."""
    (tmp_path / "pyclblast.py").write_text(FAKE_PYCLBLAST.replace("False", str(wrong)))
    env = dict(__import__("os").environ, EXPLORER_CACHE_DIR=str(tmp_path))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tmp_path), env.get("PYTHONPATH")) if p)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "explorer",
            "bench",
            "--family",
            "matmul",
            "--variants",
            "tiled",
            "--sizes",
            "32",
            "--baseline",
            "clblast",
            "--repeat",
            "2",
            "--csv",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    rows = [line.split(",") for line in out.stdout.strip().splitlines()]
    header, *rows = rows
    clblast = dict(zip(header, rows[-1], strict=True))
    tiled = dict(zip(header, rows[0], strict=True))
    assert clblast["variant"] == "clblast"
    if wrong:
        assert out.returncode == 1, out.stderr
        assert clblast["status"] == "wrong" and tiled["ratio_to_baseline"] == ""
    else:
        assert out.returncode == 0, out.stderr
        assert clblast["status"] == "verified" and float(clblast["ratio_to_baseline"]) == 1.0
        assert float(tiled["ratio_to_baseline"]) > 0


def test_cli_bench_says_why_there_is_no_clblast_row(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "explorer",
            "bench",
            "--family",
            "matmul",
            "--variants",
            "naive",
            "--sizes",
            "16",
            "--baseline",
            "clblast",
            "--repeat",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**__import__("os").environ, "EXPLORER_CACHE_DIR": str(tmp_path)},
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    line = out.stdout.strip().splitlines()[-1]
    if line.split()[:3] == ["clblast", "16x16x16", "verified"]:
        pytest.skip("pyclblast imports here: CLBlast's row is measured")
    assert line.startswith("clblast") and "skipped" in line
    assert "pyclblast is not importable" in line and "pip install pyclblast" in line
