"""The command list and the options that come from the families registry."""

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explorer import cli, selection
from explorer.benchmarks.trace import TraceBenchError, TraceCase
from explorer.families import FAMILIES
from explorer.families.stencil import Stencil


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_command_is_there_in_its_order():
    assert list(subcommands(cli.build_parser())) == [
        "devices",
        "variants",
        "run",
        "trace",
        "check",
        "exercise",
        "animate",
        "capture",
        "capture-save",
        "bench-trace",
        "bench-first-run",
        "bench-ui",
        "bench-memory",
        "bench",
        "install-desktop",
        "executor-serve",
    ]


@pytest.mark.parametrize("command", ["run", "trace"])
def test_every_size_of_every_family_has_its_flag(command):
    parser = subcommands(cli.build_parser())[command]
    for family, problem in FAMILIES.items():
        flags = []
        for name in problem.size_names:
            flags += [f"--{name.lower()}", "7"]
        args = parser.parse_args(["--family", family, *flags])
        assert selection.sizes_from_args(family, args) == dict.fromkeys(problem.size_names, 7)
        assert set(selection.session_conflicts(args)) == {
            "--family",
            *(f"--{name.lower()}" for name in problem.size_names),
        }


def test_a_new_family_brings_its_size_flags_without_a_cli_change(monkeypatch):
    blur = type("Blur", (Stencil,), {"family": "blur", "size_names": ("WIDTH", "HEIGHT", "R")})
    monkeypatch.setitem(FAMILIES, "blur", blur())
    run = subcommands(cli.build_parser())["run"]
    args = run.parse_args(["--family", "blur", "--size", "64", "--r", "3"])
    assert selection.sizes_from_args("blur", args) == {"WIDTH": 64, "HEIGHT": 64, "R": 3}
    assert "--r" in selection.session_conflicts(args)
    assert "(blur)" in run.format_help()
    with pytest.raises(selection.UsageError, match="--r is not a size of matmul"):
        selection.sizes_from_args("matmul", run.parse_args(["--r", "3"]))


def test_a_size_of_another_family_is_refused():
    run = subcommands(cli.build_parser())["run"]
    args = run.parse_args(["--family", "rowdot", "--variant", "fast", "--m", "8"])
    with pytest.raises(selection.UsageError, match="--m is not a size of rowdot"):
        selection.request_from_args(args, None)


@pytest.mark.usefixtures("fast_cli")
def test_trace_groups_and_refusals_keep_their_exit_codes():
    from tests.robustness.helpers import cli as explorer

    out = explorer("trace", "--family", "matmul", "--variant", "tiled", "--groups", "1,2,3,4")
    assert out.code == 2 and out.err.startswith("error: --groups")
    out = explorer(
        "trace", "--family", "matmul", "--variant", "seed003-func2", "--size", "100", "--json"
    )
    assert out.code == 3, out.err
    assert "16" in out.out


@pytest.mark.usefixtures("fast_cli")
def test_a_reference_that_cannot_be_computed_is_said_by_run_and_trace(tmp_path):
    import json

    from tests.robustness.helpers import cli as explorer

    shipped = Path(__file__).parents[1] / "kernels" / "custom" / "transpose_int.cl"
    kernel = tmp_path / "transpose.cl"
    kernel.write_text(shipped.read_text().replace('"src.T"', '"src.T @ dst"'))
    why = f"{kernel}: [reference] numpy for 'dst': 'src.T @ dst' fails"
    out = explorer("run", "--kernel-file", str(kernel), "--repeat", "1")
    assert out.code == 2 and out.out.startswith("RAN, NOT CHECKED"), out.out + out.err
    assert " kernel " in out.out and f"not checked: {why}" in out.out
    out = explorer("run", "--kernel-file", str(kernel), "--repeat", "1", "--json")
    record = json.loads(out.out)
    assert record["status"] == "unchecked" and record["kernel_ms_median"] is not None
    assert record["not_checked_reason"].startswith(why)
    out = explorer("trace", "--kernel-file", str(kernel), "--json")
    report = json.loads(out.out)
    assert out.code == 0 and report["complete"] and report["status"] == "unchecked"
    assert report["not_checked_reason"].startswith(why)
    out = explorer("trace", "--kernel-file", str(kernel))
    assert out.code == 0 and f"not checked: {why}" in out.out and "Findings: none" in out.out


def test_bench_trace_stops_at_a_case_that_did_not_run(monkeypatch, capsys):
    from explorer.cli import bench_trace

    def refused(device, **options):
        raise TraceBenchError(TraceCase("big", "matmul", "tiled", {}, "iou"), "refused", "no")
        yield  # a generator, as the benchmark is

    monkeypatch.setattr(bench_trace, "bench_trace", refused)
    assert cli.main(["bench-trace", "--json"]) == 3
    assert capsys.readouterr().err == "error: big: no\n"


def test_bench_ui_refuses_a_tiny_size_before_opening_a_window(capsys):
    assert cli.main(["bench-ui", "--size", "8"]) == 2
    assert capsys.readouterr().err.startswith("error: --size must be at least 16")


HELLO = '''"""``hello``: a command that is one file and nothing else."""

import argparse

from explorer.cli.command import Command
from explorer.engine.executor import Executor


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", required=True)


def run(args: argparse.Namespace, executor: Executor) -> int:
    print(f"hello {args.name}")
    return 3


COMMAND = Command("hello", "greet the room", add_arguments, run, order=99)
'''


def test_a_new_command_is_one_file_in_the_cli_package(tmp_path):
    """The README's "a command: explorer/cli/<command>.py exporting COMMAND": a copy of the
    package with one more file has one more command, in --help, parsed and dispatched, with the
    exit code it returns, and no other file changed."""
    package = Path(cli.__file__).resolve().parent.parent
    shutil.copytree(package, tmp_path / "explorer", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "explorer" / "cli" / "hello.py").write_text(HELLO, encoding="utf-8")

    def explorer(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "explorer", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
        )

    shown = explorer("--help")
    assert shown.returncode == 0, shown.stderr
    assert re.search(r"^\s+hello\s+greet the room$", shown.stdout, re.M), shown.stdout
    greeted = explorer("hello", "--name", "room")
    assert (greeted.returncode, greeted.stdout, greeted.stderr) == (3, "hello room\n", "")
    refused = explorer("hello")
    assert refused.returncode == 2
    assert "--name" in refused.stderr
    assert "hello" not in {c.name for c in cli.COMMANDS}  # the copy's, not this checkout's
