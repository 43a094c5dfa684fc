import math

import numpy as np
import pytest

from dpcore import _validate as v


@pytest.mark.parametrize("bad", [-1, 0, math.nan, math.inf, "abc", None, True, [1.0]])
def test_positive_rejects_with_name_and_range(bad):
    with pytest.raises(ValueError, match=r"epsilon must .*\(0, inf\)|epsilon must be a real number"):
        v.positive("epsilon", bad)


def test_positive_accepts_numpy_scalars_and_returns_float():
    assert v.positive("x", np.float32(2.5)) == 2.5
    assert isinstance(v.positive("x", np.int64(3)), float)
    assert v.positive("x", np.array(1.5)) == 1.5


def test_infinite_end_is_attainable_when_allowed():
    assert v.nonnegative("epsilon", math.inf, allow_inf=True) == math.inf
    with pytest.raises(ValueError, match=r"epsilon must be in \[0, inf\]"):
        v.nonnegative("epsilon", -1.0, allow_inf=True)


def test_probability_open_ends():
    assert v.probability("delta", 0.0) == 0.0
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\)"):
        v.probability("delta", 0.0, low_open=True, high_open=True)
    with pytest.raises(ValueError, match="delta"):
        v.probability("delta", 1.5)


@pytest.mark.parametrize("bad", [2.5, "3", math.nan, True, -1])
def test_integer(bad):
    with pytest.raises(ValueError, match="compositions"):
        v.integer("compositions", bad, low=1)


def test_integer_accepts_integral_floats():
    assert v.integer("T", 4.0, low=1) == 4


def test_real_array_rejects_nan_and_out_of_range():
    with pytest.raises(ValueError, match="x must not contain nan"):
        v.real_array("x", [1.0, math.nan])
    with pytest.raises(ValueError, match=r"x must lie in \[0, 1\]"):
        v.real_array("x", [0.5, 2.0], low=0, high=1)
    with pytest.raises(ValueError, match="x must be real numbers"):
        v.real_array("x", ["a"])
    assert v.real_array("x", [-math.inf, 0.0]).shape == (2,)


def test_choice_lists_options():
    with pytest.raises(ValueError, match="method must be one of 'a', 'b'; got 'c'"):
        v.choice("method", "c", ("a", "b"))


def test_rng_sources():
    g = np.random.default_rng(1)
    assert v.rng(g) is g
    assert v.rng(7).integers(1 << 30) == np.random.default_rng(7).integers(1 << 30)
    with pytest.raises(ValueError, match="rng"):
        v.rng(-3)
