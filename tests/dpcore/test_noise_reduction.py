"""Unit tests for dpcore.noise_reduction (Rogers, Samorodnitsky, Wu, Ramdas 2023)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpcore import noise_reduction as nr

GRID = np.array([0.1, 0.2, 0.5, 1.0, 2.0])


# ---------------------------------------------------------------------------------------------- paths


def test_brownian_path_shape_and_seed():
    a = nr.brownian_path(GRID, n_paths=3, rng=7)
    b = nr.brownian_path(GRID, n_paths=3, rng=7)
    assert a.shape == (3, 5)
    np.testing.assert_array_equal(a, b)
    assert nr.brownian_path([0.5], rng=1).shape == (1, 1)


def test_brownian_path_sensitivity_scales_noise():
    a = nr.brownian_path(GRID, n_paths=4, rng=3)
    b = nr.brownian_path(GRID, n_paths=4, sensitivity=2.5, rng=3)
    np.testing.assert_allclose(b, 2.5 * a, rtol=1e-14)


def test_brownian_path_equals_random_walk_in_precision_clock():
    # independent construction: B(t) at t_k = 1/eps_k^2 from W(s) = s B(1/s) built by hand
    gen = np.random.default_rng(11)
    xi = gen.standard_normal(5)
    s = GRID**2
    w = np.cumsum(xi * np.sqrt(np.r_[s[0], np.diff(s)]))
    np.testing.assert_allclose(nr.brownian_path(GRID, rng=11)[0], w / s, rtol=1e-12)


@pytest.mark.parametrize("form", ["increment", "bridge"])
def test_sampler_matches_fixed_grid(form):
    s = nr.BrownianSampler(form=form, rng=5)
    got = np.array([s.step(e)[0] for e in GRID])
    np.testing.assert_allclose(got, nr.brownian_path(GRID, rng=5)[0], rtol=1e-10, atol=1e-12)
    assert s.epsilon == pytest.approx(2.0)
    assert s.epsilons == list(GRID)
    np.testing.assert_allclose(s.noise, got[-1:])


def test_sampler_rejects_non_increasing_level():
    s = nr.BrownianSampler(rng=0)
    s.step(1.0)
    with pytest.raises(ValueError, match="epsilon"):
        s.step(1.0)
    with pytest.raises(ValueError, match="epsilon"):
        s.step(0.5)
    with pytest.raises(ValueError, match="epsilon"):
        s.step(-1.0)
    with pytest.raises(ValueError, match="form"):
        nr.BrownianSampler(form="euler")
    with pytest.raises(ValueError, match="n_paths"):
        nr.BrownianSampler(n_paths=0)
    ls = nr.LaplaceSampler(rng=0)
    ls.step(0.3)
    with pytest.raises(ValueError, match="epsilon"):
        ls.step(0.2)


@pytest.mark.parametrize("fn", [nr.brownian_path, nr.laplace_path])
@pytest.mark.parametrize(
    "bad", [[], [0.0, 1.0], [-1.0, 1.0], [1.0, 1.0], [2.0, 1.0], [[0.1, 0.2]], [0.1, np.inf], [0.1, np.nan]]
)
def test_paths_reject_bad_grids(fn, bad):
    with pytest.raises(ValueError, match="epsilons"):
        fn(bad)


@pytest.mark.parametrize("fn", [nr.brownian_path, nr.laplace_path])
def test_paths_reject_bad_arguments(fn):
    with pytest.raises(ValueError, match="n_paths"):
        fn(GRID, n_paths=0)
    with pytest.raises(ValueError, match="sensitivity"):
        fn(GRID, sensitivity=0.0)
    with pytest.raises(ValueError, match="rng"):
        fn(GRID, rng=-1)


@pytest.mark.parametrize("method", ["fixed", "reverse"])
def test_laplace_path_shape_and_flat_stretches(method):
    x = nr.laplace_path(GRID, n_paths=2000, method=method, rng=2)
    assert x.shape == (2000, 5)
    # the path is piecewise constant: exact repeats between adjacent levels do occur
    assert np.mean(x[:, 0] == x[:, 1]) > 0.05
    with pytest.raises(ValueError, match="method"):
        nr.laplace_path(GRID, method="other")


def test_laplace_reverse_step_at_zero_is_finite():
    s = nr.LaplaceSampler(n_paths=50, rng=1)
    s._x = np.zeros(50)  # noqa: SLF001 - deliberately exercise the a = 0 branch
    s._b = 2.0  # noqa: SLF001
    s._eps = 0.5  # noqa: SLF001
    out = s.step(1.0)
    assert np.all(np.isfinite(out))


# ---------------------------------------------------------------------------------------------- losses


def test_brownian_loss_is_gaussian_log_likelihood_ratio():
    y, eps, fx, fxp = 3.7, 0.8, 3.0, 2.0
    sd = 1.0 / eps
    want = stats.norm.logpdf(y, fx, sd) - stats.norm.logpdf(y, fxp, sd)
    assert nr.brownian_loss(y, epsilon=eps, value=fx, neighbour=fxp) == pytest.approx(want, rel=1e-12)
    # sensitivity Δ: noise sd Δ/ε
    want2 = stats.norm.logpdf(y, fx, 3 * sd) - stats.norm.logpdf(y, fxp, 3 * sd)
    got2 = nr.brownian_loss(y, epsilon=eps, value=fx, neighbour=fxp, sensitivity=3.0)
    assert got2 == pytest.approx(want2, rel=1e-12)
    arr = nr.brownian_loss(np.array([1.0, 2.0]), epsilon=eps, value=fx, neighbour=fxp)
    assert arr.shape == (2,)


def test_laplace_loss_is_laplace_log_likelihood_ratio_and_bounded():
    y = np.linspace(-5, 5, 101)
    eps, fx, fxp = 0.7, 1.0, 0.0
    b = 1.0 / eps
    want = stats.laplace.logpdf(y, fx, b) - stats.laplace.logpdf(y, fxp, b)
    got = nr.laplace_loss(y, epsilon=eps, value=fx, neighbour=fxp)
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert np.all(np.abs(got) <= eps + 1e-12)


def test_loss_bad_inputs():
    with pytest.raises(ValueError, match="epsilon"):
        nr.brownian_loss(1.0, epsilon=-1.0, value=0.0, neighbour=1.0)
    with pytest.raises(ValueError, match="sensitivity"):
        nr.laplace_loss(1.0, epsilon=1.0, value=0.0, neighbour=1.0, sensitivity=0)
    with pytest.raises(ValueError, match="release"):
        nr.brownian_loss(np.nan, epsilon=1.0, value=0.0, neighbour=1.0)


def test_psi_and_expost_bound():
    v, g, d = 1.0, 1.0, 0.05
    assert nr.psi(v, gamma=g, delta=d) == pytest.approx(math.sqrt((v + g) * math.log((v + g) / (d * d * g))))
    printed = nr.brownian_expost_bound(v, gamma=g, delta=d, variant="as_printed")
    fixed = nr.brownian_expost_bound(v, gamma=g, delta=d)
    assert fixed - printed == pytest.approx(v / 2)  # Thm 5 as printed drops the drift
    with pytest.raises(ValueError, match="gamma"):
        nr.psi(1.0, gamma=0.0, delta=0.1)
    with pytest.raises(ValueError, match="delta"):
        nr.psi(1.0, gamma=1.0, delta=1.0)
    with pytest.raises(ValueError, match="variant"):
        nr.brownian_expost_bound(1.0, gamma=1.0, delta=0.1, variant="paper")
    with pytest.raises(ValueError, match="v"):
        nr.psi(-1.0, gamma=1.0, delta=0.1)


# ---------------------------------------------------------------------------------------------- stopping rule


def test_relative_error_stop_matches_its_definition():
    alpha = 0.1
    for y in [-300.0, -25.0, -5.0, 0.0, 5.0, 20.0, 25.0, 300.0]:
        for e in [0.01, 0.1, 0.9, 1.1, 5.0]:
            sig = 1.0 / e
            if abs(y) > sig:
                r = abs((y + sig) / (y - sig))
                want = (1 - alpha < r) and (r <= 1 + alpha)
            else:
                want = False
            assert nr.relative_error_stop(y, e, alpha=alpha) == want, (y, e)


def test_relative_error_stop_bad_inputs():
    with pytest.raises(ValueError, match="alpha"):
        nr.relative_error_stop(10.0, 1.0, alpha=0.0)
    with pytest.raises(ValueError, match="alpha"):
        nr.relative_error_stop(10.0, 1.0, alpha=-0.1)
    with pytest.raises(ValueError, match="epsilon"):
        nr.relative_error_stop(10.0, 0.0, alpha=0.1)


# ---------------------------------------------------------------------------------------------- release


def test_release_with_stopping_fields():
    eps = np.sqrt(np.linspace(1e-4, 1.0, 1000))
    r = nr.release_with_stopping(50.0, epsilons=eps, alpha=0.1, rng=3)
    assert r.accepted
    assert r.mechanism == "brownian"
    assert r.epsilon_stop == eps[r.index]
    assert r.charge == pytest.approx(r.epsilon_stop**2 / 2)  # only the stopping level is charged
    assert r.charge_max == pytest.approx(0.5)
    assert r.releases.shape == (r.index + 1,) == r.epsilons.shape
    assert r.release == r.releases[-1]
    # the rule fires exactly at the first index where it holds
    fired = nr.relative_error_stop(r.releases, r.epsilons, alpha=0.1)
    assert fired[-1] and not fired[:-1].any()
    want = nr.brownian_loss(r.release, epsilon=r.epsilon_stop, value=50.0, neighbour=49.0)
    assert r.loss == pytest.approx(want)
    assert r.neighbour == 49.0


def test_release_path_is_a_brownian_path_prefix():
    # the lazy chunked sampler and the sequential sampler give the same law; with a rule that never
    # fires and a one-chunk grid both consume the same random stream, so they agree exactly.
    eps = np.linspace(0.1, 1.0, 20)
    r = nr.release_with_stopping(0.0, epsilons=eps, alpha=1e-9, rng=4)
    assert not r.accepted and r.index == 19
    np.testing.assert_allclose(r.releases, nr.brownian_path(eps, rng=4)[0], rtol=1e-10)


def test_release_custom_stop_never_sees_value():
    seen = []

    def stop(levels, values):
        seen.append((levels.copy(), values.copy()))
        return len(values) == 3

    eps = np.array([0.1, 0.2, 0.3, 0.4])
    r = nr.release_with_stopping(123.0, epsilons=eps, alpha=0.1, stop=stop, rng=0)
    assert r.index == 2 and r.accepted and r.epsilon_stop == 0.3
    assert [len(v) for _, v in seen] == [1, 2, 3]
    for lv, vals in seen:  # only (eps_k, Y_k) pairs are passed
        assert lv.shape == vals.shape
    with pytest.raises(ValueError, match="stop"):
        nr.release_with_stopping(1.0, epsilons=eps, alpha=0.1, stop=3)


def test_release_laplace():
    eps = np.sqrt(np.linspace(1e-4, 1.0, 300))
    r = nr.release_with_stopping(80.0, epsilons=eps, alpha=0.1, mechanism="laplace", rng=5)
    assert r.charge == r.epsilon_stop  # pure ex-post: charged eps_T
    assert r.charge_max == eps[-1]
    assert abs(r.loss) <= r.epsilon_stop + 1e-12
    fired = nr.relative_error_stop(r.releases, r.epsilons, alpha=0.1)
    assert fired[-1] == r.accepted and not fired[:-1].any()


def test_release_never_stopping_returns_last_level():
    r = nr.release_with_stopping(0.5, epsilons=[0.01, 0.02, 0.03], alpha=0.1, rng=1)
    assert not r.accepted and r.index == 2 and r.charge == pytest.approx(0.03**2 / 2)


def test_release_bad_inputs():
    with pytest.raises(ValueError, match="alpha"):
        nr.release_with_stopping(1.0, epsilons=GRID, alpha=0.0)
    with pytest.raises(ValueError, match="epsilons"):
        nr.release_with_stopping(1.0, epsilons=[0.2, 0.1], alpha=0.1)
    with pytest.raises(ValueError, match="epsilons"):
        nr.release_with_stopping(1.0, epsilons=[-0.2, 0.1], alpha=0.1)
    with pytest.raises(ValueError, match="mechanism"):
        nr.release_with_stopping(1.0, epsilons=GRID, alpha=0.1, mechanism="gauss")
    with pytest.raises(ValueError, match="value"):
        nr.release_with_stopping(np.inf, epsilons=GRID, alpha=0.1)


# ---------------------------------------------------------------------------------------------- doubling


def test_doubling_levels():
    lv = nr.doubling_levels(0.01, 1.0)
    np.testing.assert_allclose(lv[:-1] ** 2, 1e-4 * 2.0 ** np.arange(lv.size - 1))
    assert lv[-1] == pytest.approx(1.0)
    assert lv[-2] ** 2 * 2 >= 1.0 > lv[-2] ** 2
    np.testing.assert_allclose(nr.doubling_levels(0.5, 0.5), [0.5])
    with pytest.raises(ValueError, match="epsilon_max"):
        nr.doubling_levels(1.0, 0.5)
    with pytest.raises(ValueError, match="epsilon_start"):
        nr.doubling_levels(0.0, 0.5)


def test_doubling_release_pays_every_attempt():
    d = nr.doubling_release(50.0, alpha=0.1, epsilon_start=0.01, epsilon_max=1.0, rng=3)
    assert d.attempts == d.epsilons.size == d.releases.size
    assert d.charge == pytest.approx(np.sum(d.epsilons**2) / 2)
    np.testing.assert_allclose(d.epsilons, nr.doubling_levels(0.01, 1.0)[: d.attempts])
    fired = nr.relative_error_stop(d.releases, d.epsilons, alpha=0.1)
    assert fired[-1] == d.accepted and not fired[:-1].any()


def test_doubling_release_failure_at_cap_and_budget_cap():
    d = nr.doubling_release(0.0, alpha=0.1, epsilon_start=0.01, epsilon_max=0.05, rng=1)
    assert not d.accepted and d.epsilon_stop == pytest.approx(0.05)
    d2 = nr.doubling_release(0.0, alpha=0.1, epsilon_start=0.01, epsilon_max=10.0, rho_budget=0.01, rng=1)
    assert not d2.accepted
    assert d2.charge == pytest.approx(0.01, rel=1e-9)  # the last attempt uses exactly the remainder


def test_doubling_bad_inputs():
    with pytest.raises(ValueError, match="alpha"):
        nr.doubling_release(1.0, alpha=-1, epsilon_start=0.1, epsilon_max=1.0)
    with pytest.raises(ValueError, match="epsilon_max"):
        nr.doubling_release(1.0, alpha=0.1, epsilon_start=0.1, epsilon_max=0.01)
    with pytest.raises(ValueError, match="rho_budget"):
        nr.doubling_release(1.0, alpha=0.1, epsilon_start=0.1, epsilon_max=1.0, rho_budget=0.0)


# ---------------------------------------------------------------------------------------------- EM, Zipf


def test_em_rho_and_selection():
    assert nr.em_rho(0.1) == pytest.approx(0.1**2 / 8)
    assert nr.em_rho(0.1, neighbours="replace") == pytest.approx(0.1**2 / 2)
    with pytest.raises(ValueError, match="neighbours"):
        nr.em_rho(0.1, neighbours="x")
    scores = np.array([0.0, 100.0, 5.0])
    assert nr.exponential_mechanism(scores, epsilon=1.0, rng=0) == 1
    mask = np.array([True, False, True])
    picks = {nr.exponential_mechanism(scores, epsilon=0.01, candidates=mask, rng=s) for s in range(50)}
    assert picks <= {0, 2} and len(picks) == 2
    rows = nr.exponential_mechanism(np.tile(scores, (4, 1)), epsilon=1.0, rng=0)
    assert rows.shape == (4,)
    with pytest.raises(ValueError, match="epsilon"):
        nr.exponential_mechanism(scores, epsilon=0.0)
    with pytest.raises(ValueError, match="candidates"):
        nr.exponential_mechanism(scores, epsilon=1.0, candidates=[False, False, False])
    with pytest.raises(ValueError, match="scores"):
        nr.exponential_mechanism([], epsilon=1.0)


def test_zipf_probabilities():
    p = nr.zipf_probabilities(0.75, 300)
    assert p.shape == (300,) and p.sum() == pytest.approx(1.0)
    assert np.all(np.diff(p) < 0)
    with pytest.raises(ValueError, match="support"):
        nr.zipf_probabilities(0.75, 0)


def test_zipf_experiment_structure_and_progress():
    fr = []
    df = nr.zipf_experiment(sample_sizes=(8000,), trials=3, grid_size=200, rng=1, progress=fr.append)
    assert isinstance(df, pd.DataFrame)
    assert set(df["method"]) == {"noise_reduction", "doubling"}
    for col in ("results_mean", "results_sd", "results_ci_low", "results_ci_high", "precision_mean"):
        assert col in df.columns
    assert np.all(df["results_ci_low"] <= df["results_mean"])
    assert np.all(df["precision_mean"].between(0, 1))
    assert fr == pytest.approx([1 / 3, 2 / 3, 1.0])
    tr = nr.zipf_trials(sample_sizes=(8000,), trials=2, grid_size=100, rng=2)
    assert len(tr) == 4
    # the filter never lets the spend exceed rho* = 1.353015 (Section 7.2)
    assert tr["rho_spent"].max() <= 1.353015 + 1e-6


def test_zipf_experiment_bad_inputs():
    with pytest.raises(ValueError, match="trials"):
        nr.zipf_experiment(trials=0)
    with pytest.raises(ValueError, match="alpha"):
        nr.zipf_experiment(trials=1, sample_sizes=(100,), alpha=0.0)
    with pytest.raises(ValueError, match="delta"):
        nr.zipf_experiment(trials=1, sample_sizes=(100,), delta=1.0)
    with pytest.raises(ValueError, match="epsilon"):
        nr.zipf_experiment(trials=1, sample_sizes=(100,), epsilon=-1.0)
    with pytest.raises(ValueError, match="sample_sizes"):
        nr.zipf_experiment(trials=1, sample_sizes=(100.5,))
    with pytest.raises(ValueError, match="methods"):
        nr.zipf_experiment(trials=1, sample_sizes=(100,), methods=("bm",))
    with pytest.raises(ValueError, match="variant"):
        nr.zipf_experiment(trials=1, sample_sizes=(100,), variant="paper")
    with pytest.raises(ValueError, match="progress"):
        nr.zipf_experiment(trials=1, sample_sizes=(100,), progress=3)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("y", [15.0, 60.0, 400.0])
def test_linear_grid_runner_matches_general_runner(seed, y):
    # the experiment's grid-free runner equals the general one on linspace(s0, s1, k)
    s0, s1, k = 1e-4, 2.706029, 1000
    g1, g2 = np.random.default_rng(seed), np.random.default_rng(seed)
    idx, yhat, ok, _ = nr._bm_run(y, np.linspace(s0, s1, k), 0.1, 1.0, g1)  # noqa: SLF001
    s_t, yhat2, ok2 = nr._bm_run_linear(y, s0, s1, k, 0.1, g2)  # noqa: SLF001
    assert ok == ok2
    assert s_t == pytest.approx(np.linspace(s0, s1, k)[idx], rel=1e-12)
    assert yhat2 == pytest.approx(yhat, rel=1e-9)
    s_t, _, _ = nr._bm_run_linear(0.0, 0.5, 0.5, 1, 0.1, g2)  # noqa: SLF001 - single-level grid
    assert s_t == 0.5


def test_release_many_columns_and_consistency():
    eps = np.sqrt(np.linspace(1e-4, 1.0, 500))
    for mech in ("brownian", "laplace"):
        df = nr.release_many(50.0, epsilons=eps, alpha=0.1, n_runs=300, mechanism=mech, rng=1)
        assert list(df.columns) == ["release", "epsilon_stop", "index", "accepted", "charge", "loss"]
        assert len(df) == 300
        np.testing.assert_array_equal(df["epsilon_stop"], eps[df["index"]])
        rule = nr.relative_error_stop(df["release"].to_numpy(), df["epsilon_stop"].to_numpy(), alpha=0.1)
        np.testing.assert_array_equal(df["accepted"], rule)
        want = df["epsilon_stop"] ** 2 / 2 if mech == "brownian" else df["epsilon_stop"]
        np.testing.assert_allclose(df["charge"], want)
    # never-stopping runs end at the last level
    df = nr.release_many(0.0, epsilons=[0.01, 0.02], alpha=0.1, n_runs=5, rng=0)
    assert (df["index"] == 1).all() and not df["accepted"].any()
    with pytest.raises(ValueError, match="n_runs"):
        nr.release_many(1.0, epsilons=eps, alpha=0.1, n_runs=0)
    with pytest.raises(ValueError, match="epsilons"):
        nr.release_many(1.0, epsilons=[0.2, 0.1], alpha=0.1, n_runs=3)
    with pytest.raises(ValueError, match="alpha"):
        nr.release_many(1.0, epsilons=eps, alpha=0.0, n_runs=3)


def test_cost_comparison_structure_and_bad_inputs():
    df = nr.cost_comparison([50.0, 200.0], draws=50, grid_size=100, rng=0)
    assert list(df["value"]) == [50.0, 200.0]
    assert df["oracle"].tolist() == pytest.approx([(21 / 50) ** 2, (21 / 200) ** 2])
    assert np.all(df["ratio"] == df["doubling_cost"] / df["bm_cost"])
    assert np.all(df["bm_cost"] <= 2.706029 + 1e-12) and np.all(df["doubling_cost"] <= 2 * 2.706029)
    with pytest.raises(ValueError, match="values"):
        nr.cost_comparison([])
    with pytest.raises(ValueError, match="alpha"):
        nr.cost_comparison([10.0], alpha=0.0)
    with pytest.raises(ValueError, match="epsilon2_max"):
        nr.cost_comparison([10.0], epsilon2_min=1.0, epsilon2_max=0.5)
    with pytest.raises(ValueError, match="draws"):
        nr.cost_comparison([10.0], draws=1)


# ---------------------------------------------------------------------------------- app helpers


def test_backward_martingale_formula_and_mean_one():
    eps = np.array([0.1, 0.5, 1.0])
    z = np.array([[1.0, -2.0, 0.3]])
    m = nr.backward_martingale(z, eps, lam=0.7)
    assert m == pytest.approx(np.exp(0.7 * eps**2 * z - 0.49 * eps**2 / 2))
    paths = nr.brownian_path(eps, n_paths=200_000, rng=1)
    mean = nr.backward_martingale(paths, eps, lam=1.0).mean(axis=0)
    assert mean == pytest.approx(1.0, abs=0.02)  # E[M(t)] = 1 at every level (Lemma 6.1)
    # at an adaptive stopping time (first level where the release exceeds 1/ε) the mean stays ≤ 1 (≈ 1 on a grid)
    hit = paths * eps > 1.0
    idx = np.where(hit.any(axis=1), hit.argmax(axis=1), eps.size - 1)
    stopped = nr.backward_martingale(paths, eps, lam=1.0)[np.arange(paths.shape[0]), idx]
    assert stopped.mean() == pytest.approx(1.0, abs=0.02)
    with pytest.raises(ValueError, match="noise"):
        nr.backward_martingale(np.zeros((2, 2)), eps, lam=1.0)
    with pytest.raises(ValueError, match="epsilons"):
        nr.backward_martingale(np.zeros(2), [0.2, 0.1], lam=1.0)


def test_filter_losses_never_overspend_and_loss_is_gaussian():
    rho = 0.5
    df = nr.filter_losses(rho, n_runs=4000, value=50.0, rng=3)
    assert list(df.columns) == ["loss", "spent", "rounds", "bm_rounds"]
    assert df["spent"].max() <= rho * (1 + 1e-12)
    assert (df["bm_rounds"] > 0).mean() > 0.5
    full = df[df["spent"] > rho - 1e-4]  # runs that used (almost) the whole budget: loss ~ N(ρ, 2ρ) (Thm 6)
    assert len(full) > 3000
    sd = math.sqrt(2 * rho)
    assert abs(full["loss"].mean() - rho) < 4 * sd / math.sqrt(len(full))
    assert abs(full["loss"].var() / (2 * rho) - 1) < 4 * math.sqrt(2 / len(full))
    with pytest.raises(ValueError, match="rho"):
        nr.filter_losses(0.0, n_runs=10)
    with pytest.raises(ValueError, match="zcdp_share"):
        nr.filter_losses(1.0, n_runs=10, zcdp_share=1.5)
    with pytest.raises(ValueError, match="rho_round"):
        nr.filter_losses(1.0, n_runs=10, rho_round=(0.2, 0.1))


def test_a_doubling_level_never_costs_more_than_its_charge():
    """Each doubling attempt is charged s/2 and released at level ε with ε²/2 its real cost (Rogers et al. 2023,
    Thm 2): ε must satisfy ε² ≤ s exactly, and be the largest float that does. The correctly rounded √2 does not
    (its square is 2 + 4.4e-16), so the level is stepped down."""
    from fractions import Fraction

    from dpcore.noise_reduction.doubling import _level_within

    assert Fraction(math.sqrt(2.0)) ** 2 > 2  # why the loop cannot use the rounded root as it is
    gen = np.random.default_rng(7)
    uses = [2.0, 1e-4, 0.5, 3.0, *(float(x) for x in gen.uniform(1e-8, 50.0, 2000))]
    above = 0
    for s in uses:
        e = _level_within(s)
        assert Fraction(e) ** 2 <= Fraction(s), s
        assert Fraction(math.nextafter(e, math.inf)) ** 2 > Fraction(s), s  # no smaller than it needs to be
        above += Fraction(math.sqrt(s)) ** 2 > Fraction(s)
    assert above > 100  # the rounded root is over for a good share of levels: the step-down is not idle
