"""Oclgrind as a second opinion, and never as the default device."""

import os

import pytest

from explorer.engine import calls
from explorer.engine.executor import Executor
from explorer.engine.header.catalog import find_variant
from explorer.engine.launch.devices import default_device
from explorer.engine.record.oclgrind import CHECK_ENV, check, find_oclgrind, parse
from explorer.engine.records import DeviceInfo, RunRequest
from explorer.engine.second_opinion import run_check

SAMPLE = """
Read-write data race at local memory address 0x1000000000004
\tKernel: k
\t
\tFirst entity:  Global(1,0,0) Local(1,0,0) Group(0,0,0)
\t  store volatile float %a, float addrspace(3)* %b
\tAt line 55 (column 16) of input.cl:
\t  (source not available)
\t

Uninitialized value read from private memory address 0x0
\tKernel: k
\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)
\tAt line 7 (column 3) of input.cl:
"""


def test_parse_reads_kind_line_and_work_item():
    messages = parse(SAMPLE)
    assert [(m.kind, m.line) for m in messages] == [
        ("Read-write data race", 55),
        ("Uninitialized value read", 7),
    ]
    assert messages[0].entity.startswith("Global(1,0,0)")


def test_a_message_quotes_the_line_it_names_through_line_directives():
    """Oclgrind names line 3 as `#line 1` gives it, but quotes line 3 of the text it was
    given (the header's end): the message quotes the kernel's line 3."""
    source = '/*---\nname = "k"\n---*/\n#line 1\n__kernel void k(__global float *x)\n{\n'
    source += "    x[0] = 1.0f;\n}\n"
    said = (
        "Uninitialized value written to global memory address 0x0\n\tKernel: k\n"
        "\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
        "\tAt line 3 (column 5) of input.cl:\n\t  ---*/\n"
    )
    assert parse(said)[0].text.endswith("\t  ---*/")  # as Oclgrind quotes it
    (message,) = parse(said, source)
    assert message.line == 3 and message.text.endswith(
        "\tAt line 3 (column 5) of input.cl:\n\t  x[0] = 1.0f;"
    )


def _device(platform, kind):
    return DeviceInfo(0, 0, "d", "v", platform, kind, "", "", 1, 1, (1,), 1, 1, 1, 1, 1)


def test_a_simulator_is_never_the_default():
    sim = _device("Oclgrind", "ACCELERATOR | CPU | DEFAULT | GPU")
    cpu = _device("Portable Computing Language", "CPU")
    assert default_device([sim, cpu]) is cpu


def test_oclgrind_finds_the_warp_synchronous_race():
    with Executor(env=CHECK_ENV) as executor:
        device = find_oclgrind(executor.devices())
        if device is None:
            pytest.skip('Oclgrind is not installed (pip install "pyopencl[oclgrind]")')
        racy = executor.call(
            check,
            RunRequest(
                find_variant("matvec", "nvidia-coalesced3"),
                {"WIDTH": 64, "HEIGHT": 2},
                device_key=device.key,
            ),
        )
        clean = executor.call(
            check,
            RunRequest(
                find_variant("matvec", "nvidia-coalesced2"),
                {"WIDTH": 64, "HEIGHT": 2},
                device_key=device.key,
            ),
        )
    assert any("data race" in m.kind for m in racy.messages)
    assert not clean.messages and "no race" in clean.verdict


def _oclgrind_device(executor):
    device = find_oclgrind(executor.devices())
    if device is None:
        pytest.skip('Oclgrind is not installed (pip install "pyopencl[oclgrind]")')
    return device


def test_each_problem_is_reported_once():
    """One launch: a race at one address is one message, not one per launch."""
    with Executor(env=CHECK_ENV) as executor:
        device = _oclgrind_device(executor)
        request = RunRequest(
            find_variant("matvec", "nvidia-coalesced3"),
            {"WIDTH": 64, "HEIGHT": 2},
            device_key=device.key,
        )
        outcome = run_check(executor, request)
    assert outcome.messages
    blocks = [m.text for m in outcome.messages]
    assert len(blocks) == len(set(blocks))
    assert outcome.result.status == "wrong" and not outcome.crashed


def plugin_crash(request, log_path):
    """Stands in for :func:`check` when an Oclgrind plugin aborts the process mid-run."""
    with open(log_path, "w") as log:
        log.write("Oclgrind: internal error in plugin Uninitialized\n")
    os.abort()


calls.allow(plugin_crash)


def test_a_crash_during_the_check_is_oclgrinds_not_the_kernels():
    with Executor(env=CHECK_ENV) as executor:
        request = RunRequest(find_variant("matvec", "nvidia-coalesced2"), {"WIDTH": 64})
        outcome = run_check(executor, request, plugin_crash)
    assert outcome.crashed
    assert outcome.result.error_kind == "oclgrind"
    assert "Oclgrind itself crashed" in outcome.verdict and "not of your kernel" in outcome.verdict
    assert "internal error in plugin Uninitialized" in outcome.verdict
