/*---
name = "tiled matmul through access macros and a struct by value, without its second barrier"
family = "custom"
kernel = "mm"
global = ["N", "N"]
local = ["16", "16"]
[sizes]
N = 32
[args.a]
buffer = "float"
count = "N * N"
access = "read"
[args.b]
buffer = "float"
count = "N * N"
access = "read"
[args.c]
buffer = "float"
count = "N * N"
contents = "zeros"
[args.n]
scalar = "int"
value = "N"
---*/
#define TS 16
#define A(i, j) a[(i) * n + (j)]
#define B(i, j) b[(i) * n + (j)]
#define C(i, j) c[(i) * n + (j)]
typedef struct { int row, col; } at_t;

static float dot_tile(__local const float (*as)[TS], __local const float (*bs)[TS], at_t at)
{
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < TS; ++k) acc += as[at.row][k] * bs[k][at.col];
    return acc;
}

__kernel void mm(__global const float *restrict a, __global const float *restrict b,
                 __global float *restrict c, const int n)
{
    __local float as[TS][TS], bs[TS][TS];
    const at_t local_at = { get_local_id(1), get_local_id(0) };
    const int row = get_global_id(1), col = get_global_id(0);
    float result = 0.0f;
    for (int tile = 0; tile < n / TS; tile++) {
        as[local_at.row][local_at.col] = A(row, tile * TS + local_at.col);
        bs[local_at.row][local_at.col] = B(tile * TS + local_at.row, col);
        barrier(CLK_LOCAL_MEM_FENCE);
        result += dot_tile(as, bs, local_at);
    }
    C(row, col) = result;
}
