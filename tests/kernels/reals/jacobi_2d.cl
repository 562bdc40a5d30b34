/*---
name = "Jacobi-2D step (PolyBench jacobi-2d style), the border left alone"
family = "custom"
kernel = "jacobi_2d_kernel1"
global = ["N", "N"]
local = ["8", "8"]
[sizes]
N = 40
[args.A]
buffer = "float"
count = "N * N"
access = "read"
shape = ["N", "N"]
[args.B]
buffer = "float"
count = "N * N"
shape = ["N", "N"]
result = true
writes = "[1:-1, 1:-1]"
[args.n]
scalar = "int"
value = "N"
[reference]
terms = 5
numpy = """np.where(np.pad(np.ones((N - 2, N - 2)), 1) > 0,
    0.2 * (A + np.roll(A, 1, axis=1) + np.roll(A, -1, axis=1)
             + np.roll(A, -1, axis=0) + np.roll(A, 1, axis=0)),
    B)"""
[about]
source = "our own test kernel, in the style of PolyBench/GPU's jacobi2d (its first kernel)"
text = "B's interior is the mean of each point of A and its four neighbours; B's border keeps what it held. The reference shifts A with np.roll and keeps B where the interior mask is off."
---*/
#line 1
__kernel void jacobi_2d_kernel1(__global float* A, __global float* B, int n)
{
    int i = get_global_id(1);
    int j = get_global_id(0);

    if ((i >= 1) && (i < (n - 1)) && (j >= 1) && (j < (n - 1)))
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (1 + j)]
                               + A[(1 + i) * n + j] + A[(i - 1) * n + j]);
}
