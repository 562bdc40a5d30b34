/* Names of OpenCL C 1.2 that a kernel may use and that clang's built-in function table
 * (-fdeclare-opencl-builtins) leaves to a header: integer and vector types, fence flags.
 * The explorer's own file, read by its front end; it declares names, it defines no code. */
#define __opencl_c_named_address_space_builtins 1
/* read_write images (OpenCL C 2.0): the built-in table declares their reads and writes only
 * under this feature macro, which a device compiler for 2.0 defines. */
#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ >= 200 \
    && !defined(__opencl_c_read_write_images)
#define __opencl_c_read_write_images 1
#endif
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef uint cl_mem_fence_flags;
typedef char char2 __attribute__((ext_vector_type(2)));
typedef char char3 __attribute__((ext_vector_type(3)));
typedef char char4 __attribute__((ext_vector_type(4)));
typedef char char8 __attribute__((ext_vector_type(8)));
typedef char char16 __attribute__((ext_vector_type(16)));
typedef uchar uchar2 __attribute__((ext_vector_type(2)));
typedef uchar uchar3 __attribute__((ext_vector_type(3)));
typedef uchar uchar4 __attribute__((ext_vector_type(4)));
typedef uchar uchar8 __attribute__((ext_vector_type(8)));
typedef uchar uchar16 __attribute__((ext_vector_type(16)));
typedef short short2 __attribute__((ext_vector_type(2)));
typedef short short3 __attribute__((ext_vector_type(3)));
typedef short short4 __attribute__((ext_vector_type(4)));
typedef short short8 __attribute__((ext_vector_type(8)));
typedef short short16 __attribute__((ext_vector_type(16)));
typedef ushort ushort2 __attribute__((ext_vector_type(2)));
typedef ushort ushort3 __attribute__((ext_vector_type(3)));
typedef ushort ushort4 __attribute__((ext_vector_type(4)));
typedef ushort ushort8 __attribute__((ext_vector_type(8)));
typedef ushort ushort16 __attribute__((ext_vector_type(16)));
typedef int int2 __attribute__((ext_vector_type(2)));
typedef int int3 __attribute__((ext_vector_type(3)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef int int8 __attribute__((ext_vector_type(8)));
typedef int int16 __attribute__((ext_vector_type(16)));
typedef uint uint2 __attribute__((ext_vector_type(2)));
typedef uint uint3 __attribute__((ext_vector_type(3)));
typedef uint uint4 __attribute__((ext_vector_type(4)));
typedef uint uint8 __attribute__((ext_vector_type(8)));
typedef uint uint16 __attribute__((ext_vector_type(16)));
typedef long long2 __attribute__((ext_vector_type(2)));
typedef long long3 __attribute__((ext_vector_type(3)));
typedef long long4 __attribute__((ext_vector_type(4)));
typedef long long8 __attribute__((ext_vector_type(8)));
typedef long long16 __attribute__((ext_vector_type(16)));
typedef ulong ulong2 __attribute__((ext_vector_type(2)));
typedef ulong ulong3 __attribute__((ext_vector_type(3)));
typedef ulong ulong4 __attribute__((ext_vector_type(4)));
typedef ulong ulong8 __attribute__((ext_vector_type(8)));
typedef ulong ulong16 __attribute__((ext_vector_type(16)));
typedef float float2 __attribute__((ext_vector_type(2)));
typedef float float3 __attribute__((ext_vector_type(3)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef float float8 __attribute__((ext_vector_type(8)));
typedef float float16 __attribute__((ext_vector_type(16)));
typedef double double2 __attribute__((ext_vector_type(2)));
typedef double double3 __attribute__((ext_vector_type(3)));
typedef double double4 __attribute__((ext_vector_type(4)));
typedef double double8 __attribute__((ext_vector_type(8)));
typedef double double16 __attribute__((ext_vector_type(16)));
typedef half half2 __attribute__((ext_vector_type(2)));
typedef half half3 __attribute__((ext_vector_type(3)));
typedef half half4 __attribute__((ext_vector_type(4)));
typedef half half8 __attribute__((ext_vector_type(8)));
typedef half half16 __attribute__((ext_vector_type(16)));
#define NULL ((void*)0)
#ifndef __OPENCL_VERSION__
#define __OPENCL_VERSION__ 120
#endif
#define __kernel_exec(X, typen) __kernel __attribute__((work_group_size_hint(X, 1, 1))) \
    __attribute__((vec_type_hint(typen)))
#define kernel_exec(X, typen) __kernel_exec(X, typen)
#define CLK_LOCAL_MEM_FENCE 0x01
#define CLK_GLOBAL_MEM_FENCE 0x02
#define CLK_IMAGE_MEM_FENCE 0x04
#define CLK_NORMALIZED_COORDS_FALSE 0x0
#define CLK_NORMALIZED_COORDS_TRUE 0x1
#define CLK_ADDRESS_NONE 0x0
#define CLK_ADDRESS_CLAMP_TO_EDGE 0x2
#define CLK_ADDRESS_CLAMP 0x4
#define CLK_ADDRESS_REPEAT 0x6
#define CLK_FILTER_NEAREST 0x10
#define CLK_FILTER_LINEAR 0x20
/* Image channel data types and orders (OpenCL C 1.2, 6.12.14.4), as the host's cl.h numbers them. */
#ifndef CLK_ADDRESS_MIRRORED_REPEAT
#define CLK_ADDRESS_MIRRORED_REPEAT 0x8
#endif
#ifndef CLK_SNORM_INT8
#define CLK_SNORM_INT8 0x10d0
#endif
#ifndef CLK_SNORM_INT16
#define CLK_SNORM_INT16 0x10d1
#endif
#ifndef CLK_UNORM_INT8
#define CLK_UNORM_INT8 0x10d2
#endif
#ifndef CLK_UNORM_INT16
#define CLK_UNORM_INT16 0x10d3
#endif
#ifndef CLK_UNORM_SHORT_565
#define CLK_UNORM_SHORT_565 0x10d4
#endif
#ifndef CLK_UNORM_SHORT_555
#define CLK_UNORM_SHORT_555 0x10d5
#endif
#ifndef CLK_UNORM_INT_101010
#define CLK_UNORM_INT_101010 0x10d6
#endif
#ifndef CLK_SIGNED_INT8
#define CLK_SIGNED_INT8 0x10d7
#endif
#ifndef CLK_SIGNED_INT16
#define CLK_SIGNED_INT16 0x10d8
#endif
#ifndef CLK_SIGNED_INT32
#define CLK_SIGNED_INT32 0x10d9
#endif
#ifndef CLK_UNSIGNED_INT8
#define CLK_UNSIGNED_INT8 0x10da
#endif
#ifndef CLK_UNSIGNED_INT16
#define CLK_UNSIGNED_INT16 0x10db
#endif
#ifndef CLK_UNSIGNED_INT32
#define CLK_UNSIGNED_INT32 0x10dc
#endif
#ifndef CLK_HALF_FLOAT
#define CLK_HALF_FLOAT 0x10dd
#endif
#ifndef CLK_FLOAT
#define CLK_FLOAT 0x10de
#endif
#ifndef CLK_R
#define CLK_R 0x10b0
#endif
#ifndef CLK_A
#define CLK_A 0x10b1
#endif
#ifndef CLK_RG
#define CLK_RG 0x10b2
#endif
#ifndef CLK_RA
#define CLK_RA 0x10b3
#endif
#ifndef CLK_RGB
#define CLK_RGB 0x10b4
#endif
#ifndef CLK_RGBA
#define CLK_RGBA 0x10b5
#endif
#ifndef CLK_BGRA
#define CLK_BGRA 0x10b6
#endif
#ifndef CLK_ARGB
#define CLK_ARGB 0x10b7
#endif
#ifndef CLK_INTENSITY
#define CLK_INTENSITY 0x10b8
#endif
#ifndef CLK_LUMINANCE
#define CLK_LUMINANCE 0x10b9
#endif
#ifndef CLK_Rx
#define CLK_Rx 0x10ba
#endif
#ifndef CLK_RGx
#define CLK_RGx 0x10bb
#endif
#ifndef CLK_RGBx
#define CLK_RGBx 0x10bc
#endif
#define MAXFLOAT 0x1.fffffep127f
#define HUGE_VALF __builtin_huge_valf()
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define FLT_MAX 0x1.fffffep127f
#define FLT_MIN 0x1.0p-126f
#define FLT_EPSILON 0x1.0p-23f
#define INT_MAX 2147483647
#define INT_MIN (-2147483647 - 1)
#define UINT_MAX 0xffffffffU
#define M_PI_F 3.14159274101257f
#define CHAR_BIT 8
#define SCHAR_MAX 127
#define SCHAR_MIN (-127 - 1)
#define CHAR_MAX SCHAR_MAX
#define CHAR_MIN SCHAR_MIN
#define UCHAR_MAX 255
#define SHRT_MAX 32767
#define SHRT_MIN (-32767 - 1)
#define USHRT_MAX 65535
#define LONG_MAX 0x7fffffffffffffffL
#define LONG_MIN (-0x7fffffffffffffffL - 1)
#define ULONG_MAX 0xffffffffffffffffUL
#define FLT_DIG 6
#define FLT_MANT_DIG 24
#define FLT_MAX_10_EXP +38
#define FLT_MAX_EXP +128
#define FLT_MIN_10_EXP -37
#define FLT_MIN_EXP -125
#define FLT_RADIX 2
#define DBL_DIG 15
#define DBL_MANT_DIG 53
#define DBL_MAX_10_EXP +308
#define DBL_MAX_EXP +1024
#define DBL_MIN_10_EXP -307
#define DBL_MIN_EXP -1021
#define DBL_MAX 0x1.fffffffffffffp1023
#define DBL_MIN 0x1.0p-1022
#define DBL_EPSILON 0x1.0p-52
#define HUGE_VAL __builtin_huge_val()
#define FP_ILOGB0 (-2147483647 - 1)
#define FP_ILOGBNAN (-2147483647 - 1)
#define M_E_F 2.71828174591064f
#define M_LOG2E_F 1.44269502162933f
#define M_LOG10E_F 0.43429449200630f
#define M_LN2_F 0.69314718246460f
#define M_LN10_F 2.30258512496948f
#define M_PI_2_F 1.57079637050629f
#define M_PI_4_F 0.78539818525314f
#define M_1_PI_F 0.31830987334251f
#define M_2_PI_F 0.63661974668503f
#define M_2_SQRTPI_F 1.12837922573090f
#define M_SQRT2_F 1.41421353816986f
#define M_SQRT1_2_F 0.70710676908493f
#define M_E 2.718281828459045090796
#define M_LOG2E 1.442695040888963387005
#define M_LOG10E 0.434294481903251816668
#define M_LN2 0.693147180559945286227
#define M_LN10 2.302585092994045901094
#define M_PI 3.141592653589793115998
#define M_PI_2 1.570796326794896557999
#define M_PI_4 0.785398163397448278999
#define M_1_PI 0.318309886183790691216
#define M_2_PI 0.636619772367581382433
#define M_2_SQRTPI 1.128379167095512558561
#define M_SQRT2 1.414213562373095145475
#define M_SQRT1_2 0.707106781186547572737
/* as_typeN: a reinterpretation of the bits, which OpenCL C's own header defines as macros. */
#define as_char(x) __builtin_astype((x), char)
#define as_char2(x) __builtin_astype((x), char2)
#define as_char3(x) __builtin_astype((x), char3)
#define as_char4(x) __builtin_astype((x), char4)
#define as_char8(x) __builtin_astype((x), char8)
#define as_char16(x) __builtin_astype((x), char16)
#define as_uchar(x) __builtin_astype((x), uchar)
#define as_uchar2(x) __builtin_astype((x), uchar2)
#define as_uchar3(x) __builtin_astype((x), uchar3)
#define as_uchar4(x) __builtin_astype((x), uchar4)
#define as_uchar8(x) __builtin_astype((x), uchar8)
#define as_uchar16(x) __builtin_astype((x), uchar16)
#define as_short(x) __builtin_astype((x), short)
#define as_short2(x) __builtin_astype((x), short2)
#define as_short3(x) __builtin_astype((x), short3)
#define as_short4(x) __builtin_astype((x), short4)
#define as_short8(x) __builtin_astype((x), short8)
#define as_short16(x) __builtin_astype((x), short16)
#define as_ushort(x) __builtin_astype((x), ushort)
#define as_ushort2(x) __builtin_astype((x), ushort2)
#define as_ushort3(x) __builtin_astype((x), ushort3)
#define as_ushort4(x) __builtin_astype((x), ushort4)
#define as_ushort8(x) __builtin_astype((x), ushort8)
#define as_ushort16(x) __builtin_astype((x), ushort16)
#define as_int(x) __builtin_astype((x), int)
#define as_int2(x) __builtin_astype((x), int2)
#define as_int3(x) __builtin_astype((x), int3)
#define as_int4(x) __builtin_astype((x), int4)
#define as_int8(x) __builtin_astype((x), int8)
#define as_int16(x) __builtin_astype((x), int16)
#define as_uint(x) __builtin_astype((x), uint)
#define as_uint2(x) __builtin_astype((x), uint2)
#define as_uint3(x) __builtin_astype((x), uint3)
#define as_uint4(x) __builtin_astype((x), uint4)
#define as_uint8(x) __builtin_astype((x), uint8)
#define as_uint16(x) __builtin_astype((x), uint16)
#define as_long(x) __builtin_astype((x), long)
#define as_long2(x) __builtin_astype((x), long2)
#define as_long3(x) __builtin_astype((x), long3)
#define as_long4(x) __builtin_astype((x), long4)
#define as_long8(x) __builtin_astype((x), long8)
#define as_long16(x) __builtin_astype((x), long16)
#define as_ulong(x) __builtin_astype((x), ulong)
#define as_ulong2(x) __builtin_astype((x), ulong2)
#define as_ulong3(x) __builtin_astype((x), ulong3)
#define as_ulong4(x) __builtin_astype((x), ulong4)
#define as_ulong8(x) __builtin_astype((x), ulong8)
#define as_ulong16(x) __builtin_astype((x), ulong16)
#define as_float(x) __builtin_astype((x), float)
#define as_float2(x) __builtin_astype((x), float2)
#define as_float3(x) __builtin_astype((x), float3)
#define as_float4(x) __builtin_astype((x), float4)
#define as_float8(x) __builtin_astype((x), float8)
#define as_float16(x) __builtin_astype((x), float16)
#define as_double(x) __builtin_astype((x), double)
#define as_double2(x) __builtin_astype((x), double2)
#define as_double3(x) __builtin_astype((x), double3)
#define as_double4(x) __builtin_astype((x), double4)
#define as_double8(x) __builtin_astype((x), double8)
#define as_double16(x) __builtin_astype((x), double16)
#define as_half(x) __builtin_astype((x), half)
#define as_half2(x) __builtin_astype((x), half2)
#define as_half3(x) __builtin_astype((x), half3)
#define as_half4(x) __builtin_astype((x), half4)
#define as_half8(x) __builtin_astype((x), half8)
#define as_half16(x) __builtin_astype((x), half16)
#if __OPENCL_C_VERSION__ < 200
void __attribute__((overloadable)) work_group_barrier(cl_mem_fence_flags flags);
#endif
int printf(__constant const char* restrict format, ...);
