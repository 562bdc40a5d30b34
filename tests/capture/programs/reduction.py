"""A sum in two passes: every work-group reduces its stretch into a partial sum, then one
work-group reduces the partial sums."""

import numpy as np
import pyopencl as cl

source = """
__kernel void partial_sums(__global const float *values, __global float *partial,
                           __local float *tmp, const int n)
{
    int lid = get_local_id(0), size = get_local_size(0);
    float sum = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        sum += values[i];
    tmp[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = size / 2; s > 0; s /= 2) {
        if (lid < s)
            tmp[lid] += tmp[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = tmp[0];
}
"""

n, group, groups = 5000, 64, 8
values = np.random.default_rng(4).uniform(0, 1, n).astype(np.float32)

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build()
partial_sums = cl.Kernel(program, "partial_sums")
mf = cl.mem_flags
b_values = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=values)
b_partial = cl.Buffer(context, mf.READ_WRITE, size=4 * groups)
b_total = cl.Buffer(context, mf.READ_WRITE, size=4)
partial_sums(
    queue, (groups * group,), (group,), b_values, b_partial, cl.LocalMemory(4 * group), np.int32(n)
)
partial_sums(
    queue, (groups,), (groups,), b_partial, b_total, cl.LocalMemory(4 * groups), np.int32(groups)
)
total = np.empty(1, np.float32)
cl.enqueue_copy(queue, total, b_total)
assert abs(total[0] - values.sum(dtype=np.float64)) < 1e-2, total
print(f"sum {total[0]:.3f}")
