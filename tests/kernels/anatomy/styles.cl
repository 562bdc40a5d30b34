/*---
name = "Index anatomy in several styles: macros, a struct, helpers, a loop, a pointer, vload, an atomic"
family = "custom"
kernel = "styles"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.idx]
buffer = "int"
count = "N"
contents = "iota"
access = "read"
[args.dst]
buffer = "float"
count = "N"
result = true
[args.hist]
buffer = "int"
count = "16"
contents = "zeros"
result = true
[args.n]
scalar = "int"
value = "N"
---*/
#define WIDTH 4
#define AT(r, c) ((r) * WIDTH + (c))
#define GID get_global_id(0)

typedef struct { int row; int col; } cell_t;

int flat(cell_t c) { return AT(c.row, c.col); }

int mirror(int i, int n)
{
    int m = n - 1 - i;
    return m;
}

__kernel void styles(__global const float* src, __global const int* idx,
                     __global float* dst, __global int* hist, int n)
{
    int gid = GID;
    cell_t c;
    c.row = gid / WIDTH;
    c.col = gid % WIDTH;
    int j = flat(c);
    float acc = 0.0f;
    for (int k = 0; k < 3; k++) {
        int o = mirror(j, n);
        if (k == 2)
            o = idx[j];
        acc += src[o];
    }
    __global const float* row = src + AT(c.row, 0);
    float4 v = vload4(0, row);
    int bin = gid & 15;
    atomic_add(&hist[bin], 1);
    dst[AT(c.row, c.col)] = acc + v.x;
}
