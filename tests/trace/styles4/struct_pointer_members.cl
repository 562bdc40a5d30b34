/*---
name = "structs holding pointers to local and global memory, arrays of global pointers"
family = "custom"
kernel = "k"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
---*/
typedef struct {
    __local float *tile;
    __global const float *from;
    int n;
} view_t;

static void load(const view_t *v, int l) { v->tile[l] = v->from[l]; }
static float peek(view_t v, int j) { return v.tile[j % v.n]; }

__kernel void k(__global const float *src, __global float *out)
{
    __local float tile[16];
    const int l = get_local_id(0), g = get_group_id(0);
    view_t v = { tile, src + g * 16, 16 };
    __global float *outs[2] = { out, out + 8 };
    load(&v, l);
    barrier(CLK_LOCAL_MEM_FENCE);
    outs[l >= 8][g * 16 + (l & 7)] = peek(v, l + 1);
}
