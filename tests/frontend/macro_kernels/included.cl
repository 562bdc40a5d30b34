/*---
name = "kernels stamped out by a macro of an included header"
family = "custom"
kernel = "shift_add"
global = ["64"]
local = ["16"]
[args.x]
buffer = "float"
count = "64"
access = "read"
[args.y]
buffer = "float"
count = "64"
contents = "zeros"
access = "write"
writes = "all"
[args.s]
scalar = "float"
value = "2"
---*/
#line 1
#include "stamps.h"

SHIFT_KERNEL(mul, *)
SHIFT_KERNEL(add, +)
