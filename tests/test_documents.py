"""The one reader of documents from outside: sizes, depth, fields and paths."""

from __future__ import annotations

import os

import pytest

from explorer.documents import DocumentError, Fields, inside, parse_json, read_json
from explorer.paths import UserFileError


def test_a_field_of_the_wrong_type_is_named_with_what_was_expected() -> None:
    entry = Fields({"number": "seven"}, "capture.json: launches[2]")
    with pytest.raises(
        DocumentError, match=r"launches\[2\]\.number: expected a whole number, found text 'seven'"
    ):
        entry.integer("number", minimum=1)


def test_a_missing_required_field_is_named() -> None:
    from explorer.documents import REQUIRED

    with pytest.raises(DocumentError, match=r"session\.json\.family: missing"):
        Fields({}, "session.json").text("family", REQUIRED)


def test_lists_of_sizes_are_checked_element_by_element() -> None:
    entry = Fields({"global": [64, -1]}, "capture.json: launches[0]")
    with pytest.raises(DocumentError, match=r"global\[1\]: expected a whole number of at least 1"):
        entry.integers("global", minimum=1)
    assert Fields({"global": [64, 8]}, "x").integers("global", minimum=1) == (64, 8)


def test_deep_nesting_is_refused_without_a_recursion_error() -> None:
    with pytest.raises(DocumentError, match="nested deeper than 32 levels"):
        parse_json("[" * 40 + "]" * 40, "capture.json")
    with pytest.raises(DocumentError, match="nested deeper"):
        parse_json("[" * 200_000 + "]" * 200_000, "capture.json")


def test_a_fifo_is_refused_without_waiting(tmp_path) -> None:
    fifo = tmp_path / "capture.json"
    os.mkfifo(fifo)
    with pytest.raises(UserFileError, match="named pipe"):
        read_json(fifo, "capture")


@pytest.mark.parametrize(
    "name", ["/etc/passwd", "../secret.cl", "a/../../secret.cl", "C:\\x.cl", "\\\\srv\\x"]
)
def test_paths_out_of_the_folder_are_refused(tmp_path, name) -> None:
    with pytest.raises(DocumentError, match=r"absolute path|climbs out"):
        inside(tmp_path, name, "capture.json: programs[0].source")


def test_a_symbolic_link_out_of_the_folder_is_refused(tmp_path) -> None:
    outside = tmp_path / "outside.cl"
    outside.write_text("secret")
    folder = tmp_path / "capture"
    (folder / "programs").mkdir(parents=True)
    (folder / "programs" / "p.cl").symlink_to(outside)
    (folder / "programs" / "q.cl").write_text("kernel void k() {}")
    with pytest.raises(DocumentError, match="symbolic link"):
        inside(folder, "programs/p.cl", "capture.json: programs[0].source")
    assert inside(folder, "programs/q.cl", "x").read_text() == "kernel void k() {}"


def test_an_integer_of_thousands_of_digits_is_refused_naming_the_document() -> None:
    with pytest.raises(DocumentError, match=r"capture\.json holds a value that cannot be read"):
        parse_json("[" + "7" * 5000 + "]", "capture.json")


def test_a_choice_and_a_file_are_checked_and_named(tmp_path) -> None:
    entry = Fields({"kind": "image", "before": "../x.npy"}, "capture.json: launches[0].args[1]")
    with pytest.raises(DocumentError, match=r"args\[1\]\.kind: expected one of buffer, local"):
        entry.choice("kind", ("buffer", "local"))
    with pytest.raises(DocumentError, match=r"args\[1\]\.before: \.\./x\.npy climbs out"):
        entry.file("before", tmp_path)
    assert Fields({"before": "data/x.npy"}, "x").file("before", tmp_path) == "data/x.npy"
    assert Fields({}, "capture.json:").at("version") == "capture.json: version"


def test_an_array_file_must_hold_what_its_document_says(tmp_path) -> None:
    import numpy as np

    from explorer.documents import array_file, load_array

    path = tmp_path / "y.npy"
    np.save(path, np.arange(100, dtype=np.float32))
    assert load_array(path, "contents", "float32", (100,), "args[1]").sum() == 4950
    with pytest.raises(
        UserFileError, match=r"holds float32 values of shape \(100,\); args\[1\] says"
    ):
        array_file(path, "contents", "int32", (100,), "args[1]")
    path.write_bytes(path.read_bytes()[:-4])
    with pytest.raises(UserFileError, match="cut short"):
        array_file(path, "contents", "float32", (100,), "args[1]")
    np.save(path, np.array([None, {}], dtype=object), allow_pickle=True)
    with pytest.raises(UserFileError, match="Python objects"):
        array_file(path, "contents", "float32", (2,), "args[1]")
    os.unlink(path)
    os.mkfifo(path)
    with pytest.raises(UserFileError, match="named pipe"):
        array_file(path, "contents", "float32", (100,), "args[1]")


# -- strict JSON, TOML, records as data ------------------------------------------------------


def test_strict_json_refuses_what_the_standard_refuses() -> None:
    from explorer.documents import (
        NotJsonError,
        RepeatedFieldError,
        TooDeepError,
        parse_strict_json,
    )

    with pytest.raises(RepeatedFieldError, match="'a' is given twice") as caught:
        parse_strict_json('{"a": 1, "a": 2}', "s.json")
    assert caught.value.field == "a"
    with pytest.raises(NotJsonError, match="NaN is not a JSON number"):
        parse_strict_json('{"a": NaN}', "s.json")
    with pytest.raises(NotJsonError, match=r"s\.json is not valid JSON"):
        parse_strict_json('{"a": ' + "9" * 5000 + "}", "s.json")
    with pytest.raises(NotJsonError) as cut:
        parse_strict_json('{\n"a": ', "s.json")
    assert cut.value.line == 2
    with pytest.raises(TooDeepError):
        parse_strict_json("[" * 10 + "]" * 10, "s.json", max_depth=4)


def test_toml_is_read_bounded_in_size_and_depth(tmp_path) -> None:
    from explorer.documents import read_toml

    path = tmp_path / "e.toml"
    path.write_text('title = "t"\n[[figure]]\nat_most = 1.5\n')
    assert read_toml(path, "exercise file") == {"title": "t", "figure": [{"at_most": 1.5}]}
    path.write_text("x = " + "[" * 40 + "]" * 40)
    with pytest.raises(DocumentError, match="nested deeper than 8"):
        read_toml(path, "exercise file", max_depth=8)
    path.write_text('title = "open')
    with pytest.raises(DocumentError, match=r"e\.toml is not valid TOML"):
        read_toml(path, "exercise file")
    path.write_text("x" * 100)
    with pytest.raises(UserFileError, match="at most"):
        read_toml(path, "exercise file", limit=10)


def test_a_record_comes_back_from_data_equal_and_a_wrong_field_is_named() -> None:
    from explorer.documents import as_data, from_data
    from explorer.frontend.model import AddressSpace, Span, SyncKind, SyncSite

    span = Span(0, 10, 1, 1, 1, 11)
    site = SyncSite("k", 3, 5, span, SyncKind.BARRIER, frozenset({AddressSpace.LOCAL}))
    data = as_data(site)
    assert data["kind"] == "barrier" and data["fences"] == ["local"]
    assert from_data(SyncSite, data, "entry") == site
    with pytest.raises(DocumentError, match=r"entry\.span\.line: expected a whole number"):
        from_data(SyncSite, {**data, "span": {**data["span"], "line": "1"}}, "entry")
    with pytest.raises(DocumentError, match=r"entry\.kind: expected one of 'barrier'"):
        from_data(SyncSite, {**data, "kind": "reboot"}, "entry")
    with pytest.raises(DocumentError, match=r"entry\.fences\[0\]: expected one of"):
        from_data(SyncSite, {**data, "fences": ["heap"]}, "entry")
    with pytest.raises(DocumentError, match=r"entry\.code: not a field of SyncSite"):
        from_data(SyncSite, {**data, "code": "x"}, "entry")
    with pytest.raises(DocumentError, match=r"entry\.span: missing"):
        from_data(SyncSite, {k: v for k, v in data.items() if k != "span"}, "entry")
    with pytest.raises(TypeError):
        as_data(object())
