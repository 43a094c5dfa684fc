"""Properties of dpcore.negotiate: orderings that theory guarantees, monotonicity, and forward/reverse consistency."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore import negotiate as ng

thetas = st.floats(0.05, 20.0)
confs = st.sampled_from([0.5, 0.7, 0.9, 0.95, 0.99, 0.999])
sens = st.sampled_from([0.1, 0.5, 1.0, 2.0, 10.0])
deltas = st.sampled_from([1e-10, 1e-6, 1e-3])


@settings(max_examples=25, deadline=None)
@given(theta=thetas, p=confs, d=sens, delta=deltas)
def test_cheap_rows_order_and_minimality(theta, p, d, delta):
    df = ng.epsilon_for_accuracy(
        theta=theta, confidence=p, sensitivity=d, delta=delta, mechanisms=["laplace", "gaussian", "staircase"]
    ).set_index("mechanism")
    lap, stair = float(df.loc["laplace", "epsilon"]), float(df.loc["staircase", "epsilon"])
    closed = d * math.log(1 / (1 - p)) / theta
    assert lap == (pytest.approx(closed, rel=1e-12) if closed <= 50 else math.inf)  # cap: ε ≤ 50
    if math.isfinite(lap) and lap <= 50:
        assert stair <= lap * (1 + 1e-4)  # the staircase is the optimal ε-DP additive noise
    for mech in ("laplace", "gaussian", "staircase"):
        eps = float(df.loc[mech, "epsilon"])
        if math.isfinite(eps) and eps > 1e-6:
            kw = {"theta": theta, "confidence": p, "sensitivity": d, "delta": delta}
            assert ng.accuracy(mech, eps, **kw) >= p - 1e-9
            assert ng.accuracy(mech, eps * (1 - 1e-3), **kw) < p
        else:
            assert not math.isfinite(eps) or eps <= 1e-6


@settings(max_examples=20, deadline=None)
@given(theta=thetas, p1=confs, p2=confs, delta=deltas)
def test_more_confidence_costs_more_budget(theta, p1, p2, delta):
    lo, hi = sorted((p1, p2))
    mechs = ["laplace", "gaussian", "staircase"]
    a = ng.epsilon_for_accuracy(theta=theta, confidence=lo, delta=delta, mechanisms=mechs)["epsilon"].to_numpy()
    b = ng.epsilon_for_accuracy(theta=theta, confidence=hi, delta=delta, mechanisms=mechs)["epsilon"].to_numpy()
    assert np.all(a <= b * (1 + 1e-4))


@settings(max_examples=20, deadline=None)
@given(eps=st.floats(0.01, 40.0), theta=thetas, d=sens)
def test_reverse_accuracies_are_probabilities_and_ordered(eps, theta, d):
    df = ng.accuracy_for_epsilon(eps, theta=theta, sensitivity=d, mechanisms=["laplace", "gaussian", "staircase"])
    acc = df.set_index("mechanism")["accuracy"]
    assert ((acc >= 0) & (acc <= 1)).all()
    assert acc["staircase"] >= acc["laplace"] - 1e-12


@pytest.mark.slow
@settings(max_examples=4, deadline=None)
@given(theta=st.floats(0.1, 3.0), p=st.sampled_from([0.8, 0.9, 0.95]))
def test_r2dp_between_staircase_and_laplace(theta, p):
    df = ng.epsilon_for_accuracy(
        theta=theta, confidence=p, mechanisms=["laplace", "staircase", "r2dp_two_point"]
    ).set_index("mechanism")
    two = float(df.loc["r2dp_two_point", "epsilon"])
    assert float(df.loc["staircase", "epsilon"]) * (1 - 1e-4) <= two <= float(df.loc["laplace", "epsilon"]) * (1 + 1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("kernel", ["gaussian", "laplace"])
@pytest.mark.parametrize("mech", ["brdp", "brdp_paper"])
def test_brdp_acceptance_is_monotone_in_epsilon(kernel, mech):
    """The bisection assumes the optimised acceptance is non-decreasing in ε: check it on a grid."""
    eps = np.geomspace(0.1, 20, 25)
    for theta in (0.3, 1.0):
        acc = [ng.accuracy(mech, float(e), theta=theta, kernel=kernel) for e in eps]
        assert np.all(np.diff(acc) >= -1e-6), (kernel, theta, acc)


@pytest.mark.slow
def test_svt_success_is_monotone_in_epsilon():
    eps = np.geomspace(0.05, 20, 20)
    for mech in ("svt_exp", "svt_laplace"):
        acc = [ng.accuracy(mech, float(e), requirement="topc", theta=5.0, k=50) for e in eps]
        assert np.all(np.diff(acc) >= -1e-9), (mech, acc)


# ---- every row answers at every setting of the page's controls ---------------------------------------------------

E_SERIES = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)


def _grid(low: float, high: float, mantissas=E_SERIES) -> tuple[float, ...]:
    """The page's log grids m·10^k in [low, high] (the same rule as its sliders)."""
    out = {
        round(m * 10.0**k, 12)
        for k in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1)
        for m in mantissas
    }
    return tuple(sorted(v for v in out if low * (1 - 1e-9) <= v <= high * (1 + 1e-9)))


PAGE = {
    "theta": _grid(0.1, 100.0),
    "margin": _grid(0.1, 100.0),
    "alpha": (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5),
    "value": _grid(1.0, 1e5, (1.0, 2.0, 5.0)),
    "confidence": (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999),
    "sensitivity": _grid(0.1, 10.0),
    "delta": _grid(1e-12, 0.1, (1.0, 2.0, 5.0)),
    "kernel": ("gaussian", "laplace"),
    "c": (1, 2, 5, 10, 20, 50, 100),
    "k": (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000),
}


def _kwargs(kind, size, p, d, delta, kernel, alpha, c, k) -> dict:
    kw = {"requirement": kind, "confidence": p, "sensitivity": d, "n_runs": 200}
    if kind == "error":
        kw |= {"theta": size, "delta": delta, "kernel": kernel}
    elif kind == "relative":
        kw |= {"alpha": alpha, "value": size * 1000.0, "delta": delta, "kernel": kernel}
    else:
        kw |= {"theta": size, "c": c, "k": k}
    return kw


def _every_row_answers(df) -> None:
    """A number (ε ≥ 0), or n/a / "Cannot reach" with a reason; never the last-resort "No answer" row."""
    assert len(df) == len(ng.MECHANISMS)
    for _, row in df.iterrows():
        assert isinstance(row["reason"], str) and row["reason"], row["mechanism"]
        assert not row["reason"].startswith("No answer"), (row["mechanism"], row["reason"])
        if row["applicable"]:
            eps = float(row["epsilon"])
            assert eps >= 0 and not math.isnan(eps), row["mechanism"]
            assert math.isfinite(eps) or "Cannot reach" in row["reason"], row["mechanism"]


#: A requirement a reader can set on the page: each of its settings drawn from the page's own grid (``_kwargs``).
PAGE_REQUIREMENT = {
    "kind": st.sampled_from(["error", "relative", "topc"]),
    "size": st.sampled_from(PAGE["theta"]),
    "p": st.sampled_from(PAGE["confidence"]),
    "d": st.sampled_from(PAGE["sensitivity"]),
    "delta": st.sampled_from(PAGE["delta"]),
    "kernel": st.sampled_from(PAGE["kernel"]),
    "alpha": st.sampled_from(PAGE["alpha"]),
    "c": st.sampled_from(PAGE["c"]),
    "k": st.sampled_from(PAGE["k"]),
}


@settings(max_examples=12, deadline=None)
@given(**PAGE_REQUIREMENT)
def test_every_row_answers_on_the_page_grid(kind, size, p, d, delta, kernel, alpha, c, k):
    kw = _kwargs(kind, size, p, d, delta, kernel, alpha, c, k)
    _every_row_answers(ng.epsilon_for_accuracy(**kw))


@settings(max_examples=12, deadline=None)
@given(eps=st.sampled_from(_grid(0.01, 20.0)), **PAGE_REQUIREMENT)
def test_every_reverse_row_answers_on_the_page_grid(eps, kind, size, p, d, delta, kernel, alpha, c, k):
    df = ng.accuracy_for_epsilon(eps, **_kwargs(kind, size, p, d, delta, kernel, alpha, c, k))
    for _, row in df.iterrows():
        assert row["reason"] and not row["reason"].startswith("No answer"), row["mechanism"]
        if row["applicable"]:
            assert 0.0 <= float(row["accuracy"]) <= 1.0, row["mechanism"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["error", "relative", "topc"])
def test_every_row_answers_at_the_ends_of_every_control(kind):
    """The whole product of each control's two ends and middle (the combinations that used to raise)."""
    import itertools

    ends = lambda xs: (xs[0], xs[len(xs) // 2], xs[-1])  # noqa: E731
    for size, p, d, delta, kernel in itertools.product(
        ends(PAGE["theta"]), ends(PAGE["confidence"]), ends(PAGE["sensitivity"]), ends(PAGE["delta"]), PAGE["kernel"]
    ):
        if kind == "topc" and (delta, kernel) != (PAGE["delta"][0], "gaussian"):
            continue  # SVT uses neither δ nor the kernel
        for c, k in ((1, 1), (100, 1000)) if kind == "topc" else ((1, 50),):
            _every_row_answers(ng.epsilon_for_accuracy(**_kwargs(kind, size, p, d, delta, kernel, 0.1, c, k)))


# ----------------------------------------------------------------------------------------------------------------
# several statistics, and a planned release: hostile input raises ValueError only; the split is never worse than
# giving every statistic Laplace noise (a pure total that is always available)
# ----------------------------------------------------------------------------------------------------------------

HOSTILE = [math.nan, math.inf, -math.inf, -1.0, 0.0, "1", None, [1.0], True, 1e308]


@pytest.mark.parametrize("arg", ["bound", "confidence", "sensitivity"])
@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_statistics_raise_value_error_only(arg, value):
    from dpcore import negotiate_split as ns

    kw = {"name": "a", "bound": 1.0, "confidence": 0.9, "sensitivity": 1.0} | {arg: value}
    try:
        s = ns.statistic(**kw)
    except ValueError:
        return
    res = ns.split([s], delta=1e-5, search=False)
    assert math.isfinite(res.best.epsilon) and res.best.epsilon >= 0


@pytest.mark.parametrize(
    "arg", ["epsilon", "delta", "bound", "confidence", "sensitivity", "lower", "upper", "rows", "scale"]
)
@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_plans_raise_value_error_only(arg, value):
    from dpcore import release

    kw = {"delta": 1e-5, "bound": 5.0, "confidence": 0.9, "lower": 0.0, "upper": 10.0, "rows": 10} | {arg: value}
    stat = "counts" if arg == "sensitivity" else "mean"
    if stat == "counts":
        kw = {k: v for k, v in kw.items() if k not in ("lower", "upper", "rows")}
    eps = kw.pop("epsilon", 1.0)
    try:
        p = release.plan(stat, "v", "gaussian", eps, **kw)
    except ValueError:
        return
    x = release.noise(p, 100, np.random.default_rng(0))
    assert np.all(np.isfinite(x)) and 0 <= release.guarantee(p) <= 1


stats_lists = st.lists(
    st.tuples(st.floats(0.5, 500.0), st.sampled_from([0.8, 0.9, 0.95, 0.99]), st.sampled_from([0.5, 1.0, 20.0])),
    min_size=1,
    max_size=4,
)


@settings(max_examples=15, deadline=None)
@given(rows=stats_lists, delta=st.sampled_from([1e-8, 1e-5, 1e-3]))
def test_the_split_is_never_worse_than_laplace_everywhere(rows, delta):
    from dpcore import negotiate_split as ns

    sts = [ns.statistic(f"s{i}", b, p, d) for i, (b, p, d) in enumerate(rows)]
    res = ns.split(sts, delta=delta, search=False)
    plain = sum(d * math.log(1 / (1 - p)) / b for b, p, d in rows)
    assert res.best.epsilon <= plain * (1 + 1e-9)
    assert res.best.delta <= delta
    assert sum(s.share for s in res.shares) == pytest.approx(1.0)
