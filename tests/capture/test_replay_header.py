"""What a replay's header says comes back exactly as the capture holds it: a ``ulong`` scalar
past 2**63 (TOML's integers stop there, a float rounds it) and text with what TOML and the
header's C comment must escape (``*/``, quotes, backslashes, new lines), in memory and in a
saved kernel file."""

from __future__ import annotations

import sys

import numpy as np

from explorer.capture.folder import load_capture
from explorer.capture.replay import launch_variant, save_launch
from explorer.engine.header.catalog import load_variant_file
from explorer.engine.records import RunRequest
from tests.capture.conftest import PROGRAMS
from tests.robustness.helpers import cli

LARGEST = 2**64 - 1
TEXT = 'ends the comment */ and "quotes" it, a back\\slash \\" and\na new line'


def test_a_ulong_past_2_63_and_text_to_escape_replay_exactly(on_device, executor, device, tmp_path):
    folder = tmp_path / "capture"
    program = str(PROGRAMS / "ulong_and_text.py")
    made = cli("capture", str(folder), "--", sys.executable, program, TEXT)
    assert made.code == 0, made.err
    capture = load_capture(folder)
    assert capture.command[-1] == TEXT
    (launch,) = capture.launches
    saved = save_launch(capture, launch, tmp_path / "saved")
    for variant in (launch_variant(capture, launch), load_variant_file(saved)):
        assert f"of `{' '.join(capture.command)}`, on " in variant.source_ref
        assert variant.custom is not None
        (value,) = next(d.value for d in variant.custom.params if d.name == "v")
        assert int(value) == LARGEST
        ran = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
        assert ran.status == "verified", ran.summary()
        assert ran.verdict.compared_with == "the original run"
        assert ran.output is not None and ran.output.dtype == np.uint64
        assert (ran.output == np.uint64(LARGEST)).all()
