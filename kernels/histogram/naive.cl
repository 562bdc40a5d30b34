/*---
name = "Naive: one global atomic per value"
family = "histogram"
kernel = "histogram_naive"
args = ["VALUES", "IN", "HIST"]
global = ["VALUES"]
local = ["256"]
dtype = "int32"
[counterpart]
variant = "local-bins"
why = "counting in local memory first"
[about]
source = "own, the textbook first histogram"
bug = ""
text = """One work-item per value: it reads IN[i] and adds one to that bin of HIST with
atomic_inc. A plain HIST[IN[i]]++ would be a race: two work-items that read the same count
at once both write count + 1, and one value is lost. The atomic makes each read-add-write
indivisible, so the count is right, but atomics on the same address are done one after the
other: when many values fall into the same bin (the IOU input puts most of them in the last
bin), the work-items queue up on that counter in global memory. Every value costs one
global atomic: the baseline of the ladder. HIST starts from zeros, so only the first launch
is judged; the timed launches keep adding to the same bins."""
---*/

/* IN holds VALUES integers in [0, BINS); HIST holds BINS counts, zero before the launch. */
__kernel void histogram_naive(const int VALUES,
                              const __global int* IN,
                              __global int* HIST)
{
    const int i = get_global_id(0);

    /* The NDRange is rounded up to whole work-groups: skip the extra work-items. */
    if (i < VALUES)
        atomic_inc(&HIST[IN[i]]);   /* one global atomic per value */
}
