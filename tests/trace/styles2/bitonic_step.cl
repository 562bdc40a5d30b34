/*---
name = "One bitonic sort step, the stage and pass given by the host"
family = "custom"
kernel = "bitonic_step"
global = ["N / 2"]
local = ["16"]
[sizes]
N = 64
[args.a]
buffer = "int"
count = "N"
access = "readwrite"
[args.stage]
scalar = "uint"
value = 3
[args.pass]
scalar = "uint"
value = 1
---*/
#line 1
__kernel void bitonic_step(__global int *a, const uint stage, const uint pass)
{
    uint tid = get_global_id(0);
    uint dist = 1u << (stage - pass);
    uint width = 2u * dist;
    uint left = (tid % dist) + (tid / dist) * width;
    uint right = left + dist;
    bool up = ((tid >> stage) & 1u) == 0u;
    int l = a[left];
    int r = a[right];
    bool swap = up ? (l > r) : (l < r);
    if (swap) {
        a[left] = r;
        a[right] = l;
    }
}
