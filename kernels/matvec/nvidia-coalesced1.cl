/*---
name = "NVIDIA Coalesced1: interleaved tree reduction"
family = "matvec"
kernel = "MatVecMulCoalesced1"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT", "SCRATCH"]
global = ["2 * COMPUTE_UNITS * L0"]
local = ["256"]
sizes = ["is_pow2(L0)"]
[counterpart]
variant = "nvidia-coalesced2"
why = "sequential addressing"
[about]
source = "seed 002 (NVIDIA OpenCL SDK oclMatVecMul)"
bug = ""
text = """The same coalesced reads, but the partial sums are added by a parallel tree:
in each of log2(256) = 8 steps many work-items add pairs at once, with a barrier between
steps, instead of work-item 0 adding 256 numbers alone. The working work-items are spread
out (index = 2·stride·id), so warps stay half idle and local memory sees bank conflicts.
The tree only pairs everything up when the local size is a power of two."""
---*/

// Matrix multiplication kernel called by MatrixMul()
__kernel void MatVecMulCoalesced1(const __global float* M,
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

        // Perform parallel reduction to add each work-item's
        // partial dot product together
        for (uint stride = 1; stride < get_local_size(0); stride *= 2) {

            // Synchronize to make sure each work-item is done updating
            // shared memory; this is necessary because work-items read
            // results that have been written by other work-items
            barrier(CLK_LOCAL_MEM_FENCE);

            // Index into the "partialDotProduct" array where
            // the work-item will write during this step
            uint index = 2 * stride * get_local_id(0);

            // Check for valid indices
            if (index < get_local_size(0)) {

                // Add two elements from the "partialDotProduct" array
                // and store the result in partialDotProduct[index]
                partialDotProduct[index] += partialDotProduct[index + stride];
            }
        }

        // Write the result of the reduction to global memory
        if (get_local_id(0) == 0)
            W[y] = partialDotProduct[0];

        // Synchronize to make sure the first work-item is done with
        // reading partialDotProduct
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
