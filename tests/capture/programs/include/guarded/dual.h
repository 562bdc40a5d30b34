/* A header written for OpenCL C and C++ alike, as Random123's (which pyopencl ships) is:
   its C++ part includes headers an OpenCL C build never reads. */
#ifndef DUAL_H
#define DUAL_H
#ifdef __cplusplus
#include <stdexcept>
#define SCALE 3.0
#else
#define SCALE 2.0f
#endif
#if 0
#include "notes_never_written.h"
#endif
#endif
