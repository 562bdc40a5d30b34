"""A launch of a kernel that takes no arguments replays (there is nothing to judge) and
traces; a header may declare such a kernel with an empty [args] table."""

from __future__ import annotations

import pytest

from explorer.capture.folder import load_capture
from explorer.capture.replay import launch_variant
from tests.capture.conftest import PROGRAMS
from tests.capture.test_inprocess import python
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


def test_a_program_built_without_argument_info_replays_built_as_it_was(on_device, tmp_path):
    """The recorder builds every program with kernel argument info, and keeps the program's
    own build where that one fails: NVIDIA's compiler fails on a kernel without parameters
    with ``-cl-kernel-arg-info`` ("ptxas ... Parsing error near '}'"), though the same source
    builds without it. The replay built it with the option anyway, and failed on NVIDIA. Here
    a driver that refuses the option for that source is played by the build the recorder
    wraps: the capture says the program was built without it, and the replay builds it so."""
    done = python(
        """
        import sys
        import pyopencl as cl
        import explorer

        build = cl.Program.build

        def refuses_argument_info(program, options=None, *args, **kwargs):
            if "-cl-kernel-arg-info" in (options or []) and "(void)" in program._source:
                raise cl.RuntimeError("ptxas fatal : Ptx assembly aborted due to errors")
            return build(program, options, *args, **kwargs)

        cl.Program.build = refuses_argument_info
        with explorer.capture(sys.argv[1]):
            exec(open(sys.argv[2]).read())
        """,
        str(tmp_path),
        str(PROGRAMS / "no_arguments.py"),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "16\n"
    capture = load_capture(tmp_path)
    (program,) = capture.programs
    assert program.arg_info is False
    assert "-cl-kernel-arg-info" not in launch_variant(capture, "empty#2").build_options
    ran = cli("run", "--capture", str(tmp_path), "--launch", "ones", "--repeat", "1")
    assert ran.code == 0 and "matches the original run" in ran.out, ran.out + ran.err


def test_a_program_built_with_argument_info_replays_with_it(captured):
    capture = captured("pipeline.py")  # kernels that all take parameters
    assert capture.programs and all(program.arg_info for program in capture.programs)
    for launch in capture.launches:
        assert "-cl-kernel-arg-info" in launch_variant(capture, launch).build_options
