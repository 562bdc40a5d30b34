"""Every built-in function and macro OpenCL C 1.2 defines (the specification's lists, 6.12
and 6.2.3-6.2.4, 6.10, not only what our kernels use) is known to the trace's front end; and
every built-in that writes through a pointer is recorded as a write, or makes the trace
incomplete with a reason."""

from __future__ import annotations

import re

import pytest

from explorer.frontend import clang_bridge
from explorer.trace.instrument import instrument
from explorer.trace.recorded import ATOMIC, RMW, WRITE

TYPES = ["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double"]
WIDTHS = ("", "2", "3", "4", "8", "16")
ROUNDING = ("", "_rte", "_rtz", "_rtp", "_rtn")
ATOMIC_OPS = ["add", "sub", "xchg", "inc", "dec", "cmpxchg", "min", "max", "and", "or", "xor"]

FUNCTIONS = {
    "work-item (6.12.1)": "get_work_dim get_global_size get_global_id get_local_size "
    "get_local_id get_num_groups get_group_id get_global_offset",
    "math (6.12.2)": "acos acosh acospi asin asinh asinpi atan atan2 atanh atanpi atan2pi cbrt "
    "ceil copysign cos cosh cospi erfc erf exp exp2 exp10 expm1 fabs fdim floor fma fmax fmin "
    "fmod fract frexp hypot ilogb ldexp lgamma lgamma_r log log2 log10 log1p logb mad maxmag "
    "minmag modf nan nextafter pow pown powr remainder remquo rint rootn round rsqrt sin sincos "
    "sinh sinpi sqrt tan tanh tanpi tgamma trunc "
    + " ".join(
        f"{p}_{f}"
        for p in ("half", "native")
        for f in [
            "cos",
            "divide",
            "exp",
            "exp2",
            "exp10",
            "log",
            "log2",
            "log10",
            "powr",
            "recip",
            "rsqrt",
            "sin",
            "sqrt",
            "tan",
        ]
    ),
    "integer (6.12.3)": "abs abs_diff add_sat hadd rhadd clamp clz mad_hi mad_sat max min "
    "mul_hi rotate sub_sat upsample popcount mad24 mul24",
    "common (6.12.4)": "clamp degrees max min mix radians step smoothstep sign",
    "geometric (6.12.5)": "cross dot distance length normalize fast_distance fast_length "
    "fast_normalize",
    "relational (6.12.6)": "isequal isnotequal isgreater isgreaterequal isless islessequal "
    "islessgreater isfinite isinf isnan isnormal isordered isunordered signbit any all "
    "bitselect select",
    "vector data load and store (6.12.7)": " ".join(
        [f"vload{n}" for n in WIDTHS[1:]]
        + [f"vstore{n}" for n in WIDTHS[1:]]
        + [f"vload_half{n}" for n in WIDTHS]
        + [f"vloada_half{n}" for n in WIDTHS[1:]]
        + [f"vstore_half{n}{r}" for n in WIDTHS for r in ROUNDING]
        + [f"vstorea_half{n}{r}" for n in WIDTHS[1:] for r in ROUNDING]
    ),
    "synchronisation and fences (6.12.8-9)": "barrier mem_fence read_mem_fence write_mem_fence",
    "async copies and prefetch (6.12.10)": "async_work_group_copy async_work_group_strided_copy "
    "wait_group_events prefetch",
    "atomics (6.12.11, and the 1.0 extensions)": " ".join(
        f"{p}_{op}" for p in ("atomic", "atom") for op in ATOMIC_OPS
    ),
    "miscellaneous vector (6.12.12)": "shuffle shuffle2",
    "printf (6.12.13)": "printf",
    "images (6.12.14)": "read_imagef read_imagei read_imageui write_imagef write_imagei "
    "write_imageui get_image_width get_image_height get_image_depth "
    "get_image_channel_data_type get_image_channel_order get_image_dim",
    "conversions (6.2.3)": " ".join(
        f"convert_{t}{n}{s}{r}"
        for t in TYPES
        for n in WIDTHS
        for s in ("", "_sat")
        for r in ROUNDING
        if not (s and t in ("float", "double"))
    ),
}

MACROS = [
    "MAXFLOAT",
    "HUGE_VALF",
    "HUGE_VAL",
    "INFINITY",
    "NAN",
    "FLT_DIG",
    "FLT_MANT_DIG",
    "FLT_MAX_10_EXP",
    "FLT_MAX_EXP",
    "FLT_MIN_10_EXP",
    "FLT_MIN_EXP",
    "FLT_RADIX",
    "FLT_MAX",
    "FLT_MIN",
    "FLT_EPSILON",
    "DBL_DIG",
    "DBL_MANT_DIG",
    "DBL_MAX_10_EXP",
    "DBL_MAX_EXP",
    "DBL_MIN_10_EXP",
    "DBL_MIN_EXP",
    "DBL_MAX",
    "DBL_MIN",
    "DBL_EPSILON",
    "FP_ILOGB0",
    "FP_ILOGBNAN",
    "CHAR_BIT",
    "CHAR_MAX",
    "CHAR_MIN",
    "INT_MAX",
    "INT_MIN",
    "LONG_MAX",
    "LONG_MIN",
    "SCHAR_MAX",
    "SCHAR_MIN",
    "SHRT_MAX",
    "SHRT_MIN",
    "UCHAR_MAX",
    "USHRT_MAX",
    "UINT_MAX",
    "ULONG_MAX",
    "M_E_F",
    "M_LOG2E_F",
    "M_LOG10E_F",
    "M_LN2_F",
    "M_LN10_F",
    "M_PI_F",
    "M_PI_2_F",
    "M_PI_4_F",
    "M_1_PI_F",
    "M_2_PI_F",
    "M_2_SQRTPI_F",
    "M_SQRT2_F",
    "M_SQRT1_2_F",
    "M_E",
    "M_LOG2E",
    "M_LOG10E",
    "M_LN2",
    "M_LN10",
    "M_PI",
    "M_PI_2",
    "M_PI_4",
    "M_1_PI",
    "M_2_PI",
    "M_2_SQRTPI",
    "M_SQRT2",
    "M_SQRT1_2",
    "NULL",
    "CLK_LOCAL_MEM_FENCE",
    "CLK_GLOBAL_MEM_FENCE",
    "CLK_IMAGE_MEM_FENCE",
    "CLK_NORMALIZED_COORDS_TRUE",
    "CLK_NORMALIZED_COORDS_FALSE",
    "CLK_ADDRESS_NONE",
    "CLK_ADDRESS_CLAMP_TO_EDGE",
    "CLK_ADDRESS_CLAMP",
    "CLK_ADDRESS_REPEAT",
    "CLK_ADDRESS_MIRRORED_REPEAT",
    "CLK_FILTER_NEAREST",
    "CLK_FILTER_LINEAR",
    "CLK_SNORM_INT8",
    "CLK_SNORM_INT16",
    "CLK_UNORM_INT8",
    "CLK_UNORM_INT16",
    "CLK_UNORM_SHORT_565",
    "CLK_UNORM_SHORT_555",
    "CLK_UNORM_INT_101010",
    "CLK_SIGNED_INT8",
    "CLK_SIGNED_INT16",
    "CLK_SIGNED_INT32",
    "CLK_UNSIGNED_INT8",
    "CLK_UNSIGNED_INT16",
    "CLK_UNSIGNED_INT32",
    "CLK_HALF_FLOAT",
    "CLK_FLOAT",
    "CLK_R",
    "CLK_A",
    "CLK_RG",
    "CLK_RA",
    "CLK_RGB",
    "CLK_RGBA",
    "CLK_BGRA",
    "CLK_ARGB",
    "CLK_INTENSITY",
    "CLK_LUMINANCE",
    "CLK_Rx",
    "CLK_RGx",
    "CLK_RGBx",
    "CL_VERSION_1_0",
    "CL_VERSION_1_1",
    "CL_VERSION_1_2",
    "__OPENCL_VERSION__",
    "__OPENCL_C_VERSION__",
    "__ENDIAN_LITTLE__",
    "__kernel_exec",
]
MACROS += [f"as_{t}{n}" for t in TYPES for n in WIDTHS]

UNKNOWN = re.compile(r"undeclared|implicit declaration|unknown type name")


def _unknown(source: str) -> set[str]:
    """The names the front end's compiler does not know in ``source``."""
    unit = clang_bridge.parse_unit(source, "names.cl", {}, "CL1.2")
    found = set()
    for d in unit.diagnostics:
        if UNKNOWN.search(d.spelling):
            found.update(re.findall(r"'(\w+)'", d.spelling))
    return found


@pytest.mark.parametrize("family", sorted(FUNCTIONS))
def test_every_builtin_function_of_opencl_c_1_2_is_known(family):
    names = sorted(set(FUNCTIONS[family].split()))
    unknown: set[str] = set()
    for at in range(0, len(names), 10):  # the compiler stops after 20 errors
        calls = "\n".join(f"    {name}();" for name in names[at : at + 10])
        unknown |= _unknown(f"__kernel void k(void)\n{{\n{calls}\n}}\n")
    assert unknown & set(names) == set()


def test_an_unknown_name_is_seen_as_one():
    assert _unknown("__kernel void k(void) { no_such_builtin(); }") == {"no_such_builtin"}


def test_every_macro_of_opencl_c_1_2_is_defined():
    missing = []
    for at in range(0, len(MACROS), 10):  # the compiler stops after 20 errors
        names = MACROS[at : at + 10]
        checks = "\n".join(f"#ifndef {name}\n#error missing {name}\n#endif" for name in names)
        unit = clang_bridge.parse_unit(checks + "\n", "macros.cl", {}, "CL1.2")
        missing += [m for d in unit.diagnostics for m in re.findall(r"missing (\w+)", d.spelling)]
    assert missing == []


# Every built-in of OpenCL C 1.2 with a pointer parameter it writes through (or reads and
# writes), called on a __global buffer: (call, the ops its site must record).
WRITES_THROUGH = {
    "sincos": ("s[i] = sincos(x[i], &p[i]);", (WRITE,)),
    "fract": ("s[i] = fract(x[i], &p[i]);", (WRITE,)),
    "modf": ("s[i] = modf(x[i], &p[i]);", (WRITE,)),
    "frexp": ("s[i] = frexp(x[i], &n[i]);", (WRITE,)),
    "remquo": ("s[i] = remquo(x[i], 2.0f, &n[i]);", (WRITE,)),
    "lgamma_r": ("s[i] = lgamma_r(x[i], &n[i]);", (WRITE,)),
    "vstore4": ("vstore4((float4)(x[i]), i, p);", (WRITE,)),
    "vstore_half": ("vstore_half(x[i], i, h);", (WRITE,)),
    "vstore_half4_rtz": ("vstore_half4_rtz((float4)(x[i]), i, h);", (WRITE,)),
    "vstorea_half2": ("vstorea_half2((float2)(x[i]), i, h);", (WRITE,)),
    "async_work_group_copy": (
        "event_t e = async_work_group_copy(t, x, 16, 0); wait_group_events(1, &e);",
        (WRITE,),
    ),
    "async_work_group_strided_copy": (
        "event_t e = async_work_group_strided_copy(t, x, 16, 2, 0); wait_group_events(1, &e);",
        (WRITE,),
    ),
    **{
        f"{p}_{op}": (
            f"{p}_{op}(&n[0], 1, 2);"
            if op == "cmpxchg"
            else f"{p}_{op}(&n[0]);"
            if op in ("inc", "dec")
            else f"{p}_{op}(&n[0], 1);",
            (ATOMIC, WRITE),
        )
        for p in ("atomic", "atom")
        for op in ATOMIC_OPS
    },
}


@pytest.mark.parametrize("name", sorted(WRITES_THROUGH))
def test_a_builtin_writing_through_a_pointer_is_recorded(name):
    call, ops = WRITES_THROUGH[name]
    source = (
        "__kernel void k(__global const float* x, __global float* s, __global float* p,\n"
        "                __global int* n, __global half* h)\n"
        "{\n"
        "    int i = get_global_id(0); __local float t[32];\n"
        f"    {call}\n"
        "}\n"
    )
    inst = instrument(source, "k", {})
    on_line = [s for s in inst.sites if s.line == 5 and s.op in (*ops, RMW)]
    assert on_line or inst.not_traced, f"{name}: neither recorded nor incomplete"
    assert inst.not_traced == (), inst.not_traced
