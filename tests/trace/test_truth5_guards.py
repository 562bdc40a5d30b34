"""The guard an out-of-bounds finding proposes must be C that means what it says: an index
holding a comparison (``(i > 1) * 2``, ``- (i == 0)``) is bounded as a whole, its
parentheses kept, never taken apart into a "row" of truth values."""

from __future__ import annotations

from explorer.trace.analysis.guards import guard
from explorer.trace.recorded import GLOBAL, BufferInfo

SRC = BufferInfo("src", None, GLOBAL, 4, 64)


def test_an_index_with_comparisons_is_guarded_as_a_whole_with_its_parentheses():
    """src[i - 2 + (i > 1) * 2 - (i == 0)] reached src[-3] and src[-1] (i = 0, 1): the guard
    must be false exactly there, not `-1 + i > 1 >= 0`, which always holds."""
    text = "src[i - 2 + (i > 1) * 2 - (i == 0)]"
    proposed = guard(text, SRC, {}, -3, 61)
    assert proposed == "if (i - 2 + (i > 1) * 2 >= (i == 0))"
    # That test, as C reads it, keeps i = 2..63 and refuses i = 0 and 1.
    assert [i for i in range(64) if i - 2 + (i > 1) * 2 >= (i == 0)] == list(range(2, 64))


def test_a_negated_comparison_keeps_its_parentheses_before_the_bound():
    """src[c ? i : i - 1] past the end: the conditional is the operand of `<`, in parentheses."""
    proposed = guard("src[c ? i + 1 : i]", SRC, {}, 0, 64)
    assert proposed == "if ((c ? i + 1 : i) < 64)"
