"""The local size the open-kernel dialog proposes comes from the kernel's own text, in the
ways people write it; a kernel that asks for none gets none from here."""

import pytest

from explorer.engine.header.guess import local_size_of, required_local_size

HEAD = "__kernel void k(__global const float *a, __global float *b)"
STYLES = {
    "reqd_work_group_size": (
        f"__attribute__((reqd_work_group_size(32, 4, 1)))\n{HEAD}\n{{ b[0] = a[0]; }}",
        2,
        ("32", "4"),
    ),
    "a tile with a halo": (
        f"#define TS 8\n{HEAD}\n{{ __local float tile[TS + 2][TS + 2]; b[0] = a[0]; }}",
        2,
        ("8", "8"),
    ),
    "a padded tile": (
        f"#define TILE_DIM 32\n#define PAD 1\n{HEAD}\n"
        "{ local float tile[TILE_DIM][TILE_DIM + PAD]; b[0] = a[0]; }",
        2,
        ("32", "32"),
    ),
    "a rectangular tile in numbers": (
        f"{HEAD}\n{{ __local float tile[4][17]; b[0] = a[0]; }}",
        2,
        ("16", "4"),
    ),
    "a scratch array sized by a define after the kernel": (
        f"{HEAD}\n{{ __local float part[WG]; b[0] = a[0]; }}\n#define WG 128",
        1,
        ("128",),
    ),
    "a tile side define": (f"#define BLOCK_SIZE 16\n{HEAD}\n{{ b[0] = a[0]; }}", 2, ("16", "16")),
}


@pytest.mark.parametrize("style", list(STYLES))
def test_the_kernels_own_local_size(style):
    source, dims, expected = STYLES[style]
    assert required_local_size(source, "k", dims) == expected
    assert local_size_of(source, "k", dims) == expected


def test_a_kernel_that_asks_for_none_gets_the_default():
    source = f"{HEAD}\n{{ b[get_global_id(0)] = a[get_global_id(0)]; }}"
    assert required_local_size(source, "k", 2) is None
    assert local_size_of(source, "k", 2) == ("8", "8")
    # a tile too large for any work-group is no constraint
    big = f"#define T 64\n{HEAD}\n{{ __local float t[T][T]; b[0] = a[0]; }}"
    assert required_local_size(big, "k", 2) is None
