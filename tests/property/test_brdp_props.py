"""Property tests (hypothesis) for dpcore.brdp: ranges, monotonicity, invariants."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore import brdp

kernels = st.sampled_from(["gaussian", "laplace"])
scales = st.floats(0.05, 20.0)
thetas = st.floats(0.05, 10.0)
qs = st.floats(0.0, 1.0)
sens = st.floats(0.05, 10.0)
epss = st.floats(0.05, 6.0)
deltas = st.sampled_from([1e-2, 1e-3, 1e-5, 1e-8])
FAST = settings(max_examples=60, deadline=None)
SLOW = settings(max_examples=25, deadline=None)


@FAST
@given(kernels, scales, thetas, qs, qs)
def test_acceptance_range_and_monotone(kernel, s, th, q1, q2):
    lo, hi = sorted((q1, q2))
    a1 = brdp.acceptance_rate(kernel=kernel, scale=s, theta=th, q=lo)
    a2 = brdp.acceptance_rate(kernel=kernel, scale=s, theta=th, q=hi)
    p = brdp.success_probability(kernel=kernel, scale=s, theta=th)
    assert p - 1e-15 <= a1 <= a2 + 1e-15 <= 1 + 1e-15
    assert brdp.expected_draws(kernel=kernel, scale=s, theta=th, q=hi) >= 1.0


@FAST
@given(kernels, scales, thetas, qs)
def test_output_cdf_is_a_cdf(kernel, s, th, q):
    x = np.linspace(-5 * s - th, 5 * s + th, 101)
    f = brdp.output_cdf(x, kernel=kernel, scale=s, theta=th, q=q)
    assert np.all(np.diff(f) >= -1e-14) and f.min() >= 0 and f.max() <= 1
    assert (
        brdp.output_cdf(0.0, kernel=kernel, scale=s, theta=th, q=q) == np.float64(0.5)
        or abs(brdp.output_cdf(0.0, kernel=kernel, scale=s, theta=th, q=q) - 0.5) < 1e-12
    )


@FAST
@given(kernels, scales, thetas, sens)
def test_w_bounds(kernel, s, th, d):
    w = brdp.paper_w(kernel=kernel, scale=s, theta=th, sensitivity=d)
    p = brdp.success_probability(kernel=kernel, scale=s, theta=th)
    assert 0 <= w <= p + 1e-15


@FAST
@given(kernels, scales, thetas, sens, qs, qs)
def test_paper_delta_monotone(kernel, s, th, d, q1, q2):
    lo, hi = sorted((q1, q2))
    eps = np.linspace(-2, 4, 13)
    d1 = brdp.paper_delta(eps, kernel=kernel, scale=s, theta=th, q=lo, sensitivity=d)
    d2 = brdp.paper_delta(eps, kernel=kernel, scale=s, theta=th, q=hi, sensitivity=d)
    assert np.all(d1 <= d2 + 1e-14)  # nondecreasing in q (Alg. 1 bisection is valid)
    assert np.all(np.diff(d2) <= 1e-14)  # nonincreasing in eps


@FAST
@given(kernels, scales, thetas, sens, qs)
def test_exact_delta_profile(kernel, s, th, d, q):
    eps = np.linspace(-2, 4, 13)
    v = brdp.exact_delta(eps, kernel=kernel, scale=s, theta=th, q=q, sensitivity=d, shifts=20)
    assert np.all((v >= 0) & (v <= 1))
    assert np.all(np.diff(v) <= 1e-12)
    assert np.all(v >= -np.expm1(eps) - 1e-12)  # H_{e^eps} >= 1 - e^eps for any pair of laws


@SLOW
@given(kernels, epss, st.floats(0.05, 1.0), deltas, sens, thetas)
def test_alg1_feasible_and_above_baseline(kernel, eps, frac, delta, d, th):
    ey = frac * eps
    q = brdp.paper_q(epsilon=eps, delta=delta, epsilon_y=ey, sensitivity=d, theta=th, kernel=kernel)
    s = brdp.kernel_scale(ey, delta, sensitivity=d, kernel=kernel)
    assert brdp.paper_delta(eps, kernel=kernel, scale=s, theta=th, q=q, sensitivity=d) <= delta * (1 + 1e-9)
    assert q >= brdp.baseline_q(eps, ey) - 1e-9


@SLOW
@given(kernels, epss, deltas, sens, thetas)
def test_prop4_paper_optimum_at_least_dp(kernel, eps, delta, d, th):
    pl = brdp.optimize(epsilon=eps, delta=delta, sensitivity=d, theta=th, kernel=kernel, accountant="paper")
    assert pl.acceptance >= pl.dp_acceptance - 1e-6
    assert pl.paper_delta <= delta * (1 + 1e-9)
    assert 0 < pl.epsilon_y <= eps


@FAST
@given(st.floats(0.0, 8.0), st.floats(1e-10, 1e-2), st.floats(0.02, 1.0))
def test_thm4_round_trip_and_amplifies(eps, delta, p):
    e1, d1 = brdp.amplify(eps, delta, rate=p)
    assert e1 <= eps + 1e-12 and d1 <= delta
    e2, d2 = brdp.deamplify(e1, d1, rate=p)
    assert math.isclose(e2, eps, rel_tol=1e-9, abs_tol=1e-12) and math.isclose(d2, delta, rel_tol=1e-12)


@FAST
@given(
    st.sampled_from(["sum", "average", "count"]), st.floats(0.01, 0.99), st.floats(0.01, 0.99), st.integers(1, 10**6)
)
def test_sampling_error_decreases_with_rate(query, p1, p2, n):
    lo, hi = sorted((p1, p2))
    a = brdp.sampling_error_std(query, rate=lo, n_records=n, sigma_x=3.0, p_c=0.2)
    b = brdp.sampling_error_std(query, rate=hi, n_records=n, sigma_x=3.0, p_c=0.2)
    assert b <= a + 1e-12


@FAST
@given(kernels, scales, thetas, st.integers(0, 2**31))
def test_hard_bound_sampler_stays_in_band(kernel, s, th, seed):
    y = brdp.sample_outputs(500, kernel=kernel, scale=s, theta=th, q=1.0, center=2.0, rng=seed)
    assert np.all(np.abs(y - 2.0) <= th * (1 + 1e-12))


@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(kernels, st.floats(0.1, 4.0), deltas, st.floats(0.2, 5.0), st.floats(0.2, 5.0))
def test_exact_optimizer_sound_and_beats_dp(kernel, eps, delta, d, th):
    pl = brdp.optimize(epsilon=eps, delta=delta, sensitivity=d, theta=th, kernel=kernel, accountant="exact")
    assert pl.exact_delta <= delta and pl.sound  # no tolerance: the reported δ meets the target itself
    assert pl.acceptance >= pl.dp_acceptance - 1e-9
    # an independent check of the final plan on a finer shift grid
    fine = brdp.exact_delta(eps, kernel=kernel, scale=pl.scale, theta=th, q=pl.q, sensitivity=d, shifts=1000)
    assert fine <= delta * (1 + 1e-6)
