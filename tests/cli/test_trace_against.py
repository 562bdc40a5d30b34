"""``trace --against``: the trace diff on the command line, in text and JSON."""

import json
from pathlib import Path

import pytest

from tests.robustness.helpers import cli as explorer

KERNELS = Path(__file__).parents[1] / "trace" / "diff"
ROWS = ("--width", "8", "--height", "8")


def trace(name, *more):
    return explorer("trace", "--kernel-file", str(KERNELS / f"{name}.cl"), *ROWS, *more)


@pytest.mark.usefixtures("fast_cli")
def test_a_kernel_against_its_own_file_is_identical_in_text_and_json():
    out = trace("rows", "--against", str(KERNELS / "rows.cl"))
    assert out.code == 0, out.err
    assert f"Trace diff against {KERNELS / 'rows.cl'}:\nIdentical: the 8 work-items" in out.out
    out = trace("rows", "--against", str(KERNELS / "rows.cl"), "--json")
    report = json.loads(out.out)
    assert report["against"]["diff"]["identical"] is True
    assert report["against"]["diff"]["first"] is None
    assert not [f for f in report["findings"] if f["kind"] == "differs"]


@pytest.mark.usefixtures("fast_cli")
def test_a_swapped_index_is_named_with_its_line_in_json_and_as_a_finding():
    out = trace("rows_swapped", "--against", str(KERNELS / "rows.cl"), "--json")
    assert out.code == 0, out.err
    report = json.loads(out.out)
    first = report["against"]["diff"]["first"]
    assert (first["line"], first["what"], first["mine"]["element"]) == (19, "element", 1)
    assert first["reference"]["element"] == 8
    differs = [f for f in report["findings"] if f["kind"] == "differs"]
    assert [f["line"] for f in differs] == [19, 19]  # one per work-group


@pytest.mark.usefixtures("fast_cli")
def test_a_catalog_variant_is_traced_at_the_same_launch():
    out = explorer(
        "trace",
        "--family", "matvec", "--variant", "nvidia-coalesced3",
        "--width", "100", "--height", "2", "--local", "64",
        "--against", "nvidia-coalesced2",  # a variant of the kernel's own family
    )  # fmt: skip
    assert out.code == 0, out.err
    text = out.out.split("Trace diff against matvec/nvidia-coalesced2:\n", 1)[1]
    assert text.startswith("Differs: ")
    # At 64 work-items the tree's first step adds p[32] as Coalesced3's first line does: the
    # two part at its second line, which reads p[16] with no barrier between.
    assert "First difference (line 56, phase 1)" in text
    assert "differs in its phase: here it reads partialDotProduct[16] (p[16]" in text


@pytest.mark.usefixtures("fast_cli")
def test_another_launch_shape_is_refused_with_a_message_and_exit_2():
    out = trace("rows", "--against", str(KERNELS / "rows_halves.cl"))
    assert out.code == 2
    assert "not compared: not the same launch: the NDRange differs: 8 here, 16 in" in out.out


def test_a_reference_that_names_nothing_or_another_family_is_a_usage_error():
    out = trace("rows", "--against", "no-such-variant")
    assert out.code == 2 and "no variant 'no-such-variant' in family 'matvec'" in out.err
    out = trace("rows", "--against", "matmul/tiled")
    assert out.code == 2 and "is a matmul kernel and this one a matvec kernel" in out.err


@pytest.mark.usefixtures("fast_cli")
def test_an_oclgrind_sim_file_is_compared_with_itself():
    sim = Path(__file__).parents[1] / "kernels" / "custom" / "sim" / "scaled_copy.sim"
    out = explorer("trace", "--sim", str(sim), "--against", str(sim), "--json")
    assert out.code == 0, out.err
    assert json.loads(out.out)["against"]["diff"]["identical"] is True


@pytest.mark.usefixtures("fast_cli")
def test_a_kernel_on_two_devices_is_compared_with_against_device(executor, device):
    others = [d for d in executor.devices() if d.key != device.key]
    if not others:
        pytest.skip("a second OpenCL device is needed (Oclgrind, say)")
    other = others[0]
    out = trace("rows", "--device", device.key, "--against-device", other.key)
    assert out.code == 0, out.err
    head = f"Trace diff against {KERNELS / 'rows.cl'} on {other.name}:\nIdentical: the 8"
    assert head in out.out  # the kernel itself, on the other device
    swapped = trace(
        "rows_swapped", "--against", str(KERNELS / "rows.cl"), "--against-device", other.key,
        "--json",
    )  # fmt: skip
    first = json.loads(swapped.out)["against"]["diff"]["first"]
    assert (first["line"], first["what"], first["reference"]["element"]) == (19, "element", 8)
