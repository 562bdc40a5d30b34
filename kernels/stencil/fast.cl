/*---
name = "Fast: four pixels per work-item, vector loads"
family = "stencil"
kernel = "stencil_fast"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["cdiv(WIDTH, 4)", "cdiv(HEIGHT, ROWS)"]
local = ["LX", "LY"]
[defines]
LX = 16
LY = 8
ROWS = 1
[allowed]
LX = [4, 8, 16, 32, 64, 128]
LY = [1, 2, 4, 8, 16]
ROWS = [1, 2, 4, 8, 16]
[about]
source = "the explorer's own"
bug = ""
text = """Each work-item computes four neighbouring pixels of a row. For each of the three input
rows it needs six values (the four columns and one on each side): one float4 vector load
(a float4 where rows are 16-byte aligned) and two scalar loads, where the naive kernel makes twelve scalar reads. The
horizontal [1 2 1] pass runs on whole float4 vectors, built from the loaded values shifted
by one lane, so four outputs cost about the arithmetic of one; the three rows are then
weighted 1, 2, 1 and the four results leave in one vstore4. Near the left and right edges
(and in the last, partial group of four at widths that are not multiples of 4) the kernel
falls back to clamped scalar loads and stores only the pixels that exist. No local memory
and no barrier: the three rows a work-item needs come through the cache, which serves the
row above and below to the work-items of neighbouring rows. With ROWS > 1 a work-item
walks down ROWS output rows, keeping the [1 2 1] sums of the last three input rows in
registers: each input row is then loaded once for ROWS outputs instead of three times."""
---*/

#ifndef ROWS
#define ROWS 1   /* output rows per work-item, walked top to bottom */
#endif

/* The horizontal [1 2 1] pass of input row y (clamped) at columns x0 .. x0+3. For each
   row, six values: c, the four columns; l and r, one on each side. */
inline float4 across(const __global float* IN, const int WIDTH, const int HEIGHT,
                     const int x0, const int y, const int vec)
{
    const __global float* row = IN + clamp(y, 0, HEIGHT - 1) * WIDTH;
    const int last = WIDTH - 1;
    float l, r;
    float4 c;
    if (x0 >= 1 && x0 + 4 < WIDTH) {
        c = vec ? *(const __global float4*)(row + x0) : vload4(0, row + x0);
        l = row[x0 - 1];
        r = row[x0 + 4];
    } else {   /* an edge: clamp each column */
        l = row[max(x0 - 1, 0)];
        c = (float4)(row[min(x0, last)], row[min(x0 + 1, last)],
                     row[min(x0 + 2, last)], row[min(x0 + 3, last)]);
        r = row[min(x0 + 4, last)];
    }
    /* The neighbours are c shifted by one lane. */
    return (float4)(l, c.s012) + 2.0f * c + (float4)(c.s123, r);
}

__kernel void stencil_fast(const int WIDTH, const int HEIGHT,
                           const __global float* IN,
                           __global float* OUT)
{
    const int x0 = get_global_id(0) * 4;   /* the first of this work-item's four pixels */
    const int y0 = get_global_id(1) * ROWS;
    if (x0 >= WIDTH || y0 >= HEIGHT)
        return;

    /* Rows start 16-byte aligned when WIDTH % 4 == 0: then whole float4 loads and stores
       (vload4 and vstore4 promise only 4-byte alignment, and compile to four accesses). */
    const int vec = (WIDTH % 4) == 0;

    /* The [1 2 1] sums of the rows above, at and below the current output row. */
    float4 up = across(IN, WIDTH, HEIGHT, x0, y0 - 1, vec);
    float4 mid = across(IN, WIDTH, HEIGHT, x0, y0, vec);
    #pragma unroll
    for (int i = 0; i < ROWS; i++) {
        const int y = y0 + i;
        if (y >= HEIGHT)
            break;
        const float4 down = across(IN, WIDTH, HEIGHT, x0, y + 1, vec);
        const float4 result = (up + 2.0f * mid + down) * (1.0f / 16.0f);
        __global float* out = OUT + y * WIDTH;
        if (vec) {
            *(__global float4*)(out + x0) = result;
        } else if (x0 + 4 <= WIDTH) {
            vstore4(result, 0, out + x0);
        } else {
            out[x0] = result.s0;
            if (x0 + 1 < WIDTH)
                out[x0 + 1] = result.s1;
            if (x0 + 2 < WIDTH)
                out[x0 + 2] = result.s2;
        }
        up = mid;
        mid = down;
    }
}
