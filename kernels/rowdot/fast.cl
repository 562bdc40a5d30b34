/*---
name = "Fast: a team per row, float4 loads"
family = "rowdot"
kernel = "rowdot_fast"
args = ["D", "RESULT", "VECTOR", "MAT1", "MAT2", "FACTOR"]
global = ["L0", "D"]
local = ["TEAM", "ROWS"]
sizes = ["L0 == TEAM", "L1 == ROWS"]
[defines]
TEAM = 32
ROWS = 4
[allowed]
TEAM = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
[about]
source = "own, after seed 004 optimisation #2"
bug = ""
text = """A work-group holds ROWS rows, each computed by a team of TEAM work-items.
When D is a multiple of 4 every row starts on a 16-byte boundary, so each work-item loads
a float4 (16 bytes) of each matrix at a time, into two independent accumulators so that
more loads are in flight; otherwise each row's first 0 to 3 elements are added one by one,
so that the rest of the row is 16-byte aligned and still read as float4s. Each team adds
its partial sums with a barrier-separated tree, so each matrix element is read exactly
once, fully coalesced, and memory bandwidth sets the speed."""
---*/

__kernel void rowdot_fast(const int D,
                          __global float* result,
                          const __global float* vector,
                          const __global float* matrix,
                          const __global float* matrix2,
                          const float factor)
{
    __local float partial[ROWS][TEAM];
    const int lane = get_local_id(0);       // this work-item's place in its row's team
    const int r = get_local_id(1);          // which of the group's rows
    const int y = get_global_id(1);         // the row itself

    // 1. Each work-item sums every TEAM-th element (or float4) of the row.
    float sum = 0.0f;
    if (y < D) {
        const __global float* row1 = matrix + (size_t)y * D;
        const __global float* row2 = matrix2 + (size_t)y * D;
        if ((D & 3) == 0) {
            // Row starts are 16-byte aligned: read everything as float4.
            const __global float4* a = (const __global float4*)row1;
            const __global float4* b = (const __global float4*)row2;
            const __global float4* v = (const __global float4*)vector;
            const int n4 = D >> 2;
            float4 acc0 = (float4)(0.0f);
            float4 acc1 = (float4)(0.0f);   // a second chain: more loads in flight
            int k = lane;
            for (; k + TEAM < n4; k += 2 * TEAM) {
                acc0 += v[k] * a[k] * b[k];
                acc1 += v[k + TEAM] * a[k + TEAM] * b[k + TEAM];
            }
            if (k < n4)
                acc0 += v[k] * a[k] * b[k];
            const float4 acc = acc0 + acc1;
            sum = (acc.x + acc.y) + (acc.z + acc.w);
        } else {
            // Any other D: rows start anywhere. Peel off the first `head` elements (0 to 3)
            // so that the rest of both rows starts on a 16-byte boundary, read those as
            // float4 and the vector with scalar loads (it stays in cache), then the last
            // 0 to 3 elements.
            const int head = min(D, (int)((4 - (((size_t)y * D) & 3)) & 3));
            const int n4 = (D - head) >> 2;
            const __global float4* a = (const __global float4*)(row1 + head);
            const __global float4* b = (const __global float4*)(row2 + head);
            const __global float* v = vector + head;
            float4 acc0 = (float4)(0.0f);
            float4 acc1 = (float4)(0.0f);
            int k = lane;
            for (; k + TEAM < n4; k += 2 * TEAM) {
                const int i = 4 * k, j = 4 * (k + TEAM);
                acc0 += (float4)(v[i], v[i + 1], v[i + 2], v[i + 3]) * a[k] * b[k];
                acc1 += (float4)(v[j], v[j + 1], v[j + 2], v[j + 3]) * a[k + TEAM] * b[k + TEAM];
            }
            if (k < n4) {
                const int i = 4 * k;
                acc0 += (float4)(v[i], v[i + 1], v[i + 2], v[i + 3]) * a[k] * b[k];
            }
            const float4 acc = acc0 + acc1;
            sum = (acc.x + acc.y) + (acc.z + acc.w);
            for (int i = lane; i < head; i += TEAM)
                sum += vector[i] * row1[i] * row2[i];
            for (int i = head + 4 * n4 + lane; i < D; i += TEAM)   // the last 0 to 3
                sum += vector[i] * row1[i] * row2[i];
        }
    }

    // 2. Tree reduction per row. Teams past the last row (the global size is rounded
    //    up to ROWS) take part too: every work-item must reach every barrier.
    partial[r][lane] = sum;
    for (int stride = TEAM / 2; stride > 0; stride /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);       // the previous step's sums are written
        if (lane < stride)
            partial[r][lane] += partial[r][lane + stride];
    }
    if (lane == 0 && y < D)                 // lane 0 wrote partial[r][0] last
        result[y] = partial[r][0] * factor;
}
