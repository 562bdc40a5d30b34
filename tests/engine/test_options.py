"""A header's [options]: compiler options per platform, checked when the file is read."""

from pathlib import Path

import pytest

from explorer.cli.variants import variant_json
from explorer.engine.build_inputs import platform_options
from explorer.engine.header.catalog import CatalogError, load_variant_file, parse_variant
from explorer.engine.records import RunRequest

# The transpose is right only where the compiler was given -cl-fast-relaxed-math: OpenCL C
# defines __FAST_RELAXED_MATH__ then, so the result shows which options the build received.
SOURCE = """/*---
name = "Needs its option"
family = "transpose"
kernel = "t"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["8", "8"]
[options]
{options}
[about]
text = "A transpose that is right only when built with -cl-fast-relaxed-math."
---*/
__kernel void t(const int WIDTH, const int HEIGHT, const __global float* IN,
                __global float* OUT)
{{
    const int x = get_global_id(0), y = get_global_id(1);
#ifdef __FAST_RELAXED_MATH__
    OUT[x * HEIGHT + y] = IN[y * WIDTH + x];
#else
    OUT[x * HEIGHT + y] = -1.0f;
#endif
}}
"""


def _variant(tmp_path: Path, options: str):
    path = tmp_path / "needs_option.cl"
    path.write_text(SOURCE.format(options=options))
    return load_variant_file(path)


def test_options_for_the_devices_platform_reach_the_compiler(tmp_path, executor, device):
    sizes = {"WIDTH": 16, "HEIGHT": 8}
    own = "pocl" if "Portable Computing Language" in device.platform else "nvidia"
    other = "amd" if own != "amd" else "intel"

    given = _variant(tmp_path, f'{own} = "-cl-fast-relaxed-math"')
    assert executor.run(RunRequest(given, sizes, device_key=device.key)).status == "verified"

    everywhere = _variant(tmp_path, 'all = "-cl-fast-relaxed-math"')
    assert executor.run(RunRequest(everywhere, sizes, device_key=device.key)).status == "verified"

    elsewhere = _variant(tmp_path, f'{other} = "-cl-fast-relaxed-math"')
    result = executor.run(RunRequest(elsewhere, sizes, device_key=device.key))
    assert result.status == "wrong", result.summary()


def test_options_are_chosen_by_platform_name():
    options = (("nvidia", ("-cl-nv-verbose", "-cl-mad-enable")), ("all", ("-cl-mad-enable",)))
    assert platform_options(options, "NVIDIA CUDA") == ("-cl-mad-enable", "-cl-nv-verbose")
    assert platform_options(options, "Portable Computing Language") == ("-cl-mad-enable",)
    assert platform_options((("pocl", ("-cl-std=CL1.2",)),), "NVIDIA CUDA") == ()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ('nvidia = "-DBM=64"', r"gives -DBM=64, which the explorer does not pass"),
        ('nvidia = "-cl-nv-verbose -I /tmp"', r"-I /tmp: an include folder must be beside"),
        ('nvidia = "-cl-nv-maxrregcount=lots"', r"-cl-nv-maxrregcount=lots"),
        ('cuda = "-cl-mad-enable"', r"'cuda' is no platform; one of all, nvidia"),
        ("nvidia = 128", r"nvidia must be a string"),
    ],
)
def test_bad_options_are_refused_when_the_file_is_read(options, message):
    with pytest.raises(CatalogError, match=message):
        parse_variant(SOURCE.format(options=options), "needs_option.cl")


def test_variants_json_lists_the_options(tmp_path):
    variant = _variant(tmp_path, 'nvidia = "-cl-nv-maxrregcount=128 -cl-nv-verbose"')
    listed = variant_json(variant)
    assert listed["options"] == {"nvidia": "-cl-nv-maxrregcount=128 -cl-nv-verbose"}
