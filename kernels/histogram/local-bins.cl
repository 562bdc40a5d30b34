/*---
name = "Local bins: count in the work-group, then add"
family = "histogram"
kernel = "histogram_local_bins"
args = ["VALUES", "BINS", "IN", "HIST", "PARTIAL"]
global = ["VALUES"]
local = ["256"]
dtype = "int32"
[about]
source = "own, after the per-block shared-memory histogram of GPU programming guides"
bug = ""
text = """Each work-group keeps its own BINS counters in local memory (PARTIAL, passed by the
host). Its work-items first clear them together, then each counts its value there with a
local atomic_inc, which is far cheaper than a global one and contends only with the
group's own work-items; after a barrier the group adds each counter that is not zero to
HIST with one global atomic_add. A bin gets at most one global atomic per work-group
instead of one per value, and bins the group never saw get none. With few bins (or a
skewed input such as IOU, where nearly every value falls in two bins) that is a handful
of global atomics per group of 256 values; with as many bins as the group has work-items
it saves little, since each group still adds up to BINS counters: the next step gives
each work-group many values. Which bank of local memory a counter lies in depends on the
data, so random values make the local atomics conflict (the trace reports it) in a way no
padding removes. On a CPU (PoCL) local memory is ordinary memory and two cores seldom
contend for a counter, so there the extra work (clearing and adding BINS counters per
group, two barriers) makes this step slower than naive."""
---*/

/* IN holds VALUES integers in [0, BINS); HIST holds BINS counts, zero before the launch;
   PARTIAL is this work-group's own BINS counters. */
__kernel void histogram_local_bins(const int VALUES, const int BINS,
                                   const __global int* IN,
                                   __global int* HIST,
                                   __local int* PARTIAL)
{
    const int lid = get_local_id(0);
    const int items = get_local_size(0);
    const int i = get_global_id(0);

    /* 1. Clear the group's bins: work-item lid clears bins lid, lid + items, ... */
    for (int b = lid; b < BINS; b += items)
        PARTIAL[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 2. Count this work-item's value in local memory. */
    if (i < VALUES)
        atomic_inc(&PARTIAL[IN[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 3. Add the group's counts to the global bins: one atomic per bin it saw. */
    for (int b = lid; b < BINS; b += items) {
        const int count = PARTIAL[b];
        if (count != 0)
            atomic_add(&HIST[b], count);
    }
}
