"""A histogram in local memory (atomics), then the counts normalised to fractions."""

import numpy as np
import pyopencl as cl

source = """
__kernel void histogram(__global const uchar *pixels, __global int *bins,
                        __local int *local_bins, const int n, const int nbins)
{
    int gid = get_global_id(0), lid = get_local_id(0);
    for (int b = lid; b < nbins; b += get_local_size(0))
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < n)
        atomic_inc(&local_bins[pixels[gid] * nbins / 256]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = lid; b < nbins; b += get_local_size(0))
        atomic_add(&bins[b], local_bins[b]);
}

__kernel void normalise(__global const int *bins, __global float *fractions, const int n)
{
    int b = get_global_id(0);
    fractions[b] = (float)bins[b] / (float)n;
}
"""

n, nbins, group = 1000, 16, 64
pixels = np.random.default_rng(2).integers(0, 256, n).astype(np.uint8)

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build()
mf = cl.mem_flags
b_pixels = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=pixels)
b_bins = cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(nbins, np.int32))
b_fractions = cl.Buffer(context, mf.WRITE_ONLY, size=4 * nbins)
program.histogram(
    queue,
    ((n + group - 1) // group * group,),
    (group,),
    b_pixels,
    b_bins,
    cl.LocalMemory(4 * nbins),
    np.int32(n),
    np.int32(nbins),
)
program.normalise(queue, (nbins,), None, b_bins, b_fractions, np.int32(n))
fractions = np.empty(nbins, np.float32)
cl.enqueue_copy(queue, fractions, b_fractions)
expected = np.bincount(pixels.astype(int) * nbins // 256, minlength=nbins) / n
assert np.allclose(fractions, expected)
print(f"fractions sum {fractions.sum():.3f}")
