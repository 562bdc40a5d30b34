"""Stream compaction: each work-group scans its flags (values above a threshold), one group
scans the groups' counts, then every kept value is scattered to its place."""

import numpy as np
import pyopencl as cl

source = """
__kernel void block_scan(__global const float *values, __global int *offsets,
                         __global int *counts, __local int *tmp, const float threshold,
                         const int n)
{
    int gid = get_global_id(0), lid = get_local_id(0), size = get_local_size(0);
    int flag = gid < n && values[gid] > threshold;
    tmp[lid] = flag;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < size; d *= 2) {
        int add = lid >= d ? tmp[lid - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (gid < n)
        offsets[gid] = tmp[lid] - flag;   /* exclusive */
    if (lid == size - 1)
        counts[get_group_id(0)] = tmp[lid];
}

__kernel void scan_counts(__global int *counts, const int groups)
{
    if (get_global_id(0) != 0)
        return;
    int sum = 0;
    for (int g = 0; g < groups; g++) {
        int c = counts[g];
        counts[g] = sum;
        sum += c;
    }
    counts[groups] = sum;
}

__kernel void scatter(__global const float *values, __global const int *offsets,
                      __global const int *starts, __global float *out, const float threshold,
                      const int n)
{
    int gid = get_global_id(0);
    if (gid < n && values[gid] > threshold)
        out[starts[get_group_id(0)] + offsets[gid]] = values[gid];
}
"""

n, group, threshold = 200, 32, 0.25
values = np.random.default_rng(11).uniform(-1, 1, n).astype(np.float32)
groups = (n + group - 1) // group

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build()
mf = cl.mem_flags
b_values = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=values)
b_offsets = cl.Buffer(context, mf.READ_WRITE, size=4 * n)
b_counts = cl.Buffer(context, mf.READ_WRITE, size=4 * (groups + 1))
b_out = cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(n, np.float32))
padded = (groups * group,)
program.block_scan(
    queue,
    padded,
    (group,),
    b_values,
    b_offsets,
    b_counts,
    cl.LocalMemory(4 * group),
    np.float32(threshold),
    np.int32(n),
)
program.scan_counts(queue, (1,), (1,), b_counts, np.int32(groups))
program.scatter(
    queue,
    padded,
    (group,),
    b_values,
    b_offsets,
    b_counts,
    b_out,
    np.float32(threshold),
    np.int32(n),
)
counts = np.empty(groups + 1, np.int32)
out = np.empty(n, np.float32)
cl.enqueue_copy(queue, counts, b_counts)
cl.enqueue_copy(queue, out, b_out)
kept = values[values > threshold]
assert counts[-1] == kept.size and np.array_equal(out[: kept.size], kept)
print(f"kept {kept.size} of {n}")
