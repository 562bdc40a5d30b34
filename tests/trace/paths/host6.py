"""The kernels of program6.cl driven as a host program drives them: a picture blurred twice
along its rows (the second pass from the first's result) through a CLAMP_TO_EDGE sampler,
then thresholded; tiles copied into local memory by each of the two tile kernels; and the
values 0 to 63 counted into eight bins by each of the two histograms. Prints the bins."""

import pathlib

import numpy as np
import pyopencl as cl

source = (pathlib.Path(__file__).parent / "program6.cl").read_text()
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build()
mf = cl.mem_flags
rng = np.random.default_rng(11)
w, h = 16, 8

r_float = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
picture = rng.random((h, w), dtype=np.float32)
first = cl.create_image(context, mf.READ_WRITE | mf.COPY_HOST_PTR, r_float, (w, h), hostbuf=picture)
second = cl.create_image(context, mf.READ_WRITE, r_float, (w, h))
edge = cl.Sampler(context, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST)
blur = program.blur_rows  # one kernel, launched twice
for source_image, target_image in ((first, second), (second, first)):
    blur(queue, (w, h), (8, 4), source_image, edge, target_image)
mask = cl.Buffer(context, mf.WRITE_ONLY, w * h * 4)
program.threshold_pairs(queue, (w, h), (8, 4), first, mask, np.float32(0.5))

samples = rng.random(64, dtype=np.float32)
values = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=samples)
pairs = cl.Buffer(context, mf.WRITE_ONLY, 64 * 4)
for kernel in (program.tile_pairs, program.tile_pairs_early):
    kernel(queue, (64,), (16,), values, pairs)

counted = np.arange(64, dtype=np.int32)
numbers = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=counted)
for kernel in (program.histogram, program.histogram_racy):
    bins = np.zeros(8, np.int32)
    bins_buffer = cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=bins)
    kernel(queue, (64,), (32,), numbers, bins_buffer)
    cl.enqueue_copy(queue, bins, bins_buffer)
    print(kernel.function_name, bins)
