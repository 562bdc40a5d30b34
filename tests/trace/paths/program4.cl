/* Half triples (6 bytes; 8 apart when aligned) and points of three doubles (24 bytes)
   copied whole. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

typedef struct {
    double x, y, z;
} dpoint;

__kernel void triples_half(__global const half *in, __global half *out, __global half *aligned)
{
    const int i = get_global_id(0);
    const float3 v = vload_half3(i, in) * 2.0f;
    vstore_half3(v, i, out);
    vstorea_half3(v, i, aligned); /* four halves apart: the fourth is left alone */
}

__kernel void dpoints(__global const dpoint *src, __global dpoint *dst)
{
    const int i = get_global_id(0);
    dpoint p = src[i];
    p.y = -p.y;
    dst[i] = p;
}
