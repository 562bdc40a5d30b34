"""The device side of tracing: the OpenCL C runtime (``runtime.cl``, shipped as package data),
the prelude that puts it in front of an instrumented kernel, the parameters the kernel gains
and the statements it starts with.

The record word's layout has one source, ``explorer.trace.recorded``: the prelude defines it
for the runtime as ``#define`` lines generated from those constants. The prelude ends with
``#line 1``, so compiler messages and recorded lines are the user's own line numbers.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from explorer.trace.instrument.model import BufferDecl
from explorer.trace.recorded import (
    BUFFER_SHIFT,
    GLOBAL,
    LOCAL,
    MAX_PHASE,
    META_WORDS,
    NO_BUFFER,
    OOB_BIT,
    PHASE_SHIFT,
    SITE_MASK,
    SIZE_SHIFT,
)

# The option of the build that counts: barriers recorded, not executed (runtime.cl says why).
NO_BARRIERS_OPTION = "-D__TR_NO_BARRIERS=1"
# The option of one build that does both, as each launch says (SKIP_BARRIERS): a GPU's.
SWITCH_BARRIERS_OPTION = "-D__TR_SWITCH_BARRIERS=1"

# What a launch does, passed as `__tr_count_only`: bit 0 counts records instead of writing them;
# in either launch, bit 0 or 1 set makes a work-group outside the traced window leave at entry.
RECORD_EVERY_GROUP = 0  # every group runs the kernel; the window's groups record
COUNT = 1  # the window's groups count their records; the others leave at once
RECORD_WINDOW = 2  # the window's groups record; the others leave at once
# Added to either: a build with SWITCH_BARRIERS_OPTION runs none of its barriers.
SKIP_BARRIERS = 4

# Where every exit of the traced kernel goes: its one end (runtime.cl's __tr_end says why).
EXIT_LABEL = "__tr_exit"
RETURN_LABEL = "__tr_return"

EXTRA_PARAMS = (
    "__global uint* __tr_roff",
    "__global uint* __tr_rword",
    "__global const ulong* __tr_off",
    "__global uint* __tr_cnt",
    "volatile __global uint* __tr_disp",
    "__global const int* __tr_slot",
    "__global const ulong* __tr_len",
    "__global ulong* __tr_meta",
    "__global uchar* __tr_gdummy",
    "uint __tr_count_only",
    "__global uint* __tr_bar",
    "uint __tr_zero",
    "__global uint* __tr_rval",
)


@cache
def runtime_source() -> str:
    """The text of ``runtime.cl`` (from the source tree, an editable install or a wheel)."""
    return resources.files(__package__).joinpath("runtime.cl").read_text(encoding="utf-8")


def prelude(buffers: int, barriers: int = 0, value_bytes: int = 0, value_code: str = "") -> str:
    """What goes before the instrumented source: the record layout as ``#define`` lines, the
    runtime for ``buffers`` traced buffers, then ``#line 1``. With ``value_bytes`` (4 or 8)
    the build records values in a plane of that width, through the typed functions of
    ``value_code``."""
    defines = {
        "EXPLORER_TRACE": "1",
        "__TR_NB": str(max(1, buffers)),
        "__TR_META": str(META_WORDS),
        "__TR_NBAR": str(max(1, barriers)),
        "__TR_NO_BUFFER": f"{NO_BUFFER}u",
        "__TR_MAX_PHASE": f"{MAX_PHASE}u",
        "__TR_PHASE_SHIFT": str(PHASE_SHIFT),
        "__TR_BUFFER_SHIFT": str(BUFFER_SHIFT),
        "__TR_OOB_SHIFT": str(OOB_BIT.bit_length() - 1),
        "__TR_SIZE_SHIFT": str(SIZE_SHIFT),
    }
    if value_bytes:
        defines["__TR_VALUES"] = "1"
        defines["__TR_VALUE_T"] = "ulong" if value_bytes == 8 else "uint"
        defines["__TR_SITE_MASK"] = f"{SITE_MASK}u"
    head = "".join(f"#define {name} {value}\n" for name, value in defines.items())
    return (
        "/* ---- trace instrumentation (added by OpenCL Kernel Explorer) ---- */\n"
        + head
        + runtime_source()
        + value_code
        + "/* ---- end of trace instrumentation ---- */\n#line 1\n"
    )


def begin_code(buffers: list[BufferDecl], uses_local: bool, uses_private: bool = False) -> str:
    """The statements an instrumented kernel starts with: set up the trace state, leave at
    once in a counting launch for groups not traced, register the buffer parameters.
    Scratch slots for skipped accesses exist only where there is an array of that space."""
    # Where an out-of-bounds local access goes instead. Aligned for any vector: a GPU faults
    # on a misaligned local access (NVIDIA reports -9999) where a CPU does not.
    dummy = " __local uchar __tr_ldummy[256] __attribute__((aligned(128)));" if uses_local else ""
    ldummy = "__tr_ldummy" if uses_local else "0"
    # 256 bytes, aligned for any vector: where an out-of-bounds private access goes instead.
    dummy += " ulong16 __tr_pdummy[2];" if uses_private else ""
    pdummy = "(__private uchar*)__tr_pdummy" if uses_private else "0"
    code = [
        f"{dummy} __tr_state __tr; __tr_state* __tr_ptr = &__tr;"
        f" __tr_begin(__tr_ptr, __tr_roff, __tr_rword, __tr_off, __tr_cnt, __tr_disp,"
        f" __tr_slot, __tr_meta, __tr_gdummy, {ldummy}, {pdummy},"
        f" __tr_count_only, __tr_bar,"
        f" __tr_zero, __tr_rval);"
        # Groups outside the window leave at once unless the launch runs every group (the
        # whole group leaves: the slot is the group's, so no barrier is left waiting), through
        # the kernel's one end, as its returns do (runtime.cl's __tr_end says why).
        f" if ((__tr_count_only & {COUNT | RECORD_WINDOW}u) != {RECORD_EVERY_GROUP}u"
        f" && !__tr.on) goto {EXIT_LABEL};"
    ]
    # The host passes the samplers' modes after the buffers' lengths (runtime.cl, Images).
    code.append(f" __tr.modes = __tr_len + {len(buffers)};")
    for b in buffers:
        if b.param_index is None:
            if b.space in (GLOBAL, "constant"):
                code.append(_program_scope(b))
            continue
        if b.image:
            code.append(_image(b))
            continue
        prefix, cast = _STATE_FIELD[b.space]
        code.append(
            f" __tr.{prefix}b[{b.id}] = ({cast} uchar*){b.name};"
            f" __tr.{prefix}l[{b.id}] = __tr_len[{b.id}];"
            f" __tr_describe(__tr_ptr, {b.id}u, sizeof(*{b.name}), __tr_len[{b.id}], "
            f"__tr_len[{b.id}] / sizeof(*{b.name}), 1, 1, 1);"
        )
    return "".join(code)


# Per address space: the prefix of the state's base and length fields, and the pointer cast.
_STATE_FIELD = {GLOBAL: ("g", "__global"), LOCAL: ("l", "__local"), "constant": ("c", "__constant")}


def _image(b: BufferDecl) -> str:
    """Registers an image parameter: its pixel's bytes (passed as its length) and its
    shape in pixels, rows first ((height, width) or (depth, height, width))."""
    sides = [f"get_image_height({b.name})", f"get_image_width({b.name})"]
    if b.image == 3:
        sides.insert(0, f"get_image_depth({b.name})")
    pixels = " * ".join(f"(ulong){side}" for side in sides)
    dims = ", ".join([f"(ulong){side}" for side in sides] + ["1"] * (4 - len(sides)))
    return (
        f" __tr.gl[{b.id}] = __tr_len[{b.id}];"
        f" __tr_describe(__tr_ptr, {b.id}u, __tr_len[{b.id}], {pixels} * __tr_len[{b.id}], "
        f"{dims});"
    )


def _program_scope(b: BufferDecl) -> str:
    """Registers a program-scope variable (OpenCL C 2.0) as the buffer it is: its own bytes."""
    prefix, cast = _STATE_FIELD[b.space]
    address = b.name if b.shape else f"&{b.name}"
    dims = [f"(ulong){d}" for d in b.shape[:4]] + ["1"] * (4 - min(len(b.shape), 4))
    return (
        f" __tr.{prefix}b[{b.id}] = ({cast} uchar*){address};"
        f" __tr.{prefix}l[{b.id}] = sizeof({b.name});"
        f" __tr_describe(__tr_ptr, {b.id}u, {max(1, b.elem_size)}, sizeof({b.name}), "
        f"{', '.join(dims)});"
    )
