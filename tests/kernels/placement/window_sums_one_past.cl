/*---
name = "Window sums whose loop runs one pass too many"
family = "custom"
kernel = "window_sums"
global = ["N"]
local = ["8"]
[sizes]
N = 16
[args.x]
buffer = "float"
count = "N + WIDTH - 1"
access = "read"
[args.out]
buffer = "float"
count = "N"
result = true
[args.n]
scalar = "int"
value = "N"
[defines]
WIDTH = 4
[about]
bug = "k <= WIDTH: the last pass reads one past the window, and past x for the last i"
---*/
__kernel void window_sums(__global const float* x, __global float* out, int n)
{
    int i = get_global_id(0);
    if (i < n) {
        float s = 0.0f;
        for (int k = 0; k <= WIDTH; k++)
            s += x[i + k];
        out[i] = s;
    }
}
