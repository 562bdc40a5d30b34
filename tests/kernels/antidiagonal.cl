/*---
name = "Anti-diagonal sweeps over a local tile"
family = "custom"
kernel = "diag"
global = ["16"]
local = ["16"]
[args.out]
buffer = "float"
count = "256"
contents = "zeros"
access = "write"
---*/
#line 1
__kernel void diag(__global float* out)
{
    __local float t[16][16];
    int tx = get_local_id(0);
    for (int j = 0; j < 16; j++)
        t[tx][j] = 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int m = 0; m < 16; m++) {
        if (tx <= m)
            t[tx][m - tx] += 1.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int m = 14; m >= 0; m--) {
        if (tx <= m)
            t[tx + 15 - m][15 - tx] += 2.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int j = 0; j < 16; j++)
        out[tx * 16 + j] = t[tx][j];
}
