/*---
name = "Naive"
family = "transpose"
kernel = "transpose_naive"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["32", "8"]
[counterpart]
variant = "padded-rows"
why = "staging a tile in local memory"
[about]
source = "seed 001 (gpu_matrix_transpose), translated from CUDA to OpenCL"
bug = ""
text = """One work-item per element: it reads IN[y][x] and writes OUT[x][y]. Neighbouring
work-items read neighbouring elements of a row of IN, so the reads are coalesced; but they
write down a column of OUT, HEIGHT elements apart, so every write touches a different memory
segment. The strided writes waste most of the bandwidth: the baseline of the ladder."""
---*/

/* IN has HEIGHT rows of WIDTH elements; OUT has WIDTH rows of HEIGHT elements. */
__kernel void transpose_naive(const int WIDTH, const int HEIGHT,
                              const __global float* IN,
                              __global float* OUT)
{
    const int x = get_global_id(0);   /* column of IN = row of OUT    */
    const int y = get_global_id(1);   /* row of IN    = column of OUT */

    /* The NDRange is rounded up to whole work-groups: skip the extra work-items. */
    if (x < WIDTH && y < HEIGHT)
        OUT[x * HEIGHT + y] = IN[y * WIDTH + x];   /* read along a row, write down a column */
}
