"""The guard an out-of-bounds finding proposes is written in the kernel's own terms: the
variables of the index and the names the kernel gives its bounds, a number only where no name
holds the bound. And the integers a kernel names: its integer arguments, its defines, its
macros."""

from __future__ import annotations

import pytest

from explorer.trace.analysis.guards import guard
from explorer.trace.c_expr import integer_names
from explorer.trace.recorded import GLOBAL, LOCAL, BufferInfo


def buffer(name: str, length: int, shape: tuple[int, ...] = (), space: int = GLOBAL) -> BufferInfo:
    return BufferInfo(name, None, space, 4, length, shape or (length,))


MATMUL = {"M": 48, "N": 32, "K": 64, "TS": 16}


@pytest.mark.parametrize(
    ("text", "target", "low", "high", "expected"),
    [
        # 2-D over whole rows: a row and a column, each bounded by its own name.
        ("C[row * N + col]", buffer("C", 48 * 32), 0, 1600, "if (row < M && col < N)"),
        ("C[col + N * row]", buffer("C", 48 * 32), 0, 1600, "if (row < M && col < N)"),
        # A tiled load: the column is the tile's offset along K.
        ("A[row*K + t*TS + tx]", buffer("A", 48 * 64), 0, 3100, "if (row < M && t*TS + tx < K)"),
        ("B[(t*TS + ty)*N + col]", buffer("B", 64 * 32), 0, 2100, "if (t*TS + ty < K && col < N)"),
        # A loop run to k <= K reaches A[row * K + K]: its guard is k < K.
        ("A[row * K + k]", buffer("A", 48 * 64), 0, 3072, "if (row < M && k < K)"),
        # The stride written twice folds into the row: the row after the last is no row.
        ("C[y * N + N]", buffer("C", 48 * 32), 0, 1536, "if (y + 1 < M)"),
        # A product in the row: the stride is the factor the row is multiplied by.
        (
            "C[gy*TS*N + ty*N + tx]",
            buffer("C", 48 * 32),
            0,
            1600,
            "if (gy * TS + ty < M && tx < N)",
        ),
        # 1-D: the name holding the length; two names' product; a number where none holds it.
        ("x[i + 1]", buffer("x", 64), 0, 64, "if (i + 1 < K)"),
        ("x[get_global_id(0)]", buffer("x", 48 * 32), 0, 1600, "if (get_global_id(0) < M * N)"),
        ("x[i]", buffer("x", 1000), 0, 1003, "if (i < 1000)"),
        # Before the start: bounded below, only there.
        ("x[i - 1]", buffer("x", 64), -1, 10, "if (i >= 1)"),
        ("x[(y - 1) * N + x]", buffer("x", 48 * 32), -32, 100, "if (y >= 1)"),
        # Below zero by a negative column (3x3 weights indexed by the offset): the index
        # itself, not `dy >= 0 && dx >= 0`, which refuses w[2] (dy = 1, dx = -1) too.
        ("w[dy * 3 + dx]", buffer("w", 9), -4, 4, "if (dy * 3 + dx >= 0)"),
        # Vectors: vload4 reads four elements per index.
        ("vload4(i, src)", buffer("src", 64 * 4), 0, 256, "if (i < K)"),
        ("vstore2(v, i, dst)", buffer("dst", 48 * 2), 0, 96, "if (i < M)"),
        # A local array of two dimensions, per dimension; a member of a struct element.
        (
            "tile[ly][lx + 1]",
            buffer("tile", 16 * 17, (16, 17), LOCAL),
            0,
            272,
            "if (ly < TS && lx + 1 < 17)",
        ),
        ("cells[l + 1].v", buffer("cells", 32, (32,), LOCAL), 0, 32, "if (l + 1 < N)"),
        ("*(q + i)", buffer("q", 48), 0, 48, "if (i < M)"),
        ("atomic_inc(&bins[v % 64])", buffer("bins", 64), 0, 64, "if (v % 64 < K)"),
    ],
)
def test_the_guard_uses_the_index_and_the_bounds_names(text, target, low, high, expected):
    assert guard(text, target, MATMUL, low, high) == expected


def test_where_several_names_hold_a_bound_the_strides_partner_is_meant():
    names = {"width": 64, "height": 64}
    got = guard("img[y * width + x]", buffer("img", 64 * 64), names, 0, 4100)
    assert got == "if (y < height && x < width)"


def test_a_bound_several_names_hold_without_a_partner_is_a_number():
    names = {"M": 32, "N": 32, "K": 32}
    got = guard("A[row * K + k]", buffer("A", 32 * 32), names, 0, 1024)
    assert got == "if (row < 32 && k < K)"


@pytest.mark.parametrize(
    ("text", "target", "high"),
    [
        ("parts[PARTS]", buffer("parts", 2), 2),
        ("parts[2]", buffer("parts", 2), 2),
        ("m[1][K]", buffer("m", 8, (2, 4)), 8),
    ],
)
def test_no_guard_for_a_constant_index(text, target, high):
    """No condition keeps a constant index inside: `if (PARTS < PARTS)` said nothing."""
    assert guard(text, target, {"PARTS": 2, "K": 4}, high, high) is None


@pytest.mark.parametrize(
    "text",
    [
        "p[col]",  # a pointer derived from the buffer: its index is not the buffer's
        "async_work_group_copy(t, src, 16, 0)",
        "C[",  # not an expression
    ],
)
def test_no_guard_where_the_text_does_not_show_the_buffers_index(text):
    assert guard(text, buffer("C", 64), {"n": 64}, 0, 64) is None


def test_the_names_a_kernel_gives_its_integers():
    source = (
        "#define TS 16\n"
        "#define WPT (TS / 4)  // per thread\n"
        "#define HALF(x) ((x) / 2)\n"  # a function-like macro is not an integer
        "/* #define GONE 3 */\n"
        "#define SCALE 1.5f\n"
        "#ifndef BS\n#define BS 8\n#endif\n"
        "#define AREA (TS * BS)\n"
    )
    scalars = [("n", "uint", (64.0,)), ("alpha", "float", 2.0), ("rows", "const int", 12.0)]
    names = dict(integer_names(source, {"BS": "32"}, scalars))
    assert names == {"n": 64, "rows": 12, "BS": 32, "TS": 16, "WPT": 4, "AREA": 512}
