"""One buffer and two queues: a kernel on the first, a write from the host on the second once
the kernel's event is done, the kernel again on the first. Prints the buffer's first values."""

import numpy as np
import pyopencl as cl

n = 1 << 17  # 512 KiB of int32
context = cl.create_some_context(interactive=False)
first, second = cl.CommandQueue(context), cl.CommandQueue(context)
source = "__kernel void add(__global int *v, int k) { v[get_global_id(0)] += k; }"
add = cl.Program(context, source).build().add
values = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                   hostbuf=np.zeros(n, np.int32))  # fmt: skip
add(first, (n,), None, values, np.int32(1)).wait()  # 1: 0 -> 1
cl.enqueue_copy(second, values, np.full(n, 100, np.int32), is_blocking=True)
add(first, (n,), None, values, np.int32(2))  # 2: 100 -> 102
result = np.empty(n, np.int32)
cl.enqueue_copy(first, result, values)
print(result[:4].tolist(), int(result.min()), int(result.max()))
