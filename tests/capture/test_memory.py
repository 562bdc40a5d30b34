"""A large buffer costs the recorded program a piece of memory, not the buffer again: its
contents are read back and written in pieces; and a launch past the size bound is listed
without its buffers, reading nothing back."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer.capture.folder import load_capture
from tests.capture.conftest import PROGRAMS
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")
MIB = 64


def peak_kib(err: str) -> int:
    return int(re.search(r"^peak (\d+)$", err, re.M).group(1))  # type: ignore[union-attr]


def test_a_large_buffer_is_kept_with_memory_near_one_piece(on_device, tmp_path, capfd):
    alone = subprocess.run([sys.executable, str(PROGRAMS / "big.py"), str(MIB)],
                           capture_output=True, text=True, env=dict(os.environ), check=True,
                           timeout=120)  # fmt: skip
    big = str(PROGRAMS / "big.py")
    outcome = cli("capture", str(tmp_path), "--", sys.executable, big, str(MIB))
    printed = capfd.readouterr()
    assert outcome.code == 0, outcome.err
    assert printed.out == alone.stdout
    grown = peak_kib(printed.err) - peak_kib(alone.stderr)
    # Read whole, the buffer before and after it would add at least 2 x 64 MiB.
    assert grown < (MIB // 4) << 10, f"capture grew the program by {grown} KiB"
    capture = load_capture(tmp_path)
    launch = capture.launches[0]
    assert launch.data
    before = np.load(capture.path(launch.args[0].before), mmap_mode="r")
    after = np.load(capture.path(launch.args[0].after), mmap_mode="r")
    assert before.shape == (MIB << 18,) and launch.args[0].changed
    assert int(before[123_457]) == 123_457 % 1000 and int(after[123_457]) == 1 + 123_457 % 1000


def test_a_buffer_past_the_bound_is_listed_without_it(on_device, tmp_path, capfd):
    big = str(PROGRAMS / "big.py")
    outcome = cli("capture", str(tmp_path), "--max-mb", "3", "--", sys.executable, big, "4")
    capfd.readouterr()
    assert outcome.code == 0, outcome.err
    launch = load_capture(tmp_path).launches[0]
    assert not launch.data
    assert launch.why.startswith("its buffers' 4.0 MiB would pass --max-mb (3.0 MiB")
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())


def test_large_buffers_a_launch_left_as_they_were_name_their_file_before_it(
    on_device, tmp_path, capfd
):
    """A large buffer the kernel may write but did not (declared without const) is kept once:
    its contents after the launch are the file before it, unchanged; one changed in its last
    byte only is kept again whole, as it was left."""
    program = str(PROGRAMS / "big_inputs.py")
    outcome = cli("capture", str(tmp_path), "--", sys.executable, program)
    printed = capfd.readouterr()
    assert outcome.code == 0, outcome.err
    assert printed.out == "tails 650\n"  # 460 + 3 + 1, and 180 + 5 + 1
    capture = load_capture(tmp_path)
    launch = capture.launches[0]
    assert launch.data
    same, tail, mid, last = launch.args[:4]
    for arg in (same, mid):
        assert arg.after == arg.before and not arg.changed, arg.name
    for arg, count, modulo, value in ((tail, 5 << 20, 777, 464), (last, 1 << 20, 555, 186)):
        assert arg.changed and arg.after != arg.before, arg.name
        before = np.load(capture.path(arg.before), mmap_mode="r")
        after = np.load(capture.path(arg.after), mmap_mode="r")
        expected = np.arange(count, dtype=np.int32) % modulo
        assert np.array_equal(before, expected)
        expected[-1] = value
        assert np.array_equal(after, expected)
    kept = sorted(p.name for p in (tmp_path / "data").iterdir())
    assert kept == sorted(
        Path(capture.path(name)).name
        for name in {a.before for a in (same, tail, mid, last)} | {tail.after, last.after}
    )


def test_large_contents_of_the_same_crc_are_kept_apart_and_the_same_kept_once(
    on_device, tmp_path, capfd
):
    """Contents in files of their own are compared with the files kept of their type, size
    and CRC-32: a buffer of other contents with the same CRC-32 as one kept is kept in a
    file of its own, and a copy of it names the file it is in; read a piece at a time (9
    MiB) and read whole (2 MiB)."""
    program = str(PROGRAMS / "big_crc.py")
    outcome = cli("capture", str(tmp_path), "--", sys.executable, program)
    printed = capfd.readouterr()
    assert outcome.code == 0, outcome.err
    lines = printed.out.split()
    assert len(lines) == 6 and len(set(lines[:3])) == 1 and len(set(lines[3:])) == 1
    capture = load_capture(tmp_path)
    named: set[str] = set()
    for launch, mib in zip(capture.launches, (9, 2), strict=True):
        assert launch.data
        a, b, c = launch.args
        assert a.before != b.before and c.before == a.before
        a_values = (np.arange(mib << 20) % 251).astype(np.uint8)
        b_values = np.load(capture.path(b.before))
        assert np.array_equal(np.load(capture.path(a.before)), a_values)
        assert np.array_equal(b_values[:1000], a_values[:1000] + 1)
        assert np.array_equal(b_values[1000:-4], a_values[1000:-4])
        for arg in (a, b, c):
            assert arg.after == arg.before and not arg.changed
        named |= {a.before, b.before}
    kept = sorted(p.name for p in (tmp_path / "data").iterdir())
    assert kept == sorted(Path(capture.path(name)).name for name in named)
