"""Run one :class:`RunRequest` in this process: plan, build, upload, launch, time, verify.

The executor calls this in its own process; nothing here is safe against a kernel
that crashes the runtime or never returns, which is why it lives over there.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from explorer.engine.build import BuildCache, BuildError, build_options
from explorer.engine.devices import NoDeviceError, list_devices, pick_device
from explorer.engine.ndrange import LaunchPlan, check_kernel_limits, plan
from explorer.engine.records import DeviceInfo, Refusal, RunRequest, RunResult, Timing
from explorer.engine.signature import SignatureError, kernel_parameters, numpy_scalar
from explorer.engine.verify import verify
from explorer.problems import FAMILIES, InputError
from explorer.problems.images import ImageError

OUTPUT_TEXT_LIMIT = 64 * 1024


class _Session:
    """Contexts, queues and the build cache: one per process, kept between runs."""

    def __init__(self) -> None:
        import pyopencl as cl

        self.cl = cl
        self.devices: list[DeviceInfo] = list_devices()
        self.queues: dict[str, tuple[Any, Any]] = {}
        self.cache = BuildCache()

    def queue(self, device: DeviceInfo) -> tuple[Any, Any]:
        if device.key not in self.queues:
            cl = self.cl
            cl_device = cl.get_platforms()[device.platform_index].get_devices()[device.device_index]
            context = cl.Context([cl_device])
            queue = cl.CommandQueue(
                context, properties=cl.command_queue_properties.PROFILING_ENABLE
            )
            self.queues[device.key] = (context, queue)
        return self.queues[device.key]


_session: _Session | None = None


def session() -> _Session:
    global _session
    if _session is None:
        _session = _Session()
    return _session


def run_request(request: RunRequest) -> RunResult:
    """Everything that can go wrong in a well-behaved kernel becomes a field of the result."""
    variant = request.variant
    problem = FAMILIES[variant.family]
    s = session()
    try:
        device = pick_device(s.devices, request.device_key)
    except NoDeviceError as exc:
        return _failed(request, None, str(exc), "environment")
    base = dict(
        family=variant.family,
        variant=variant.id,
        device=device.name,
        platform=device.platform,
    )
    try:
        sizes = problem.check_sizes(request.sizes)
    except InputError as exc:
        return RunResult(
            **base,
            sizes=dict(request.sizes),
            global_size=None,
            local_size=None,
            defines=dict(request.defines),
            error=str(exc),
            error_kind="input",
        )
    launch = plan(variant, sizes, request.local, request.defines, device)
    if isinstance(launch, Refusal):
        return RunResult(
            **base,
            sizes=sizes,
            global_size=None,
            local_size=request.local,
            defines=dict(request.defines),
            refused=launch,
        )
    common = dict(
        base,
        sizes=sizes,
        global_size=launch.global_size,
        local_size=launch.local_size,
        defines=launch.defines,
    )
    cl = s.cl
    context, queue = s.queue(device)
    try:
        kernel = s.cache.kernel(
            cl,
            context,
            device.key,
            variant.source,
            build_options(launch.defines),
            variant.kernel,
            os.path.basename(variant.path) or variant.id,
        )
        params = kernel_parameters(variant.source, variant.kernel)
    except BuildError as exc:
        return RunResult(**common, error=str(exc), error_kind="build", build_log=exc.log)
    except SignatureError as exc:
        return RunResult(**common, error=str(exc), error_kind="build")
    if len(params) != len(variant.args):
        return RunResult(
            **common,
            error_kind="build",
            error=f"{variant.kernel} takes {len(params)} parameters but the header maps "
            f"{len(variant.args)} roles ({', '.join(variant.args)})",
        )
    cl_device = context.devices[0]
    wg_limit = kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, cl_device)
    local_bytes = kernel.get_work_group_info(cl.kernel_work_group_info.LOCAL_MEM_SIZE, cl_device)
    refusal = check_kernel_limits(launch, wg_limit, local_bytes, device)
    if refusal is not None:
        return RunResult(**common, refused=refusal)

    dtype = np.dtype(variant.dtype)
    try:
        inputs = problem.make_inputs(sizes, dtype, request.input, request.text, request.image_path)
    except (InputError, ImageError) as exc:
        return RunResult(**common, error=str(exc), error_kind="input")
    started = time.perf_counter()
    reference = problem.reference(inputs, sizes)
    reference_ms = (time.perf_counter() - started) * 1e3

    try:
        outputs, timing_parts, printed = _execute(
            cl,
            context,
            queue,
            kernel,
            params,
            variant.args,
            launch,
            problem,
            sizes,
            inputs,
            dtype,
            variant.layout,
            request,
            poison=_poisoner(s, context, queue, device, launch, local_bytes),
        )
    except cl.Error as exc:
        return RunResult(
            **common, error=f"the OpenCL runtime reported: {exc}", error_kind="runtime"
        )
    kernel_ms, upload_ms, download_ms = timing_parts
    # The verdict covers the first and the last launch; the worse of the two is shown.
    verdicts = [verify(o, reference, dtype) for o in outputs]
    worst = min(
        range(len(outputs)), key=lambda i: (verdicts[i].verified, -verdicts[i].max_abs_error)
    )
    verdict, output = verdicts[worst], outputs[worst]
    return RunResult(
        **common,
        verdict=verdict,
        timing=Timing(tuple(kernel_ms), upload_ms, download_ms, reference_ms),
        flops=problem.flops(sizes),
        bytes_moved=problem.min_bytes(sizes, dtype.itemsize),
        output_text=printed,
        output=output if request.keep_output else None,
        reference=reference.value if request.keep_output else None,
        inputs=inputs if request.keep_output else None,
    )


def _to_device_layout(
    array: np.ndarray, role: str, matrix_roles: tuple[str, ...], layout: str
) -> np.ndarray:
    if layout == "column-major" and role in matrix_roles and array.ndim == 2:
        return np.ascontiguousarray(array.T)
    return np.ascontiguousarray(array)


def _execute(
    cl,
    context,
    queue,
    kernel,
    params,
    roles,
    launch: LaunchPlan,
    problem,
    sizes,
    inputs,
    dtype,
    layout,
    request: RunRequest,
    poison=None,
):  # type: ignore[no-untyped-def]
    mf = cl.mem_flags
    out_shape = problem.output_shape(sizes)
    host_out = np.empty(out_shape if layout == "row-major" else out_shape[::-1], dtype=dtype)
    sentinel = np.nan if dtype.kind == "f" else np.iinfo(dtype).min
    buffers: list[Any] = []
    args: list[Any] = []
    upload_ms = 0.0
    for param, role in zip(params, roles, strict=True):
        if param.space == "local":
            args.append(cl.LocalMemory(max(launch.local_mem_bytes, 4)))
        elif param.space == "scalar":
            value = problem.scalar(role, sizes, inputs)
            args.append(numpy_scalar(param.scalar_type, value))
        elif role == problem.output_role:
            buf = cl.Buffer(context, mf.READ_WRITE, max(host_out.nbytes, 4))
            # Unwritten output elements show up as NaN (or INT_MIN), never as stale data.
            fill = np.full(host_out.shape, sentinel, dtype=dtype)
            cl.enqueue_copy(queue, buf, fill).wait()
            buffers.append(buf)
            args.append(buf)
        else:
            host = _to_device_layout(inputs[role], role, problem.matrix_roles, layout)
            buf = cl.Buffer(context, mf.READ_ONLY, max(host.nbytes, 4))
            event = cl.enqueue_copy(queue, buf, host)
            event.wait()
            upload_ms += _event_ms(event)
            buffers.append(buf)
            args.append(buf)
    kernel.set_args(*args)
    out_buffer = args[list(roles).index(problem.output_role)]
    samples: list[float] = []
    first_out = np.empty_like(host_out)
    if poison is not None:
        poison()
    launches = max(1, request.warmup) + request.repeat
    with _captured_stdout() as captured:
        event = cl.enqueue_nd_range_kernel(queue, kernel, launch.global_size, launch.local_size)
        event.wait()
        queue.finish()
    # The first launch is kept apart: a kernel that reads memory it never wrote can look
    # right on later launches, which find the first one's leftovers.
    cl.enqueue_copy(queue, first_out, out_buffer).wait()
    with _silenced_stdout():  # printf output of one launch is enough
        for i in range(1, launches):
            event = cl.enqueue_nd_range_kernel(queue, kernel, launch.global_size, launch.local_size)
            event.wait()
            if i >= max(1, request.warmup):
                samples.append(_event_ms(event))
        queue.finish()
    event = cl.enqueue_copy(queue, host_out, out_buffer)
    event.wait()
    download_ms = _event_ms(event)
    outputs = [first_out, host_out]
    if layout == "column-major" and host_out.ndim == 2:
        outputs = [o.T for o in outputs]
    return (
        [np.ascontiguousarray(o) for o in outputs],
        (samples, upload_ms, download_ms),
        captured.text,
    )


def _event_ms(event: Any) -> float:
    try:
        return (event.profile.end - event.profile.start) * 1e-6
    except Exception:  # Some runtimes give no profiling data for copies.
        return float("nan")


_POISON_SOURCE = """
__kernel void poison_local(__local uint* scratch, uint words)
{
    for (uint i = get_local_id(0); i < words; i += get_local_size(0))
        scratch[i] = 0x7fc00000u;  /* a float NaN */
}
"""


def _poisoner(
    s: _Session,
    context: Any,
    queue: Any,
    device: DeviceInfo,
    launch: LaunchPlan,
    kernel_local_bytes: int,
) -> Any:
    """Fill local memory with NaN before the first launch.

    Local memory keeps whatever the last kernel left there. A kernel that reads local
    memory before writing it (seed 004's ``sum[]``, a missing barrier) can then look
    right by luck; after this it reads NaN and the verdict shows it.
    """
    used = kernel_local_bytes + launch.local_mem_bytes
    if used == 0 or device.local_mem_bytes < 64:
        return None
    cl = s.cl
    words = min(used // 4 + 256, device.local_mem_bytes // 4 - 16)
    kernel = s.cache.kernel(
        cl, context, device.key, _POISON_SOURCE, (), "poison_local", "poison_local.cl"
    )
    group = max(
        1,
        min(
            math.prod(launch.local_size),
            device.max_work_group_size,
            kernel.get_work_group_info(
                cl.kernel_work_group_info.WORK_GROUP_SIZE, context.devices[0]
            ),
        ),
    )
    groups = max(1, device.compute_units) * 8

    def run() -> None:
        kernel.set_args(cl.LocalMemory(4 * words), np.uint32(words))
        cl.enqueue_nd_range_kernel(queue, kernel, (group * groups,), (group,)).wait()

    return run


@contextlib.contextmanager
def _silenced_stdout() -> Iterator[None]:
    sys.stdout.flush()
    with open(os.devnull, "wb") as sink:
        saved = os.dup(1)
        os.dup2(sink.fileno(), 1)
        try:
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


class _Capture:
    text: str | None = None


@contextlib.contextmanager
def _captured_stdout() -> Iterator[_Capture]:
    """Kernel ``printf`` writes to the process's file descriptor 1: catch it there."""
    capture = _Capture()
    sys.stdout.flush()
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(1)
        os.dup2(sink.fileno(), 1)
        try:
            yield capture
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            size = sink.tell()
            sink.seek(0)
            data = sink.read(OUTPUT_TEXT_LIMIT)
            if data:
                text = data.decode("utf-8", errors="replace")
                if size > OUTPUT_TEXT_LIMIT:
                    text += (
                        f"\n[... output truncated: {size} bytes received from the first "
                        f"launch, the first {OUTPUT_TEXT_LIMIT} shown]"
                    )
                capture.text = text


def _failed(request: RunRequest, device: DeviceInfo | None, message: str, kind: str) -> RunResult:
    variant = request.variant
    return RunResult(
        family=variant.family,
        variant=variant.id,
        device=device.name if device else "",
        platform=device.platform if device else "",
        sizes=dict(request.sizes),
        global_size=None,
        local_size=request.local,
        defines=dict(request.defines),
        error=message,
        error_kind=kind,
    )
