/*---
name = "the size and field offsets of a struct, as pyopencl's match_dtype_to_c_struct asks the device"
family = "custom"
kernel = "offsets"
global = ["1"]
local = ["1"]
[args.result]
buffer = "uint"
count = "4"
contents = "zeros"
---*/
#line 1
#define OFFSET_OF(field) \
    ((uint)((__local char *)&(probe.field) - (__local char *)&probe))

typedef struct {
    int low;
    int high;
    float weight;
} span_t;

__kernel void offsets(__global uint *result)
{
    result[0] = sizeof(span_t);
    __local span_t probe;
    result[1] = OFFSET_OF(low);
    result[2] = OFFSET_OF(high);
    result[3] = OFFSET_OF(weight);
}
