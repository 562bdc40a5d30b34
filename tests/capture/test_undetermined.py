"""A replay whose result depends on something the capture cannot hold: a struct
``ReductionKernel`` whose neutral element and map leave one field unassigned. The compiled
reduction copies that field from local memory it never wrote, so its bytes are whatever local
memory held. Replays of it are deterministic (local memory is filled the same way before every
launch, whichever of PoCL's workers runs it) and say which elements no input decides, instead
of flipping between a match and "WRONG, 2 elements, max abs error 192"."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from explorer.capture.folder import load_capture
from tests.capture.conftest import replace_contents
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")

STAGE1 = "reduce_kernel_stage1"


def _replay(folder: str, launch: str) -> dict:
    outcome = cli("run", "--capture", folder, "--launch", launch, "--json", "--repeat", "1")
    return json.loads(outcome.out) | {"code": outcome.code}


def test_replays_of_a_struct_reduction_agree_and_name_the_bytes_no_input_decides(captured, on_pocl):
    capture = captured("struct_argmax.py")
    assert [launch.kernel for launch in capture.launches] == [
        "get_size_and_offsets", STAGE1, "reduce_kernel_stage2",
    ]  # fmt: skip
    records = [_replay(str(capture.folder), STAGE1) for _ in range(5)]
    assert {(r["code"], r["status"], r["max_abs_error"]) for r in records} == {(0, "verified", 0)}
    undetermined = [r["undetermined"] for r in records]
    assert all(u == undetermined[0] for u in undetermined), undetermined
    if not on_pocl and not undetermined[0]:
        # NVIDIA's build leaves the unassigned field as the original run left it: every
        # replay matches the capture byte for byte, so no element needed a second launch.
        return
    # The struct is recorded as its bytes (12 per struct): the unassigned field's high bytes.
    first = undetermined[0]["pcl_out__base"]
    structs = capture.find(STAGE1).args[0].nbytes // 12
    assert first["count"] % structs == 0 and first["count"] // structs <= 4
    assert all(8 <= i % 12 < 12 for i in first["first"])
    text = cli("run", "--capture", str(capture.folder), "--launch", STAGE1, "--repeat", "1").out
    assert "matches the original run" in text
    assert f"not judged: {first['count']} elements of pcl_out__base" in text


def test_an_element_the_inputs_decide_is_still_judged(captured, tmp_path):
    folder = tmp_path / "edited"
    shutil.copytree(captured("struct_argmax.py").folder, folder)
    capture = load_capture(folder)
    launch = capture.find(STAGE1)
    values = np.load(capture.path(launch.args[0].after))
    values[4] ^= 1  # the first struct's index, which the reduction computes
    replace_contents(capture, launch.args[0].after, values)
    record = _replay(str(folder), STAGE1)
    assert (record["code"], record["status"], record["max_abs_error"]) == (1, "wrong", 1.0)
    assert record["undetermined"]["pcl_out__base"]["count"] > 0
