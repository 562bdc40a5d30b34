"""A program from a string that #includes "common.h" from a folder given as -I, two words."""

import os

import numpy as np
import pyopencl as cl

here = os.path.dirname(os.path.abspath(__file__))
ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
src = """
#include "common.h"
__kernel void nearest(__global const pt *p, int n, __global int *who) {
    int i = get_global_id(0);
    if (i >= n) return;
    float best = 1e30f;
    int b = -1;
    for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        float d = dist2(p[i], p[j]);
        if (d < best) { best = d; b = j; }
    }
    who[i] = b;
}"""
prg = cl.Program(ctx, src).build(options=["-I", os.path.join(here, "incl")])
n = 50
rng = np.random.default_rng(9)
pts = rng.random((n, 2)).astype(np.float32)
mf = cl.mem_flags
p = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=pts)
who = cl.Buffer(ctx, mf.WRITE_ONLY, n * 4)
prg.nearest(q, (64,), (16,), p, np.int32(n), who)
h = np.empty(n, np.int32)
cl.enqueue_copy(q, h, who)
d = ((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1)
np.fill_diagonal(d, np.inf)
print("nearest", bool((h == d.argmin(1)).all()))
