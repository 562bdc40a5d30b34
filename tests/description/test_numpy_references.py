"""A reference is numpy as people write it (``np.pad``, ``x.reshape(H, W)``, ``x.sum(axis=1)``),
and what it does not support is one sentence that names it, the same before anything is
computed (the open-kernel dialog, as it is typed) and at run time."""

import numpy as np
import pytest

from explorer.description.expressions import ExpressionError, evaluate
from explorer.description.numpy_expressions import check_expression, evaluate_reference

RNG = np.random.default_rng(7)
IMAGE = RNG.random((6, 5))
VALUES = RNG.random(12)
NAMES = {"src": IMAGE, "x": VALUES, "in": VALUES, "height": 6, "width": 5, "n": 12, "L0": 4}

SAME = [
    ("np.pad(src, 1, mode='edge')[1:-1, 1:-1]", IMAGE),
    ("numpy.pad(src, ((1, 1), (2, 2)))[1:-1, 2:-2]", IMAGE),
    ("x.reshape(3, 4).sum(axis=1)", VALUES.reshape(3, 4).sum(axis=1)),
    ("x.reshape((3, 4)).T.ravel()", VALUES.reshape(3, 4).T.ravel()),
    ("in.reshape(n // L0, L0).sum(axis=1)", VALUES.reshape(3, 4).sum(axis=1)),
    ("np.sum(np.reshape(x, (3, 4)), axis=0)", VALUES.reshape(3, 4).sum(axis=0)),
    ("x[:, np.newaxis].squeeze() * np.pi", VALUES * np.pi),
    ("src.transpose(1, 0).flatten()", IMAGE.T.ravel()),
    ("x.astype(np.float32).astype(float)", VALUES.astype(np.float32)),
    ("np.zeros(x.shape) + x.size + src.ndim", np.zeros(12) + 14),
    ("src[..., 0]", IMAGE[:, 0]),
    (
        "x.clip(0.25, 0.75).max(axis=0, keepdims=True)",
        np.clip(VALUES, 0.25, 0.75).max(keepdims=True),
    ),
]


@pytest.mark.parametrize(("expression", "expected"), SAME, ids=[e for e, _ in SAME])
def test_numpy_as_people_write_it(expression, expected):
    assert check_expression(expression, NAMES) is None
    value, magnitude = evaluate_reference(expression, NAMES)
    np.testing.assert_allclose(value, expected)
    assert (magnitude >= np.abs(value)).all()


REFUSED = [
    ("np.fft.fft(x)", "'np.fft.fft(x)': np.fft.fft() is not a numpy function a reference may"),
    ("np.linalg.inv(src)", "np.linalg.inv() is not a numpy function"),
    ("x.view(int)", "'x.view(int)': the method .view() is not supported"),
    ("x.__class__", "'x.__class__': the attribute .__class__ is not supported"),
    ("np.random", "'np.random': np.random is not a numpy name a reference knows"),
    ("sum(x, out=x)", "'sum(x, out=x)': the keyword out= is not supported"),
    ("open(x)", "'open(x)': open() is not a function a reference may call"),
    ("x and src", "'x and src': 'and' and 'or' are not supported"),
    ("not x", "'not' is not supported"),
    ("0 < x < 1", "a chained comparison is not supported: write (a < b) & (b < c)"),
    ("sum([v * 2 for v in x])", "'[v * 2 for v in x]': a comprehension is not supported"),
    ("(lambda: x)()", "'lambda: x': a lambda is not supported"),
    ("x[0]()", "'x[0]()': only numpy's functions may be called"),
    ("{1: x}", "a dict is not supported"),
    ("x[(y := 1)]", "an assignment (:=) is not supported"),
    ("q + 1", "'q + 1' names 'q', which is not a buffer, scalar or size of the kernel"),
    ("x +", "cannot parse expression 'x +'"),
    ("in.view(int) + 1", "'in.view(int)': the method .view() is not supported"),
]


@pytest.mark.parametrize(("expression", "sentence"), REFUSED, ids=[e for e, _ in REFUSED])
def test_what_is_not_supported_is_one_sentence_naming_it(expression, sentence):
    # a buffer named ``in`` makes ``in`` a name: only where the reference uses it so
    names = NAMES if "in." in expression else {k: v for k, v in NAMES.items() if k != "in"}
    said = check_expression(expression, names)
    assert said is not None and sentence in said
    with pytest.raises(ExpressionError) as raised:
        evaluate_reference(expression, names)
    assert str(raised.value) == said  # the same before and at run time
    for dump in ("Call(", "Attribute(", "Name(", "ctx=", "Load()"):
        assert dump not in said
    assert said.count(". ") == 0  # one sentence


def test_a_size_expression_names_what_it_does_not_support():
    with pytest.raises(ExpressionError) as raised:
        evaluate("N.real * 2", {"N": 4})
    said = str(raised.value)
    assert said.startswith("'N.real * 2': 'N.real' is not supported in a size expression")
    assert "Attribute(" not in said
