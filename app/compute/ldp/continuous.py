"""The Local DP page's continuous part (Pan 2023, Sec. 5.3): 2-D regression queries and the branch-and-bound that
certifies their worst-case realized loss (Eq. 17)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore import ldp

REGRESSIONS = ("logistic", "truncated")  # the continuous part's query kind (Sec. 5.3 (c) and (b))
BNB_MAX_QUERIES = 10  # the continuous part: at most this many 2-D regression queries
BNB_TOL = 1e-6
BNB_WAIT = 0.06  # s the continuous part waits for its branch-and-bound before showing a placeholder
LOOSE_GAP = 0.15  # the paper's App. E values sit 0.100–0.149 above the certified optimum


def _regressions_2d(kind: str, epsilon: float, k: int, x: int, n: int, seed: int):
    """k ≤ 10 random regressions on [−1, 1]² answered at x*_c = (s, s), s = −1 + 2x*/(|D|−1): logistic with
    θ ~ U[−1, 1]³ (Sec. 6.2), or truncated linear v = clip(θ·x̃, −½, ½) with the same θ (Sec. 5.3 (b), Eq. 20)."""
    if kind not in REGRESSIONS:
        raise ValueError(f"regression kind must be one of {', '.join(REGRESSIONS)}, got {kind!r}")
    gen = np.random.default_rng([seed, 2])
    s = -1.0 + 2.0 * x / max(n - 1, 1)
    x_star = np.array([s, s])
    terms = []
    for _ in range(min(k, BNB_MAX_QUERIES)):
        theta = gen.uniform(-1.0, 1.0, 3)
        q = (
            ldp.logistic_regression_query(theta, epsilon=epsilon)
            if kind == "logistic"
            else ldp.truncated_regression_query(theta, epsilon=epsilon, low=-0.5, high=0.5)
        )
        terms.append(q.term(q.sample(x_star, gen)))
    return terms, x_star


@dataclass(frozen=True)
class BranchAndBound:
    """ln Λ over the box, certified bounds of its extremes and the search's trace."""

    kind: str
    grid: pd.DataFrame  # x1, x2, log_likelihood
    trace: pd.DataFrame  # search, nodes, lower_bound, upper_bound, gap
    secant: pd.DataFrame  # z, f, C, V, V_secant, relaxed (empty when the widest term is constant on the box)
    k: int
    x_star: np.ndarray
    argmin: np.ndarray
    argmax: np.ndarray
    certified: float
    attained: float
    grid_loss: float
    single_sum: float  # Σ of the single-answer losses (App. C with groups of one)
    basic: float
    nodes: int
    converged: bool
    loose_nodes_min: int | None
    loose_nodes_max: int | None
    z_range: tuple[float, float]


def bnb(kind: str, epsilon: float, k: int, x: int, n: int, seed: int) -> BranchAndBound:
    """ln Λ(x₁, x₂) on a 31×31 grid, certified B&B bounds of its extremes (Algorithm 6, Eq. 17) with the per-node trace
    of both searches, and the secant relaxation of the widest term on its root interval (Sec. 5.2, App. D).

    Slower the smaller ε (thousands of nodes to the fixed tolerance at ε = 0.01; bench/results-where-time-goes.md):
    the page runs it as a
    background job (:mod:`app.background`)."""
    terms, x_star = _regressions_2d(kind, epsilon, k, x, n, seed)
    lo, hi = np.array([-1.0, -1.0]), np.array([1.0, 1.0])
    g = np.linspace(-1.0, 1.0, 31)
    xx, yy = np.meshgrid(g, g)
    pts = np.column_stack([xx.ravel(), yy.ravel()])
    ll = np.sum([t.log_prob(pts) for t in terms], axis=0)
    grid = pd.DataFrame({"x1": pts[:, 0], "x2": pts[:, 1], "log_likelihood": ll})
    mn = ldp.minimize_dc(terms, lo, hi, sign=1, tol=BNB_TOL / 2)
    mx = ldp.minimize_dc(terms, lo, hi, sign=-1, tol=BNB_TOL / 2)
    t_min = mn.trace.assign(search="min ln Λ", lower_bound=mn.trace["lower"], upper_bound=mn.trace["upper"])
    t_max = mx.trace.assign(search="max ln Λ", lower_bound=-mx.trace["upper"], upper_bound=-mx.trace["lower"])
    trace = pd.concat([t_min, t_max], ignore_index=True)[["search", "nodes", "lower_bound", "upper_bound"]]
    trace["gap"] = trace["upper_bound"] - trace["lower_bound"]
    t0 = terms[int(np.argmax([float(np.abs(t.a).sum()) for t in terms]))]  # the term whose score varies most
    z_lo = float(t0.c + np.minimum(t0.a * lo, t0.a * hi).sum())
    z_hi = float(t0.c + np.maximum(t0.a * lo, t0.a * hi).sum())
    secant = ldp.secant_relaxation(t0, z_lo, z_hi, sign=1) if z_hi > z_lo else pd.DataFrame()
    loose = []
    for name in ("min ln Λ", "max ln Λ"):
        hit = trace.loc[(trace["search"] == name) & (trace["gap"] <= LOOSE_GAP / 2), "nodes"]
        loose.append(int(hit.min()) if len(hit) else None)
    return BranchAndBound(
        kind,
        grid,
        trace,
        secant,
        len(terms),
        x_star,
        mn.argmin,
        mx.argmin,
        (-mx.lower) - mn.lower,
        (-mx.upper) - mn.upper,
        float(ll.max() - ll.min()),
        float(sum(ldp.single_term_loss(t, lo, hi) for t in terms)),
        float(sum(t.epsilon for t in terms)),
        mn.n_nodes + mx.n_nodes,
        mn.converged and mx.converged,
        loose[0],
        loose[1],
        (z_lo, z_hi),
    )
