// Our own kernel for the .sim reader's tests: every argument form of the format.
typedef struct { float scale; float offset; int shift; } Params;

__kernel void scaled_copy(__global const int* in, __global float* out, __global uchar* flags,
                          __local float* tile, float4 weights, Params params, uint count,
                          __global const short* unused)
{
    size_t i = get_global_id(0);
    size_t l = get_local_id(0);
    tile[l] = (float)in[i] * params.scale + params.offset;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < count) {
        out[i] = tile[get_local_size(0) - 1 - l] * weights.x + weights.w;
        flags[i] = (uchar)((in[i] >> params.shift) & 1);
    }
}
