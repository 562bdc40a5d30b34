/*---
name = "Latin-1 comment"
family = "transpose"
kernel = "copy"
args = ["IN", "OUT", "WIDTH", "HEIGHT"]
global = ["WIDTH", "HEIGHT"]
local = ["1", "1"]
---*/
/* café */
__kernel void copy(const __global float* in, __global float* out, int w, int h) {}
