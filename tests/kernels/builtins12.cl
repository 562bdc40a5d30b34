/*---
name = "Every family of OpenCL C 1.2 built-in functions"
family = "custom"
kernel = "builtins"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.x]
buffer = "float4"
count = "N"
access = "read"
[args.k]
buffer = "int4"
count = "N"
access = "read"
[args.y]
buffer = "float4"
count = "N"
contents = "zeros"
access = "write"
[args.counter]
buffer = "int"
count = "4"
contents = "zeros"
[args.scratch]
local = "float4"
count = "L0"
---*/
#line 1
/* Work-item functions, math, integer, common, geometric, relational, conversions and
   reinterpretations, vector loads and stores, atomics, async copies and synchronisation:
   each family of OpenCL C 1.2's built-ins at least once (section 6.12). */
__kernel void builtins(__global const float4* x, __global const int4* k, __global float4* y,
                       __global int* counter, __local float4* scratch)
{
    size_t i = get_global_id(0);
    size_t l = get_local_id(0) + get_group_id(0) * 0 + get_num_groups(0) * 0;
    uint dims = get_work_dim() + (uint)get_global_size(0) * 0 + (uint)get_local_size(0) * 0
              + (uint)get_global_offset(0);
    float4 v = x[i];
    int4 n = k[i];
    /* math */
    float4 m = sin(v) + cos(v) + tan(v) * 0.0f + exp(v * 0.0f) + log(fabs(v) + 1.0f)
             + sqrt(fabs(v)) + rsqrt(fabs(v) + 1.0f) + pow(fabs(v), 2.0f) + pown(v, 2)
             + fma(v, v, v) + mad(v, v, v) + fmax(v, 0.0f) + fmin(v, 1.0f) + floor(v) + ceil(v)
             + round(v) + trunc(v) + native_sin(v) + half_cos(v) + atan2(v, v + 2.0f)
             + hypot(v, v) + copysign(v, v) + fmod(v, 3.0f) + cbrt(v) + expm1(v * 0.0f)
             + log1p(fabs(v)) + exp2(v * 0.0f) + log2(fabs(v) + 1.0f) + ldexp(v, n * 0)
             + step(0.5f, v) + smoothstep(0.0f, 1.0f, v) + sign(v) + degrees(v) + radians(v)
             + clamp(v, -1.0f, 1.0f) + mix(v, v, 0.5f) + max(v, v) + min(v, v);
    /* integer */
    int4 q = as_int4(abs_diff(n, n)) + add_sat(n, n) + hadd(n, n) + rhadd(n, n) + clz(n) + popcount(n)
           + mad_hi(n, n, n) + mad_sat(n, n, n) + mul_hi(n, n) + rotate(n, n) + sub_sat(n, n)
           + upsample((short4)(1), (ushort4)(2)) + mad24(n, n, n) + mul24(n, n)
           + clamp(n, 0, 9) + max(n, 3) + min(n, 7) + convert_int4(abs(n));
    /* geometric and relational */
    float g = dot(v, v) + length(v) + distance(v, v) + fast_length(v) + normalize(v).x
            + cross(v, v).y + fast_normalize(v).z;
    int4 r = isequal(v, v) + isgreater(v, v) + isless(v, v) + isnan(v) + isinf(v) + signbit(v)
           + isfinite(v) + isnormal(v) + isordered(v, v) + isunordered(v, v);
    int anything = any(r) + all(r) + select(1, 2, (int)i > 3);
    float4 chosen = select(v, m, r) + bitselect(v, m, v);
    /* conversions and reinterpretations */
    uint4 bits = as_uint4(v);
    int4 rounded = convert_int4_sat_rte(v) + convert_int4_rtz(v);
    float back = as_float(bits.x) + convert_float(anything) + (float)as_int(g);
    uchar4 small = convert_uchar4_sat(n) + as_uchar4(bits.y);
    /* vector data */
    float4 loaded = vload4(i, (__global const float*)x);
    float2 pair = vload2(0, (__global const float*)x);
    /* local memory, async copies, synchronisation */
    scratch[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 near = scratch[(l + 1) % get_local_size(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t copied = async_work_group_copy(scratch, x + get_group_id(0) * get_local_size(0),
                                           get_local_size(0), 0);
    wait_group_events(1, &copied);
    mem_fence(CLK_LOCAL_MEM_FENCE);
    read_mem_fence(CLK_GLOBAL_MEM_FENCE);
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
    /* atomics, 1.1 and 1.2 names */
    int before = atomic_add(&counter[0], 1) + atomic_inc(&counter[1]) + atomic_max(&counter[2], 1)
               + atomic_xchg(&counter[3], 0) * 0 + atom_add(&counter[0], 0)
               + atomic_cmpxchg(&counter[3], 0, 0);
    float4 total = m * 0.0f + chosen * 0.0f + convert_float4(q + rounded) * 0.0f
                 + (float4)(g + back + pair.x + (float)before + (float)dims) * 0.0f
                 + convert_float4(small) * 0.0f + loaded + near * 0.0f + scratch[l] * 0.0f;
    vstore4(total, i, (__global float*)y);
}
