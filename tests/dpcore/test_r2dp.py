"""Unit tests for dpcore.r2dp (Mohammady et al. 2020, R²DP).

Every closed form is checked against an independent computation: scipy quadrature of the
mixing density, direct sums over atoms, brute-force suprema or a different closed form.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpcore import r2dp

CONTINUOUS = [
    r2dp.Gamma(3.0, 0.5),
    r2dp.Gamma(0.7, 2.0),
    r2dp.Uniform(0.5, 9.0),
    r2dp.Uniform(0.0, 4.0),
    r2dp.Uniform(2.0, 2.0005),  # narrow: series branch of the stable sinh form
    r2dp.TruncatedNormal(0.5223, 1.5454, 0.5223),
    r2dp.TruncatedNormal(-1.0, 2.0, 0.1),
    r2dp.TruncatedNormal(-40.0, 5.0, 0.3),  # α = 8.06: continued-fraction branch
    r2dp.TruncatedNormal(6.0, 0.5, 0.0),  # α = -12: normal-like branch
]
DISCRETE = [r2dp.Dirac(2.0), r2dp.TwoPoint(1.0, 2.0, 0.5), r2dp.TwoPoint(0.2, 0.8, 0.3)]
ALL = CONTINUOUS + DISCRETE


def _quad_pdf(lfn, law) -> float:
    """∫ exp(lfn(u)) g(u) du by quadrature over the support of a continuous law (independent of the MGF code)."""
    if isinstance(law, r2dp.Uniform):
        return integrate.quad(
            lambda u: math.exp(lfn(u)) / (law.b - law.a), law.a, law.b, limit=200, epsabs=0, epsrel=1e-12
        )[0]
    if isinstance(law, r2dp.Gamma):
        dist = stats.gamma(law.k, scale=law.theta)
        lo = 0.0
    else:
        dist = stats.truncnorm(law.alpha, np.inf, loc=law.mu, scale=law.sigma)
        lo = law.low
    pts = [lo, *sorted({float(dist.ppf(q)) for q in (1e-6, 0.01, 0.5, 0.99, 1 - 1e-9)}), np.inf]
    pts = [p for p in pts if p >= lo]
    total = 0.0
    for a, b in zip(pts[:-1], pts[1:], strict=True):
        total += integrate.quad(lambda u: math.exp(lfn(u) + dist.logpdf(u)), a, b, limit=200, epsabs=0, epsrel=1e-12)[0]
    return total


def _log(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


def _expect(lfn, law) -> float:
    """E[exp(lfn(u))] under the law (lfn = log of the integrand, so huge e^{tu} never overflows)."""
    if law.discrete:
        vals, probs = law.atoms
        return sum(p * math.exp(lfn(v)) for v, p in zip(vals, probs, strict=True))
    return _quad_pdf(lfn, law)


# ------------------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda: r2dp.Gamma(0, 1), "k"),
        (lambda: r2dp.Gamma(-1, 1), "k"),
        (lambda: r2dp.Gamma(1, 0), "theta"),
        (lambda: r2dp.Gamma(1, -2), "theta"),
        (lambda: r2dp.Uniform(2, 1), "b"),
        (lambda: r2dp.Uniform(1, 1), "b"),
        (lambda: r2dp.Uniform(-1, 1), "a"),
        (lambda: r2dp.TwoPoint(1, 2, 1.5), "p"),
        (lambda: r2dp.TwoPoint(1, 2, -0.1), "p"),
        (lambda: r2dp.TwoPoint(0, 2, 0.5), "u0"),
        (lambda: r2dp.TwoPoint(1, -2, 0.5), "u1"),
        (lambda: r2dp.Dirac(0), "u"),
        (lambda: r2dp.TruncatedNormal(0, 0, 1), "sigma"),
        (lambda: r2dp.TruncatedNormal(0, 1, -1), "low"),
        (lambda: r2dp.TruncatedNormal(float("nan"), 1, 0), "mu"),
        (lambda: r2dp.Combination((r2dp.Gamma(1, 1),), (-1.0,)), "coefficients"),
        (lambda: r2dp.Combination((), ()), "laws"),
        (lambda: r2dp.usefulness(r2dp.Gamma(1, 1), gamma=0), "gamma"),
        (lambda: r2dp.usefulness(r2dp.Gamma(1, 1), gamma=-1), "gamma"),
        (lambda: r2dp.epsilon(r2dp.Gamma(1, 1), sensitivity=0), "sensitivity"),
        (lambda: r2dp.epsilon(r2dp.Gamma(1, 1), sensitivity=-1), "sensitivity"),
        (lambda: r2dp.epsilon("gamma"), "law"),
        (lambda: r2dp.epsilon(r2dp.Gamma(1, 1), variant="paper"), "variant"),
        (lambda: r2dp.epsilon(r2dp.Gamma(1, 1), variant="as_printed"), "as_printed"),
        (lambda: r2dp.optimize(epsilon=1, gamma=0.1, family="cauchy"), "family"),
        (lambda: r2dp.optimize(epsilon=0, gamma=0.1, family="gamma"), "epsilon"),
        (lambda: r2dp.optimize(epsilon=1, gamma=0, family="gamma"), "gamma"),
        (lambda: r2dp.optimize(epsilon=1, gamma=0.1, sensitivity=0, family="gamma"), "sensitivity"),
        (lambda: r2dp.laplace_usefulness(1, gamma=-1), "gamma"),
        (lambda: r2dp.laplace_usefulness(-1, gamma=1), "epsilon"),
        (lambda: r2dp.staircase_usefulness(1, gamma=1, sensitivity=0), "sensitivity"),
        (lambda: r2dp.staircase_usefulness(1, gamma=1, r=2), "r"),
        (lambda: r2dp.sample_noise(-1, r2dp.Gamma(1, 1)), "n"),
        (lambda: r2dp.sample_noise(10, r2dp.Gamma(1, 1), rng=-3), "rng"),
        (lambda: r2dp.noise_density(float("nan"), r2dp.Gamma(1, 1)), "w"),
        (lambda: r2dp.two_point_for_epsilon(2.0, 3.0, epsilon=1.0), "u0"),
        (lambda: r2dp.two_point_for_epsilon(0.5, 0.9, epsilon=1.0), "u1"),
        (lambda: r2dp.gamma_theta_for_epsilon(0, epsilon=1), "k"),
        (lambda: r2dp.reuse_epsilon(r2dp.Gamma(1, 1), queries=0), "queries"),
        (lambda: r2dp.gaussian_kappa(1.0, 0.0), "delta"),
        (lambda: r2dp.gaussian_mixture_delta(1.0, sigmas=[1.0, -1.0]), "sigmas"),
        (lambda: r2dp.gaussian_mixture_delta(1.0, sigmas=[1.0, 2.0], weights=[0.2, 0.2]), "weights"),
        (lambda: r2dp.entropy(r2dp.Gamma(2, 1), variant="x"), "variant"),
        (lambda: r2dp.improvement_map([1.0], [0.0]), "g_values"),
    ],
)
def test_bad_input_raises_naming_parameter(make, name):
    with pytest.raises(ValueError, match=name):
        make()


def test_laws_are_frozen():
    law = r2dp.Gamma(2.0, 1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        law.k = 3.0  # type: ignore[misc]
    res = r2dp.optimize(epsilon=5, gamma=0.1, family="gamma")
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.usefulness = 1.0  # type: ignore[misc]


# ------------------------------------------------------------------------------- infinite ε


def test_atom_at_infinity_gives_infinite_epsilon():
    # b = 0 with positive probability releases the exact answer: ε = ∞ (the b → 0 limit of the paper's
    # randomized-response remark), explicit result
    assert r2dp.epsilon(r2dp.TwoPoint(1.0, math.inf, 0.5)) == math.inf
    assert r2dp.epsilon(r2dp.Dirac(math.inf)) == math.inf
    assert r2dp.reuse_epsilon(r2dp.Dirac(math.inf)) == math.inf
    # usefulness is still well defined: 1 - p e^{-γ u0}
    assert r2dp.usefulness(r2dp.TwoPoint(1.0, math.inf, 0.5), gamma=1.0) == pytest.approx(1 - 0.5 * math.exp(-1))
    assert r2dp.usefulness(r2dp.Dirac(math.inf), gamma=0.1) == 1.0
    # the atom at ∞ with probability 0 is harmless
    assert r2dp.epsilon(r2dp.TwoPoint(1.5, math.inf, 1.0), sensitivity=2.0) == pytest.approx(3.0)
    m = r2dp.metrics(r2dp.TwoPoint(1.0, math.inf, 0.5), gamma=1.0)
    assert m.epsilon == math.inf and m.entropy == -math.inf and m.mean_abs == pytest.approx(0.5)
    w = r2dp.sample_noise(1000, r2dp.TwoPoint(1.0, math.inf, 0.5), rng=1)
    assert np.all(np.isfinite(w)) and 300 < np.sum(w == 0.0) < 700


# ------------------------------------------------------------------------------- MGF closed forms


@pytest.mark.parametrize("law", ALL, ids=repr)
@pytest.mark.parametrize("t", [-7.0, -1.3, -0.05, -1e-5, 0.0, 0.2])
@pytest.mark.parametrize("n", [0, 1, 2])
def test_mgf_derivatives_match_quadrature(law, t, n):
    got = float(law.mgf_derivative(t, n))
    ref = _expect(lambda u: n * _log(u) + t * u, law)
    assert got == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("law", ALL, ids=repr)
def test_named_mgf_methods_and_mean(law):
    t = np.array([-2.0, -0.5, 0.0])
    assert np.allclose(law.mgf(t), [law.mgf_derivative(x, 0) for x in t], rtol=1e-14)
    assert np.allclose(law.mgf_prime(t), [law.mgf_derivative(x, 1) for x in t], rtol=1e-14)
    assert np.allclose(law.mgf_second(t), [law.mgf_derivative(x, 2) for x in t], rtol=1e-14)
    assert law.mgf(0.0) == pytest.approx(1.0, rel=1e-14)
    assert law.mean == pytest.approx(_expect(_log, law), rel=1e-10)


def test_uniform_mgf_far_tails_are_finite_and_match_closed_form():
    law = r2dp.Uniform(0.0, 4.0)
    for t in (-50.0, -500.0, 30.0):
        # direct formulas (no cancellation problem at these t): M = (e^{tb}-e^{ta})/(t(b-a))
        m = (math.exp(t * 4) - 1) / (t * 4)
        mp = (math.exp(4 * t) * (4 * t - 1) + 1) / (t * t * 4)
        assert law.mgf(t) == pytest.approx(m, rel=1e-12)
        assert law.mgf_prime(t) == pytest.approx(mp, rel=1e-12)
    assert np.isfinite(law.log_mgf_derivative(-1e6, 1))


def test_truncated_normal_extreme_tilt_is_stable():
    # far in the exponential regime (μ -> -∞): the law ≈ low + Exp(mean σ/α)
    law = r2dp.TruncatedNormal(-1e5, 300.0, 0.2)
    rate = (law.low - law.mu) / law.sigma**2
    for t in (-5.0, -0.5):
        m_exp = math.exp(t * law.low) * rate / (rate - t)
        assert law.mgf(t) == pytest.approx(m_exp, rel=1e-4)
    assert law.mean == pytest.approx(law.low + 1 / rate, rel=1e-4)


def test_gamma_mgf_diverges_beyond_one_over_theta():
    law = r2dp.Gamma(2.0, 0.5)
    assert law.mgf(2.5) == math.inf
    assert r2dp.necessary_condition(law, sensitivity=3.0) == math.inf


def test_combination_of_gammas_is_gamma():
    # Γ(k1, θ) + Γ(k2, θ) = Γ(k1 + k2, θ): independent closed form for Thm 4.11 / product rule
    comb = r2dp.Combination((r2dp.Gamma(1.3, 0.7), r2dp.Gamma(2.2, 0.7)))
    ref = r2dp.Gamma(3.5, 0.7)
    t = np.array([-3.0, -0.4, 0.0, 0.5])
    for n in (0, 1, 2, 3):
        assert np.allclose(comb.mgf_derivative(t, n), ref.mgf_derivative(t, n), rtol=1e-12)
    assert r2dp.epsilon(comb, sensitivity=0.8) == pytest.approx(4.5 * math.log1p(0.8 * 0.7), rel=1e-12)
    assert comb.pdf(1.7) == pytest.approx(stats.gamma.pdf(1.7, 3.5, scale=0.7), rel=1e-7)
    assert r2dp.mean_abs_noise(comb) == pytest.approx(1 / (0.7 * 2.5), rel=1e-7)


def test_combination_coefficients_scale():
    # a·Γ(k, θ) = Γ(k, aθ) ; a·U(l, h) = U(al, ah) (the coefficients of Thm 4.11 are redundant with the scales)
    comb = r2dp.Combination((r2dp.Gamma(2.0, 1.0), r2dp.Uniform(1.0, 2.0)), (3.0, 0.5))
    ref = r2dp.Combination((r2dp.Gamma(2.0, 3.0), r2dp.Uniform(0.5, 1.0)))
    t = np.linspace(-4, 0, 9)
    assert np.allclose(comb.mgf_prime(t), ref.mgf_prime(t), rtol=1e-12)
    assert comb.scaled(2.0).mean == pytest.approx(2 * comb.mean)


@pytest.mark.parametrize("law", CONTINUOUS + DISCRETE[1:], ids=repr)
def test_scaled_law(law):
    c = 2.7
    t = np.array([-3.0, -0.2])
    assert np.allclose(law.scaled(c).mgf_prime(t), c * law.mgf_prime(c * t), rtol=1e-10)


# ------------------------------------------------------------------------------- noise, privacy


@pytest.mark.parametrize("law", ALL, ids=repr)
def test_noise_density_and_cdf_match_quadrature(law):
    for w in (0.0, 0.3, -1.7, 6.0):
        ref = _expect(lambda u, w=w: math.log(0.5) + _log(u) - u * abs(w), law)
        assert r2dp.noise_density(w, law) == pytest.approx(ref, rel=1e-9)
    f = lambda x: float(r2dp.noise_density(x, law))  # noqa: E731
    for w in (-2.0, -0.1, 0.0, 0.4, 3.0):
        lo = integrate.quad(f, -np.inf, min(w, 0.0), limit=200)[0]
        hi = integrate.quad(f, 0.0, w, limit=200)[0] if w > 0 else 0.0
        assert r2dp.noise_cdf(w, law) == pytest.approx(lo + hi, abs=1e-8)
    assert r2dp.noise_cdf(0.0, law) == pytest.approx(0.5)
    arr = r2dp.noise_density(np.array([[0.1, -0.1]]), law)
    assert arr.shape == (1, 2) and arr[0, 0] == arr[0, 1]


@pytest.mark.parametrize("law", ALL, ids=repr)
def test_privacy_loss_profile(law):
    dq = 0.8
    eps = r2dp.epsilon(law, sensitivity=dq)
    x = np.linspace(-6, 6 + dq, 2001)
    L = r2dp.privacy_loss(x, law, sensitivity=dq)
    assert r2dp.privacy_loss(0.0, law, sensitivity=dq) == pytest.approx(eps, rel=1e-12)
    assert r2dp.privacy_loss(dq, law, sensitivity=dq) == pytest.approx(-eps, rel=1e-12)
    assert L.max() <= eps + 1e-12 and L.min() >= -eps - 1e-12
    y = np.linspace(0, 3, 7)
    assert np.allclose(
        r2dp.privacy_loss(dq / 2 + y, law, sensitivity=dq),
        -r2dp.privacy_loss(dq / 2 - y, law, sensitivity=dq),
        atol=1e-12,
    )


def test_privacy_loss_tail_limit_is_sensitivity_times_essinf():
    law = r2dp.TwoPoint(0.5, 5.0, 0.4)
    assert r2dp.privacy_loss(-200.0, law, sensitivity=1.0) == pytest.approx(0.5, abs=1e-9)
    assert abs(r2dp.privacy_loss(-1e4, r2dp.Gamma(2.0, 1.0), sensitivity=1.0)) < 1e-3


def test_usefulness_vectorised_and_is_tail():
    law = r2dp.Gamma(2.0, 1.5)
    g = np.array([0.1, 1.0, 10.0])
    u = r2dp.usefulness(law, gamma=g)
    assert u.shape == (3,) and np.all(np.diff(u) > 0)
    assert np.allclose(u, 1 - (1 + 1.5 * g) ** -2.0, rtol=1e-13)
    assert np.allclose(u, 2 * r2dp.noise_cdf(g, law) - 1, atol=1e-14)


def test_epsilon_dirac_and_two_point_closed_forms():
    assert r2dp.epsilon(r2dp.Dirac(2.5), sensitivity=0.4) == pytest.approx(1.0)
    u0, u1, p, dq = 0.3, 4.0, 0.35, 0.7
    exact = math.log((p * u0 + (1 - p) * u1) / (p * u0 * math.exp(-dq * u0) + (1 - p) * u1 * math.exp(-dq * u1)))
    assert r2dp.epsilon(r2dp.TwoPoint(u0, u1, p), sensitivity=dq) == pytest.approx(exact, rel=1e-13)
    printed = math.log(p * math.exp(dq * u0) + (1 - p) * math.exp(dq * u1))
    assert r2dp.epsilon(r2dp.TwoPoint(u0, u1, p), sensitivity=dq, variant="as_printed") == pytest.approx(printed)
    # as-printed Thm 4.4 agrees with the truth only for a point mass
    assert r2dp.epsilon(r2dp.Dirac(2.0), variant="as_printed") == pytest.approx(2.0)


def test_reuse_epsilon():
    # Dirac: reusing u changes nothing (n Δq u); Gamma: (k+n) ln(1 + n Δq θ)
    assert r2dp.reuse_epsilon(r2dp.Dirac(1.5), sensitivity=2.0, queries=3) == pytest.approx(9.0)
    assert r2dp.reuse_epsilon(r2dp.Gamma(3.0, 0.5), sensitivity=1.0, queries=3) == pytest.approx(6 * math.log(2.5))
    assert r2dp.reuse_epsilon(r2dp.Gamma(3.0, 0.5), queries=1) == pytest.approx(r2dp.epsilon(r2dp.Gamma(3.0, 0.5)))


def test_sampling_shapes_and_rng():
    law = r2dp.TruncatedNormal(0.0, 1.0, 0.5)
    a = r2dp.sample_noise(100, law, rng=7)
    b = r2dp.sample_noise(100, law, rng=np.random.default_rng(7))
    assert a.shape == (100,) and np.array_equal(a, b)
    assert r2dp.sample_noise(0, law).shape == (0,)
    assert np.all(law.sample(1000, 3) >= 0.5)
    rel = r2dp.release(np.array([1.0, 2.0, 3.0]), law, rng=1)
    assert rel.shape == (3,)
    assert isinstance(r2dp.release(5.0, law, rng=1), float)
    # tiny Gamma shapes underflow to u = 0 in numpy; the sampler redraws them
    assert np.all(r2dp.Gamma(0.02, 1.0).sample(20000, 1) > 0)


def test_law_densities():
    assert r2dp.Gamma(2.0, 3.0).pdf(1.0) == pytest.approx(stats.gamma.pdf(1.0, 2.0, scale=3.0))
    assert r2dp.Uniform(1.0, 3.0).pdf(np.array([0.5, 2.0])).tolist() == [0.0, 0.5]
    tn = r2dp.TruncatedNormal(1.0, 2.0, 0.5)
    assert integrate.quad(tn.pdf, 0.5, np.inf)[0] == pytest.approx(1.0)
    assert r2dp.TwoPoint(1.0, 2.0, 0.3).pmf(np.array([1.0, 2.0, 3.0])).tolist() == pytest.approx([0.3, 0.7, 0.0])


# ------------------------------------------------------------------------------- Table I metrics


@pytest.mark.parametrize("law", ALL + [r2dp.Combination((r2dp.Gamma(0.6, 2.0), r2dp.Uniform(0.4, 1.0)))], ids=repr)
def test_l1_l2_against_tail_integrals(law):
    # E|W| = ∫_0^∞ M(-x) dx ; E W² = 2 ∫_0^∞ x M(-x) dx  (Table I, corrected limits)
    ea = r2dp.mean_abs_noise(law)
    rms = r2dp.rms_noise(law)
    if math.isfinite(ea):
        ref = integrate.quad(lambda x: float(law.mgf(-x)), 0, np.inf, limit=400)[0]
        assert ea == pytest.approx(ref, rel=1e-6)
    if math.isfinite(rms):
        ref2 = 2 * integrate.quad(lambda x: x * float(law.mgf(-x)), 0, np.inf, limit=400)[0]
        assert rms**2 == pytest.approx(ref2, rel=1e-6)
    assert r2dp.rms_noise(law, variant="as_printed") == math.inf


def test_infinite_l1_l2():
    assert r2dp.mean_abs_noise(r2dp.Gamma(1.0, 2.0)) == math.inf
    assert r2dp.rms_noise(r2dp.Gamma(2.0, 2.0)) == math.inf
    assert math.isfinite(r2dp.rms_noise(r2dp.Gamma(2.1, 2.0)))
    assert r2dp.mean_abs_noise(r2dp.Uniform(0.0, 3.0)) == math.inf
    assert r2dp.mean_abs_noise(r2dp.TruncatedNormal(1.0, 1.0, 0.0)) == math.inf
    # a sum of two components with densities at 0: P(u<x) ~ x², E[1/u] finite, E[1/u²] infinite
    comb = r2dp.Combination((r2dp.Uniform(0.0, 1.0), r2dp.TruncatedNormal(1.0, 1.0, 0.0)))
    assert math.isfinite(r2dp.mean_abs_noise(comb)) and r2dp.rms_noise(comb) == math.inf


@pytest.mark.parametrize(
    "law",
    [
        r2dp.Gamma(3.5, 0.8),
        r2dp.Gamma(0.7, 2.0),
        r2dp.Uniform(0.5, 9.0),
        r2dp.Uniform(0.0, 4.0),
        r2dp.TruncatedNormal(0.5223, 1.5454, 0.5223),
        r2dp.TwoPoint(0.2, 0.8, 0.3),
        r2dp.Dirac(1.7),
    ],
    ids=repr,
)
def test_entropy_corrected_formula_matches_direct_integral(law):
    f = lambda w: float(r2dp.noise_density(w, law))  # noqa: E731
    pts = [0, 0.1, 1, 10, 100, 1e4, np.inf]
    direct = -2 * sum(
        integrate.quad(lambda w: f(w) * math.log(f(w)) if f(w) > 0 else 0.0, a, b, limit=300)[0]
        for a, b in zip(pts[:-1], pts[1:], strict=True)
    )
    assert r2dp.entropy(law) == pytest.approx(direct, rel=1e-7, abs=1e-9)
    printed = r2dp.entropy(law, variant="as_printed")
    assert r2dp.entropy(law) - printed == pytest.approx(math.log(2 / law.mean))


def test_metrics_bundle():
    law = r2dp.Gamma(3.5, 0.8)
    m = r2dp.metrics(law, gamma=0.5, sensitivity=1.0)
    assert m.epsilon == pytest.approx(4.5 * math.log(1.8))
    assert m.usefulness == pytest.approx(1 - 1.4**-3.5)
    assert m.mean_abs == pytest.approx(0.5) and m.rms == pytest.approx(math.sqrt(0.8333333333))
    assert m.necessary_condition == pytest.approx(-3.5 * math.log(0.2))  # ln (1 - Δqθ)^{-k}
    assert r2dp.metrics(r2dp.Gamma(3.5, 1.2), gamma=0.5).necessary_condition == math.inf  # Δq θ >= 1


# ------------------------------------------------------------------------------- baselines


def test_laplace_usefulness_and_printed_variant():
    e = np.array([0.5, 1.0, 3.0])
    u = r2dp.laplace_usefulness(e, gamma=0.3, sensitivity=2.0)
    assert np.allclose(u, [r2dp.usefulness(r2dp.Dirac(x / 2.0), gamma=0.3) for x in e], rtol=1e-14)
    printed = r2dp.laplace_usefulness(e, gamma=0.3, sensitivity=2.0, variant="as_printed")
    assert np.all(printed < 0)  # e^{+εγ/Δq} is not a probability (sign error in the proof of Thm 4.2)
    assert not np.allclose(printed, u)


@pytest.mark.parametrize("r", [0.0, 0.1, 0.3, 0.8, 1.0])
@pytest.mark.parametrize("gamma", [0.05, 0.4, 1.0, 1.37, 2.5])
def test_staircase_closed_form_matches_quadrature(r, gamma):
    eps, dq = 3.0, 1.3
    f = lambda x: float(r2dp.staircase_density(x, eps, sensitivity=dq, r=r))  # noqa: E731
    breaks = sorted({j * dq for j in range(4)} | {(j + r) * dq for j in range(4)})
    pts = sorted({0.0, gamma, *[b for b in breaks if b < gamma]})
    quad = 2 * sum(integrate.quad(f, a, b)[0] for a, b in zip(pts[:-1], pts[1:], strict=True))
    assert r2dp.staircase_usefulness(eps, gamma=gamma, sensitivity=dq, r=r) == pytest.approx(quad, abs=1e-10)


def test_staircase_density_normalised_and_exactly_eps_dp():
    eps, dq = 3.0, 1.0
    for r in (0.1, 0.3, 0.8):
        f = lambda x, r=r: float(r2dp.staircase_density(x, eps, sensitivity=dq, r=r))  # noqa: E731
        pts = sorted({j * dq + o for j in range(40) for o in (0.0, r * dq)})
        tot = 2 * sum(integrate.quad(f, a, b)[0] for a, b in zip(pts[:-1], pts[1:], strict=True))
        assert tot == pytest.approx(1.0, abs=1e-10)
        x = np.linspace(-8, 8, 16001)
        lr = 0.0
        for s in np.linspace(0.05, 1.0, 20) * dq:
            lr = max(
                lr,
                np.max(
                    np.log(r2dp.staircase_density(x, eps, sensitivity=dq, r=r))
                    - np.log(r2dp.staircase_density(x + s, eps, sensitivity=dq, r=r))
                ),
            )
        assert lr == pytest.approx(eps, abs=1e-12)


def test_staircase_optimal_r_is_optimal():
    eps, dq = 2.0, 1.0
    for gamma in (0.05, 0.37, 1.8):
        grid = np.linspace(0, 1, 2001)
        vals = [r2dp.staircase_usefulness(eps, gamma=gamma, sensitivity=dq, r=x) for x in grid]
        assert r2dp.staircase_usefulness(eps, gamma=gamma, sensitivity=dq) == pytest.approx(max(vals), abs=1e-9)
        assert r2dp.staircase_optimal_r(eps, gamma=gamma) == pytest.approx(gamma % 1.0)


def test_staircase_stable_for_small_and_large_eps():
    u = r2dp.staircase_usefulness(np.array([1e-9, 1e-3, 800.0]), gamma=0.5)
    assert np.all(np.isfinite(u))
    assert u[0] == pytest.approx(0.5e-9, rel=1e-6)  # ≈ ε g (Laplace-like)
    assert u[2] == 1.0


def test_threshold_and_cap():
    assert r2dp.laplace_threshold(0.5) == pytest.approx(4.0)
    assert r2dp.laplace_threshold(np.array([0.0, 1.0, 2.0])).tolist() == [2.0, math.inf, math.inf]
    assert r2dp.universal_cap(2.0, gamma=0.1) == pytest.approx(0.1 * math.e)
    assert r2dp.universal_cap(20.0, gamma=0.1) == 1.0


# ------------------------------------------------------------------------------- optimiser


@pytest.mark.parametrize("family", r2dp.FAMILIES)
def test_optimize_result_consistent(family):
    res = r2dp.optimize(epsilon=6.0, gamma=0.2, sensitivity=2.0, family=family)
    assert res.family == family
    assert res.epsilon == pytest.approx(6.0, abs=1e-7)
    assert r2dp.epsilon(res.law, sensitivity=2.0) == pytest.approx(6.0, abs=1e-7)
    assert res.usefulness == pytest.approx(float(r2dp.usefulness(res.law, gamma=0.2)), abs=1e-14)
    assert res.laplace_usefulness == pytest.approx(-math.expm1(-6.0 * 0.1))
    assert res.ratio >= 1.0
    assert res.usefulness <= r2dp.staircase_usefulness(6.0, gamma=0.2, sensitivity=2.0)
    if family == "laplace":
        assert res.law == r2dp.Dirac(3.0) and res.laplace_optimal


def test_optimize_gamma_matches_brute_force_grid():
    # independent brute force over k with the closed-form θ(k) (Thm 4.5)
    eps, gam = 5.0, 0.05
    k = np.geomspace(0.05, 50, 20001)
    th = np.expm1(eps / (k + 1))
    best = np.max(1 - (1 + th * gam) ** -k)
    assert r2dp.optimize(epsilon=eps, gamma=gam, family="gamma").usefulness == pytest.approx(best, abs=1e-8)


def test_optimize_uniform_matches_brute_force_grid():
    # brute force over (a, b) pairs: for each a, bisection on b for exact ε via quadrature-free closed form
    eps, gam = 10.0, 0.05

    def eps_u(a, b):  # Theorem 4.7 (independent closed form)
        al, be = a, b
        return math.log((be**2 - al**2) / (2 * ((1 + al) * math.exp(-al) - (1 + be) * math.exp(-be))))

    best = 0.0
    for a in np.linspace(0.0, 1.0, 201):
        lo, hi = eps, 1e4
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if eps_u(a, mid) < eps else (lo, mid)
        b = 0.5 * (lo + hi)
        best = max(best, 1 - (math.exp(-a * gam) - math.exp(-b * gam)) / (gam * (b - a)))
    got = r2dp.optimize(epsilon=eps, gamma=gam, family="uniform").usefulness
    assert got >= best - 1e-7 and got == pytest.approx(best, abs=2e-5)


def test_two_point_for_epsilon_meets_budget():
    law = r2dp.two_point_for_epsilon(0.7, 9.0, epsilon=3.0, sensitivity=1.5)
    assert r2dp.epsilon(law, sensitivity=1.5) == pytest.approx(3.0, abs=1e-12)


def test_gamma_theta_round_trip():
    k = np.array([0.3, 1.0, 7.0])
    th = r2dp.gamma_theta_for_epsilon(k, epsilon=2.0, sensitivity=0.5)
    assert np.allclose(
        [r2dp.epsilon(r2dp.Gamma(a, b), sensitivity=0.5) for a, b in zip(k, th, strict=True)], 2.0, rtol=1e-13
    )


def test_curve_helpers():
    df = r2dp.usefulness_curves([1.0, 5.0], gamma=0.1, families=("laplace", "gamma", "two_point"))
    assert set(df.family) == {"laplace", "gamma", "two_point", "staircase"} and len(df) == 8
    row = df[(df.epsilon == 5.0) & (df.family == "gamma")].iloc[0]
    assert row.usefulness == pytest.approx(0.528705, abs=1e-6)
    m = r2dp.improvement_map([1.0, 10.0], [0.05, 1.0], family="gamma")
    assert len(m) == 4 and np.all(m.ratio >= 1.0)
    assert m[(m.epsilon == 10.0) & (m.g == 0.05)].ratio.iloc[0] == pytest.approx(0.880834 / 0.393469, rel=1e-5)
    land = r2dp.gamma_landscape([0.5, 2.0], [0.1, 0.4, 2.0], gamma=0.2, sensitivity=1.0)
    assert land["usefulness"].shape == (2, 3)
    assert land["epsilon"][1, 1] == pytest.approx(r2dp.epsilon(r2dp.Gamma(2.0, 0.4)))
    assert land["necessary_condition"][0, 2] == math.inf


def test_gaussian_helpers():
    # averaged δ equals the Balle–Wang δ for one σ (computed here from its formula)
    from scipy.stats import norm

    eps, s, dq = 1.0, 2.0, 1.0
    bw = norm.cdf(dq / (2 * s) - eps * s / dq) - math.exp(eps) * norm.cdf(-dq / (2 * s) - eps * s / dq)
    assert r2dp.gaussian_mixture_delta(eps, sigmas=[s], variant="averaged") == pytest.approx(bw)
    assert r2dp.gaussian_mixture_delta(eps, sigmas=[s]) == pytest.approx(bw, rel=1e-8)
    assert r2dp.gaussian_usefulness([1.0, 3.0], gamma=1.0, weights=[0.5, 0.5]) == pytest.approx(
        0.5 * (1 - 2 * norm.sf(1.0)) + 0.5 * (1 - 2 * norm.sf(1 / 3))
    )


def test_lemma_4_10_variants_differ():
    exact = r2dp.lemma_4_10()
    printed = r2dp.lemma_4_10(variant="as_printed")
    assert printed.epsilon == 1.1703 and abs(exact.epsilon - printed.epsilon) > 0.009
    assert exact.log_mgf_at_sensitivity == pytest.approx(printed.log_mgf_at_sensitivity, abs=5e-5)


# --------------------------------------------------------------------- helpers of the app (law of the scale b, lock ε)


@pytest.mark.parametrize(
    "law",
    [
        r2dp.Gamma(0.7, 2.0),
        r2dp.Uniform(0.5, 9.0),
        r2dp.TwoPoint(0.2, 0.8, 0.3),
        r2dp.Dirac(1.7),
        r2dp.TruncatedNormal(0.5223, 1.5454, 0.5223),
    ],
    ids=repr,
)
def test_entropy_both_is_one_integral_of_both_variants(law):
    exact, printed = r2dp.entropy_both(law)
    assert exact == pytest.approx(r2dp.entropy(law))
    assert printed == pytest.approx(r2dp.entropy(law, variant="as_printed"))
    assert exact - printed == pytest.approx(math.log(2 / law.mean))


def test_entropy_of_dirac_is_laplace_closed_form():
    b = 0.3
    assert r2dp.entropy(r2dp.Dirac(1 / b)) == pytest.approx(1 + math.log(2 * b))
    assert r2dp.entropy_both(r2dp.Dirac(math.inf)) == (-math.inf, -math.inf)


@pytest.mark.parametrize(
    "law", [r2dp.Gamma(2.0, 1.5), r2dp.Uniform(0.5, 9.0), r2dp.TruncatedNormal(1.0, 2.0, 0.5)], ids=repr
)
def test_scale_pdf_is_the_density_of_one_over_u(law):
    assert integrate.quad(lambda b: r2dp.scale_pdf(law, b), 0, np.inf, limit=400)[0] == pytest.approx(1.0, abs=1e-6)
    b = np.array([0.0, 0.2, 1.0, 3.0])
    dens = r2dp.scale_pdf(law, b)
    assert dens[0] == 0.0
    assert dens[1:] == pytest.approx(law.pdf(1 / b[1:]) / b[1:] ** 2)
    # P(b <= 1) = P(u >= 1)
    assert integrate.quad(lambda x: r2dp.scale_pdf(law, x), 0, 1)[0] == pytest.approx(
        integrate.quad(law.pdf, 1, np.inf)[0], abs=1e-7
    )


def test_scale_pdf_rejects_discrete_laws_and_negative_scales():
    with pytest.raises(ValueError, match="continuous"):
        r2dp.scale_pdf(r2dp.TwoPoint(1.0, 2.0, 0.5), 1.0)
    with pytest.raises(ValueError, match="b"):
        r2dp.scale_pdf(r2dp.Gamma(2.0, 1.0), -1.0)


@pytest.mark.parametrize(
    "law",
    [
        r2dp.Uniform(0.5, 9.0),
        r2dp.TruncatedNormal(2.0, 2.0, 0.5),
        r2dp.Gamma(0.5, 3.0),
        r2dp.TwoPoint(0.5, 50.0, 0.3),
        r2dp.Combination((r2dp.Gamma(2.0, 1.0), r2dp.TruncatedNormal(2.0, 2.0, 0.5))),
    ],
    ids=repr,
)
@pytest.mark.parametrize("eps,dq", [(0.05, 1.0), (5.0, 1.0), (3.0, 0.2)])
def test_scale_for_epsilon_meets_the_budget_keeping_the_shape(law, eps, dq):
    out = r2dp.scale_for_epsilon(law, eps, sensitivity=dq)
    assert r2dp.epsilon(out, sensitivity=dq) == pytest.approx(eps, rel=1e-9)
    assert type(out) is type(law)
    if isinstance(law, r2dp.Uniform):
        assert out.b / out.a == pytest.approx(law.b / law.a)


def test_scale_for_epsilon_bad_input():
    with pytest.raises(ValueError, match="epsilon"):
        r2dp.scale_for_epsilon(r2dp.Gamma(2.0, 1.0), 0.0)
    with pytest.raises(ValueError, match="inf"):
        r2dp.scale_for_epsilon(r2dp.TwoPoint(1.0, math.inf, 0.5), 1.0)


def test_vectorised_two_point_grid_matches_the_exact_epsilon_lock():
    """The page's vectorised two-point map: each (u0, u1, p) is a law whose exact ε (via the MGF) is the target, and
    U(γ) = p(1 − e^{−γ u0}) + (1 − p)(1 − e^{−γ u1}) (closed form of the mixture's usefulness)."""
    eps, gamma, dq = 3.0, 0.4, 1.5
    ustar = eps / dq
    u0 = ustar * np.array([0.05, 0.3, 0.7, 0.95])
    u1 = ustar * np.array([1.05, 1.5, 3.0, 10.0])
    p, useful = r2dp.optimal._two_point_grid(u0, u1, epsilon=eps, gamma=gamma, sensitivity=dq)
    for a, b, pa, ua in zip(u0, u1, p, useful, strict=True):
        law = r2dp.TwoPoint(a, b, pa)
        assert r2dp.epsilon(law, sensitivity=dq) == pytest.approx(eps, rel=1e-9)
        assert ua == pytest.approx(pa * -np.expm1(-gamma * a) + (1 - pa) * -np.expm1(-gamma * b), rel=1e-12)
        assert pa == pytest.approx(r2dp.two_point_for_epsilon(a, b, epsilon=eps, sensitivity=dq).p, rel=1e-12)


def test_optimize_at_extreme_epsilon_is_laplace_or_names_epsilon():
    # Laplace is within γ with probability 1 to float precision: every family returns it (no search, no overflow)
    for fam in r2dp.FAMILIES:
        res = r2dp.optimize(epsilon=1e9, gamma=0.1, family=fam)
        assert res.laplace_optimal and res.usefulness == 1.0 and res.law == r2dp.Dirac(1e9)
    # a search that leaves the float range says which inputs caused it
    with pytest.raises(ValueError, match="epsilon=800"):
        r2dp.optimize(epsilon=800.0, gamma=1e-3, family="gamma")
