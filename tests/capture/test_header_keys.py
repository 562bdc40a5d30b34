"""The two header keys a captured launch needs, usable in any custom kernel: ``exact = true``
(launch the NDRange as given) and ``[reference] expected`` (an answer given as .npy arrays),
and the helpers that turn a program's build options and launch into a header."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.capture.bootstrap.recorder import element_dtype
from explorer.capture.replay import chosen_local, split_options
from explorer.engine.header.catalog import CatalogError, load_variant_file
from explorer.engine.records import RunRequest

KERNEL = """
__kernel void stamp(__global int *out, __global const int *offset)
{
    out[get_global_id(0)] = (int)get_global_id(0) + offset[0];
}
"""


def header(*lines: str) -> str:
    return "\n".join(
        [
            "/*---",
            'family = "custom"',
            'kernel = "stamp"',
            'global = ["N"]',
            'local = ["32"]',
            *lines,
            "[sizes]",
            "N = 100",
            "[args.out]",
            'buffer = "int"',
            'count = "N + 28"',
            'contents = "constant"',
            "value = -1",
            "result = true",
            "[args.offset]",
            'buffer = "int"',
            "count = 1",
            'contents = "npy"',
            'file = "offset.npy"',
            'access = "read"',
        ]
    )


def write(tmp_path, *lines: str, reference: tuple[str, ...] = ()) -> object:
    np.save(tmp_path / "offset.npy", np.array([1000], np.int32))
    path = tmp_path / "stamp.cl"
    text = header(*lines) + ("\n[reference]\n" + "\n".join(reference) if reference else "")
    path.write_text(text + "\n---*/\n" + KERNEL)
    return path


def run(executor, device, path):
    variant = load_variant_file(path)
    return executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))


def test_exact_launches_the_ndrange_as_given(executor, device, tmp_path):
    expected = np.concatenate([1000 + np.arange(100), np.full(28, -1)]).astype(np.int32)
    np.save(tmp_path / "stamp.expected.npy", expected)
    reference = ('expected = { out = "stamp.expected.npy" }', 'expected_from = "the stamps"')
    exact = run(executor, device, write(tmp_path, "exact = true", reference=reference))
    assert exact.status == "verified", exact.summary()
    assert "matches the stamps" in exact.summary()
    # Without it the NDRange is rounded up to whole groups: work-items 100..127 write too.
    rounded = run(executor, device, write(tmp_path, reference=reference))
    assert rounded.status == "wrong"
    assert "differs from the stamps at 28 elements" in rounded.summary()


@pytest.mark.parametrize(
    ("lines", "reference", "message"),
    [
        (("exact = 1",), (), "'exact' must be true or false"),
        ((), ('expected = { offset = "offset.npy" }',), "expected.offset: not a result buffer"),
        ((), ('expected = { out = "missing.npy" }',), "missing.npy does not exist"),
        ((), ('expected = { out = "offset.npy" }', 'numpy = "out"'), "choose one"),
        ((), ('expected = "offset.npy"',), 'table of result = "file.npy"'),
    ],
)
def test_a_wrong_key_names_itself(tmp_path, lines, reference, message):
    with pytest.raises(CatalogError, match=message):
        load_variant_file(write(tmp_path, *lines, reference=reference))


def test_build_options_become_defines_switches_and_macros():
    options = split_options(
        ("-D", "TS=16", "-DFAST", "-DREAL=float", "-cl-mad-enable", "-I", "/some/where", "-w")
    )
    assert options.defines == {"TS": 16, "FAST": 1}
    assert options.switches == ("-cl-mad-enable",)
    assert options.macros == ("#define REAL float",)
    assert options.dropped == ("-I/some/where", "-w")


def test_element_types_of_recorded_buffers():
    assert element_dtype("const float4*") == np.float32
    assert element_dtype("unsigned int*") == np.uint32
    assert element_dtype("mystruct*") == np.uint8
    assert element_dtype(None) == np.uint8


def test_a_local_size_the_driver_chose_is_a_divisor():
    assert chosen_local((1000,)) == (250,)
    assert chosen_local((97,)) == (97,)
    assert chosen_local((48, 20)) == (16, 10)
