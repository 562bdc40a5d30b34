"""Every corpus kernel yields exactly the memory accesses a reader of the source sees.

Each golden list was written by reading the kernel: (line, base, address space, kind, bytes),
in source order. A site missing, added, or classified differently fails the test, because the
trace built on it would show the user a wrong access.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.frontend import AccessKind, AddressSpace, parse

CORPUS = Path(__file__).parent / "corpus"
DEFINES: dict[str, int | str] = {"UNROLL": 2, "N": 64}

G, L, C, P = AddressSpace.GLOBAL, AddressSpace.LOCAL, AddressSpace.CONSTANT, AddressSpace.PRIVATE
READ, WRITE = AccessKind.READ, AccessKind.WRITE
READ_MODIFY_WRITE, ATOMIC = AccessKind.READ_MODIFY_WRITE, AccessKind.ATOMIC
VLOAD, VSTORE = AccessKind.VLOAD, AccessKind.VSTORE
ASYNC_COPY_READ, ASYNC_COPY_WRITE = AccessKind.ASYNC_COPY_READ, AccessKind.ASYNC_COPY_WRITE

GOLDEN: dict[str, list[tuple[int, str, AddressSpace, AccessKind, int]]] = {
    "01_global_subscript.cl": [
        (4, "out", G, WRITE, 4),
        (4, "a", G, READ, 4),
        (4, "b", G, READ, 4),
    ],
    "02_local_tile.cl": [
        (6, "tile", L, WRITE, 4),
        (6, "in", G, READ, 4),
        (8, "out", G, WRITE, 4),
        (8, "tile", L, READ, 4),
    ],
    "03_constant.cl": [
        (6, "out", G, WRITE, 4),
        (6, "gain", C, READ, 4),
        (6, "weights", C, READ, 4),
        (6, "in", G, READ, 4),
        (6, "weights", C, READ, 4),
        (6, "in", G, READ, 4),
        (6, "weights", C, READ, 4),
        (6, "in", G, READ, 4),
    ],
    "04_private_array.cl": [
        (5, "acc", P, WRITE, 4),
        (7, "acc", P, READ_MODIFY_WRITE, 4),
        (7, "a", G, READ, 4),
        (8, "out", G, WRITE, 4),
        (8, "acc", P, READ, 4),
        (8, "acc", P, READ, 4),
    ],
    "05_derived_pointer.cl": [
        (7, "row", G, READ, 4),
        (8, "sums", G, WRITE, 4),
    ],
    "06_pointer_increment.cl": [
        (6, "q", G, WRITE, 4),
        (6, "p", G, READ, 4),
        (7, "q", G, WRITE, 4),
    ],
    "07_ternary_base.cl": [
        (4, "use_a ? a : b", G, WRITE, 4),
    ],
    "08_char_cast.cl": [
        (4, "buf", G, WRITE, 1),
        (5, "flags", G, WRITE, 1),
        (5, "buf", G, READ, 1),
    ],
    "09_local_struct.cl": [
        (9, "cells", L, WRITE, 4),
        (9, "in", G, READ, 4),
        (10, "cells", L, WRITE, 4),
        (12, "out", G, WRITE, 4),
        (12, "cells", L, READ, 4),
    ],
    "10_vector_components.cl": [
        (5, "out4", G, WRITE, 4),
        (6, "pair", L, WRITE, 4),
        (6, "in4", G, READ, 4),
        (7, "pair", L, WRITE, 4),
        (7, "in4", G, READ, 4),
        (9, "out4", G, WRITE, 8),
        (9, "pair", L, READ, 8),
        (10, "out4", G, WRITE, 8),
        (10, "in4", G, READ, 8),
    ],
    "11_vload_vstore.cl": [
        (4, "in", G, VLOAD, 16),
        (5, "out", G, VSTORE, 16),
    ],
    "12_atomics.cl": [
        (4, "bins", G, ATOMIC, 4),
        (4, "keys", G, READ, 4),
        (5, "bins", G, ATOMIC, 4),
        (6, "lock", G, ATOMIC, 4),
        (7, "lock", G, ATOMIC, 4),
    ],
    "13_async_copy.cl": [
        (4, "in", G, ASYNC_COPY_READ, 4),
        (4, "buf", L, ASYNC_COPY_WRITE, 4),
        (6, "buf", L, ASYNC_COPY_READ, 4),
        (6, "out", G, ASYNC_COPY_WRITE, 4),
    ],
    "14_local_scalar.cl": [
        (5, "count", L, WRITE, 4),
        (7, "in", G, READ, 4),
        (8, "count", L, ATOMIC, 4),
        (11, "counts", G, WRITE, 4),
        (11, "count", L, READ, 4),
    ],
    "15_compound_assign.cl": [
        (4, "y", G, READ_MODIFY_WRITE, 4),
        (4, "x", G, READ, 4),
        (5, "y", G, READ_MODIFY_WRITE, 4),
    ],
    "16_inc_dec.cl": [
        (4, "which", G, READ, 4),
        (5, "hits", G, READ_MODIFY_WRITE, 4),
        (7, "misses", G, READ_MODIFY_WRITE, 4),
    ],
    "17_macros.cl": [
        (7, "t", L, WRITE, 4),
        (7, "a", G, READ, 4),
        (9, "b", G, WRITE, 4),
        (9, "t", L, READ, 4),
    ],
    "18_typedef.cl": [
        (8, "out", G, WRITE, 4),
    ],
    "19_if_else.cl": [
        (6, "a", G, READ, 4),
        (6, "b", G, READ, 4),
        (6, "a", G, READ, 4),
        (6, "b", G, READ, 4),
        (12, "out", G, WRITE, 4),
    ],
    "20_prototype.cl": [
        (6, "out", G, WRITE, 4),
        (11, "p", G, READ, 4),
    ],
    "21_helper_local.cl": [
        (5, "s", L, READ_MODIFY_WRITE, 4),
        (5, "s", L, READ, 4),
        (13, "s", L, WRITE, 4),
        (13, "in", G, READ, 4),
        (17, "out", G, WRITE, 4),
        (17, "s", L, READ, 4),
    ],
    "22_struct_of_pointers.cl": [
        (12, "v.dst", G, WRITE, 4),
        (12, "v.src", G, READ, 4),
    ],
    "23_fences.cl": [],
    "24_unclassified.cl": [
        (5, "out", G, WRITE, 4),
        # A global pointer made from an integer: no name leads to its buffer; the trace
        # finds it from the address.
        (5, "((__global const float *)addresses[i])", G, READ, 4),
        (5, "addresses", G, READ, 8),
        (6, "out", G, WRITE, 4),
    ],
    "25_private_struct.cl": [
        (9, "z", G, READ, 8),
        (10, "w", G, WRITE, 4),
        (11, "w", G, WRITE, 4),
        (11, "z", G, READ, 4),
    ],
}


def test_every_corpus_kernel_has_a_golden_list() -> None:
    assert sorted(p.name for p in CORPUS.glob("*.cl")) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_corpus_kernel_sites_match_the_hand_checked_list(name: str) -> None:
    parsed = parse((CORPUS / name).read_text(), DEFINES, name)
    found = [(a.line, a.base, a.address_space, a.kind, a.size) for a in parsed.accesses]
    assert found == GOLDEN[name]
