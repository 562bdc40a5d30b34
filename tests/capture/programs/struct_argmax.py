"""The largest value and where it is, found by a ``ReductionKernel`` over a struct: value,
index and a ``spare`` field the reduction never assigns (its neutral element and its map leave
it out), so what the struct carries there is whatever the compiled code happens to copy."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
from pyopencl.reduction import ReductionKernel
from pyopencl.tools import get_or_register_dtype, match_dtype_to_c_struct

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
best = np.dtype([("value", np.float32), ("index", np.int32), ("spare", np.int32)])
best, declaration = match_dtype_to_c_struct(context.devices[0], "best_t", best)
best = get_or_register_dtype("best_t", best)
preamble = (
    declaration
    + """
best_t best_neutral(void)
{
    best_t b;
    b.value = -INFINITY;
    b.index = -1;
    return b;
}

best_t best_of(float value, int index)
{
    best_t b;
    b.value = value;
    b.index = index;
    return b;
}

best_t best_pick(best_t a, best_t b)
{
    return (b.value > a.value || (b.value == a.value && b.index < a.index)) ? b : a;
}
"""
)
argmax = ReductionKernel(
    context,
    best,
    neutral="best_neutral()",
    reduce_expr="best_pick(a, b)",
    map_expr="best_of(x[i], i)",
    arguments="__global const float *x",
    preamble=preamble,
)
values = np.random.default_rng(11).uniform(-1, 1, 30000).astype(np.float32)
found = argmax(cl_array.to_device(queue, values)).get()
assert found["index"] == np.argmax(values), found
print(f"max {found['value']:.4f} at {found['index']}")
