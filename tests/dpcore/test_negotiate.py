"""dpcore.negotiate: smallest ε per mechanism for an accuracy requirement, and the reverse.

Every ε is checked against an independent computation: closed forms (Laplace, Gaussian δ via scipy.stats.norm),
quadrature of output densities (staircase density written out here, R²DP noise density, BR-DP output
CDF), Monte Carlo with stated tolerances (SVT's shared-threshold success event), and minimality: the requirement
fails at ε·(1 − 1e-3).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

import dpcore
from dpcore import brdp, r2dp, svt
from dpcore import negotiate as ng

P = 0.95
SHRINK = 1 - 1e-3


@pytest.fixture(scope="module")
def pm1():
    """±1 at 95 %, Δ = 1, δ = 1e-5 (Gaussian kernel for BR-DP), every noise-adding row."""
    mechs = ["laplace", "gaussian", "brdp", "brdp_paper", "r2dp_two_point", "staircase"]
    return ng.epsilon_for_accuracy(theta=1.0, confidence=P, mechanisms=mechs).set_index("mechanism")


def test_laplace_is_ln20_exactly(pm1):
    assert pm1.loc["laplace", "epsilon"] == pytest.approx(math.log(20.0), rel=1e-13)
    assert pm1.loc["laplace", "delta"] == 0.0


@pytest.mark.parametrize(("theta", "sens", "p"), [(0.5, 2.0, 0.95), (3.0, 1.0, 0.5), (1.0, 0.1, 0.999)])
def test_laplace_closed_form_scales(theta, sens, p):
    df = ng.epsilon_for_accuracy(theta=theta, sensitivity=sens, confidence=p, mechanisms=["laplace"])
    eps = float(df["epsilon"].iloc[0])
    # P(|Lap(Δ/ε)| ≤ θ) from scipy's Laplace CDF
    b = sens / eps
    assert stats.laplace.cdf(theta, scale=b) - stats.laplace.cdf(-theta, scale=b) == pytest.approx(p, rel=1e-12)


def _gauss_delta(eps: float, sigma: float, sens: float = 1.0) -> float:
    """Closed-form δ_G(ε) = Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) (Balle & Wang 2018), via scipy."""
    a, c = sens / (2 * sigma), eps * sigma / sens
    return float(stats.norm.cdf(a - c) - math.exp(eps) * stats.norm.cdf(-a - c))


def test_gaussian_meets_delta_at_the_quantile_sigma(pm1):
    eps = float(pm1.loc["gaussian", "epsilon"])
    sigma = 1.0 / stats.norm.ppf(0.975)
    assert _gauss_delta(eps, sigma) == pytest.approx(1e-5, rel=1e-6)
    assert float(dpcore.gaussian_delta(eps, sigma=sigma)) == pytest.approx(1e-5, rel=1e-6)
    # that σ indeed gives P(|N| ≤ 1) = 0.95
    assert stats.norm.cdf(1, scale=sigma) - stats.norm.cdf(-1, scale=sigma) == pytest.approx(P, rel=1e-12)
    # and a smaller ε does not reach δ (δ_G is decreasing in ε)
    assert _gauss_delta(eps * SHRINK, sigma) > 1e-5


def _staircase_within(eps: float, theta: float, sens: float = 1.0) -> float:
    """∫_{−θ}^{θ} of the Geng–Viswanath staircase density at r = frac(θ/Δ) (Geng & Viswanath 2016), by quadrature."""
    g = theta / sens
    r = g - math.floor(g)
    a = -math.expm1(-eps) / (2 * sens * (r + (1 - r) * math.exp(-eps)))

    def f(x):
        j = math.floor(abs(x) / sens)
        return a * math.exp(-j * eps) if abs(x) / sens - j < r else a * math.exp(-(j + 1) * eps)

    pts = sorted({s * sens * (j + rr) for j in range(int(g) + 2) for rr in (0, r) for s in (1, -1)})
    pts = [p_ for p_ in pts if -theta < p_ < theta]
    return 2 * integrate.quad(f, 0, theta, points=[p_ for p_ in pts if p_ > 0] or None, limit=200)[0]


@pytest.mark.parametrize(("theta", "p"), [(1.0, 0.95), (0.3, 0.9), (1.7, 0.99)])
def test_staircase_holds_and_is_minimal(theta, p):
    df = ng.epsilon_for_accuracy(theta=theta, confidence=p, mechanisms=["staircase", "laplace"]).set_index("mechanism")
    eps = float(df.loc["staircase", "epsilon"])
    assert _staircase_within(eps, theta) >= p - 1e-9
    assert _staircase_within(eps * SHRINK, theta) < p
    assert eps <= float(df.loc["laplace", "epsilon"]) * (1 + 1e-4)  # optimal noise never needs more than Laplace


def test_staircase_equals_laplace_at_multiples_of_the_sensitivity(pm1):
    # at γ = mΔ no ε-DP additive noise beats Laplace (the optimal staircase equals it there)
    assert float(pm1.loc["staircase", "epsilon"]) == pytest.approx(math.log(20.0), rel=2e-5)


def _r2dp_within(law, theta: float) -> float:
    return 2 * integrate.quad(lambda w: float(r2dp.noise_density(w, law)), 0, theta, limit=200)[0]


@pytest.mark.parametrize(("theta", "p"), [(1.0, 0.95), (0.3, 0.9)])
def test_r2dp_two_point_holds_and_is_minimal(theta, p):
    df = ng.epsilon_for_accuracy(theta=theta, confidence=p, mechanisms=["r2dp_two_point", "staircase", "laplace"])
    df = df.set_index("mechanism")
    eps = float(df.loc["r2dp_two_point", "epsilon"])
    res = r2dp.optimize(epsilon=eps, gamma=theta, family="two_point")
    assert r2dp.epsilon(res.law) <= eps * (1 + 1e-7)
    assert _r2dp_within(res.law, theta) >= p - 1e-6  # quadrature of the density, not 1 − M(−γ)
    assert r2dp.optimize(epsilon=eps * SHRINK, gamma=theta, family="two_point").usefulness < p
    assert float(df.loc["staircase", "epsilon"]) * (1 - 1e-4) <= eps <= float(df.loc["laplace", "epsilon"]) * (1 + 1e-4)


@pytest.mark.slow
def test_r2dp_best_family_holds_and_is_minimal():
    theta, p = 0.3, 0.9
    df = ng.epsilon_for_accuracy(theta=theta, confidence=p, mechanisms=["r2dp", "r2dp_two_point"]).set_index(
        "mechanism"
    )
    eps = float(df.loc["r2dp", "epsilon"])
    best = max(
        (r2dp.optimize(epsilon=eps, gamma=theta, family=f) for f in ("gamma", "uniform", "truncnorm", "combo")),
        key=lambda r: r.usefulness,
    )
    assert r2dp.epsilon(best.law) <= eps * (1 + 1e-7)
    assert _r2dp_within(best.law, theta) >= p - 1e-6
    smaller = max(
        r2dp.optimize(epsilon=eps * SHRINK, gamma=theta, family=f).usefulness
        for f in ("gamma", "uniform", "truncnorm", "combo")
    )
    assert smaller < p
    assert float(df.loc["r2dp_two_point", "epsilon"]) <= eps * (1 + 1e-4)  # two-point is the global optimum
    # the family in words, never its id ("combo", "truncnorm")
    assert str(df.loc["r2dp", "note"]) == f"Best law here: {r2dp.FAMILY_WORDS[best.family]}."


def _brdp_within(plan, theta: float) -> float:
    """P(|output − true| ≤ θ) from the BR-DP output CDF (Jiang et al. 2024, Sec. 3), not from the acceptance formula
    (Eq. 9)."""
    kw = {"kernel": plan.kernel, "scale": plan.scale, "theta": plan.theta, "q": plan.q}
    return float(brdp.output_cdf(theta, **kw) - brdp.output_cdf(-theta, **kw))


@pytest.mark.parametrize("accountant", ["exact", "paper"])
def test_brdp_holds_and_is_minimal(pm1, accountant):
    row = pm1.loc["brdp" if accountant == "exact" else "brdp_paper"]
    eps = float(row["epsilon"])
    plan = brdp.optimize(epsilon=eps, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian", accountant=accountant)
    assert _brdp_within(plan, 1.0) >= P - 1e-9
    smaller = brdp.optimize(
        epsilon=eps * SHRINK, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian", accountant=accountant
    )
    assert _brdp_within(smaller, 1.0) < P
    exact = brdp.exact_delta(
        eps, kernel="gaussian", scale=plan.scale, theta=1.0, q=plan.q, sensitivity=1.0, method="quadrature", shifts=50
    )
    assert bool(row["sound"]) == (exact <= 1e-5 * (1 + 1e-4))
    if accountant == "exact":
        assert row["sound"]
    # Prop. 4: BR-DP (exact) never needs more budget than its plain Gaussian kernel
    if accountant == "exact":
        assert eps <= float(pm1.loc["gaussian", "epsilon"]) * (1 + 1e-4)


def test_brdp_paper_accountant_flagged_where_it_underreports():
    df = ng.epsilon_for_accuracy(
        theta=0.3, confidence=0.9, kernel="laplace", mechanisms=["brdp", "brdp_paper"]
    ).set_index("mechanism")
    paper = df.loc["brdp_paper"]
    plan = brdp.optimize(
        epsilon=float(paper["epsilon"]), delta=1e-5, sensitivity=1.0, theta=0.3, kernel="laplace", accountant="paper"
    )
    exact = brdp.exact_delta(
        float(paper["epsilon"]),
        kernel="laplace",
        scale=plan.scale,
        theta=0.3,
        q=plan.q,
        sensitivity=1.0,
        method="quadrature",
        shifts=50,
    )
    assert exact > 1e-5 * 1.5  # independently: the paper's plan breaks its δ here
    assert not paper["sound"]
    assert "under-reports" in paper["note"]
    assert df.loc["brdp", "sound"]


def _svt_mc(eps: float, *, c: int, k: int, margin: float, noise: str, n: int = 200_000, seed: int = 7) -> float:
    """Monte Carlo of the success event with ONE shared threshold noise ρ (Alg. 2): k queries at T − θ all
    rejected and the next at T + θ accepted, against T + ρ + r (Liu et al. 2024, Eq. 8, one shared threshold noise)."""
    sp = svt.split_budget(eps, c=c, noise=noise)
    r = svt.correction_term(sp.threshold_scale, sp.query_scale, k=k, alpha=margin).r if noise == "exponential" else 0.0
    g = np.random.default_rng(seed)
    rho = g.laplace(0, sp.threshold_scale, n)
    draw = (
        (lambda size: g.exponential(sp.query_scale, size))
        if noise == "exponential"
        else (lambda size: g.laplace(0, sp.query_scale, size))
    )
    neg_ok = np.ones(n, bool)
    for _ in range(k):
        neg_ok &= -margin + draw(n) < rho + r
    pos_ok = margin + draw(n) >= rho + r
    return float(np.mean(neg_ok & pos_ok))


@pytest.mark.parametrize("mech", ["svt_exp", "svt_laplace"])
def test_svt_topc_holds_and_is_minimal(mech):
    c, k, margin, p = 1, 20, 5.0, 0.9
    df = ng.epsilon_for_accuracy(requirement="topc", theta=margin, confidence=p, c=c, k=k, mechanisms=[mech])
    eps = float(df["epsilon"].iloc[0])
    noise = "exponential" if mech == "svt_exp" else "laplace"
    mc = _svt_mc(eps, c=c, k=k, margin=margin, noise=noise)
    se = math.sqrt(p * (1 - p) / 200_000)
    assert abs(mc - p) < 4.5 * se  # exact p_sh at ε equals the target; MC agrees within 4.5 s.e.
    assert ng.accuracy(mech, eps * SHRINK, requirement="topc", theta=margin, confidence=p, c=c, k=k) < p
    assert ng.accuracy(mech, eps, requirement="topc", theta=margin, confidence=p, c=c, k=k) >= p


def test_svt_exp_needs_less_than_svt_laplace():
    df = ng.epsilon_for_accuracy(requirement="topc", theta=5.0, confidence=0.9, k=50).set_index("mechanism")
    assert float(df.loc["svt_exp", "epsilon"]) < float(df.loc["svt_laplace", "epsilon"])
    assert not df.loc["laplace", "applicable"] and "selection" in df.loc["laplace", "reason"]


def test_svt_unreachable_without_margin():
    # at margin → 0 the success probability is at most max_p p^k (1 − p) = k^k/(k+1)^(k+1) at every ε
    df = ng.epsilon_for_accuracy(requirement="topc", theta=1e-4, confidence=0.5, k=10, mechanisms=["svt_exp"])
    assert math.isinf(df["epsilon"].iloc[0])
    assert df["accuracy"].iloc[0] <= 10**10 / 11**11 + 1e-3
    assert "Cannot reach" in df["reason"].iloc[0]


def test_unreachable_gaussian_says_so():
    df = ng.epsilon_for_accuracy(theta=0.1, confidence=0.999, delta=1e-10, mechanisms=["gaussian", "laplace"])
    row = df.set_index("mechanism").loc["gaussian"]
    assert math.isinf(row["epsilon"]) and not row["meets"] and "ε ≤ 50" in row["reason"]


def test_relative_error_maps_to_theta_alpha_x():
    rel = ng.epsilon_for_accuracy(
        requirement="relative", alpha=0.05, value=40.0, confidence=0.9, mechanisms=["laplace", "gaussian"]
    )
    err = ng.epsilon_for_accuracy(requirement="error", theta=2.0, confidence=0.9, mechanisms=["laplace", "gaussian"])
    np.testing.assert_allclose(rel["epsilon"], err["epsilon"], rtol=1e-12)


def test_noise_reduction_expected_expost_epsilon():
    alpha, x = 0.1, 100.0
    cost = ng.noise_reduction_cost(alpha=alpha, value=x, n_runs=4000, rng=3)
    # Rogers et al. 2023, §7: for ŷ > σ the rule fires once ŷ·ε ≥ (2 + α)/α; with ŷ ≈ x the level is ≈ 21/100 (the
    # 601-level
    # grid overshoots by at most one step, factor 1.023; the noise moves ŷ by a few per cent)
    guess = (2 + alpha) / alpha / x
    assert 0.9 * guess < cost.expected_epsilon < 1.15 * guess
    assert cost.standard_error < 0.01 * cost.expected_epsilon
    other = ng.noise_reduction_cost(alpha=alpha, value=x, n_runs=4000, rng=4)
    assert abs(other.expected_epsilon - cost.expected_epsilon) < 4 * math.hypot(
        cost.standard_error, other.standard_error
    )
    assert 0.5 < cost.success <= 1.0 and cost.fired > 0.99
    df = ng.epsilon_for_accuracy(
        requirement="relative", alpha=alpha, value=x, confidence=0.8, mechanisms=["noise_reduction"], n_runs=500, seed=1
    )
    assert df["delta"].iloc[0] == 0 and np.isfinite(df["epsilon"].iloc[0]) and "ex-post" in df["reason"].iloc[0]
    assert not ng.epsilon_for_accuracy(mechanisms=["noise_reduction"])["applicable"].iloc[0]


def test_round_trip_reverse_direction(pm1):
    """At the forward ε every row delivers the confidence; slightly below it does not."""
    for mech in ("laplace", "gaussian", "staircase", "r2dp_two_point", "brdp"):
        eps = float(pm1.loc[mech, "epsilon"])
        at = ng.accuracy_for_epsilon(eps, theta=1.0, confidence=P, mechanisms=[mech]).iloc[0]
        below = ng.accuracy_for_epsilon(eps * SHRINK, theta=1.0, confidence=P, mechanisms=[mech]).iloc[0]
        assert at["accuracy"] >= P - 1e-9 and at["meets"], mech
        assert below["accuracy"] < P and not below["meets"], mech
    lap = ng.accuracy_for_epsilon(math.log(20.0), theta=1.0, mechanisms=["laplace"])["accuracy"].iloc[0]
    assert lap == pytest.approx(0.95, rel=1e-13)


def test_accuracy_curves_monotone_cheap_rows():
    eps = np.geomspace(0.05, 20, 30)
    df = ng.accuracy_curves(eps, theta=0.7, mechanisms=["laplace", "gaussian", "staircase"])
    for _, part in df.groupby("mechanism"):
        assert np.all(np.diff(part["accuracy"].to_numpy()) >= -1e-12)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"confidence": 1.5}, "confidence"),
        ({"requirement": "foo"}, "requirement"),
        ({"theta": -1}, "theta"),
        ({"delta": 0}, "delta"),
        ({"k": 0}, "k"),
        ({"mechanisms": ["nope"]}, "mechanisms"),
        ({"alpha": 1.0}, "alpha"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        ng.epsilon_for_accuracy(**kwargs)


def test_bad_epsilon_reverse():
    with pytest.raises(ValueError, match="epsilon"):
        ng.accuracy_for_epsilon(0.0)
    with pytest.raises(ValueError, match="epsilon"):
        ng.accuracy_for_epsilon(float("nan"))


# ---- every row answers: a number, or n/a / cannot reach with a reason ---------------------------------------------


def _check_rows(df, req_kind: str) -> None:
    for _, row in df.iterrows():
        assert row["reason"], row["mechanism"]
        assert not row["reason"].startswith("No answer"), (row["mechanism"], row["reason"])
        if not row["applicable"]:
            continue
        eps = float(row["epsilon"])
        assert eps >= 0 and not math.isnan(eps), (row["mechanism"], eps)
        if math.isinf(eps):
            assert "Cannot reach" in row["reason"]


@pytest.mark.parametrize(
    "kwargs",
    [{"theta": 100.0, "delta": 0.01}, {"theta": 10.0, "delta": 0.1}, {"requirement": "relative", "delta": 0.1}],
    ids=["theta100-delta0.01", "theta10-delta0.1", "relative-delta0.1"],
)
def test_links_that_used_to_crash_answer_every_row(kwargs):
    df = ng.epsilon_for_accuracy(**kwargs, n_runs=200)
    _check_rows(df, kwargs.get("requirement", "error"))
    rows = df.set_index("mechanism")
    theta = kwargs.get("theta", 0.1 * 100.0)
    assert rows.loc["laplace", "epsilon"] == pytest.approx(math.log(20.0) / theta, rel=1e-12)


def test_generous_delta_means_no_epsilon_at_all_for_the_gaussian():
    """θ = 100, δ = 0.01: σ = 100/z already has δ(0) = 2Φ(Δ/2σ) − 1 ≤ 0.01, so ε = 0 meets the requirement."""
    sigma = 100.0 / stats.norm.ppf(0.975)
    assert 2 * stats.norm.cdf(1 / (2 * sigma)) - 1 <= 0.01  # independent: the hockey-stick at ε = 0
    df = ng.epsilon_for_accuracy(theta=100.0, delta=0.01, mechanisms=["gaussian", "brdp"]).set_index("mechanism")
    assert df.loc["gaussian", "epsilon"] == 0.0
    assert df.loc["brdp", "epsilon"] == 0.0 and "generous" in df.loc["brdp", "note"]
    assert df.loc["brdp", "meets"]


# ---- the registry ---------------------------------------------------------------------------------------------


def test_one_id_and_one_display_name_per_mechanism():
    from dpcore import audit, mechanisms

    names = [m.name for m in mechanisms.REGISTRY]
    assert len(set(names)) == len(names) and len(set(mechanisms.IDS)) == len(mechanisms.IDS)
    assert set(ng.MECHANISMS) <= set(mechanisms.IDS) and set(audit.MECHANISMS) <= set(mechanisms.IDS)
    assert ng.LABELS == {m: mechanisms.display_name(m) for m in ng.MECHANISMS}
    assert mechanisms.display_name("brdp_exact") == mechanisms.display_name("brdp") == "BR-DP (exact accountant)"
    for mid, name in mechanisms.display_names().items():
        assert "_" not in name and name != mid  # users never see an id
    with pytest.raises(ValueError, match="mechanism"):
        mechanisms.display_name("nope")


def test_old_audit_id_still_works():
    from dpcore import audit

    res = audit.sample_pair("brdp_exact", epsilon=1.0, delta=1e-5, n=10, rng=0)
    assert res.mechanism == "brdp"


# ---- deployments -------------------------------------------------------------------------------------------------


def _cks_log_delta(eps: float, rho: float) -> float:
    """Canonne, Kamath & Steinke 2020 (Cor. 13): ρ-zCDP ⇒ (ε, δ)-DP with
    δ = inf_{α>1} e^{(α−1)(αρ−ε)}/(α−1) · (1 − 1/α)^α, minimised here over α with scipy (in log space)."""
    from scipy import optimize

    f = lambda a: (a - 1) * (a * rho - eps) - math.log(a - 1) + a * math.log1p(-1 / a)  # noqa: E731
    return optimize.minimize_scalar(f, bounds=(1 + 1e-9, 1e4), method="bounded", options={"xatol": 1e-12}).fun


def _cks_epsilon(rho: float, delta: float) -> float:
    from scipy import optimize

    return optimize.brentq(lambda e: _cks_log_delta(e, rho) - math.log(delta), 1e-9, 200, xtol=1e-12)


def test_census_epsilons_are_the_tight_conversion_of_the_rounded_rho():
    from dpcore import deployments as D

    rows = {d.name: d for d in D.DEPLOYMENTS}
    persons = rows["2020 Census redistricting data (P.L. 94-171), persons"]
    units = rows["2020 Census redistricting data (P.L. 94-171), housing units"]
    for d in (persons, units):
        assert d.delta == 1e-10 and d.rho is not None
        # the published ε lies between the conversions of the ρ interval that rounds to the published ρ
        lo, hi = _cks_epsilon(d.rho - 0.005, 1e-10), _cks_epsilon(d.rho + 0.005, 1e-10)
        assert lo <= d.epsilon <= hi, (d.name, lo, d.epsilon, hi)
    assert _cks_epsilon(2.56, 1e-10) == pytest.approx(17.14, abs=0.03)
    assert (persons.epsilon, units.epsilon) == (17.14, 2.47)
    # the classic conversion ρ + 2√(ρ ln 1/δ) would give more: the published figures use the tighter one
    assert 2.56 + 2 * math.sqrt(2.56 * math.log(1e10)) > 17.5


def test_deployments_have_units_sources_and_the_brief_figures():
    from dpcore import deployments as D

    for d in D.DEPLOYMENTS:
        assert d.unit and d.source and d.url.startswith("https://") and d.model in ("central", "local")
        assert d.epsilon is not None or d.rho is not None
        assert d.comparable_epsilon > 0
    by = {(d.organisation, d.name): d for d in D.DEPLOYMENTS}
    assert by[("Apple", "QuickType keyboard suggestions")].epsilon == 16.0
    assert by[("Apple", "Lookup Hints")].unit.startswith("per donation")
    assert by[("Google", "COVID-19 Community Mobility Reports")].epsilon == 2.64
    li = by[("LinkedIn", "Audience Engagements API")]
    assert (li.epsilon, li.delta, li.unit) == (34.9, 7e-9, "per member per month")
    wiki = by[("Wikimedia Foundation", "Pageviews by country and project")]
    assert wiki.rho == 0.015 and wiki.converted
    assert wiki.comparable_epsilon == pytest.approx(float(dpcore.zcdp_to_dp(0.015, 1e-10)))
    dhc = [d.rho for d in D.DEPLOYMENTS if "Demographic and Housing" in d.name]
    assert dhc == [4.96, 7.70]


def test_docs_page_shows_the_same_table():
    import pathlib
    import re

    from dpcore import deployments as D

    doc = (pathlib.Path(__file__).parents[2] / "docs" / "deployments.md").read_text(encoding="utf-8")
    mask = lambda t: re.sub(r"[0-9.]+ \(converted\)", "(converted)", t)  # noqa: E731  (conversion may tighten)
    assert mask(D.markdown()) in mask(doc)


# ----------------------------------------------------------------------------------------------------------
# the root search behind every "smallest ε": a bracket [ε/(1 + RTOL), ε] around the true threshold
# ----------------------------------------------------------------------------------------------------------


def _laplace_acc(theta):
    return lambda e: -math.expm1(-e * theta)


@pytest.mark.parametrize(
    ("acc", "root", "guess"),
    [
        # closed-form thresholds: Laplace's 1 − e^{−εθ} = p at ε = ln(1/(1−p))/θ, far from and near the guess
        (_laplace_acc(1.0), math.log(20.0), (0.5, 4.0)),
        (_laplace_acc(250.0), math.log(20.0) / 250.0, (1.0, 2.0)),
        # a step: the accuracy jumps from 0 to 1 at ε = 0.7 (an optimiser whose feasible set appears there)
        (lambda e: 1.0 if e >= 0.7 else 0.0, 0.7, (0.01, 3.0)),
        # an accuracy that cannot be computed below 0.9 (raises) and is smooth above it
        (
            lambda e: (_ for _ in ()).throw(ValueError("no plan")) if e < 0.9 else 1 - math.exp(-(e - 0.9) * 30),
            0.9 + math.log(20.0) / 30,
            (0.1, 5.0),
        ),
    ],
    ids=["laplace", "laplace-tiny-root", "step", "raises-below"],
)
@pytest.mark.parametrize("costly", [False, True], ids=["bisection", "interpolating"])
def test_smallest_epsilon_brackets_the_threshold(acc, root, guess, costly):
    from dpcore.mechanisms import answers

    eps = answers.smallest_epsilon(acc, 0.95, 50.0, *guess, costly=costly)
    assert answers.meets(acc, eps, 0.95)
    assert not answers.meets(acc, eps / (1 + answers.RTOL), 0.95)
    assert root <= eps * (1 + 1e-12) and eps <= root * (1 + answers.RTOL) * (1 + 1e-12)


def test_smallest_epsilon_unreachable_and_free():
    from dpcore.mechanisms import answers

    assert answers.smallest_epsilon(lambda e: 0.5, 0.95, 50.0, 0.1, 1.0) == math.inf
    assert answers.smallest_epsilon(lambda e: 1.0, 0.95, 50.0, 0.1, 1.0) <= answers.TINY_EPSILON


def test_every_mechanism_has_one_name_from_the_table_of_names():
    """The registry and the charts read one table of names: every id has one, no name is left over, a legend's
    short name is the full one or shorter, and no two mechanisms share a name."""
    from dpcore import mechanisms
    from dpcore.mechanisms.names import NAMES, short_names

    assert tuple(NAMES) == mechanisms.IDS
    for m in mechanisms.REGISTRY:
        assert (m.name, m.short) == NAMES[m.id]
        assert len(m.short) <= len(m.name)
    assert len({m.name for m in mechanisms.REGISTRY}) == len(mechanisms.REGISTRY)
    assert short_names()["brdp"] == "BR-DP (exact)" and mechanisms.display_name("brdp") == "BR-DP (exact accountant)"
