/*---
name = "Grid-stride: many values per work-group"
family = "histogram"
kernel = "histogram_grid_stride"
args = ["VALUES", "BINS", "IN", "HIST", "PARTIAL"]
global = ["min(VALUES, GROUPS_PER_CU * COMPUTE_UNITS * L0)"]
local = ["256"]
dtype = "int32"
[defines]
GROUPS_PER_CU = 4
[allowed]
GROUPS_PER_CU = [1, 2, 4, 8, 16, 32]
[about]
source = "own, the grid-stride loop of GPU programming guides over the local-bins step"
bug = ""
text = """The local bins of the previous step, but only as many work-groups as keep the device
busy (GROUPS_PER_CU per compute unit, 4 by default): each work-item walks IN with a stride
of the whole NDRange, counting a value every stride elements into its group's local bins.
Neighbouring work-items still read neighbouring values, so the loads stay coalesced. The
cost of a work-group that does not depend on how many values it counts (clearing BINS
counters, two barriers, up to BINS global atomics) is now paid once per work-group for
thousands of values instead of once per 256, so global atomics are a small fraction of the
work even with many bins."""
---*/

#ifndef GROUPS_PER_CU
#define GROUPS_PER_CU 4   /* work-groups per compute unit (sets the global size only) */
#endif

/* IN holds VALUES integers in [0, BINS); HIST holds BINS counts, zero before the launch;
   PARTIAL is this work-group's own BINS counters. */
__kernel void histogram_grid_stride(const int VALUES, const int BINS,
                                    const __global int* IN,
                                    __global int* HIST,
                                    __local int* PARTIAL)
{
    const int lid = get_local_id(0);
    const int items = get_local_size(0);
    const int stride = get_global_size(0);

    /* 1. Clear the group's bins. */
    for (int b = lid; b < BINS; b += items)
        PARTIAL[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 2. Count every stride-th value, starting at this work-item's global index. */
    for (int i = get_global_id(0); i < VALUES; i += stride)
        atomic_inc(&PARTIAL[IN[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 3. Add the group's counts to the global bins: one atomic per bin it saw. */
    for (int b = lid; b < BINS; b += items) {
        const int count = PARTIAL[b];
        if (count != 0)
            atomic_add(&HIST[b], count);
    }
}
