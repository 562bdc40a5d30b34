"""The one writer of catalog headers: what it writes reads back equal, escapes included, inside
the C comment it sits in, and the header keeps the compact layout a person reads in the file."""

from __future__ import annotations

import math
import sys

import pytest

from explorer.engine.header import toml_writer
from explorer.engine.header.catalog import header_text, with_header

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published as tomli
    import tomli as tomllib

HOSTILE = "a \"quoted\" \\ back\\slash\ttab\nnewline\r\x00\x01\x1f\x7f é ∑ */ ---*/ 'single'"


def parsed(header: str) -> dict:
    assert header.startswith(toml_writer.OPEN + "\n")
    assert header.endswith(toml_writer.CLOSE + "\n")
    return tomllib.loads(header[len(toml_writer.OPEN) : -len(toml_writer.CLOSE) - 1])


def test_every_value_reads_back_equal():
    fields = {
        "name": HOSTILE,
        "count": -(1 << 63),
        "big": (1 << 63) - 1,
        "ratio": 1e-300,
        "exact": False,
        "global": ["N", "M / 2"],
        "about": {"text": HOSTILE, "weights": [1.5, -2.0, 3], "nested": {"a b": HOSTILE}},
        "args": {"A": {"buffer": "float", "value": 0.0}, "weird name": {"scalar": "int"}},
    }
    assert parsed(toml_writer.header(fields)) == fields


def test_nan_and_infinities():
    read = parsed(toml_writer.header({"v": [math.inf, -math.inf, math.nan]}))["v"]
    assert read[:2] == [math.inf, -math.inf] and math.isnan(read[2])


def test_no_value_ends_the_comment_the_header_sits_in():
    header = toml_writer.header({"name": "ends */ here", "about": {"text": "*/"}})
    assert "*/" not in header[: -len(toml_writer.CLOSE) - 1]


def test_an_integer_toml_cannot_hold_is_refused():
    with pytest.raises(ValueError, match="64 bits"):
        toml_writer.value(1 << 63)
    with pytest.raises(TypeError):
        toml_writer.value(object())


def test_the_layout_stays_compact():
    header = toml_writer.header(
        {
            "name": "k",
            "global": ["N", "M"],
            "sizes": {"N": 64},
            "args": {"A": {"buffer": "float", "shape": ["N", "M"]}},
            "reference": {"expected": {"A": "a.npy"}, "expected_from": "run"},
        }
    )
    assert header == (
        "/*---\n"
        'name = "k"\n'
        'global = ["N", "M"]\n'
        "[sizes]\n"
        "N = 64\n"
        "[args.A]\n"
        'buffer = "float"\n'
        'shape = ["N", "M"]\n'
        "[reference]\n"
        'expected = { A = "a.npy" }\n'
        'expected_from = "run"\n'
        "---*/\n"
    )


def test_a_kernel_with_any_name_and_text_opens_under_them(tmp_path):
    """The header the window writes for a person's kernel: a name and an explanation with
    quotes, a backslash and ``*/`` come back as they were typed."""
    source = (
        "__kernel void h(__global const int* data, __global int* counts, const int n) {\n"
        "    const int i = get_global_id(0);\n"
        "    if (i < n) atomic_inc(&counts[data[i]]);\n"
        "}\n"
    )
    name = 'my "fast" histogram \\ v2 */'
    text = 'Counts every "value" \\ once */ with ∑.'
    header = header_text(name, "histogram", "h", ["IN", "HIST", "VALUES"], ["VALUES"], ["64"], text)
    variant = with_header(source, header, tmp_path / "mine.cl")
    assert variant.name == name
    assert variant.text == text
