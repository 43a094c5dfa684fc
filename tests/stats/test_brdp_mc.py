"""Monte Carlo checks of dpcore.brdp against Prop. 1 and the closed forms (fixed seeds).

Tolerances: 4.5 binomial standard errors per histogram bin (max over bins), 4 standard errors for means,
KS p-value > 1e-3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import brdp

CASES = [
    ("gaussian", 3.05, 1.0, 0.6),
    ("gaussian", 1.0, 2.0, 0.9),
    ("gaussian", 4.0, 0.5, 1.0),
    ("laplace", 1.0, 1.0, 0.5),
    ("laplace", 0.5, 0.3, 0.95),
]


def _hist_check(y, kw, lo, hi, nbins=40):
    edges = np.linspace(lo, hi, nbins + 1)
    counts, _ = np.histogram(y, bins=edges)
    prob = np.diff(brdp.output_cdf(edges, **kw))
    n = len(y)
    se = np.sqrt(n * prob * (1 - prob)) + 1.0
    z = np.abs(counts - n * prob) / se
    assert z.max() < 4.5, (z.max(), kw)
    # cross-check the CDF differences against Prop. 1 by the midpoint rule
    mid = 0.5 * (edges[1:] + edges[:-1])
    f = brdp.output_density(mid, **kw)
    inner = (
        (edges[1:] <= -kw["theta"])
        | (edges[:-1] >= kw["theta"])
        | ((edges[:-1] >= -kw["theta"]) & (edges[1:] <= kw["theta"]))
    )
    assert np.allclose((f * np.diff(edges))[inner], prob[inner], rtol=0.02, atol=1e-4)


@pytest.mark.parametrize("kernel,scale,theta,q", CASES)
def test_direct_sampler_histogram_vs_prop1(kernel, scale, theta, q):
    kw = dict(kernel=kernel, scale=scale, theta=theta, q=q)
    y = brdp.sample_outputs(200_000, **kw, rng=11)
    _hist_check(y, kw, -4 * scale - theta, 4 * scale + theta)
    assert stats.kstest(y, lambda t: brdp.output_cdf(t, **kw)).pvalue > 1e-3
    acc = brdp.acceptance_rate(**kw)
    se = math.sqrt(acc * (1 - acc) / len(y)) + 1e-12
    assert abs(np.mean(np.abs(y) <= theta) - acc) < 4 * se + 1e-12
    var = brdp.output_variance(**kw)
    assert abs(np.var(y) - var) < 4 * np.std(y**2) / math.sqrt(len(y))


@pytest.mark.parametrize("kernel,scale,theta,q", CASES[:2] + CASES[3:4])
def test_recycling_loop_matches_prop1_and_direct(kernel, scale, theta, q):
    kw = dict(kernel=kernel, scale=scale, theta=theta, q=q)
    tr = brdp.simulate_recycler(50_000, **kw, center=3.0, rng=12)
    y = tr.output[tr.outcome != "recycled"].to_numpy() - 3.0
    _hist_check(y, kw, -4 * scale - theta, 4 * scale + theta, nbins=30)
    direct = brdp.sample_outputs(50_000, **kw, rng=13)
    assert stats.ks_2samp(y, direct).pvalue > 1e-3
    # number of draws per release: geometric with success 1 - pbar q
    k = tr.groupby("release").size().to_numpy()
    m = brdp.expected_draws(**kw)
    assert abs(k.mean() - m) < 4 * math.sqrt(m * (m - 1) / len(k)) + 1e-12
    # the draw count does not depend on the true answer (translation invariance)
    tr0 = brdp.simulate_recycler(50_000, **kw, center=-100.0, rng=14)
    k0 = tr0.groupby("release").size().to_numpy()
    assert abs(k.mean() - k0.mean()) < 4 * math.sqrt(2 * m * (m - 1) / len(k)) + 1e-12


def test_recycle_rates_in_animation_trace():
    kw = dict(kernel="gaussian", scale=3.0, theta=1.0, q=0.7)
    tr = brdp.simulate_recycler(40_000, **kw, rng=15)
    p = brdp.success_probability(kernel="gaussian", scale=3.0, theta=1.0)
    frac_recycled = float((tr.outcome == "recycled").mean())
    ref = (1 - p) * 0.7  # per draw
    assert abs(frac_recycled - ref) < 4 * math.sqrt(ref * (1 - ref) / len(tr))


def test_exact_delta_by_monte_carlo_privacy_loss():
    """delta(eps) = E_P[(1 - e^{eps - Gamma})_+], Gamma = ln f_brdp(Y|0)/f_brdp(Y|D), Y ~ BR-DP(0)."""
    kw = dict(kernel="gaussian", scale=1.0, theta=1.0, q=0.5)
    y = brdp.sample_outputs(400_000, **kw, rng=16)
    gam = np.log(brdp.output_density(y, **kw)) - np.log(brdp.output_density(y, **kw, center=1.0))
    for eps in (0.0, 0.5, 1.0):
        v = np.maximum(0.0, 1 - np.exp(eps - gam))
        ref = brdp.exact_delta(eps, **kw, sensitivity=1.0, shifts=1)
        assert abs(v.mean() - ref) < 4 * v.std() / math.sqrt(len(v))


def test_subsampled_true_acceptance_by_simulation():
    """Sum query on Gaussian data, fixed-size subsample, rescaled by 1/p, plus BR-DP noise."""
    rng = np.random.default_rng(17)
    n, p, sx, reps = 200, 0.4, 1.0, 40_000
    m = int(p * n)
    x = rng.normal(0.0, sx, size=(reps, n))
    err = x.sum(1) - x[:, :m].sum(1) / p
    kw = dict(scale=3.0, theta=4.0, q=0.8)
    noise = brdp.sample_outputs(reps, kernel="gaussian", **kw, rng=18)
    emp = np.mean(np.abs(err + noise) <= 4.0)
    se_x = brdp.sampling_error_std("sum", rate=p, n_records=n, sigma_x=sx)
    ref = brdp.subsampled_acceptance(**kw, sigma_e=se_x)
    assert abs(emp - ref) < 4 * math.sqrt(ref * (1 - ref) / reps)
    # eq. (13) pretends the recycler bounds E + N: it over-states the acceptance here
    assert brdp.subsampled_acceptance(**kw, sigma_e=se_x, variant="corrected") > emp + 0.01


def test_sampler_speed_shape_large():
    y = brdp.sample_outputs(1_000_000, kernel="laplace", scale=1.0, theta=0.5, q=0.9, rng=19)
    assert y.shape == (1_000_000,) and np.isfinite(y).all()


def test_experiment_sandbox_acceptances():
    rng = np.random.default_rng(20)
    x = rng.normal(5.0, 10.0, 1000)
    reps = 4000
    df = brdp.experiment_releases(
        x,
        query="sum",
        epsilon=0.5,
        delta=1e-5,
        sensitivity=12,
        theta=10,
        n_releases=reps,
        rng=21,
        accountant="paper",
        mechanisms=("Lap-DP", "Gau-DP", "Lap-BRDP", "Gau-BRDP", "SMP-Gau-BRDP"),
    )
    assert set(df.columns) == {"mechanism", "release", "output", "error", "in_bound"}
    acc = df.groupby("mechanism").in_bound.mean()
    # Fig. 7(b)'s setting sum(D = 12, theta = 10), eps 0.5, acceptances computed in closed form: Gaussian DP / BR-DP
    # .0943/.0996, Laplace DP / BR-DP .3408/.3408
    for mech, ref in (("Gau-DP", 0.0943), ("Gau-BRDP", 0.0996), ("Lap-DP", 0.3408), ("Lap-BRDP", 0.3408)):
        assert abs(acc[mech] - ref) < 4 * math.sqrt(ref * (1 - ref) / reps), mech
    smp = df[df.mechanism == "SMP-Gau-BRDP"]
    assert len(smp) == reps and np.isfinite(smp.output).all()
