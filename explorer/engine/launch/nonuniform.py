"""Non-uniform work-groups (OpenCL 2.0): an NDRange the local size does not divide, whose last
work-group in a dimension is smaller. An Oclgrind ``.sim`` file may ask for one.

PoCL and most drivers report no support for them (``CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT``
is false), so the explorer launches them the same way on every device: whole work-groups over
the NDRange rounded up, the work-items past it leaving at the kernel's first statement, and the
work-item functions answering as a non-uniform launch would (``get_global_size`` the NDRange,
``get_local_size`` the last group's own size, ``get_enqueued_local_size`` the requested one,
``get_global_linear_id`` and ``get_local_linear_id`` from those). A kernel that synchronises its
work-group (a barrier, an async copy and its wait, a ``work_group_*`` collective) cannot be
launched so: the work-items that left would never arrive. It is refused, naming the device.
"""

from __future__ import annotations

import re

from explorer.frontend import ParseError, SyncKind, parse

# What each work-item function answers in the launch; after it, `#line 1` so the compiler's
# lines are the user's.
_PRELUDE = """/* ---- non-uniform work-groups (added by OpenCL Kernel Explorer) ---- */
#define __NU_PICK(d, a, b, c) ((size_t)((d) == 0u ? (a) : (d) == 1u ? (b) : (d) == 2u ? (c) : 1u))
#define get_global_size(d) __NU_PICK(d, {g0}u, {g1}u, {g2}u)
#define get_enqueued_local_size(d) __NU_PICK(d, {l0}u, {l1}u, {l2}u)
#define get_local_size(d) min(get_enqueued_local_size(d), \\
    get_global_size(d) - get_group_id(d) * get_enqueued_local_size(d))
#define get_global_linear_id() ((get_global_id(2) * get_global_size(1) + get_global_id(1)) \\
    * get_global_size(0) + get_global_id(0))
#define get_local_linear_id() ((get_local_id(2) * get_local_size(1) + get_local_id(1)) \\
    * get_local_size(0) + get_local_id(0))
#line 1
"""
_GUARD = (
    " if (get_global_id(0) >= {g0}u || get_global_id(1) >= {g1}u"
    " || get_global_id(2) >= {g2}u) return;"
)
_GROUP_SYNC = (SyncKind.BARRIER, SyncKind.WORK_GROUP_BARRIER, SyncKind.WAIT_GROUP_EVENTS)
_COLLECTIVE = re.compile(r"\b(work_group_\w+|sub_group_\w+|async_work_group_\w*copy)\s*\(")


class NonUniformError(ValueError):
    """A kernel that cannot run in non-uniform work-groups here; the message says why."""


def describe(ndrange: tuple[int, ...], local: tuple[int, ...]) -> str:
    """The launch in words, e.g. ``3x3x3 in work-groups of 2x2x2``."""
    return f"{_fmt(ndrange)} in work-groups of {_fmt(local)}"


def emulated_source(
    source: str,
    kernel: str,
    ndrange: tuple[int, ...],
    local: tuple[int, ...],
    defines: dict[str, int | str],
    cl_std: str,
    device: str,
) -> str:
    """``source`` rewritten to run ``kernel`` over ``ndrange`` in whole work-groups of ``local``
    (see the module's docstring). Lines keep their numbers; the kernel's opening line gains
    the statement that lets the extra work-items leave."""
    try:
        parsed = parse(source, defines, "kernel.cl", cl_std=cl_std)
    except ParseError as exc:
        raise NonUniformError(
            f"the kernel cannot be read to launch {_launch(ndrange, local)}: {exc}"
        ) from None
    target = next((f for f in parsed.kernels if f.name == kernel), None)
    if target is None:
        raise NonUniformError(f"no kernel {kernel} in the source")
    # Only what the launched kernel runs: the other kernels of its program, and the helpers
    # only they call, may synchronise their own launches.
    reached = parsed.reached(kernel)
    bodies = [(f.body.start, f.body.end) for f in parsed.functions if f.name in reached]
    lines = [s.line for s in parsed.syncs if s.kind in _GROUP_SYNC and s.function in reached]
    lines += [
        source.count("\n", 0, m.start()) + 1
        for m in _COLLECTIVE.finditer(source)
        if any(start <= m.start() < end for start, end in bodies)
    ]
    if lines:
        line = min(lines)
        raise NonUniformError(
            f"{device} has no non-uniform work-groups, so {_launch(ndrange, local)} runs whole "
            f"groups whose extra work-items leave at once; the work-group synchronisation at "
            f"line {line} would wait for them"
        )
    g = (list(ndrange) + [1, 1, 1])[:3]
    lo = (list(local) + [1, 1, 1])[:3]
    at = target.body.start + 1
    guard = _GUARD.format(g0=g[0], g1=g[1], g2=g[2])
    prelude = _PRELUDE.format(g0=g[0], g1=g[1], g2=g[2], l0=lo[0], l1=lo[1], l2=lo[2])
    return prelude + source[:at] + guard + source[at:]


def _launch(ndrange: tuple[int, ...], local: tuple[int, ...]) -> str:
    return f"the NDRange {describe(ndrange, local)}"


def _fmt(values: tuple[int, ...]) -> str:
    return "x".join(str(v) for v in values)
