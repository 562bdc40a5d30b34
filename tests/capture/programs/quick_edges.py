"""Launches that the recorder may finish in a few steps, and those next to them that it may
not: one buffer written the same again and again, a sub-buffer launched on beside its
parent, one buffer written by two kernels that read it as different types, a kernel given
another buffer of another size, a launch of several buffers (one const), contents of at most
64 bytes and of more; prints the results' sums."""

import numpy as np
import pyopencl as cl

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(
    context,
    """
__kernel void seven(__global int *v) { v[get_global_id(0)] = 7; }
__kernel void inc(__global int *v) { v[get_global_id(0)] += 1; }
__kernel void halve(__global float *v) { v[get_global_id(0)] *= 0.5f; }
__kernel void combine(__global const int *a, __global int *b, __global float *c, int by)
{ size_t i = get_global_id(0); b[i] += by * a[i]; c[i] += (float)b[i]; }
""",
).build()
seven, inc, halve, combine = program.seven, program.inc, program.halve, program.combine
flags = cl.mem_flags


def buffer(values):
    return cl.Buffer(context, flags.READ_WRITE | flags.COPY_HOST_PTR, hostbuf=values)


small = buffer(np.zeros(16, np.int32))  # 64 bytes
large = buffer(np.zeros(4096, np.int32))  # 16 KiB
for _ in range(5):
    seven(queue, (16,), None, small)  # the same contents after as before, from the 2nd
for _ in range(5):
    inc(queue, (4096,), None, large)
parent = buffer(np.zeros(256, np.int32))
part = parent.get_sub_region(256, 128)  # ints 64..95
for _ in range(3):
    inc(queue, (32,), None, part)
    inc(queue, (32,), None, part)
    inc(queue, (256,), None, parent)
shared = buffer(np.ones(64, np.float32))
for _ in range(3):
    halve(queue, (64,), None, shared)  # as floats
    halve(queue, (64,), None, shared)
    inc(queue, (64,), None, shared)  # the same memory as ints
    inc(queue, (64,), None, shared)
other = buffer(np.zeros(32, np.int32))
for target in (small, small, other, other, small):  # another buffer of another size
    inc(queue, (16,), None, target)
a, b, c = (
    buffer(np.arange(64, dtype=np.int32)),
    buffer(np.zeros(64, np.int32)),
    buffer(np.zeros(64, np.float32)),
)
for by in (1, 1, 0, 0, 2):
    combine(queue, (64,), None, a, b, c, np.int32(by))
sums = []
for buf, dtype, count in ((small, np.int32, 16), (large, np.int32, 4096), (parent, np.int32, 256),
                          (shared, np.float32, 64), (other, np.int32, 32), (b, np.int32, 64),
                          (c, np.float32, 64)):  # fmt: skip
    out = np.empty(count, dtype)
    cl.enqueue_copy(queue, out, buf)
    sums.append(float(out.sum()))
print(sums)
