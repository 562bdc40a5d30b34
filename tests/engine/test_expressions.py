import pytest

from explorer.description.expressions import ExpressionError, evaluate, names_in


def test_integer_arithmetic_follows_c_division():
    assert evaluate("N / TS", {"N": 100, "TS": 16}) == 6
    assert evaluate("cdiv(N, TS)", {"N": 100, "TS": 16}) == 7
    assert evaluate("round_up(N, 16)", {"N": 100}) == 112
    assert evaluate("2 * COMPUTE_UNITS * L0", {"COMPUTE_UNITS": 132, "L0": 256}) == 67584


def test_constraints_evaluate_to_truth_values():
    assert evaluate("K % TS == 0", {"K": 64, "TS": 16}) == 1
    assert evaluate("K % TS == 0", {"K": 65, "TS": 16}) == 0
    assert evaluate("is_pow2(L0) and L0 <= 512", {"L0": 256}) == 1
    assert evaluate("is_pow2(L0) and L0 <= 512", {"L0": 96}) == 0


def test_unknown_names_and_code_are_refused():
    with pytest.raises(ExpressionError, match="unknown name 'Q'"):
        evaluate("Q + 1", {"N": 1})
    with pytest.raises(ExpressionError):
        evaluate("__import__('os').system('true')", {})
    with pytest.raises(ExpressionError):
        evaluate("N.real", {"N": 1})
    with pytest.raises(ExpressionError, match="division by zero"):
        evaluate("N / 0", {"N": 1})


def test_names_in_lists_variables_not_functions():
    assert names_in("cdiv(N, WPT) * L0") == {"N", "WPT", "L0"}
