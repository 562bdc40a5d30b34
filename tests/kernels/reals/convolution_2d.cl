/*---
name = "2-D convolution (PolyBench 2DCONV style), reference in float32"
family = "custom"
kernel = "convolution_2d_kernel"
global = ["NJ", "NI"]
local = ["8", "8"]
[sizes]
NI = 48
NJ = 40
[args.A]
buffer = "float"
count = "NI * NJ"
access = "read"
shape = ["NI", "NJ"]
[args.B]
buffer = "float"
count = "NI * NJ"
contents = "zeros"
shape = ["NI", "NJ"]
result = true
writes = "[1:-1, 1:-1]"
[args.ni]
scalar = "int"
value = "NI"
[args.nj]
scalar = "int"
value = "NJ"
[reference]
terms = 9
# B[i][j] = c11*A[i-1][j-1] + c12*A[i+0][j-1] + c13*A[i+1][j-1] + c21*A[i-1][j+0] + ...
numpy = """np.pad((
      0.2 * A[:-2, :-2] - 0.3 * A[1:-1, :-2] + 0.4 * A[2:, :-2]
    + 0.5 * A[:-2, 1:-1] + 0.6 * A[1:-1, 1:-1] + 0.7 * A[2:, 1:-1]
    - 0.8 * A[:-2, 2:] - 0.9 * A[1:-1, 2:] + 0.10 * A[2:, 2:]).astype(np.float32), 1)"""
[about]
source = "our own test kernel, in the style of PolyBench/GPU's 2DCONV"
text = "A 3×3 convolution with weights of both signs; the border of B keeps its zeros. The reference computes the interior, casts it to float32 as the C code's DATA_TYPE, and pads it."
---*/
#line 1
#define DATA_TYPE float

__kernel void convolution_2d_kernel(__global DATA_TYPE* A, __global DATA_TYPE* B, int ni, int nj)
{
    int j = get_global_id(0);
    int i = get_global_id(1);

    DATA_TYPE c11, c12, c13, c21, c22, c23, c31, c32, c33;
    c11 = +0.2f;  c21 = +0.5f;  c31 = -0.8f;
    c12 = -0.3f;  c22 = +0.6f;  c32 = -0.9f;
    c13 = +0.4f;  c23 = +0.7f;  c33 = +0.10f;

    if ((i < ni - 1) && (j < nj - 1) && (i > 0) && (j > 0)) {
        B[i * nj + j] = c11 * A[(i - 1) * nj + (j - 1)] + c21 * A[(i - 1) * nj + (j + 0)]
                      + c31 * A[(i - 1) * nj + (j + 1)] + c12 * A[(i + 0) * nj + (j - 1)]
                      + c22 * A[(i + 0) * nj + (j + 0)] + c32 * A[(i + 0) * nj + (j + 1)]
                      + c13 * A[(i + 1) * nj + (j - 1)] + c23 * A[(i + 1) * nj + (j + 0)]
                      + c33 * A[(i + 1) * nj + (j + 1)];
    }
}
