"""A reported (presumed) line's place in the text shown, and back, under `#line`."""

from pathlib import Path

import pytest

from explorer.frontend.line_directives import line_numbering, split_lines

HEADER = '/*---\nname = "k"\nfamily = "custom"\nkernel = "k"\n---*/\n'
KERNEL = "__kernel void k(__global float *x)\n{\n    x[0] = 1.0f;\n}\n"


def test_a_text_without_line_directives_is_numbered_as_it_stands():
    text = HEADER + KERNEL
    numbering = line_numbering(text)
    count = len(split_lines(text))
    assert [numbering.physical(n) for n in range(1, count + 1)] == list(range(1, count + 1))
    assert [numbering.presumed(n) for n in range(1, count + 1)] == list(range(1, count + 1))
    assert numbering.physical(0) is None and numbering.physical(count + 1) is None


def test_the_code_after_a_header_and_line_1_counts_from_1():
    text = HEADER + "#line 1\n" + KERNEL
    lines = split_lines(text)
    numbering = line_numbering(text)
    assert lines[numbering.physical(3) - 1] == "    x[0] = 1.0f;"
    assert numbering.physical(1) == 7  # the kernel's first line, not the header's
    assert numbering.presumed(9) == 3
    assert [numbering.presumed(n) for n in range(1, 7)] == [None] * 6  # header, directive


def test_the_shipped_kernel_with_a_header_and_line_1():
    path = Path(__file__).parents[1] / "trace/private_unset/blocked_unzeroed.cl"
    text = path.read_text()
    numbering = line_numbering(text)
    assert split_lines(text)[numbering.physical(13) - 1].strip() == "b[j] = B[k * N + col0 + j];"


def test_lines_before_the_last_line_directive_give_way_to_the_code_after_it():
    """A captured program's macros stand before `#line 1`: the program's line 1 is after."""
    text = "#define N 64\n#define M 8\n#line 1\n" + KERNEL
    numbering = line_numbering(text)
    assert numbering.physical(1) == 4 and numbering.physical(3) == 6
    assert numbering.presumed(6) == 3 and numbering.presumed(3) is None


def test_two_directives_number_each_part_from_its_own():
    text = HEADER + "#line 1\nint helper(void)\n{ return 1; }\n#line 40\n" + KERNEL
    lines = split_lines(text)
    numbering = line_numbering(text)
    assert lines[numbering.physical(2) - 1] == "{ return 1; }"
    assert lines[numbering.physical(42) - 1] == "    x[0] = 1.0f;"
    assert numbering.physical(5) is None  # no line 5 in either part, nor in the header


def test_lines_under_a_directive_naming_another_file_are_not_the_kernels():
    text = '#line 1\nkernel line 1\n#line 1 "other.h"\nother line 1\n#line 7\nother line 7\n'
    lines = split_lines(text)
    numbering = line_numbering(text)
    assert lines[numbering.physical(1) - 1] == "kernel line 1"
    assert numbering.physical(7) is None  # `#line 7` stays in other.h
    assert lines[numbering.physical(1, "other.h") - 1] == "other line 1"
    assert lines[numbering.physical(7, "other.h") - 1] == "other line 7"
    assert numbering.presumed(4) is None and numbering.place(4) == ("other.h", 1)
    # A compiler names the kernel's own file after the file opened: any name no directive
    # gives is the kernel's.
    assert lines[numbering.physical(1, "mine.cl") - 1] == "kernel line 1"


def test_a_line_directive_written_inside_the_header_comment_is_no_directive():
    text = '/*---\nname = "k"\n#line 40\n---*/\n#line 1\n' + KERNEL
    numbering = line_numbering(text)
    assert split_lines(text)[numbering.physical(3) - 1] == "    x[0] = 1.0f;"
    assert numbering.physical(40) is None and numbering.presumed(3) is None


# A text whose first line is a one-line `/*--- ... ---*/` comment (no catalog header: TOML
# takes one key a line) and which later holds a comment in the header's style.
ONE_LINE = '/*--- name = "x" ---*/\n#line 1\n' + KERNEL + "/*---\n  tried TS = 32: slower\n---*/\n"


def test_the_numbering_reads_the_header_the_catalog_reads():
    """One definition of the header: where the catalog finds none, no line is the header's,
    and the `#line 1` after a one-line comment numbers the kernel from 1."""
    lines = split_lines(ONE_LINE)
    numbering = line_numbering(ONE_LINE)
    assert numbering.directed
    assert lines[numbering.physical(1) - 1] == KERNEL.splitlines()[0]
    assert lines[numbering.physical(3) - 1] == "    x[0] = 1.0f;"
    assert numbering.presumed(2) is None  # the directive


def test_a_one_line_header_is_refused_saying_why():
    from explorer.engine.header.catalog import CatalogError, parse_variant

    with pytest.raises(CatalogError) as refused:
        parse_variant(ONE_LINE, "one.cl")
    assert "no catalog header" in str(refused.value)
    assert "/*--- and ---*/ each on a line of their own" in str(refused.value)


def test_a_header_with_crlf_line_ends_is_the_header_for_the_numbering_too():
    """The catalog reads a header saved with Windows line ends; its lines have no number."""
    text = HEADER.replace("\n", "\r\n") + "#line 1\r\n" + KERNEL.replace("\n", "\r\n")
    numbering = line_numbering(text)
    header = len(HEADER.splitlines())
    assert [numbering.presumed(n) for n in range(1, header + 2)] == [None] * (header + 1)
    assert split_lines(text)[numbering.physical(3) - 1] == "    x[0] = 1.0f;\r"


def test_a_build_message_is_the_kernels_own_only_where_it_names_the_kernels_file():
    from explorer.frontend.line_directives import is_own_file, log_place

    def own(message: str, name: str = "my kernel.cl") -> bool:
        place = log_place(message)
        assert place is not None
        return is_own_file(place[0], name)

    assert own("error: my kernel.cl:3:5: use of undeclared identifier 'x'")  # PoCL's form
    assert own("my kernel.cl:3:5: error: use of undeclared identifier 'x'")  # clang's form
    assert not own("error: /home/me/kernels/common.h:14:3: use of undeclared identifier 'x'")
    assert not own("error: /home/me/my kernels/my kernel.cl:2:1: an include of that name")
    assert log_place("error: /tmp/a b/common.h:14:3: x") == ("/tmp/a b/common.h", 14)
    assert log_place("Device pthread failed to build the program") is None
