/*---
name = "Tree reduction whose last warp is unrolled without barriers"
family = "custom"
kernel = "reduce6"
global = ["N"]
local = ["64"]
[sizes]
N = 128
[args.in]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N / 64"
contents = "zeros"
access = "write"
[args.sdata]
local = "float"
count = "L0"
---*/
#line 1
__kernel void reduce6(__global const float *in, __global float *out, __local float *sdata)
{
    unsigned int tid = get_local_id(0);
    sdata[tid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (unsigned int s = get_local_size(0) / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid < 32) {
        volatile __local float *smem = sdata;
        smem[tid] += smem[tid + 32];
        smem[tid] += smem[tid + 16];
        smem[tid] += smem[tid + 8];
        smem[tid] += smem[tid + 4];
        smem[tid] += smem[tid + 2];
        smem[tid] += smem[tid + 1];
    }
    if (tid == 0)
        out[get_group_id(0)] = sdata[0];
}
