"""Properties of the randomized-response survey over its whole input range: every estimate is clean (no NaN, no
warning), ordered and inside [0, 1]; hostile input raises ValueError only."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpcore.ldp import rr_survey as rr

eps_st = st.floats(1e-6, 1e4).map(lambda x: float(x))


@given(n=st.integers(1, 10**6), frac=st.floats(0, 1), eps=eps_st, conf=st.floats(0.5, 0.999))
def test_estimates_are_clean_and_ordered(n, frac, eps, conf):
    yes = round(frac * n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = rr.estimate(yes, n, eps, conf)
        lo, hi = rr.wilson_interval(yes, n, conf)
    assert 0.0 <= e.low <= e.share <= e.high <= 1.0
    assert 0.0 <= lo <= e.observed <= hi <= 1.0
    assert math.isfinite(e.unbiased) or eps < 1e-300
    assert e.std_error >= 0 and not math.isnan(e.std_error)


@given(eps_small=eps_st, eps_big=eps_st, n=st.integers(2, 500), frac=st.floats(0, 1))
def test_more_privacy_means_a_wider_interval(eps_small, eps_big, n, frac):
    """The interval for π is the same Wilson interval stretched by 1/(2p − 1): a smaller ε never narrows it (before
    clipping, and clipping keeps the order of the widths' upper bounds)."""
    lo_eps, hi_eps = sorted((eps_small, eps_big))
    yes = round(frac * n)
    a, b = rr.estimate(yes, n, lo_eps), rr.estimate(yes, n, hi_eps)
    wl, wh = rr.wilson_interval(yes, n)
    assert (wh - wl) / math.tanh(lo_eps / 2) >= (wh - wl) / math.tanh(hi_eps / 2) * (1 - 1e-12)
    assert a.std_error >= b.std_error * (1 - 1e-12)


HOSTILE = [float("nan"), float("inf"), -1.0, 0.0, "1", None, [1.0], True]


@pytest.mark.parametrize("bad", HOSTILE)
def test_hostile_epsilon_raises_value_error(bad):
    for call in (
        lambda: rr.truth_probability(bad),
        lambda: rr.estimate(1, 3, bad),
        lambda: rr.simulate_reports(1, 3, bad, 2, 0),
        lambda: rr.answer_losses(bad),
        lambda: rr.randomize(True, bad, np.random.default_rng(0)),
    ):
        with pytest.raises(ValueError):
            call()


@pytest.mark.parametrize("bad", [float("nan"), -1, 2.5, "3", None, 10**12, True])
def test_hostile_counts_raise_value_error(bad):
    for call in (
        lambda: rr.estimate(bad, 10, 1.0),
        lambda: rr.estimate(1, bad, 1.0),
        lambda: rr.simulate_reports(1, bad, 1.0, 3, 0),
        lambda: rr.simulate_reports(1, 10, 1.0, bad, 0),
    ):
        with pytest.raises(ValueError):
            call()
