"""A kernel that writes outside its buffer, one element or 4 MB past its end or before its
start, is reported at that run naming the buffer it wrote, whatever the kernel came from (a
header that declares its parameters, an Oclgrind .sim file, a family); the next run gets a
fresh executor process."""

from __future__ import annotations

import os

import pytest

from explorer.engine import calls
from explorer.engine.header.catalog import find_variant, load_variant_file
from explorer.engine.records import RunRequest

# Two buffers, so the report must name the right one: ``away`` is read, ``out`` written
# OFFSET elements away from where it should be (for one work-item only).
STRAY = """\
__kernel void stray(__global const float* away, __global float* out, int who, int offset)
{
    int i = get_global_id(0);
    int at = i;
    if (i == who)
        at = i + offset;
    out[at] = away[i] * 2.0f;
}
"""

HEADER = """\
/*---
name = "Writes one element somewhere else"
family = "custom"
kernel = "stray"
global = ["N"]
local = ["64"]
[sizes]
N = 256
WHO = 1            # the work-item that strays, counted from 1 (sizes are positive)
SHIFT = 8388608    # how far it strays, in elements, plus 2^23
[args.away]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
access = "write"
[args.who]
scalar = "int"
value = "WHO - 1"
[args.offset]
scalar = "int"
value = "SHIFT - 8388608"
[reference]
numpy = "away * 2"
---*/
"""

SIM = """\
stray.cl
stray
256 1 1
64 1 1
<size=1024 range=0:1:255 ro float>
<size=1024 fill=0 wo dump float>
<size=4>
{who}
<size=4>
{offset}
"""

MIB4 = (4 << 20) // 4  # 4 MiB of floats

CASES = [
    ("one past the end", 255, 1, "past the end of its buffer out"),
    ("4 MB past the end", 255, MIB4, "past the end of its buffer out"),
    ("one before the start", 0, -1, "before the start of its buffer out"),
    ("4 MB before the start", 0, -MIB4, "before the start of its buffer out"),
]

calls.allow(os.getpid)  # which process ran the kernel


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stray")
    (folder / "stray_header.cl").write_text(HEADER + "#line 1\n" + STRAY, encoding="utf-8")
    (folder / "stray.cl").write_text(STRAY, encoding="utf-8")
    return folder


def _sim(folder, who: int, offset: int):
    path = folder / f"stray_{who}_{offset}.sim".replace("-", "m")
    path.write_text(SIM.format(who=who, offset=offset), encoding="utf-8")
    return load_variant_file(path)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("kind", ["header", "sim"])
def test_a_write_outside_is_reported_naming_the_buffer(executor, device, kernels, kind, case):
    _, who, offset, message = case
    if kind == "header":
        variant = load_variant_file(kernels / "stray_header.cl")
        sizes = {"WHO": who + 1, "SHIFT": offset + 2**23}
        stray = RunRequest(variant, sizes, device_key=device.key, repeat=1)
        fine = RunRequest(variant, {"WHO": who + 1}, device_key=device.key, repeat=1)
    else:  # a .sim file gives its scalars' values
        stray = RunRequest(_sim(kernels, who, offset), {}, device_key=device.key, repeat=1)
        fine = RunRequest(_sim(kernels, who, 0), {}, device_key=device.key, repeat=1)
    before = executor.call(os.getpid)
    result = executor.run(stray)
    assert result.status == "crashed", result.summary()
    assert message in result.error, result.error
    assert "away" not in result.error
    assert executor.call(os.getpid) != before  # the process that ran it is not reused
    expected = "verified" if kind == "header" else "unchecked"
    assert executor.run(fine).status == expected


def test_a_family_kernel_writing_past_its_output_names_it(executor, device):
    """The family path is the same path: the seed's row kernel run anyway past its size."""
    variant = find_variant("rowdot", "seed004-group-row")
    result = executor.run(
        RunRequest(variant, {"D": 256}, device_key=device.key, repeat=1, anyway=True)
    )
    assert result.status == "crashed"
    assert "past the end of its buffer RESULT" in result.error


TEN_BUFFERS = (
    """\
/*---
name = "Ten large buffers"
family = "custom"
kernel = "ten"
global = ["64"]
local = ["64"]
[sizes]
N = 268435456
"""
    + "".join(
        f'[args.b{i}]\nbuffer = "float"\ncount = "N"\ncontents = "random"\n' for i in range(10)
    )
    + """---*/
__kernel void ten(__global float* b0, __global float* b1, __global float* b2,
                  __global float* b3, __global float* b4, __global float* b5,
                  __global float* b6, __global float* b7, __global float* b8,
                  __global float* b9)
{
    b0[get_global_id(0)] += b9[get_global_id(0)];
}
"""
)


def test_buffers_larger_than_the_memory_are_refused_before_any_is_made(executor, device, tmp_path):
    """Ten buffers of 1 GiB each: refused with the bytes named and smaller sizes offered,
    in an instant (nothing is allocated or filled)."""
    path = tmp_path / "ten.cl"
    path.write_text(TEN_BUFFERS, encoding="utf-8")
    result = executor.run(RunRequest(load_variant_file(path), {}, device_key=device.key))
    assert result.status == "refused", result.summary()
    assert "does not fit" in result.refused.reason
    assert "GiB" in result.refused.reason
    assert "Use smaller sizes, e.g. N=" in result.refused.fix
