"""Every way pyopencl takes a launch is recorded, the program's output the same as without
capture, and each launch replays matching the original run; the private pyopencl functions
the recorder wraps, and the versions it knows, are pinned here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyopencl as cl
import pyopencl._cl as _cl
import pytest
from packaging.version import Version

from explorer.capture.bootstrap import recorder as rec
from explorer.capture.folder import load_capture
from packaging.requirements import Requirement
from tests.capture.conftest import PROGRAMS, run_capture
from tests.robustness.helpers import cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published as tomli
    import tomli as tomllib

pytestmark = pytest.mark.usefixtures("fast_cli")
ROOT = Path(__file__).resolve().parents[2]


def test_each_launch_form_is_recorded_with_the_programs_output_unchanged(
    on_device, tmp_path, capfd
):
    program = str(PROGRAMS / "launch_forms.py")
    plain = subprocess.run(
        [sys.executable, program],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=True,
        timeout=120,
    )
    outcome = run_capture(tmp_path, "launch_forms.py")
    printed = capfd.readouterr()
    assert outcome.code == 0, outcome.err
    assert printed.out == plain.stdout
    assert "Traceback" not in printed.err
    capture = load_capture(tmp_path)
    forms = [(launch.kernel, launch.global_size, launch.local_size, launch.offset)
             for launch in capture.launches]  # fmt: skip
    assert forms[:8] == [
        ("affine", (64,), (16,), None),  # kernel(queue, g, l, *args)
        ("affine", (64,), None, None),  # kernel.__call__, the driver's local size
        ("affine", (64,), (16,), (0,)),  # global_offset=, wait_for=, g_times_l=False
        ("affine", (64,), (16,), None),  # g_times_l=True: 4 groups of 16
        ("affine", (64,), (8,), None),  # declared scalar types
        ("affine", (64,), (16,), None),  # enqueue_nd_range_kernel by position
        ("affine", (64,), (32,), (0,)),  # enqueue_nd_range_kernel by keyword
        ("affine", (56,), None, (8,)),  # a global offset by position
    ]
    scalars = [launch.args[2].value for launch in capture.launches[:8]]
    assert scalars == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    assert capture.launches[8].program != capture.launches[0].program  # pyopencl.array's
    assert all(launch.data for launch in capture.launches)
    for launch in capture.launches:
        replayed = cli("run", "--capture", str(tmp_path), "--launch", str(launch.number),
                       "--repeat", "1")  # fmt: skip
        if launch.offset and any(launch.offset):
            assert replayed.code == 2 and "with a global offset 8" in replayed.err
            continue
        assert replayed.code == 0, replayed.out + replayed.err
        assert "matches the original run" in replayed.out


# The private names of pyopencl the recorder wraps: a change to them is a change of what a
# capture depends on in pyopencl, made here too on purpose.
PINNED = {
    "pyopencl.Program": ("build",),
    "pyopencl._cl.Kernel": (
        "set_arg", "_set_arg_multi", "_set_arg_buf_multi", "_set_arg_buf_pack_multi", "clone",
    ),
    "pyopencl._cl": ("enqueue_nd_range_kernel",),
    "pyopencl": ("enqueue_nd_range_kernel",),
}  # fmt: skip
OWNERS = {"pyopencl.Program": cl.Program, "pyopencl._cl.Kernel": _cl.Kernel,
          "pyopencl._cl": _cl, "pyopencl": cl}  # fmt: skip


def test_the_wrapped_private_functions_exist_in_this_pyopencl():
    assert rec.WRAPPED == PINNED
    for owner, names in rec.WRAPPED.items():
        for name in names:
            assert callable(getattr(OWNERS[owner], name, None)), f"{owner}.{name}"
    assert cl.enqueue_nd_range_kernel is _cl.enqueue_nd_range_kernel
    assert rec.version_note(cl.VERSION) == ""  # the installed version is one it knows
    assert rec.KNOWN_VERSIONS == ((2022, 1), (2026, 1))


def test_the_recorder_wraps_the_pinned_names_and_puts_them_back(tmp_path, capfd):
    """Besides the pinned names it wraps only pyopencl's ``enqueue`` functions (to know when a
    buffer may have changed)."""

    def functions() -> dict[tuple[str, str], object]:
        return {
            (owner, name): getattr(o, name)
            for owner, o in OWNERS.items()
            for name in dir(o)
            if not name.startswith("__")
        }

    before = functions()
    recorder = rec.Recorder(tmp_path)
    try:
        recorder.patch(cl)
        during = functions()
    finally:
        recorder.unpatch()
    assert functions() == before
    changed = {key for key, f in during.items() if f != before.get(key)}
    pinned = {(owner, name) for owner, names in PINNED.items() for name in names}
    assert pinned <= changed
    assert all("enqueue" in name for _, name in changed - pinned)
    assert capfd.readouterr().err == ""  # nothing to say of this pyopencl


def test_the_dependency_allows_only_the_versions_the_recorder_knows():
    """The explorer's own pyopencl stays in the range the recorder was made for (a program
    under capture may bring another: it is recorded where it can be, and told so)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = [Requirement(d) for d in config["project"]["dependencies"]]
    (pyopencl,) = [r for r in wanted if r.name == "pyopencl"]
    (low, high) = rec.KNOWN_VERSIONS
    assert {s.operator for s in pyopencl.specifier} == {">=", "<"}
    assert all(
        Version(s.version) >= Version(f"{low[0]}.{low[1]}")
        for s in pyopencl.specifier
        if s.operator == ">="
    )
    assert [s.version for s in pyopencl.specifier if s.operator == "<"] == [
        f"{high[0]}.{high[1] + 1}"
    ]
    assert cl.VERSION_TEXT in pyopencl.specifier  # the one installed here


def test_an_unknown_version_is_described():
    # Said once and recorded all the same: test_inprocess.py runs a program under it.
    note = rec.version_note((2031, 2))
    assert "pyopencl 2031.2 is not one the recorder knows (2022.1 to 2026.1)" in note
    assert "pyopencl 'odd' is not one" in rec.version_note("odd")


def test_launch_parts_takes_positions_keywords_and_old_names():
    q, k = object(), object()
    assert rec.launch_parts((q, k, (8,), (4,)), {}) == (q, k, (8,), (4,), None, None, False)
    assert rec.launch_parts((q, k, (8,), None, (2,), None, True, False), {}) == (
        q, k, (8,), None, (2,), None, True)  # fmt: skip
    assert rec.launch_parts(
        (q, k), {"global_work_size": (8,), "local_work_size": None, "global_offset": (1,),
                 "wait_for": [], "g_times_l": 1}) == (q, k, (8,), None, (1,), [], True)  # fmt: skip
    assert rec.launch_parts((q, k, (8,)), {"global_work_size": (8,)}) is None  # given twice
    assert rec.launch_parts((q, k, (8,), None), {"mystery": 1}) is None
    assert rec.launch_parts((q,), {}) is None
