/*---
name = "Half storage, four taps averaged"
family = "custom"
kernel = "blend_half"
global = ["64"]
local = ["32"]
[args.a]
buffer = "half"
count = "256"
access = "read"
[args.b]
buffer = "half"
count = "64"
access = "read"
[args.out]
buffer = "half"
count = "64"
contents = "zeros"
writes = "[:60]"
[args.n]
scalar = "int"
value = 60
---*/
#line 1
/* One program, several kernels: points moved in triples, samples weighed through a struct,
   a half-precision blend, and an in-place shift that races. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define GID ((int)get_global_id(0))
#define IN_RANGE(i, n) ((i) < (n))
#define TWICE(v) ((v) + (v))

typedef struct {
    float x, y, z;
} Point;

typedef struct {
    float value;
    float weight;
    int tag; /* set by the host's own code path, never here */
} Sample;

static float3 nudge(float3 p, float by)
{
    return p + (float3)(by, by, by);
}

static Point halve(Point p)
{
    Point q = p;
    q.x *= 0.5f;
    q.y *= 0.5f;
    q.z *= 0.5f;
    return q;
}

/* Triples of float, short, uchar and double; only the first n triples are written. */
__kernel void move3(__global const float *xyz, __global float *moved,
                    __global const short *s3, __global short *s3out,
                    __global const uchar *c3, __global uchar *c3out,
                    __global const double *d3, __global double *d3out,
                    const int n, const float by)
{
    const int i = GID;
    if (!IN_RANGE(i, n))
        return;
    vstore3(nudge(vload3(i, xyz), by), i, moved);
    vstore3(TWICE(vload3(i, s3)), i, s3out);
    vstore3(vload3(i, c3) + (uchar3)(1), i, c3out);
    vstore3(vload3(i, d3) * 2.0, i, d3out);
}

/* Points copied whole (12 bytes each) through a helper. */
__kernel void copy_points(__global const Point *pts, __global Point *out, const int n)
{
    const int i = GID;
    if (IN_RANGE(i, n)) {
        Point p = pts[i];
        out[i] = halve(p);
    }
}

static Sample fetch(__local const Sample *tile, int at)
{
    return tile[at]; /* copied whole: tag comes along */
}

/* Samples staged in local memory, read back mirrored: tag is never set and never used. */
__kernel void weigh(__global const float *v, __global const float *w, __global float *out)
{
    __local Sample tile[32];
    const int l = get_local_id(0);
    tile[l].value = v[GID];
    tile[l].weight = w[GID];
    barrier(CLK_LOCAL_MEM_FENCE);
    Sample t = tile[31 - l]; /* copied whole: tag comes along */
    out[GID] = t.value * t.weight;
}

/* The same, but the copy's tag is used: a read of a member nobody set. */
__kernel void weigh_tagged(__global const float *v, __global const float *w, __global float *out)
{
    __local Sample tile[32];
    const int l = get_local_id(0);
    tile[l].value = v[GID];
    tile[l].weight = w[GID];
    barrier(CLK_LOCAL_MEM_FENCE);
    Sample t = fetch(tile, 31 - l);
    out[GID] = t.value * t.weight + (float)t.tag;
}

/* Half storage, float arithmetic; an accumulator over four taps. */
__kernel void blend_half(__global const half *a, __global const half *b, __global half *out,
                         const int n)
{
    const int i = GID;
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < 4; k++)
        acc += 0.25f * vload_half(4 * i + k, a);
    vstore_half(acc + vload_half(i, b), i, out);
}

/* Shift right by one in place: work-item i writes what work-item i + 1 reads. */
__kernel void shift_right(__global float *a, const int n)
{
    const int i = GID;
    if (i + 1 < n)
        a[i + 1] = a[i];
}
