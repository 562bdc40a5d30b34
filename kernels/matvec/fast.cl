/*---
name = "Fast: a team per row, float4 loads"
family = "matvec"
kernel = "matvec_fast"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT", "SCRATCH"]
global = ["L0", "HEIGHT"]
local = ["32", "4"]
sizes = ["is_pow2(L0)"]
[about]
source = "own, after seed 002's Coalesced2"
bug = ""
text = """A work-group holds several rows (local size L0 × L1): a team of L0 work-items (32 by
default) per row, L1 rows side by side. When WIDTH is a multiple of 4 every row starts
on a 16-byte boundary, so each work-item loads a float4 (16 bytes) at a time, into two
independent accumulators so that more loads are in flight; otherwise each row's first 0 to 3
elements are added one by one, so that the rest of the row is 16-byte aligned and still read
as float4s. Each team then adds its partial sums with a barrier-separated
tree, so the matrix is read exactly once, fully coalesced, and the speed is that of
memory."""
---*/

__kernel void matvec_fast(const __global float* M,
                          const __global float* V,
                          const int width, const int height,
                          __global float* W,
                          __local float* scratch)   // L0 * L1 floats
{
    const int lane = get_local_id(0);     // this work-item's place in its row's team
    const int team = get_local_size(0);   // work-items per row (a power of two)
    const int y = get_global_id(1);       // the row this team computes

    // 1. Each work-item sums every team-th element (or float4) of the row.
    //    Neighbouring lanes read neighbouring addresses: coalesced.
    float sum = 0.0f;
    if (y < height) {
        // size_t: y * width overflows an int for matrices over 8 GiB
        const __global float* row = M + (size_t)y * width;
        if ((width & 3) == 0) {
            // Row starts are 16-byte aligned: read the row and V as float4.
            const __global float4* row4 = (const __global float4*)row;
            const __global float4* vec4 = (const __global float4*)V;
            const int n4 = width >> 2;
            float4 acc0 = (float4)(0.0f);
            float4 acc1 = (float4)(0.0f);   // a second chain: two loads in flight
            int x = lane;
            for (; x + team < n4; x += 2 * team) {
                acc0 += row4[x] * vec4[x];
                acc1 += row4[x + team] * vec4[x + team];
            }
            if (x < n4)
                acc0 += row4[x] * vec4[x];
            const float4 acc = acc0 + acc1;
            sum = (acc.x + acc.y) + (acc.z + acc.w);
        } else {
            // Any other width: rows start anywhere. Peel off the first `head` elements
            // (0 to 3) so that the rest of the row starts on a 16-byte boundary, read that
            // as float4 and V with scalar loads (V is small and stays in cache), then
            // the last 0 to 3 elements.
            const int head = min(width, (int)((4 - (((size_t)y * width) & 3)) & 3));
            const int n4 = (width - head) >> 2;
            const __global float4* row4 = (const __global float4*)(row + head);
            const __global float* v = V + head;
            float4 acc0 = (float4)(0.0f);
            float4 acc1 = (float4)(0.0f);
            int x = lane;
            for (; x + team < n4; x += 2 * team) {
                const int i = 4 * x, j = 4 * (x + team);
                acc0 += row4[x] * (float4)(v[i], v[i + 1], v[i + 2], v[i + 3]);
                acc1 += row4[x + team] * (float4)(v[j], v[j + 1], v[j + 2], v[j + 3]);
            }
            if (x < n4) {
                const int i = 4 * x;
                acc0 += row4[x] * (float4)(v[i], v[i + 1], v[i + 2], v[i + 3]);
            }
            const float4 acc = acc0 + acc1;
            sum = (acc.x + acc.y) + (acc.z + acc.w);
            for (int i = lane; i < head; i += team)
                sum += row[i] * V[i];
            for (int i = head + 4 * n4 + lane; i < width; i += team)   // the last 0 to 3
                sum += row[i] * V[i];
        }
    }

    // 2. Tree reduction of the team's partial sums in local memory. Teams past the
    //    last row (the global size is rounded up) take part, since every work-item of
    //    the group must reach every barrier.
    __local float* partial = scratch + get_local_id(1) * team;
    partial[lane] = sum;
    for (int stride = team / 2; stride > 0; stride /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);   // the previous step's sums are all written
        if (lane < stride)
            partial[lane] += partial[lane + stride];
    }

    // lane 0 wrote partial[0] itself in the last step: no barrier needed to read it.
    if (lane == 0 && y < height)
        W[y] = partial[0];
}
