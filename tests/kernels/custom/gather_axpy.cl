/*---
name = "Gather AXPY"
family = "custom"
kernel = "gather_axpy"
global = ["N"]
local = ["64"]
[sizes]
N = 1000
[args.alpha]
scalar = "float"
value = 2.5
[args.index]
buffer = "uint"
count = "N"
contents = "iota"
access = "read"
[args.x]
buffer = "float"
count = "N"
access = "read"
[args.y]
buffer = "float"
count = "N"
contents = "ones"
result = true
[args.n]
scalar = "int"
value = "N"
[reference]
numpy = "alpha * x[index] + y"
[about]
text = "y = alpha * x[index] + y: a scalar, uint indices beside float data."
---*/
__kernel void gather_axpy(float alpha, __global const uint* index,
                          __global const float* x, __global float* y, int n)
{
    int i = get_global_id(0);
    if (i < n)
        y[i] = alpha * x[index[i]] + y[i];
}
