"""Launches of small buffers are read back behind the launch and kept later, in turns: the
capture holds the same as when each launch waited for its reads. Every launch keeps its
buffers, a write on another queue comes after the reads queued before it, a fork leaves the
child alone, and a disk that fills in the middle of a turn costs the later buffers, not the
run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from explorer.capture.bootstrap import PACK, recorder
from explorer.capture.folder import load_capture
from tests.capture.conftest import PROGRAMS, run_capture
from tests.capture.test_interruptions import _signal_when, launches_in
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")
ROOT = Path(__file__).resolve().parents[2]


def test_every_one_of_many_launches_keeps_its_buffers(on_device, tmp_path, capfd):
    outcome = cli("capture", str(tmp_path), "--", sys.executable, str(PROGRAMS / "many.py"), "300")
    assert outcome.code == 0
    assert capfd.readouterr().out == "sum 4800\n"
    capture = load_capture(tmp_path)
    assert len(capture.launches) == 300
    assert all(launch.data for launch in capture.launches)
    for launch in capture.launches[::7]:  # contents n - 1 before launch n, n after it
        arg = launch.args[0]
        assert np.load(capture.path(arg.before)).tolist() == [launch.number - 1] * 16
        assert np.load(capture.path(arg.after)).tolist() == [launch.number] * 16
        assert arg.changed
    # Each launch's contents before are the launch before's after: kept once each, packed.
    assert [launch.args[0].before for launch in capture.launches[1:]] == [
        launch.args[0].after for launch in capture.launches[:-1]
    ]
    assert len(capture.packed) == 301
    assert os.listdir(tmp_path / "data") == ["small.pack"]
    assert (tmp_path / PACK).stat().st_size == sum(length for _, length in capture.packed.values())


def test_a_write_on_another_queue_comes_after_the_reads_before_it(on_device, tmp_path, capfd):
    outcome = run_capture(tmp_path, "two_queues.py")
    assert outcome.code == 0
    assert capfd.readouterr().out == "[102, 102, 102, 102] 102 102\n"
    capture = load_capture(tmp_path)
    first, second = capture.launches
    for launch, before, after in ((first, 0, 1), (second, 100, 102)):
        arg = launch.args[0]
        assert np.unique(np.load(capture.path(arg.before))).tolist() == [before]
        assert np.unique(np.load(capture.path(arg.after))).tolist() == [after]


def test_a_fork_after_launches_leaves_the_child_alone(on_device, tmp_path, capfd):
    program = str(PROGRAMS / "fork_after.py")
    alone = subprocess.run([sys.executable, program], capture_output=True, text=True,
                           timeout=120, check=True)  # fmt: skip
    outcome = run_capture(tmp_path, "fork_after.py")
    assert outcome.code == 0
    # The child's exit code is the program's with its driver: 3 on PoCL; NVIDIA's driver
    # ends a forked child that used nothing of it with a segmentation fault (-11), alone too.
    assert capfd.readouterr().out == alone.stdout
    assert re.fullmatch(r"child (3|-11) sum 1280\n", alone.stdout), alone.stdout
    capture = load_capture(tmp_path)
    assert len(capture.launches) == 80 and all(launch.data for launch in capture.launches)
    last = capture.launches[-1].args[0]
    assert np.load(capture.path(last.after)).tolist() == [80] * 16


# The recorder in a process of its own, whose disk fills once the pack would hold more than
# FILES contents (192 bytes each: a .npy header and 16 int32).
FILLING = """
    import errno, sys
    import explorer
    from explorer.capture.bootstrap import recorder

    files = int(sys.argv[3])
    keep = recorder.Recorder._pack_file_write

    def pack_file_write(self, data, offset):
        if offset + len(data) > 192 * files:
            raise OSError(errno.ENOSPC, "No space left on device")
        keep(self, data, offset)

    recorder.Recorder._pack_file_write = pack_file_write
    sys.argv = [sys.argv[2], "200"]
    with explorer.capture(OUT):
        exec(open(sys.argv[0]).read())
"""


def test_a_disk_that_fills_during_a_turn_costs_the_later_buffers_not_the_run(on_device, tmp_path):
    code = textwrap.dedent(FILLING).replace("OUT", repr(str(tmp_path / "out")))
    done = subprocess.run(
        [sys.executable, "-c", code, "-", str(PROGRAMS / "many.py"), "100"],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "sum 3200\n"  # the program's own result, as alone
    capture = load_capture(tmp_path / "out")
    assert len(capture.launches) == 200
    # The pack takes launch 1's contents before, and launches 1 to 99's after (a turn keeps
    # at most 64 launches' contents, so the first turn's fit). The write that
    # would pass that (all a turn keeps, in one write) is refused whole: the first launch of
    # that turn to pack contents is listed without them, and every later one.
    kept = [launch.number for launch in capture.launches if launch.data]
    first = len(kept) + 1
    assert kept == list(range(1, first)) and 1 < first <= 100
    assert capture.launches[first - 1].why == (
        "its buffers could not be written (No space left on device)"
    )
    assert {launch.why for launch in capture.launches[first:]} == {
        f"the capture folder took no more buffers from launch {first} on"
    }
    assert all(a.before is None for launch in capture.launches[first - 1 :] for a in launch.args)
    named = {launch.args[0].before for launch in capture.launches[: first - 1]}
    named |= {launch.args[0].after for launch in capture.launches[: first - 1]}
    assert set(capture.packed) == named and len(named) == first
    assert (tmp_path / "out" / PACK).stat().st_size == 192 * first  # none left over
    assert os.listdir(tmp_path / "out" / "data") == ["small.pack"]
    for name in named:
        number = int(name[5:10])
        assert np.load(capture.path(name)).tolist() == [number - name.endswith("before.npy")] * 16
    assert any(f"launch {first} and later ones" in line for line in capture.lost)


def test_ctrl_c_keeps_every_launch_finished_once(on_device, tmp_path):
    # Many launches, interrupted once a few hundred are in the journal: the program ends by
    # its KeyboardInterrupt, and what it launched is kept, each launch listed once.
    folder = tmp_path / "out"
    thread = _signal_when(signal.SIGINT, lambda: launches_in(folder) >= 300)
    outcome = cli(
        "capture", str(folder), "--", sys.executable, str(PROGRAMS / "many.py"), "1000000"
    )
    thread.join()
    assert outcome.code == 128 + signal.SIGINT, outcome.err
    capture = load_capture(folder)
    assert len(capture.launches) >= 300 and all(launch.data for launch in capture.launches)
    last = capture.launches[-1]
    assert np.load(capture.path(last.args[0].after)).tolist() == [last.number] * 16


# The recorder in a process of its own, whose READ-th read back fails on the device.
FAILING_READ = """
    import os, sys, threading
    import explorer
    from explorer.capture.bootstrap import recorder

    reads, failing = [], int(sys.argv[3])
    read_back = recorder._read_back
    told = threading.Event()  # the program says when the failure may be seen
    if not os.environ.get("TOLD"):
        told.set()

    class Failed:
        def __init__(self, event):
            self.event = event

        def wait(self):
            told.wait(60)
            self.event.wait()
            raise RuntimeError("the device lost it")

        @property
        def command_execution_status(self):  # a copy into the staging buffer: asked, not waited
            self.wait()

    def counted(*args):
        snap = read_back(*args)
        reads.append(snap)
        if len(reads) == failing:
            snap.event = Failed(snap.event)
        return snap

    recorder._read_back = counted
    sys.argv = [sys.argv[2], *sys.argv[4:]]
    with explorer.capture(OUT):
        exec(open(sys.argv[0]).read())
"""
# Three launches of a kernel with a ``const`` argument, read once and known after; the
# recorder's ``told`` is set, and y filled, between the second and the third.
TWICE_SCALED = """
import numpy as np
import pyopencl as cl

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
source = \"\"\"
__kernel void scale(__global const int *x, __global int *y)
{
    y[get_global_id(0)] = 2 * x[get_global_id(0)];
}
\"\"\"
scale = cl.Program(context, source).build().scale
flags = cl.mem_flags
x = cl.Buffer(context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=np.arange(16, dtype=np.int32))
y = cl.Buffer(context, flags.READ_WRITE, 64)
scale(queue, (16,), None, x, y)
scale(queue, (16,), None, x, y)  # made before launch 1's failed read is seen
told.set()
cl.enqueue_fill_buffer(queue, y, np.int32(0), 0, 64)  # what was known of the buffers is not
scale(queue, (16,), None, x, y)
out = np.empty(16, np.int32)
cl.enqueue_copy(queue, out, y)
print(int(out.sum()))
"""


def failing_read(folder: Path, program: Path, read: int, *args: str, told: bool = False) -> str:
    """``program`` recorded into ``folder`` with its ``read``-th read back failing (once the
    program sets ``told``, where ``told``)."""
    code = textwrap.dedent(FAILING_READ).replace("OUT", repr(str(folder)))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TOLD": "1" if told else ""}
    done = subprocess.run(
        [sys.executable, "-c", code, "-", str(program), str(read), *args],
        env=env, capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_read_that_fails_costs_the_launches_it_stands_for(on_device, tmp_path):
    # The 10th read is launch 9's after (launch 1 reads before and after, the others after):
    # launch 9 and launch 10 (whose contents before are those) are listed without buffers.
    out = tmp_path / "out"
    assert failing_read(out, PROGRAMS / "many.py", 10, "30") == "sum 480\n"
    capture = load_capture(out)
    assert [launch.data for launch in capture.launches] == [True] * 8 + [False] * 2 + [True] * 20
    assert capture.launches[8].why == (
        "a buffer could not be read back after the launch: the device lost it"
    )
    assert capture.launches[9].why == (
        "a buffer could not be read back before the launch: the device lost it"
    )
    after = capture.launches[10].args[0]
    assert np.load(capture.path(after.before)).tolist() == [10] * 16
    assert not any(name.startswith("data/00009-") for name in capture.packed)
    assert os.listdir(out / "data") == ["small.pack"]


def test_contents_read_for_a_launch_not_kept_are_not_named_after_it(on_device, tmp_path):
    # Launch 1 reads x and y before it and y after it; that third read fails. x's file
    # (read for launch 1, const, so known for launch 2) is removed with launch 1's: launch 2
    # says so. Launch 3 comes after a fill, and reads both again.
    program = tmp_path / "scaled.py"
    program.write_text(TWICE_SCALED)
    done = failing_read(tmp_path / "out", program, 3, told=True)
    assert done == str(2 * sum(range(16))) + "\n"
    capture = load_capture(tmp_path / "out")
    first, second, third = capture.launches
    assert (first.data, second.data, third.data) == (False, False, True)
    assert first.why == "a buffer could not be read back after the launch: the device lost it"
    assert second.why == (
        "its buffers' contents before it are those launch 1 left, which were not kept "
        "(a buffer could not be read back after the launch: the device lost it)"
    )
    assert np.load(capture.path(third.args[0].before)).tolist() == list(range(16))


# The recorder in a process of its own, whose journal cannot take the first write that holds
# a launch past the first LAUNCHES (a write holds at most recorder.LINES lines, so those
# before it were written).
JOURNAL_FILLS = """
    import errno, json, sys
    import explorer
    from explorer.capture.bootstrap import recorder

    launches = int(sys.argv[3])
    flush = recorder.Recorder._flush_locked

    def numbers(lines):
        return [json.loads(line).get("number", 0) for line in lines]

    def limited(self):
        if self._unwritten and max(numbers(self._unwritten)) > launches:
            raise OSError(errno.ENOSPC, "No space left on device")
        flush(self)

    recorder.Recorder._flush_locked = limited
    sys.argv = [sys.argv[2], "200"]
    with explorer.capture(OUT):
        exec(open(sys.argv[0]).read())
"""


def test_a_journal_that_fills_during_a_turn_stops_the_record_not_the_run(on_device, tmp_path):
    # The journal fills once the program is 100 launches in, whenever the recorder's turns
    # come (a busy machine makes fewer, longer ones).
    code = textwrap.dedent(JOURNAL_FILLS).replace("OUT", repr(str(tmp_path / "out")))
    done = subprocess.run(
        [sys.executable, "-c", code, "-", str(PROGRAMS / "many.py"), "100"],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "sum 3200\n"
    capture = load_capture(tmp_path / "out")
    listed = [launch.number for launch in capture.launches]
    assert listed == list(range(1, len(listed) + 1))
    assert 100 - recorder.LINES < len(listed) <= 100
    assert all(launch.data for launch in capture.launches)
    assert any(
        "the journal could not be written (No space left on device)" in line
        for line in capture.lost
    ), capture.lost
