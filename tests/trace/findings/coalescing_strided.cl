/*---
name = "Findings corpus: strided and coalesced global reads"
family = "matvec"
kernel = "coalescing_strided"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = ""
text = """One read walks down a column of MAT (rows apart: uncoalesced), one along a row (coalesced)."""
---*/

__kernel void coalescing_strided(const __global float* MAT, const __global float* VEC, uint width,
                                 uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    float strided = MAT[y * width];
    float together = MAT[y];
    OUT[y] = strided + together;
}
