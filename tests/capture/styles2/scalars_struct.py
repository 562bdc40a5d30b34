"""Scalars as numpy scalars (int32, float32, uint64), and a struct registered with
get_or_register_dtype, passed in a buffer and by value."""

import numpy as np
import pyopencl as cl
import pyopencl.tools as clt

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
dev = ctx.devices[0]
particle = np.dtype([("pos", np.float32, 2), ("mass", np.float32), ("id", np.int32)])
particle, cdecl = clt.match_dtype_to_c_struct(dev, "particle", particle)
particle = clt.get_or_register_dtype("particle", particle)
src = (
    cdecl
    + """
__kernel void push(__global particle *ps, particle shift, int n, float dt, ulong seed) {
    int i = get_global_id(0);
    if (i >= n) return;
    ps[i].pos[0] += dt * shift.pos[0] * ps[i].mass;
    ps[i].pos[1] += dt * shift.pos[1];
    ps[i].id = (int)((seed >> 32) & 0xff) + i;
}"""
)
prg = cl.Program(ctx, src).build()
n = 40
ps = np.zeros(n, particle)
ps["pos"] = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
ps["mass"] = 2.0
shift = np.zeros((), particle)
shift["pos"] = (1.0, -3.0)
mf = cl.mem_flags
b = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=ps)
prg.push(q, (48,), (16,), b, shift, np.int32(n), np.float32(0.25), np.uint64(0xAB00000000 + 5))
out = np.empty_like(ps)
cl.enqueue_copy(q, out, b)
print("push", float(out["pos"][:, 0].sum()), float(out["pos"][:, 1].sum()), int(out["id"][3]))
