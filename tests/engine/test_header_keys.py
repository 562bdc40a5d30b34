"""A key a kernel file's header does not know is refused, not ignored: a misspelled
``exact_range`` or ``gloabl`` is named with its line and the known key nearest its spelling,
on the command line as in the window (tests/gui/test_header_key_errors.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.engine.header.catalog import (
    HEADER_KEYS,
    CatalogError,
    catalog,
    load_variant_file,
    parse_variant,
    with_header,
)
from explorer.frontend.line_directives import HEADER
from tests.test_cli import cli

ROOT = Path(__file__).resolve().parents[2]

# Runs and traces as it is; each case below adds one line to it, after line 5 (`local`).
KERNEL = """\
/*---
name = "Doubles each value"
family = "custom"
kernel = "twice"
global = ["64"]
local = ["16"]
[args.x]
buffer = "float"
count = "64"
access = "read"
[args.y]
buffer = "float"
count = "64"
contents = "zeros"
access = "write"
[reference]
numpy = "2 * x"
---*/
#line 1
__kernel void twice(__global const float *x, __global float *y)
{
    size_t i = get_global_id(0);
    y[i] = 2.0f * x[i];
}
"""


def with_line(text: str) -> str:
    """KERNEL with ``text`` as the header's line 7 of the file (after ``local``)."""
    lines = KERNEL.split("\n")
    return "\n".join([*lines[:6], text, *lines[6:]])


@pytest.mark.parametrize(
    ("line", "named"),
    [
        # A captured launch's `exact`, misspelled: the NDRange was rounded up in silence.
        ("exact_range = true", "unknown header key 'exact_range': did you mean 'exact'?"),
        ('constraint = ["N % 16 == 0"]', "unknown header key 'constraint': did you mean"),
        ("Defines = {}", "unknown header key 'Defines': did you mean 'defines'?"),
        ("[refrence]", "unknown header key 'refrence': did you mean 'reference'?"),
        ("[[by_sise]]", "unknown header key 'by_sise': did you mean 'by_size'?"),
        ('"about me" = "x"', "unknown header key 'about me': did you mean 'about'?"),
    ],
)
def test_an_unknown_key_is_named_with_its_line_and_the_nearest_known_key(tmp_path, line, named):
    path = tmp_path / "k.cl"
    path.write_text(with_line(line), encoding="utf-8")
    with pytest.raises(CatalogError) as caught:
        load_variant_file(path)
    assert str(caught.value).startswith(f"{path}:7: {named}"), caught.value


def test_a_key_like_no_other_lists_the_keys_there_are(tmp_path):
    path = tmp_path / "k.cl"
    path.write_text(with_line("colour = 3"), encoding="utf-8")
    with pytest.raises(CatalogError) as caught:
        load_variant_file(path)
    assert str(caught.value) == (
        f"{path}:7: unknown header key 'colour': a header's keys are " + ", ".join(HEADER_KEYS)
    )


def test_a_misspelled_required_key_is_named_as_misspelled(tmp_path):
    """Before, a misspelled ``global`` said only that the header lacks 'global'."""
    path = tmp_path / "k.cl"
    path.write_text(KERNEL.replace("global = ", "gloabl = "), encoding="utf-8")
    with pytest.raises(CatalogError, match=r"k\.cl:5: unknown header key 'gloabl': did you mean"):
        load_variant_file(path)


def test_a_header_kept_apart_from_its_file_names_the_line_of_the_header(tmp_path):
    header = HEADER.match(with_line("exact_range = true")).group(0) + "\n"
    body = KERNEL.split("#line 1\n", 1)[1]
    with pytest.raises(CatalogError) as caught:
        with_header(body, header, tmp_path / "k.cl")
    assert str(caught.value).startswith(
        f"{tmp_path / 'k.cl'}: line 7 of the header: unknown header key 'exact_range'"
    )


def test_every_header_shipped_or_tested_uses_known_keys_only():
    assert catalog()
    checked = 0
    for path in sorted((ROOT / "tests").rglob("*.cl")):
        source = path.read_text(encoding="utf-8", errors="replace")
        if HEADER.match(source) is None:
            continue
        try:
            parse_variant(source, path)
        except CatalogError as exc:
            assert "unknown header key" not in str(exc), exc
        except ValueError:
            pass  # a header a test means to be wrong in another way
        checked += 1
    assert checked > 100


@pytest.mark.usefixtures("fast_cli")
@pytest.mark.parametrize("command", ["run", "trace"])
def test_the_command_line_refuses_an_unknown_key(tmp_path, command):
    path = tmp_path / "k.cl"
    path.write_text(KERNEL, encoding="utf-8")
    assert cli(command, "--kernel-file", str(path)).returncode == 0  # as it is: it runs
    path.write_text(with_line("exact_range = true"), encoding="utf-8")
    ran = cli(command, "--kernel-file", str(path))
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert f"error: {path}:7: unknown header key 'exact_range': did you mean 'exact'?" in ran.stderr
