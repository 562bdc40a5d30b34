"""The program of program.cl driven as a host program drives it: a loop of launches that
moves the first 48 of 64 triples (twice: the second from the first's result), copies points,
weighs samples, blends half-precision values and shifts an array in place; then the
kernels of program2.cl (a total accumulated over two launches), and of program3.cl built
without and with -DPACKED=1, and of program4.cl and
program5.cl (local memory the host sizes). Prints one
figure of each result."""

import pathlib

import numpy as np
import pyopencl as cl

source = (pathlib.Path(__file__).parent / "program.cl").read_text()
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build()
mf = cl.mem_flags
rng = np.random.default_rng(7)


def upload(array):
    return cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=array)


def zeros(count, dtype):
    return upload(np.zeros(count, dtype))


xyz = upload(rng.random(192, dtype=np.float32))
moved = zeros(192, np.float32)
s3 = upload(rng.integers(-100, 100, 192).astype(np.int16))
s3out = zeros(192, np.int16)
c3 = upload(rng.integers(0, 200, 192).astype(np.uint8))
c3out = zeros(192, np.uint8)
d3 = upload(rng.random(192))
d3out = zeros(192, np.float64)
move3 = program.move3
for step in range(2):  # the second step moves the first step's result
    source_buffer = xyz if step == 0 else moved
    move3(
        queue,
        (64,),
        (32,),
        source_buffer,
        moved,
        s3,
        s3out,
        c3,
        c3out,
        d3,
        d3out,
        np.int32(48),
        np.float32(1.5),
    )

pts = upload(rng.random(192, dtype=np.float32))
out_pts = zeros(192, np.float32)
program.copy_points(queue, (64,), (32,), pts, out_pts, np.int32(64))

v = upload(rng.random(64, dtype=np.float32))
w = upload(rng.random(64, dtype=np.float32))
out = zeros(64, np.float32)
for kernel in (program.weigh, program.weigh_tagged):
    kernel(queue, (64,), (32,), v, w, out)

a = upload(rng.random(256).astype(np.float16))
b = upload(rng.random(64).astype(np.float16))
blended = zeros(64, np.float16)
program.blend_half(queue, (64,), (32,), a, b, blended, np.int32(60))

shifted = upload(np.arange(64, dtype=np.float32))
program.shift_right(queue, (64,), (32,), shifted, np.int32(64))

second = cl.Program(context, (pathlib.Path(__file__).parent / "program2.cl").read_text())
second = second.build()
points = upload(rng.random(192, dtype=np.float32))
dots = zeros(64, np.float32)
second.neighbour_dots(queue, (64,), (16,), points, dots)
sums = zeros(12, np.float32)
total = zeros(1, np.float32)
for _ in range(2):  # the total accumulates over the launches
    second.group_sums3(queue, (64,), (16,), points, sums, total)
halves = upload(rng.random(64).astype(np.float16))
scaled = zeros(64, np.float16)
second.scale_half4(queue, (16,), (8,), halves, scaled, np.float32(0.5), np.int32(15))

third = (pathlib.Path(__file__).parent / "program3.cl").read_text()
shorts, packed = (
    cl.Program(context, third).build(),
    cl.Program(context, third).build(["-DPACKED=1"]),
)
triples = zeros(192, np.float32)
shorts.private_pairs(queue, (64,), (32,), points, triples)
for program3, dtype in ((shorts, np.int16), (packed, np.uint8)):
    reversed_triples = zeros(192, dtype)
    program3.reverse3(queue, (64,), (32,), upload(np.arange(192).astype(dtype)), reversed_triples)

fourth = cl.Program(context, (pathlib.Path(__file__).parent / "program4.cl").read_text())
fourth = fourth.build()
packed_halves, aligned_halves = zeros(192, np.float16), zeros(256, np.float16)
fourth.triples_half(
    queue, (64,), (32,), upload(rng.random(192).astype(np.float16)), packed_halves, aligned_halves
)
fourth.dpoints(queue, (64,), (32,), upload(rng.random(192)), zeros(192, np.float64))

fifth = cl.Program(context, (pathlib.Path(__file__).parent / "program5.cl").read_text())
fifth = fifth.build()
for kernel in (fifth.swap_weigh, fifth.swap_weigh_tagged):
    kernel(queue, (64,), (32,), v, w, out, cl.LocalMemory(32 * 12))

result = np.empty(64, np.float32)
cl.enqueue_copy(queue, result, shifted)
print(f"shifted[63] = {result[63]:g}")
