/*---
name = "cells of a struct stashed and peeked by helpers, a write_mem_fence between"
kernel = "mirror"
family = "custom"
global = ["64"]
local = ["16"]
[args.src]
buffer = "float"
count = "64"
access = "read"
[args.dst]
buffer = "float"
count = "64"
contents = "zeros"
---*/
#line 1
typedef struct { float v; int n; } cell_t;

void stash(__local cell_t* cells, int l, float v) { cells[l].v = v; cells[l].n = l; }

float peek(__local const cell_t* cells, int l) { return cells[l].v; }

__kernel void mirror(__global const float* src, __global float* dst)
{
    __local cell_t cells[16];
    int l = get_local_id(0);
    stash(cells, l, src[get_global_id(0)]);
    write_mem_fence(CLK_LOCAL_MEM_FENCE);
    dst[get_global_id(0)] = peek(cells, 15 - l);
}
