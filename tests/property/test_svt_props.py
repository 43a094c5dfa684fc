"""Property tests (hypothesis) of dpcore.svt and the SVT data generators."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore import data, svt

scales = st.floats(0.05, 200.0)
eps_s = st.floats(0.01, 10.0)
cs = st.integers(1, 100)
ks = st.integers(1, 2000)
noises = st.sampled_from(["exponential", "laplace", "gaussian", "gumbel"])
FAST = settings(max_examples=60, deadline=None)
SLOW = settings(max_examples=20, deadline=None)


@FAST
@given(b=scales, th=scales, z=st.lists(st.floats(-1e4, 1e4), min_size=2, max_size=20))
def test_cdf_monotone_in_unit_interval(b, th, z):
    z = np.sort(np.array(z))
    g = svt.comparison_cdf(z, threshold_scale=b, query_scale=th)
    s = svt.comparison_sf(z, threshold_scale=b, query_scale=th)
    assert np.all((g >= 0) & (g <= 1)) and np.all(np.diff(g) >= -1e-15)
    np.testing.assert_allclose(g + s, 1.0, atol=1e-12)
    assert np.all(svt.comparison_pdf(z, threshold_scale=b, query_scale=th) >= 0)


@FAST
@given(b=scales, th=scales, z=st.floats(-50, 50))
def test_cdf_appendix_d_form(b, th, z):
    """Stable form equals the printed App. D form wherever the latter is well conditioned."""
    if abs(b - th) < 1e-3 * max(b, th):
        return
    x = z * max(b, th)
    if x <= 0:
        want = b * math.exp(x / b) / (2 * (b + th))
    else:
        want = 1 + th**2 * math.exp(-x / th) / (b**2 - th**2) - b * math.exp(-x / b) / (2 * (b - th))
    cond = 1 + max(b, th) ** 2 / abs(b**2 - th**2)
    assert abs(svt.comparison_cdf(x, threshold_scale=b, query_scale=th) - want) <= 1e-13 * cond


@FAST
@given(eps=eps_s, c=cs, noise=noises, mono=st.booleans(), logw=st.floats(-4, 6))
def test_split_invariants(eps, c, noise, mono, logw):
    sp = svt.split_budget(eps, c=c, noise=noise, monotonic=mono)
    assert math.isclose(sp.epsilon1 + sp.epsilon2, eps, rel_tol=1e-12)
    other = svt.split_budget(eps, c=c, noise=noise, monotonic=mono, w=math.exp(logw))
    assert sp.variance <= other.variance * (1 + 1e-12)  # w* minimises V (Eq. 6)
    assert sp.total_epsilon(True) >= sp.total_epsilon(False) - 1e-12
    # scale invariance: scales ∝ 1/ε
    sp2 = svt.split_budget(2 * eps, c=c, noise=noise, monotonic=mono)
    assert math.isclose(sp2.query_scale * 2, sp.query_scale, rel_tol=1e-12)


@FAST
@given(b=scales, th=scales, k=ks)
def test_rop_quantile_and_pmax(b, th, k):
    corr = svt.correction_term(b, th, k=k)
    assert math.isclose(svt.comparison_sf(corr.r, threshold_scale=b, query_scale=th), 1 / (k + 1), rel_tol=1e-8)
    assert math.isclose(corr.success_probability, math.exp(k * math.log(k) - (k + 1) * math.log(k + 1)), rel_tol=1e-8)


@FAST
@given(b=scales, th=scales, k=st.integers(1, 500), alpha=st.floats(0, 50), dr=st.floats(-30, 30))
def test_rop_is_maximum_and_theorem8_bound(b, th, k, alpha, dr):
    a = alpha * max(b, th) / 10
    corr = svt.correction_term(b, th, k=k, alpha=a)
    p_other = svt.success_probability(corr.r + dr * max(b, th) / 10, k=k, alpha=a, threshold_scale=b, query_scale=th)
    assert corr.success_probability >= p_other * (1 - 1e-9)
    assert corr.success_probability >= k**k / (k + 1) ** (k + 1) * (1 - 1e-9) if k < 150 else True


@FAST
@given(b=scales, th=scales, k1=st.integers(1, 300), k2=st.integers(1, 300))
def test_rop_increases_with_k(b, th, k1, k2):
    lo, hi = sorted((k1, k2))
    assert svt.correction_term(b, th, k=lo).r <= svt.correction_term(b, th, k=hi).r + 1e-9 * max(b, th)


@FAST
@given(eps=eps_s, c=st.integers(1, 60), k=st.integers(1, 1000))
def test_rop_scale_invariance(eps, c, k):
    r1 = svt.optimal_correction(eps, c=c, k=k).r
    r2 = svt.optimal_correction(1.0, c=c, k=k).r
    assert math.isclose(r1 * eps, r2, rel_tol=1e-8)


@SLOW
@given(b=scales, th=scales, k=st.integers(1, 300), alpha=st.floats(0, 3))
def test_numeric_agrees_with_analytic(b, th, k, alpha):
    a = alpha * max(b, th)
    an = svt.correction_term(b, th, k=k, alpha=a)
    nu = svt.correction_term(b, th, k=k, alpha=a, method="numeric")
    assert abs(nu.r - an.r) <= 2e-3 * max(b, th)
    assert math.isclose(nu.success_probability, an.success_probability, rel_tol=1e-3)


@SLOW
@given(
    q=st.lists(st.floats(-100, 100), min_size=1, max_size=60),
    c=st.integers(1, 10),
    noise=noises,
    append=st.booleans(),
    resample=st.booleans(),
    traverses=st.integers(1, 5),
    k_max=st.one_of(st.none(), st.integers(1, 200)),
    seed=st.integers(0, 2**32 - 1),
)
def test_run_svt_invariants(q, c, noise, append, resample, traverses, k_max, seed):
    run = svt.run_svt(
        np.array(q),
        threshold=10.0,
        epsilon=1.0,
        c=c,
        noise=noise,
        correction="mean",
        append=append,
        resample=resample,
        traverses=traverses,
        k_max=k_max,
        rng=seed,
    )
    df = run.comparisons
    assert run.n_positive <= c and run.n_comparisons <= run.k_max
    assert len(set(run.selected.tolist())) == run.n_positive  # a ⊤ query is never asked again
    assert df["index"].value_counts().max() <= (traverses if append else 1)
    assert run.halted in ("cutoff", "k_max", "exhausted")
    assert (run.halted == "cutoff") == (run.n_positive == c)
    sp = run.calibration
    assert math.isclose(run.epsilon_spent, sp.total_epsilon(resample), rel_tol=1e-12)
    if not resample:
        assert df["threshold_noise"].nunique() <= 1 and run.n_threshold_draws == 1


@FAST
@given(scores=st.lists(st.floats(0, 1000), min_size=1, max_size=40), c=st.integers(1, 10), data_=st.data())
def test_metrics_ranges(scores, c, data_):
    s = np.array(scores)
    sel = data_.draw(st.lists(st.integers(0, s.size - 1), max_size=c, unique=True))
    m = svt.selection_metrics(sel, s, threshold=500.0, c=c)
    assert all(0 <= v <= 1 + 1e-12 for v in m.values())
    tp = int((s[sel] >= 500).sum()) if sel else 0
    fp, fn = len(sel) - tp, int((s >= 500).sum()) - tp
    assert math.isclose(m["f1"], 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)


@SLOW
@given(n_items=st.integers(20, 3000), avg=st.floats(1.0, 15.0), top=st.floats(0.3, 0.9), seed=st.integers(0, 99))
def test_transaction_scores_valid(n_items, avg, top, seed):
    n_above = max(1, n_items // 20)
    n_records = 10_000
    s = data.transaction_scores(
        n_records=n_records,
        n_items=n_items,
        threshold=0.02 * n_records,
        avg_length=min(avg, n_items / 2),
        top_support=top,
        n_above=n_above,
        rng=seed,
    )
    assert s.size == n_items and np.all(np.diff(s) <= 0) and s.min() >= 0 and s.max() <= n_records
