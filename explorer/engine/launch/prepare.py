"""Everything before a launch, for every kernel alike: pick the device, plan the NDRange and
describe the launch, build, match the description to the kernel's parameters, check the
kernel's own limits, make the inputs and the answers the results are judged by.

Everything that can go wrong here comes back as a :class:`RunResult`, never an exception.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections import Counter
from dataclasses import dataclass, fields, is_dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from explorer.description.contents import make_buffers
from explorer.description.images import ImageError
from explorer.description.launch import (
    BufferParam,
    DescriptionError,
    LaunchDescription,
    LocalParam,
    Made,
    NpyFile,
    NumpyExpression,
    Param,
    Picture,
    Reference,
    ReferenceKernel,
    SamplerParam,
    ScalarParam,
    Setting,
    Values,
)
from explorer.engine.build_inputs import (
    build_options,
    include_dirs,
    option_defines,
    platform_options,
)
from explorer.engine.header.signature import (
    Parameter,
    SignatureError,
    compiler_warnings,
    image_refusal,
    kernel_signature,
    passable,
)
from explorer.engine.launch import images
from explorer.engine.launch.bind import bind, read_results
from explorer.engine.launch.build import BuildError, launch_and_wait
from explorer.engine.launch.devices import NoDeviceError, pick_device
from explorer.engine.launch.judge import references
from explorer.engine.launch.nonuniform import NonUniformError, describe, emulated_source
from explorer.engine.launch.plan import LaunchPlan, check_kernel_limits, plan, reported_limit_note
from explorer.engine.launch.runtime import OpenCLRuntime, runtime
from explorer.engine.records import (
    NOT_PROBED,
    DeviceInfo,
    Refusal,
    RunHead,
    RunRequest,
    RunResult,
    Variant,
    failed_result,
)
from explorer.families.base import InputError, ProbeDescription
from explorer.frontend import language_standard
from explorer.paths import UserFileError, read_user_text

# A CPU compiler's optimiser spends seconds on a large instrumented kernel, more than a small
# launch takes to run unoptimised. PoCL, first trace: matmul/fast at 64³ 5.7 s optimised, 0.9 s
# not; tiled at 128² 2.5 s, 0.9 s (a repeat, built already: 0.06 s, 0.21 s). Past this many
# work-items the repeats lose more than the first trace gains (tiled 256²: 0.46 s, 1.27 s),
# so a larger trace, and any trace on a GPU, is optimised as a run is.
QUICK_BUILD_WORK_ITEMS = 1 << 14
# Unoptimised, every private variable of every work-item of a group stays in memory, which
# PoCL keeps on its worker thread's stack (8 MiB by default): reikna's 4,096-item reduction
# overflowed it, traced, and crashed the process; optimised it fits. Larger groups are built
# optimised.
QUICK_BUILD_GROUP_ITEMS = 1 << 10
# PoCL 3.0's optimiser (LLVM, as it makes the work-group function at the first launch) crashes
# the process on a trace build where two async copies write one local array
# (`e1 = async_work_group_copy(tile, ...); e2 = async_work_group_copy(tile, ...)`, waited for
# or not: a segmentation fault in instruction combining), or two copy one out (`std::bad_alloc`);
# one copy in and one out are built. The kernel as written builds; the trace builds unoptimised.
# The array is named past what a macro or a cast puts before it: `((tile))`, `&(tile)[8]`,
# `(__local float4 *)tile`.
_LOCAL_NAME = r"(?:\s|&|\(\s*(?:__)?local\b[^()]*\)|\()*(\w+)"
_ASYNC_LOCAL = (
    re.compile(r"__tr_async_lg\(__tr_ptr, \(__local uchar\*\)\(" + _LOCAL_NAME),
    re.compile(
        r"__tr_async_gl\(__tr_ptr, \(__global uchar\*\)\(.*?\), \(__local uchar\*\)\(" + _LOCAL_NAME
    ),
)

OUT_OF_MEMORY = Refusal(
    "the host ran out of memory for the inputs, the reference or the output.",
    "Use smaller sizes, or close other programs.",
)


@dataclass
class Prepared:
    """A configuration that passed every check: built, with its inputs and answers."""

    runtime: OpenCLRuntime
    request: RunRequest
    device: DeviceInfo
    sizes: dict[str, int]
    launch: LaunchPlan
    context: Any
    queue: Any
    kernel: Any
    params: list[Parameter]  # the kernel's parameters, in order
    arranged: tuple[Param, ...]  # the description's parameter for each of them
    inputs: dict[str, np.ndarray]  # every buffer's initial contents, by name
    references: dict[str, Reference]  # every checked result's answer, by name
    reference_ms: float
    local_bytes: int  # the kernel's own local memory, as the driver reported it
    head: RunHead
    kernel_wg_limit: int = 0  # CL_KERNEL_WORK_GROUP_SIZE as the driver reported it
    options: tuple[str, ...] = ()  # the variant's compiler options, defines first
    inputs_digest: bytes = b""  # ``content_key`` of the inputs alone
    built_with: tuple[str, ...] = ()  # what ``kernel`` was built with (``quick_build``)
    # The launch again on random contents (the random probe), or why there is none.
    probe: ProbeDescription | str = ""

    @property
    def description(self) -> LaunchDescription:
        return self.launch.description

    @property
    def variant(self) -> Variant:
        return self.request.variant

    @property
    def shown_inputs(self) -> dict[str, np.ndarray]:
        """The contents the host chose (not a sentinel, not left uninitialised), as shown."""
        return {
            b.name: self.inputs[b.name].reshape(b.shown_shape)
            for b in self.description.buffers
            if b.host_filled and b.name in self.inputs
        }


def prepare(
    request: RunRequest,
    source: str | None = None,
    display_name: str | None = None,
    time_reference: bool = True,
    quick_build: bool = False,
    extra_options: tuple[str, ...] = (),
) -> Prepared | RunResult:
    """Plan, build (``source`` replaces the variant's, e.g. an instrumented copy), make inputs.
    ``time_reference``: time the reference warm (a trace shows no timing: it skips that).
    ``quick_build``: a small launch on a CPU device is built without optimisation (a trace:
    see :data:`QUICK_BUILD_WORK_ITEMS`). ``extra_options``: added to the build's options
    (a trace build's own switches), and to ``Prepared.built_with``."""
    try:
        return _prepare(request, source, display_name, time_reference, quick_build, extra_options)
    except MemoryError:
        return failed_result(request, str(OUT_OF_MEMORY), "input")


def _prepare(
    request: RunRequest,
    source: str | None,
    display_name: str | None,
    time_reference: bool,
    quick_build: bool,
    extra_options: tuple[str, ...] = (),
) -> Prepared | RunResult:
    variant = request.variant
    rt = runtime()
    try:
        device = pick_device(rt.devices, request.device_key)
    except NoDeviceError as exc:
        return failed_result(request, str(exc), "environment")
    head = _unplanned_head(request, device)
    try:
        sizes = variant.model.check_sizes(request.sizes)
    except InputError as exc:
        return head.failed(str(exc), "input")
    launch = plan(
        variant, sizes, request.local, request.defines, device, anyway=request.anyway,
        input=request.input, text=request.text, image_path=request.image_path,
    )  # fmt: skip
    if isinstance(launch, Refusal):
        return replace(head, sizes=sizes, local_size=request.local).refused(launch)
    head = replace(
        head,
        sizes=sizes,
        global_size=launch.ndrange or launch.global_size,
        local_size=launch.local_size,
        defines=launch.defines,
        outside_constraints=launch.outside,
        shapes=launch.description.shapes,
        column_major=launch.description.column_major,
    )
    context, queue = rt.queue(device)
    own = platform_options(variant.options, device.platform)
    options = build_options(launch.defines, (*own, *variant.build_options))
    built_with = (*options, *extra_options)
    if quick_build and (
        _builds_quicker_than_it_runs(device, launch.global_size, launch.local_size)
        or _optimiser_crashes_on(device, source, launch.local_size)
    ):
        built_with = (*options, "-cl-opt-disable")
    if launch.ndrange and source is None:  # a traced source was rewritten before instrumenting
        try:
            source = nonuniform_source(variant, launch, device)
        except NonUniformError as exc:
            return head.refused(Refusal(f"{exc}.", "Use a local size that divides the NDRange."))
    try:
        kernel = rt.cache.kernel(
            rt.cl, context, device.key, source or variant.source, built_with, variant.kernel,
            display_name or variant.log_name,
        )  # fmt: skip
        params = kernel_signature(
            variant.source, variant.kernel, launch.defines, include_dirs(variant.build_options)
        )
        warned = compiler_warnings(
            variant.source,
            launch.defines,
            include_dirs(variant.build_options),
            display_name or variant.log_name,
        )
        head = replace(head, build_log=warned)
        arranged = arrange(launch.description, params, variant.kernel, variant.args)
    except BuildError as exc:
        return head.failed(str(exc), "build", build_log=exc.log)
    except SignatureError as exc:
        return head.failed(str(exc), "build")
    except DescriptionError as exc:
        return head.failed(f"{variant.path}: {exc}", "input")
    wg_limit, local_bytes = kernel_limits(rt.cl, kernel, context.devices[0])
    refusal = check_kernel_limits(launch, wg_limit, local_bytes, device)
    if refusal is None:
        refusal = images.device_refusal(rt.cl, context, launch.description, device.name)
    if refusal is not None:
        return head.refused(refusal)
    head = replace(head, note=_launch_note(launch, wg_limit, device))
    probe = _probe(request, sizes, launch, device)
    if isinstance(probe, ProbeDescription):
        head = replace(head, shown_input=probe.shown, hides=probe.hides, probe_note=NOT_PROBED)
    p = Prepared(
        rt, request, device, sizes, launch, context, queue, kernel, params, arranged,
        {}, {}, 0.0, local_bytes, head, wg_limit, options, b"", built_with, probe,
    )  # fmt: skip
    made = _make(p, time_reference)
    return made if isinstance(made, RunResult) else p


def _probe(
    request: RunRequest, sizes: dict[str, int], launch: LaunchPlan, device: DeviceInfo
) -> ProbeDescription | str:
    """The launch on random contents of the same shapes (see :meth:`KernelModel.probe`), or
    why there is none."""
    if request.probe_seed is None:
        return "no random probe was asked for"
    variant = request.variant
    setting = Setting(
        sizes, launch.defines, launch.local_size, device.compute_units,
        request.input, request.text, request.image_path,
    )  # fmt: skip
    try:
        probe = variant.model.probe(
            setting, variant.args, variant.layout, variant.element, request.probe_seed
        )
    except (DescriptionError, InputError) as exc:
        return f"the random probe cannot be described: {exc}"
    if isinstance(probe, str):
        return probe
    made = {b.name: (b.shape, b.element.base, b.null) for b in probe.description.buffers}
    if made != {b.name: (b.shape, b.element.base, b.null) for b in launch.description.buffers}:
        return "the random probe's buffers differ from the launch's"
    return probe


def _unplanned_head(request: RunRequest, device: DeviceInfo) -> RunHead:
    variant = request.variant
    return RunHead(
        family=variant.family,
        variant=variant.id,
        device=device.name,
        platform=device.platform,
        sizes=dict(request.sizes),
        global_size=None,
        local_size=None,
        defines=dict(request.defines),
    )


def _builds_quicker_than_it_runs(
    device: DeviceInfo, global_size: tuple[int, ...], local_size: tuple[int, ...] | None
) -> bool:
    group = math.prod(local_size) if local_size else 1
    return (
        device.type.upper() == "CPU"
        and math.prod(global_size) <= QUICK_BUILD_WORK_ITEMS
        and group <= QUICK_BUILD_GROUP_ITEMS
    )


def _optimiser_crashes_on(
    device: DeviceInfo, source: str | None, local_size: tuple[int, ...] | None
) -> bool:
    """Whether PoCL's optimiser would crash on this trace build (:data:`_ASYNC_LOCAL`), where
    its group is small enough to run unoptimised (:data:`QUICK_BUILD_GROUP_ITEMS`)."""
    if source is None or "Portable Computing Language" not in device.platform:
        return False
    if local_size and math.prod(local_size) > QUICK_BUILD_GROUP_ITEMS:
        return False
    return any(
        count > 1 for pattern in _ASYNC_LOCAL for count in Counter(pattern.findall(source)).values()
    )


def arrange(
    description: LaunchDescription,
    params: list[Parameter],
    kernel: str,
    roles: tuple[str, ...] = (),
) -> tuple[Param, ...]:
    """The description's parameter for each of the kernel's, in the kernel's order: matched
    by name where the description names them (a header that declares each), by position
    where it lists roles; each one what the source says it is (buffer, local, scalar), and
    none a scalar of a type the explorer cannot pass; an image declared as one of the
    kernel's image type and access, a sampler as a sampler."""
    for kernel_param in params:
        if kernel_param.space == "image" and not kernel_param.image_dims:
            raise SignatureError(image_refusal(kernel_param, kernel))
    if description.by_name:
        declared = {p.name for p in description.params}
        missing = [p.name for p in params if p.name not in declared]
        if missing:
            raise DescriptionError(
                f"{kernel} has parameters {missing} that the header does not declare "
                "(add a table [args.NAME] for each)"
            )
        extra = declared - {p.name for p in params}
        if extra:
            raise DescriptionError(
                f"the header declares {sorted(extra)}, which {kernel} has no parameter called"
            )
        arranged = tuple(description.param(p.name) for p in params)
    else:
        if len(params) != len(description.params):
            raise SignatureError(
                f"{kernel} takes {len(params)} parameters but the header maps "
                f"{len(roles)} roles ({', '.join(roles)})"
            )
        arranged = description.params
    for kernel_param, param in zip(params, arranged, strict=True):
        own_type = isinstance(param, ScalarParam) and param.type is None
        if own_type and not passable(kernel_param.scalar_type):
            raise SignatureError(
                f"parameter {kernel_param.name} of {kernel} has unsupported type "
                f"{kernel_param.scalar_type!r}"
            )
        if kernel_param.space in ("image", "sampler") or _is_image(param):
            _check_image(kernel_param, param, kernel, description.by_name)
            continue
        kinds = {"global": BufferParam, "constant": BufferParam, "local": LocalParam}
        if description.by_name and not isinstance(
            param, kinds.get(kernel_param.space, ScalarParam)
        ):
            what = {"global": "buffer", "constant": "buffer", "local": "local"}.get(
                kernel_param.space, "scalar"
            )
            raise DescriptionError(
                f"parameter {kernel_param.name!r} is a {kernel_param.space} parameter in the "
                f"source: declare it with the key {what!r}"
            )
    return arranged


def _is_image(param: Param) -> bool:
    return isinstance(param, SamplerParam) or (
        isinstance(param, BufferParam) and param.image is not None
    )


def _check_image(kernel_param: Parameter, param: Param, kernel: str, by_name: bool) -> None:
    """An image parameter declared as an image of its type and access, a sampler as a
    sampler, and neither declared for a parameter of another kind."""
    name = repr(kernel_param.name)
    if kernel_param.space == "sampler":
        if not isinstance(param, SamplerParam):
            raise DescriptionError(
                f"parameter {name} is a sampler_t in the source: declare it with the key "
                "'sampler' (its addressing mode, e.g. sampler = \"clamp_to_edge\")"
            )
        return
    if kernel_param.space != "image":
        what = "sampler" if isinstance(param, SamplerParam) else "an image"
        raise DescriptionError(
            f"parameter {name} is declared as {what}, but it is a "
            f"{kernel_param.element_type or kernel_param.space} in the source"
        )
    if not isinstance(param, BufferParam) or param.image is None:
        key = "declare it with the key 'image'" if by_name else "declare it in a custom header"
        raise DescriptionError(
            f"parameter {name} is an {kernel_param.image_type} in the source: {key} "
            '(its channel type, e.g. image = "float", channels = "RGBA", width, height'
            + (", depth)" if kernel_param.image_dims == 3 else ")")
        )
    image = param.image
    if image.dims != kernel_param.image_dims:
        given = "width, height and depth" if image.dims == 3 else "a width and a height"
        raise DescriptionError(
            f"parameter {name} is an {kernel_param.image_type} in the source, but its "
            f"declaration gives {given} (an {image.kind})"
        )
    if param.access != kernel_param.image_access:
        qualifier = {"read": "read_only", "write": "write_only", "readwrite": "read_write"}
        raise DescriptionError(
            f"parameter {name} is {qualifier[kernel_param.image_access]} in the source: "
            f"declare it with access = {kernel_param.image_access!r}"
        )


def kernel_limits(cl: Any, kernel: Any, cl_device: Any) -> tuple[int, int]:
    """The built kernel's reported work-group limit and its own local memory, in bytes.

    CL_KERNEL_LOCAL_MEM_SIZE counts the ``__local`` arguments set on the kernel object
    (clSetKernelArg), and the build cache hands every run the same object, set by the run
    before: the local memory is asked of a fresh object of the same program, whose
    arguments are unset (counted as 0), so a launch's own ``__local`` arguments, added to
    it by :func:`~explorer.engine.launch.plan.check_kernel_limits`, are counted once."""
    info = cl.kernel_work_group_info
    fresh = cl.Kernel(kernel.program, kernel.function_name)
    return (
        int(kernel.get_work_group_info(info.WORK_GROUP_SIZE, cl_device)),
        int(fresh.get_work_group_info(info.LOCAL_MEM_SIZE, cl_device)),
    )


def _launch_note(launch: LaunchPlan, wg_limit: int, device: DeviceInfo) -> str | None:
    note = reported_limit_note(launch, wg_limit, device)
    if launch.ndrange:
        partial = (
            f"non-uniform work-groups: {describe(launch.ndrange, launch.local_size)}, the last "
            f"group of a dimension smaller; launched as whole groups of "
            f"{'x'.join(map(str, launch.global_size))} work-items whose extra ones leave at once"
        )
        note = f"{note} {partial}" if note else partial
    return note


def nonuniform_source(variant: Variant, launch: LaunchPlan, device: DeviceInfo) -> str:
    """The variant's source rewritten to run its NDRange in non-uniform work-groups
    (engine/launch/nonuniform.py); raises NonUniformError where it cannot be."""
    names: dict[str, int | str] = {**option_defines(variant.build_options), **launch.defines}
    std = language_standard(variant.build_options)
    return emulated_source(
        variant.source, variant.kernel, launch.ndrange, launch.local_size, names, std, device.name
    )


# -- the inputs and the answers --------------------------------------------------------------

# The last inputs and answers made, by what they were made from: a run pressed again, a trace
# around another group, a sweep of local sizes at one size make them once.
_made: dict[bytes, tuple[dict[str, np.ndarray], dict[str, Reference], float, str]] = {}


def _make(p: Prepared, time_reference: bool) -> RunResult | None:
    """Fill ``p.inputs``, ``p.references`` and ``p.reference_ms``; a RunResult where the
    contents cannot be made. Answers that cannot be made leave the launch unchecked, with
    the reason in ``p.head.unreferenced``."""
    description = p.description
    key = made_key(p)
    if key is not None and key in _made:
        p.inputs, p.references, p.reference_ms, why = _made[key]
        if why:  # the same answers another file may declare: its own path in the reason
            _unreferenced(p, why)
        p.inputs_digest = key
        return None
    _made.clear()  # before making new ones: the last may be hundreds of MB
    try:
        p.inputs = make_buffers(description.buffers)
    except (DescriptionError, InputError, ImageError) as exc:
        return p.head.failed(f"{p.variant.path}: {exc}", "input")
    except MemoryError:
        return p.head.refused(OUT_OF_MEMORY)
    try:
        started = time.perf_counter()
        p.references = references(description, p.inputs, _names(p), _kernel_results(p))
        p.reference_ms = (time.perf_counter() - started) * 1e3
        if time_reference and p.reference_ms < 200 and p.references:
            # The first call pays for waking BLAS threads: time a warm one.
            started = time.perf_counter()
            references(description, p.inputs, _names(p), _kernel_results(p))
            p.reference_ms = (time.perf_counter() - started) * 1e3
    except MemoryError:
        return p.head.refused(OUT_OF_MEMORY)
    except BuildError as exc:
        why = f"the reference kernel did not build: {_first_error(exc)}"
    except (DescriptionError, InputError, ImageError, SignatureError) as exc:
        why = str(exc)
    except p.runtime.cl.Error as exc:
        why = f"the reference kernel: the OpenCL runtime reported: {exc}"
    else:
        why = ""
    if why:
        _unreferenced(p, why)
    p.inputs_digest = key or content_key((), p.inputs)
    if key is not None:
        _made[key] = (p.inputs, p.references, p.reference_ms, why)
    return None


def _unreferenced(p: Prepared, why: str) -> None:
    """The declared reference cannot be computed for this launch: the kernel still runs, is
    timed and traced; its verdict says "not checked" and why, naming the file."""
    p.references, p.reference_ms = {}, 0.0
    where = f"{p.variant.path}: " if p.variant.path else ""
    p.head = replace(p.head, unreferenced=f"{where}{why}")


def _first_error(exc: BuildError) -> str:
    """A build failure in one line: its message and the compiler's first error."""
    lines = [line.strip() for line in exc.log.splitlines() if "error" in line.lower()]
    return f"{exc} ({lines[0]})" if lines else str(exc)


@dataclass(frozen=True)
class ProbeInputs:
    """The random probe's contents and answers, and what they were drawn with."""

    seed: int
    inputs: dict[str, np.ndarray]
    references: dict[str, Reference]
    shown: str
    hides: str


# The last probe's contents and answers, by what they were made from (see ``_made``).
_probed: dict[bytes, tuple[dict[str, np.ndarray], dict[str, Reference]]] = {}


def make_probe(p: Prepared) -> ProbeInputs | str:
    """The random probe's contents and answers, made as the launch's own are (a numpy
    expression, a family's reference, another kernel on the same contents); why there is
    no probe otherwise. Nothing is timed and nothing is built again."""
    probe, seed = p.probe, p.request.probe_seed
    if seed is None:
        return "no random probe was asked for"
    if p.head.unreferenced:
        return "the reference cannot be computed"
    if isinstance(probe, str):
        return probe or "no random probe was asked for"
    probed = replace(p, launch=replace(p.launch, description=probe.description))
    key = made_key(probed)
    if key is not None and key in _probed:
        inputs, refs = _probed[key]
        return ProbeInputs(seed, inputs, refs, probe.shown, probe.hides)
    _probed.clear()
    try:
        probed.inputs = make_buffers(probe.description.buffers)
        refs = references(probe.description, probed.inputs, _names(p), _kernel_results(probed))
    except BuildError as exc:
        return f"the reference kernel did not build for the random probe: {exc}"
    except (DescriptionError, InputError, ImageError, SignatureError) as exc:
        return f"the random probe's contents or answers cannot be made: {exc}"
    except MemoryError:
        return "the host ran out of memory for the random probe's contents or answers"
    except p.runtime.cl.Error as exc:
        return f"the reference kernel failed on the random probe: {exc}"
    if key is not None:
        _probed[key] = (probed.inputs, refs)
    return ProbeInputs(seed, probed.inputs, refs, probe.shown, probe.hides)


def _names(p: Prepared) -> dict[str, int]:
    setting = Setting(p.sizes, p.launch.defines, p.launch.local_size, p.device.compute_units)
    return setting.names


def forget_made() -> None:
    """Drop the inputs and answers kept for the next launch (their memory)."""
    _made.clear()
    _probed.clear()


def made_key(p: Prepared) -> bytes | None:
    """What a launch's inputs and answers are made from; None where they cannot be told
    apart cheaply (an answer computed by another kernel). The sizes, defines, local size and
    scalars count only where a numpy expression may read them."""
    parts: list[object] = [p.variant.family]
    buffers = p.description.buffers
    if any(isinstance(b.check, NumpyExpression) for b in buffers):
        scalars = [
            (q.name, q.value, q.type) for q in p.description.params if isinstance(q, ScalarParam)
        ]
        parts += [sorted(_names(p).items()), scalars]
    for param in buffers:
        if isinstance(param.check, ReferenceKernel):
            return None
        contents = param.contents
        if isinstance(contents, Made):
            what: object = ("made", contents.key)
            if not contents.key:
                return None
        elif isinstance(contents, Values):
            what = ("values", _digest(np.asarray(contents.values)))
        elif isinstance(contents, (Picture, NpyFile)):
            file = contents.file
            what = (_plain(contents), _stat(file) if file else ())
        else:
            what = _plain(contents)
        check = param.check
        parts.append(
            (param.name, param.shape, param.element.name, what, param.result)
            + ((type(check).__name__, _plain(check)) if check is not None else ())
        )
    return content_key(tuple(parts), {})


def _plain(record: object) -> object:
    """A record's fields as plain values (callables by their qualified name)."""
    if not is_dataclass(record):
        return record
    out = []
    for f in fields(record):
        value = getattr(record, f.name)
        if callable(value):
            func = getattr(value, "func", value)
            value = (getattr(func, "__qualname__", repr(func)), getattr(value, "args", ()))
        elif isinstance(value, np.ndarray):
            value = _digest(value)
        out.append((f.name, value))
    return (type(record).__name__, tuple(out))


def _digest(array: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(array).data).digest()


def _stat(path: str) -> tuple[object, ...]:
    try:
        stat = Path(path).stat()
    except OSError:
        return (path,)
    return (path, stat.st_size, stat.st_mtime_ns)


def content_key(parts: tuple[Any, ...], arrays: dict[str, np.ndarray]) -> bytes:
    """A short key for what a computation depends on: ``parts`` by their repr, ``arrays`` by
    name, type, shape and contents."""
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(repr(part).encode() + b"\0")
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name} {array.dtype} {array.shape}".encode())
        digest.update(array.data)
    return digest.digest()


def _kernel_results(p: Prepared) -> Any:
    def run(check: ReferenceKernel) -> dict[str, np.ndarray]:
        return run_reference_kernel(p, check)

    return run


def run_reference_kernel(p: Prepared, check: ReferenceKernel) -> dict[str, np.ndarray]:
    """The results another kernel file (the naive version) computes from the same inputs, on
    the same NDRange."""
    path = Path(check.path)
    try:
        source = read_user_text(path, "[reference] kernel file")
    except UserFileError as exc:
        raise DescriptionError(str(exc)) from None
    name = check.kernel or p.variant.kernel
    rt = p.runtime
    kernel = rt.cache.kernel(rt.cl, p.context, p.device.key, source, p.options, name, path.name)
    params = kernel_signature(source, name, p.launch.defines)
    arranged = arrange(p.description, params, f"the reference {name}", p.variant.args)
    other = replace(p, kernel=kernel, params=params, arranged=arranged)
    bound = bind(other)
    kernel.set_args(*bound.args)
    launch_and_wait(rt.cl, p.queue, kernel, p.launch.global_size, p.launch.local_size)
    results, _ = read_results(other, bound)
    return results
