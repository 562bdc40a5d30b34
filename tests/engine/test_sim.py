"""Oclgrind's .sim format: the reader, and a .sim file run and traced like any kernel.

The files under tests/kernels/custom/sim are our own, written in the format."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from explorer.description.contents import scalar_array
from explorer.description.declarations import BufferDecl, LocalDecl, ScalarDecl
from explorer.engine.header.catalog import load_variant_file
from explorer.engine.header.sim import SimError, build_options_of, load_sim, parse_sim
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS

SIM = TEST_KERNELS / "custom" / "sim"


def test_every_argument_form_is_read():
    variant = load_sim(SIM / "scaled_copy.sim")
    assert variant.kernel == "scaled_copy"
    assert variant.global_size == ("16",) and variant.local_size == ("8",)
    spec = variant.custom
    assert spec is not None
    decl = {p.name: p for p in spec.params}
    assert decl["in"] == BufferDecl("in", "int", "16", "iota", 0.0, 1.0, access="read")
    assert decl["out"].contents == "constant" and decl["out"].value == -1.0
    assert decl["out"].result and decl["out"].access == "write"
    assert decl["flags"].data[10:12] == (10.0, 11.0)  # hex values
    assert decl["tile"] == LocalDecl("tile", "uchar", "32")
    assert isinstance(decl["weights"], ScalarDecl) and decl["weights"].type == "float4"
    params = decl["params"]
    assert scalar_array(params.type, tuple(map(float, params.value))).nbytes == 12  # a struct
    assert decl["count"].value == ("16",)
    assert isinstance(decl["unused"], BufferDecl) and decl["unused"].null


def test_a_sim_file_opens_like_a_kernel_file():
    assert (
        load_variant_file(SIM / "scaled_copy.sim").custom
        == load_sim(SIM / "scaled_copy.sim").custom
    )


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("scaled_copy.cl\nscaled_copy\n16 1 1\n8 1 1\n<size=64 range=0:1:9>\n", ["line 5", "in"]),
        ("scaled_copy.cl\nscaled_copy\n16 1 1\n8 1 1\n<size=64 bogus>\n", ["'bogus'"]),
        ("scaled_copy.cl\nscaled_copy\n16 1 x\n", ["line 3", "NDRange"]),
        ("scaled_copy.cl\nno_such\n1 1 1\n1 1 1\n", ["no_such"]),
        ("scaled_copy.cl\nscaled_copy\n16 1 1\n8 1 1\n<size=64>\n1 2\n", ["end of file"]),
        ("missing.cl\nk\n1 1 1\n1 1 1\n", ["missing.cl"]),
    ],
)
def test_bad_sim_files_say_where(text, words):
    with pytest.raises(SimError) as caught:
        parse_sim(text, SIM / "probe.sim")
    for word in words:
        assert word in str(caught.value)


def test_sim_file_runs_with_its_arguments(executor):
    variant = load_sim(SIM / "scaled_copy.sim")
    result = executor.run(RunRequest(variant, {}, input="declared", repeat=1))
    assert result.status == "unchecked"
    expected = np.array([7.25 - lid for lid in range(8)] * 2, dtype=np.float32) * 2 + 0.5
    expected[8:] += 16.0
    np.testing.assert_allclose(result.output, expected)


def test_sim_file_traces(executor):
    variant = load_sim(SIM / "scaled_copy.sim")
    traced = executor.trace(
        TraceRequest(RunRequest(variant, {}, input="declared")), keep_trace=True
    )
    assert traced.analysis is not None
    names = {b.name: b for b in traced.trace.buffers}
    assert names["tile"].length * names["tile"].elem_size == 32
    assert names["in"].is_input and not names["out"].is_input


@pytest.mark.usefixtures("fast_cli")
def test_sim_option_on_the_command_line():
    from tests.test_cli import cli

    done = cli("run", "--sim", str(SIM / "scaled_copy.sim"), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "unchecked"
    done = cli("trace", "--sim", str(SIM / "scaled_copy.sim"))
    assert done.returncode == 0, done.stderr
    assert "Trace:" in done.stdout


def test_by_value_arguments_fill_and_range_like_buffers():
    variant = load_sim(SIM / "forms.sim")
    spec = variant.custom
    assert spec is not None
    decl = {p.name: p for p in spec.params}
    assert decl["lanes"] == ScalarDecl("lanes", "int4", ("3",) * 4)
    assert decl["pair"] == ScalarDecl("pair", "int2", ("10", "11"))
    assert decl["gain"] == ScalarDecl("gain", "float", ("4.0",))
    assert decl["mask"] == ScalarDecl("mask", "uchar", ("255",))
    assert decl["taps"].type == "short" and decl["taps"].data == (1.0, -2.0, 3.0, -4.0)
    assert decl["scale"].type == "double" and decl["scale"].value == 0.5
    assert decl["scratch"].contents == "noinit"
    assert decl["out"].type == "long" and decl["out"].result


def test_program_file_folder_ndrange_and_build_options_come_from_the_file():
    variant = load_sim(SIM / "forms.sim")
    assert Path(variant.path) == SIM / "forms.sim"
    assert "__kernel void forms" in variant.source  # read from kernels/forms.cl
    assert variant.global_size == ("4", "2") and variant.local_size == ("2", "2")
    assert variant.build_options == ("-DBIAS=7",)


def test_sim_file_runs_with_its_build_options(executor):
    result = executor.run(RunRequest(load_sim(SIM / "forms.sim"), {}, input="declared", repeat=1))
    assert result.status == "unchecked", result.summary()
    # taps × (3 + 3) + 11, times 0.5 × 4, plus BIAS 7 and the mask's low bit
    np.testing.assert_array_equal(result.output.ravel(), [42, 6, 66, -18] * 2)


@pytest.mark.parametrize(
    ("header", "words"),
    [
        ("<size=4 ro>\n1", ["'ro'", "__global"]),
        ("<size=4 dump>\n1", ["'dump'", "buffer"]),
        ("<size=4 noinit>", ["'noinit'", "buffer"]),
        ("<size=4 fill=1 range=1:1:1>", ["more than one initialiser"]),
    ],
)
def test_oclgrinds_header_rules_hold_for_a_scalar(header, words):
    text = f"scaled_copy.cl\nscaled_copy\n16 1 1\n8 1 1\n{'<size=64 fill=0> ' * 3}<size=32>\n"
    text += "<size=16 fill=0>\n<size=12 float fill=0>\n" + header + "\n<null>\n"
    with pytest.raises(SimError) as caught:
        parse_sim(text, SIM / "probe.sim")
    for word in words:
        assert word in str(caught.value)
    assert "count" in str(caught.value)  # the argument it names


@pytest.mark.parametrize(
    ("header", "words"),
    [
        ("<size=64 ro wo>", ["exclude"]),
        ("<null size=64>", ["'null'"]),
    ],
)
def test_oclgrinds_header_rules_hold_for_a_buffer(header, words):
    text = f"scaled_copy.cl\nscaled_copy\n16 1 1\n8 1 1\n{header}\n"
    with pytest.raises(SimError) as caught:
        parse_sim(text, SIM / "probe.sim")
    for word in words:
        assert word in str(caught.value)


def test_only_the_named_build_options_are_taken_from_args_lines():
    text = "# ARGS: --data-races --build-options -cl-std=CL2.0\n# ARGS: --build-options=-DX=1\n"
    assert build_options_of(text + "k.cl\n") == ("-cl-std=CL2.0", "-DX=1")
    assert build_options_of("# a comment\nk.cl  # ARGS: --build-options -DY=2\n") == ()


def _partial_groups_expected() -> list[int]:
    values = []
    for y in range(3):
        for x in range(5):
            lx, ly = (2 if x < 4 else 1), (2 if y < 2 else 1)
            values.append((y % 2) * lx + x % 2 + 10 * lx + 100 * ly + 1000 * 2 + 10000 * 5)
    return values


def test_non_uniform_work_groups_run_with_the_last_groups_smaller(executor):
    variant = load_sim(SIM / "partial_groups.sim")
    result = executor.run(RunRequest(variant, {}, input="declared", repeat=1))
    assert result.status == "unchecked", result.summary()
    np.testing.assert_array_equal(result.output.ravel(), _partial_groups_expected())
    assert result.global_size == (5, 3) and result.local_size == (2, 2)
    assert "non-uniform work-groups: 5x3 in work-groups of 2x2" in (result.note or "")


def test_non_uniform_work_groups_trace_only_the_work_items_of_the_ndrange(executor):
    variant = load_sim(SIM / "partial_groups.sim")
    traced = executor.trace(
        TraceRequest(RunRequest(variant, {}, input="declared")), keep_trace=True
    )
    assert traced.analysis is not None, traced.result.summary()
    trace = traced.trace
    assert trace.complete and trace.global_size == (5, 3) and trace.num_groups == (3, 2, 1)
    assert trace.wi_count.size == 15  # not the 24 of six whole groups
    sizes = {tuple(g[:2]): 0 for g in trace.wi_group.tolist()}
    for g in trace.wi_group.tolist():
        sizes[tuple(g[:2])] += 1
    assert sizes == {(0, 0): 4, (1, 0): 4, (2, 0): 2, (0, 1): 2, (1, 1): 2, (2, 1): 1}
    assert sorted(trace.index().tolist()) == list(range(15))  # each element once, in bounds
    assert not traced.analysis.findings
    np.testing.assert_array_equal(traced.result.output.ravel(), _partial_groups_expected())


def test_non_uniform_work_groups_with_a_barrier_are_refused_naming_the_device(executor, device):
    text = (SIM / "scaled_copy.sim").read_text().replace("8 1 1", "6 1 1", 1)
    variant = parse_sim(text, SIM / "scaled_copy.sim")
    result = executor.run(RunRequest(variant, {}, input="declared", repeat=1))
    assert result.status == "refused"
    assert device.name in str(result.refused) and "line 11" in str(result.refused)
    traced = executor.trace(TraceRequest(RunRequest(variant, {}, input="declared")))
    assert traced.result.status == "refused"
    result = executor.run(RunRequest(variant, {}, local=(4,), input="declared", repeat=1))
    assert result.status == "unchecked", result.summary()


def test_sim_file_with_build_options_traces(executor):
    variant = load_sim(SIM / "forms.sim")
    traced = executor.trace(
        TraceRequest(RunRequest(variant, {}, input="declared")), keep_trace=True
    )
    assert traced.analysis is not None, traced.result.summary()
    assert {"out", "taps", "scale", "scratch"} <= {b.name for b in traced.trace.buffers}


def test_every_one_of_eighteen_buffers_is_traced(executor):
    traced = executor.trace(
        TraceRequest(RunRequest(load_sim(SIM / "many_buffers.sim"), {}, input="declared")),
        keep_trace=True,
    )
    assert traced.analysis is not None, traced.result.summary()
    assert traced.trace.complete
    names = [b.name for b in traced.trace.buffers]
    assert names == [f"i{k}" for k in range(9)] + [f"o{k}" for k in range(9)]
    written = {names[b] for b in np.unique(traced.trace.buffer) if b >= 0}
    assert written == set(names)
    past_end = [f for f in traced.analysis.findings if f.kind == "out-of-bounds"]
    assert [(f.buffer, f.line, f.count) for f in past_end] == [("o8", 21, 1)]
    assert not [f for f in traced.analysis.findings if f.kind == "not-traced"]


def test_program_scope_variables_are_traced_as_buffers_of_their_own(executor):
    variant = load_sim(SIM / "program_scope.sim")
    traced = executor.trace(
        TraceRequest(RunRequest(variant, {}, input="declared")), keep_trace=True
    )
    assert traced.analysis is not None, traced.result.summary()
    np.testing.assert_array_equal(traced.result.output.ravel(), [110, 212, 114, 216])
    assert traced.trace.complete and not traced.analysis.findings
    names = {b.name: b for b in traced.trace.buffers}
    assert (names["table"].length, names["bias"].length) == (4, 2)
    assert names["table"].is_input and names["bias"].is_input
    assert traced.analysis.loads_per_element["table"]["max"] == 1


def test_a_noinit_buffer_is_not_initialised_and_its_reads_are_found(executor):
    variant = load_sim(SIM / "stale.sim")
    decl = {p.name: p for p in variant.custom.params}
    assert decl["scratch"].contents == "noinit"
    traced = executor.trace(
        TraceRequest(RunRequest(variant, {}, input="declared")), keep_trace=True
    )
    assert traced.analysis is not None, traced.result.summary()
    found = [f for f in traced.analysis.findings if f.kind == "uninitialized"]
    assert [(f.buffer, f.line, f.count) for f in found] == [("scratch", 5, 4)]
    filled = (SIM / "stale.sim").read_text().replace("noinit ro", "fill=3")  # readwrite
    traced = executor.trace(
        TraceRequest(RunRequest(parse_sim(filled, SIM / "stale.sim"), {}, input="declared"))
    )
    assert traced.analysis is not None and not traced.analysis.findings
    np.testing.assert_array_equal(traced.result.output.ravel(), [3, 3, 3, 3])


def test_a_kernel_named_like_a_built_in_is_found_in_its_own_file(executor, device):
    """PoCL's own library takes the name ``shuffle``: the kernel runs and traces as itself."""
    variant = load_variant_file(TEST_KERNELS / "complete" / "shuffle.sim")
    run = RunRequest(variant, {}, device_key=device.key)
    result = executor.run(run)
    assert result.status == "unchecked", result.summary()
    assert result.output.tolist() == list(range(63, -1, -1))
    traced = executor.trace(TraceRequest(run))
    assert traced.analysis is not None and traced.report_json["complete"]


@pytest.mark.parametrize("header", ["<size=512 fill=0.5>", "<size=512 float fill=0.5>"])
def test_an_image_argument_is_refused_saying_the_format_has_none(header):
    """Without a type it asked for one (`<size=12 float>`), which only led to "a image
    argument cannot be given in a .sim file here"."""
    paths = Path(__file__).parents[1] / "trace" / "paths"
    text = f"program6.cl\nthreshold_pairs\n16 8 1\n8 4 1\n{header}\n<size=512 fill=0 dump>\n"
    with pytest.raises(SimError) as caught:
        parse_sim(text + "<size=4>\n0.5\n", paths / "probe.sim")
    message = str(caught.value)
    assert "an image argument cannot be given in a .sim file: the format has none" in message
    assert "argument 0: src" in message
    assert "name one" not in message


def test_an_include_that_climbs_to_a_header_inside_the_folder_is_followed(tmp_path):
    """``kernels/k.cl`` including ``../common.h`` (the .sim file's folder) reads nothing
    outside it: it was refused as outside until --allow-outside; a climb out still is."""
    (tmp_path / "common.h").write_text("#define SCALE 3\n")
    tmp_path = tmp_path / "case"
    (tmp_path / "kernels").mkdir(parents=True)
    (tmp_path / "common.h").write_text("#define SCALE 2\n")
    kernel = "__kernel void k(__global int *out) { out[get_global_id(0)] = SCALE; }\n"
    (tmp_path / "kernels" / "k.cl").write_text('#include "../common.h"\n' + kernel)
    sim = "# ARGS: --build-options -Ikernels\nkernels/k.cl\nk\n4 1 1\n4 1 1\n"
    sim += "<size=16 fill=0 dump>\n"
    (tmp_path / "k.sim").write_text(sim)
    assert load_sim(tmp_path / "k.sim").kernel == "k"
    (tmp_path / "kernels" / "k.cl").write_text('#include "../../common.h"\n' + kernel)
    with pytest.raises(SimError, match=r"includes \.\./\.\./common\.h, outside"):
        load_sim(tmp_path / "k.sim")


def test_a_ulong_or_long_beyond_53_bits_is_run_exactly(executor, tmp_path):
    """ffffffffffffffff for a ulong (in hex or decimal) and a long's largest are values
    their types hold: read through float64, they rounded past them and were refused."""
    (tmp_path / "big.cl").write_text(
        "__kernel void big(__global ulong *out, __global const ulong *in, ulong mask, long s)\n"
        "{ int i = get_global_id(0); out[i] = (in[i] & mask) ^ (ulong)s; }\n"
    )
    (tmp_path / "big.sim").write_text(
        "big.cl\nbig\n2 1 1\n2 1 1\n<size=16 fill=0 dump>\n"
        "<size=16 hex>\nffffffffffffffff 8000000000000001\n"
        "<size=8>\n18446744073709551615\n<size=8>\n9223372036854775807\n"
    )
    variant = load_sim(tmp_path / "big.sim")
    result = executor.run(RunRequest(variant, {}, input="declared", repeat=1))
    assert result.status == "unchecked", result.summary()
    expected = np.array([2**64 - 1, 2**63 + 1], dtype=np.uint64) ^ np.uint64(2**63 - 1)
    np.testing.assert_array_equal(result.output.ravel(), expected)
