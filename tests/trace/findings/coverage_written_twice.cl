/*---
name = "Findings corpus: output elements written twice"
family = "matvec"
kernel = "coverage_written_twice"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "work-items 2k and 2k+1 both write OUT[2k]"
text = """The index drops its lowest bit: even elements get two writers, odd ones none."""
---*/

__kernel void coverage_written_twice(const __global float* MAT, const __global float* VEC, uint width,
                                     uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    OUT[y & ~1u] = VEC[y];
}
