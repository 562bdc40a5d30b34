/*---
name = "Work-group per row, tree reduction"
family = "rowdot"
kernel = "rowdot_group_row"
args = ["D", "RESULT", "VECTOR", "MAT1", "MAT2", "FACTOR"]
global = ["D * L0"]
local = ["WG"]
sizes = ["L0 == WG"]
[defines]
WG = 64
[allowed]
WG = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
[about]
source = "seed 004 optimisation #2, corrected: any D, initialised sums, barriers"
bug = ""
text = """Optimisation #2 done right: a work-group of WG work-items per row. Each
work-item keeps its partial sum in a register starting at zero, stores it once in local
memory, and a barrier-separated tree (WG/2, WG/4, ..., 1) adds the partial sums. The
matrix rows are read coalesced; the vector is read from global memory, where the cache
serves it to every group."""
---*/

__kernel void rowdot_group_row(const int D,
                               __global float* result,
                               const __global float* vector,
                               const __global float* matrix,
                               const __global float* matrix2,
                               const float factor)
{
    __local float partial[WG];
    const int y = get_group_id(0);          // one row per work-group
    const int lid = get_local_id(0);
    const __global float* row1 = matrix + (size_t)y * D;
    const __global float* row2 = matrix2 + (size_t)y * D;

    // Neighbouring work-items read neighbouring elements of the row: coalesced.
    float sum = 0.0f;
    for (int k = lid; k < D; k += WG)
        sum += vector[k] * row1[k] * row2[k];
    partial[lid] = sum;

    // Tree reduction: each step halves the number of partial sums.
    for (int stride = WG / 2; stride > 0; stride /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);       // the previous step's sums are written
        if (lid < stride)
            partial[lid] += partial[lid + stride];
    }
    if (lid == 0)                            // work-item 0 wrote partial[0] last
        result[y] = partial[0] * factor;
}
