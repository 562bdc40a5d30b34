/*---
name = "Needs more local memory than any device has"
family = "transpose"
kernel = "huge_local"
args = ["IN", "OUT", "WIDTH", "HEIGHT"]
global = ["WIDTH", "HEIGHT"]
local = ["8", "8"]
[about]
text = "A tile of 2^20 floats (4 MiB) in local memory."
---*/
__kernel void huge_local(const __global float* in, __global float* out, int width, int height)
{
    __local float tile[1 << 20];
    int x = get_global_id(0), y = get_global_id(1);
    tile[get_local_id(1) * 8 + get_local_id(0)] = (x < width && y < height) ? in[y * width + x] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < width && y < height)
        out[x * height + y] = tile[get_local_id(1) * 8 + get_local_id(0)];
}
