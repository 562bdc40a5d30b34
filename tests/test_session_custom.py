"""Sessions of custom kernels and of chosen matrix layouts: saved, refused when wrong, run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from explorer.engine.header.catalog import load_variant_file, with_header
from explorer.engine.records import RunRequest
from explorer.session import (
    FORMAT,
    FORMAT_VERSION,
    SessionError,
    load_session,
    save_session,
    session_from_request,
)
from tests.conftest import TEST_KERNELS
from tests.robustness.helpers import cli

BARE = "__kernel void twice(__global float* x) { x[get_global_id(0)] *= 2.0f; }\n"
HEADER = """/*---
name = "twice"
family = "custom"
kernel = "twice"
global = ["N"]
local = ["8"]
[sizes]
N = 64
[args.x]
buffer = "float"
count = "N"
[reference]
numpy = "2 * x"
---*/
"""


def _write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _custom(tmp_path: Path, **changes: object) -> dict:
    shutil.copy(TEST_KERNELS / "custom" / "transpose_int.cl", tmp_path / "t.cl")
    data = {"format": FORMAT, "version": FORMAT_VERSION, "family": "custom"}
    data.update({"kernel_path": "t.cl", "sizes": {"ROWS": 8, "COLS": 16}})
    data.update(changes)
    return data


def test_a_custom_kernels_own_sizes_load_and_others_are_refused(tmp_path):
    session = load_session(_write(tmp_path / "s.kexp.json", _custom(tmp_path)))
    assert session.sizes == {"ROWS": 8, "COLS": 16}
    bad = _write(tmp_path / "bad.kexp.json", _custom(tmp_path, sizes={"N": 8}))
    with pytest.raises(SessionError, match=r"field 'sizes'.*no size 'N'.*ROWS, COLS"):
        load_session(bad)


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"family": "matmul", "variant": "tiled", "layout": "diagonal"}, "layout", "diagonal"),
        ({"family": "matmul", "variant": "tiled", "layout": "X:row-major"}, "layout", "A, B, C"),
        ({"family": "matmul", "variant": "tiled", "header": HEADER}, "header", "kernel file"),
    ],
)
def test_a_bad_layout_or_header_is_refused_naming_the_field(tmp_path, changes, field, words):
    data = {"format": FORMAT, "version": FORMAT_VERSION, **changes}
    with pytest.raises(SessionError) as caught:
        load_session(_write(tmp_path / "bad.kexp.json", data))
    assert f"field '{field}'" in str(caught.value) and words in str(caught.value)


@pytest.mark.parametrize(
    ("header", "words"),
    [
        (HEADER.replace("/*---\n", "/*--- ").replace("\n---*/", " ---*/"), "not a catalog header"),
        (HEADER.replace("\n---*/\n", "\n"), "not a catalog header"),  # never closed
        (HEADER.replace('"twice"\n', '"twice\n', 1), "header is not valid TOML"),
    ],
)
def test_a_malformed_header_field_is_named_not_the_kernel_file(tmp_path, header, words):
    """The session's header is what is wrong; the kernel file was said to have no header."""
    (tmp_path / "twice.cl").write_text(BARE)
    data = {"format": FORMAT, "version": FORMAT_VERSION, "family": "custom"}
    data.update(kernel_path="twice.cl", header=header)
    done = cli("run", "--session", str(_write(tmp_path / "s.kexp.json", data)))
    assert done.code == 2 and "Traceback" not in done.err
    assert "field 'header'" in done.err and words in done.err
    assert "no catalog header" not in done.err and "twice.cl" not in done.err


@pytest.mark.usefixtures("fast_cli")
def test_a_header_declared_in_the_app_travels_in_the_session(tmp_path):
    kernel = tmp_path / "twice.cl"
    kernel.write_text(BARE)
    variant = with_header(BARE, HEADER, kernel)
    session = session_from_request(
        RunRequest(variant, {"N": 32}, input="declared"), None, header=HEADER
    )
    path = save_session(session, tmp_path / "twice.kexp.json")
    assert kernel.read_text() == BARE  # the file itself is never written
    done = cli("run", "--session", str(path), "--json")
    assert done.code == 0, done.err
    result = json.loads(done.out.splitlines()[-1])
    assert (result["status"], result["size"]) == ("verified", {"N": 32})


@pytest.mark.usefixtures("fast_cli")
def test_a_layout_chosen_in_the_app_is_what_a_session_run_uses(tmp_path):
    source = (TEST_KERNELS / "custom" / "matmul_bt.cl").read_text()
    kernel = tmp_path / "bt.cl"
    kernel.write_text(source.replace('B = "transposed"', 'B = "column-major"'))
    variant = load_variant_file(kernel)
    chosen = "A:column-major,B:row-major,C:column-major"
    sizes = {"M": 24, "N": 16, "K": 8}
    statuses = []
    for layout in (None, chosen):
        session = session_from_request(
            RunRequest(variant, sizes, input="random"), None, layout=layout
        )
        path = save_session(session, tmp_path / "bt.kexp.json")
        done = cli("run", "--json", "--session", str(path))
        statuses.append(json.loads(done.out.splitlines()[-1])["status"])
    assert statuses == ["wrong", "verified"]
