/*---
name = "Exercise: seed 004's mem_fence"
family = "custom"
kernel = "element_mult"
global = ["GROUPS * 64"]
local = ["64"]
[sizes]
GROUPS = 4
D = 128
[args.result]
buffer = "float"
count = "D"
access = "write"
result = true
[args.vector]
buffer = "float"
count = "D"
access = "read"
[args.matrix]
buffer = "float"
count = "D * D"
access = "read"
shape = ["D", "D"]
[args.matrix2]
buffer = "float"
count = "D * D"
access = "read"
shape = ["D", "D"]
[args.factor]
scalar = "float"
value = 0.5
[reference]
numpy = "factor * sum(vector * matrix * matrix2, axis=1)"
terms = "D"
---*/
#define D 128
#define LS 64
__kernel void element_mult(
    __global float *result,
    __global const float *vector,
    __global const float *matrix,
    __global const float *matrix2,
    const float factor)
{
    __local float vectCopy[D];
    __local float sum[LS];
    int lid = get_local_id(0);
    for (int i = lid; i < D; i += LS)
        vectCopy[i] = vector[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int y = get_group_id(0); y < D; y += get_num_groups(0)) {
        float acc = 0.0f;
        for (int k = lid; k < D; k += LS)
            acc += vectCopy[k] * matrix[y * D + k] * matrix2[y * D + k];
        sum[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = LS / 2; s > 0; s >>= 1) {
            if (lid < s)
                sum[lid] += sum[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            result[y] = factor * sum[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
