"""Crafted documents from outside: sessions, Oclgrind ``.sim`` files, exercise folders, cache
entries and settings. Every field gets the wrong type, goes missing, nests too deep or grows too
large; every path a document names points out of its folder (absolute, ``..``, a symbolic
link), at a FIFO, at a device, at a folder. Each case ends in a message that names the file and
the field (an exit code of 2 on the command line), never a traceback and never code run from
the document; and no file outside the document's folder is read before the person agrees (the
planted outside files keep an access time set days ago).

Everything runs in this process (the command line through ``fast_cli``), so the few hundred
cases take a few seconds."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from explorer.engine.header.catalog import CatalogError, load_variant_file
from explorer.exercises import ExerciseError, exercises_dir, exercises_in
from explorer.frontend import disk_cache, parser
from explorer.frontend.model import ParsedSource
from explorer.session import SessionError, check_files, files_outside, load_session
from tests.robustness.helpers import cli

DAYS_AGO = time.time() - 3 * 86400  # relatime updates an access time older than a day
MESSAGE_LIMIT = 800
KERNEL = """/*---
name = "copy"
family = "custom"
kernel = "copy"
global = ["N"]
local = ["4"]
[sizes]
N = 16
[args.x]
buffer = "float"
count = "N"
access = "read"
[args.y]
buffer = "float"
count = "N"
result = true
[reference]
numpy = "x"
---*/
__kernel void copy(__global const float* x, __global float* y)
{ int i = get_global_id(0); y[i] = x[i]; }
"""
VECADD = """__kernel void vecadd(__global const int* a, __global int* b, int n)
{ int i = get_global_id(0); if (i < n) b[i] = a[i] + n; }
"""
SIM_REST = (
    "vecadd\n16 1 1\n4 1 1\n<size=64 range=0:1:15 ro>\n<size=64 fill=0 dump wo>\n<size=4>\n16\n"
)


# -- the planted outside files: never read ------------------------------------------------


class Probe:
    """Unpickled, it makes the folder ``path``: the sign that a document ran code."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (os.mkdir, (str(self.path),))


@pytest.fixture(scope="module")
def outside(tmp_path_factory) -> Path:
    """A folder of files no document may read: a kernel, an array, an image, a .sim program,
    a valid cache entry and an exercise, each with an access time of days ago."""
    folder = tmp_path_factory.mktemp("outside")
    (folder / "secret.cl").write_text(KERNEL)
    (folder / "vecadd.cl").write_text(VECADD)
    (folder / "secret.npy").write_bytes(b"\x93NUMPY secret")
    (folder / "secret.png").write_bytes(b"\x89PNG\r\n\x1a\nsecret")
    (folder / "exercise.toml").write_text('title = "t"\ntext = "t"\nhints = ["h"]\n')
    (folder / "entry.json").write_text("{}")
    shutil.copytree(exercises_dir() / "01-index-map", folder / "01-index-map")
    return folder


def _outside_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


@pytest.fixture(autouse=True)
def never_read(outside):
    """Each case starts with the outside files' access times days ago and must leave them so;
    no probe of an unpickled document may appear."""
    files = _outside_files(outside)
    for path in files:
        os.utime(path, (DAYS_AGO, path.stat().st_mtime))
    yield
    read = [str(p) for p in files if p.stat().st_atime != DAYS_AGO]
    assert not read, f"files outside the document's folder were read: {read}"
    assert not (outside / "probe").exists(), "a document ran code"


def _sparse(path: Path, size: int) -> None:
    """A file of ``size`` bytes that takes no room on the disk."""
    with open(path, "wb") as handle:
        handle.truncate(size)


def _message_ok(message: str, *names: str) -> None:
    assert "Traceback" not in message
    assert all(len(line) < MESSAGE_LIMIT for line in message.splitlines()), message[:300]
    for name in names:
        assert name in message, (name, message)


# -- sessions ---------------------------------------------------------------------------------

BASE = {"format": "kernel-explorer-session", "version": 1, "family": "matmul", "variant": "tiled"}
WRONG = {
    "number": 12345,
    "fraction": 1.5,
    "bool": True,
    "list": [],
    "map": {},
    "deep": [[[[[[1]]]]]],
    "long": "x" * 5000,
}
# A value of the right type for a field: these cases are not refusals.
FITS = {("sizes", "map"), ("defines", "map"), ("view", "map"), ("anyway", "bool")}
FITS |= {("device", "long")}
SESSION_FIELDS = (
    "format",
    "version",
    "device",
    "family",
    "variant",
    "kernel_path",
    "sizes",
    "local",
    "defines",
    "input",
    "text",
    "image_path",
    "layout",
    "header",
    "view",
    "anyway",
    "title",
)
WRONG_FIELDS = [
    (name, kind) for name in SESSION_FIELDS for kind in WRONG if (name, kind) not in FITS
]


def _session(folder: Path, data: Any, name: str = "s.kexp.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


@pytest.mark.parametrize(("field", "kind"), WRONG_FIELDS, ids=[f"{f}-{k}" for f, k in WRONG_FIELDS])
def test_a_session_field_of_the_wrong_type_is_named(tmp_path, field, kind):
    path = _session(tmp_path, {**BASE, field: WRONG[kind]})
    with pytest.raises(SessionError) as caught:
        load_session(path)
    assert caught.value.field is not None and caught.value.field.split(".")[0] in (field, "variant")
    _message_ok(str(caught.value), str(path), f"field '{caught.value.field}'")


@pytest.mark.parametrize("field", ["format", "version", "family", "variant"])
def test_a_missing_session_field_is_named(tmp_path, field):
    data = {k: v for k, v in BASE.items() if k != field}
    with pytest.raises(SessionError) as caught:
        load_session(_session(tmp_path, data))
    _message_ok(str(caught.value), str(tmp_path))


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        (json.dumps({**BASE, "sizes": {"M": [[[[[[[[[1]]]]]]]]]}}), "nested too deeply"),
        ('{"format": "kernel-explorer-session", "version": ' + "9" * 5000 + "}", "invalid JSON"),
        (json.dumps({**BASE, "sizes": {f"S{i}": 1 for i in range(100)}}), "at most 64"),
        ('{"format": "kernel-explorer-session", "version": 1, "version": 1}', "given twice"),
        (json.dumps(BASE)[:-1], "invalid JSON"),
        (json.dumps({**BASE, "zoom": 1}), "unknown field"),
        (json.dumps({**BASE, "view": {"z" * 5000: 1}}), "unknown field"),
    ],
    ids=["deep", "deep-field", "huge-int", "many-names", "twice", "cut", "unknown", "long-key"],
)
def test_a_session_that_is_not_a_session_is_a_message(tmp_path, content, words):
    path = _session(tmp_path, content)
    with pytest.raises(SessionError) as caught:
        load_session(path)
    _message_ok(str(caught.value), str(path), words)


def _not_files(folder: Path, outside: Path) -> dict[str, Path]:
    """Session files that are not files: a FIFO, a folder, a link to a device, a huge file,
    a link out of the folder, another encoding."""
    os.mkfifo(folder / "fifo.kexp.json")
    (folder / "folder.kexp.json").mkdir()
    (folder / "zero.kexp.json").symlink_to("/dev/zero")
    _sparse(folder / "huge.kexp.json", 64 << 20)
    (folder / "utf16.kexp.json").write_bytes(json.dumps(BASE).encode("utf-16"))
    return {p.name: p for p in folder.iterdir()}


SESSION_NOT_FILES = {
    "fifo.kexp.json": "named pipe",
    "folder.kexp.json": "is a folder",
    "zero.kexp.json": "is a device",
    "huge.kexp.json": "at most",
    "utf16.kexp.json": "UTF-16",
}


@pytest.mark.parametrize("name", sorted(SESSION_NOT_FILES))
def test_a_session_that_is_not_a_file_is_refused_at_once(tmp_path, outside, name):
    path = _not_files(tmp_path, outside)[name]
    started = time.monotonic()
    with pytest.raises(SessionError) as caught:
        load_session(path)
    assert time.monotonic() - started < 2
    _message_ok(str(caught.value), str(path), SESSION_NOT_FILES[name])


def _links(folder: Path, outside: Path) -> None:
    (folder / "link.cl").symlink_to(outside / "secret.cl")
    (folder / "link.png").symlink_to(outside / "secret.png")
    (folder / "zero.cl").symlink_to("/dev/zero")


# (what the path field says, where it leads: "out" for outside the folder, else a message)
PATHS = {
    "absolute": ("{outside}/secret{suffix}", "out"),
    "climbs": ("../{outside_name}/secret{suffix}", "out"),
    "link-out": ("link{suffix}", "out"),
    "device": ("/dev/zero", "out"),
    "link-to-device": ("zero.cl", "out"),
    "fifo": ("pipe{suffix}", "named pipe"),
    "folder": ("sub", "is a folder"),
    "missing": ("missing{suffix}", "does not exist"),
    "nul": ("a\u0000b{suffix}", "NUL"),
    "long": ("y" * 5000, "at most 4096 characters"),
}


def _path_case(folder: Path, outside: Path, field: str, case: str) -> tuple[Path, str, str]:
    folder.mkdir(parents=True, exist_ok=True)
    _links(folder, outside)
    suffix = ".cl" if field == "kernel_path" else ".png"
    os.mkfifo(folder / f"pipe{suffix}")
    (folder / "sub").mkdir()
    text, expected = PATHS[case]
    value = text.format(outside=outside, outside_name=outside.name, suffix=suffix)
    if "{outside_name}" in text:  # the session's folder is a sibling of the outside one
        folder = outside.parent / f"{folder.parent.name}-{folder.name}-session"
        folder.mkdir()
        _links(folder, outside)
    if field == "kernel_path":
        data = {**BASE, "family": "custom", "variant": None, "kernel_path": value}
    else:
        data = {**BASE, "input": "image", "image_path": value}
    return _session(folder, data), value, expected


PATH_CASES = [(field, case) for field in ("kernel_path", "image_path") for case in PATHS]


@pytest.mark.parametrize(("field", "case"), PATH_CASES, ids=[f"{f}-{c}" for f, c in PATH_CASES])
def test_a_path_out_of_the_folder_is_never_read_before_the_person_agrees(
    tmp_path, outside, field, case
):
    path, value, expected = _path_case(tmp_path, outside, field, case)
    if expected != "out":
        with pytest.raises(SessionError) as caught:
            load_session(path)
        assert caught.value.field == field
        _message_ok(str(caught.value), str(path), expected)
        return
    session = load_session(path)  # checked, but nothing outside its folder looked at
    listed = files_outside(session, path)
    assert len(listed) == 1 and listed[0].startswith(("kernel file: ", "image: "))
    assert os.path.abspath(os.path.join(path.parent, value)) in listed[0]


@pytest.mark.usefixtures("fast_cli")
@pytest.mark.parametrize("case", ["absolute", "climbs", "link-out", "device"])
def test_run_session_refuses_outside_files_without_allow_outside(tmp_path, outside, case):
    for field in ("kernel_path", "image_path"):
        path, value, _ = _path_case(tmp_path / field, outside, field, case)
        outcome = cli("run", "--session", str(path), "--timeout", "5", "--repeat", "1")
        assert outcome.code == 2, outcome
        _message_ok(outcome.out + outcome.err, "--allow-outside", "outside its folder")
        assert os.path.abspath(os.path.join(path.parent, value)) in outcome.err


@pytest.mark.parametrize(
    "reference",
    [
        'kernel = "{outside}/secret.cl"',
        'kernel = "../{outside_name}/secret.cl"',
        'kernel = "link.cl"',
        'expected = {{ y = "{outside}/secret.npy" }}',
    ],
    ids=["absolute", "climbs", "link-out", "expected"],
)
def test_files_an_embedded_header_names_outside_are_listed_not_read(tmp_path, outside, reference):
    folder = outside.parent / f"{tmp_path.name}-header"
    folder.mkdir()
    _links(folder, outside)
    (folder / "k.cl").write_text(KERNEL.split("---*/\n", 1)[1])
    header = KERNEL.split("\n__kernel", 1)[0].replace(
        'numpy = "x"', reference.format(outside=outside, outside_name=outside.name)
    )
    data = {**BASE, "family": "custom", "variant": None, "kernel_path": "k.cl", "header": header}
    path = _session(folder, data)
    session = load_session(path)
    listed = files_outside(session, path)
    assert len(listed) == 1 and listed[0].startswith(("reference kernel", "expected values"))


@pytest.mark.usefixtures("fast_cli")
@pytest.mark.parametrize("field", ["format", "version", "family", "sizes", "local", "view"])
def test_run_session_with_a_wrong_field_exits_2_naming_it(tmp_path, field):
    path = _session(tmp_path, {**BASE, field: [[["x"]]]})
    outcome = cli("run", "--session", str(path))
    assert outcome.code == 2 and outcome.out == ""
    _message_ok(outcome.err, str(path), f"field '{field}'")


def test_a_kernel_agreed_to_is_then_checked_like_any(tmp_path, outside):
    data = {**BASE, "family": "matmul", "variant": None, "kernel_path": str(outside / "vecadd.cl")}
    path = _session(tmp_path, data)
    session = load_session(path)
    with pytest.raises(SessionError, match="kernel_path"):
        check_files(session, str(path))  # the person said yes: now it is read, and refused
    os.utime(outside / "vecadd.cl", (DAYS_AGO, DAYS_AGO))  # read with the person's consent


# -- .sim files -------------------------------------------------------------------------------

SIM_PROGRAMS = {
    "absolute": ("{outside}/vecadd.cl", "absolute path"),
    "climbs": ("../{outside_name}/vecadd.cl", "climbs out"),
    "link-out": ("link.cl", "symbolic link"),
    "device": ("/dev/zero", "absolute path"),
    "link-to-device": ("zero.cl", "symbolic link"),
    "fifo": ("pipe.cl", "named pipe"),
    "folder": ("sub", "is a folder"),
    "missing": ("missing.cl", "does not exist"),
    "windows": ("C:\\kernels\\vecadd.cl", "absolute path"),
    "long": ("z" * 5000, "name too long"),
}


def _sim(folder: Path, outside: Path, program: str) -> Path:
    (folder / "link.cl").symlink_to(outside / "vecadd.cl")
    (folder / "zero.cl").symlink_to("/dev/zero")
    os.mkfifo(folder / "pipe.cl")
    (folder / "sub").mkdir()
    path = folder / "case.sim"
    path.write_text(f"{program}\n{SIM_REST}")
    return path


@pytest.mark.parametrize("case", sorted(SIM_PROGRAMS))
def test_a_sim_program_outside_its_folder_or_not_a_file_is_refused(tmp_path, outside, case):
    text, words = SIM_PROGRAMS[case]
    path = _sim(tmp_path, outside, text.format(outside=outside, outside_name=outside.name))
    with pytest.raises(CatalogError) as caught:
        load_variant_file(path)
    _message_ok(str(caught.value), str(path), words)
    if case in ("absolute", "climbs", "link-out", "device", "link-to-device", "windows"):
        _message_ok(str(caught.value), "line 1 (program file)")


@pytest.mark.usefixtures("fast_cli")
@pytest.mark.parametrize("case", ["absolute", "climbs", "link-out", "fifo"])
def test_run_sim_with_a_program_outside_exits_2(tmp_path, outside, case):
    text, words = SIM_PROGRAMS[case]
    path = _sim(tmp_path, outside, text.format(outside=outside, outside_name=outside.name))
    outcome = cli("run", "--sim", str(path), "--timeout", "5", "--repeat", "1")
    assert outcome.code == 2 and outcome.out == ""
    _message_ok(outcome.err, str(path), words)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda p: os.mkfifo(p), "named pipe"),
        (lambda p: p.symlink_to("/dev/zero"), "is a device"),
        (lambda p: p.mkdir(), "is a folder"),
        (lambda p: _sparse(p, 64 << 20), "at most"),
    ],
    ids=["fifo", "device", "folder", "huge"],
)
def test_a_sim_file_that_is_not_a_file_is_refused_at_once(tmp_path, make, words):
    path = tmp_path / "case.sim"
    make(path)
    with pytest.raises(CatalogError) as caught:
        load_variant_file(path)
    _message_ok(str(caught.value), str(path), words)


# -- exercise folders --------------------------------------------------------------------------

GOOD = {"title": '"Copy"', "text": '"Copy x into y."', "hints": '["Read x.", "Write y."]'}
FIGURE = '[[figure]]\nfigure = "loads_per_element"\nbuffer = "mat"\nat_most = 1.5\n'
TOML_CASES = {
    "title-number": ("title = 5", "title: expected text"),
    "title-empty": ('title = "  "', "title: expected some text"),
    "text-list": ("text = [1]", "text: expected text"),
    "hints-text": ('hints = "one"', "hints: expected a list"),
    "hints-empty": ("hints = []", "hints: expected at least one hint"),
    "hints-numbers": ("hints = [1, 2]", "hints[0]: expected text"),
    "hints-many": ("hints = [" + ", ".join(['"h"'] * 30) + "]", "hints: expected at most 20"),
    "figure-text": ('figure = "x"', "figure: expected a list"),
    "figure-list-of-text": ('figure = ["x"]', "figure[0]: expected a map"),
    "figure-unknown": ('figure = [{figure = "nope", buffer = "a", at_most = 1}]', "one of"),
    "figure-buffer": (
        'figure = [{figure = "loads_per_element", buffer = "a b", at_most = 1}]',
        "buffer",
    ),
    "figure-bound-text": (
        'figure = [{figure = "loads_per_element", buffer = "a", at_most = "1"}]',
        "at_most: expected a number",
    ),
    "figure-both": (
        'figure = [{figure = "loads_per_element", buffer = "a", at_most = 1, at_least = 1}]',
        "not both",
    ),
    "figure-field": (
        'figure = [{figure = "loads_per_element", buffer = "a", at_most = 1, eval = "x"}]',
        "eval: not a field of a figure",
    ),
    "figure-inf": (
        'figure = [{figure = "loads_per_element", buffer = "a", at_most = inf}]',
        "finite",
    ),
    "local-size": ('local_size = "mine"', "local_size: expected"),
    "line-to-change": (
        'line_to_change = "no such line"',
        "line_to_change: expected the text of a line of start.cl, found 'no such line' on none",
    ),
    "unknown": ('script = "import os"', "script: not a field of an exercise"),
    "deep": ("deep = " + "[" * 50 + "]" * 50, "nested deeper"),
    "huge-int": ("title = " + "9" * 5000, "not usable TOML"),
    "not-toml": ('title = "unclosed', "not valid TOML"),
}


def _toml(line: str = "") -> str:
    """The good exercise.toml with ``line`` (``key = value``) in place of its key's line."""
    key = line.split("=", 1)[0].strip()
    lines = [f"{k} = {v}" for k, v in GOOD.items() if k != key] + ([line] if line else [])
    return "\n".join(lines) + "\n" + ("" if key == "figure" else FIGURE)


def _exercise(root: Path, toml: str | None = None) -> Path:
    folder = root / "01-case"
    folder.mkdir(parents=True)
    for kernel in ("start.cl", "solution.cl"):
        shutil.copy(exercises_dir() / "03-coalesced-matvec" / kernel, folder / kernel)
    (folder / "exercise.toml").write_text(_toml() if toml is None else toml)
    return folder


def test_the_good_exercise_of_these_cases_reads(tmp_path):
    _exercise(tmp_path)
    (exercise,) = exercises_in(tmp_path)
    assert (exercise.title, exercise.hints) == ("Copy", ("Read x.", "Write y."))
    assert exercise.figures[0].at_most == 1.5


@pytest.mark.parametrize("case", sorted(TOML_CASES))
def test_an_exercise_field_of_the_wrong_type_is_named(tmp_path, case):
    line, words = TOML_CASES[case]
    folder = _exercise(tmp_path, _toml(line))
    with pytest.raises(ExerciseError) as caught:
        exercises_in(tmp_path)
    _message_ok(str(caught.value), str(folder / "exercise.toml"), words)


EXERCISE_FILES = {
    "kernel-fifo": ("start.cl", lambda p, o: os.mkfifo(p), "named pipe"),
    "kernel-device": ("start.cl", lambda p, o: p.symlink_to("/dev/zero"), "symbolic link"),
    "kernel-folder": ("solution.cl", lambda p, o: p.mkdir(), "is a folder"),
    "kernel-link-out": ("start.cl", lambda p, o: p.symlink_to(o / "secret.cl"), "symbolic link"),
    "kernel-missing": ("solution.cl", lambda p, o: None, "does not exist"),
    "toml-link-out": ("exercise.toml", lambda p, o: p.symlink_to(o / "exercise.toml"), "link"),
    "toml-fifo": ("exercise.toml", lambda p, o: os.mkfifo(p), "named pipe"),
    "toml-huge": ("exercise.toml", lambda p, o: _sparse(p, 8 << 20), "at most"),
    "toml-utf16": ("exercise.toml", lambda p, o: p.write_bytes(_toml().encode("utf-16")), "UTF-16"),
}


@pytest.mark.parametrize("case", sorted(EXERCISE_FILES))
def test_an_exercise_file_out_of_its_folder_or_not_a_file_is_refused(tmp_path, outside, case):
    name, make, words = EXERCISE_FILES[case]
    folder = _exercise(tmp_path)
    (folder / name).unlink()
    make(folder / name, outside)
    with pytest.raises(ExerciseError) as caught:
        exercises_in(tmp_path)
    _message_ok(str(caught.value), str(folder), words)


def test_an_exercise_folder_that_links_out_is_refused(tmp_path, outside):
    (tmp_path / "01-elsewhere").symlink_to(outside / "01-index-map")
    with pytest.raises(ExerciseError) as caught:
        exercises_in(tmp_path)
    _message_ok(str(caught.value), "01-elsewhere", "symbolic link")


# -- the parse cache --------------------------------------------------------------------------

SOURCE = "__kernel void k(__global float* a) { a[get_global_id(0)] = a[get_global_id(0)] * N; }"


@pytest.fixture(params=[True, False], ids=["by-folder", "by-path"])
def cache(tmp_path, monkeypatch, request) -> Path:
    """An empty cache folder, its files named relative to the opened folder (POSIX) or by
    their paths (where the system cannot, as on Windows)."""
    monkeypatch.setenv(disk_cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(disk_cache, "_BY_FOLDER", request.param and disk_cache._BY_FOLDER)
    return tmp_path / "cache"


@pytest.fixture(scope="module")
def entry(tmp_path_factory) -> tuple[dict[str, Any], ParsedSource]:
    """A real cache entry (a parse) as JSON, and the parse it holds."""
    before = os.environ.get(disk_cache.CACHE_ENV)
    folder = tmp_path_factory.mktemp("cache")
    os.environ[disk_cache.CACHE_ENV] = str(folder)
    try:
        parsed = parser.parse(SOURCE, {"N": 2}, "k.cl")
        (path,) = (folder / "parsed").glob("*.json")
        return json.loads(path.read_text()), parsed
    finally:
        if before is None:
            del os.environ[disk_cache.CACHE_ENV]
        else:
            os.environ[disk_cache.CACHE_ENV] = before


def _field_paths(value: Any, at: tuple = ()) -> dict[str, tuple]:
    """One position per field of the record's schema (``accesses[].span.line``): where the
    same field repeats in a list, its first place."""
    found: dict[str, tuple] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            found.setdefault(".".join(map(str, at + (key,))), at + (key,))
            for name, place in _field_paths(item, at + (key,)).items():
                found.setdefault(name, place)
    elif isinstance(value, list) and value:
        for name, place in _field_paths(value[0], at + (0,)).items():
            found.setdefault(name.replace(".0", "[]"), place)
    return found


def _set(tree: Any, place: tuple, value: Any, drop: bool = False) -> Any:
    tree = json.loads(json.dumps(tree))
    holder = tree
    for step in place[:-1]:
        holder = holder[step]
    if drop:
        del holder[place[-1]]
    else:
        holder[place[-1]] = value
    return tree


def _wrong(value: Any) -> Any:
    """A value of another JSON type than ``value``."""
    if isinstance(value, bool):
        return "yes"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return 7
    if isinstance(value, list):
        return {"0": value}
    return [value]


def _entry_file(cache_root: Path, key: str) -> Path:
    folder = cache_root / "parsed"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{key}.json"


def _field_cases(entry_json: dict[str, Any]) -> list[tuple[str, tuple, bool]]:
    places = _field_paths(entry_json["value"])
    return [(name, place, drop) for name, place in places.items() for drop in (False, True)]


def test_every_field_of_a_cache_entry_of_the_wrong_type_or_missing_is_a_miss(cache, entry):
    """Each field of a real parse, given another type or left out (a field with a default
    may be left out: the record it makes is then its own, and no other field changed)."""
    document, _ = entry
    key = "e" * 64
    path = _entry_file(cache, key)
    cases = _field_cases(document)
    assert len(cases) >= 60
    misses = 0
    for name, place, drop in cases:
        original = document["value"]
        for step in place:
            original = original[step]
        value = _set(document["value"], place, None if drop else _wrong(original), drop)
        path.write_text(json.dumps({**document, "key": key, "value": value}))
        loaded = disk_cache.load("parsed", key, ParsedSource)
        if loaded is None:
            misses += 1
            continue
        assert drop, f"{name}: a {type(_wrong(original)).__name__} was read back"
        assert isinstance(loaded, ParsedSource)
    assert misses >= len(cases) // 2


BAD_ENTRIES = (
    "pickle", "empty", "cut", "format", "version", "kind", "key", "extra", "list", "deep",
    "nan", "huge-int", "latin1",
)  # fmt: skip


def _bad_entry(case: str, document: dict[str, Any], key: str, probe: Path) -> bytes:
    """The bytes of a foreign or damaged entry under ``key``."""
    kept = {**document, "key": key}
    text = json.dumps(kept)
    changed = {
        "format": {**kept, "format": "x"},
        "version": {**kept, "version": 2},
        "kind": {**kept, "kind": "builtins.int"},
        "key": document,  # another key's entry
        "extra": {**kept, "code": "x"},
    }
    if case in changed:
        return json.dumps(changed[case]).encode()
    return {
        "pickle": pickle.dumps(Probe(probe)),
        "empty": b"",
        "cut": text.encode()[:400],
        "list": b"[1, 2, 3]",
        "deep": b"[" * 100_000 + b"]" * 100_000,
        "nan": text.replace('"line": 1', '"line": NaN', 1).encode(),
        "huge-int": text.replace('"line": 1', '"line": ' + "9" * 5000, 1).encode(),
        "latin1": b"\xff\xfe" + text.encode(),
    }[case]


@pytest.mark.parametrize("case", sorted(BAD_ENTRIES))
def test_a_foreign_cache_entry_is_a_miss_and_never_runs(cache, entry, outside, case):
    document, _ = entry
    key = "f" * 64
    _entry_file(cache, key).write_bytes(_bad_entry(case, document, key, outside / "probe"))
    assert disk_cache.load("parsed", key, ParsedSource) is None


@pytest.mark.parametrize(
    "make",
    [
        lambda p, o: os.mkfifo(p),
        lambda p, o: p.symlink_to("/dev/zero"),
        lambda p, o: p.symlink_to(o / "entry.json"),
        lambda p, o: p.mkdir(),
        lambda p, o: _sparse(p, disk_cache.MAX_ENTRY_BYTES + 1),
    ],
    ids=["fifo", "device", "link-out", "folder", "huge"],
)
def test_a_cache_entry_that_is_not_a_file_is_a_miss_at_once(cache, outside, make):
    key = "d" * 64
    make(_entry_file(cache, key), outside)
    started = time.monotonic()
    assert disk_cache.load("parsed", key, ParsedSource) is None
    assert time.monotonic() - started < 1


def test_a_planted_entry_under_a_real_key_is_parsed_again_never_loaded(cache, outside):
    first = parser.parse(SOURCE, {"N": 3}, "k.cl")
    (path,) = (cache / "parsed").glob("*.json")
    path.write_bytes(pickle.dumps(Probe(outside / "probe")))
    (cache / "parsed" / f"{path.stem}.pickle").write_bytes(pickle.dumps(Probe(outside / "probe")))
    again = parser.parse(SOURCE, {"N": 3}, "k.cl")
    assert again == first
    assert json.loads(path.read_text())["value"]["source"] == SOURCE  # written again, as data


def test_a_cache_folder_that_is_a_link_out_is_not_used(cache, outside):
    cache.mkdir()
    (cache / "parsed").symlink_to(outside)
    parser.parse(SOURCE, {"N": 4}, "k.cl")
    assert sorted(p.name for p in outside.iterdir() if p.suffix == ".json") == ["entry.json"]


def test_the_cache_removes_only_what_it_wrote(cache, outside, monkeypatch):
    folder = cache / "parsed"
    folder.mkdir(parents=True)
    theirs = {
        "notes.txt": b"mine",
        f"{'a' * 64}.json.bak": b"mine",
        f"{'A' * 64}.json": b"mine",
        f"{'b' * 63}.json": b"mine",
    }
    for name, data in theirs.items():
        (folder / name).write_bytes(data)
    (folder / f"{'c' * 64}.json").symlink_to(outside / "entry.json")  # a link: not ours
    (folder / "sub").mkdir()
    monkeypatch.setattr(disk_cache, "MAX_ENTRIES", 2)
    monkeypatch.setattr(disk_cache, "PRUNE_EVERY", 1)  # the folder scanned at every store
    for n in range(6):
        disk_cache.store("parsed", f"{n:064x}", n)
    ours = sorted(p.name for p in folder.glob("0*.json"))
    assert len(ours) <= 2 and f"{5:064x}.json" in ours
    for name, data in theirs.items():
        assert (folder / name).read_bytes() == data
    assert (folder / f"{'c' * 64}.json").is_symlink() and (folder / "sub").is_dir()
    assert (outside / "entry.json").stat().st_size == 2  # "{}", neither removed nor read


# -- settings ---------------------------------------------------------------------------------

SETTINGS_CASES = {
    "sizes-deep": ("sizes", "[" * 10_000 + "]" * 10_000, "sizes"),
    "sizes-list": ("sizes", "[64]", "sizes"),
    "sizes-text": ("sizes", '{"M": "64"}', "sizes"),
    "sizes-bool": ("sizes", '{"M": true}', "sizes"),
    "sizes-huge": ("sizes", '{"M": ' + "9" * 5000 + "}", "sizes"),
    "sizes-long": ("sizes", '{"M": 64, "x": "' + "y" * 70_000 + '"}', "sizes"),
    "defines-nan": ("defines", '{"TS": NaN}', "defines"),
    "local": ("local", "0x16", "local"),
    "local-many": ("local", "1x1x1x1", "local"),
    "local-digits": ("local", "9" * 40, "local"),
    "format": ("format", "9" * 5000, "format"),
    "family": ("family", "x" * 5000, "family"),
}


@pytest.fixture
def stored(tmp_path, qapp):
    from PySide6.QtCore import QSettings

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    for key, value in {
        "format": 1,
        "family": "matmul",
        "variant": "tiled",
        "sizes": '{"M": 64}',
        "defines": "{}",
    }.items():
        settings.setValue(key, value)
    return settings


@pytest.mark.parametrize("case", sorted(SETTINGS_CASES))
def test_a_bad_setting_falls_back_to_the_defaults_naming_it(stored, case):
    from explorer.gui.model import ConfigModel
    from explorer.gui.settings import restore

    key, value, named = SETTINGS_CASES[case]
    stored.setValue(key, value)
    notice = restore(stored, ConfigModel())
    assert notice is not None and "defaults" in notice
    _message_ok(notice, named)


@pytest.mark.parametrize(
    "value",
    [
        "[" * 10_000 + "]" * 10_000,
        "{",
        '[{"command": 5}]',
        '[{"command": "ssh x", "label": ["a"]}]',
        '[{"command": "ssh x", "label": "a/b"}]',
        '[{"command": "ssh \\"x"}]',
        '[{"command": "ssh x", "eval": "y"}]',
        '[{"command": "' + "x" * 5000 + '"}]',
        '{"command": "ssh x"}',
        '[{"command": ' + "9" * 5000 + "}]",
    ],
    ids=[
        "deep",
        "cut",
        "number",
        "label-list",
        "label-slash",
        "quote",
        "unknown",
        "long",
        "map",
        "huge-int",
    ],
)
def test_a_remembered_host_that_is_not_one_is_left_out(stored, value):
    from explorer.gui.settings import hosts

    stored.setValue("hosts", value)
    assert hosts(stored) == []


@pytest.mark.parametrize(
    "value",
    ['{"name": ' * 10_000 + "1" + "}" * 10_000, '{"name": 5}', '{"name": "x", "eval": 1}', "{"],
    ids=["deep", "number", "unknown", "cut"],
)
def test_a_remembered_device_that_is_not_one_is_forgotten(stored, value):
    from explorer.gui.settings import device_name

    stored.setValue("device", value)
    assert device_name(stored) is None
