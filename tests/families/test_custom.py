"""Custom kernels: every parameter declared in the header, run, checked and traced."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from explorer.engine.header.catalog import CatalogError, load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS
from tests.test_cli import cli

CUSTOM = TEST_KERNELS / "custom"


def request(name: str, **sizes: int) -> RunRequest:
    return RunRequest(load_variant_file(CUSTOM / name), sizes, input="declared", repeat=2)


def test_scalar_alpha_and_two_element_types_verify(executor):
    result = executor.run(request("gather_axpy.cl"))
    assert result.status == "verified", result.summary()
    assert result.output.shape == (1000,)  # a 1-D strip
    assert set(result.inputs) == {"index", "x", "y"}
    assert result.inputs["index"].dtype == np.uint32 and result.inputs["x"].dtype == np.float32


def test_named_sizes_change_the_buffers(executor):
    result = executor.run(request("gather_axpy.cl", N=77))
    assert result.status == "verified"
    assert result.output.shape == (77,)


def test_host_sized_local_buffer_verifies_and_traces_at_its_declared_size(executor):
    run = request("local_sum.cl")
    assert executor.run(run).status == "verified"
    traced = executor.trace(TraceRequest(run), keep_trace=True)
    assert traced.result.status == "verified"
    kinds = {f.kind for f in traced.analysis.findings}
    assert "out-of-bounds" not in kinds
    by_name = {b.name: b for b in traced.trace.buffers}
    assert by_name["scratch"].length == 64  # L0 ints, not 4 bytes
    assert by_name["values"].is_input and not by_name["sums"].is_input


def test_local_size_flows_into_the_local_buffer_and_the_result_length(executor):
    result = executor.run(replace(request("local_sum.cl"), local=(128,)))
    assert result.status == "verified"
    assert result.output.shape == (4096 // 128,)


def test_two_d_grid_shows_results_in_their_declared_shape(executor):
    result = executor.run(request("transpose_int.cl"))
    assert result.status == "verified", result.summary()
    assert result.output.shape == (40, 24)
    src = result.inputs["src"]
    assert len(np.unique(src)) > 10  # integer defaults are random, not zeros


def test_reference_kernel_file_checks_the_results(executor):
    result = executor.run(request("sums_vs_naive.cl"))
    assert result.status == "verified", result.summary()


def test_without_reference_the_verdict_is_ran_not_checked(executor):
    result = executor.run(request("double_it.cl"))
    assert result.status == "unchecked"
    assert result.summary().startswith("RAN, NOT CHECKED")
    assert not result.verdict.verified  # never shown as verified
    np.testing.assert_array_equal(result.output, (result.inputs["data"] * 2).astype(np.int16))


def test_a_result_left_as_it_was_is_flagged(executor):
    result = executor.run(request("writes_nothing.cl"))
    assert result.verdict.unchanged == ("out",)
    assert "wrote nothing new" in result.summary()


def test_wrong_kernel_is_wrong(executor, tmp_path):
    source = (CUSTOM / "gather_axpy.cl").read_text().replace("alpha * x[index[i]]", "x[i]")
    (tmp_path / "wrong.cl").write_text(source)
    result = executor.run(
        RunRequest(load_variant_file(tmp_path / "wrong.cl"), {}, input="declared")
    )
    assert result.status == "wrong"


def test_buffer_beyond_the_device_allocation_is_refused_with_both_sizes(executor, device):
    elements = device.max_alloc_bytes // 4 + 1
    result = executor.run(request("double_it.cl", N=elements * 2))
    assert result.status == "refused"
    text = str(result.refused)
    assert str(elements * 2 * 2) in text and str(device.max_alloc_bytes) in text


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (('count = "N"\ncontents = "iota"', 'contents = "iota"'), ["'index'", "'count'"]),
        (('contents = "iota"', 'contents = "lots"'), ["'index'", "'contents'"]),
        (('buffer = "uint"', 'buffer = "uint5"'), ["'index'", "'buffer'"]),
        (("value = 2.5", "value = 2.5\nsize = 3"), ["'alpha'", "'size'"]),
        (('count = "N"\ncontents = "ones"', 'count = "M"\ncontents = "ones"'), ["'y'", "M"]),
    ],
)
def test_bad_declarations_name_the_file_parameter_and_key(tmp_path, edit, words):
    source = (CUSTOM / "gather_axpy.cl").read_text()
    assert edit[0] in source
    path = tmp_path / "bad.cl"
    path.write_text(source.replace(edit[0], edit[1], 1))
    with pytest.raises(CatalogError) as caught:
        load_variant_file(path)
    message = str(caught.value)
    assert str(path) in message
    for word in words:
        assert word in message


def test_undeclared_parameter_is_named(executor, tmp_path):
    source = (CUSTOM / "double_it.cl").read_text().replace("short* data)", "short* data, int n)")
    (tmp_path / "more.cl").write_text(source)
    variant = load_variant_file(tmp_path / "more.cl")
    result = executor.run(RunRequest(variant, {}, input="declared"))
    assert result.status == "error" and "['n']" in result.error


@pytest.mark.usefixtures("fast_cli")
def test_command_line_runs_and_traces_a_custom_kernel():
    done = cli("run", "--kernel-file", str(CUSTOM / "gather_axpy.cl"), "--set", "N=300", "--json")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["status"] == "verified" and record["size"] == {"N": 300}
    assert record["checked"] is True and record["unchanged"] == []
    done = cli("trace", "--kernel-file", str(CUSTOM / "local_sum.cl"))
    assert done.returncode == 0, done.stderr
    assert "scratch" in done.stdout and "out-of-bounds" not in done.stdout


@pytest.mark.usefixtures("fast_cli")
def test_command_line_unchecked_run_says_so():
    done = cli("run", "--kernel-file", str(CUSTOM / "double_it.cl"), "--json")
    assert done.returncode == 0
    record = json.loads(done.stdout)
    assert record["status"] == "unchecked" and record["checked"] is False
    assert record["verified"] is False


@pytest.mark.usefixtures("fast_cli")
def test_family_size_flags_are_refused_for_custom_kernels():
    done = cli("run", "--kernel-file", str(CUSTOM / "double_it.cl"), "--size", "64")
    assert done.returncode == 2 and "--set" in done.stderr


def test_the_registry_finds_the_custom_family():
    from explorer.families import get_family
    from explorer.families.custom import Custom

    assert isinstance(get_family("custom"), Custom)


@pytest.mark.parametrize("name", ["matmul_colmajor.cl", "matmul_bt.cl", "matmul_mixed.cl"])
def test_matmul_layouts_per_matrix_verify(executor, name):
    variant = load_variant_file(CUSTOM / name)
    sizes = {"M": 40, "N": 24, "K": 56}
    result = executor.run(RunRequest(variant, sizes, input="random", repeat=1))
    assert result.status == "verified", result.summary()
    assert result.output.shape == (40, 24)


def test_b_transposed_is_not_the_same_as_column_major(executor, tmp_path):
    source = (CUSTOM / "matmul_bt.cl").read_text().replace('B = "transposed"\n', "")
    (tmp_path / "no_transpose.cl").write_text(source)
    variant = load_variant_file(tmp_path / "no_transpose.cl")
    result = executor.run(RunRequest(variant, {"M": 40, "N": 24, "K": 56}, input="random"))
    assert result.status == "wrong"


def test_a_layout_table_names_only_matrices(tmp_path):
    source = (CUSTOM / "matmul_bt.cl").read_text().replace('B = "transposed"', 'D = "transposed"')
    (tmp_path / "bad_layout.cl").write_text(source)
    with pytest.raises(CatalogError, match="D"):
        load_variant_file(tmp_path / "bad_layout.cl")
