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
GX = 32
GY = 8
AHEAD = 8
[allowed]
NX = [1, 2, 4, 8]
NY = [2, 4, 8]
AHEAD = [0, 4, 8, 16, 32]
[about]
source = "own, after the 8x8 in-register transposes of CPU libraries (MKL's mkl_somatcopy, the AVX transpose kernels of OpenCV)"
bug = ""
text = """Written for CPU devices such as PoCL, not for GPUs: it is not a step of the GPU ladder.
Each work-item moves a block of 8·NY rows by 8·NX columns of IN (16×16 by default) in
registers. Sixteen rows of eight floats are read with vload8 (one vector register each) and
transposed as two 8×8 squares, with three rounds of vector shuffles each; the two results
are joined into eight runs of sixteen floats, one 64-byte line of OUT each. Where the
compiler offers them (clang, as in PoCL) and OUT's rows start on the 64-byte grid, those
lines are written with non-temporal stores, which go to memory past the caches without
first reading each line; a line written whole in one store is what makes them pay (written
in two halves, apart, they can cost more than plain stores). Off the grid (a height that is
not a multiple of 16) each run is one plain unaligned store, and the transpose runs at about
half the speed. Elsewhere, and in trace builds, each run is written as two halves with
vstore8. On an x86 CPU each work-item also asks for the lines AHEAD lines further along its
16 rows (software prefetch), which the hardware's prefetcher is slow to fetch when memory is
busy. No local memory, no barriers, nothing for the CPU to emulate. A work-group is GX×GY
work-items (32×8 by default): side by side along IN's rows, so each row is read 2 KiB at a
time. 1×8, stacked down IN, is up to a tenth faster where OUT's rows are on the grid but
slower off it, and without the prefetch it was fast only where IN's row pitch is a multiple
of 4 KiB. Blocks that cross the right or bottom edge are copied one element at a time,
bounds-checked. On a GPU its loads are uncoalesced: use fast there."""
---*/

#ifndef NX
#define NX 2      /* a block is 8*NX columns of IN wide ...                          */
#endif
#ifndef NY
#define NY 2      /* ... and 8*NY rows of IN high (NY even: 16 rows per OUT line)   */
#endif
#ifndef AHEAD
#define AHEAD 8   /* prefetch IN this many 64-byte lines ahead along each row; 0: none */
#endif
/* GX x GY work-items per work-group (the local size; not used by the code) */

#define BX (8 * NX)
#define BY (8 * NY)

/* Software prefetch and non-temporal stores where the compiler offers them (clang's builtins:
   PoCL, and Oclgrind for the stores). Trace builds (EXPLORER_TRACE) do without the prefetch
   and store with vstore8, which the recorder sees; the addresses are the same. */
#if defined(__has_builtin) && !defined(EXPLORER_TRACE)
#if __has_builtin(__builtin_prefetch) && defined(__x86_64__) && AHEAD > 0
#define PREFETCH 1   /* for an x86 CPU only: Oclgrind cannot run llvm.prefetch */
#endif
#if __has_builtin(__builtin_nontemporal_store)
#define NT_STORES 1
/* A float16 that may sit anywhere a float may: one unaligned 64-byte store for a line of OUT
   that is off the grid (clang lowers it to a single unaligned vector store). */
typedef float16 float16_unaligned __attribute__((aligned(4)));
#endif
#endif

/* Transposes the 8x8 square r[0..7] (rows of eight floats) in place, in three rounds of
   shuffles as with AVX unpack/shuffle/permute. */
static inline void transpose8x8(float8 r[8])
{
    const float8 t0 = (float8)(r[0].s0, r[1].s0, r[0].s1, r[1].s1, r[0].s4, r[1].s4, r[0].s5, r[1].s5);
    const float8 t1 = (float8)(r[0].s2, r[1].s2, r[0].s3, r[1].s3, r[0].s6, r[1].s6, r[0].s7, r[1].s7);
    const float8 t2 = (float8)(r[2].s0, r[3].s0, r[2].s1, r[3].s1, r[2].s4, r[3].s4, r[2].s5, r[3].s5);
    const float8 t3 = (float8)(r[2].s2, r[3].s2, r[2].s3, r[3].s3, r[2].s6, r[3].s6, r[2].s7, r[3].s7);
    const float8 t4 = (float8)(r[4].s0, r[5].s0, r[4].s1, r[5].s1, r[4].s4, r[5].s4, r[4].s5, r[5].s5);
    const float8 t5 = (float8)(r[4].s2, r[5].s2, r[4].s3, r[5].s3, r[4].s6, r[5].s6, r[4].s7, r[5].s7);
    const float8 t6 = (float8)(r[6].s0, r[7].s0, r[6].s1, r[7].s1, r[6].s4, r[7].s4, r[6].s5, r[7].s5);
    const float8 t7 = (float8)(r[6].s2, r[7].s2, r[6].s3, r[7].s3, r[6].s6, r[7].s6, r[6].s7, r[7].s7);
    /* u_k: pairs of columns of rows 0-3 (t0-t3) and rows 4-7 (t4-t7), per 128-bit half */
    const float8 u0 = (float8)(t0.s0, t0.s1, t2.s0, t2.s1, t0.s4, t0.s5, t2.s4, t2.s5);
    const float8 u1 = (float8)(t0.s2, t0.s3, t2.s2, t2.s3, t0.s6, t0.s7, t2.s6, t2.s7);
    const float8 u2 = (float8)(t1.s0, t1.s1, t3.s0, t3.s1, t1.s4, t1.s5, t3.s4, t3.s5);
    const float8 u3 = (float8)(t1.s2, t1.s3, t3.s2, t3.s3, t1.s6, t1.s7, t3.s6, t3.s7);
    const float8 u4 = (float8)(t4.s0, t4.s1, t6.s0, t6.s1, t4.s4, t4.s5, t6.s4, t6.s5);
    const float8 u5 = (float8)(t4.s2, t4.s3, t6.s2, t6.s3, t4.s6, t4.s7, t6.s6, t6.s7);
    const float8 u6 = (float8)(t5.s0, t5.s1, t7.s0, t7.s1, t5.s4, t5.s5, t7.s4, t7.s5);
    const float8 u7 = (float8)(t5.s2, t5.s3, t7.s2, t7.s3, t5.s6, t5.s7, t7.s6, t7.s7);
    /* Row j of the result is column j of the square: low halves give columns 0-3, high
       halves columns 4-7. */
    r[0] = (float8)(u0.lo, u4.lo);
    r[1] = (float8)(u1.lo, u5.lo);
    r[2] = (float8)(u2.lo, u6.lo);
    r[3] = (float8)(u3.lo, u7.lo);
    r[4] = (float8)(u0.hi, u4.hi);
    r[5] = (float8)(u1.hi, u5.hi);
    r[6] = (float8)(u2.hi, u6.hi);
    r[7] = (float8)(u3.hi, u7.hi);
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
#ifdef NT_STORES
        /* Every line of OUT this block writes starts on a 64-byte boundary: the builtin
           needs that alignment, vstore8 does not. */
        const int aligned = HEIGHT % 16 == 0 && ((size_t)OUT & 63) == 0;
#endif
        /* The whole block lies inside IN: vector code only. Sub-block column cb of IN
           (8 columns) becomes 8 rows of OUT; each pass of rb fills 16 floats of each. */
        for (int cb = 0; cb < NX; cb++) {
            const int x = bx + cb * 8;              /* IN column = OUT row */
            #pragma unroll
            for (int rb = 0; rb < NY; rb += 2) {
                const int y = by + rb * 8;          /* IN row = OUT column */
                const size_t i0 = (size_t)y * WIDTH + x;
#ifdef PREFETCH
                /* Ask for the lines AHEAD lines further along these 16 rows (what the work-item
                   AHEAD places to the right reads, at NX 2), into the outer caches (locality
                   1): with sixteen rows in flight the hardware's prefetcher falls behind. */
                if (cb == 0) {
                    #pragma unroll
                    for (int k = 0; k < 16; k++)
                        __builtin_prefetch(IN + i0 + (size_t)WIDTH * k + 16 * AHEAD, 0, 1);
                }
#endif
                float8 top[8], bottom[8];           /* IN rows y..y+7 and y+8..y+15 */
                #pragma unroll
                for (int k = 0; k < 8; k++) {
                    top[k] = vload8(0, IN + i0 + (size_t)WIDTH * k);
                    bottom[k] = vload8(0, IN + i0 + (size_t)WIDTH * (k + 8));
                }
                transpose8x8(top);
                transpose8x8(bottom);
                const size_t o0 = (size_t)x * HEIGHT + y;
                #pragma unroll
                for (int j = 0; j < 8; j++) {
                    __global float* const p = OUT + o0 + (size_t)HEIGHT * j;
#ifdef NT_STORES
                    if (aligned)
                        __builtin_nontemporal_store((float16)(top[j], bottom[j]),
                                                    (__global float16*)p);
                    else   /* a plain store, in one piece: twice as fast as two vstore8 */
                        *(__global float16_unaligned*)p = (float16)(top[j], bottom[j]);
#else
                    /* in two halves: PoCL's compiler fails on vstore16 of a float16 here */
                    vstore8(top[j], 0, p);
                    vstore8(bottom[j], 0, p + 8);
#endif
                }
            }
        }
    } else {
        /* A block on the right or bottom edge: one element at a time, bounds-checked. */
        for (int c = 0; c < BX && bx + c < WIDTH; c++)
            for (int r = 0; r < BY && by + r < HEIGHT; r++)
                OUT[(size_t)(bx + c) * HEIGHT + by + r] = IN[(size_t)(by + r) * WIDTH + bx + c];
    }
}
