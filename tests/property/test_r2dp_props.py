"""Hypothesis properties of dpcore.r2dp: the universal cap U(γ) <= γ e^{ε-1}/Δq, Thm 4.2 (necessary condition),
scale invariance, ε strictly increasing in a scale factor on u (Cor. 3.3), the privacy-loss profile (Thm 3.2),
ranges and monotonicity."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dpcore import r2dp

SETTINGS = settings(max_examples=60, deadline=None)

pos = st.floats(min_value=-3.0, max_value=3.0).map(math.exp)  # log-uniform-ish positive numbers


@st.composite
def laws(draw):
    kind = draw(st.sampled_from(["dirac", "two", "gamma", "uniform", "tn", "comb"]))
    if kind == "dirac":
        return r2dp.Dirac(draw(pos))
    if kind == "two":
        return r2dp.TwoPoint(draw(pos), draw(pos), draw(st.floats(0.0, 1.0)))
    if kind == "gamma":
        return r2dp.Gamma(draw(pos), draw(pos))
    if kind == "uniform":
        a = draw(st.floats(0.0, 5.0))
        return r2dp.Uniform(a, a + draw(pos))
    if kind == "tn":
        return r2dp.TruncatedNormal(draw(st.floats(-20.0, 10.0)), draw(pos), draw(st.floats(0.0, 3.0)))
    return r2dp.Combination(
        (
            r2dp.Gamma(draw(pos), draw(pos)),
            r2dp.TruncatedNormal(draw(st.floats(-5.0, 5.0)), draw(pos), draw(st.floats(0.0, 2.0))),
        )
    )


dqs = st.floats(min_value=0.1, max_value=5.0)
gammas = st.floats(min_value=0.01, max_value=5.0)


@SETTINGS
@given(law=laws(), dq=dqs, gamma=gammas)
def test_universal_cap(law, dq, gamma):
    # U(γ) <= γ e^{ε-1}/Δq for every ε-DP R²DP-Laplace mechanism (and <= 1)
    eps = r2dp.epsilon(law, sensitivity=dq)
    u = float(r2dp.usefulness(law, gamma=gamma))
    assert 0.0 <= u <= 1.0
    assert eps >= 0.0
    assume(0 < eps < 700)
    assert u <= gamma * math.exp(eps - 1.0) / dq * (1 + 1e-9) + 1e-15
    assert u <= r2dp.staircase_usefulness(eps, gamma=gamma, sensitivity=dq) + 1e-9


@SETTINGS
@given(law=laws(), dq=dqs, gamma=gammas)
def test_theorem_4_2(law, dq, gamma):
    eps = r2dp.epsilon(law, sensitivity=dq)
    assume(0 < eps)
    if eps >= r2dp.necessary_condition(law, sensitivity=dq):
        assert r2dp.usefulness(law, gamma=gamma) <= -math.expm1(-eps * gamma / dq) + 1e-12


@SETTINGS
@given(law=laws(), dq=dqs, gamma=gammas, c=pos)
def test_scale_invariance(law, dq, gamma, c):
    e1 = r2dp.epsilon(law, sensitivity=dq)
    e2 = r2dp.epsilon(law.scaled(1 / c), sensitivity=dq * c)
    assert math.isclose(e1, e2, rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(
        float(r2dp.usefulness(law, gamma=gamma)),
        float(r2dp.usefulness(law.scaled(1 / c), gamma=gamma * c)),
        rel_tol=1e-9,
        abs_tol=1e-14,
    )


@SETTINGS
@given(law=laws(), dq=dqs)
def test_epsilon_increasing_in_scale(law, dq):
    e = [r2dp.epsilon(law.scaled(c), sensitivity=dq) for c in (0.5, 1.0, 2.0)]
    assume(e[2] < 700)
    assert e[0] <= e[1] <= e[2]


@SETTINGS
@given(law=laws(), dq=dqs)
def test_privacy_loss_peaks_at_the_true_answer(law, dq):
    eps = r2dp.epsilon(law, sensitivity=dq)
    assume(eps < 700)
    x = np.linspace(-5 * dq, 6 * dq, 1101)
    L = r2dp.privacy_loss(x, law, sensitivity=dq)
    assert np.all(L <= eps + 1e-9 * max(1.0, eps))
    assert np.all(L >= -eps - 1e-9 * max(1.0, eps))
    assert math.isclose(float(r2dp.privacy_loss(0.0, law, sensitivity=dq)), eps, rel_tol=1e-9, abs_tol=1e-12)


@SETTINGS
@given(law=laws())
def test_usefulness_and_cdf_monotone(law):
    g = np.geomspace(1e-3, 1e3, 50)
    u = r2dp.usefulness(law, gamma=g)
    assert np.all(np.diff(u) >= -1e-15)
    w = np.linspace(-20, 20, 201)
    F = r2dp.noise_cdf(w, law)
    assert np.all(np.diff(F) >= -1e-15) and np.all((F >= 0) & (F <= 1))
    assert np.allclose(F + F[::-1], 1.0, atol=1e-12)  # symmetry


@settings(max_examples=25, deadline=None)
@given(eps=st.floats(0.2, 12.0), g=st.floats(0.005, 2.0), dq=dqs)
def test_optimiser_ordering(eps, g, dq):
    gamma = g * dq
    lap = float(r2dp.laplace_usefulness(eps, gamma=gamma, sensitivity=dq))
    two = r2dp.optimize(epsilon=eps, gamma=gamma, sensitivity=dq, family="two_point")
    gam = r2dp.optimize(epsilon=eps, gamma=gamma, sensitivity=dq, family="gamma")
    stair = float(r2dp.staircase_usefulness(eps, gamma=gamma, sensitivity=dq))
    cap = float(r2dp.universal_cap(eps, gamma=gamma, sensitivity=dq))
    assert lap <= gam.usefulness + 1e-12 <= two.usefulness + 2e-6
    assert two.usefulness <= min(stair, cap) + 1e-9
    assert abs(r2dp.epsilon(two.law, sensitivity=dq) - eps) < 1e-7 * max(1.0, eps)
    if eps <= 1.0:
        assert two.laplace_optimal
