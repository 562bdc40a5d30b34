/*---
name = "Samples read back through a helper that returns the struct whole, tag never set nor used"
family = "custom"
kernel = "weigh"
global = ["64"]
local = ["32"]
[args.v]
buffer = "float"
count = "64"
access = "read"
[args.w]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
writes = "all"
---*/
#line 1
typedef struct {
    float value;
    float weight;
    int tag; /* set by the host's own code path, never here */
} Sample;

static Sample fetch(__local const Sample *tile, int at)
{
    return tile[at]; /* copied whole: tag comes along */
}

__kernel void weigh(__global const float *v, __global const float *w, __global float *out)
{
    __local Sample tile[32];
    const int l = get_local_id(0), g = get_global_id(0);
    tile[l].value = v[g];
    tile[l].weight = w[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    Sample t = fetch(tile, 31 - l);
    out[g] = t.value * t.weight;
}
