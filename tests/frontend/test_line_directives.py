"""A reported (presumed) line's place in the text shown, and back, under `#line`."""

from pathlib import Path

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
