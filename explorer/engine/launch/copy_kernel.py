"""The float4 copy kernel, the memory-bandwidth baseline: measured alone by the benchmarks
(measure/baselines.py) and launched right after each timed launch of a row when a request asks
for a paired copy (launch/run.py), so it lives with the launch code both of them use.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from explorer.engine.launch.runtime import OpenCLRuntime

# One work-item copies one float4; the tail (bytes not a multiple of 16) is not copied.
COPY_SOURCE = """
__kernel void copy_float4(const __global float4* restrict src,
                          __global float4* restrict dst, const int n4)
{
    const int i = get_global_id(0);
    if (i < n4)
        dst[i] = src[i];
}
"""


def copied_float4s(bytes_moved: float) -> int:
    """The float4s the copy of a problem that moves ``bytes_moved`` copies: half of them (the
    other half is written), rounded down to whole float4s, at least one."""
    return max(1, int(bytes_moved // 2) // 16)


def copy_bytes(n4: int) -> float:
    """The bytes a copy of ``n4`` float4s moves: each read once and written once."""
    return 2.0 * n4 * 16


def baseline_kernel(s: OpenCLRuntime, context: Any, device: Any, source: str, name: str) -> Any:
    """``name`` of ``source``, built once per device through the runtime's build cache."""
    return s.cache.kernel(s.cl, context, device.key, source, (), name, name + ".cl")


def group_size(device: Any, want: int = 256) -> int:
    """``want`` work-items a group, or the device's largest group if that is smaller."""
    return max(1, min(want, device.max_work_group_size))


class CopyKernel:
    """The float4 copy of ``bytes_moved`` (half read, half written), ready to launch.

    ``bench --baseline copy`` launches it right after each timed launch of a row
    (``RunRequest.pair_copy``), so that both are timed under the same conditions: on a shared
    or virtual machine memory bandwidth drifts by a factor of two over seconds, and a copy
    measured before or after a whole row can land in another state than the row did."""

    def __init__(
        self, s: OpenCLRuntime, context: Any, queue: Any, device: Any, bytes_moved: float
    ) -> None:
        cl = s.cl
        self.cl, self.queue, self.device = cl, queue, device
        self.n4 = copied_float4s(bytes_moved)
        self.kernel = baseline_kernel(s, context, device, COPY_SOURCE, "copy_float4")
        self.src = cl.Buffer(context, cl.mem_flags.READ_ONLY, self.n4 * 16)
        self.dst = cl.Buffer(context, cl.mem_flags.WRITE_ONLY, self.n4 * 16)
        self.host = np.arange(self.n4 * 4, dtype=np.float32)
        cl.enqueue_copy(queue, self.src, self.host).wait()
        self.lsize = group_size(device)
        self.gsize = -(-self.n4 // self.lsize) * self.lsize
        self.time_ms()  # warm-up: first touch of the destination

    @property
    def bytes_moved(self) -> float:
        return copy_bytes(self.n4)

    def time_ms(self) -> float:
        self.kernel.set_args(self.src, self.dst, np.int32(self.n4))
        event = self.cl.enqueue_nd_range_kernel(
            self.queue, self.kernel, (self.gsize,), (self.lsize,)
        )
        event.wait()
        return (event.profile.end - event.profile.start) * 1e-6

    def check(self) -> None:
        copied = np.empty_like(self.host)
        self.cl.enqueue_copy(self.queue, copied, self.dst).wait()
        if not np.array_equal(copied, self.host):
            raise RuntimeError(f"the copy kernel gave a wrong copy on {self.device.name}")

    def release(self) -> None:
        self.src.release()
        self.dst.release()
