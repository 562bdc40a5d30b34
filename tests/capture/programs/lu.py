"""LU decomposition by blocks, without pivoting, in place: per block step the diagonal block
is factored, then its row and column panels, then the trailing matrix is updated."""

import numpy as np
import pyopencl as cl

source = """
#define A(r, c) a[(r) * n + (c)]

__kernel void diagonal(__global float *a, const int n, const int k0, const int bs)
{
    int i = get_local_id(0);
    for (int kk = 0; kk < bs; kk++) {
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (i > kk) {
            float l = A(k0 + i, k0 + kk) / A(k0 + kk, k0 + kk);
            A(k0 + i, k0 + kk) = l;
            for (int j = kk + 1; j < bs; j++)
                A(k0 + i, k0 + j) -= l * A(k0 + kk, k0 + j);
        }
    }
}

__kernel void perimeter(__global float *a, const int n, const int k0, const int bs)
{
    int t = get_global_id(0);
    int rest = n - k0 - bs;
    if (t < rest) {              /* a column of U right of the diagonal block */
        int c = k0 + bs + t;
        for (int i = 1; i < bs; i++)
            for (int p = 0; p < i; p++)
                A(k0 + i, c) -= A(k0 + i, k0 + p) * A(k0 + p, c);
    } else if (t < 2 * rest) {   /* a row of L below it */
        int r = k0 + bs + t - rest;
        for (int j = 0; j < bs; j++) {
            float v = A(r, k0 + j);
            for (int p = 0; p < j; p++)
                v -= A(r, k0 + p) * A(k0 + p, k0 + j);
            A(r, k0 + j) = v / A(k0 + j, k0 + j);
        }
    }
}

__kernel void internal(__global float *a, const int n, const int k0, const int bs)
{
    int r = k0 + bs + get_global_id(1);
    int c = k0 + bs + get_global_id(0);
    float v = A(r, c);
    for (int p = 0; p < bs; p++)
        v -= A(r, k0 + p) * A(k0 + p, c);
    A(r, c) = v;
}
"""

n, bs = 32, 8
rng = np.random.default_rng(5)
matrix = (rng.uniform(-1, 1, (n, n)) + n * np.eye(n)).astype(np.float32)

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build()
diagonal = cl.Kernel(program, "diagonal")
perimeter = cl.Kernel(program, "perimeter")
internal = cl.Kernel(program, "internal")
a = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=matrix)
sizes = [np.int32(n), None, np.int32(bs)]
for k0 in range(0, n, bs):
    step = (np.int32(n), np.int32(k0), np.int32(bs))
    diagonal(queue, (bs,), (bs,), a, *step)
    rest = n - k0 - bs
    if rest:
        perimeter(queue, (2 * rest,), (bs,), a, *step)
        internal(queue, (rest, rest), (bs, bs), a, *step)
lu = np.empty_like(matrix)
cl.enqueue_copy(queue, lu, a)
lower = np.tril(lu, -1) + np.eye(n)
upper = np.triu(lu)
error = np.abs(lower @ upper - matrix).max()
assert error < 1e-3, error
print(f"LU of {n}x{n} in blocks of {bs}: max |LU - A| {error:.2e}")
