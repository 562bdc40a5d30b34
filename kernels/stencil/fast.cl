/*---
name = "Fast: four pixels per work-item, vector loads"
family = "stencil"
kernel = "stencil_fast"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["cdiv(WIDTH, 4)", "HEIGHT"]
local = ["LX", "LY"]
[defines]
LX = 16
LY = 8
[allowed]
LX = [4, 8, 16, 32, 64]
LY = [1, 2, 4, 8, 16]
[about]
source = "the explorer's own"
bug = ""
text = """Each work-item computes four neighbouring pixels of a row. For each of the three input
rows it needs six values (the four columns and one on each side): one float4 vector load
(vload4) and two scalar loads, where the naive kernel makes twelve scalar reads. The
horizontal [1 2 1] pass runs on whole float4 vectors, built from the loaded values shifted
by one lane, so four outputs cost about the arithmetic of one; the three rows are then
weighted 1, 2, 1 and the four results leave in one vstore4. Near the left and right edges
(and in the last, partial group of four at widths that are not multiples of 4) the kernel
falls back to clamped scalar loads and stores only the pixels that exist. No local memory
and no barrier: the three rows a work-item needs come through the cache, which serves the
row above and below to the work-items of neighbouring rows."""
---*/

__kernel void stencil_fast(const int WIDTH, const int HEIGHT,
                           const __global float* IN,
                           __global float* OUT)
{
    const int x0 = get_global_id(0) * 4;   /* the first of this work-item's four pixels */
    const int y = get_global_id(1);
    if (x0 >= WIDTH || y >= HEIGHT)
        return;
    const int last = WIDTH - 1;

    float4 sum = (float4)(0.0f);
    for (int dy = -1; dy <= 1; dy++) {
        const __global float* row = IN + clamp(y + dy, 0, HEIGHT - 1) * WIDTH;
        /* Six values: c, the four columns x0..x0+3; l and r, one on each side. */
        float l, r;
        float4 c;
        if (x0 >= 1 && x0 + 4 < WIDTH) {
            c = vload4(0, row + x0);
            l = row[x0 - 1];
            r = row[x0 + 4];
        } else {   /* an edge: clamp each column */
            l = row[max(x0 - 1, 0)];
            c = (float4)(row[min(x0, last)], row[min(x0 + 1, last)],
                         row[min(x0 + 2, last)], row[min(x0 + 3, last)]);
            r = row[min(x0 + 4, last)];
        }
        /* The [1 2 1] pass on whole vectors: the neighbours are c shifted by one lane. */
        const float4 across = (float4)(l, c.s012) + 2.0f * c + (float4)(c.s123, r);
        sum += (dy == 0 ? 2.0f : 1.0f) * across;
    }
    const float4 result = sum * (1.0f / 16.0f);

    __global float* out = OUT + y * WIDTH;
    if (x0 + 4 <= WIDTH) {
        vstore4(result, 0, out + x0);
    } else {
        out[x0] = result.s0;
        if (x0 + 1 < WIDTH)
            out[x0 + 1] = result.s1;
        if (x0 + 2 < WIDTH)
            out[x0 + 2] = result.s2;
    }
}
