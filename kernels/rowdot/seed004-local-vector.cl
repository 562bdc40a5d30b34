/*---
name = "Seed 004 #1: the vector in local memory (mem_fence)"
family = "rowdot"
kernel = "element_mult"
args = ["RESULT", "VECTOR", "MAT1", "MAT2", "FACTOR"]
global = ["D"]
local = ["40"]
sizes = ["D == 1000", "D % L0 == 0"]
[about]
source = "seed 004, optimisation #1, as written"
bug = "mem_fence(CLK_LOCAL_MEM_FENCE) only orders this work-item's own accesses; it does not wait for the others, so a work-item may read vectCopy[k] before another has copied it (a barrier is needed); and the copy loop overruns vectCopy when the local size does not divide D."
text = """Optimisation #1 of the post: every work-item reads the whole vector, so the
work-group first copies it into fast __local memory (each work-item copies every ls-th
element) and the dot products read the copy. The author measured 1513 → 1034 (Radeon
HD 5870) and 1261 → 861 (HD 6970). The matrices are still read a row per work-item,
uncoalesced."""
---*/

#define D 1000
__kernel void element_mult(
    __global float *result,
    __global const float *vector,
    __global const float *matrix,
    __global const float *matrix2,
    const float factor)
{
    int y = get_global_id(0);
    float sum = 0;
    __local float vectCopy[D];
    int ls = get_local_size(0);
    int lid = get_local_id(0);
    for(int i=0;i<D;i+=ls){
        vectCopy[i+lid] = vector[i+lid];
    }
    mem_fence(CLK_LOCAL_MEM_FENCE);
    for(int k = 0; k < D; k++)
    {
        sum += vectCopy[k] * matrix[(y*D) + k] * matrix2[(y*D) + k ];
    }
    result[y] = sum * factor;
}
