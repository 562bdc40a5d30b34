/*---
name = "Writes past its output"
family = "transpose"
kernel = "write_past_end"
args = ["IN", "OUT", "WIDTH", "HEIGHT"]
global = ["WIDTH", "HEIGHT"]
local = ["1", "1"]
[about]
text = "Transposes correctly, then writes 64 floats past the end of its output."
---*/
__kernel void write_past_end(const __global float* in, __global float* out, int width, int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x < width && y < height)
        out[x * height + y] = in[y * width + x];
    if (x == 0 && y == 0)
        for (int i = 0; i < 64; ++i)
            out[width * height + i] = 1.0f;
}
