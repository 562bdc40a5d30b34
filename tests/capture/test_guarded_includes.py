"""An ``#include`` in a group no OpenCL C build enters (``#ifdef __cplusplus``, ``#if 0``,
``#ifdef CUDA`` unless the build defines it) names no file the build reads: a capture whose
headers hold such lines (pyopencl's Random123 headers, which every ``pyopencl.clrandom``
program includes, do; reikna's FFT, shared with CUDA) replays from the capture alone, while
one an OpenCL C build may read is still refused."""

from __future__ import annotations

import pytest

from explorer.capture.includes import builds_cplusplus, defined_by, includes
from tests.robustness.helpers import cli

DUAL = """#include "always.h"
#ifdef __cplusplus
#include <stdexcept>
#  if LATER
#include "cxx_later.h"
#  endif
#else
#include "c_only.h"
#endif
#ifndef __cplusplus
#define C
#else
#include <iostream>
#endif
#if 0
#include "zero.h"
#elif FEATURE
#include "feature.h"
#endif
#if defined( __cplusplus )
#include <vector>
#elif 1
#include "one.h"
#else
#include "after_one.h"
#endif
#if SOMETHING
#include "maybe.h"
#endif
"""


def test_includes_in_groups_an_opencl_c_build_never_enters_are_not_counted():
    assert [i.name for i in includes(DUAL)] == [
        "always.h", "c_only.h", "feature.h", "one.h", "maybe.h",
    ]  # fmt: skip
    every = ["always.h", "stdexcept", "cxx_later.h", "c_only.h", "iostream", "feature.h"]
    # C++ for OpenCL defines __cplusplus; so does a source or an option that defines it.
    for text, cplusplus in ((DUAL, True), ("#define __cplusplus 1\n" + DUAL, False)):
        assert [i.name for i in includes(text, cplusplus)][:6] == every
    assert builds_cplusplus(("-cl-std=CLC++2021",)) and builds_cplusplus(("-D", "__cplusplus"))
    assert not builds_cplusplus(("-cl-std=CL2.0", "-DN=4"))


@pytest.mark.usefixtures("fast_cli")
def test_a_header_with_a_cplusplus_part_replays_from_the_capture_alone(captured):
    capture = captured("guarded_includes.py")
    copied = capture.folder / capture.programs[0].include[0] / "dual.h"
    assert copied.is_file()  # the header the build read, and nothing for the names it skipped
    outcome = cli("run", "--capture", str(capture.folder), "--launch", "scale", "--repeat", "1")
    assert outcome.code == 0, outcome.out + outcome.err
    assert "matches the original run" in outcome.out


def test_an_include_a_build_may_read_is_still_refused(captured, tmp_path):
    import shutil

    from explorer.capture.folder import CaptureError, load_capture
    from explorer.capture.replay import replay

    folder = tmp_path / "edited"
    shutil.copytree(captured("guarded_includes.py").folder, folder)
    capture = load_capture(folder)
    header = folder / capture.programs[0].include[0] / "dual.h"
    header.write_text(header.read_text().replace("#if 0", "#if FEATURE"))
    with pytest.raises(CaptureError, match=r"includes notes_never_written\.h, which is not in"):
        replay(capture, "scale")


SHARED_WITH_CUDA = """#ifdef CUDA
#ifndef NAN
#include <math_constants.h>
#endif
#endif
#if defined(__CUDACC__)
#include <cuda_fp16.h>
#else
#include "opencl_half.h"
#endif
"""


def test_includes_of_a_cuda_build_are_not_counted_unless_the_build_defines_its_names():
    # reikna's kernels are shared with CUDA: its FFT includes math_constants.h under CUDA.
    assert [i.name for i in includes(SHARED_WITH_CUDA)] == ["opencl_half.h"]
    assert [i.name for i in includes(SHARED_WITH_CUDA, defined=defined_by(("-DCUDA",)))] == [
        "math_constants.h", "opencl_half.h",
    ]  # fmt: skip
    defined_here = includes("#define CUDA 1\n" + SHARED_WITH_CUDA)
    assert [i.name for i in defined_here] == ["math_constants.h", "opencl_half.h"]
    assert defined_by(("-D", "X=1", "-UY", "-DZ=3", "-I", "inc")) == {"X", "Y", "Z"}
