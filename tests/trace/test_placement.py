"""Pointing at the line a mistake is on when that line makes no access: a loop bound, a guard,
an early return. The index anatomy names the conditions an access ran under, with the values
they had; "why is this element wrong" follows the last needed input that arrived, or for an
element nobody wrote, the nearest store; a vector read off its alignment is a finding, not a
crash of the trace. Our own small kernels, values worked out by hand."""

from __future__ import annotations

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.explain import (
    anatomy_request,
    explain_anatomy,
    explain_element,
    record_anatomy,
)
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.frontend.anatomy import FAILED, HELD, LOOP, PASSED
from explorer.trace.instrument import static_anatomy
from tests.conftest import TEST_KERNELS

KERNELS = TEST_KERNELS / "placement"


def line_of(variant, text):
    """The source line holding ``text`` (once)."""
    lines = [i + 1 for i, line in enumerate(variant.source.splitlines()) if text in line]
    assert len(lines) == 1, (text, lines)
    return lines[0]


def traced(executor, device, name, **asked):
    variant = load_variant_file(str(KERNELS / name))
    run = RunRequest(variant, {}, device_key=device.key, input="random")
    request = TraceRequest(run, **asked)
    result = executor.trace(request, keep_trace=True)
    assert result.analysis is not None, result.result.summary()
    return variant, request, result


def findings_at(result, kind, line):
    return [f for f in result.report_json["findings"] if f["kind"] == kind and f["line"] == line]


def test_a_loop_one_pass_past_its_bound_names_its_condition(executor, device):
    """``k <= WIDTH`` reads x[15 + 4] = x[19], one past x's 19 elements: the finding's
    anatomy names the loop's condition line with k = 4 = WIDTH, and the guard around it."""
    variant, _, result = traced(executor, device, "window_sums_one_past.cl", anatomy_findings=True)
    read, loop, guard = (line_of(variant, t) for t in ("x[i + k]", "k <= WIDTH;", "if (i < n)"))
    (oob,) = findings_at(result, "out-of-bounds", read)
    anatomy = oob["anatomy"]
    assert anatomy["values_recorded"] is True
    conditions = {c["line"]: c for c in anatomy["conditions"]}
    assert [c["kind"] for c in anatomy["conditions"]] == [HELD, LOOP]  # outermost first
    assert conditions[loop]["text"] == "k <= WIDTH" and conditions[loop]["held"] is True
    values = {t["text"]: t["value"] for t in conditions[loop]["terms"]}
    assert values == {"k": "4", "WIDTH": "4"}
    assert {t["text"]: t["value"] for t in conditions[guard]["terms"]} == {"i": "15", "n": "16"}
    shown = (
        f"under if (i < n) at line {guard} (i = 15, n = 16); loop while (k <= WIDTH) at line "
        f"{loop} (k = 4, WIDTH = 4: k equals WIDTH, which <= lets through and < would not)"
    )
    assert shown in result.report_text  # the line under the finding
    assert shown in " ; ".join(anatomy["chain"]).replace(" ; ", "; ")


def test_an_early_return_that_lets_one_too_many_through_is_named(executor, device):
    """``if (i > n) return;`` keeps work-item 20 of 24: it writes y[20], one past the end;
    its anatomy says the return was not taken, with i = n = 20."""
    variant, _, result = traced(executor, device, "scaled_early_return.cl", anatomy_findings=True)
    write, early = line_of(variant, "y[i] ="), line_of(variant, "if (i > n)")
    (oob,) = [f for f in findings_at(result, "out-of-bounds", write) if f["buffer"] == "y"]
    (condition,) = oob["anatomy"]["conditions"]
    assert (condition["line"], condition["kind"], condition["held"]) == (early, PASSED, False)
    expected = (
        f"past if (i > n) at line {early}, not taken (i = 20, n = 20: i equals n, which > "
        "lets past and >= would not)"
    )
    assert expected in oob["anatomy"]["chain"]
    assert expected in result.report_text


def test_a_vector_read_off_its_alignment_is_a_finding_not_a_crash(executor, device):
    """float4 reads of tile[4 * lid + 1] and x[4 * gid + 2] (4 and 8 bytes past a 16-byte
    boundary): the trace runs to its end and names both lines as misaligned, not out of
    bounds, with the byte offsets the four work-items tried."""
    variant, _, result = traced(executor, device, "shifted_quads.cl")
    assert result.result.status not in ("crashed", "error"), result.result.summary()
    local, read = line_of(variant, "&tile[4 * lid + 1]"), line_of(variant, "&x[4 * gid + 2]")
    kinds = {(f["kind"], f["line"]) for f in result.report_json["findings"]}
    assert {("misaligned", local), ("misaligned", read)} <= kinds
    assert not any(kind == "out-of-bounds" for kind, _ in kinds)
    (tile,) = findings_at(result, "misaligned", local)
    assert tile["buffer"] == "tile" and tile["count"] == 4
    assert (
        "byte offset(s) 4 (tile[1]), 20 (tile[5]), 36 (tile[9]), 52 (tile[13])" in (tile["message"])
    )
    (x,) = findings_at(result, "misaligned", read)
    assert "8 (x[2])" in x["message"] and "vload4" in x["message"]


def test_one_misaligned_offset_reached_by_every_work_item_is_named_alone(executor, device):
    """512 work-items read the float4 at x[1] (4 bytes past a 16-byte boundary), more
    accesses than the examples are taken from: the finding names byte offset 4 alone, with
    no "and others"."""
    variant, _, result = traced(executor, device, "one_shifted_quad.cl")
    (x,) = findings_at(result, "misaligned", line_of(variant, "&x[1]"))
    assert x["count"] == 512
    assert "at byte offset(s) 4 (x[1]), not aligned for it" in x["message"]


def recorder(executor, request, trace):
    def record(lines, groups):
        return executor.call(
            record_anatomy, anatomy_request(request, trace), trace.sites, lines, groups
        )

    return record


def test_needed_inputs_that_never_arrived_show_the_loop_that_stopped(executor, device):
    """``c < rows`` stops each row's sum after 6 of its 10 elements: out[0] lacks m[0, 6:10];
    the last needed input to arrive, m[0, 5], is explained with the loop's condition."""
    variant, request, run = traced(executor, device, "row_sums_short_loop.cl")
    plain = explain_element(run.trace, run.result, variant, "out[0]")
    assert plain.first_offending is None
    explanation = explain_anatomy(
        plain, run.trace, run.anatomy, recorder(executor, request, run.trace)
    )
    last = explanation.last_arrived
    assert last is not None and (last.buffer, last.where) == ("m", (0, 5))
    loop, read = line_of(variant, "c < rows;"), line_of(variant, "m[r * cols + c]")
    load = explanation.anatomy.load
    assert load.recorded and load.line == read
    expected = f"loop while (c < rows) at line {loop} (c = 5, rows = 6)"
    assert expected in load.chains()
    text = explanation.text()
    assert "Never arrived: m[0, 6:10] (4 elements)." in text
    assert (
        "Last needed input of m to arrive, in the order they entered the writing work-item: m[0, 5]"
        in text
    )
    assert f"      {expected}" in text
    shown = explanation.to_json()["last_arrived"]
    assert shown["element"] == [0, 5]
    assert [c["line"] for c in shown["anatomy"]["load"]["conditions"]] == [
        line_of(variant, "if (r >= rows)"),
        loop,
    ]


def test_an_element_nobody_wrote_shows_the_nearest_store_and_its_guard(executor, device):
    """``c >= rows`` sends columns 6 to 9 away: nobody writes out[6]. The nearest element
    written, out[5], is stored by work-item 5, past the return with c = 5 < rows = 6."""
    variant, request, run = traced(executor, device, "column_sums_wrong_guard.cl")
    plain = explain_element(run.trace, run.result, variant, "out[6]")
    assert not plain.provenance.written
    explanation = explain_anatomy(
        plain, run.trace, run.anatomy, recorder(executor, request, run.trace)
    )
    near = explanation.nearest
    store, guard = line_of(variant, "out[c] = s"), line_of(variant, "if (c >= rows)")
    assert near is not None and (near.where, near.line) == ((5,), store)
    written = explanation.anatomy.written
    assert written is not None and written.recorded
    expected = f"past if (c >= rows) at line {guard}, not taken (c = 5, rows = 6)"
    assert expected in written.chains()
    text = explanation.text()
    assert "No work-item wrote out[6]" in text
    assert f"The nearest element written, out[5], was stored at line {store}" in text
    assert "Index anatomy of that store:" in text and expected in text
    shown = explanation.to_json()["nearest_written"]
    assert shown["element"] == [5] and shown["anatomy"]["written"]["line"] == store


STATIC = """
__kernel void k(__global float* a, __global const float* b, int n, int mode)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    if (mode == 0) {
        a[i] = b[i];
    } else {
        a[i] = 2.0f * b[i];
    }
    for (int j = 0; j < 4; j++) {
        if (j == i)
            continue;
        a[i] += b[j];
    }
    switch (mode) {
    case 1:
        if (i == 0)
            break;
        a[i] -= 1.0f;
        break;
    case 2:
        a[i] += 1.0f;
        break;
    }
}
"""


def test_each_access_knows_the_conditions_it_runs_under():
    """The static half, without a device: the branch an access is in (then or else), each
    loop around it, each earlier if that leaves the block (a return, a continue, a break in
    a case), and none of another case's exits."""
    static = static_anatomy(STATIC)
    lines = STATIC.splitlines()

    def line(text, nth=0):
        return [n for n, t in enumerate(lines, 1) if text in t][nth]

    def conditions(at_line, text):
        (access,) = [a for a in static.at_line(at_line) if a.text == text]
        return [
            (static.condition(c).kind, static.condition(c).line, static.condition(c).text)
            for c in access.conditions
        ]

    early = (PASSED, line("i >= n"), "i >= n")
    mode = line("mode == 0")
    assert conditions(line("a[i] = b[i]"), "a[i]") == [early, (HELD, mode, "mode == 0")]
    assert conditions(line("a[i] = 2.0f"), "a[i]") == [early, (FAILED, mode, "mode == 0")]
    loop = (LOOP, line("j < 4"), "j < 4")
    skip = (PASSED, line("j == i"), "j == i")
    assert conditions(line("a[i] += b[j]"), "b[j]") == [early, loop, skip]
    case_exit = (PASSED, line("i == 0"), "i == 0")
    assert conditions(line("a[i] -= 1.0f"), "a[i]") == [early, case_exit]
    assert conditions(line("a[i] += 1.0f"), "a[i]") == [early]  # case 1's exit is not case 2's


def test_the_diff_names_the_barrier_the_reference_passes_and_this_kernel_lacks(executor, device):
    """Without the barrier at line 25, each work-item reads its neighbour's tile element one
    phase sooner than the reference: the diff's first difference names line 25, where the
    reference passes its barrier, and a solution's line stays hidden when told unquoted."""
    reference = load_variant_file(str(KERNELS / "neighbour_sums.cl"))
    variant, _, result = traced(executor, device, "neighbour_sums_no_barrier.cl", against=reference)
    barrier, read = line_of(reference, "barrier("), line_of(variant, "y[get_global_id(0)] =")
    diff = result.against.diff
    first = diff.first
    assert first is not None and first.what == "phase" and first.line == read
    assert (first.barrier_line, first.barrier_in) == (barrier, "reference")
    said = f"the reference passes the barrier at line {barrier} before it, this kernel passes none"
    assert said in first.sentence()
    shown = result.report_json["against"]["diff"]["first"]
    assert (shown["barrier_line"], shown["barrier_in"]) == (barrier, "reference")
    told = first.unquoted("the solution")
    assert told.barrier_line is None and f"line {barrier}" not in told.sentence()


def test_a_helper_pointer_is_followed_back_through_every_call_to_its_definition(executor, device):
    """``p[i]`` at line 23 reads x[16]: its pointer came through six helpers from ``row = x
    + 1``; the chain names every call and that line. The JSON carries the first levels of
    the chain and says where it cut (the executor's messages nest only so deep); the text
    carries all of it."""
    variant, _, result = traced(executor, device, "nested_readers.cl")
    read, start = line_of(variant, "return p[i]"), line_of(variant, "row = x + 1")
    (oob,) = findings_at(result, "out-of-bounds", read)
    (line,) = [t for t in result.report_text.splitlines() if "index of p[i]" in t]
    for helper in ("at", "at1", "at2", "at3", "at4"):
        call = line_of(variant, f"return {helper}(p + 0, i)")
        assert f"p = p + 0 (passed to {helper}()) at line {call}" in line
    assert f"p = row (passed to at5()) at line {line_of(variant, 'at5(row')}" in line
    assert f"(row ← x + 1 at line {start})" in line
    assert line.strip() in "index of p[i]: " + "; ".join(oob["anatomy"]["chain"])

    def cut(node):
        if isinstance(node, dict):
            return node.get("cut") is True or any(cut(v) for v in node.values())
        return isinstance(node, list) and any(cut(v) for v in node)

    assert cut(oob["anatomy"]["terms"])


def test_a_value_from_a_tile_element_nobody_wrote_shows_the_guard_of_its_neighbours(
    executor, device
):
    """The tile is filled while c < rows (6 of 8): y[0, 0] reads t[7], which nothing wrote.
    The explanation names that read, and the store of t[5], the nearest element of the tile
    its group wrote, with the guard its work-item passed: c = 5 < rows = 6."""
    variant, request, run = traced(executor, device, "reversed_rows_short_tile.cl")
    plain = explain_element(run.trace, run.result, variant, "y[0,0]")
    explanation = explain_anatomy(
        plain, run.trace, run.anatomy, recorder(executor, request, run.trace)
    )
    read, store, guard = (line_of(variant, t) for t in ("t[cols - 1 - c]", "t[c] =", "(c < rows)"))
    unread, near = explanation.unwritten_read, explanation.nearest
    assert unread is not None and (unread.element_text, unread.line) == ("t[7]", read)
    assert near is not None and (near.element_text, near.line) == ("t[5]", store)
    assert near.work_item == (0, 0, 0, 5, 0, 0)
    expected = f"under if (c < rows) at line {guard} (c = 5, rows = 6)"
    assert expected in explanation.anatomy.written.chains()
    text = explanation.text()
    assert f"It read t[7] at line {read} before anything wrote it." in text
    assert expected in text
    shown = explanation.to_json()
    assert shown["unwritten_read"]["element"] == [7]
    assert shown["nearest_written"]["anatomy"]["written"]["line"] == store


def test_a_pointer_defined_in_a_loop_shows_the_pass_of_the_access(executor, device):
    """``row = m + y * cols`` records no value of its own (a pointer): the y its anatomy
    shows is the one of the pass that made the access (0, then 2), not the next pass's."""
    variant, _, result = traced(
        executor,
        device,
        "strided_rows.cl",
        anatomy_lines=(line_of(variant_of("strided_rows.cl"), "row[c]"),),
        anatomy_work_item=(0, 0, 0, 0, 0, 0),
    )
    read, pointer = line_of(variant, "row[c]"), line_of(variant, "row = m + y * cols")
    trace, anatomy = result.trace, result.anatomy
    for occurrence, y in ((0, "0"), (1, "2"), (2, "4")):
        (load,) = [e for e in anatomy.explain_at(trace, read, 0, occurrence) if e.text == "row[c]"]
        row = next(t for t in load.terms if t.text == "row")
        (defined,) = row.definitions
        assert defined.line == pointer and defined.ran
        assert {t.text: t.value for t in defined.terms}["y"] == y, load.chains()


def variant_of(name):
    return load_variant_file(str(KERNELS / name))
