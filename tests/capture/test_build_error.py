"""A program whose build fails ends under capture as it does alone: with the build error of
its own options, not after the recorder's build (with -cl-kernel-arg-info added) in a chained
"During handling of the above exception" traceback."""

from __future__ import annotations

import subprocess
import sys

from tests.capture.conftest import PROGRAMS, run_capture


def test_a_failing_build_raises_as_it_does_alone(on_device, tmp_path, capfd):
    alone = subprocess.run(
        [sys.executable, str(PROGRAMS / "build_error.py")], capture_output=True, text=True
    )
    captured = run_capture(tmp_path / "out", "build_error.py")
    printed = capfd.readouterr()
    assert captured.code == alone.returncode == 1
    assert "use of undeclared identifier 'undeclared'" in printed.err
    assert "During handling of the above exception" not in printed.err
    assert "-cl-kernel-arg-info" not in printed.err
    assert printed.err.count("Traceback (most recent call last)") == 1
