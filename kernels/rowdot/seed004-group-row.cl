/*---
name = "Seed 004 #2: a work-group per row (uninitialised sum[])"
family = "rowdot"
kernel = "element_mult"
args = ["RESULT", "VECTOR", "MAT1", "MAT2", "FACTOR"]
global = ["D * 64"]
local = ["64"]
sizes = ["D == 1000", "L0 == 64"]
[about]
source = "seed 004, optimisation #2, as written"
bug = "sum[] is read (+=) before it is ever written and never reset between rows, and mem_fence stands where barriers are needed (after the vector copy, and before work-item 0 reads the other work-items' sum[k]); the copy loop also runs past both arrays (vector[1000..1023], vectCopy[1000..1023]) because 64 does not divide 1000."
text = """Optimisation #2 of the post: a whole work-group of 64 work-items computes one
result, so the 64 work-items read 64 neighbouring elements of a row at once (coalesced),
each adding into its own slot of __local sum[]; work-item 0 then adds the 64 slots. The
author measured about twice the speed of the original."""
---*/

#define D 1000
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
    mem_fence(CLK_LOCAL_MEM_FENCE);
    int ng = get_num_groups(0);
    int gid = get_group_id(0);
    int y, k;
    __local float sum[ls];
    for(y = gid; y < D; y+=ng){
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
        mem_fence(CLK_LOCAL_MEM_FENCE);
    }
}
