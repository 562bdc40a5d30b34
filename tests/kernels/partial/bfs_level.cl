/*---
name = "One level of a breadth-first search: only the next level's nodes written"
family = "custom"
kernel = "bfs_level"
global = ["NODES"]
local = ["32"]
[sizes]
NODES = 128
LEVEL = 3
[args.cost]
buffer = "int"
count = "NODES"
contents = "zeros"
[args.next]
buffer = "int"
count = "NODES"
contents = "zeros"
[args.level]
scalar = "int"
value = "LEVEL"
[args.nodes]
scalar = "int"
value = "NODES"
---*/
#line 1
/* The graph is a binary heap: node i's children are 2i + 1 and 2i + 2. The frontier is the
 * level `level`; each of its nodes gives its children the next cost and marks them for the
 * next level. Nothing else is written. */
__kernel void bfs_level(__global int* cost, __global int* next, int level, int nodes)
{
    int i = get_global_id(0);
    int first = (1 << level) - 1, last = (1 << (level + 1)) - 1;
    if (i < first || i >= last)
        return;
    for (int c = 2 * i + 1; c <= 2 * i + 2 && c < nodes; c++) {
        cost[c] = level + 1;
        next[c] = 1;
    }
}
