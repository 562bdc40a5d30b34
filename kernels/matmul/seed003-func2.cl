/*---
name = "Seed 003: func2 (local memory, BS = 16)"
family = "matmul"
kernel = "func2"
args = ["A", "B", "M", "N", "K", "C"]
global = ["N", "M"]
local = ["16", "16"]
sizes = ["L0 == 16", "L1 == 16", "M % 16 == 0", "N % 16 == 0", "K % 16 == 0"]
[about]
source = "seed 003"
bug = "The block size BS = 16 is fixed in the source and nothing is bounds-checked, so it is only correct with a 16×16 work-group and M, N and K multiples of 16; otherwise it reads and writes outside the matrices or mixes up rows."
text = """The book example's local-memory kernel: a 16×16 work-group computes a 16×16 block of
c. It steps along a row of blocks of a and a column of blocks of b, copying each pair into
the local arrays ta and tb, waiting at a barrier, and multiplying them from local memory,
so each global element is fetched 16 times less often. The post timed it at 34.6 ms against
43.6 ms for func1 at 768×768."""
---*/

/* As written in seed 003 (kernel2), indentation tidied; BS is defined in the source. */
#define BS 16
kernel void func2(global float* a, global float* b, int M, int N, int K, global float *c)
{
    int by = get_group_id(1);
    int bx = get_group_id(0);
    int ty = get_local_id(1); /* 0~BS */
    int tx = get_local_id(0); /* 0~BS */
    local float ta[BS][BS];
    local float tb[BS][BS];
    int ab = K * BS * by; /* a的起始行 */
    int ae = ab + K; /* a的行结尾 */
    int bb = BS * bx; /* 列号 */
    float v = 0;
    int i, j;
    for (i = ab, j = bb; i < ae; i += BS, j += BS * N)
    {
        ta[ty][tx] = a[i + ty * K + tx];
        tb[ty][tx] = b[j + ty * N + tx];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < BS; k++)
        {
            v += ta[ty][k] * tb[k][tx];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[N * BS * by + ty * N + bx * BS + tx] = v;
}
