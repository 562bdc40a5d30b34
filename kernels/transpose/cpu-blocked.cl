/*---
name = "CPU: float8 register blocks"
family = "transpose"
kernel = "transpose_cpu_blocked"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["cdiv(WIDTH, 8 * NX)", "cdiv(HEIGHT, 8 * NY)"]
local = ["GX", "GY"]
[defines]
NX = 2
NY = 2
GX = 1
GY = 8
[allowed]
NX = [1, 2, 4, 8]
NY = [1, 2, 4, 8]
[about]
source = "own, after the 8x8 in-register transposes of CPU libraries (MKL's mkl_somatcopy, the AVX transpose kernels of OpenCV)"
bug = ""
text = """Written for CPU devices such as PoCL, not for GPUs: it is not a step of the GPU ladder.
Each work-item moves a block of 8·NY rows by 8·NX columns of IN (16×16 by default) in
registers, 8×8 at a time: eight rows of eight floats are read with vload8 (one AVX register
each), transposed with three rounds of vector shuffles and written as eight rows of OUT.
Where the compiler offers them (clang, as in PoCL) the rows are written with non-temporal
stores, which go past the caches without first reading each line; elsewhere, and in trace
builds, with vstore8. No local memory, no barriers, nothing for the CPU to emulate. A
work-group is GX×GY work-items (1×8 by default) stacked down IN, so together they write runs
of GY·8·NY floats along each row of OUT. Blocks that cross the right or bottom edge are
copied one element at a time, bounds-checked. On a GPU its loads are uncoalesced: use fast there."""
---*/

#ifndef NX
#define NX 2      /* a block is 8*NX columns of IN wide ...                  */
#endif
#ifndef NY
#define NY 2      /* ... and 8*NY rows of IN high: NX*NY float8 sub-blocks    */
#endif
/* GX x GY work-items per work-group (the local size; not used by the code) */

#define BX (8 * NX)
#define BY (8 * NY)

/* Non-temporal stores where the compiler offers them (clang's builtin: PoCL, Oclgrind): the
   rows of OUT go past the caches to memory, without the read of each line a plain store
   makes first. Trace builds (EXPLORER_TRACE) store with vstore8, which the recorder sees; the
   addresses are the same. */
#if defined(__has_builtin) && !defined(EXPLORER_TRACE)
#if __has_builtin(__builtin_nontemporal_store)
#define NT_STORES 1
#endif
#endif

static inline void store_row(const float8 v, __global float* restrict p, const int aligned)
{
#ifdef NT_STORES
    if (aligned) {   /* the builtin needs a float8-aligned address; vstore8 does not */
        __builtin_nontemporal_store(v, (__global float8*)p);
        return;
    }
#endif
    vstore8(v, 0, p);
}

__kernel void transpose_cpu_blocked(const int WIDTH, const int HEIGHT,
                                    const __global float* restrict IN,
                                    __global float* restrict OUT)
{
    const int bx = get_global_id(0) * BX;           /* first column of the IN block  */
    const int by = get_global_id(1) * BY;           /* first row of the IN block     */
    if (bx >= WIDTH || by >= HEIGHT)
        return;   /* the global size was rounded up; no barriers follow */

    if (bx + BX <= WIDTH && by + BY <= HEIGHT) {
        const int aligned = HEIGHT % 8 == 0;   /* every row of OUT starts float8-aligned */
        /* The whole block lies inside IN: vector code only. Sub-block column cb of IN
           (8 columns) becomes 8 rows of OUT; walking rb along it writes those rows
           contiguously. */
        for (int cb = 0; cb < NX; cb++) {
            const int x = bx + cb * 8;              /* IN column = OUT row */
            #pragma unroll
            for (int rb = 0; rb < NY; rb++) {
                const int y = by + rb * 8;          /* IN row = OUT column */
                const size_t i0 = (size_t)y * WIDTH + x;
                const float8 r0 = vload8(0, IN + i0);
                const float8 r1 = vload8(0, IN + i0 + (size_t)WIDTH);
                const float8 r2 = vload8(0, IN + i0 + (size_t)WIDTH * 2);
                const float8 r3 = vload8(0, IN + i0 + (size_t)WIDTH * 3);
                const float8 r4 = vload8(0, IN + i0 + (size_t)WIDTH * 4);
                const float8 r5 = vload8(0, IN + i0 + (size_t)WIDTH * 5);
                const float8 r6 = vload8(0, IN + i0 + (size_t)WIDTH * 6);
                const float8 r7 = vload8(0, IN + i0 + (size_t)WIDTH * 7);
                /* 8x8 transpose in three rounds of shuffles, as with AVX unpack/shuffle/permute. */
                const float8 t0 = (float8)(r0.s0, r1.s0, r0.s1, r1.s1, r0.s4, r1.s4, r0.s5, r1.s5);
                const float8 t1 = (float8)(r0.s2, r1.s2, r0.s3, r1.s3, r0.s6, r1.s6, r0.s7, r1.s7);
                const float8 t2 = (float8)(r2.s0, r3.s0, r2.s1, r3.s1, r2.s4, r3.s4, r2.s5, r3.s5);
                const float8 t3 = (float8)(r2.s2, r3.s2, r2.s3, r3.s3, r2.s6, r3.s6, r2.s7, r3.s7);
                const float8 t4 = (float8)(r4.s0, r5.s0, r4.s1, r5.s1, r4.s4, r5.s4, r4.s5, r5.s5);
                const float8 t5 = (float8)(r4.s2, r5.s2, r4.s3, r5.s3, r4.s6, r5.s6, r4.s7, r5.s7);
                const float8 t6 = (float8)(r6.s0, r7.s0, r6.s1, r7.s1, r6.s4, r7.s4, r6.s5, r7.s5);
                const float8 t7 = (float8)(r6.s2, r7.s2, r6.s3, r7.s3, r6.s6, r7.s6, r6.s7, r7.s7);
                /* u_k: columns {2k/4..} of rows 0-3 / 4-7, per 128-bit half. */
                const float8 u0 = (float8)(t0.s0, t0.s1, t2.s0, t2.s1, t0.s4, t0.s5, t2.s4, t2.s5);
                const float8 u1 = (float8)(t0.s2, t0.s3, t2.s2, t2.s3, t0.s6, t0.s7, t2.s6, t2.s7);
                const float8 u2 = (float8)(t1.s0, t1.s1, t3.s0, t3.s1, t1.s4, t1.s5, t3.s4, t3.s5);
                const float8 u3 = (float8)(t1.s2, t1.s3, t3.s2, t3.s3, t1.s6, t1.s7, t3.s6, t3.s7);
                const float8 u4 = (float8)(t4.s0, t4.s1, t6.s0, t6.s1, t4.s4, t4.s5, t6.s4, t6.s5);
                const float8 u5 = (float8)(t4.s2, t4.s3, t6.s2, t6.s3, t4.s6, t4.s7, t6.s6, t6.s7);
                const float8 u6 = (float8)(t5.s0, t5.s1, t7.s0, t7.s1, t5.s4, t5.s5, t7.s4, t7.s5);
                const float8 u7 = (float8)(t5.s2, t5.s3, t7.s2, t7.s3, t5.s6, t5.s7, t7.s6, t7.s7);
                /* Output row j = column j of the 8x8 sub-block: low halves give columns 0-3,
                   high halves columns 4-7. */
                const size_t o0 = (size_t)x * HEIGHT + y;
                store_row((float8)(u0.lo, u4.lo), OUT + o0, aligned);
                store_row((float8)(u1.lo, u5.lo), OUT + o0 + (size_t)HEIGHT, aligned);
                store_row((float8)(u2.lo, u6.lo), OUT + o0 + (size_t)HEIGHT * 2, aligned);
                store_row((float8)(u3.lo, u7.lo), OUT + o0 + (size_t)HEIGHT * 3, aligned);
                store_row((float8)(u0.hi, u4.hi), OUT + o0 + (size_t)HEIGHT * 4, aligned);
                store_row((float8)(u1.hi, u5.hi), OUT + o0 + (size_t)HEIGHT * 5, aligned);
                store_row((float8)(u2.hi, u6.hi), OUT + o0 + (size_t)HEIGHT * 6, aligned);
                store_row((float8)(u3.hi, u7.hi), OUT + o0 + (size_t)HEIGHT * 7, aligned);
            }
        }
    } else {
        /* A block on the right or bottom edge: one element at a time, bounds-checked. */
        for (int c = 0; c < BX && bx + c < WIDTH; c++)
            for (int r = 0; r < BY && by + r < HEIGHT; r++)
                OUT[(size_t)(bx + c) * HEIGHT + by + r] = IN[(size_t)(by + r) * WIDTH + bx + c];
    }
}
