"""Properties of the accountant over random parameters (hypothesis): ranges, monotonicity, stability."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcore
from dpcore import accounting as acc

sigmas = st.floats(0.05, 100.0)
sens = st.floats(0.1, 10.0)
eps_lists = st.lists(st.floats(-50.0, 50.0), min_size=2, max_size=30)


@given(eps=eps_lists, sigma=sigmas, d=sens, t=st.integers(1, 10_000))
def test_gaussian_profile_in_unit_interval_and_nonincreasing(eps, sigma, d, t):
    e = np.sort(np.array(eps))
    delta = dpcore.gaussian_delta(e, sigma=sigma, sensitivity=d, compositions=t)
    assert np.all((delta >= 0) & (delta <= 1))
    assert np.all(np.diff(delta) <= 1e-15)


@given(eps=eps_lists, b=st.floats(0.05, 50.0), d=sens)
def test_laplace_profile_in_unit_interval_and_nonincreasing(eps, b, d):
    e = np.sort(np.array(eps))
    delta = dpcore.laplace_delta(e, scale=b, sensitivity=d)
    assert np.all((delta >= 0) & (delta <= 1))
    assert np.all(np.diff(delta) <= 1e-15)


@settings(max_examples=15)
@given(eps=eps_lists, b=st.floats(0.2, 20.0), t=st.integers(2, 30))
def test_composed_laplace_profile_in_unit_interval_and_nonincreasing(eps, b, t):
    e = np.sort(np.array(eps))
    delta = dpcore.laplace_delta(e, scale=b, compositions=t)
    assert np.all((delta >= 0) & (delta <= 1))
    assert np.all(np.diff(delta) <= 1e-12)


@given(eps=st.floats(1e-3, 50.0), log10_delta=st.floats(-300.0, -0.5), d=sens)
def test_analytic_sigma_is_valid_and_stable(eps, log10_delta, d):
    delta = 10.0**log10_delta
    s = dpcore.gaussian_sigma(eps, delta, sensitivity=d)
    assert math.isfinite(s) and s > 0
    assert dpcore.gaussian_delta(eps, sigma=s, sensitivity=d) <= delta * (1 + 1e-9)


@given(log10_delta=st.floats(-300.0, -0.01), sigma=sigmas, t=st.integers(1, 10_000))
def test_gaussian_epsilon_finite_and_sound(log10_delta, sigma, t):
    delta = 10.0**log10_delta
    e = dpcore.gaussian_epsilon(delta, sigma=sigma, compositions=t)
    assert math.isfinite(e)
    assert dpcore.gaussian_delta(e, sigma=sigma, compositions=t) <= delta * (1 + 1e-9)


@given(eps=st.floats(1e-3, 50.0), log10_delta=st.floats(-300.0, -0.01))
def test_laplace_scale_positive_and_zcdp_round_trip(eps, log10_delta):
    delta = 10.0**log10_delta
    b = dpcore.laplace_scale(eps, delta=delta)
    assert math.isfinite(b) and 0 < b <= math.nextafter(1 / eps, math.inf)  # b ≤ Δ/ε exactly, rounded up
    rho = dpcore.dp_to_zcdp(eps, delta)
    assert rho >= 0 and math.isclose(dpcore.zcdp_to_dp(rho, delta), eps, rel_tol=1e-9)


@given(p=st.floats(0.0, 1.0), e1=st.floats(0.0, 50.0), e2=st.floats(0.0, 50.0))
def test_posterior_bound_between_prior_and_one_and_monotone(p, e1, e2):
    lo, hi = sorted((e1, e2))
    a, b = dpcore.posterior_bound(p, lo), dpcore.posterior_bound(p, hi)
    assert p - 1e-15 <= a <= b + 1e-15 <= 1 + 1e-15


rhos = st.floats(1e-8, 100.0)
log10_deltas = st.floats(-300.0, -0.01)


@given(rho=rhos, log10_delta=log10_deltas)
def test_tight_zcdp_round_trip_and_sound_side(rho, log10_delta):
    delta = 10.0**log10_delta
    eps = dpcore.zcdp_to_dp(rho, delta)
    assert math.isfinite(eps) and eps >= 0
    if eps > 0:
        back = dpcore.dp_to_zcdp(eps, delta)
        assert math.isclose(back, rho, rel_tol=1e-9)
        assert dpcore.zcdp_to_dp(back, delta) <= eps


@given(r1=rhos, r2=rhos, log10_delta=log10_deltas)
def test_tight_zcdp_monotone_in_rho_and_below_bun_steinke(r1, r2, log10_delta):
    delta = 10.0**log10_delta
    lo, hi = sorted((r1, r2))
    e_lo, e_hi = dpcore.zcdp_to_dp(lo, delta), dpcore.zcdp_to_dp(hi, delta)
    assert e_lo <= e_hi * (1 + 1e-12)
    assert e_hi <= acc.zcdp_to_dp_bun_steinke(hi, delta) * (1 + 1e-12)
    assert dpcore.dp_to_zcdp(e_hi, delta) >= acc.dp_to_zcdp_bun_steinke(e_hi, delta) * (1 - 1e-12)


@given(rho=rhos, l1=log10_deltas, l2=log10_deltas)
def test_tight_zcdp_epsilon_falls_as_delta_grows(rho, l1, l2):
    lo, hi = sorted((l1, l2))
    assert dpcore.zcdp_to_dp(rho, 10.0**hi) <= dpcore.zcdp_to_dp(rho, 10.0**lo) * (1 + 1e-12)


@given(rho=st.lists(rhos, min_size=1, max_size=20), log10_delta=log10_deltas)
def test_tight_zcdp_vectorised_equals_scalar(rho, log10_delta):
    delta = 10.0**log10_delta
    vec = np.atleast_1d(dpcore.zcdp_to_dp(np.array(rho), delta))
    np.testing.assert_allclose(vec, [dpcore.zcdp_to_dp(r, delta) for r in rho], rtol=1e-14)
