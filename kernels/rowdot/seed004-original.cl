/*---
name = "Seed 004 original: a work-item per row"
family = "rowdot"
kernel = "element_mult"
args = ["RESULT", "VECTOR", "MAT1", "MAT2", "FACTOR"]
global = ["D"]
local = ["40"]
sizes = ["D == 1000", "D % L0 == 0"]
[counterpart]
variant = "group-row"
why = "a work-group per row"
[about]
source = "seed 004 (reconstructed: the post describes this kernel but does not print it)"
bug = ""
text = """Reconstructed from the post's description, which refers to "the kernel above"
without printing it: one work-item per row y sums vector[k]·matrix[y,k]·matrix2[y,k]
straight from global memory, with D fixed at 1000 by a #define. Every work-item reads
the whole vector, and neighbouring work-items read addresses a row (4000 bytes) apart, so
the kernel waits on memory: the author's profiler showed an ALU:fetch ratio of 0.08."""
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
    for(int k = 0; k < D; k++)
    {
        sum += vector[k] * matrix[(y*D) + k] * matrix2[(y*D) + k ];
    }
    result[y] = sum * factor;
}
