/*---
name = "Each group's first work-item publishes its offset in one slot, read at once"
family = "custom"
kernel = "publish_offset"
global = ["64"]
local = ["32"]
[args.sizes]
buffer = "int"
count = "2"
contents = "iota"
access = "read"
[args.slot]
buffer = "int"
count = "1"
contents = "zeros"
access = "readwrite"
[args.out]
buffer = "int"
count = "64"
contents = "zeros"
writes = "all"
---*/
#line 1
/* The first work-item of each group publishes the group's offset; the others read it at
   once, with no barrier, and every group publishes into the same slot. */
__kernel void publish_offset(__global const int *sizes, __global int *slot, __global int *out)
{
    const int l = get_local_id(0);
    if (l == 0)
        slot[0] = sizes[get_group_id(0)] * 32;
    out[get_global_id(0)] = slot[0] + l;
}
