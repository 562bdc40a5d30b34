/*---
name = "One FDTD-2D time step in one work-group (PolyBench fdtd-2d style)"
family = "custom"
kernel = "fdtd_step"
global = ["NY", "NX"]
local = ["NY", "NX"]
[sizes]
NX = 12
NY = 16
TMAX = 4
[args.fict]
buffer = "float"
count = "TMAX"
access = "read"
[args.ex]
buffer = "float"
count = "NX * NY"
shape = ["NX", "NY"]
result = true
writes = "all"
[args.ey]
buffer = "float"
count = "NX * NY"
shape = ["NX", "NY"]
result = true
writes = "all"
[args.hz]
buffer = "float"
count = "NX * NY"
shape = ["NX", "NY"]
result = true
writes = "all"
[args.t]
scalar = "int"
value = 1
[args.nx]
scalar = "int"
value = "NX"
[args.ny]
scalar = "int"
value = "NY"
[reference]
terms = 4
[reference.numpy]
ey = "np.concatenate((np.full((1, NY), fict[t]), ey[1:] - 0.5 * (hz[1:] - hz[:-1])))"
ex = "np.concatenate((ex[:, :1], ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1])), axis=1)"
hz = """np.concatenate((np.concatenate((hz[:-1, :-1] - 0.7 * (
        np.diff(np.concatenate((ex[:, :1], ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1])), axis=1), axis=1)[:-1]
      + np.diff(np.concatenate((np.full((1, NY), fict[t]), ey[1:] - 0.5 * (hz[1:] - hz[:-1]))), axis=0)[:, :-1]),
    hz[:-1, -1:]), axis=1), hz[-1:]))"""
[about]
source = "our own test kernel, in the style of PolyBench/GPU's fdtd2d (its three kernels as three phases)"
text = "ey and ex from hz, a barrier, then hz from the new ex and ey: the whole grid is one work-group. The hz reference takes the differences of the updated fields with np.diff."
---*/
#line 1
__kernel void fdtd_step(__global const float* fict, __global float* ex, __global float* ey,
                        __global float* hz, int t, int nx, int ny)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    float h = hz[i * ny + j];

    /* kernel 1 and 2 of the time loop: the electric fields from hz */
    if (i == 0)
        ey[i * ny + j] = fict[t];
    else
        ey[i * ny + j] = ey[i * ny + j] - 0.5f * (h - hz[(i - 1) * ny + j]);
    if (j > 0)
        ex[i * ny + j] = ex[i * ny + j] - 0.5f * (h - hz[i * ny + (j - 1)]);
    barrier(CLK_GLOBAL_MEM_FENCE);

    /* kernel 3: the magnetic field from the new ex and ey */
    if (i < nx - 1 && j < ny - 1)
        hz[i * ny + j] = h - 0.7f * (ex[i * ny + (j + 1)] - ex[i * ny + j]
                                   + ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
