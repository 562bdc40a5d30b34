"""A header that includes another through "../", inside the program's -I folder: the
recorder copies both, and the launch replays from the capture alone."""

from __future__ import annotations

import pytest

from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")


def test_a_header_included_through_dotdot_travels_with_the_capture(captured):
    """Before, the recorder skipped every #include name holding "..", so the copy of
    sub/inner.h named ../common.h that was not in the capture, and the replay stopped: "which
    is not in the capture folder"."""
    capture = captured("parent_include.py")
    (program,) = capture.programs
    copied = {
        str(path.relative_to(capture.folder / copy))
        for copy in program.include
        for path in (capture.folder / copy).rglob("*.h")
    }
    assert {"top.h", "sub/inner.h", "common.h"} <= copied, copied
    ran = cli("run", "--capture", str(capture.folder), "--launch", "both", "--repeat", "1")
    assert ran.code == 0 and "matches the original run" in ran.out, ran.out + ran.err
