/*---
name = "pointers stored as integers and back, without casts"
family = "transpose"
kernel = "t_int"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
__kernel void t_int(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    int x = get_global_id(0), y = get_global_id(1);
    ulong in_at = IN;                      /* a pointer stored into an integer */
    __global const float* src = in_at;     /* an integer stored into a pointer */
    __global const uint* bits = src;       /* incompatible pointer types */
    __global float* rows[1];
    rows[0] = (ulong)OUT;                  /* into an element of a pointer array */
    rows[0][x * HEIGHT + y] = as_float(bits[y * WIDTH + x]);
}
