"""Reference checks of dpcore.r2dp against the paper (Mohammady et al. 2020, R²DP) and independent computations.

Expected numbers are either the paper's own (Lemmas 4.6, 4.8, 4.10, Thm A.2's "about 2.65", the "up to 125%" of
Fig. 5 and the "230%" of the abstract) or reference values computed independently of this code base (direct
quadrature of the mixture density, brute-force suprema over outputs and shifts, linear programming, closed
forms), most of them recomputed inside the test itself. Where the paper's printed value is wrong the test says so
and checks the exact one (see docs/errata.md).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.optimize import brentq

from dpcore import r2dp
from tests import r2dp_laws

LAWS = r2dp_laws.LAWS | {"TwoPoint(1,2,.5)": r2dp.TwoPoint(1.0, 2.0, 0.5)}


def _mixture_density(w: float, law) -> float:
    """∫ (u/2) e^{-u|w|} g_u(u) du by quadrature (or a sum over atoms) — independent of the MGF code."""
    if law.discrete:
        vals, probs = law.atoms
        return sum(p * 0.5 * v * math.exp(-v * abs(w)) for v, p in zip(vals, probs, strict=True))
    if isinstance(law, r2dp.Uniform):
        return integrate.quad(
            lambda u: 0.5 * u * math.exp(-u * abs(w)) / (law.b - law.a), law.a, law.b, epsabs=0, epsrel=1e-13
        )[0]
    if isinstance(law, r2dp.Gamma):
        dist, lo = stats.gamma(law.k, scale=law.theta), 0.0
    else:
        dist, lo = stats.truncnorm(law.alpha, np.inf, loc=law.mu, scale=law.sigma), law.low
    pts = [lo, lo + 0.5, lo + 2, lo + 8, lo + 30, np.inf]
    return sum(
        integrate.quad(
            lambda u: 0.5 * u * math.exp(-u * abs(w) + dist.logpdf(u)), a, b, epsabs=0, epsrel=1e-13, limit=200
        )[0]
        for a, b in zip(pts[:-1], pts[1:], strict=True)
    )


# -------------------------------------------------------- the noise density is the Laplace mixture (Thm 3.1)
@pytest.mark.parametrize("name", list(LAWS))
def test_density_is_the_laplace_mixture(name):
    law = LAWS[name]
    for w in (0.0, 0.05, 0.5, 1.0, 3.0, 10.0):
        assert r2dp.noise_density(w, law) == pytest.approx(_mixture_density(w, law), rel=1e-10)
    f = lambda x: float(r2dp.noise_density(x, law))  # noqa: E731
    pts = [0, 0.1, 1, 10, 100, 1e4, np.inf]
    total = 2 * sum(integrate.quad(f, a, b, limit=300, epsabs=1e-13)[0] for a, b in zip(pts[:-1], pts[1:], strict=True))
    assert total == pytest.approx(1.0, abs=1e-8)


# ------------------------------------------- usefulness is the mass of the band |w| <= γ (Thm 3.1, Cor. 4.1)
USEFULNESS_VALUES = {
    "Dirac(2)": (0.181269, 0.632121, 0.981684),
    "Gamma(3,.5)": (0.136162, 0.488000, 0.875000),
    "U(.5,9)": (0.359224, 0.819367, 0.978360),
    "TN(.5223,1.5454,.5223)": (0.157454, 0.543552, 0.916641),
}


@pytest.mark.parametrize("name", list(LAWS))
def test_usefulness_is_mass_of_the_band(name):
    law = LAWS[name]
    # band mass of the density f = M'(-|w|)/2 (itself checked against the mixture quadrature above)
    f = lambda x: float(r2dp.noise_density(x, law))  # noqa: E731
    for g in (0.1, 0.5, 2.0):
        band = 2 * integrate.quad(f, 0, g, epsabs=1e-14, epsrel=1e-13)[0]
        assert r2dp.usefulness(law, gamma=g) == pytest.approx(band, abs=1e-8)
    if name in USEFULNESS_VALUES:
        got = r2dp.usefulness(law, gamma=np.array([0.1, 0.5, 2.0]))
        assert got == pytest.approx(USEFULNESS_VALUES[name], abs=5e-7)


# ------------------------------ exact ε is the brute-force supremum of the density ratio (Thm 3.2, Cor. 3.3)
EPSILON_VALUES = {
    "Dirac(2)": 2.000000,
    "TwoPoint(1,2,.5)": 1.547168,
    "TwoPoint(.2,.8,.5)": 0.647774,
    "Gamma(3,.5)": 1.621860,
    "Gamma(.7,2)": 1.867641,
    "U(.5,9)": 3.794103,
    "U(0,4)": 2.175488,
    "TN(.5223,1.5454,.5223)": 1.818685,
    "TN(-1,2,.1)": 1.599944,
}


@pytest.mark.parametrize("name", list(LAWS))
def test_exact_epsilon_equals_brute_force_supremum(name):
    law = LAWS[name]
    eps = r2dp.epsilon(law, sensitivity=1.0)
    assert eps == pytest.approx(EPSILON_VALUES[name], abs=1e-6)
    # brute force: sup over an output grid and shifts in (0, 1] of ln f(x)/f(x+s), f by quadrature-checked
    # density; the grid contains x = 0 and s = 1
    x = np.linspace(-4, 4, 801)
    best, arg = -np.inf, None
    for s in np.linspace(0.05, 1.0, 20):
        lr = np.log(r2dp.noise_density(x, law)) - np.log(r2dp.noise_density(x + s, law))
        i = int(np.argmax(lr))
        if lr[i] > best + 1e-12:
            best, arg = lr[i], (x[i], s)
    assert best == pytest.approx(EPSILON_VALUES[name], abs=1e-6)
    assert arg[0] == pytest.approx(0.0, abs=1e-12) and arg[1] == pytest.approx(1.0)
    # the sup also holds against the independent quadrature density at the argmax
    assert math.log(_mixture_density(0.0, law) / _mixture_density(1.0, law)) == pytest.approx(eps, abs=1e-9)
    if name == "Gamma(3,.5)":
        assert eps == pytest.approx(4 * math.log(1.5), abs=1e-12)
    if name == "Gamma(.7,2)":
        assert eps == pytest.approx(1.7 * math.log(3), abs=1e-12)


# ------------------------------------------------------------------- a point mass is plain Laplace (Thm 4.3)
@pytest.mark.parametrize(("u0", "dq", "g"), [(2.0, 1.0, 0.3), (0.4, 2.5, 1.0), (7.0, 0.1, 0.05)])
def test_dirac_is_laplace(u0, dq, g):
    assert r2dp.epsilon(r2dp.Dirac(u0), sensitivity=dq) == pytest.approx(dq * u0, rel=1e-13)
    assert r2dp.usefulness(r2dp.Dirac(u0), gamma=g) == pytest.approx(1 - math.exp(-g * u0), rel=1e-13)
    assert r2dp.laplace_usefulness(dq * u0, gamma=g, sensitivity=dq) == pytest.approx(1 - math.exp(-g * u0))


# ------------------------------------------------------------ Gamma: closed-form ε and its inverse (Thm 4.5)
def test_gamma_closed_form_inverse_and_laplace_limit():
    for k, th, dq in [(3.0, 0.5, 1.0), (0.2, 7.0, 0.3), (40.0, 0.01, 2.0)]:
        assert r2dp.epsilon(r2dp.Gamma(k, th), sensitivity=dq) == pytest.approx(
            (k + 1) * math.log1p(dq * th), rel=1e-13
        )
        th2 = r2dp.gamma_theta_for_epsilon(k, epsilon=(k + 1) * math.log1p(dq * th), sensitivity=dq)
        assert th2 == pytest.approx(th, rel=1e-12)
    eps, g = 2.0, 0.3
    lap = r2dp.laplace_usefulness(eps, gamma=g)
    vals = [
        float(r2dp.usefulness(r2dp.Gamma(k, r2dp.gamma_theta_for_epsilon(k, epsilon=eps)), gamma=g))
        for k in (1e2, 1e4, 1e6)
    ]
    assert abs(vals[-1] - lap) < 1e-6 and abs(vals[0] - lap) > abs(vals[1] - lap) > abs(vals[2] - lap)


# ---------------------------------------------------------------------------- Uniform: Thm 4.7 and Lemma 4.8
def test_uniform_theorem_4_7_equals_corollary_3_3():
    a, b, dq = 0.5, 9.0, 1.2
    al, be = a * dq, b * dq
    thm47 = math.log((be**2 - al**2) / (2 * ((1 + al) * math.exp(-al) - (1 + be) * math.exp(-be))))
    eps = r2dp.epsilon(r2dp.Uniform(a, b), sensitivity=dq)
    assert eps == pytest.approx(thm47, rel=1e-12)
    assert eps == pytest.approx(4.193124, abs=1e-6)
    assert r2dp.necessary_condition(r2dp.Uniform(a, b), sensitivity=dq) == pytest.approx(8.477575, abs=1e-6)


# ---------------------------------------------------- two-point law: the printed Thm 4.4 against the exact ε
@pytest.mark.parametrize(
    ("u0", "u1", "p", "printed", "exact"),
    [(1, 2, 0.5, 1.620115, 1.547168), (0.2, 0.8, 0.5, 0.544341, 0.647774), (0.5, 5, 0.9, 2.792708, 1.234947)],
)
def test_two_point_exact_differs_from_printed_theorem_4_4(u0, u1, p, printed, exact):
    law = r2dp.TwoPoint(u0, u1, p)
    assert r2dp.epsilon(law) == pytest.approx(exact, abs=1e-6)
    assert r2dp.epsilon(law, variant="as_printed") == pytest.approx(printed, abs=1e-6)
    assert abs(exact - printed) > 0.05
    # brute force (independent density from the atoms)
    x = np.linspace(-3, 3, 601)
    dens = lambda y: p * u0 / 2 * np.exp(-u0 * np.abs(y)) + (1 - p) * u1 / 2 * np.exp(-u1 * np.abs(y))  # noqa: E731
    brute = max(np.max(np.log(dens(x)) - np.log(dens(x + s))) for s in np.linspace(0.05, 1, 20))
    assert brute == pytest.approx(exact, abs=1e-6)
    if u0 == 0.2:  # the printed value under-states the leakage: unsafe
        assert r2dp.epsilon(law, variant="as_printed") < brute


# ----------------------------------------------------------------------------- Lemma 4.10 (truncated normal)
def test_lemma_4_10():
    law = r2dp.TruncatedNormal(0.5223, 1.5454, 0.5223)
    assert r2dp.necessary_condition(law, sensitivity=0.6) == pytest.approx(1.241735, abs=1e-6)
    assert r2dp.epsilon(law, sensitivity=0.6) == pytest.approx(1.180112, abs=1e-6)
    # ε by quadrature of E[u]/E[u e^{-0.6u}] (independent)
    dist = stats.truncnorm(law.alpha, np.inf, loc=law.mu, scale=law.sigma)
    num = integrate.quad(lambda u: u * dist.pdf(u), law.low, np.inf)[0]
    den = integrate.quad(lambda u: u * math.exp(-0.6 * u) * dist.pdf(u), law.low, np.inf)[0]
    assert math.log(num / den) == pytest.approx(1.180112, abs=1e-6)
    printed = r2dp.lemma_4_10(variant="as_printed")
    assert printed.epsilon == 1.1703 and printed.log_mgf_at_sensitivity == 1.2417
    assert r2dp.lemma_4_10().epsilon - printed.epsilon == pytest.approx(0.0098, abs=1e-4)


# ---------------------------------------------------------- Thm 4.2: the necessary condition to beat Laplace
def test_theorem_4_2_no_violations_over_random_laws():
    rng = np.random.default_rng(2024)
    checked = 0
    for i in range(3000):
        fam = i % 4
        if fam == 0:
            law = r2dp.Gamma(math.exp(rng.uniform(-2, 3)), math.exp(rng.uniform(-3, 2)))
        elif fam == 1:
            a = rng.uniform(0, 3)
            law = r2dp.Uniform(a, a + math.exp(rng.uniform(-3, 2.5)))
        elif fam == 2:
            law = r2dp.TruncatedNormal(rng.uniform(-3, 5), math.exp(rng.uniform(-2, 1.5)), rng.uniform(0, 2))
        else:
            law = r2dp.TwoPoint(math.exp(rng.uniform(-3, 1)), math.exp(rng.uniform(-1, 3)), rng.uniform(0, 1))
        eps_r = r2dp.epsilon(law)
        if eps_r >= r2dp.necessary_condition(law):
            checked += 1
            for g in (0.05, 0.3, 1.0, 3.0):
                assert r2dp.usefulness(law, gamma=g) <= -math.expm1(-eps_r * g) + 1e-12
    assert checked > 100
    # counter-examples to the remark after Eq. 6: ε_R can be above or below ε_avg = ln M(Δq)
    a = r2dp.TwoPoint(0.2, 0.8, 0.5)
    assert (r2dp.epsilon(a), r2dp.necessary_condition(a)) == pytest.approx((0.6478, 0.5443), abs=1e-4)
    b = r2dp.TwoPoint(0.5, 5.0, 0.9)
    assert (r2dp.epsilon(b), r2dp.necessary_condition(b)) == pytest.approx((1.2349, 2.7927), abs=1e-4)


# ------------------------------------------------------------------------------------------------- Lemma 4.6
def test_lemma_4_6_flip():
    def gap(k: float) -> float:
        law = r2dp.Gamma(k, 0.5)  # θ = 1/(2Δq), Δq = 1
        return r2dp.necessary_condition(law) - r2dp.epsilon(law)

    k0 = brentq(gap, 1.0, 3.0, xtol=1e-12)
    assert k0 == pytest.approx(1.4094208, abs=1e-7)
    assert k0 == pytest.approx(math.log(1.5) / math.log(4 / 3), abs=1e-10)
    assert gap(1.3) < 0 < gap(1.41) and gap(1.5) > 0 and gap(3.0) > 0


# ----------------------------------------------------------------------------------------------- Monte Carlo
# Monte Carlo: tests/stats/test_r2dp_mc.py


# ------------------------------------------------------------------------------- Table I metrics (corrected)
def test_table_I_metrics():
    law = r2dp.Gamma(3.5, 0.8)
    assert r2dp.mean_abs_noise(law) == pytest.approx(0.5, abs=1e-12)
    assert r2dp.rms_noise(law) ** 2 == pytest.approx(0.833333, abs=1e-6)
    assert r2dp.entropy(law) == pytest.approx(0.949242, abs=1e-6)
    assert r2dp.entropy(law) == pytest.approx(math.log(2 / (3.5 * 0.8)) + 4.5 / 3.5, abs=1e-12)
    assert r2dp.entropy(law, variant="as_printed") == pytest.approx(1.285714, abs=1e-6)
    assert r2dp.entropy(r2dp.Dirac(1.7)) == pytest.approx(1.162519, abs=1e-6)
    # direct differential entropy of the Lomax density (independent)
    f = lambda w: 0.5 * 3.5 * 0.8 * (1 + 0.8 * w) ** -4.5  # noqa: E731
    h = -2 * integrate.quad(lambda w: f(w) * math.log(f(w)), 0, np.inf)[0]
    assert h == pytest.approx(0.949242, abs=1e-6)


# ----------------------------------------------------------------- linear combinations (Thm 4.11, Cor. 4.12)
def test_linear_combination_epsilon():
    # ε of a combination = ln(E[u]/M'(-Δq)) with the product rule; brute-force sup via the density
    comb = r2dp.Combination((r2dp.Gamma(2.0, 0.5), r2dp.Uniform(0.2, 1.0), r2dp.TruncatedNormal(0.3, 0.4, 0.1)))
    eps = r2dp.epsilon(comb, sensitivity=0.7)
    m1 = comb.mean
    assert m1 == pytest.approx(1.0 + 0.6 + r2dp.TruncatedNormal(0.3, 0.4, 0.1).mean)
    # product rule written out by hand
    g, u, t = comb.laws
    tt = -0.7
    mp = (
        g.mgf_prime(tt) * u.mgf(tt) * t.mgf(tt)
        + g.mgf(tt) * u.mgf_prime(tt) * t.mgf(tt)
        + g.mgf(tt) * u.mgf(tt) * t.mgf_prime(tt)
    )
    assert eps == pytest.approx(math.log(m1 / mp), rel=1e-12)
    x = np.linspace(-2, 2, 401)
    brute = max(
        np.max(np.log(r2dp.noise_density(x, comb)) - np.log(r2dp.noise_density(x + s, comb)))
        for s in np.linspace(0.07, 0.7, 10)
    )
    assert brute == pytest.approx(eps, abs=1e-10)
    # Monte Carlo part: tests/stats/test_r2dp_mc.py::test_combination_mgf_monte_carlo


# ----------------------------------------- usefulness-optimal laws by family (Eq. 5, Algorithm 1, Figs. 3–6)
# Optimal usefulness (Δq = 1), computed independently of this code base (the paper plots these in Figs. 3–6
# without printing numbers): eps g | Laplace Gamma* Uniform* TN* Gamma+TN two-point staircase*
OPTIMA_TABLE = """
 2.0 0.01  0.01980  0.01980  0.01980  0.01998  0.02228  0.02363  0.06005
 3.0 0.01  0.02955  0.03386  0.03190  0.03562  0.04629  0.05410  0.16027
 5.0 0.01  0.04877  0.11282  0.08172  0.10135  0.15529  0.22778  0.59582
10.0 0.01  0.09516  0.66559  0.58199  0.59705  0.68432  0.93739  0.99548
 1.0 0.05  0.04877  0.04877  0.04877  0.04877  0.04877  0.04877  0.07912
 3.0 0.05  0.13929  0.15208  0.14762  0.15866  0.16978  0.19352  0.48830
 5.0 0.05  0.22120  0.36213  0.33133  0.36277  0.38985  0.51976  0.88054
 8.0 0.05  0.32968  0.73300  0.74686  0.73774  0.73980  0.91845  0.99333
10.0 0.05  0.39347  0.88083  0.90492  0.90006  0.90005  0.98370  0.99909
 1.0 0.10  0.09516  0.09516  0.09516  0.09516  0.09516  0.09516  0.14663
 3.0 0.10  0.25918  0.27240  0.26944  0.28039  0.28507  0.31056  0.65619
 5.0 0.10  0.39347  0.52871  0.52680  0.53672  0.54147  0.66005  0.93647
10.0 0.10  0.63212  0.93937  0.95285  0.95773  0.95773  0.99141  0.99955
 5.0 0.25  0.71350  0.76803  0.78333  0.77675  0.77675  0.82368  0.97358
 5.0 0.50  0.91792  0.92025  0.92117  0.92081  0.92081  0.92454  0.98661
 4.0 0.50  0.86466  0.86466  0.86466  0.86466  0.86466  0.86466  0.96403
"""
ROWS = [tuple(float(v) for v in line.split()) for line in OPTIMA_TABLE.strip().splitlines()]
HALF_ULP5 = 5e-6 + 1e-9  # the table is rounded to 5 decimals


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"eps={r[0]},g={r[1]}")
def test_reproduction_table_single_families(row):
    eps, g, lap, gam, uni, tn, gtn, two, stair = row
    assert r2dp.laplace_usefulness(eps, gamma=g) == pytest.approx(lap, abs=HALF_ULP5)
    assert r2dp.staircase_usefulness(eps, gamma=g) == pytest.approx(stair, abs=HALF_ULP5)
    assert r2dp.optimize(epsilon=eps, gamma=g, family="gamma").usefulness == pytest.approx(gam, abs=HALF_ULP5)
    assert r2dp.optimize(epsilon=eps, gamma=g, family="uniform").usefulness == pytest.approx(uni, abs=HALF_ULP5)
    assert r2dp.optimize(epsilon=eps, gamma=g, family="two_point").usefulness == pytest.approx(two, abs=HALF_ULP5)


@pytest.mark.slow
@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"eps={r[0]},g={r[1]}")
def test_reproduction_table_truncated_normal_and_combination(row):
    eps, g, lap, gam, uni, tn, gtn, two, stair = row
    res_tn = r2dp.optimize(epsilon=eps, gamma=g, family="truncnorm")
    res_gtn = r2dp.optimize(epsilon=eps, gamma=g, family="combo")
    if (eps, g) == (5.0, 0.1):
        # the reference table's TN* = 0.53672 is a local optimum; we find a feasible TN law with
        # exact ε = 5 and U = 0.538541 (both confirmed by independent quadrature in the test below)
        assert res_tn.usefulness == pytest.approx(0.538541, abs=2e-6)
    else:
        # our TN search may be (slightly) better than the reference table; never worse than its value
        assert tn - HALF_ULP5 <= res_tn.usefulness <= tn + 2e-5
    # the table's G+TN column is max(single-family optima, combination)
    assert res_gtn.usefulness == pytest.approx(max(gtn, res_tn.usefulness), abs=HALF_ULP5 + 1e-5)
    assert res_gtn.usefulness >= max(gam, res_tn.usefulness) - HALF_ULP5
    assert res_gtn.usefulness <= two + HALF_ULP5


def test_truncated_normal_improvement_at_eps5_g01_is_real():
    res = r2dp.optimize(epsilon=5.0, gamma=0.1, family="truncnorm")
    law = res.law
    assert isinstance(law, r2dp.TruncatedNormal)
    dist = stats.truncnorm(law.alpha, np.inf, loc=law.mu, scale=law.sigma)
    pts = [law.low, law.low + 1, law.low + 10, law.low + 100, np.inf]

    def e(fn):
        return sum(
            integrate.quad(lambda u: fn(u) * dist.pdf(u), a, b, epsabs=0, epsrel=1e-12, limit=200)[0]
            for a, b in zip(pts[:-1], pts[1:], strict=True)
        )

    eps = math.log(e(lambda u: u) / e(lambda u: u * math.exp(-u)))
    assert eps == pytest.approx(5.0, abs=1e-8)
    assert 1 - e(lambda u: math.exp(-0.1 * u)) == pytest.approx(0.538541, abs=2e-6)
    assert 1 - e(lambda u: math.exp(-0.1 * u)) > 0.53672 + 1e-3


# (ε, γ): U of Laplace, Gamma*, Uniform*, two-point, staircase*; the Gamma* (k, θ), Uniform* (a, b) and two-point
# (u₀, u₁, p) laws; the relative tolerance of the two-point law
ANCHORS = {
    (10, 0.05): (
        (0.393469, 0.880834, 0.904921, 0.983699, 0.999093),
        (0.94657, 169.2445),
        (0.09943, 209.40),
        (1.05346, 121.455, 0.01479),
        3e-4,
    ),
    (5, 0.1): (
        (0.393469, 0.528705, 0.526805, 0.660051, 0.936473),
        (1.11354, 9.65154),
        (0.25815, 16.987),
        (1.16246, 22.6099, 0.29987),
        1e-4,
    ),
}


@pytest.mark.parametrize(("eps", "gamma"), list(ANCHORS))
def test_anchor_points_and_parameters(eps, gamma):
    (lap, gam, uni, two, stair), gamma_law, uniform_law, two_point_law, two_rel = ANCHORS[(eps, gamma)]
    res = {f: r2dp.optimize(epsilon=eps, gamma=gamma, family=f) for f in ("gamma", "uniform", "two_point")}
    assert res["gamma"].laplace_usefulness == pytest.approx(lap, abs=5e-7)
    assert res["gamma"].usefulness == pytest.approx(gam, abs=5e-7)
    assert res["uniform"].usefulness == pytest.approx(uni, abs=5e-7)
    assert res["two_point"].usefulness == pytest.approx(two, abs=5e-7)
    assert r2dp.staircase_usefulness(eps, gamma=gamma) == pytest.approx(stair, abs=5e-7)
    g, u, t = res["gamma"].law, res["uniform"].law, res["two_point"].law
    assert (g.k, g.theta) == pytest.approx(gamma_law, rel=2e-5)
    assert (u.a, u.b) == pytest.approx(uniform_law, rel=1e-4)
    assert (t.u0, t.u1, t.p) == pytest.approx(two_point_law, rel=two_rel)


def test_anchor_point_where_laplace_is_optimal():
    # (1, 0.1): everything = Laplace 0.095163; staircase 0.146633
    for f in ("gamma", "uniform", "two_point", "truncnorm"):
        r = r2dp.optimize(epsilon=1, gamma=0.1, family=f)
        assert r.usefulness == pytest.approx(0.095163, abs=5e-7) and r.laplace_optimal
    assert r2dp.staircase_usefulness(1, gamma=0.1) == pytest.approx(0.146633, abs=5e-7)


def test_headline_ratios_abstract_and_fig5():
    lap = r2dp.laplace_usefulness(10, gamma=0.05)
    assert r2dp.optimize(epsilon=10, gamma=0.05, family="uniform").usefulness / lap == pytest.approx(2.2999, abs=1e-4)
    assert r2dp.optimize(epsilon=10, gamma=0.05, family="gamma").usefulness / lap == pytest.approx(2.2386, abs=1e-4)
    assert r2dp.optimize(epsilon=10, gamma=0.05, family="truncnorm").usefulness / lap == pytest.approx(2.2875, abs=1e-4)
    assert r2dp.optimize(epsilon=10, gamma=0.05, family="two_point").usefulness / lap == pytest.approx(2.5001, abs=1e-4)
    assert r2dp.staircase_usefulness(10, gamma=0.05) / lap == pytest.approx(2.5392, abs=1e-4)
    # Fig. 5 "up to 125%": Gamma +123.9 %
    assert r2dp.optimize(epsilon=10, gamma=0.05, family="gamma").usefulness / lap - 1 == pytest.approx(1.239, abs=1e-3)


def test_global_two_point_equals_lp_with_two_atoms():
    # LP over 6000 atoms (scipy HiGHS) = 2-D two-point search to 5 decimals; ≤ 2 atoms
    u_lp, atoms, probs = r2dp.two_point_lp(epsilon=5.0, gamma=0.1)
    res = r2dp.optimize(epsilon=5.0, gamma=0.1, family="two_point")
    assert u_lp == pytest.approx(0.66005, abs=1e-5)
    assert res.usefulness == pytest.approx(u_lp, abs=1e-5) and res.usefulness >= u_lp - 1e-9
    assert len(atoms) <= 2
    assert atoms == pytest.approx([1.1624, 22.633], rel=2e-3)
    assert probs == pytest.approx([0.3001, 0.6999], abs=2e-3)


# -------------------------------------------------------------------------- where Laplace is already optimal
@pytest.mark.parametrize("eps", [0.5, 2.0, 5.0, 10.0])
@pytest.mark.parametrize("m", [1, 2])
def test_gamma_multiple_of_sensitivity_never_beats_laplace(eps, m):
    res = r2dp.optimize(epsilon=eps, gamma=float(m), family="two_point")
    assert res.laplace_optimal and res.family_usefulness <= res.laplace_usefulness + 1e-9
    assert r2dp.staircase_usefulness(eps, gamma=float(m)) == pytest.approx(res.laplace_usefulness, rel=1e-12)


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("g", [1e-3, 0.05, 0.3, 0.9, 2.5])
def test_eps_at_most_one_laplace_is_optimal(eps, g):
    res = r2dp.optimize(epsilon=eps, gamma=g, family="two_point")
    assert res.family_usefulness <= res.laplace_usefulness + 1e-9
    # the LP-dual certificate e^{-gu} + λ c(u) >= e^{-g eps} for all u with λ = g e^{-g eps}/eps (weak duality)
    u = np.geomspace(1e-6, 1e4, 20001) * eps
    lam = g * math.exp(-g * eps) / eps
    cert = np.exp(-g * u) + lam * u * (1 - np.exp(eps - u))
    assert np.all(cert >= math.exp(-g * eps) - 1e-12)


@pytest.mark.parametrize(("eps", "g"), [(2.0, 0.01), (2.0, 0.5), (3.0, 0.4), (4.0, 0.5), (1.9, 0.0001)])
def test_gamma_uniform_below_local_threshold(eps, g):
    assert eps * (1 - g) <= 2 + 1e-12
    for fam in ("gamma", "uniform"):
        res = r2dp.optimize(epsilon=eps, gamma=g, family=fam)
        assert res.family_usefulness <= res.laplace_usefulness + 1e-9


@pytest.mark.parametrize(("eps", "g"), [(2.15, 0.05), (4.2, 0.5), (2.6, 0.2)])
def test_gamma_beats_laplace_just_above_threshold(eps, g):
    assert eps > r2dp.laplace_threshold(g)
    res = r2dp.optimize(epsilon=eps, gamma=g, family="gamma")
    assert res.family_usefulness > res.laplace_usefulness


@pytest.mark.parametrize(("eps", "g"), [(5.0, 1.0), (20.0, 1.3), (40.0, 2.0), (40.0, 1.1)])
def test_gamma_at_least_sensitivity(eps, g):
    res = r2dp.optimize(epsilon=eps, gamma=g, family="two_point")
    assert res.family_usefulness <= res.laplace_usefulness + 1e-9


# ----------------------------------------------------------------------------------------- the universal cap
def test_universal_cap_and_staircase_bound_on_computed_values():
    for eps, g, *_ in ROWS:
        cap = r2dp.universal_cap(eps, gamma=g)
        stair = r2dp.staircase_usefulness(eps, gamma=g)
        for fam in ("gamma", "uniform", "two_point"):
            u = r2dp.optimize(epsilon=eps, gamma=g, family=fam).usefulness
            assert u <= cap + 1e-12 and u <= stair + 1e-12
    # as g -> 0 the best ratio approaches e^{ε-1}/ε (ε=2: 1.1935, 1.2995, 1.3395 at g=1e-2..1e-4)
    for g, ratio in [(1e-2, 1.1935), (1e-3, 1.2995), (1e-4, 1.3395)]:
        res = r2dp.optimize(epsilon=2.0, gamma=g, family="two_point")
        assert res.ratio == pytest.approx(ratio, abs=1e-4)
        assert res.ratio < math.exp(1) / 2
    assert [math.exp(e - 1) / e for e in (1.5, 2, 3)] == pytest.approx([1.099, 1.359, 2.463], abs=1e-3)


# ----------------------------------------------------------- the staircase benchmark (Geng & Viswanath 2016)
def test_staircase():
    assert [r2dp.staircase_usefulness(3.0, gamma=1.37, r=r) for r in (0.1, 0.3, 0.8)] == pytest.approx(
        [0.987274, 0.993090, 0.971824], abs=5e-7
    )
    got = [r2dp.staircase_usefulness(3.0, gamma=g) for g in (0.05, 0.3, 1.0, 1.37, 2.5)]
    assert got == pytest.approx([0.488302, 0.851316, 0.950213, 0.993824, 0.999765], abs=5e-7)
    # optimal r against a 20,001-point grid
    for g in (0.05, 0.3, 1.37, 2.5):
        grid = max(r2dp.staircase_usefulness(3.0, gamma=g, r=r) for r in np.linspace(0, 1, 2001))
        assert r2dp.staircase_usefulness(3.0, gamma=g) == pytest.approx(grid, abs=1e-8)
    r1 = [r2dp.staircase_optimal_r(e, cost="l1") for e in (0.5, 2, 6)]
    r2 = [r2dp.staircase_optimal_r(e, cost="l2") for e in (0.5, 2, 6)]
    assert r1 == pytest.approx([0.43782, 0.26894, 0.04743], abs=5e-6)
    assert r2 == pytest.approx([0.45834, 0.33513, 0.10529], abs=5e-6)
    # r1*, r2* minimise E|X| and E X² of the staircase (direct minimisation, independent)
    for e, ra, rb in zip((0.5, 2, 6), r1, r2, strict=True):
        b = math.exp(-e)

        def moment(r, p, b=b):  # E|X|^p of the staircase (Δq = 1), summed step by step, vectorised over r
            r = r[:, None]
            j = np.arange(400.0)[None, :]
            a = (1 - b) / (2 * (r + (1 - r) * b))
            tot = a * b**j * ((j + r) ** (p + 1) - j ** (p + 1)) / (p + 1)
            tot = tot + a * b ** (j + 1) * ((j + 1) ** (p + 1) - (j + r) ** (p + 1)) / (p + 1)
            return 2 * tot.sum(axis=1)

        grid = np.linspace(0.001, 0.999, 9981)
        assert grid[np.argmin(moment(grid, 1))] == pytest.approx(ra, abs=2e-4)
        assert grid[np.argmin(moment(grid, 2))] == pytest.approx(rb, abs=2e-4)


# ------------------------------------------------------------ the Gaussian appendix (Thm A.2, A.3, Cor. A.4)
def test_gaussian_appendix():
    k = r2dp.gaussian_kappa(math.log(2), 0.05)
    assert k == pytest.approx(2.645674, abs=1e-6)
    # Q(εσ - 1/(2σ)) at that σ (Δq = 1) = δ: the paper's (as printed) form
    assert r2dp.gaussian_mixture_delta(math.log(2), sigmas=[k], variant="as_printed") == pytest.approx(0.05, abs=1e-12)
    assert 1 - r2dp.gaussian_usefulness([1.3], gamma=2.0) == pytest.approx(0.123936, abs=1e-6)
    # the exact Balle–Wang δ at that σ is only 0.00691
    assert r2dp.gaussian_mixture_delta(math.log(2), sigmas=[k]) == pytest.approx(0.00691, abs=1e-5)
    # mixture numbers: σ ∈ {1, 4} w.p. ½ (ε = 1, Δq = 1)
    assert r2dp.gaussian_mixture_delta(1.0, sigmas=[1, 4]) == pytest.approx(1.46e-6, rel=5e-3)
    assert r2dp.gaussian_mixture_delta(1.0, sigmas=[1, 4], variant="averaged") == pytest.approx(6.35e-2, rel=5e-3)
    assert r2dp.gaussian_mixture_delta(1.0, sigmas=[1, 4], variant="as_printed") == pytest.approx(0.154, rel=5e-3)
    assert r2dp.gaussian_mixture_delta(1.0, sigmas=[2]) == pytest.approx(6.83e-3, rel=5e-3)
    assert r2dp.gaussian_mixture_delta(1.0, sigmas=[2], variant="averaged") == pytest.approx(6.83e-3, rel=5e-3)


def test_exact_mixture_delta_against_brute_force_integral():
    # ∫ (f(x) - e^ε f(x - Δq))_+ dx on a fine grid (independent of the root-finding implementation)
    s, w, eps = np.array([1.0, 4.0]), np.array([0.5, 0.5]), 0.3
    x = np.linspace(-60, 60, 1_200_001)
    f = lambda y: np.sum(w[:, None] * stats.norm.pdf(y[None, :], scale=s[:, None]), axis=0)  # noqa: E731
    brute = np.trapezoid(np.maximum(f(x) - math.exp(eps) * f(x - 1.0), 0), x)
    assert r2dp.gaussian_mixture_delta(eps, sigmas=s, weights=w) == pytest.approx(brute, rel=1e-6)


# ------------------------------------------------------------------------------------------ scale invariance
@pytest.mark.parametrize("law", list(LAWS.values()), ids=list(LAWS))
def test_scale_invariance(law):
    c = 3.7
    eps1 = r2dp.epsilon(law, sensitivity=0.8)
    eps2 = r2dp.epsilon(law.scaled(1 / c), sensitivity=0.8 * c)
    assert eps2 == pytest.approx(eps1, rel=1e-12)
    assert r2dp.usefulness(law.scaled(1 / c), gamma=0.3 * c) == pytest.approx(
        r2dp.usefulness(law, gamma=0.3), rel=1e-12
    )


def test_optimiser_scale_invariance():
    a = r2dp.optimize(epsilon=5, gamma=0.1, sensitivity=1.0, family="two_point").usefulness
    b = r2dp.optimize(epsilon=5, gamma=0.37, sensitivity=3.7, family="two_point").usefulness
    assert a == pytest.approx(b, abs=1e-9)


# -------------------------------------------------------------------- reuse of one draw of u for two queries
def test_reuse_of_u():
    law = r2dp.Gamma(3.0, 0.5)
    joint = r2dp.reuse_epsilon(law, sensitivity=1.0, queries=2)
    assert joint == pytest.approx(5 * math.log(2), abs=1e-12)
    assert joint == pytest.approx(3.465736, abs=1e-6)
    assert 2 * r2dp.epsilon(law) == pytest.approx(3.243721, abs=1e-6)
    # brute force: joint density 2^{-2} E[u² e^{-u(|x1|+|x2|)}] = (1/4) M''(-(|x1|+|x2|)); sup over outputs
    # and neighbour shifts (s1, s2) ∈ [-1, 1]² of the log-ratio, M'' by quadrature (independent)
    dist = stats.gamma(3.0, scale=0.5)

    @functools.cache
    def joint_density(r: float) -> float:
        return 0.25 * integrate.quad(lambda u: u * u * math.exp(-u * r) * dist.pdf(u), 0, np.inf)[0]

    best = -np.inf
    grid = np.linspace(-1.5, 1.5, 13)
    for x1 in grid:
        for x2 in grid:
            base = joint_density(round(abs(x1) + abs(x2), 12))
            for s1 in (-1.0, 1.0):
                for s2 in (-1.0, 1.0):
                    best = max(best, math.log(base / joint_density(round(abs(x1 + s1) + abs(x2 + s2), 12))))
    assert best == pytest.approx(3.465736, abs=1e-6)


def test_fig4_no_law_reaches_1_4_at_eps_2_and_what_the_cap_bounds():
    """Fig. 4's "up to 1.4×" at ε ≤ 2. The cap U ≤ γe^{ε−1}/Δ bounds usefulness against εγ/Δ, not against Laplace's
    1 − e^{−εγ/Δ}: its ratio to Laplace is e^{ε−1}/ε · εγ/(1 − e^{−εγ}) — 1.373 at ε = 2, γ = 0.01, and ≥ 1.4 from
    γ = 0.029 — so it rules out 1.4× only for small γ. The global optimum (two atoms; an LP over atoms agrees) does
    the rest: at ε = 2 its ratio is 1.194 at γ = 0.01 and at most 1.12 for γ ≥ 0.029."""

    def cap_ratio(eps, g):
        return float(r2dp.universal_cap(eps, gamma=g) / r2dp.laplace_usefulness(eps, gamma=g))

    assert cap_ratio(2.0, 0.01) == pytest.approx(math.exp(1) / 2 * 0.02 / -math.expm1(-0.02), rel=1e-12)
    assert cap_ratio(2.0, 0.01) == pytest.approx(1.3728, abs=1e-4)
    assert cap_ratio(2.0, 0.029) > 1.398 and cap_ratio(2.0, 0.03) > 1.4  # the cap alone no longer excludes 1.4×
    assert r2dp.optimize(epsilon=2.0, gamma=0.01, family="two_point").ratio == pytest.approx(1.1935, abs=1e-4)
    lp, _, _ = r2dp.two_point_lp(epsilon=2.0, gamma=0.01)
    assert lp / float(r2dp.laplace_usefulness(2.0, gamma=0.01)) == pytest.approx(1.1935, abs=5e-3)
    for g in np.geomspace(0.029, 20.0, 25):
        assert r2dp.optimize(epsilon=2.0, gamma=float(g), family="two_point").ratio < 1.13
    for eps in (0.5, 1.0, 1.5):  # weaker gains at smaller ε, whatever γ
        for g in (1e-3, 0.01, 0.1, 1.0):
            assert r2dp.optimize(epsilon=eps, gamma=g, family="two_point").ratio < 1.4


def test_sec_v_b_two_point_law_tends_to_randomized_response_only_at_infinite_epsilon():
    """Sec. V-B: with b₀ → 0 and b₁ → ∞ the two-point law releases the true answer w.p. p and pure noise otherwise
    — randomized response. On a continuous answer that limit is not ε-DP for any finite ε: ε grows without bound
    (like ln u₀) as u₀ = 1/b₀ grows, and is ∞ at u₀ = ∞, whatever p < 1."""
    for p in (0.1, 0.5, 0.9):
        eps = [r2dp.epsilon(r2dp.TwoPoint(u0, 1e-3, p)) for u0 in (1.0, 10.0, 100.0, 1000.0, 1e12)]
        assert all(b > a for a, b in itertools.pairwise(eps)) and eps[-1] > 25  # grows like ln u₀: without bound
        assert r2dp.epsilon(r2dp.TwoPoint(math.inf, 1e-3, p)) == math.inf
