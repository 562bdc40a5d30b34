"""The trace diff: two kernels traced at one launch, the first access where one parts from
the other (known answers from small kernels whose lines we know)."""

from pathlib import Path

import pytest

from explorer.engine.header.catalog import find_variant, load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.diff import LaunchMismatch, diff_traces

KERNELS = Path(__file__).parent / "diff"
ROWS = {"WIDTH": 8, "HEIGHT": 8}


def line_of(variant, text):
    """The 1-based line of the kernel's file that holds ``text`` (once)."""
    found = [i + 1 for i, line in enumerate(variant.source.splitlines()) if text in line]
    assert len(found) == 1, found
    return found[0]


@pytest.fixture(scope="module")
def traces(executor, device):
    """Each test kernel's trace at one launch, made once."""
    made = {}

    def trace(name, sizes=ROWS, local=None):
        key = (name, tuple(sorted(sizes.items())), local)
        if key not in made:
            variant = load_variant_file(KERNELS / f"{name}.cl")
            run = RunRequest(variant, sizes, local=local, device_key=device.key, input="random")
            traced = executor.trace(TraceRequest(run), keep_trace=True)
            assert traced.trace is not None, traced.result.summary()
            made[key] = (variant, traced.trace)
        return made[key]

    return trace


def test_a_kernel_against_itself_is_identical(traces):
    for name in ("rows", "reduce"):
        _, trace = traces(name)
        diff = diff_traces(trace, trace)
        assert diff.identical and diff.first is None and diff.first_per_group == ()
        assert diff.work_items_differing == 0 and diff.work_items_compared == trace.kept.size
        assert all(b.same and b.loads_here == b.loads_reference for b in diff.buffers)
        assert diff.text().startswith("Identical")


def test_a_swapped_index_is_found_at_its_line(traces):
    mine, swapped = traces("rows_swapped")
    _, right = traces("rows")
    first = diff_traces(swapped, right).first
    assert first is not None and first.what == "element"
    assert first.line == line_of(mine, "MAT[x * width + y]")
    # work-item 1 reads MAT[1] first, where the right kernel reads its own row: MAT[8]
    assert (first.group, first.local, first.position) == ((0, 0, 0), (1, 0, 0), 0)
    assert (first.mine.buffer, first.mine.element) == ("MAT", 1)
    assert (first.reference.buffer, first.reference.element) == ("MAT", 8)


def test_a_missing_barrier_is_found_at_the_first_access_it_should_order(traces):
    mine, broken = traces("reduce_no_barrier")
    _, right = traces("reduce")
    diff = diff_traces(broken, right)
    first = diff.first
    assert first is not None and first.what == "phase"
    assert first.line == line_of(mine, "part[l] += part[l + s]")
    # the same element, one barrier sooner
    assert (first.mine.phase, first.reference.phase) == (0, 1)
    assert first.mine.element == first.reference.element == 4
    assert len(diff.first_per_group) == diff.groups_compared == 8
    assert {d.line for d in diff.first_per_group} == {first.line}


def test_another_value_written_at_the_same_element_is_a_difference(traces):
    mine, doubled = traces("rows_doubled")
    _, right = traces("rows")
    first = diff_traces(doubled, right).first
    assert first is not None and first.what == "value"
    assert first.line == line_of(mine, "OUT[y] = sum")
    assert first.mine.value == pytest.approx(2 * first.reference.value, rel=1e-6)
    assert diff_traces(doubled, right, values=False).identical


def test_a_short_loop_reads_elements_only_the_reference_reads(traces):
    mine, short = traces("rows_short")
    _, right = traces("rows")
    diff = diff_traces(short, right)
    assert diff.first is not None and diff.first.what == "operation"
    assert diff.first.line == line_of(mine, "OUT[y] = sum")
    assert (diff.first.mine.op, diff.first.reference.op) == ("write", "read")
    mat = next(b for b in diff.buffers if b.buffer == "MAT")
    assert mat.read_only_reference.count == ROWS["HEIGHT"]  # the last column of each row
    assert mat.read_only_reference.examples == (7, 15, 23, 31)
    assert mat.read_only_here.count == 0
    assert (mat.loads_here["min"], mat.loads_reference["min"]) == (0, 1)


def test_another_launch_shape_is_refused_with_what_differs(traces):
    _, halves = traces("rows_halves")
    _, rows = traces("rows")
    with pytest.raises(LaunchMismatch, match="the NDRange differs: 16 here, 8 in the reference"):
        diff_traces(halves, rows)


@pytest.mark.parametrize(
    ("local", "line", "here", "there"),
    [
        (64, 56, 16, 16),  # p[16] in the phase of p[32]; Coalesced2 reads it after a barrier
        (256, 55, 32, 128),  # p[32] where Coalesced2's first step adds element 128
    ],
)
def test_coalesced3_against_coalesced2_points_at_the_reduction(
    executor, device, local, line, here, there
):
    """Seed 002: the warp-synchronous reduction parts from the barrier-per-step tree at its
    own p[0] += p[...] lines, in every work-group; traced together through the engine."""
    mine = find_variant("matvec", "nvidia-coalesced3")
    run = RunRequest(mine, {"WIDTH": 200, "HEIGHT": 4}, local=(local,), device_key=device.key)
    request = TraceRequest(run, against=find_variant("matvec", "nvidia-coalesced2"))
    traced = executor.trace(request)
    against = traced.against
    assert against is not None and against.diff is not None, against and against.refused
    reduction = {i + 1 for i, t in enumerate(mine.source.splitlines()) if "p[0] += p[" in t}
    diff = against.diff
    assert diff.first is not None and diff.first.line == line and line in reduction
    assert (diff.first.local, diff.first.mine.element, diff.first.reference.element) == (
        (0, 0, 0),
        here,
        there,
    )
    assert diff.groups_differing == 4
    assert {d.line for d in diff.first_per_group} <= reduction
    found = [f for f in traced.analysis.findings if f.kind == "differs"]
    assert len(found) == 4 and {f.line for f in found} <= reduction
    assert against.to_json()["diff"]["first"]["line"] == diff.first.line


def test_findings_name_the_first_64_differing_work_groups_and_the_diff_all(traces):
    from explorer.trace.analysis import analyse

    sizes = {"WIDTH": 8, "HEIGHT": 272}  # 68 work-groups of 4, each reading by column
    _, swapped = traces("rows_swapped", sizes)
    _, right = traces("rows", sizes)
    diff = diff_traces(swapped, right)
    assert diff.groups_differing == len(diff.first_per_group) == 68
    found = [f for f in analyse(swapped, diff=diff).findings if f.kind == "differs"]
    assert len(found) == 64
    assert [f.work_items[0][:3] for f in found] == [d.group for d in diff.first_per_group[:64]]
