/*---
name = "NVIDIA Uncoalesced1: a fixed grid strides over rows"
family = "matvec"
kernel = "MatVecMulUncoalesced1"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["2 * COMPUTE_UNITS * L0"]
local = ["256"]
[counterpart]
variant = "nvidia-coalesced0"
why = "a work-group per row"
[about]
source = "seed 002 (NVIDIA OpenCL SDK oclMatVecMul)"
bug = ""
text = """The same one-row-per-work-item dot product, but launched on a fixed grid (two
work-groups per compute unit) whose work-items stride over the rows, so the launch no
longer depends on HEIGHT. The memory accesses are as uncoalesced as before, so it is
hardly faster: the shape of the launch alone fixes nothing."""
---*/

// Matrix multiplication kernel called by MatrixMul()
__kernel void MatVecMulUncoalesced1(const __global float* M,
                                    const __global float* V,
                                    uint width, uint height,
                                    __global float* W)
{
    // Each work-item handles as many matrix rows as necessary
    for (uint y = get_global_id(0);
         y < height;
         y += get_global_size(0))
    {
        // Row pointer
        const __global float* row = M + y * width;

        // Compute dot product
        float dotProduct = 0;
        for (uint x = 0; x < width; ++x)
            dotProduct += row[x] * V[x];

        // Write result to global memory
        W[y] = dotProduct;
    }
}
