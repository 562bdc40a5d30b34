/*---
name = "One anti-diagonal of a dynamic programme (a Needleman-Wunsch step)"
family = "custom"
kernel = "nw_diagonal"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.score]
buffer = "int"
count = "(N + 1) * (N + 1)"
contents = "iota"
shape = ["N + 1", "N + 1"]
[args.penalty]
buffer = "int"
count = "N * N"
access = "read"
[args.diag]
scalar = "int"
value = "N - 1"
[args.n]
scalar = "int"
value = "N"
---*/
#line 1
/* Work-item i scores cell (i + 1, diag - i + 1) of the anti-diagonal from its three
 * neighbours, which earlier anti-diagonals (here: the host) filled; every other cell keeps
 * what it held. */
__kernel void nw_diagonal(__global int* score, __global const int* penalty, int diag, int n)
{
    int i = get_global_id(0);
    int j = diag - i;
    if (i >= n || j < 0 || j >= n)
        return;
    int w = n + 1;
    int corner = score[i * w + j], up = score[i * w + j + 1], left = score[(i + 1) * w + j];
    score[(i + 1) * w + j + 1] = max(corner + penalty[i * n + j], max(up, left) - 1);
}
