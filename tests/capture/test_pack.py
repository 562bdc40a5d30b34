"""The pack: small contents appended to ``data/small.pack``, each a whole ``.npy`` image, with
each launch naming where the contents it was the first to keep lie (``packed``). Read back as
any file of a capture is: a torn pack, a cut journal and a crafted index are refused or
dropped, naming what is wrong, never read past the pack or outside the folder."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from explorer.capture.bootstrap import JOURNAL, PACK
from explorer.capture.folder import CaptureError, load_capture
from tests.capture.conftest import PROGRAMS, run_capture
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")

# A kernel that leaves its buffer as it found it, launched five times, then one that changes
# it, launched twice.
SAME = """
import numpy as np
import pyopencl as cl

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, \"\"\"
__kernel void keep(__global int *v) { v[get_global_id(0)] = v[get_global_id(0)]; }
__kernel void inc(__global int *v) { v[get_global_id(0)] += 1; }
\"\"\").build()
values = np.arange(16, dtype=np.int32)
buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=values)
for _ in range(5):
    program.keep(queue, (16,), None, buffer)
for _ in range(2):
    program.inc(queue, (16,), None, buffer)
cl.enqueue_copy(queue, values, buffer)
print(int(values.sum()))
"""


@pytest.fixture(scope="module")
def same(on_device, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("same")
    (folder / "same.py").write_text(SAME)
    outcome = cli("capture", str(folder / "out"), "--", sys.executable, str(folder / "same.py"))
    assert outcome.code == 0, outcome.err
    return folder / "out"


def test_contents_are_packed_and_read_back_as_recorded(captured):
    capture = captured("pipeline.py")
    document = json.loads((capture.folder / "capture.json").read_text())
    assert document["version"] == 2
    assert os.listdir(capture.folder / "data") == ["small.pack"]
    pack = (capture.folder / PACK).read_bytes()
    # Readable without the explorer: each launch's packed says where a whole .npy image lies.
    places = {
        name: place
        for launch in document["launches"]
        for name, place in launch.get("packed", {}).items()
    }
    assert places and places == {name: list(p) for name, p in capture.packed.items()}
    assert sum(length for _, length in places.values()) == len(pack)  # one after another
    for launch in capture.launches:
        assert launch.data
        for arg in launch.args:
            if not arg.has_contents:
                continue
            for name in (arg.before, arg.after):
                offset, length = places[name]
                alone = np.load(io.BytesIO(pack[offset : offset + length]), allow_pickle=False)
                assert np.load(capture.path(name)).tobytes() == alone.tobytes()
                assert alone.dtype == np.dtype(arg.dtype) and alone.nbytes == arg.nbytes
    relax = capture.find("relax#3")
    outcome = cli("run", "--capture", str(capture.folder), "--launch", "relax#3", "--repeat", "1")
    assert outcome.code == 0 and "VERIFIED" in outcome.out, outcome.out + outcome.err
    assert relax.args[1].after in capture.packed


def test_identical_contents_are_packed_once(same):
    capture = load_capture(same)
    keeps = [launch for launch in capture.launches if launch.kernel == "keep"]
    incs = [launch for launch in capture.launches if launch.kernel == "inc"]
    assert len(keeps) == 5 and len(incs) == 2
    first = keeps[0].args[0].before
    assert {a.args[0].before for a in keeps} == {a.args[0].after for a in keeps} == {first}
    assert not any(launch.args[0].changed for launch in keeps)
    assert all(launch.args[0].changed for launch in incs)
    # One contents for the five launches that left it alone, one after each inc.
    assert len(capture.packed) == 3
    assert (same / PACK).stat().st_size == 3 * 192
    assert np.load(capture.path(incs[1].args[0].after)).tolist() == list(range(2, 18))


def _copy(capture_folder: Path, folder: Path) -> Path:
    shutil.copytree(capture_folder, folder)
    return folder


def test_a_torn_pack_refuses_the_launches_it_cut_and_keeps_the_others(captured, tmp_path):
    folder = _copy(captured("pipeline.py").folder, tmp_path / "torn")
    capture = load_capture(folder)
    last = capture.launches[-1]
    offset, length = capture.packed[last.args[1].after]
    assert offset + length == (folder / PACK).stat().st_size  # the last contents packed
    os.truncate(folder / PACK, offset + length - 10)
    capture = load_capture(folder)  # the document is read as it is; the pack when used
    with pytest.raises(CaptureError, match=r"small.pack holds \d+ bytes \(it was cut short"):
        capture.path(last.args[1].after)
    refused = cli("run", "--capture", str(folder), "--launch", str(last.number), "--repeat", "1")
    assert refused.code == 2 and "small.pack holds" in refused.err, refused.err
    assert "Traceback" not in refused.err
    first = cli("run", "--capture", str(folder), "--launch", "1", "--repeat", "1")
    assert first.code == 0 and "VERIFIED" in first.out, first.out + first.err


# The program killed once some launches are in its journal: SIGKILL leaves the journal (no
# capture.json) and a pack that may hold more than the journal names.
KILLED = """
    import os, signal, sys
    import numpy as np
    import pyopencl as cl
    import explorer

    with explorer.capture(sys.argv[1]):
        context = cl.create_some_context(interactive=False)
        queue = cl.CommandQueue(context)
        source = "__kernel void inc(__global int *v) { v[get_global_id(0)] += 1; }"
        inc = cl.Program(context, source).build().inc
        values = np.zeros(16, np.int32)
        flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
        buffer = cl.Buffer(context, flags, hostbuf=values)
        for _ in range(500):
            inc(queue, (16,), None, buffer)
        os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_program_killed_leaves_a_journal_and_pack_that_read_back(on_device, tmp_path):
    import subprocess

    folder = tmp_path / "killed"
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(KILLED), str(folder)],
        env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == -9
    assert not (folder / "capture.json").exists() and (folder / JOURNAL).exists()
    # A line cut as the kill came, and bytes packed that no line names.
    with open(folder / JOURNAL, "ab") as journal:
        journal.write(b'{"type": "launch", "number": 100000, "kernel": "in')
    with open(folder / PACK, "ab") as pack:
        pack.write(b"\x93NUMPY torn")
    capture = load_capture(folder)
    assert capture.document.endswith(JOURNAL)
    assert any("cut short" in line for line in capture.lost)
    assert len(capture.launches) >= 400  # those of the last turns may be lost
    assert [launch.number for launch in capture.launches] == list(
        range(1, len(capture.launches) + 1)
    )
    assert all(launch.data for launch in capture.launches)
    last = capture.launches[-1]
    assert np.load(capture.path(last.args[0].after)).tolist() == [last.number] * 16
    assert np.load(capture.path(last.args[0].before)).tolist() == [last.number - 1] * 16


def _crafted(capture_folder: Path, folder: Path, change: Any) -> Path:
    """A copy of the capture whose first launch's ``packed`` (its capture.json) is changed."""
    _copy(capture_folder, folder)
    document = json.loads((folder / "capture.json").read_text())
    change(document["launches"][0], folder)
    (folder / "capture.json").write_text(json.dumps(document))
    return folder


def _place(name_index: int, place: Any):
    def change(launch: dict[str, Any], folder: Path) -> None:
        name = sorted(launch["packed"])[name_index]
        launch["packed"][name] = place

    return change


def _named(old_index: int, new: str, refer: bool = True):
    """The packed name ``old_index`` of launch 1 renamed ``new`` (and its arguments naming it,
    where ``refer``)."""

    def change(launch: dict[str, Any], folder: Path) -> None:
        name = sorted(launch["packed"])[old_index]
        launch["packed"][new] = launch["packed"].pop(name)
        for arg in launch["args"]:
            for key in ("before", "after"):
                if refer and arg.get(key) == name:
                    arg[key] = new

    return change


def _elsewhere(launch: dict[str, Any], folder: Path) -> None:
    """Launch 1's first contents said to lie where another launch's (of another size) lie."""
    document = json.loads((folder / "capture.json").read_text())
    places = [p for other in document["launches"][1:] for p in other.get("packed", {}).values()]
    mine = launch["packed"]
    other = next(p for p in places if p[1] != next(iter(mine.values()))[1])
    mine[sorted(mine)[0]] = other


def _pack_is(make):
    def change(launch: dict[str, Any], folder: Path) -> None:
        (folder / PACK).unlink()
        make(folder / PACK, folder)

    return change


def _link_out(path: Path, folder: Path) -> None:
    outside = folder.parent / "outside.pack"
    shutil.copyfile(folder.parent / "template.pack", outside)
    path.symlink_to(outside)


CRAFTED = {
    "offset past the end": (_place(0, [1 << 40, 192]), "small.pack holds"),
    "offset negative": (_place(0, [-192, 192]), "\\[0\\]: expected a whole number of at least 0"),
    "length huge": (_place(0, [0, 1 << 40]), "\\[1\\]: expected a whole number of at most 1048576"),
    "length zero": (_place(0, [0, 0]), "\\[1\\]: expected a whole number of at least 1"),
    "offset text": (_place(0, ["0", 192]), "\\[0\\]: expected a whole number, found text"),
    "offset true": (_place(0, [True, 192]), "\\[0\\]: expected a whole number, found true"),
    "three numbers": (_place(0, [0, 192, 3]), "expected at most 2 items"),
    "one number": (_place(0, [0]), "expected \\[offset, length\\], found 1 numbers"),
    "not a list": (_place(0, {"offset": 0}), "expected a list, found a map"),
    "packed a list": (
        lambda launch, folder: launch.update(packed=[["data/x.npy", 0, 192]]),
        "packed: expected a map of file names to \\[offset, length\\]",
    ),
    "name climbs out": (
        _named(0, "data/../../outside/secret.npy"),
        "expected a name data/NAME.npy",
    ),
    "name absolute": (_named(0, "/etc/passwd.npy"), "expected a name data/NAME.npy"),
    "name deeper": (_named(0, "data/sub/x.npy"), "expected a name data/NAME.npy"),
    "name not npy": (_named(0, "data/x.txt"), "expected a name data/NAME.npy"),
    "name elsewhere": (_named(0, "programs/0.npy"), "expected a name data/NAME.npy"),
    "the wrong bytes": (_place(0, [1, 192]), "not a readable .npy array"),
    "another's contents": (
        _elsewhere,
        ("holds float32 values of shape \\(4,\\)", "says float32 values of shape \\(100,\\)"),
    ),
    "pack missing": (_pack_is(lambda path, folder: None), "small.pack cannot be read"),
    "pack a folder": (_pack_is(lambda path, folder: path.mkdir()), "small.pack"),
    "pack a fifo": (
        _pack_is(lambda path, folder: os.mkfifo(path)),
        "small.pack is not a regular file",
    ),
    "pack a link out": (_pack_is(_link_out), "leads out of the folder through a symbolic link"),
}


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_a_crafted_index_is_refused_naming_what_is_wrong(captured, tmp_path, case):
    change, says = CRAFTED[case]
    source = captured("pipeline.py").folder
    shutil.copyfile(source / PACK, tmp_path / "template.pack")
    outside = tmp_path / "outside.pack"
    folder = _crafted(source, tmp_path / "case", change)
    if outside.exists():  # its access time set old (before its change), to see a read
        os.utime(outside, (1_000_000_000, 2_000_000_000))
    outcome = cli("run", "--capture", str(folder), "--launch", "1", "--repeat", "1")
    message = outcome.out + outcome.err
    assert outcome.code == 2, message
    for said in (says,) if isinstance(says, str) else says:
        assert re.search(said, message), message
    assert "Traceback" not in message
    if outside.exists():  # a pack that is a link out is never opened
        assert outside.stat().st_atime == 1_000_000_000


def test_nothing_is_unpacked_inside_the_capture(captured, tmp_path):
    folder = _copy(captured("pipeline.py").folder, tmp_path / "copy")
    before = sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
    capture = load_capture(folder)
    for name in capture.packed:
        path = capture.path(name)
        assert folder not in path.parents
        np.load(path)
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) == before


def test_recording_again_replaces_the_pack(captured, tmp_path):
    folder = _copy(captured("pipeline.py").folder, tmp_path / "again")
    outcome = run_capture(folder, "bfs.py")
    assert outcome.code == 0, outcome.err
    capture = load_capture(folder)
    assert {launch.kernel for launch in capture.launches} != {"scale", "relax"}
    for name in capture.packed:
        np.load(capture.path(name))


# Each launch's line made from its kernel's plan (or, for a launch recorded in a few steps,
# from the JSON its plan keeps for its sizes) is the very JSON the entry makes, for every kind
# of argument the programs pass (buffers, sub-buffers, scalars, __local, images).
LINES = """
    import json, os, runpy, sys
    import explorer
    from explorer.capture.bootstrap import recorder

    made, whole = [], []
    line = recorder._line

    def checked(entry, plan):
        text = line(entry, plan)
        (whole if text is None else made).append(text)
        if text is not None and text != recorder._encode(entry):
            sys.exit(f"a line unlike its entry: {text} against {recorder._encode(entry)}")
        return text

    recorder._line = checked
    append = recorder.Recorder._append

    def appended(self, data, entry, later):
        if type(entry) is tuple:  # a line of a launch recorded in a few steps
            made.append(data)
            expected = recorder._encode(self._quick_entry(*entry)) + "\\n"
            if data.decode() != expected:
                sys.exit(f"a line unlike its entry: {data.decode()} against {expected}")
        return append(self, data, entry, later)

    recorder.Recorder._append = appended
    journal_lines = recorder.Recorder._journal_lines

    def journaled(self, out):  # the lines of a turn's launches recorded in a few steps
        for data, entry, _ in out:
            made.append(data)
            expected = recorder._encode(self._quick_entry(*entry)) + "\\n"
            if data.decode() != expected:
                sys.exit(f"a line unlike its entry: {data.decode()} against {expected}")
        return journal_lines(self, out)

    recorder.Recorder._journal_lines = journaled
    for program in sys.argv[2:]:
        sys.argv = [program, "40"] if program.endswith("many.py") else [program]
        os.chdir(os.path.dirname(program))
        with explorer.capture(os.path.join(OUT, os.path.basename(program))):
            runpy.run_path(program, run_name="__main__")
    print(len(made), len(whole), file=sys.stderr)
"""


def test_a_line_made_from_the_plan_is_the_entry_s_own_json(on_device, tmp_path):
    import subprocess

    programs = [
        PROGRAMS / name
        for name in ("many.py", "pipeline.py", "arrays.py", "launch_forms.py", "images.py",
                     "aliasing.py", "ulong_and_text.py", "numpy_sizes.py")
    ]  # fmt: skip
    code = textwrap.dedent(LINES).replace("OUT", repr(str(tmp_path)))
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path), *map(str, programs)],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    made, whole = (int(n) for n in done.stderr.split()[-2:])
    assert made >= 60 and whole == 0, done.stderr[-3000:]


# Programs recorded as they are and with every launch taking the whole way (the quick way
# refused): each capture.json and pack, and each file of its own, the same byte for byte.
WHOLE_WAY = """
    import os, runpy, sys
    import explorer
    from explorer.capture.bootstrap import recorder

    if sys.argv[1] == "whole":
        recorder.Recorder._quick = lambda *args: recorder._WHOLE_WAY
    for program in sys.argv[2:]:
        sys.argv = [program, "300"] if program.endswith("many.py") else [program]
        os.chdir(os.path.dirname(program))
        with explorer.capture(os.path.join(OUT, os.path.basename(program))):
            runpy.run_path(program, run_name="__main__")
"""


def test_launches_recorded_in_a_few_steps_make_the_folder_the_whole_way_makes(on_device, tmp_path):
    import subprocess

    # The programs whose every launch leaves the same contents run after run; one whose
    # launches change their buffer, then leave it as it was.
    (tmp_path / "again.py").write_text(AGAIN)
    names = ("many.py", "bfs.py", "lu.py", "aliasing.py", "ulong_and_text.py", "quick_edges.py",
             "again.py")  # fmt: skip
    paths = [PROGRAMS / name for name in names[:-1]] + [tmp_path / "again.py"]
    folders = {}
    for way in ("quick", "whole"):
        out = tmp_path / way
        code = textwrap.dedent(WHOLE_WAY).replace("OUT", repr(str(out)))
        done = subprocess.run(
            [sys.executable, "-c", code, way, *map(str, paths)],
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        folders[way] = out
    for name in names:
        quick, whole = folders["quick"] / name, folders["whole"] / name
        files = sorted(str(p.relative_to(whole)) for p in whole.rglob("*") if p.is_file())
        assert sorted(str(p.relative_to(quick)) for p in quick.rglob("*") if p.is_file()) == files
        assert (whole / PACK).exists()
        for file in files:
            assert (quick / file).read_bytes() == (whole / file).read_bytes(), f"{name}: {file}"
    many = json.loads((folders["quick"] / "many.py" / "capture.json").read_text())
    assert len(many["launches"]) == 300 and all(launch["data"] for launch in many["launches"])
    again = json.loads((folders["quick"] / "again.py" / "capture.json").read_text())
    changed = [launch["args"][1]["changed"] for launch in again["launches"]]
    assert changed == [True] * 3 + [False] * 3 + [True] * 3


# A kernel with a ``const`` argument launched again and again on the same buffers: changing
# the other, then leaving it as it was, then changing it again.
AGAIN = """
import numpy as np
import pyopencl as cl

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
add = cl.Program(context, \"\"\"
__kernel void add(__global const int *x, __global int *y, int by)
{ y[get_global_id(0)] += by * x[get_global_id(0)]; }
\"\"\").build().add
flags = cl.mem_flags
x = cl.Buffer(context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=np.arange(16, dtype=np.int32))
y = cl.Buffer(context, flags.READ_WRITE | flags.COPY_HOST_PTR, hostbuf=np.zeros(16, np.int32))
for by in (1, 1, 1, 0, 0, 0, 2, 2, 2):
    add(queue, (16,), None, x, y, np.int32(by))
out = np.empty(16, np.int32)
cl.enqueue_copy(queue, out, y)
print(int(out.sum()))
"""
