from pathlib import Path

import pytest

from explorer.engine.header.catalog import (
    CatalogError,
    catalog,
    find_variant,
    load_variant_file,
    parse_variant,
)
from explorer.families import FAMILIES

REQUIRED = {
    "matmul": {
        "naive",
        "tiled",
        "wpt",
        "reg2d",
        "seed000-naive",
        "seed000-tiled",
        "seed003-func1",
        "seed003-func2",
    },
    "transpose": {"naive", "tiled", "tiled-padded", "fast"},
    "matvec": {
        "nvidia-uncoalesced0",
        "nvidia-uncoalesced1",
        "nvidia-coalesced0",
        "nvidia-coalesced1",
        "nvidia-coalesced2",
        "nvidia-coalesced3",
        "fast",
    },
    "rowdot": {
        "seed004-original",
        "seed004-local-vector",
        "seed004-group-row",
        "local-vector",
        "group-row",
        "fast",
    },
}


def test_every_required_variant_is_in_the_catalog():
    ids = {(v.family, v.id) for v in catalog()}
    for family, wanted in REQUIRED.items():
        assert {(family, i) for i in wanted} <= ids


def test_every_variant_explains_itself():
    for v in catalog():
        assert v.name and v.source_ref, v.path
        assert len(v.text.split()) >= 12, f"{v.qualified_id}: explanation too short"
        assert set(v.args) <= set(FAMILIES[v.family].roles)


def test_ladders_come_first_in_catalog_order():
    matmul = [v.id for v in catalog() if v.family == "matmul"]
    assert matmul[:4] == ["naive", "tiled", "wpt", "reg2d"]


def test_seed_bugs_are_named():
    for family, vid in (
        ("matvec", "nvidia-coalesced3"),
        ("rowdot", "seed004-local-vector"),
        ("rowdot", "seed004-group-row"),
    ):
        assert (
            "barrier" in find_variant(family, vid).bug.lower()
            or "warp" in find_variant(family, vid).bug.lower()
        )


def test_unknown_variant_names_the_choices():
    with pytest.raises(CatalogError, match="tiled"):
        find_variant("matmul", "nope")


HEADER = """/*---
name = "Mine"
family = "matmul"
kernel = "mine"
args = ["A", "B", "C", "M", "N", "K"]
global = ["N", "M"]
local = ["8", "8"]
[about]
text = "My own kernel."
---*/
__kernel void mine(__global const float* A, __global const float* B, __global float* C,
                   int M, int N, int K) { }
"""


def test_user_file_with_header_becomes_a_variant(tmp_path: Path):
    path = tmp_path / "mine.cl"
    path.write_text(HEADER)
    variant = load_variant_file(path)
    assert (variant.family, variant.id, variant.kernel) == ("matmul", "mine", "mine")
    assert variant.source.startswith("/*---")


def test_a_file_with_windows_line_ends_is_read_like_any_other(tmp_path: Path):
    """CRLF line ends, as a Windows editor or git's autocrlf writes them: the same variant."""
    unix, windows = tmp_path / "mine.cl", tmp_path / "crlf.cl"
    unix.write_text(HEADER)
    windows.write_bytes(HEADER.replace("\n", "\r\n").encode())
    a, b = load_variant_file(unix), load_variant_file(windows)
    assert (b.family, b.kernel, b.global_size) == (a.family, a.kernel, a.global_size)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda s: s.replace("/*---", "/*"), "no catalog header"),
        (lambda s: s.replace('family = "matmul"', 'family = "fft"'), "unknown family"),
        (lambda s: s.replace('"K"]', '"Q"]', 1), "not roles of matmul"),
        (lambda s: s.replace('global = ["N", "M"]', 'global = ["N", "ROWS"]'), "ROWS"),
        (lambda s: s.replace('kernel = "mine"\n', ""), "lacks 'kernel'"),
        (lambda s: s.replace('name = "Mine"', 'name = "Mine'), "not valid TOML"),
    ],
)
def test_bad_headers_are_explained(edit, message):
    with pytest.raises(CatalogError, match=message):
        parse_variant(edit(HEADER), "mine.cl")


CUSTOM = """/*---
name = "CSR column indices"
family = "custom"
kernel = "gather"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[defines]
NNZ_ROW = 4
[args.cols]
buffer = "int"
count = "N"
contents = "iota"
step = 4
access = "read"
[args.y]
buffer = "float"
count = "N"
access = "write"
---*/
__kernel void gather(__global const int *cols, __global float *y)
{
    y[get_global_id(0)] = cols[get_global_id(0)];
}
"""


def test_an_iota_step_given_as_a_name_is_refused_naming_the_key_and_its_line(tmp_path: Path):
    path = tmp_path / "gather.cl"
    path.write_text(CUSTOM.replace("step = 4", 'step = "NNZ_ROW"'))
    with pytest.raises(CatalogError) as caught:
        load_variant_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:15: parameter 'cols': key 'step': 'NNZ_ROW'")
    assert "finite number written out (e.g. step = 4)" in message
    path.write_text(CUSTOM)
    assert load_variant_file(path).custom.declaration("cols").step == 4.0


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (("step = 4", "step = [1, 2]"), ":15: parameter 'cols': key 'step': [1, 2]"),
        (("step = 4", "step = true"), ":15: parameter 'cols': key 'step': True"),
        (("step = 4", "step = nan"), ":15: parameter 'cols': key 'step': nan"),
        (("step = 4", 'step = "1e999"'), ":15: parameter 'cols': key 'step': '1e999'"),
        (
            ('access = "write"', 'access = "write"\nnull = "NNZ_ROW"'),
            "key 'null': 'NNZ_ROW': must be",
        ),
        (('access = "write"', 'access = "write"\nfile = 3'), "key 'file': 3: must be a file name"),
        (
            ("NNZ_ROW = 4", "NNZ_ROW = true"),
            "[defines] NNZ_ROW = True: a define's value must be an",
        ),
    ],
)
def test_odd_header_values_are_refused_naming_their_key(tmp_path: Path, edit, says):
    """Each was a Python conversion error naming nothing, or taken as something else (a
    null pointer for ``null = "NNZ_ROW"``, 1 for ``true``)."""
    path = tmp_path / "gather.cl"
    path.write_text(CUSTOM.replace(*edit))
    with pytest.raises(CatalogError) as caught:
        load_variant_file(path)
    assert says in str(caught.value)
    assert "could not convert" not in str(caught.value)


def test_an_empty_list_of_scalar_values_is_refused_at_its_key(tmp_path: Path):
    path = tmp_path / "gather.cl"
    text = CUSTOM.replace("[args.y]", '[args.n]\nscalar = "int"\nvalue = []\n[args.y]')
    path.write_text(text.replace("__global float *y)", "int n, __global float *y)"))
    with pytest.raises(CatalogError, match=r":19: parameter 'n': key 'value': an empty list"):
        load_variant_file(path)
