"""Every record that crosses between the window and the executor comes back equal from the
data-only codec: real replies of PoCL (a run, a trace kept with its comparison to another
kernel, the devices, a custom kernel's request, one with an image and a sampler), compared in
the executor's own process where they were made, and through the pipe and a remote stream."""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Any

import numpy as np
import pytest

from explorer.engine import calls, codec, reply
from explorer.engine.header.catalog import find_variant, load_variant_file
from explorer.engine.record.oclgrind import OclgrindCheck, OclgrindMessage
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.engine.remote import wire
from tests.conftest import TEST_KERNELS
from tests.engine.test_includes_images import COPY, HEADER


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where ``b`` differs from ``a``, field by field (NaN equal to NaN, arrays by their dtype,
    shape and elements, tuples kept apart from lists)."""
    if type(a) is not type(b):
        return [f"{path}: {type(a).__name__} became {type(b).__name__}"]
    if isinstance(a, np.ndarray):
        same = a.dtype == b.dtype and a.shape == b.shape
        return [] if same and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc") else [path]
    if dataclasses.is_dataclass(a):
        return [
            d
            for f in dataclasses.fields(a)
            for d in differences(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
        ]
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items became {len(b)}"]
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in differences(x, y, f"{path}[{i}]")]
    if isinstance(a, dict):
        if list(a) != list(b):
            return [f"{path}: keys {list(a)} became {list(b)}"]
        return [d for k in a for d in differences(a[k], b[k], f"{path}[{k!r}]")]
    if isinstance(a, float) and math.isnan(a):
        return [] if math.isnan(b) else [path]
    return [] if a == b else [f"{path}: {a!r} became {b!r}"]


def records_in(value: Any) -> set[str]:
    """The names of the records ``value`` holds, at any depth."""
    found: set[str] = set()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        found.add(type(value).__name__)
        for f in dataclasses.fields(value):
            found |= records_in(getattr(value, f.name))
    elif isinstance(value, (list, tuple)):
        for item in value:
            found |= records_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            found |= records_in(item)
    return found


def real_messages(device_key: str, not_traced: str) -> dict[str, Any]:
    """Requests and their replies as the executor makes them (called in its process);
    ``not_traced``: a kernel whose trace cannot record an access."""
    from explorer.engine.serve import handle

    run = RunRequest(
        find_variant("matvec", "nvidia-coalesced3"),
        {"WIDTH": 200, "HEIGHT": 4},
        local=(64,),
        device_key=device_key,
        repeat=2,
    )
    traced = TraceRequest(  # its races' lines get an anatomy build: every record crosses
        run, against=find_variant("matvec", "nvidia-coalesced2"), anatomy_findings=True
    )
    custom = RunRequest(
        load_variant_file(TEST_KERNELS / "custom" / "local_sum.cl"),
        {"N": 256},
        device_key=device_key,
        repeat=1,
    )
    scalars = RunRequest(
        load_variant_file(TEST_KERNELS / "custom" / "gather_axpy.cl"),
        {"N": 100},
        device_key=device_key,
        repeat=1,
    )
    promised = RunRequest(
        find_variant("matmul", "tiled"), {"M": 32, "N": 32, "K": 32}, device_key=device_key
    )
    trace_args = (traced, 32, 32, True, 4)
    counterpart = RunRequest(  # a header with a [counterpart] and [[by_size]] rules
        find_variant("matvec", "nvidia-uncoalesced0"),
        {"WIDTH": 64, "HEIGHT": 8},
        device_key=device_key,
    )
    by_size = RunRequest(
        find_variant("matmul", "fast"), {"M": 64, "N": 64, "K": 64}, device_key=device_key
    )
    images = RunRequest(  # an image and a sampler declared in the header
        load_variant_file(TEST_KERNELS / "images" / "box_blur.cl"),
        {"W": 12, "H": 9},
        device_key=device_key,
        repeat=1,
    )
    refused = dataclasses.replace(promised, local=(4096, 4096))
    missing_run = RunRequest(load_variant_file(not_traced), {}, device_key=device_key)
    missing = (TraceRequest(missing_run), 32, 32, True, 4)
    return {
        "counterpart": ("run", counterpart, handle("run", counterpart)),
        "by size": ("run", by_size, handle("run", by_size)),
        "refused": ("run", refused, handle("run", refused)),
        "not traced": ("trace", missing, handle("trace", missing)),
        "devices": ("devices", None, handle("devices", None)),
        "run": ("run", run, handle("run", run)),
        "trace": ("trace", trace_args, handle("trace", trace_args)),
        "custom": ("run", custom, handle("run", custom)),
        "scalars": ("run", scalars, handle("run", scalars)),
        "images": ("run", images, handle("run", images)),
        "promised": (
            "trace",
            (TraceRequest(promised),),
            handle("trace", (TraceRequest(promised),)),
        ),
    }


def round_trips(device_key: str, not_traced: str) -> dict[str, Any]:
    """Each real request and reply through the pipe's codec, in the process that made them:
    the differences found, and the records each one held."""
    out: dict[str, Any] = {}
    for name, (kind, request, answer) in real_messages(device_key, not_traced).items():
        sent = reply.read_request(reply.pack_request((kind, request)))
        back = reply.unpack(reply.pack(answer), os.getpid())
        out[name] = {
            "status": answer[0],
            "request": differences((kind, request), sent),
            "reply": differences(answer, back),
            "records": sorted(records_in(request) | records_in(answer)),
        }
    return out


calls.allow(round_trips)


def test_real_replies_come_back_equal_through_the_codec(executor, device, tmp_path):
    (tmp_path / "copy.h").write_text(COPY)
    kernel = tmp_path / "copy.cl"
    kernel.write_text(  # the copy happens in an included function: not traced
        HEADER.format(options="").replace("3 * x + 1", "x").replace('"scale"', '"copy"')
        + '#include "copy.h"\n'
        "__kernel void copy(__global const float *x, __global float *y)\n"
        "{\n    copy_one(x, y, get_global_id(0));\n}\n"
    )
    found = executor.call(round_trips, device.key, str(kernel), timeout_s=300)
    assert len(found) == 11
    for name, outcome in found.items():
        assert outcome["status"] == "ok", (name, outcome)
        assert outcome["records"], name
        assert outcome["request"] == [] and outcome["reply"] == [], (name, outcome)
    seen = {record for outcome in found.values() for record in outcome["records"]}
    # Oclgrind's check is the one record a PoCL run does not make (made by hand below).
    every = {cls.__name__ for cls in codec.record_types()}
    assert every - seen == {"OclgrindCheck", "OclgrindMessage"}, every - seen


def test_a_trace_kept_with_its_comparison_crosses_a_remote_stream_equal(executor, device):
    run = RunRequest(
        find_variant("matvec", "nvidia-coalesced3"),
        {"WIDTH": 200, "HEIGHT": 4},
        local=(64,),
        device_key=device.key,
    )
    traced = executor.trace(
        TraceRequest(run, against=find_variant("matvec", "nvidia-coalesced2")), keep_trace=True
    )
    assert traced.trace is not None and traced.against.diff is not None
    frame = wire.encode(("ok", traced), 7, reply=True)
    reader = wire.FrameReader()
    for at in range(0, len(frame), 4096):  # as a stream brings it, in pieces
        reader.feed(frame[at : at + 4096])
    number, back = reader.pop()
    assert number == 7 and differences(("ok", traced), back) == []
    assert codec.check_reply("trace", back)[1].trace.records == traced.trace.records


def test_oclgrinds_check_comes_back_equal(executor, device):
    result = executor.run(
        RunRequest(find_variant("matmul", "naive"), {"M": 8, "N": 8, "K": 8}, device_key=device.key)
    )
    check = OclgrindCheck(
        result,
        (OclgrindMessage("Read-write data race", 12, "work-item (3,0,0)", "a race\nat line 12"),),
        "raw output",
        result,
    )
    back = reply.unpack(reply.pack(("ok", check)), os.getpid())
    assert differences(("ok", check), back) == []


SAMPLES = {
    "tuples stay tuples": ((1, (2, 3)), [4, [5]]),
    "maps with other keys": {1: "a", (2, 3): "b", None: 0.5, "$": "a dollar key"},
    "numbers": [float("nan"), float("inf"), -float("inf"), 10**30, -0.0, 1 + 2j],
    "numpy scalars": [
        np.float32(1.5),
        np.int64(-7),
        np.uint8(200),
        np.bool_(True),
        np.complex64(1j),
    ],
    "bytes": b"\x00\xffraw",
    "arrays": [
        np.zeros((0, 3), dtype=np.float32),
        np.arange(12, dtype=np.int16).reshape(3, 4)[:, ::2],  # not contiguous
        np.array(5.0),
        np.array([True, False]),
        np.arange(4, dtype=">u4"),  # big-endian: arrives in the machine's order
        np.ones(3, dtype=np.complex128),
    ],
    "text": "ünïcödé \udcff",  # a path's undecodable byte, as Python spells it
}


@pytest.mark.parametrize("name", SAMPLES)
def test_values_come_back_as_they_were(name):
    value = SAMPLES[name]
    text, blobs = codec.encode_message(value)
    back = codec.decode_message(text, [bytearray(b) for b in blobs])
    if name == "arrays":
        for before, after in zip(value, back, strict=True):
            assert after.dtype == before.dtype.newbyteorder("=") and np.array_equal(after, before)
            assert after.flags.writeable
    else:
        assert differences(value, back) == []


@pytest.mark.parametrize(
    "value",
    [object(), {1, 2}, np.array([object()]), np.zeros(2, dtype="M8[s]"), print, RunRequest],
    ids=["object", "set", "object array", "datetime array", "function", "class"],
)
def test_what_is_not_data_is_refused_before_anything_is_sent(value):
    with pytest.raises(codec.CodecError, match="not data the executor's protocol carries"):
        codec.encode_message(("ok", value))


def test_a_reply_that_is_not_data_is_sent_as_an_error_naming_it():
    status, message = reply.unpack(reply.pack(("ok", {1, 2})), os.getpid())
    assert status == "error" and "set is not data" in message
