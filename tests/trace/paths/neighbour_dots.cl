/*---
name = "Points copied whole through local memory"
family = "custom"
kernel = "neighbour_dots"
global = ["64"]
local = ["16"]
[args.p]
buffer = "float"
count = "192"
access = "read"
[args.dots]
buffer = "float"
count = "64"
contents = "zeros"
writes = "all"
---*/
#line 1
/* Points of three floats staged in local memory whole, group sums of triples through local
   memory, and half4 scaling: a second program of several kernels. */
#define TILE 16

typedef struct {
    float x, y, z;
} vec3_t;

static float dot3(vec3_t a, vec3_t b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

/* Each point against the next one of its group, both copied whole from local memory. */
__kernel void neighbour_dots(__global const vec3_t *p, __global float *dots)
{
    __local vec3_t tile[TILE];
    const int l = get_local_id(0), g = get_global_id(0);
    tile[l] = p[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    vec3_t me = tile[l];
    vec3_t next = tile[(l + 1) % TILE];
    dots[g] = dot3(me, next);
}

/* Triples staged with vstore3, summed by the group's first work-item; a total that every
   group's first work-item adds to without an atomic. */
__kernel void group_sums3(__global const float *xyz, __global float *sums, __global float *total)
{
    __local float t[3 * TILE];
    const int l = get_local_id(0), g = get_global_id(0);
    vstore3(vload3(g, xyz), l, t);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        float3 acc = (float3)(0.0f);
        for (int k = 0; k < TILE; k++)
            acc += vload3(k, t);
        vstore3(acc, get_group_id(0), sums);
        total[0] += acc.x + acc.y + acc.z;
    }
}

/* Four halves at a time; the last quad is left alone by the host's count. */
__kernel void scale_half4(__global const half *in, __global half *out, const float k, const int quads)
{
    const int i = get_global_id(0);
    if (i < quads)
        vstore_half4(vload_half4(i, in) * k, i, out);
}
