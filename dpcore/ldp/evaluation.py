"""The paper's evaluation (Pan 2023, Sec. 6: Fig. 1, Sec. 6.3 healthcare example, Table I, App. E).

Accepted counts of a greedy adversary sending random linear or logistic regressions (Sec. 6.1–6.2), the two
medians the paper reports next to the reproduced ones, and the realized losses of the 16 output patterns of the
healthcare example.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore._exact import count_within
from dpcore.ldp.branch_and_bound import log_likelihood_bounds, single_term_loss
from dpcore.ldp.likelihood import TOLERANCE, _budget_limit
from dpcore.ldp.regression import (
    RegressionQuery,
    linear_regression_query,
    logistic_regression_query,
    truncated_regression_query,
)
from dpcore.ldp.regression_filter import RegressionFilter


@dataclass(frozen=True)
class _Setup:
    """Validated settings of the Sec. 6 streams."""

    kind: str
    d: int
    eps: float
    group_size: int
    x_star: np.ndarray
    method: str
    cap: int


def _setup(
    kind: str, dimension: int, epsilon: float, group_size: int, true_value: float, method: str | None, max_queries: int
) -> _Setup:
    kd = _v.choice("kind", kind, ("linear", "logistic"))
    d = _v.integer("dimension", dimension, low=1, high=14)
    eps = _v.positive("epsilon", epsilon)
    m = _v.integer("group_size", group_size, low=1)
    xs = _v.real("true_value", true_value, low=-1.0, high=1.0)
    meth = method or ("exact_linear" if kd == "linear" else "multistart")
    meth = _v.choice("method", meth, ("bnb", "exact_linear", "multistart"))
    cap = _v.integer("max_queries", max_queries, low=1)
    return _Setup(kd, d, eps, m, np.full(d, xs), meth, cap)


def _greedy_run(s: _Setup, budget: float, gen: np.random.Generator) -> tuple[list[float], list[float]]:
    """One greedy adversary (Algorithm 5) against a :class:`RegressionFilter` with budget ``budget``.

    Returns the look-ahead worst case of every query sent (the last one is the rejected query unless the stream
    reached ``max_queries``) and the odometer after every accepted query.
    """
    lo, hi = -np.ones(s.d), np.ones(s.d)
    filt = RegressionFilter(budget, lower=lo, upper=hi, group_size=s.group_size, method=s.method, rng=gen)
    worst: list[float] = []
    losses: list[float] = []
    for _ in range(s.cap):
        theta = gen.uniform(-1.0, 1.0, s.d + 1)
        if s.kind == "linear":
            theta = theta / np.abs(theta).sum()
            q = linear_regression_query(theta, epsilon=s.eps, low=-1.0, high=1.0)
        else:
            q = logistic_regression_query(theta, epsilon=s.eps)
        worst.append(filt.worst_case(q))
        if not filt.would_accept(q):
            break
        losses.append(filt.submit(q, q.sample(s.x_star, gen)))
    return worst, losses


def regression_experiment(
    kind: str,
    *,
    budgets: Any = tuple(range(1, 11)),
    n_runs: int = 50,
    dimension: int = 9,
    epsilon: float = 1.0,
    group_size: int = 10,
    true_value: float = 0.0,
    method: str | None = None,
    max_queries: int = 400,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Evaluation of Sec. 6 (Algorithm 5, Fig. 1(b), 1(d)): accepted counts of a greedy adversary for every budget.

    Domain [−1, 1]^d, x* = true_value in every coordinate.  Linear: θ ~ U[−1,1]^{d+1} normalised to
    ‖θ‖₁ = 1, Eq. 5 on [−1, 1].  Logistic: θ ~ U[−1,1]^{d+1}, Eq. 5 on [0, 1].  One stream per run gives
    all budgets: K(ε_G) = min{k : W_k > ε_G} − 1 (the first look-ahead above the budget stops the greedy
    adversary).  Columns: run, budget, accepted, basic.
    """
    bud = _v.real_array("budgets", budgets, low=0.0, allow_inf=False).ravel()
    if bud.size == 0 or np.any(bud <= 0):
        raise ValueError("budgets must be a non-empty array of values > 0")
    runs = _v.integer("n_runs", n_runs, low=1)
    s = _setup(kind, dimension, epsilon, group_size, true_value, method, max_queries)
    gen = _v.rng(rng)
    rows = []
    for run in range(runs):
        wk = np.array(_greedy_run(s, float(bud.max()), gen)[0])
        for b in bud:
            over = np.flatnonzero(wk > _budget_limit(float(b), TOLERANCE))  # RegressionFilter's exact test
            k = int(over[0]) if over.size else len(wk)
            rows.append({"run": run, "budget": float(b), "accepted": k, "basic": count_within(s.eps, float(b))})
    return pd.DataFrame(rows)


def regression_loss_paths(
    kind: str,
    *,
    budget: float = 10.0,
    n_runs: int = 10,
    dimension: int = 9,
    epsilon: float = 1.0,
    group_size: int = 10,
    true_value: float = 0.0,
    method: str | None = None,
    max_queries: int = 400,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Realized loss against the number of accepted queries, one path per run (Sec. 6, Fig. 1(a), 1(c)).

    The streams of :func:`regression_experiment` (same settings and seed give the same runs); the loss is the
    filter's odometer, certified and grouped as in App. C.  Columns: run, accepted (1, 2, …), loss, basic
    (= accepted·ε, the basic-composition line the paper draws next to the paths).
    """
    b = _v.positive("budget", budget)
    runs = _v.integer("n_runs", n_runs, low=1)
    s = _setup(kind, dimension, epsilon, group_size, true_value, method, max_queries)
    gen = _v.rng(rng)
    rows = []
    for run in range(runs):
        for k, loss in enumerate(_greedy_run(s, b, gen)[1], start=1):
            rows.append({"run": run, "accepted": k, "loss": loss, "basic": k * s.eps})
    return pd.DataFrame(rows, columns=["run", "accepted", "loss", "basic"])


@dataclass(frozen=True)
class PaperComparison:
    """A reproduced number next to the paper's, with the reason when they differ."""

    reproduced: float
    paper: float
    matches: bool
    reason: str
    data: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)


def logistic_median_reproduction(
    *, n_runs: int = 50, budget: float = 10.0, rng: np.random.Generator | int | None = 0
) -> PaperComparison:
    """Median accepted logistic regressions at ε_G = 10 (Sec. 6.2, Fig. 1(d)): the paper reports 21; over seeds 0–29
    the median of 50 runs is 20.6 on average, between 20 and 21.

    Group extremes by multi-start local search per group of 10 (fast, not certified), as for 9-D logistic
    regressions a certified branch-and-bound per query is too slow.
    """
    b = _v.positive("budget", budget)
    df = regression_experiment("logistic", budgets=[b], n_runs=n_runs, rng=rng)
    med = float(df["accepted"].median())
    return PaperComparison(
        med,
        21.0,
        abs(med - 21.0) <= 2.0,
        "Reproduces the paper within the seed-to-seed spread (the median of 50 runs is 20 to 21 over 30 seeds, 20.6 "
        "on average) with θ ~ U[−1, 1]^10, domain [−1, 1]^9, x* = 0, ε = 1 (the setup the paper's text implies).",
        df,
    )


def linear_median_mismatch(
    *, n_runs: int = 50, budget: float = 10.0, group_size: int = 10, rng: np.random.Generator | int | None = 0
) -> PaperComparison:
    """Median accepted linear regressions at ε_G = 10 (Sec. 6.1): paper 47; the literal setup gives about 36.6.

    With groups of 10 (as the paper states) and exact per-group losses the median of 50 runs is 36.6 on average over
    40 seeds (35.0–40.0, depending on the seed); groups of 20 give 49.3 (47.5–51.5) and no grouping ≈ 181. The
    paper's θ normalisation, mechanism range, domain or group size probably differ from the reconstruction; none
    survived the text dump.
    """
    b = _v.positive("budget", budget)
    df = regression_experiment("linear", budgets=[b], n_runs=n_runs, group_size=group_size, rng=rng)
    med = float(df["accepted"].median())
    reason = (
        "Not reproducible under the literal reading (groups of 10, L1-normalised θ, domain [−1,1]^9, "
        "Eq. 5 on [−1,1], ε = 1): exact per-group losses give a median of 36.6 on average over 40 seeds "
        "(35.0 to 40.0, depending on the seed). Groups of 20 give 49.3 (47.5 to 51.5), so the paper probably "
        "used a different group size or normalisation."
    )
    return PaperComparison(med, 47.0, abs(med - 47.0) <= 3.0, reason, df)


# --- healthcare example (Sec. 6.3, Table I, App. E) -----------------------------------------

_HEALTH_THETA = {
    # intercept, age, sex, bp, BMI  (Table I; columns age, sex (F = 0, M = 1), bp, BMI, intercept)
    "heart": (6.177, -0.059, -1.456, -0.0134, 0.0),
    "stroke": (-7.989, 0.0761, 0.0952, 0.0, 0.0163),
    "diabetes": (-5.07, 0.0491, 0.0, -0.0091, 0.1039),
    "sleep": (12.323, 0.0855, 0.4617, -0.07, 0.0),
}
_HEALTH_PAPER = [
    2.4639,
    2.4084,
    1.8036,
    2.7253,
    2.6865,
    3.1550,
    2.4642,
    3.7449,
    3.4761,
    2.2610,
    2.7511,
    2.1975,
    2.3362,
    1.6863,
    1.9062,
    2.4959,
]


def healthcare_queries(epsilon: float = 1.0) -> tuple[dict[str, RegressionQuery], np.ndarray, np.ndarray]:
    """The four regressions of Table I (Sec. 6.3) and the domain box (age, sex, bp, BMI); sex is binary."""
    eps = _v.positive("epsilon", epsilon)
    qs = {name: logistic_regression_query(th, epsilon=eps) for name, th in _HEALTH_THETA.items() if name != "sleep"}
    qs["sleep"] = truncated_regression_query(_HEALTH_THETA["sleep"], epsilon=eps, low=0.0, high=12.0)
    return qs, np.array([10.0, 0.0, 50.0, 10.0]), np.array([100.0, 1.0, 200.0, 50.0])


def healthcare_losses(*, tol: float = 1e-5, epsilon: float = 1.0) -> pd.DataFrame:
    """Realized losses of all 16 output patterns of the healthcare queries (Sec. 6.3, App. E).

    Columns: heart, stroke, diabetes, sleep (outputs), paper, certified (U − Lo), attained, single_sum.
    Erratum: every value the paper prints in App. E is 0.100–0.149 above the certified optimum (probably branch-and-
    bound upper bounds at a loose tolerance: valid for accounting, not the realized loss itself).
    """
    t = _v.positive("tol", tol)
    qs, lo, hi = healthcare_queries(epsilon)
    rows = []
    for i, (h, s, sl, dbt) in enumerate(itertools.product((0, 1), (0, 1), (0, 1), (0, 1))):
        terms = [qs["heart"].term(h), qs["stroke"].term(s), qs["diabetes"].term(dbt), qs["sleep"].term(sl)]
        b = log_likelihood_bounds(terms, lo, hi, tol=t, binary=[1])
        singles = sum(single_term_loss(tm, lo, hi) for tm in terms)
        rows.append(
            {
                "heart": h,
                "stroke": s,
                "diabetes": dbt,
                "sleep": 12 * sl,
                "paper": _HEALTH_PAPER[i],
                "certified": b.certified_loss,
                "attained": b.attained_loss,
                "single_sum": singles,
            }
        )
    return pd.DataFrame(rows)
