/*---
name = "unprefixed qualifiers, attributes, program-scope constants, a constant argument"
family = "custom"
kernel = "k"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.coeff]
buffer = "float"
count = "3"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
---*/
constant float WEIGHTS[3] = {0.25f, 0.5f, 0.25f};
constant int OFFSETS[] = {-1, 0, 1};

kernel __attribute__((reqd_work_group_size(16, 1, 1))) __attribute__((vec_type_hint(float)))
void k(global const float * restrict src, constant float * restrict coeff, global float * restrict out)
{
    local float t[18];
    const int l = get_local_id(0), i = get_global_id(0), n = get_global_size(0);
    t[l + 1] = src[i];
    if (l == 0) t[0] = src[max(i - 1, 0)];
    if (l == 15) t[17] = src[min(i + 1, n - 1)];
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (int j = 0; j < 3; j++) s += WEIGHTS[j] * coeff[j] * t[l + 1 + OFFSETS[j]];
    out[i] = s;
}
