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
/* Seed 004's kernel (a work-group per row), at D = 128, with sum[] cleared for each row. */
#define D 128
#define ls 64
__kernel void element_mult(
    __global float *result,
    __global const float *vector,
    __global const float *matrix,
    __global const float *matrix2,
    const float factor)
{
    __local float vectCopy[D];
    int lid = get_local_id(0);
    for(int i=0;i<D;i+=ls){
        vectCopy[i+lid] = vector[i+lid];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int ng = get_num_groups(0);
    int gid = get_group_id(0);
    int y, k;
    __local float sum[ls];
    for(y = gid; y < D; y+=ng){
        sum[lid] = 0;
        for(k = lid; k < D; k+=ls)
        {
            sum[lid] += vectCopy[k] * matrix[(y*D) + k] * matrix2[(y*D) + k ];
        }

        if(lid==0){
            result[y] = sum[0];
            for(k=1;k<ls;k++){
                result[y] += sum[k];
            }
            result[y] *= factor;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
