__kernel void lanes(__global float4 *out4, __global const float4 *in4, __local float2 *pair)
{
    int i = get_global_id(0);
    int l = get_local_id(0);
    out4[0].x = 1.0f;
    pair[l].x = in4[i].s0;
    pair[l].y = in4[i].w;
    barrier(CLK_LOCAL_MEM_FENCE);
    out4[i].lo = pair[l];
    out4[i].zw = in4[i].yx;
}
