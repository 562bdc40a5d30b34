/*---
name = "Exercise: a coalesced matrix-vector product"
family = "custom"
kernel = "matvec"
global = ["HEIGHT * L0"]
local = ["64"]
[sizes]
HEIGHT = 8
WIDTH = 256
[args.mat]
buffer = "float"
count = "HEIGHT * WIDTH"
access = "read"
shape = ["HEIGHT", "WIDTH"]
[args.vec]
buffer = "float"
count = "WIDTH"
access = "read"
[args.out]
buffer = "float"
count = "HEIGHT"
access = "write"
result = true
[args.width]
scalar = "int"
value = "WIDTH"
[args.part]
local = "float"
count = "L0"
[reference]
numpy = "mat @ vec"
terms = "WIDTH"
---*/
__kernel void matvec(__global const float* mat, __global const float* vec,
                     __global float* out, int width, __local float* part)
{
    int row = get_group_id(0);
    int lid = get_local_id(0);
    int items = get_local_size(0);
    float sum = 0.0f;
    for (int x4 = lid; x4 < width / 4; x4 += items) {
        float4 m = vload4(x4, mat + row * width);
        float4 v = vload4(x4, vec);
        sum += dot(m, v);
    }
    part[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = items / 2; s > 0; s /= 2) {
        if (lid < s)
            part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[row] = part[0];
}
