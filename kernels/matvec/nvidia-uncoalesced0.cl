/*---
name = "NVIDIA Uncoalesced0: a work-item per row"
family = "matvec"
kernel = "MatVecMulUncoalesced0"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["256"]
[counterpart]
variant = "nvidia-coalesced0"
why = "a work-group per row"
[about]
source = "seed 002 (NVIDIA OpenCL SDK oclMatVecMul)"
bug = ""
text = """One work-item per row: it walks its row of M and the whole of V straight from
global memory. Neighbouring work-items read addresses a whole row apart, so every load of
a warp touches as many memory segments as there are work-items (uncoalesced). This is
the starting point of NVIDIA's ladder; with only HEIGHT work-items it also leaves much of
a big GPU idle."""
---*/

// Matrix multiplication kernel called by MatrixMul()   //the basical kernel.
__kernel void MatVecMulUncoalesced0(const __global float* M,
                                    const __global float* V,
                                    uint width, uint height,
                                    __global float* W)
{
    // Row index
    uint y = get_global_id(0);
    if (y < height) {

        // Row pointer
        const __global float* row = M + y * width;

        // Compute dot product
        float dotProduct = 0;
        for (int x = 0; x < width; ++x)
            dotProduct += row[x] * V[x];

        // Write result to global memory
        W[y] = dotProduct;
    }
}
