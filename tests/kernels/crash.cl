/*---
name = "Crashes the runtime"
family = "transpose"
kernel = "crash"
args = ["IN", "OUT", "WIDTH", "HEIGHT"]
global = ["WIDTH"]
local = ["1"]
[about]
text = "Writes through a wild pointer so that the OpenCL runtime on a CPU device segfaults."
---*/
__kernel void crash(const __global float* in, __global float* out, int width, int height)
{
    __global float* wild = (__global float*)(0x10 + get_global_id(0) * 0x1000);
    wild[0] = in[0];
    out[0] = wild[1];
}
