"""Reference numbers for Rogers et al. 2023 (accuracy-first noise reduction), deterministic.

Each value was computed independently of dpcore (closed forms evaluated by hand or with mpmath, or the paper's own
numbers such as the "roughly 2.705" of Section 7.2), and is compared to the shown digits (absolute tolerance half a
unit in the last shown digit unless stated).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import minimize_scalar

from dpcore import filters as fl
from dpcore import noise_reduction as nr

LG = math.log(1e6)


def test_log_one_over_delta():
    # log(1/1e-6) = 13.815511 (the constant inside every conversion)
    assert LG == pytest.approx(13.815511, abs=5e-7)
    # the corrected conversion uses exactly this L: ε(ρ) − ρ = 2√(ρL)
    assert fl.zcdp_epsilon(1.0, 1e-6) - 1.0 == pytest.approx(2 * math.sqrt(13.815511), abs=2e-6)


def test_rho_star_eps10_matches_the_papers_2_705():
    # ρ*(10, 1e-6) = 1.353015, Σε² budget 2ρ* = 2.706029 (paper: "roughly 2.705")
    r = fl.rho_budget(10.0, 1e-6)
    assert r == pytest.approx(1.353015, abs=5e-7)
    assert 2 * r == pytest.approx(2.706029, abs=5e-7)
    assert fl.PrivacyFilter(10.0, 1e-6).rho_budget == pytest.approx(1.353015, abs=5e-7)


def test_conversion_round_trip():
    # round trip: zcdp_epsilon(1.353015, 1e-6) = 10.000000
    assert fl.zcdp_epsilon(1.353015, 1e-6) == pytest.approx(10.0, abs=5e-6)
    assert fl.zcdp_epsilon(fl.rho_budget(10.0, 1e-6), 1e-6) == pytest.approx(10.0, abs=1e-12)


def test_rho_star_eps1():
    # ρ*(1, 1e-6) = 0.017469; 2ρ* = 0.034938 (the budget of the paper's Reddit experiment, Section 7.2)
    r = fl.rho_budget(1.0, 1e-6)
    assert r == pytest.approx(0.017469, abs=5e-7)
    assert 2 * r == pytest.approx(0.034938, abs=5e-7)


def test_as_printed_theorem6_constant():
    # with Thm 6's printed constant 2√(2ρ log(1/δ'')) the budget would be 0.770693 (2ρ = 1.541386)
    r = fl.rho_budget(10.0, 1e-6, variant="as_printed")
    assert r == pytest.approx(0.770693, abs=5e-7)
    assert 2 * r == pytest.approx(1.541386, abs=5e-7)
    assert fl.PrivacyFilter(10.0, 1e-6, variant="as_printed").rho_budget == pytest.approx(0.770693, abs=5e-7)


def test_em_rho():
    # ρ_EM(0.1) = 0.1²/8 = 0.00125 (0.0025 in ε² units); ρ_EM(0.01) = 1.25e-5
    assert nr.em_rho(0.1) == pytest.approx(0.00125, rel=1e-12)
    assert 2 * nr.em_rho(0.1) == pytest.approx(0.0025, rel=1e-12)
    assert nr.em_rho(0.01) == pytest.approx(1.25e-5, rel=1e-12)


@pytest.mark.parametrize("alpha,thr", [(0.1, 21), (0.01, 201), (0.05, 41), (0.2, 11)])
@pytest.mark.parametrize("eps", [0.01, 0.3, 1.0, 7.0])
def test_stopping_threshold(alpha, thr, eps):
    # for ŷ > σ the rule is ŷ·ε ≥ (2+α)/α = 21, 201, 41, 11
    assert (2 + alpha) / alpha == pytest.approx(thr)
    assert nr.relative_error_stop(thr * (1 + 1e-9) / eps, eps, alpha=alpha)
    assert not nr.relative_error_stop(thr * (1 - 1e-9) / eps, eps, alpha=alpha)
    # for ŷ < −σ the rule is |ŷ|·ε > (2−α)/α
    neg = (2 - alpha) / alpha
    assert nr.relative_error_stop(-neg * (1 + 1e-9) / eps, eps, alpha=alpha)
    assert not nr.relative_error_stop(-neg * (1 - 1e-9) / eps, eps, alpha=alpha)


def test_lemma62_optimal_lambda():
    # Lemma 6.2: for ρ = ρ*(10, 1e-6) the Chernoff exponent λ(λ−1)ρ − (λ−1)ε is minimised at
    # λ = 1 + √(Lg/ρ) = 4.195451 and the bound equals 1e-6 exactly. Found here numerically.
    rho = fl.rho_budget(10.0, 1e-6)
    res = minimize_scalar(
        lambda lam: lam * (lam - 1) * rho - (lam - 1) * 10.0,
        bounds=(1, 50),
        method="bounded",
        options={"xatol": 1e-10},
    )
    assert res.x == pytest.approx(4.195451, abs=5e-6)
    assert 1 + math.sqrt(LG / rho) == pytest.approx(4.195451, abs=5e-7)
    assert math.exp(res.fun) == pytest.approx(1e-6, rel=1e-6)


def test_psi_values():
    # ψ(1; γ=1, δ=0.05) = 3.656395; ψ(1; 1, 1e-6) = 7.526509
    assert nr.psi(1.0, gamma=1.0, delta=0.05) == pytest.approx(3.656395, abs=5e-7)
    assert nr.psi(1.0, gamma=1.0, delta=1e-6) == pytest.approx(7.526509, abs=5e-7)


def test_single_brownian_expost_vs_gaussian():
    # a single Brownian noise reduction at ε = 1, δ = 1e-6, γ = 1: ε²/2 + ψ = 8.026509; Gaussian ρ = 0.5 → DP ε 5.756522
    assert nr.brownian_expost_bound(1.0, gamma=1.0, delta=1e-6) == pytest.approx(8.026509, abs=5e-7)
    assert fl.zcdp_epsilon(0.5, 1e-6) == pytest.approx(5.756522, abs=5e-7)


@pytest.mark.parametrize(
    "m,thm6,thm5,basic",
    [
        (1, 0.5307, 0.7577, 0.758),
        (10, 1.7123, 1.8675, 8.165),
        (100, 5.7565, 6.2069, 87.142),
        (1000, 21.6226, 23.5942, 923.038),
    ],
)
def test_composition_comparison(m, thm6, thm5, basic):
    # m Brownian noise reductions each stopped at ε² = 0.01, δ = 1e-6, γ = 0.01
    v = m * 0.01
    assert fl.zcdp_epsilon(v / 2, 1e-6) == pytest.approx(thm6, abs=5e-5)
    assert nr.brownian_expost_bound(v, gamma=0.01, delta=1e-6) == pytest.approx(thm5, abs=5e-5)
    per = nr.brownian_expost_bound(0.01, gamma=0.01, delta=1e-6 / m)
    assert m * per == pytest.approx(basic, abs=5e-4)


@pytest.mark.parametrize(
    "eps_star,stop_eps,sum_e2,bound_e,bound_sum",
    [(0.05, 0.0566, 0.00630, 0.0707, 0.01), (0.7, 0.9051, 1.6383, 0.9899, 1.96)],
)
def test_doubling_overshoot(eps_star, stop_eps, sum_e2, bound_e, bound_sum):
    # Section 7.1: doubling from ε1² = 1e-4 stops at the first level ≥ ε*; Σε² ≤ 4ε*², level ≤ √2 ε*
    lv = nr.doubling_levels(0.01, 100.0)
    k = int(np.argmax(lv >= eps_star))
    assert lv[k] == pytest.approx(stop_eps, abs=5e-5)
    assert lv[k] <= bound_e
    assert np.sum(lv[: k + 1] ** 2) == pytest.approx(sum_e2, abs=5e-5)
    assert np.sum(lv[: k + 1] ** 2) <= bound_sum


def test_zipf_normaliser_and_figure2():
    # Figure 2: H = Σ_{k≤300} k^−0.75 = 13.212814; p_1 = 0.075684, p_300 = 0.001050
    p = nr.zipf_probabilities(0.75, 300)
    assert 1 / p[0] == pytest.approx(13.212814, abs=5e-7)
    assert p[0] == pytest.approx(0.075684, abs=5e-7)
    assert p[-1] == pytest.approx(0.001050, abs=5e-7)
    # Figure 2: expected counts n·p_k
    assert 8000 * p[[0, 9, 49, 99, 299]] == pytest.approx([605.5, 107.7, 32.2, 19.1, 8.4], abs=0.05)
    assert 128000 * p[[0, 9, 49, 99, 299]] == pytest.approx([9687.6, 1722.7, 515.2, 306.3, 134.4], abs=0.05)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_noise_reduction_identity(seed):
    # Lemma 4.1: the joint Gaussian log-LR of (Y_1..Y_k) (Cov = min(t_i, t_j)) equals the last-point
    # log-LR and the closed form (ε²/2)((Y−f(x'))² − (Y−f(x))²), for every k, to ~1e-10.
    eps = np.array([0.1, 0.2, 0.5, 1.0, 2.0])
    t = 1 / eps**2
    fx, fxp = 3.0, 2.0
    y = fx + nr.brownian_path(eps, rng=seed)[0]
    for k in range(1, eps.size + 1):
        cov = np.minimum.outer(t[:k], t[:k])
        mvn = stats.multivariate_normal
        joint = mvn.logpdf(y[:k], np.full(k, fx), cov) - mvn.logpdf(y[:k], np.full(k, fxp), cov)
        last = stats.norm.logpdf(y[k - 1], fx, math.sqrt(t[k - 1])) - stats.norm.logpdf(
            y[k - 1], fxp, math.sqrt(t[k - 1])
        )
        closed = nr.brownian_loss(y[k - 1], epsilon=eps[k - 1], value=fx, neighbour=fxp)
        assert joint == pytest.approx(last, abs=1e-8 * max(1.0, abs(last)))
        assert closed == pytest.approx(last, abs=1e-10 * max(1.0, abs(last)))


@pytest.mark.parametrize(
    "delta,gamma_ratio,psi_ratio,filter_ratio", [(1e-6, 0.0322, 5.666, 5.257), (0.05, 0.122, None, None)]
)
@pytest.mark.parametrize("v", [1.0, 10.0])
def test_odometer_optimal_gamma(delta, gamma_ratio, psi_ratio, filter_ratio, v):
    # Thm 5 with the drift restored: ψ(V; γ, δ) is smallest at γ* = 0.0322·V (δ = 1e-6) / 0.122·V (δ = 0.05), where
    # ψ* ≈ 5.666·√V, against 2√((V/2)·log(1/δ)) = 5.257·√V for the Lemma 6.2 filter.
    res = minimize_scalar(
        lambda g: nr.psi(v, gamma=g, delta=delta),
        bounds=(1e-6 * v, 10 * v),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert res.x / v == pytest.approx(gamma_ratio, abs=5e-4)
    if psi_ratio is not None:
        assert res.fun / math.sqrt(v) == pytest.approx(psi_ratio, abs=5e-4)
        assert (fl.zcdp_epsilon(v / 2, delta) - v / 2) / math.sqrt(v) == pytest.approx(filter_ratio, abs=5e-4)
