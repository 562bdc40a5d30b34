"""Seed 002's Coalesced3 (the catalog's kernel file, as it is) launched the way NVIDIA's
sample launches it: one work-group of 256 per row, a `__local` scratch of one float per
work-item. It relies on the 32 work-items of a warp running in lock-step."""

from pathlib import Path

import numpy as np
import pyopencl as cl

KERNEL = Path(__file__).resolve().parents[3] / "kernels" / "matvec" / "nvidia-coalesced3.cl"
width, height, group = 1100, 8, 256

rng = np.random.default_rng(2)
matrix = rng.integers(-8, 9, (height, width)).astype(np.float32)
vector = rng.integers(-8, 9, width).astype(np.float32)


def gpu_context() -> cl.Context:
    """A GPU where there is one (the capture is meant to come from one), else the default."""
    for platform in cl.get_platforms():
        gpus = platform.get_devices(device_type=cl.device_type.GPU)
        if gpus:
            return cl.Context(gpus[:1])
    return cl.create_some_context(interactive=False)


context = gpu_context()
queue = cl.CommandQueue(context)
program = cl.Program(context, KERNEL.read_text()).build()
kernel = cl.Kernel(program, "MatVecMulCoalesced3")
mf = cl.mem_flags
b_matrix = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=matrix)
b_vector = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=vector)
b_out = cl.Buffer(context, mf.WRITE_ONLY, size=4 * height)
kernel(
    queue,
    (height * group,),
    (group,),
    b_matrix,
    b_vector,
    np.uint32(width),
    np.uint32(height),
    b_out,
    cl.LocalMemory(4 * group),
)
out = np.empty(height, np.float32)
cl.enqueue_copy(queue, out, b_out)
expected = matrix.astype(np.float64) @ vector
device = context.devices[0].name
print(f"{device}: {'right' if np.array_equal(out, expected) else 'wrong'} {out.tolist()}")
