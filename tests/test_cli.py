"""The command-line contract: JSON fields and exit codes."""

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import TEST_KERNELS

ROOT = Path(__file__).resolve().parent.parent
FIELDS = {
    "family",
    "variant",
    "device",
    "platform",
    "size",
    "local_size",
    "defines",
    "verified",
    "max_abs_error",
    "max_rel_error",
    "kernel_ms_median",
    "kernel_ms_min",
    "kernel_ms_max",
    "samples_ms",
    "upload_ms",
    "download_ms",
    "reference_ms",
    "gflops",
    "gbps",
    "refused",
    "error",
    "output",
}


# Every command runs in this process on the session's executor, as ``python -m explorer``
# would run it; the first test starts the real module in a process of its own.
pytestmark = pytest.mark.usefixtures("fast_cli")


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def cli(*args: str) -> Ran:
    """The command's exit code and what it printed; an exception escaping it fails the test."""
    from tests.robustness.helpers import cli as in_process

    outcome = in_process(*args)
    return Ran(outcome.code, outcome.out, outcome.err)


def process(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )


def test_devices_json_lists_the_facts():
    out = process("devices", "--json")
    assert out.returncode == 0, out.stderr
    devices = json.loads(out.stdout)
    assert devices and {
        "name",
        "platform",
        "type",
        "compute_units",
        "max_work_group_size",
        "local_mem_bytes",
        "max_work_item_sizes",
    } <= set(devices[0])


def test_variants_json_has_every_field():
    out = cli("variants", "--family", "rowdot", "--json")
    assert out.returncode == 0
    variants = json.loads(out.stdout)
    assert {v["id"] for v in variants} >= {"seed004-group-row", "fast"}
    assert all(
        {"family", "id", "name", "source", "bug", "defines", "local"} <= set(v) for v in variants
    )


def test_verified_run_prints_one_json_line_and_exits_0():
    out = cli(
        "run",
        "--family",
        "matmul",
        "--variant",
        "tiled",
        "--m",
        "40",
        "--n",
        "24",
        "--k",
        "72",
        "--local",
        "8x8",
        "--define",
        "TS=8",
        "--repeat",
        "3",
        "--json",
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert set(record) >= FIELDS
    assert record["verified"] is True
    assert record["size"] == {"M": 40, "N": 24, "K": 72}
    assert record["local_size"] == [8, 8] and record["defines"] == {"TS": 8}
    assert len(record["samples_ms"]) == 3
    assert record["kernel_ms_min"] <= record["kernel_ms_median"] <= record["kernel_ms_max"]
    assert record["gflops"] > 0 and record["refused"] is None and record["error"] is None


def test_wrong_result_exits_1():
    out = cli(
        "run",
        "--family",
        "matvec",
        "--variant",
        "nvidia-coalesced3",
        "--width",
        "1100",
        "--height",
        "300",
        "--json",
    )
    record = json.loads(out.stdout)
    if "Portable Computing Language" not in record["platform"]:
        pytest.skip("the warp-synchronous bug shows on PoCL")
    assert out.returncode == 1
    assert record["verified"] is False and record["max_abs_error"] > 0


def test_refused_exits_3_with_the_reason():
    out = cli("run", "--family", "matmul", "--variant", "seed003-func2", "--size", "100", "--json")
    assert out.returncode == 3
    record = json.loads(out.stdout)
    assert "K % 16 == 0" in record["refused"] or "16" in record["refused"]


def test_crash_exits_4_and_names_it():
    out = cli(
        "run",
        "--kernel-file",
        str(TEST_KERNELS / "crash.cl"),
        "--width",
        "64",
        "--height",
        "1",
        "--json",
    )
    assert out.returncode == 4
    assert "crashed" in json.loads(out.stdout)["error"]


def test_usage_errors_exit_2_without_a_traceback():
    for args in (
        ("run", "--family", "matmul", "--variant", "nope"),
        ("run", "--family", "matmul", "--variant", "naive", "--local", "big"),
        ("run", "--family", "matmul", "--variant", "naive", "--width", "5"),
        ("run", "--kernel-file", "/nonexistent/k.cl"),
        ("run", "--family", "matvec", "--variant", "fast", "--input", "iou"),
    ):
        out = cli(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert "Traceback" not in out.stderr
        assert out.stderr.startswith("error:")


def test_printf_output_is_captured_and_returned():
    out = cli(
        "run",
        "--family",
        "matmul",
        "--variant",
        "seed000-tiled",
        "--size",
        "32",
        "--repeat",
        "1",
        "--json",
    )
    record = json.loads(out.stdout)
    assert record["verified"] is True
    assert "Asub[" in record["output"] and "acc = " in record["output"]


def test_save_image_writes_the_iou_product(tmp_path):
    from explorer.description.images import load_grey

    path = tmp_path / "c.png"
    out = cli(
        "run", "--family", "matmul", "--variant", "naive", "--size", "96", "--save-image", str(path)
    )
    assert out.returncode == 0, out.stderr
    picture = load_grey(path)
    assert picture.shape == (96, 96)
    assert picture.min() < 0.1 < 0.5 < picture.max()  # dark text on grey


def test_bench_prints_each_variant_and_a_numpy_row():
    out = cli(
        "bench",
        "--family",
        "transpose",
        "--variants",
        "naive,tiled",
        "--sizes",
        "64,100",
        "--repeat",
        "2",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(r["variant"], r["size"]["WIDTH"]) for r in records] == [
        ("naive", 64),
        ("tiled", 64),
        ("numpy", 64),
        ("naive", 100),
        ("tiled", 100),
        ("numpy", 100),
    ]
    assert all(r["gbps"] and r["gbps"] > 0 for r in records)


def test_bench_csv_has_a_header_and_a_row_per_record():
    out = cli(
        "bench",
        "--family",
        "matmul",
        "--variants",
        "naive",
        "--sizes",
        "32",
        "--repeat",
        "1",
        "--csv",
    )
    assert out.returncode == 0, out.stderr
    rows = out.stdout.strip().splitlines()
    assert rows[0].startswith("family,variant,device")
    assert len(rows) == 3 and rows[2].startswith("matmul,numpy")


def test_no_platform_is_explained_with_exit_2(monkeypatch, capsys):
    from explorer import cli as cli_module
    from explorer.engine.executor import Executor

    monkeypatch.setattr(Executor, "devices", lambda self, timeout_s=60: [])
    code = cli_module.main(["run", "--family", "matmul", "--variant", "naive"])
    err = capsys.readouterr().err
    assert code == 2
    assert "pip install pocl-binary-distribution" in err


def test_run_session_runs_the_saved_configuration(tmp_path):
    from explorer.session import Session, save_session

    path = save_session(
        Session(
            family="matmul",
            variant="tiled",
            sizes={"M": 64, "N": 48, "K": 40},
            device="GeForce 9000",
        ),
        tmp_path / "s.kexp.json",
    )
    out = cli("run", "--session", str(path), "--repeat", "2", "--json")
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert (record["variant"], record["size"]) == ("tiled", {"M": 64, "N": 48, "K": 40})
    assert "GeForce 9000" in out.stderr  # the missing device is named, the default used


def test_run_session_refuses_bad_files_and_mixed_options(tmp_path):
    bad = tmp_path / "bad.kexp.json"
    bad.write_text('{"format": "kernel-explorer-session", "version": 1, "family": "fft"}')
    out = cli("run", "--session", str(bad))
    assert out.returncode == 2 and "field 'family'" in out.stderr and "Traceback" not in out.stderr
    out = cli("run", "--session", str(bad), "--size", "64")
    assert out.returncode == 2 and "drop --size" in out.stderr


def test_run_session_refuses_a_view_tab_it_does_not_know_naming_the_tabs(tmp_path):
    from explorer.gui.controllers.sessions import TAB_PAGES
    from explorer.session import VIEW_TABS

    assert tuple(TAB_PAGES) == VIEW_TABS  # every tab a session may name, the window shows
    path = tmp_path / "s.kexp.json"
    path.write_text(
        '{"format": "kernel-explorer-session", "version": 1, "family": "matmul", '
        '"variant": "tiled", "view": {"tab": "nope"}}'
    )
    out = cli("run", "--session", str(path))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "field 'view.tab'" in out.stderr and "'nope'" in out.stderr
    assert "result, timing, source, findings, grid" in out.stderr


def test_install_desktop_writes_and_removes_the_entry(tmp_path):
    out = cli("install-desktop", "--prefix", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "share" / "applications" / "kernel-explorer.desktop").is_file()
    out = cli("install-desktop", "--prefix", str(tmp_path), "--uninstall")
    assert out.returncode == 0
    assert not any(p.is_file() for p in tmp_path.rglob("*"))
