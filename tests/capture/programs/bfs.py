"""Breadth-first search, one level per pair of launches: visit the frontier's neighbours,
then make the nodes reached the next frontier; the host loops until a level reaches none."""

import numpy as np
import pyopencl as cl

source = """
__kernel void visit(__global const int *offsets, __global const int *edges,
                    __global const int *frontier, __global int *reached,
                    __global const int *visited, __global int *cost, const int n)
{
    int node = get_global_id(0);
    if (node >= n || !frontier[node])
        return;
    for (int e = offsets[node]; e < offsets[node + 1]; e++) {
        int next = edges[e];
        if (!visited[next]) {
            cost[next] = cost[node] + 1;
            reached[next] = 1;
        }
    }
}

__kernel void advance(__global int *frontier, __global int *reached, __global int *visited,
                      __global int *more, const int n)
{
    int node = get_global_id(0);
    if (node >= n)
        return;
    frontier[node] = 0;
    if (reached[node]) {
        frontier[node] = 1;
        visited[node] = 1;
        reached[node] = 0;
        *more = 1;
    }
}
"""

n, degree = 48, 2
rng = np.random.default_rng(3)
targets = [rng.choice(n, size=degree, replace=False) for _ in range(n)]
targets[0] = np.array([1, 2])
offsets = np.arange(0, n * degree + 1, degree, dtype=np.int32)
edges = np.concatenate(targets).astype(np.int32)

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build()
visit, advance = cl.Kernel(program, "visit"), cl.Kernel(program, "advance")
mf = cl.mem_flags


def buffer(array):
    return cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=array)


start = np.zeros(n, np.int32)
start[0] = 1
cost = np.full(n, -1, np.int32)
cost[0] = 0
b_offsets, b_edges = buffer(offsets), buffer(edges)
b_frontier, b_visited, b_cost = buffer(start), buffer(start.copy()), buffer(cost)
b_reached, b_more = buffer(np.zeros(n, np.int32)), buffer(np.zeros(1, np.int32))
size = (64,)
levels = 0
for _ in range(n):
    levels += 1
    more = np.zeros(1, np.int32)
    cl.enqueue_copy(queue, b_more, more)
    visit(
        queue,
        size,
        (16,),
        b_offsets,
        b_edges,
        b_frontier,
        b_reached,
        b_visited,
        b_cost,
        np.int32(n),
    )
    advance(queue, size, (16,), b_frontier, b_reached, b_visited, b_more, np.int32(n))
    cl.enqueue_copy(queue, more, b_more)
    if not more[0]:
        break
cl.enqueue_copy(queue, cost, b_cost)

expected = np.full(n, -1)
expected[0], queue_, head = 0, [0], 0
while head < len(queue_):
    node = queue_[head]
    head += 1
    for nxt in targets[node]:
        if expected[nxt] < 0:
            expected[nxt] = expected[node] + 1
            queue_.append(nxt)
assert np.array_equal(cost, expected), (cost, expected)
print(f"levels {levels}, reached {int((cost >= 0).sum())} of {n}")
