"""The construct corpus (tests/trace/constructs): one valid transpose per construct of
OpenCL C people write, traced on the default device. Each golden list was written by reading
the kernel: (line, op, buffer, bytes) of every access and barrier the trace must show, and
the findings it must give (none for a correct kernel). A site missing, misclassified (a
write recorded as a read, a float4 component as 16 bytes) or a finding added fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.recorded import OP_NAMES

CONSTRUCTS = Path(__file__).parent / "constructs"
SIZES = {"WIDTH": 64, "HEIGHT": 32}
R, W, B = "read", "write", "barrier"
# Costs, not bugs: a 16x16 group over a 17-float tile row puts words 0 and 32 in one bank;
# float2 and struct members, and transposed tile reads, fall words apart; a work-item walking
# its own row writes a sector of its own.
COSTS = ("bank-conflict", "uncoalesced")

GOLDEN: dict[str, tuple[set[tuple[int, str, str, int]], list[tuple[str, int]]]] = {
    "01_macros.cl": (
        {
            (16, R, "IN", 4),
            (16, W, "tile", 4),
            (17, B, "-", 1),
            (19, R, "tile", 4),
            (19, W, "OUT", 4),
        },
        [("bank-conflict", 16), ("bank-conflict", 19)],
    ),
    "02_local_struct.cl": (
        {
            (15, R, "IN", 4),
            (15, W, "cells", 4),
            (16, B, "-", 1),
            (18, R, "cells", 4),
            (18, W, "OUT", 4),
        },
        [("bank-conflict", 15), ("bank-conflict", 18)],
    ),
    "03_local_float2.cl": (
        {
            (14, R, "IN", 4),
            (14, W, "pair", 4),
            (15, B, "-", 1),
            (17, R, "pair", 4),
            (17, W, "OUT", 4),
        },
        [("bank-conflict", 14), ("bank-conflict", 17)],
    ),
    "04_struct_of_pointers.cl": ({(16, R, "IN", 4), (16, W, "OUT", 4)}, []),
    "05_float4_component.cl": (
        {(line, op, buf, 4) for line in (13, 14, 15, 16) for op, buf in ((R, "IN"), (W, "OUT"))},
        [("uncoalesced", line) for line in (13, 14, 15, 16)],
    ),
    "06_if_loop.cl": ({(18, R, "IN", 4), (18, W, "OUT", 4)}, []),
    "07_prototype.cl": ({(13, W, "OUT", 4), (17, R, "IN", 4)}, []),
    "08_typedef.cl": ({(13, R, "IN", 4), (13, W, "OUT", 4)}, []),
    "09_pointer_arith.cl": ({(16, R, "IN", 4), (16, W, "OUT", 4)}, [("uncoalesced", 16)]),
    "10_ternary_cast.cl": ({(14, R, "IN", 4), (14, W, "OUT", 4)}, []),
    "11_vload_vstore.cl": (
        {
            (13, R, "IN", 16),
            (14, R, "IN", 16),
            (15, W, "OUT", 16),
            (16, W, "OUT", 16),
            (17, W, "OUT", 16),
            (18, W, "OUT", 16),
        },
        [],
    ),
    "12_async_copy.cl": (
        {
            (16, R, "IN", 4),
            (16, W, "tile", 4),
            (16, "fence", "-", 1),  # each work-item's call of the copy, and the event it returns
            (17, "fence", "-", 1),  # the event the wait names
            (17, B, "-", 1),
            (18, R, "tile", 4),
            (18, W, "OUT", 4),
        },
        [("bank-conflict", 18)],
    ),
    "13_local_scalar.cl": (
        {
            (13, W, "stride", 4),
            (14, B, "-", 1),
            (16, R, "stride", 4),
            (16, R, "IN", 4),
            (16, W, "OUT", 4),
        },
        [],
    ),
    "14_cmpxchg.cl": (
        {
            (14, W, "claimed", 4),
            (15, B, "-", 1),
            (16, "atomic", "claimed", 4),
            (16, R, "claimed", 4),
            (17, R, "IN", 4),
            (17, W, "OUT", 4),
        },
        [],
    ),
    "15_barrier_divergence.cl": (
        {
            (14, R, "IN", 4),
            (14, W, "tile", 4),
            (16, B, "-", 1),
            (17, R, "tile", 4),
            (17, W, "OUT", 4),
        },
        # Line 17's lanes are at two phases (half passed the barrier): each half is a request
        # of its own, and neither puts two words in one bank.
        [("bank-conflict", 14), ("barrier-divergence", 16)],
    ),
    "16_private_array.cl": ({(15, R, "IN", 4), (16, W, "OUT", 4)}, []),
    # Only the write past the end of the private array is recorded, and it is skipped.
    "17_private_oob.cl": (
        {(14, R, "IN", 4), (14, W, "acc", 4), (15, W, "OUT", 4)},
        [("out-of-bounds", 14)],
    ),
    # Array members of a private struct (2-D, nested, a pointer into one, a float4's
    # component, the struct passed by value to a helper) are bounds-checked like private
    # arrays: in bounds, nothing of them is recorded.
    "19_private_struct_array.cl": ({(35, R, "IN", 4), (46, W, "OUT", 4)}, []),
    # The write past the end of the member is recorded on the member, named as written, and
    # skipped (it would land on `used`).
    "20_private_struct_oob.cl": (
        {(18, R, "IN", 4), (18, W, "acc.part", 4), (19, W, "OUT", 4)},
        [("out-of-bounds", 18)],
    ),
    # Pointers stored into integers and back without casts, as OpenCL compilers build them
    # (with a warning each): the buffers are found from the addresses.
    "18_integer_pointers.cl": ({(17, R, "IN", 4), (17, W, "OUT", 4)}, []),
}
# The compiler's warnings each construct's result carries, by line (none for the others).
WARNED = {"18_integer_pointers.cl": [12, 13, 14, 16]}


def test_every_corpus_kernel_has_a_golden_entry():
    assert sorted(p.name for p in CONSTRUCTS.glob("*.cl")) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_construct_is_traced_as_written(executor, device, name):
    variant = load_variant_file(CONSTRUCTS / name)
    result = executor.trace(
        TraceRequest(RunRequest(variant, SIZES, device_key=device.key, input="random")),
        keep_trace=True,
    )
    assert result.trace is not None, result.result.summary()
    trace = result.trace
    seen = set()
    for s in trace.sites:
        mask = trace.site == s.id
        for buffer, size in set(
            zip(trace.buffer[mask].tolist(), trace.size[mask].tolist(), strict=True)
        ):
            name_of = trace.buffers[buffer].name if buffer >= 0 else "-"
            seen.add((s.line, OP_NAMES[s.op], name_of, size))
    sites, findings = GOLDEN[name]
    assert seen == sites
    assert sorted((f.kind, f.line) for f in result.analysis.findings) == sorted(findings)
    assert trace.complete
    warnings = (result.result.build_log or "").splitlines()
    assert [int(w.split(":")[1]) for w in warnings] == WARNED.get(name, [])
    assert all(w.startswith(f"{name}:") and ": warning: " in w for w in warnings)
    if not [f for f in findings if f[0] not in COSTS]:  # a cost leaves the result right
        assert result.result.status == "verified" or "VERIFIED" in result.result.summary()
