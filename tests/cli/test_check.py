"""``python -m explorer check``: Oclgrind from the command line, with its exit codes."""

import json
import subprocess
from pathlib import Path

import pytest

from explorer.cli.check import OCLGRIND_CRASHED, exit_code
from explorer.engine.header.catalog import find_variant
from explorer.engine.record.oclgrind import OCLGRIND_CRASH, OclgrindCheck, OclgrindMessage
from explorer.engine.records import RunRequest, failed_result
from tests.robustness.helpers import cli

ROOT = Path(__file__).resolve().parents[2]


def _explorer(*args: str) -> subprocess.CompletedProcess:
    """``python -m explorer ARGS`` in this process, on the session's executor (the check
    itself still starts Oclgrind's process of its own, with its environment)."""
    done = cli(*args)
    return subprocess.CompletedProcess(["explorer", *args], done.code, done.out, done.err)


def _has_oclgrind() -> bool:
    import pyopencl as cl

    try:
        return any("oclgrind" in p.name.lower() for p in cl.get_platforms())
    except cl.Error:
        return False


needs_oclgrind = pytest.mark.skipif(
    not _has_oclgrind(), reason='Oclgrind is not installed (pip install "pyopencl[oclgrind]")'
)


@needs_oclgrind
def test_a_racy_kernel_exits_1_with_each_problem_once_by_line(fast_cli):
    done = _explorer(
        "check",
        "--family",
        "matvec",
        "--variant",
        "nvidia-coalesced3",
        "--width",
        "64",
        "--height",
        "2",
        "--json",
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["oclgrind_crashed"] is False
    assert report["result"]["device"].startswith("Oclgrind")
    lines = {p["line"] for p in report["problems"] if "data race" in p["kind"]}
    assert 55 in lines
    keys = [(p["kind"], p["line"]) for p in report["problems"]]
    assert len(keys) == len(set(keys))
    entities = [(m["kind"], m["line"], m["entity"]) for m in report["messages"]]
    assert len(entities) == len(set(entities))


@needs_oclgrind
def test_a_correct_kernel_exits_0(fast_cli):
    done = _explorer(
        "check",
        "--family",
        "matvec",
        "--variant",
        "nvidia-coalesced2",
        "--width",
        "64",
        "--height",
        "2",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no race" in done.stdout


def test_a_device_that_is_not_oclgrind_is_a_usage_error(fast_cli):
    done = _explorer(
        "check", "--family", "matvec", "--variant", "nvidia-coalesced2", "--device", "Portable"
    )
    assert done.returncode == 2
    assert "not an Oclgrind device" in done.stderr


def test_exit_codes_tell_oclgrinds_crash_from_the_kernels_problems():
    request = RunRequest(find_variant("matvec", "nvidia-coalesced2"), {"WIDTH": 64})
    crashed = OclgrindCheck(
        failed_result(request, "Oclgrind itself crashed", OCLGRIND_CRASH), (), ""
    )
    assert exit_code(crashed) == OCLGRIND_CRASHED == 5
    timed_out = OclgrindCheck(failed_result(request, "ran past", "timeout"), (), "")
    assert exit_code(timed_out) == 4
    build = OclgrindCheck(failed_result(request, "build failed", "build"), (), "")
    assert exit_code(build) == 2
    message = OclgrindMessage("Read-write data race", 5, "Global(0,0,0)", "")
    runtime = OclgrindCheck(failed_result(request, "runtime", "runtime"), (message,), "")
    assert exit_code(runtime) == 1


SIM = ROOT / "tests" / "kernels" / "custom" / "sim"


@needs_oclgrind
def test_a_racy_sim_file_exits_1_naming_the_line(fast_cli):
    done = _explorer("check", "--sim", str(SIM / "last_writer.sim"), "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["result"]["status"] == "unchecked"
    assert report["result"]["device"].startswith("Oclgrind")
    assert ("Write-write data race", 4) in {(p["kind"], p["line"]) for p in report["problems"]}


def test_without_oclgrind_a_sim_check_says_how_to_install_it(monkeypatch, capsys):
    from explorer.cli import check, main

    monkeypatch.setattr(check, "find_oclgrind", lambda devices: None)
    assert main(["check", "--sim", str(SIM / "last_writer.sim")]) == 2
    assert check.NO_OCLGRIND in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--kernel-file", str(SIM / "last_writer.cl")], "give --sim or --kernel-file, not both"),
        ([], "does not exist"),
    ],
)
def test_sim_option_errors_are_usage_errors(capsys, extra, words):
    from explorer.cli import main

    path = SIM / ("last_writer.sim" if extra else "no_such.sim")
    assert main(["check", "--sim", str(path), *extra]) == 2
    assert words in capsys.readouterr().err
