/*---
name = "Findings corpus: bank conflicts of floats and float4s"
family = "matvec"
kernel = "bank_conflicts"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = ""
text = """Four local writes: floats 2 and 4 words apart (2-way and 4-way conflicts), float4s side by side (no conflict) and 4 float4s apart (4-way)."""
---*/

__kernel void bank_conflicts(const __global float* MAT, const __global float* VEC, uint width,
                             uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    __local float two[64];
    __local float four[128];
    __local float4 wide[32];
    __local float4 wide4[128];
    two[l * 2] = VEC[l];
    four[l * 4] = VEC[l];
    wide[l] = (float4)(VEC[l]);
    wide4[l * 4] = (float4)(VEC[l]);
    barrier(CLK_LOCAL_MEM_FENCE);
    OUT[y] = two[l * 2] + four[l * 4] + wide[l].x + wide4[l * 4].x;
}
