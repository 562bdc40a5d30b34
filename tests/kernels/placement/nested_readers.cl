/*---
name = "Sums read through helpers that pass the pointer along"
family = "custom"
kernel = "nested_readers"
global = ["N"]
local = ["8"]
[sizes]
N = 16
[args.x]
buffer = "float"
count = "N"
access = "read"
[args.y]
buffer = "float"
count = "N"
result = true
[args.n]
scalar = "int"
value = "N"
[about]
bug = "the row pointer starts one element late: the last work-item reads past x"
---*/
float at(const __global float* p, int i) { return p[i]; }
float at1(const __global float* p, int i) { return at(p + 0, i); }
float at2(const __global float* p, int i) { return at1(p + 0, i); }
float at3(const __global float* p, int i) { return at2(p + 0, i); }
float at4(const __global float* p, int i) { return at3(p + 0, i); }
float at5(const __global float* p, int i) { return at4(p + 0, i); }

__kernel void nested_readers(__global const float* x, __global float* y, int n)
{
    const int i = get_global_id(0);
    const __global float* row = x + 1;
    float s = 0.0f;
    for (int k = 0; k < 1; k++)
        s += at5(row, i + k);
    if (i < n)
        y[i] = s;
}
