/*---
name = "NVIDIA Coalesced0: a work-group per row"
family = "matvec"
kernel = "MatVecMulCoalesced0"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT", "SCRATCH"]
global = ["2 * COMPUTE_UNITS * L0"]
local = ["256"]
[about]
source = "seed 002 (NVIDIA OpenCL SDK oclMatVecMul)"
bug = ""
text = """A whole work-group per row: work-item i reads elements i, i+256, i+512, ... so
neighbouring work-items read neighbouring floats and a warp's loads merge into a few wide
memory transactions (coalesced). Each work-item leaves its partial sum in local memory,
and after a barrier work-item 0 adds them up one by one. This is the big step: the matrix
is now read at close to full memory bandwidth."""
---*/

// Matrix multiplication kernel called by MatrixMul()
__kernel void MatVecMulCoalesced0(const __global float* M,
                                  const __global float* V,
                                  uint width, uint height,
                                  __global float* W,
                                  __local float* partialDotProduct)
{
    // Each work-group handles as many matrix rows as necessary
    for (uint y = get_group_id(0); y < height; y += get_num_groups(0)) {

        // Row pointer
        const __global float* row = M + y * width;

        // Each work-item accumulates as many products as necessary
        // into local variable "sum"
        float sum = 0;
        for (uint x = get_local_id(0); x < width; x += get_local_size(0))
            sum += row[x] * V[x];

        // Each partial dot product is stored in shared memory
        partialDotProduct[get_local_id(0)] = sum;

        // Synchronize to make sure each work-item is done updating
        // shared memory; this is necessary because in the next step,
        // the first work-item needs to read from shared memory
        // the partial dot products written by the other work-items
        barrier(CLK_LOCAL_MEM_FENCE);

        // The first work-item in the work-group adds all partial
        // dot products together and writes the result to global memory
        if (get_local_id(0) == 0) {
            float dotProduct = 0;
            for (uint t = 0; t < get_local_size(0); ++t)
                dotProduct += partialDotProduct[t];
            W[y] = dotProduct;
        }

        // Synchronize to make sure the first work-item is done with
        // reading partialDotProduct
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
