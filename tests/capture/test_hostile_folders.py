"""Capture folders from someone else: a few hundred crafted ones (paths out of the folder in
every path field, FIFOs and devices where files should be, wrong types and missing values in
every field, deep nesting, cut and damaged journals, bad .npy files, huge declared sizes), each
loaded, replayed and saved as a person would (the command line, in this process, on the
session's executor; a handful as real subprocesses, where a hang or a traceback would show).

Each must end with exit code 2 and one message naming the file or the field and what was
expected, no traceback, no file written outside the folder a save was asked to write into, and
no file outside the capture read: files planted beside it keep their access time, set old (and
before their modification time, so that a read under ``relatime`` moves it on).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from explorer.capture.folder import CaptureError, load_capture
from explorer.capture.includes import capture_outside
from explorer.capture.replay import replay
from explorer.engine.header.catalog import CatalogError
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")

ROOT = Path(__file__).resolve().parents[2]
OLD = (1_000_000, 2_000_000)  # access time, modification time of every planted file
MESSAGE_LIMIT = 1200
X, Y = "data/00001-0-x-before.npy", "data/00001-1-y-before.npy"
Y_AFTER = "data/00001-1-y-after.npy"
FILES = ("programs/0.cl", X, Y, Y_AFTER)


@pytest.fixture(scope="module")
def template(captured, tmp_path_factory) -> Path:
    """The pipeline's first launch (scale: x, y, alpha, n) as a capture folder of its own, as
    a capture of version 1 writes it (each contents a file of its own; the pack's crafted
    folders are test_pack.py's)."""
    capture = captured("pipeline.py")
    folder = tmp_path_factory.mktemp("template")
    document = json.loads((capture.folder / "capture.json").read_text())
    document["launches"] = document["launches"][:1]
    document["launches"][0].pop("packed", None)
    document["version"] = 1
    # written only where the build with argument info failed: here, so that its field is
    # crafted too (the pipeline's kernels build either way)
    document["programs"][0]["arg_info"] = False
    (folder / "capture.json").write_text(json.dumps(document))
    for name in FILES:
        (folder / name).parent.mkdir(exist_ok=True)
        shutil.copyfile(capture.path(name), folder / name)
    return folder


@dataclass
class Case:
    """One crafted folder: ``build(folder, document, outside)`` alters the template's copy
    (``document`` is its capture.json, written after); ``says`` must be in the message."""

    name: str
    build: Callable[[Path, dict[str, Any], Path], None]
    says: str | tuple[str, ...]
    code: int | tuple[int, ...] = 2  # several: any of them (a refusal still names something)
    launch: str = "1"
    # ``capture-save`` for each, and ``run`` for those where a replay refuses what a save does
    # not see alike (the window's path runs in this process for each: :func:`window_replay`).
    commands: tuple[str, ...] = ("save", "load")
    one_line: bool = True  # the refusal is one "error:" line (a build error is the log)


# -- what is planted outside, and what is checked of it ------------------------------------


def plant(outside: Path) -> dict[Path, float]:
    """Files beside the capture a crafted one may point at: a kernel, an array of the very
    type and size a launch expects, a capture; each with an old access time."""
    outside.mkdir()
    (outside / "secret.cl").write_text(
        "__kernel void scale(__global const float *x, __global float *y, float a, int n)"
        "{ int i = get_global_id(0); if (i < n) y[i] = a * x[i]; }\n"
    )
    np.save(outside / "secret.npy", np.arange(100, dtype=np.float32))
    (outside / "capture.json").write_text("{}")
    for path in outside.iterdir():
        os.utime(path, OLD)
    return {path: path.stat().st_atime for path in outside.iterdir()}


def untouched(outside: Path, planted: dict[Path, float]) -> None:
    assert sorted(outside.iterdir()) == sorted(planted), "a file was written outside"
    for path, atime in planted.items():
        assert path.stat().st_atime == atime, f"{path.name} was read"


def run_case(case: Case, template: Path, tmp_path: Path) -> None:
    folder, outside, saved = tmp_path / "capture", tmp_path / "outside", tmp_path / "saved"
    for name in ("capture.json", *FILES):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(template / name, folder / name)
    planted = plant(outside)
    document = json.loads((folder / "capture.json").read_text())
    case.build(folder, document, outside)
    if (
        document
        and (folder / "capture.json").is_file()
        and not (folder / "capture.json").is_symlink()
    ):
        (folder / "capture.json").write_text(json.dumps(document))
    for command in case.commands:
        if command == "load":
            args = ["run", "--capture", str(folder), "--launch", case.launch, "--repeat", "1"]
        else:
            args = ["capture-save", str(folder), "--launch", case.launch, "--out", str(saved)]
        outcome = cli(*args)
        said = outcome.err + outcome.out
        codes = case.code if isinstance(case.code, tuple) else (case.code,)
        assert outcome.code in codes, f"{command}: {said}"
        assert "Traceback" not in said
        if outcome.code == 2:
            if case.one_line:
                assert said.startswith("error: ") and said.count("\n") == 1, said
            assert len(said) < MESSAGE_LIMIT, said[:300]
            wanted = (case.says,) if isinstance(case.says, str) else case.says
            assert any(w in said for w in wanted), f"{command}: {said}"
            assert not saved.exists() or not os.listdir(saved), os.listdir(saved)
    window_replay(folder, case.launch)
    untouched(outside, planted)


def window_replay(folder: Path, launch: str) -> None:
    """What the window does with the folder (File ▸ Open capture, then a launch): every
    refusal is one the window shows in a message (it catches these two), never a crash."""
    try:
        capture = load_capture(folder)
        capture_outside(capture)
        replay(capture, launch)
    except (CaptureError, CatalogError):
        pass


# -- the crafted folders ---------------------------------------------------------------------


def launch0(document: dict[str, Any]) -> dict[str, Any]:
    return document["launches"][0]


# Where each path field sits in the document, and how its message names it.
PATH_FIELDS: dict[str, Callable[[dict[str, Any]], tuple[dict[str, Any], str]]] = {
    "programs[0].source": lambda d: (d["programs"][0], "source"),
    "launches[0].args[0].before": lambda d: (launch0(d)["args"][0], "before"),
    "launches[0].args[0].after": lambda d: (launch0(d)["args"][0], "after"),
    "launches[0].args[1].before": lambda d: (launch0(d)["args"][1], "before"),
    "launches[0].args[1].after": lambda d: (launch0(d)["args"][1], "after"),
}


def _path_value(kind: str) -> Callable[[Path, Path, str], str]:
    """A value for a path field (given the folder, the outside folder and the field's own
    file's suffix), making what it needs in the folder."""

    def value(folder: Path, outside: Path, suffix: str) -> str:
        target = outside / f"secret{suffix}"
        if kind == "absolute":
            return str(target)
        if kind == "dotdot":
            return f"../outside/secret{suffix}"
        if kind == "inner-dotdot":
            return f"data/../../outside/secret{suffix}"
        if kind == "backslash-dotdot":
            return f"data\\..\\..\\outside\\secret{suffix}"
        if kind == "link-out":
            (folder / f"link{suffix}").symlink_to(target)
            return f"link{suffix}"
        if kind == "folder-link-out":
            (folder / "away").symlink_to(outside)
            return f"away/secret{suffix}"
        if kind == "dev-zero":
            (folder / f"zero{suffix}").symlink_to("/dev/zero")
            return f"zero{suffix}"
        if kind == "fifo":
            os.mkfifo(folder / f"pipe{suffix}")
            return f"pipe{suffix}"
        if kind == "folder":
            (folder / f"dir{suffix}").mkdir()
            return f"dir{suffix}"
        if kind == "missing":
            return f"data/missing{suffix}"
        if kind == "windows":
            return f"C:\\outside\\secret{suffix}"
        if kind == "nul":
            return "data/a\0b"
        if kind == "long":
            return "a" * 5000
        return ""

    return value


PATH_KINDS = {
    "absolute": "absolute path",
    "dotdot": "climbs out of the folder",
    "inner-dotdot": "climbs out of the folder",
    "backslash-dotdot": "climbs out of the folder",
    "link-out": "symbolic link",
    "folder-link-out": "symbolic link",
    "dev-zero": "symbolic link",
    "fifo": "named pipe",
    "folder": "is a folder",
    "missing": "does not exist",
    "windows": "absolute path",
    "nul": "expected a file name inside the folder",
    "long": "expected at most 4096 characters",
    "empty": "expected a file name inside the folder",
}


def path_cases() -> list[Case]:
    cases = []
    for field, locate in PATH_FIELDS.items():
        suffix = ".cl" if field.endswith("source") else ".npy"
        for kind, says in PATH_KINDS.items():

            def build(folder, document, outside, locate=locate, kind=kind, suffix=suffix):
                owner, key = locate(document)
                owner[key] = _path_value(kind)(folder, outside, suffix)

            names_field = kind not in ("fifo", "folder", "missing")
            commands = ("save", "load") if field.endswith(("source", "[1].before")) else ("save",)
            says_it = (says, field) if names_field else says
            cases.append(Case(f"{field}={kind}", build, says_it, commands=commands))
    return cases


# Every field of the launch's document, and a value of another type for it.
def _other_types(value: Any) -> list[Any]:
    if isinstance(value, bool):
        return ["true", 1]
    if isinstance(value, int):
        return ["7", 7.5, True]
    if isinstance(value, str):
        return [7, []]
    if isinstance(value, list):
        return ["x", {}]
    if isinstance(value, dict):
        return [[], "x"]
    return []


def _fields(document: dict[str, Any]) -> list[tuple[str, Callable[[dict[str, Any]], dict]]]:
    """(name as messages give it, the map holding it) for every field of the document."""
    found: list[tuple[str, Callable[[dict[str, Any]], dict]]] = []
    found += [(f"capture.json: {k}", lambda d: d) for k in document if k != "format"]
    found += [(f"programs[0].{k}", lambda d: d["programs"][0]) for k in document["programs"][0]]
    launch = document["launches"][0]
    found += [(f"launches[0].{k}", lambda d: d["launches"][0]) for k in launch]
    for i in (1, 2):  # a buffer, a scalar
        found += [
            (f"launches[0].args[{i}].{k}", lambda d, i=i: d["launches"][0]["args"][i])
            for k in launch["args"][i]
        ]
    return found


DISPLAY_ONLY = {"value"}  # shown to people reading capture.json, used by nothing


def type_cases(document: dict[str, Any]) -> list[Case]:
    cases = []
    for name, owner in _fields(document):
        key = name.rsplit(".", 1)[-1].rsplit(" ", 1)[-1]
        for wrong in _other_types(owner(document)[key]):

            def build(folder, doc, outside, owner=owner, key=key, wrong=wrong):
                owner(doc)[key] = copy.deepcopy(wrong)

            if key in DISPLAY_ONLY:
                cases.append(Case(f"{name}={wrong!r}", build, "", code=0, commands=("save",)))
            else:  # refused as it is read: both commands read it alike
                cases.append(Case(f"{name}={wrong!r}", build, name, commands=("save",)))
    return cases


REQUIRED = {"version", "programs", "launches", "index", "number", "kernel", "program", "global"}
REQUIRED |= {"args", "kind"}


def missing_cases(document: dict[str, Any]) -> list[Case]:
    cases = []
    for name, owner in _fields(document):
        key = name.rsplit(".", 1)[-1].rsplit(" ", 1)[-1]

        def build(folder, doc, outside, owner=owner, key=key):
            del owner(doc)[key]

        if key in REQUIRED:
            cases.append(Case(f"no {name}", build, f"{name}: missing", commands=("save",)))
        else:  # optional: a launch read without it, refused where it cannot run
            cases.append(Case(f"no {name}", build, "", code=(0, 2), commands=("save",)))
    return cases


def _npy(folder: Path, name: str, data: bytes) -> None:
    (folder / name).write_bytes(data)


def _saved(array: Any, **kwargs: Any) -> bytes:
    import io

    out = io.BytesIO()
    np.save(out, array, **kwargs)
    return out.getvalue()


def _header_shape(shape: str) -> bytes:
    header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}".ljust(117) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 400


GOOD = np.arange(100, dtype=np.float32)
NPY_CASES = {
    "object array": (
        _saved(np.array([{}, None] * 50, dtype=object), allow_pickle=True),
        "Python objects",
    ),
    "float64": (_saved(GOOD.astype(np.float64)), "float64 values"),
    "two-dimensional": (_saved(GOOD.reshape(10, 10)), "shape (10, 10)"),
    "fortran order": (_saved(np.asfortranarray(GOOD.reshape(10, 10))), "shape (10, 10)"),
    "one short": (_saved(GOOD[:99]), "shape (99,)"),
    "cut short": (_saved(GOOD)[:-7], "cut short"),
    "bytes after": (_saved(GOOD) + b"\0\0\0\0", "bytes after"),
    "not npy": (b"PK\x03\x04" + bytes(600), "not a readable .npy"),
    "empty": (b"", "not a readable .npy"),
    "version 3": (b"\x93NUMPY\x03\x00" + _saved(GOOD)[8:], "not a readable .npy"),
    "damaged header": (_saved(GOOD)[:20] + b"!" * 20 + _saved(GOOD)[40:], "not a readable .npy"),
    "huge shape": (_header_shape("(10**12,)"), "not a readable .npy"),
    "huge declared shape": (_header_shape("(1000000000000,)"), "shape (1000000000000,)"),
    "negative shape": (_header_shape("(-100,)"), ("not a readable .npy", "shape (-100,)")),
}


def npy_cases() -> list[Case]:
    cases = []
    for name, (data, says) in NPY_CASES.items():
        for target in (Y, Y_AFTER):

            def build(folder, document, outside, data=data, target=target):
                _npy(folder, target, data)

            commands = ("save", "load") if target == Y else ("save",)
            cases.append(Case(f"{target}: {name}", build, says, commands=commands))
    return cases


def _set(path: str, value: Any) -> Callable[[Path, dict[str, Any], Path], None]:
    """A build that sets the field at ``path`` (``launches.0.args.1.bytes``)."""

    def build(folder: Path, document: dict[str, Any], outside: Path) -> None:
        *parents, last = path.split(".")
        owner: Any = document
        for part in parents:
            owner = owner[int(part)] if part.isdigit() else owner[part]
        owner[int(last) if last.isdigit() else last] = value

    return build


def _digits(folder: Path, document: dict[str, Any], outside: Path) -> None:
    """A size of 5,000 digits, which Python's JSON reader refuses to turn into a number."""
    launch0(document)["args"][1]["bytes"] = "DIGITS"
    text = json.dumps(document).replace('"DIGITS"', "7" * 5000)
    (folder / "capture.json").write_text(text)
    document.clear()


def value_cases() -> list[Case]:
    huge = 2**62
    return [
        Case("huge bytes", _set("launches.0.args.1.bytes", huge), "shape (1152921504606846976,)"),
        Case("bytes past int64", _set("launches.0.args.1.bytes", 10**30), "args[1].bytes"),
        Case("bytes of 3", _set("launches.0.args.1.bytes", 3), "not a whole number of float32"),
        Case("negative bytes", _set("launches.0.args.1.bytes", -4), "args[1].bytes"),
        Case("digits", _digits, "cannot be read"),
        Case("huge global", _set("launches.0.global", [huge]), "", code=0, commands=("save",)),
        Case("four sizes", _set("launches.0.global", [1, 1, 1, 1]), "global: expected at most 3"),
        Case("no sizes", _set("launches.0.global", []), "NDRange has 0 sizes"),
        Case("empty range", _set("launches.0.global", [0]), "NDRange is empty"),
        Case("zero local", _set("launches.0.local", [0]), "local[0]"),
        Case("offset", _set("launches.0.offset", [4]), "global offset 4"),
        Case("inf exit", _set("exit_code", 1e999), "exit_code"),
        Case("program 9", _set("launches.0.program", 9), "launches[0].program"),
        Case("number 5", _set("launches.0.number", 5), "launches[0].number"),
        Case("index 9", _set("launches.0.args.1.index", 9), "args[1].index"),
        Case("program index 3", _set("programs.0.index", 3), "programs[0].index"),
        Case("kind odd", _set("launches.0.args.1.kind", "pipe"), "args[1].kind: expected one of"),
        Case("image bare", _set("launches.0.args.1.kind", "image"), "args[1].image: an image of"),
        Case("dtype object", _set("launches.0.args.1.dtype", "object"), "args[1].dtype"),
        Case("dtype odd", _set("launches.0.args.1.dtype", "<f4"), "args[1].dtype"),
        Case("hex odd", _set("launches.0.args.2.hex", "zz"), "args[2].hex: expected hexadecimal"),
        Case("hex huge", _set("launches.0.args.2.hex", "00" * 40000), "args[2].hex"),
        Case("many args", _set("launches.0.args", [{}] * 5000), "expected at most 4096 items"),
        Case("kernel huge", _set("launches.0.kernel", "k" * 10**6), "launches[0].kernel"),
        Case("kernel odd", _set("launches.0.kernel", "no such"), "no '__kernel void no such(...)'"),
        Case("data no files", _set("launches.0.args.1.after", None), "names its contents"),
        Case("no data", _set("launches.0.data", False), "recorded without its buffers"),
        Case("binary", _set("programs.0.source", None), "built from a binary"),
        Case("version 3", _set("version", 3), "capture.json: version"),
        Case(
            "packed in version 1",
            _set("launches.0.packed", {X: [0, 192]}),
            "launches[0].packed: a capture of version 1 packs nothing",
        ),
        Case("other format", _set("format", "something"), "is not a capture of the explorer"),
        Case(
            "options odd",
            _set("programs.0.options", ['-DX=1\n#include "/etc/passwd"']),
            "",
            code=0,
            commands=("save",),
        ),
        Case(
            "option injection",
            _set("programs.0.options", ["-DN=1\n[reference]"]),
            "",
            code=0,
            commands=("save",),
        ),
        Case(
            "define octal",
            _set("programs.0.options", ["-DN=010", "-DM=99999999999999999999999"]),
            "",
            code=0,
            commands=("save",),
        ),
        Case(
            "name climbs",
            _set("launches.0.args.1.name", "../../outside/y"),
            "",
            code=0,
            commands=("save",),
        ),
        Case(
            "deep value",
            _set("launches.0.args.2.value", json.loads("[" * 40 + "]" * 40)),
            "nested deeper than 32",
        ),
    ]


def _source(text: bytes) -> Callable[[Path, dict[str, Any], Path], None]:
    def build(folder: Path, document: dict[str, Any], outside: Path) -> None:
        (folder / "programs" / "0.cl").write_bytes(text)

    return build


def _sparse(path: Path, size: int) -> None:
    with open(path, "wb") as handle:
        handle.truncate(size)


def source_cases() -> list[Case]:
    def huge(folder, document, outside):
        _sparse(folder / "programs" / "0.cl", 1 << 30)

    def fifo(folder, document, outside):
        (folder / "programs" / "0.cl").unlink()
        os.mkfifo(folder / "programs" / "0.cl")

    def zero(folder, document, outside):
        (folder / "programs" / "0.cl").unlink()
        (folder / "programs" / "0.cl").symlink_to("/dev/zero")

    nested = b"__kernel void scale(__global const float *x, __global float *y, float a, int n)"
    nested += b"{ y[0] = " + b"(" * 100_000 + b"1" + b")" * 100_000 + b"; }\n"
    return [
        Case("source huge", huge, "is 1.0 GiB"),
        Case("source fifo", fifo, "named pipe"),
        Case("source /dev/zero", zero, "symbolic link"),
        Case("source latin-1", _source(b"// caf\xe9\n"), "not UTF-8 text"),
        Case("source utf-16", _source("// x\n".encode("utf-16")), "UTF-16"),
        Case("source without the kernel", _source(b"__kernel void other() {}\n"), "scale"),
        Case(
            "source nested", _source(nested), "bracket nesting", commands=("load",), one_line=False
        ),
        Case(
            "source arguments",
            _source(b"__kernel void scale(__global float *x) {}\n"),
            "has 1 parameters",
        ),
    ]


def document_cases() -> list[Case]:
    def replace_with(make: Callable[[Path, Path], None]) -> Callable[[Path, dict, Path], None]:
        def build(folder: Path, document: dict, outside: Path) -> None:
            (folder / "capture.json").unlink()
            make(folder / "capture.json", outside)
            document.clear()

        return build

    def text(data: bytes) -> Callable[[Path, Path], None]:
        return lambda path, outside: path.write_bytes(data)

    return [
        Case("document fifo", replace_with(lambda p, o: os.mkfifo(p)), "named pipe"),
        Case(
            "document /dev/zero",
            replace_with(lambda p, o: p.symlink_to("/dev/zero")),
            "symbolic link",
        ),
        Case(
            "document outside",
            replace_with(lambda p, o: p.symlink_to(o / "capture.json")),
            "symbolic link",
        ),
        Case("document folder", replace_with(lambda p, o: p.mkdir()), "is a folder"),
        Case("document huge", replace_with(lambda p, o: _sparse(p, 1 << 30)), "is 1.0 GiB"),
        Case("document not json", replace_with(text(b"{ nope")), "not valid JSON"),
        Case("document utf-16", replace_with(text('{"a": 1}'.encode("utf-16"))), "UTF-16"),
        Case("document a list", replace_with(text(b"[1, 2]")), "not a capture of the explorer"),
        Case("document deep", replace_with(text(b"[" * 100_000 + b"]" * 100_000)), "nested deeper"),
        Case("document digits", replace_with(text(b"[" + b"7" * 5000 + b"]")), "cannot be read"),
        Case("no document", replace_with(lambda p, o: None), "holds no capture"),
    ]


def _journal(lines: list[str], tail: str = "") -> Callable[[Path, dict, Path], None]:
    def build(folder: Path, document: dict, outside: Path) -> None:
        (folder / "capture.json").unlink()
        (folder / "journal.jsonl").write_text("\n".join(lines) + "\n" + tail)
        document.clear()

    return build


def journal_cases(document: dict[str, Any]) -> list[Case]:
    program = json.dumps({"type": "program", **document["programs"][0]})
    launch = json.dumps(
        {"type": "launch", **{k: v for k, v in launch0(document).items() if k != "occurrence"}}
    )

    def special(make: Callable[[Path], None]) -> Callable[[Path, dict, Path], None]:
        def build(folder: Path, doc: dict, outside: Path) -> None:
            (folder / "capture.json").unlink()
            make(folder / "journal.jsonl")
            doc.clear()

        return build

    return [
        Case(
            "journal cut", _journal([program, launch], launch[:40]), "", code=0, commands=("save",)
        ),
        Case(
            "journal damaged", _journal([program, "{nope", launch]), "", code=0, commands=("save",)
        ),
        Case("journal cut launch", _journal([program], launch[:-3]), "holds no launch"),
        Case(
            "journal deep",
            _journal([program, "[" * 100_000 + "]" * 100_000, launch]),
            "",
            code=0,
            commands=("save",),
        ),
        Case(
            "journal odd kernel",
            _journal([program, launch.replace('"scale"', "5")]),
            "holds no launch",
        ),
        Case(
            "journal list line", _journal([program, "[1]", launch]), "", code=0, commands=("save",)
        ),
        Case("journal no program", _journal([launch]), "the capture lists no program"),
        Case(
            "journal long line",
            _journal([program, "x" * (5 << 20), launch]),
            "",
            code=0,
            commands=("save",),
        ),
        Case("journal fifo", special(os.mkfifo), "named pipe"),
        Case("journal /dev/zero", special(lambda p: p.symlink_to("/dev/zero")), "symbolic link"),
        Case("journal huge", special(lambda p: _sparse(p, 1 << 30)), "is 1.0 GiB"),
        Case(
            "journal bad field",
            _journal([program, launch.replace('"global": [128]', '"global": "x"')]),
            "journal.jsonl: launches[0].global",
        ),
    ]


def launch_cases() -> list[Case]:
    nothing = _set("version", 1)
    return [
        Case(f"--launch {which[:20]}", nothing, says, launch=which)
        for which, says in (
            ("0", "holds launches 1 to 1"),
            ("2", "holds launches 1 to 1"),
            ("scale#2", "give scale#1 to scale#1"),
            ("scale#x", "give scale#1 to scale#1"),
            ("nothing", "no launch of a kernel 'nothing'"),
            ("²", "no launch of a kernel '²'"),
            ("9" * 5000, "holds launches 1 to 1"),
            ("#", "no launch of a kernel ''"),
        )
    ]


def all_cases(template_document: dict[str, Any]) -> list[Case]:
    return [
        *path_cases(),
        *type_cases(template_document),
        *missing_cases(template_document),
        *npy_cases(),
        *value_cases(),
        *source_cases(),
        *document_cases(),
        *journal_cases(template_document),
        *launch_cases(),
    ]


def test_every_crafted_folder_is_refused_naming_what_is_wrong(template, tmp_path_factory):
    document = json.loads((template / "capture.json").read_text())
    cases = all_cases(document)
    assert len(cases) > 250
    failed = []
    for case in cases:
        try:
            run_case(case, template, tmp_path_factory.mktemp("case"))
        except AssertionError as exc:
            failed.append(f"{case.name}: {exc}")
    assert not failed, f"{len(failed)} of {len(cases)}:\n" + "\n".join(f[:400] for f in failed)


# -- saving into a folder: nothing there is ever replaced ------------------------------------


def test_a_save_never_replaces_a_file_and_writes_nothing_through_a_link(template, tmp_path):
    outside = tmp_path / "outside"
    planted = plant(outside)
    saved = tmp_path / "saved"
    first = cli("capture-save", str(template), "--launch", "1", "--out", str(saved))
    assert first.code == 0, first.err
    names = sorted(os.listdir(saved))
    assert names == ["scale-1.cl", "scale-1.x.npy", "scale-1.y.expected.npy", "scale-1.y.npy"]
    again = cli("capture-save", str(template), "--launch", "1", "--out", str(saved))
    assert again.code == 0, again.err  # the very same bytes: nothing to replace
    (saved / "scale-1.y.npy").write_bytes(b"my own")
    (saved / "scale-1.cl").unlink()
    (saved / "scale-1.cl").symlink_to(outside / "secret.cl")
    refused = cli("capture-save", str(template), "--launch", "1", "--out", str(saved))
    assert refused.code == 2
    assert "already holds scale-1.cl, scale-1.y.npy; a save never replaces a file" in refused.err
    assert (saved / "scale-1.y.npy").read_bytes() == b"my own"
    untouched(outside, planted)
    (tmp_path / "a-file").write_text("mine")
    into_file = cli(
        "capture-save", str(template), "--launch", "1", "--out", str(tmp_path / "a-file")
    )
    assert into_file.code == 2 and "is not a folder" in into_file.err
    assert (tmp_path / "a-file").read_text() == "mine"


# -- recording into a folder: only a new, empty or earlier capture's folder --------------------


def capture_into(folder: Path, *options: str) -> Any:
    return cli("capture", str(folder), *options, "--", sys.executable, "-c", "pass")


def test_a_folder_holding_files_of_someone_elses_is_refused_untouched(tmp_path):
    folder = tmp_path / "thesis"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "thesis.txt").write_text("years of work")
    (folder / "capture.json").write_text("{}")
    refused = capture_into(folder)
    assert refused.code == 2
    assert "holds files capture did not write (capture.json, data)" in refused.err
    assert "Nothing was changed" in refused.err
    assert sorted(p.name for p in folder.rglob("*")) == ["capture.json", "data", "thesis.txt"]


def marked(folder: Path) -> Path:
    """A folder an earlier capture wrote (its marker, as capture writes it)."""
    folder.mkdir(parents=True)
    (folder / ".opencl-explorer-capture").write_text("an earlier capture\n")
    return folder


def test_an_earlier_capture_is_replaced_file_by_file_keeping_what_is_not_its_own(tmp_path):
    folder = marked(tmp_path / "again")
    (folder / "capture.json").write_text("an earlier capture's")
    (folder / "data").mkdir()
    (folder / "data" / "00001-0-x-before.npy").write_bytes(b"an earlier capture's")
    (folder / "data" / "notes.txt").write_text("mine")
    (folder / "programs").mkdir()
    (folder / "programs" / "0.cl").write_text("an earlier capture's")
    (folder / "README").write_text("mine")
    assert capture_into(folder).code == 0
    left = sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
    assert left == [".opencl-explorer-capture", "README", "capture.json", "data", "data/notes.txt"]


@pytest.mark.parametrize("where", ["data", "capture.json", "programs/0.cl"])
def test_a_link_where_a_capture_writes_is_refused_and_nothing_written_through_it(tmp_path, where):
    outside = tmp_path / "outside"
    planted = plant(outside)
    folder = marked(tmp_path / "marked")
    (folder / where).parent.mkdir(parents=True, exist_ok=True)
    (folder / where).symlink_to(outside if where == "data" else outside / "secret.cl")
    refused = capture_into(folder)
    assert refused.code == 2 and "move it away. Nothing was changed" in refused.err
    untouched(outside, planted)


@pytest.mark.parametrize(
    "option, value, says",
    [
        ("--max-mb", "inf", "expected a number of MiB from 0"),
        ("--max-mb", "nan", "expected a number of MiB from 0"),
        ("--max-mb", "1e400", "expected a number of MiB from 0"),
        ("--max-mb", "-1", "expected a number of MiB from 0"),
        ("--max-mb", "lots", "expected a number of MiB, e.g. 200"),
        ("--launches", "-1", "expected 0 to"),
        ("--launches", "1.5", "expected a whole number"),
        ("--launches", "9" * 5000, "expected"),
    ],
)
def test_bounds_that_are_not_numbers_in_range_are_refused(tmp_path, option, value, says):
    for words in ([option, value], [f"{option}={value}"]):
        refused = capture_into(tmp_path / "never", *words)
        assert refused.code == 2 and says in refused.err, refused.err
        assert "Traceback" not in refused.err and len(refused.err) < MESSAGE_LIMIT
    assert not (tmp_path / "never").exists()


# -- a handful as a person runs them: a subprocess each, where a hang would show --------------


def test_as_real_commands_nothing_hangs_and_nothing_is_a_traceback(template, tmp_path):
    fifo_source = tmp_path / "fifo"
    shutil.copytree(template, fifo_source)
    (fifo_source / "programs" / "0.cl").unlink()
    os.mkfifo(fifo_source / "programs" / "0.cl")
    zero = tmp_path / "zero"
    shutil.copytree(template, zero)
    (zero / "capture.json").unlink()
    (zero / "capture.json").symlink_to("/dev/zero")
    commands = {
        "fifo": (["run", "--capture", str(fifo_source), "--launch", "1"], "named pipe"),
        "zero": (
            ["capture-save", str(zero), "--launch", "1", "--out", str(tmp_path / "s")],
            "symbolic link",
        ),
        "inf": (["capture", str(tmp_path / "c"), "--max-mb", "inf", "--", "true"], "MiB from 0"),
    }
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    running = {
        name: subprocess.Popen(
            [sys.executable, "-m", "explorer", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, (args, _) in commands.items()
    }
    for name, process in running.items():
        out, err = process.communicate(timeout=120)
        assert process.returncode == 2, f"{name}: {err}"
        assert commands[name][1] in err and "Traceback" not in out + err, f"{name}: {err}"
