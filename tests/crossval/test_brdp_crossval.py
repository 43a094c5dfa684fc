"""Cross-validation of the exact BR-DP accountant: brute-force numerical integration and dp_accounting."""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from scipy import integrate, stats

from dpcore import brdp


def brute_hockey(eps, kernel, s, theta, q, d, n=200_000, span=None):
    """Midpoint rule for int max(0, P - e^eps Q), P, Q from Prop. 1 (output_density), on a fine grid whose cells
    never straddle a jump of either density (cuts at +-theta, d +- theta) or a kink of the kernels (0, d)."""
    span = span or (40 * s + theta + d)
    cuts = np.unique([-span, -theta, theta, d - theta, d + theta, 0.0, d, span + d])
    kw = dict(kernel=kernel, scale=s, theta=theta, q=q)
    total = 0.0
    for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
        m = max(10, int(n * (hi - lo) / (cuts[-1] - cuts[0])))
        h = (hi - lo) / m
        x = lo + h * (np.arange(m) + 0.5)
        p = brdp.output_density(x, **kw)
        qd = brdp.output_density(x, **kw, center=d)
        total += h * np.maximum(0.0, p - math.exp(eps) * qd).sum()
    return total


CASES = [
    ("gaussian", 1.0, 1.0, 0.5, 1.0),
    ("gaussian", 3.7306, 1.0, 0.3, 1.0),
    ("gaussian", 0.8, 0.3, 0.9, 2.0),
    ("gaussian", 2.0, 3.0, 0.99, 0.2),
    ("laplace", 1.0, 1.0, 0.5, 1.0),
    ("laplace", 0.5, 0.3, 0.9, 2.0),
    ("laplace", 2.0, 3.0, 0.7, 0.5),
]


@pytest.mark.parametrize("kernel,s,theta,q,d", CASES)
def test_exact_delta_vs_brute_force(kernel, s, theta, q, d):
    for eps in (-0.5, 0.0, 0.3, 1.0):
        ref = brute_hockey(eps, kernel, s, theta, q, d)
        got = brdp.exact_delta(eps, kernel=kernel, scale=s, theta=theta, q=q, sensitivity=d, shifts=1)
        assert got == pytest.approx(ref, abs=1e-7)


@pytest.mark.parametrize("kernel,s,theta,q,d", CASES[:2] + CASES[4:5])
def test_reverse_direction_is_equal(kernel, s, theta, q, d):
    kw = dict(kernel=kernel, scale=s, theta=theta, q=q)
    for eps in (0.0, 0.5):

        def f(x, eps=eps):
            return max(0.0, brdp.output_density(x, **kw, center=d) - math.exp(eps) * brdp.output_density(x, **kw))

        pts = sorted({-theta, theta, d - theta, d + theta, 0.0, d})
        ref = integrate.quad(f, -60 * s, 60 * s + d, points=pts, limit=400, epsabs=1e-13)[0]
        got = brdp.exact_delta(eps, **kw, sensitivity=d, shifts=1)
        assert got == pytest.approx(ref, abs=1e-9)


def test_sup_over_shifts_is_the_max_over_d():
    kw = dict(kernel="gaussian", scale=0.5, theta=2.0, q=0.95)
    d_grid = np.linspace(0.01, 1.5, 60)
    brute = max(brute_hockey(1.0, "gaussian", 0.5, 2.0, 0.95, d, n=50_000) for d in d_grid)
    got = brdp.exact_delta(1.0, **kw, sensitivity=1.5, shifts=300)
    assert got >= brute - 2e-6
    assert got == pytest.approx(brute, rel=0.02, abs=2e-6)


def test_q0_exact_pld_matches_dp_accounting_gaussian():
    plan = brdp.make_plan(epsilon=1, delta=1e-5, sensitivity=1, theta=1, kernel="gaussian", epsilon_y=1, q=0.0)
    ref = pld_lib.from_gaussian_mechanism(plan.scale, value_discretization_interval=1e-4)
    for t in (1, 5, 20):
        r = ref.self_compose(t) if t > 1 else ref
        for eps in (0.5, 1.0, 2.0):
            got = brdp.composed_delta(eps, compositions=t, plan=plan, accountant="exact")
            assert got == pytest.approx(r.get_delta_for_epsilon(eps), rel=0.02, abs=1e-9)


def test_q0_exact_pld_matches_dp_accounting_laplace():
    plan = brdp.make_plan(epsilon=0.5, delta=1e-5, sensitivity=1, theta=1, kernel="laplace", epsilon_y=0.5, q=0.0)
    ref = pld_lib.from_laplace_mechanism(plan.scale, value_discretization_interval=1e-4)
    for t in (1, 10, 50):
        r = ref.self_compose(t) if t > 1 else ref
        got = brdp.composed_epsilon(1e-5, compositions=t, plan=plan, accountant="exact")
        assert got == pytest.approx(r.get_epsilon_for_delta(1e-5), abs=t * 1e-4 + 1e-3)


def test_exact_brdp_pld_composition_vs_monte_carlo_two_fold():
    """T = 2: delta from the composed PLD equals E[(1 - e^{eps - G1 - G2})_+] estimated by sampling."""
    kw = dict(kernel="gaussian", scale=1.0, theta=1.0, q=0.6)
    plan = brdp.make_plan(epsilon=3.0, delta=1e-3, sensitivity=1.0, theta=1.0, kernel="gaussian", epsilon_y=3.0, q=0.6)
    assert plan.scale == pytest.approx(brdp.kernel_scale(3.0, 1e-3), rel=1e-9)
    kw["scale"] = plan.scale
    rng = np.random.default_rng(21)
    y = brdp.sample_outputs(800_000, **kw, rng=rng).reshape(2, -1)
    g = np.log(brdp.output_density(y, **kw)) - np.log(brdp.output_density(y, **kw, center=1.0))
    tot = g.sum(0)
    for eps in (0.5, 1.0, 2.0):
        v = np.maximum(0.0, 1 - np.exp(eps - tot))
        got = brdp.composed_delta(eps, compositions=2, plan=plan, accountant="exact")
        assert abs(got - v.mean()) < 4 * v.std() / math.sqrt(v.size) + 2e-4 * got


def test_paper_accountant_matches_stats_binomial_mixture():
    pl = brdp.optimize(epsilon=1, delta=1e-5, sensitivity=1, theta=1, kernel="gaussian", accountant="paper")
    t, eps = 6, 2.0
    from dpcore import accounting

    ref = sum(
        stats.binom.pmf(k, t, 1 - pl.w)
        * accounting.gaussian_delta(eps - (t - k) * pl.loss, sigma=pl.scale, compositions=t)
        for k in range(t + 1)
    )
    assert brdp.composed_delta(eps, compositions=t, plan=pl, accountant="paper") == pytest.approx(ref, rel=1e-12)


def test_laplace_rdp_bounds_dominate_dp_accounting_pld():
    plan = brdp.make_plan(epsilon=0.5, delta=1e-5, sensitivity=1, theta=1, kernel="laplace", epsilon_y=0.5, q=0.0)
    ref = pld_lib.from_laplace_mechanism(plan.dp_scale, value_discretization_interval=1e-4).self_compose(20)
    for kc in ("rdp", "rdp_improved"):
        e = brdp.composed_epsilon(1e-5, compositions=20, plan=plan, accountant="dp", kernel_composition=kc)
        assert e >= ref.get_epsilon_for_delta(1e-5) - 1e-9
    a = brdp.composed_epsilon(1e-5, compositions=20, plan=plan, accountant="dp", kernel_composition="rdp")
    b = brdp.composed_epsilon(1e-5, compositions=20, plan=plan, accountant="dp", kernel_composition="rdp_improved")
    assert b <= a
