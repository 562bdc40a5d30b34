"""The one place that turns (variant, sizes, defines, local size, device) into an NDRange and
a launch description, and the one validation routine that explains why a configuration is
refused."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, replace

from explorer.description.expressions import ExpressionError, evaluate, names_in
from explorer.description.launch import DescriptionError, LaunchDescription, LocalParam, Setting
from explorer.engine.launch.memory import available_host_bytes, check_memory
from explorer.engine.records import CPU_NAME, DeviceInfo, Refusal, Variant
from explorer.families.base import InputError
from explorer.frontend.line_directives import line_numbering
from explorer.paths import shown
from explorer.trace import c_expr

_LOCAL_NAMES = ("L0", "L1", "L2")


@dataclass(frozen=True)
class LaunchPlan:
    global_size: tuple[int, ...]
    local_size: tuple[int, ...]
    defines: dict[str, int]
    description: LaunchDescription
    # The kernel's own constraints this launch breaks (planned with ``anyway``), with values.
    outside: tuple[str, ...] = ()
    # The NDRange the kernel sees where it is smaller than ``global_size``: an exact range
    # (an Oclgrind .sim) the local size does not divide, launched in whole work-groups whose
    # extra work-items leave at once (engine/launch/nonuniform.py). Empty for a uniform launch.
    ndrange: tuple[int, ...] = ()

    @property
    def local_mem_bytes(self) -> int:
        """Bytes of the ``__local`` pointer arguments the launch passes."""
        return self.description.local_bytes


def resolve_defines(
    variant: Variant,
    overrides: dict[str, int] | None,
    sizes: dict[str, int] | None = None,
    device_type: str | None = None,
) -> dict[str, int]:
    """The defines a kernel is built with: the header's defaults, those its first
    ``[[by_size]]`` rule that holds for ``sizes`` (on a device of ``device_type``) gives, then
    the user's (which win)."""
    defines = variant.default_defines
    if sizes is not None:
        defines.update(size_defaults(variant, sizes, device_type))
    for key, value in (overrides or {}).items():
        defines[key] = int(value)
    return defines


def size_defaults(
    variant: Variant, sizes: dict[str, int], device_type: str | None = None
) -> dict[str, int]:
    """The defines of the first ``[[by_size]]`` rule whose condition holds for these sizes
    (with the header's defaults) on a device of ``device_type``, or none. A condition may
    name :data:`CPU_NAME` (a CPU device compiles a large kernel for seconds where a GPU's
    driver takes a fraction of one: its own, smaller blocks). A rule that names a size not
    given, or the device where none is known, does not hold."""
    sizes = {**variant.model.default_sizes, **sizes}
    device = {} if device_type is None else {CPU_NAME: int(device_type.upper() == "CPU")}
    names = {**device, **sizes, **variant.default_defines}
    for number, rule in enumerate(variant.by_size, start=1):
        if names_in(rule.when) - set(names):
            continue
        try:
            holds = evaluate(rule.when, names)
        except ExpressionError as exc:
            raise ExpressionError(
                f"[[by_size]] rule {number}: key 'when' = {shown(rule.when)!r} cannot be "
                f"evaluated: {exc}"
            ) from None
        if holds:
            return dict(rule.defines)
    return {}


def default_local(
    variant: Variant,
    defines: dict[str, int],
    sizes: dict[str, int] | None = None,
    compute_units: int = 1,
) -> tuple[int, ...]:
    """The variant's own local size; its expressions may use defines, sizes, COMPUTE_UNITS."""
    names = {**(sizes or {}), **defines, "COMPUTE_UNITS": compute_units}
    return tuple(evaluate(e, names) for e in variant.local_size)


class _Refused(Exception):
    """A step of :func:`plan` that refuses the configuration."""

    def __init__(self, reason: str, fix: str, overridable: bool = False) -> None:
        super().__init__(reason)
        self.refusal = Refusal(reason, fix, overridable)


def plan(
    variant: Variant,
    sizes: dict[str, int],
    local: tuple[int, ...] | None,
    defines: dict[str, int] | None,
    device: DeviceInfo,
    *,
    suggest: bool = True,
    anyway: bool = False,
    input: str = "random",
    text: str = "IOU",
    image_path: str | None = None,
) -> LaunchPlan | Refusal:
    """Compute the NDRange, describe the launch and check both against the variant's and the
    device's limits.

    With ``suggest=False`` a refusal by the kernel's own constraints comes without the search
    for values that satisfy them (its ``fix`` is empty): the window shows the reason at once
    and runs the search off its thread. A refusal by those constraints alone is
    ``overridable``; with ``anyway`` they are not enforced, and the plan names the ones it
    breaks (``outside``), so a seed kernel's bug can be shown at the sizes that expose it.
    Defines, the device's limits, the NDRange and the memory the buffers need are enforced
    either way. ``input``, ``text`` and ``image_path`` choose the contents described."""
    sizes = {**variant.model.default_sizes, **sizes}  # sizes not given take their defaults
    try:
        chosen = _defines(variant, defines, sizes, device.type)
        local_size = _local_size(variant, local, chosen, sizes, device)
        names = {**sizes, **chosen, "COMPUTE_UNITS": device.compute_units}
        names.update({_LOCAL_NAMES[i]: v for i, v in enumerate(local_size)})
        broken = _constraints(variant, names)
        if broken and not anyway:
            rest = plan(variant, sizes, local, defines, device, suggest=False, anyway=True,
                        input=input, text=text, image_path=image_path)  # fmt: skip
            raise _constraints_refusal(
                variant, broken, names, sizes, chosen, suggest, rest, device.max_work_group_size
            )
        _check_local_size(local_size, device)
        raw_global = _global_size(variant, names)
        setting = Setting(sizes, chosen, local_size, device.compute_units, input, text, image_path)
        description = _description(variant, setting, device)
    except _Refused as refused:
        return refused.refusal
    global_size = tuple(-(-g // lo) * lo for g, lo in zip(raw_global, local_size, strict=True))
    refusal = ndrange_refusal(global_size, local_size)
    if refusal is not None:
        return refusal
    exact = variant.exact_range and global_size != raw_global
    outside = tuple(f"{c} (false for {_describe(c, names)})" for c in broken)
    return LaunchPlan(
        global_size, local_size, chosen, description, outside, raw_global if exact else ()
    )


def _defines(
    variant: Variant, defines: dict[str, int] | None, sizes: dict[str, int], device_type: str
) -> dict[str, int]:
    try:
        chosen = resolve_defines(variant, defines, sizes, device_type)
    except ExpressionError as exc:
        raise _Refused(f"{exc}.", "Fix the rule in the kernel's header.") from None
    unknown = set(chosen) - set(variant.default_defines)
    if unknown:
        raise _Refused(
            f"{variant.qualified_id} has no define {', '.join(sorted(unknown))}.",
            f"Its defines are: {', '.join(variant.default_defines) or 'none'}.",
        )
    _check_array_defines(variant, chosen)
    for key, values in variant.allowed_values.items():
        if chosen[key] not in values:
            raise _Refused(
                f"{key}={chosen[key]} is not an allowed value for {variant.qualified_id}.",
                f"Use one of {', '.join(map(str, values))}.",
            )
    return chosen


# An array declaration: a type, a name and its bracketed sizes (``__local float tile[TILE];``).
# Each line's start is a place to begin (re.M), and a type is a few words: a match begun on
# one line does not scan the lines after it again (unbounded, a source of many lines of
# words or of blank lines took time quadratic in its lines: 8,000 lines, 5.6 s), and no run
# of spaces is split two ways (between the type and its stars).
_ARRAY_DECLARATION = re.compile(
    r"(?:^|[;{}(,])[ \t]*(?P<type>(?:[A-Za-z_]\w*\s+){1,12})(?:\*\s*)*(?P<name>[A-Za-z_]\w*)\s*"
    r"(?P<sizes>(?:\[[^\]\[;{}]*\]\s*)+)(?=[;=,)])",
    re.M,
)
# Words that start a statement, not a declaration (``return tile[PAD];``).
_STATEMENT = frozenset({"return", "else", "case", "goto", "do", "sizeof"})
_DEFINED = re.compile(r"^[ \t]*#[ \t]*(?:define|undef)[ \t]+([A-Za-z_]\w*)", re.M)


_OBJECT_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*(.*)$", re.M)


def _defines_in(expression: str, chosen: dict[str, int], bodies: dict[str, str]) -> list[str]:
    """The chosen defines an expression uses, in the order it names them, through the
    source's own macros too (``TILE * ROW`` with ``#define ROW (TILE + PAD)``)."""
    found: list[str] = []
    pending, seen = re.findall(r"[A-Za-z_]\w*", expression), set()
    while pending:
        name = pending.pop(0)
        if name in seen:
            continue
        seen.add(name)
        if name in chosen:
            found.append(name)
        elif name in bodies:
            pending[:0] = re.findall(r"[A-Za-z_]\w*", bodies[name])
    return found


def _without_comments(source: str) -> str:
    """The source with its comments (the header's among them) blanked, lines kept."""
    return re.sub(
        r"/\*.*?\*/|//[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), source, flags=re.S
    )


def _check_array_defines(variant: Variant, chosen: dict[str, int]) -> None:
    """Refuse defines that make an array of the kernel's source hold no element: the
    compiler takes a zero-sized array, and the loops stepping by it never end. Each size
    is evaluated with the defines and the source's own integer macros (``TILE + PAD`` with
    ``PAD=0`` is ``TILE``, fine); a size that cannot be evaluated is left to the compiler."""
    if not chosen or not variant.source:
        return
    text = _without_comments(variant.source)
    # A macro the source defines twice (under #if, or #undef'd) has no one value here.
    counts = Counter(_DEFINED.findall(text))
    values = {
        name: value
        for name, value in c_expr.integer_names(text, chosen, ())
        if name in chosen or counts[name] == 1
    }
    bodies = {
        m.group(1): m.group(2) for m in _OBJECT_MACRO.finditer(text) if counts[m.group(1)] == 1
    }
    for match in _ARRAY_DECLARATION.finditer(text):
        if match.group("type").split()[0] in _STATEMENT:
            continue
        for size in re.findall(r"\[([^\]]*)\]", match.group("sizes")):
            expression = " ".join(size.split())
            node = c_expr.parse(expression) if expression else None
            if node is None:
                continue
            used = _defines_in(expression, chosen, bodies)
            value = c_expr.evaluate(node, values)
            if not used or value is None or value >= 1:
                continue
            physical = text.count("\n", 0, match.start("name")) + 1
            line = line_numbering(variant.source).presumed(physical) or physical
            # The defines changed from their defaults first: the likely cause.
            changed = [n for n in used if chosen[n] != variant.default_defines.get(n)] or used
            given = ", ".join(f"{name}={chosen[name]}" for name in changed)
            others = [n for n in used if n not in changed]
            if others:
                given += " (with " + ", ".join(f"{n}={chosen[n]}" for n in others) + ")"
            if expression == used[0]:
                default = variant.default_defines.get(used[0])
                fix = f"Use {used[0]} ≥ 1" + (f" (its default is {default})." if default else ".")
            else:
                defaults = ", ".join(
                    f"{name}={variant.default_defines[name]}"
                    for name in used
                    if name in variant.default_defines
                )
                fix = f"Choose defines that make {expression} at least 1" + (
                    f" (the defaults: {defaults})." if defaults else "."
                )
            raise _Refused(
                f"{given} {'sizes' if len(changed) == 1 else 'size'} the array "
                f"{match.group('name')} "
                f"(line {line}) as {expression} = {value}; an array holds at least one element.",
                fix,
            )


def _local_size(
    variant: Variant,
    local: tuple[int, ...] | None,
    defines: dict[str, int],
    sizes: dict[str, int],
    device: DeviceInfo,
) -> tuple[int, ...]:
    try:
        local_size = (
            tuple(local) if local else default_local(variant, defines, sizes, device.compute_units)
        )
    except ExpressionError as exc:
        raise _Refused(
            f"the default local size cannot be computed: {exc}.", "Give a local size."
        ) from None
    dims = len(variant.global_size)
    if len(local_size) != dims:
        raise _Refused(
            f"{variant.qualified_id} is a {dims}-D kernel but the local size "
            f"{_fmt(local_size)} has {len(local_size)} dimensions.",
            f"Give {dims} numbers, e.g. {_fmt(_safe_default(variant, defines, sizes, device))}.",
        )
    return local_size


def _constraints(variant: Variant, names: dict[str, int]) -> list[str]:
    """The kernel's own constraints that fail here, every one of them (a person fixes them
    in one go)."""
    failing = []
    for constraint in variant.constraints:
        try:
            ok = evaluate(constraint, names)
        except ExpressionError as exc:
            raise _Refused(f"constraint {constraint!r} cannot be checked: {exc}.", "") from None
        if not ok:
            failing.append(constraint)
    return failing


def _constraints_refusal(
    variant: Variant,
    failing: list[str],
    names: dict[str, int],
    sizes: dict[str, int],
    defines: dict[str, int],
    suggest: bool,
    rest: LaunchPlan | Refusal,
    group_limit: int = 0,
) -> _Refused:
    """The refusal by the kernel's own constraints: overridable where ``rest`` (the plan
    run anyway) shows that nothing else refuses it."""
    overridable = isinstance(rest, LaunchPlan)
    described = "; ".join(f"{c} (false for {_describe(c, names)})" for c in failing)
    if not suggest:
        return _Refused(f"{variant.qualified_id} needs {described}.", "", overridable)
    fixes = [_suggest(c, names, sizes, defines, variant.constraints, group_limit) for c in failing]
    return _Refused(
        f"{variant.qualified_id} needs {described}.", " ".join(dict.fromkeys(fixes)), overridable
    )


def _check_local_size(local_size: tuple[int, ...], device: DeviceInfo) -> None:
    if any(v < 1 for v in local_size):
        raise _Refused(f"local size {_fmt(local_size)} has a zero.", "Every dimension is ≥ 1.")
    total = math.prod(local_size)
    if total > device.max_work_group_size:
        raise _Refused(
            f"local size {_fmt(local_size)} is {total} work-items; {device.name} allows at most "
            f"{device.max_work_group_size} in a work-group.",
            f"Use a smaller local size, e.g. {_fmt(_shrink(local_size, device))}.",
        )
    for i, (value, limit) in enumerate(zip(local_size, device.max_work_item_sizes, strict=False)):
        if value > limit:
            raise _Refused(
                f"local size {value} in dimension {i} exceeds {device.name}'s limit of {limit}.",
                f"Use at most {limit} in dimension {i}.",
            )


# size_t on the host and on every device the explorer drives is 64 bits; a launch whose
# NDRange or work-item count needs more wraps around in the runtime (PoCL stops with SIGFPE).
_SIZE_T_MAX = 2**63 - 1
# Work-groups per dimension: NVIDIA's grid limit, and where PoCL's group counters stay exact.
MAX_GROUPS = 2**31 - 1


def ndrange_refusal(global_size: tuple[int, ...], local_size: tuple[int, ...]) -> Refusal | None:
    """The refusal of an NDRange no runtime launches safely: a dimension or a work-item count
    beyond size_t, or more work-groups in a dimension than devices count; None otherwise."""
    total = math.prod(global_size)
    if max(global_size) > _SIZE_T_MAX or total > _SIZE_T_MAX:
        return Refusal(
            f"the NDRange {_fmt_big(global_size)} has {_big(total)} work-items; a launch "
            "holds fewer than 2^63 (the runtimes' size_t).",
            "Use smaller sizes: the NDRange must stay below 2^63 work-items.",
        )
    for i, (g, lo) in enumerate(zip(global_size, local_size, strict=True)):
        groups = g // lo
        if groups > MAX_GROUPS:
            return Refusal(
                f"the NDRange {_fmt_big(global_size)} in work-groups of {_fmt(local_size)} "
                f"makes {_big(groups)} work-groups in dimension {i}; devices count at most "
                f"{_big(MAX_GROUPS)}.",
                f"Use smaller sizes or a larger local size in dimension {i} (at most "
                f"{_big(MAX_GROUPS * lo)} work-items there with {lo} per group).",
            )
    return None


# Host bytes a trace takes per work-item and per work-group before it records anything: each
# work-item's record count (uint32), each group's total, slot and order.
_TRACE_BYTES_PER_ITEM = 4
_TRACE_BYTES_PER_GROUP = 8 + 4 + 8
_TRACE_HOST_SHARE = 0.5


def trace_memory_refusal(
    global_size: tuple[int, ...], local_size: tuple[int, ...]
) -> Refusal | None:
    """The refusal of a trace whose per-work-item counts alone would not fit in the host's
    memory (a trace counts every work-item's records before it records any); None when
    they fit."""
    items = math.prod(global_size)
    groups = items // max(1, math.prod(local_size))
    needed = items * _TRACE_BYTES_PER_ITEM + groups * _TRACE_BYTES_PER_GROUP
    available = int(available_host_bytes() * _TRACE_HOST_SHARE)
    if needed <= available:
        return None
    return Refusal(
        f"tracing the NDRange {_fmt_big(global_size)} ({_big(items)} work-items) needs "
        f"{_mib(needed)} of host memory to count their records; {_mib(available)} is free "
        "for it.",
        f"Trace smaller sizes: at most about {_big(available // _TRACE_BYTES_PER_ITEM)} "
        "work-items.",
    )


def _mib(n: int) -> str:
    return f"{n / (1 << 30):,.1f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):,.1f} MiB"


def _big(value: int) -> str:
    """A count as a message shows it: exact when short, else as a power of two."""
    if value < 10**12:
        return f"{value:,}"
    return f"about 2^{value.bit_length() - 1}"


def _fmt_big(values: tuple[int, ...]) -> str:
    return "x".join(_big(v) if v >= 10**12 else str(v) for v in values)


def _global_size(variant: Variant, names: dict[str, int]) -> tuple[int, ...]:
    try:
        raw_global = tuple(evaluate(e, names) for e in variant.global_size)
    except ExpressionError as exc:
        raise _Refused(f"the global size cannot be computed: {exc}.", "") from None
    if any(g < 1 for g in raw_global):
        raise _Refused(f"the global size {_fmt(raw_global)} is empty.", "Use larger sizes.")
    return raw_global


def _description(variant: Variant, setting: Setting, device: DeviceInfo) -> LaunchDescription:
    """The launch description, refused where it cannot be made or its buffers do not fit."""
    try:
        description = describe(variant, setting)
    except (DescriptionError, InputError) as exc:
        raise _Refused(f"{exc}.", "Fix the declaration in the kernel's header.") from None
    refusal = check_memory(
        lambda smaller: describe(variant, replace(setting, sizes=smaller)), setting.sizes, device
    )
    if refusal is not None:
        raise _Refused(refusal.reason, refusal.fix)
    return description


def describe(variant: Variant, setting: Setting) -> LaunchDescription:
    """The launch description of ``variant`` at ``setting``, whatever the kernel is."""
    return variant.model.describe(setting, variant.args, variant.layout, variant.element)


def exact_ndrange(
    variant: Variant,
    sizes: dict[str, int],
    local: tuple[int, ...] | None,
    defines: dict[str, int] | None,
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The (NDRange, local size) of a launch in non-uniform work-groups, before any device is
    asked: an exact range (``Variant.exact_range``) the local size does not divide; None
    for any other launch, and where the sizes cannot be computed (``plan`` says why)."""
    if not variant.exact_range:
        return None
    sizes = {**variant.model.default_sizes, **sizes}
    try:
        chosen = resolve_defines(variant, defines, sizes)
        local_size = tuple(local) if local else default_local(variant, chosen, sizes)
        names = {**sizes, **chosen, "COMPUTE_UNITS": 1}
        names.update({_LOCAL_NAMES[i]: v for i, v in enumerate(local_size)})
        ndrange = tuple(evaluate(e, names) for e in variant.global_size)
    except ExpressionError:
        return None
    if len(local_size) != len(ndrange) or min(local_size, default=1) < 1:
        return None
    if all(g % lo == 0 for g, lo in zip(ndrange, local_size, strict=True)):
        return None
    return ndrange, local_size


def check_kernel_limits(
    plan_: LaunchPlan, kernel_wg_limit: int, kernel_local_bytes: int, device: DeviceInfo
) -> Refusal | None:
    """Limits known only once the kernel is built: its own work-group and local memory use.

    A reported work-group limit below the device's is not trusted on its own: NVIDIA's
    driver reports 256 for any kernel with a barrier, yet runs 32×32 groups of it. Such a
    local size is launched (see :func:`reported_limit_note`); only a launch that the runtime
    rejects is refused, with :func:`kernel_limit_refusal`.
    """
    if math.prod(plan_.local_size) > max(kernel_wg_limit, device.max_work_group_size):
        return kernel_limit_refusal(plan_, kernel_wg_limit, device)
    used = kernel_local_bytes + plan_.local_mem_bytes
    if used <= device.local_mem_bytes:
        return None
    host_sized = [p for p in plan_.description.params if isinstance(p, LocalParam) and p.nbytes]
    if plan_.local_mem_bytes > kernel_local_bytes and host_sized:
        # Most of it is __local arguments the launch sizes: say which, and from what.
        biggest = max(host_sized, key=lambda p: p.nbytes)
        return Refusal(
            f"the kernel needs {used} bytes of local memory, {biggest.nbytes} of them for its "
            f"__local argument {biggest.name}; {device.name} has {device.local_mem_bytes}.",
            f"Use sizes or a local size that make {biggest.name} smaller.",
        )
    return Refusal(
        f"the kernel needs {used} bytes of local memory; {device.name} has "
        f"{device.local_mem_bytes}.",
        "Use smaller tiles (a smaller TS or local size).",
    )


def kernel_limit_refusal(plan_: LaunchPlan, kernel_wg_limit: int, device: DeviceInfo) -> Refusal:
    """The refusal of a local size above the kernel's reported work-group limit."""
    return Refusal(
        f"this kernel, as compiled for {device.name}, runs at most {kernel_wg_limit} "
        f"work-items per group; the local size {_fmt(plan_.local_size)} has "
        f"{math.prod(plan_.local_size)}.",
        "Use a smaller local size (the kernel uses many registers or much local memory).",
    )


def reported_limit_note(plan_: LaunchPlan, kernel_wg_limit: int, device: DeviceInfo) -> str | None:
    """What a result says when it ran above the kernel's reported limit (None when it did not)."""
    total = math.prod(plan_.local_size)
    if total <= kernel_wg_limit:
        return None
    return (
        f"{device.name}'s driver reports that this kernel runs at most {kernel_wg_limit} "
        f"work-items per group (CL_KERNEL_WORK_GROUP_SIZE); the local size "
        f"{_fmt(plan_.local_size)} has {total}, within the device's "
        f"{device.max_work_group_size}, and the driver launched it."
    )


def _fmt(values: tuple[int, ...]) -> str:
    return "x".join(str(v) for v in values)


def _describe(expression: str, names: dict[str, int]) -> str:
    used = sorted(names_in(expression) & set(names))
    return ", ".join(f"{n}={names[n]}" for n in used) or "these values"


def _suggest(
    constraint: str,
    names: dict[str, int],
    sizes: dict[str, int],
    defines: dict[str, int],
    constraints: tuple[str, ...] = (),
    group_limit: int = 0,
) -> str:
    """Nearest values of one name (a size, a define or the local size) that satisfy every
    constraint at once, in words; a local size suggested keeps within ``group_limit``
    work-items a group (the device's, where known)."""
    everything = constraints or (constraint,)
    used = names_in(constraint)
    keys = [n for n in sizes if n in used] + [n for n in _LOCAL_NAMES if n in used]
    keys += [n for n in defines if n in used]
    for key in keys:
        # The candidate must satisfy every constraint that mentions this name.
        related = [c for c in everything if key in names_in(c)]

        def fits(
            candidate_names: dict[str, int], related: list[str] = related, key: str = key
        ) -> bool:
            local = [candidate_names[n] for n in _LOCAL_NAMES if n in candidate_names]
            if key in _LOCAL_NAMES and group_limit and math.prod(local) > group_limit:
                return False
            try:
                return all(evaluate(c, candidate_names) for c in related)
            except ExpressionError:
                return False

        value = names[key]
        candidates = _candidates(value, [names[n] for n in names_in(constraint) if n in names])
        below = [c for c in candidates if c < value and fits({**names, key: c})]
        above = [c for c in candidates if c > value and fits({**names, key: c})]
        found = ([max(below)] if below else []) + ([min(above)] if above else [])
        if found:
            what = key if key not in _LOCAL_NAMES else f"the local size {key}"
            return f"Try {what} = {' or '.join(map(str, found))}."
    return "Change the sizes or the local size so that the condition holds."


_MAX_CANDIDATE = 2**31 - 1  # sizes and local sizes reach kernels as C ints


def _candidates(value: int, related: list[int]) -> list[int]:
    """A bounded set of values to try for one name: its neighbours, its nearest multiples
    of 2 to 256, powers of two and three times them, and the divisors and nearest multiples
    of the condition's other values. About a thousand, whatever ``value`` is, so the search
    takes constant time (a walk down from ``value`` took half a minute at 2 000 000)."""
    found = {value + d for d in range(-16, 17)}
    found.update(m * (value // m + d) for m in range(2, 257) for d in (0, 1))
    found.update(2**i for i in range(32))
    found.update(3 * 2**i for i in range(31))
    for other in related:
        if 0 < other <= _MAX_CANDIDATE:
            found.update(_divisors(other))
            if value > 0:
                found.update(other * (value // other + d) for d in (0, 1))
    return sorted(c for c in found if 1 <= c <= _MAX_CANDIDATE)


def _divisors(n: int) -> set[int]:
    """Divisors of ``n`` up to 2**31 by trial division up to its square root, capped: a
    number with a huge prime factor contributes only its small divisors."""
    found: set[int] = set()
    limit = min(math.isqrt(n), 4096)
    for d in range(1, limit + 1):
        if n % d == 0:
            found.update((d, n // d))
    return found


def _safe_default(
    variant: Variant, defines: dict[str, int], sizes: dict[str, int], device: DeviceInfo
) -> tuple[int, ...]:
    try:
        return default_local(variant, defines, sizes, device.compute_units)
    except ExpressionError:
        return tuple(1 for _ in variant.local_size)


def _shrink(local_size: tuple[int, ...], device: DeviceInfo) -> tuple[int, ...]:
    sizes = list(local_size)
    while math.prod(sizes) > device.max_work_group_size:
        i = max(range(len(sizes)), key=lambda j: sizes[j])
        sizes[i] = max(1, sizes[i] // 2)
    return tuple(sizes)
