/*---
name = "Doubles every element, no reference"
family = "custom"
kernel = "double_it"
global = ["N"]
local = ["32"]
[sizes]
N = 256
[args.data]
buffer = "short"
count = "N"
result = true
---*/
__kernel void double_it(__global short* data)
{
    size_t i = get_global_id(0);
    data[i] = (short)(data[i] * 2);
}
