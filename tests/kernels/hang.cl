/*---
name = "Never returns"
family = "transpose"
kernel = "hang"
args = ["IN", "OUT", "WIDTH", "HEIGHT"]
global = ["1"]
local = ["1"]
[about]
text = "Spins on a value the host never sets, to test timeouts."
---*/
__kernel void hang(const __global float* in, __global float* out, int width, int height)
{
    volatile float x = in[0];
    while (x == x)
        x = x + 0.0f * in[0];
    out[0] = x;
}
