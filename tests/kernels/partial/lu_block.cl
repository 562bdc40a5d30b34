/*---
name = "One block of an LU step: the trailing block updated, the rest kept"
family = "custom"
kernel = "lu_block"
global = ["B", "B"]
local = ["8", "8"]
[sizes]
N = 64
B = 16
K = 16
[args.a]
buffer = "float"
count = "N * N"
shape = ["N", "N"]
[args.n]
scalar = "int"
value = "N"
[args.k]
scalar = "int"
value = "K"
---*/
#line 1
/* The block at (k, k) takes away the product of column k - 1 (left of it) and row k - 1
 * (above it), which this launch does not write; the other blocks keep their values. */
__kernel void lu_block(__global float* a, int n, int k)
{
    int col = k + get_global_id(0), row = k + get_global_id(1);
    a[row * n + col] -= a[row * n + k - 1] * a[(k - 1) * n + col];
}
