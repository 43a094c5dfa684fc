"""Interactions between an adversary and a filtered object (Pan 2023, Sec. 4.1 Algorithm 1, Sec. 6 Algorithm 5).

Exhaustive transcript trees (to check Thm 4.1), realized losses of every output pattern of a fixed composition,
acceptance of candidate queries by the full and the simplified filter, Monte Carlo accepted counts of a greedy
adversary, a query-by-query filter trace, and the closed form of a stream of binary randomized-response queries
(a hitting time of a ±1 walk; this project's own benchmark, not in the paper).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
from scipy import linalg, special

from dpcore import _validate as _v
from dpcore._exact import ExactSum, count_within, up
from dpcore.ldp.beliefs import _loglik
from dpcore.ldp.likelihood import (
    _RND,
    DECLARED_ROUNDOFF,
    MAX_GRID,
    MAX_QUERIES,
    MAX_RR_THRESHOLD,
    MAX_RUNS,
    TOLERANCE,
    LikelihoodTable,
    _absmax,
    _as_table,
    _budget_limit,
    _cap_columns,
    _column_losses,
    _make_table,
    realized_loss,
)
from dpcore.ldp.mechanisms import randomized_response
from dpcore.ldp.privacy_filter import BayesianPrivacyFilter, SimplifiedBayesianFilter, _FilterBase


@dataclass(frozen=True)
class TranscriptTree:
    """All transcripts of an interaction (Algorithm 1) with ``ln Pr[I(x) = r]`` per true value x."""

    outputs: tuple  # one tuple of output labels per transcript
    log_prob: np.ndarray  # (n_transcripts, |D|)

    @property
    def lengths(self) -> np.ndarray:
        return np.array([len(o) for o in self.outputs])

    @property
    def total_probability(self) -> np.ndarray:
        """Σ_r Pr[I(x) = r] for every x (must be 1)."""
        return np.exp(special.logsumexp(self.log_prob, axis=0))

    @property
    def max_loss(self) -> float:
        """``max_r max_{x,x'} ln(Pr[I(x)=r]/Pr[I(x')=r])`` (Def. 4.1/Eq. 12), log scale."""
        return float(np.max(realized_loss(self.log_prob)))

    def expected_length(self, true_value: int) -> float:
        """Expected number of accepted queries when X = true_value."""
        x = _v.integer("true_value", true_value, low=0, high=self.log_prob.shape[1] - 1)
        return float(np.sum(np.exp(self.log_prob[:, x]) * self.lengths))


def enumerate_interaction(
    choose: Callable[[tuple], Any],
    filter: _FilterBase,  # noqa: A002
    *,
    max_depth: int = 60,
    max_transcripts: int = 200_000,
) -> TranscriptTree:
    """Enumerate the transcript tree of Algorithm 1 for a (possibly adaptive) deterministic adversary.

    ``choose(history)`` gets the tuple of (table, output) pairs accepted so far and returns the next
    table or None (stop).  The adversary stops at the first rejection (Algorithm 5).  ``filter`` is
    copied, never mutated.  Used to verify Thm 4.1 exhaustively (every transcript within the budget).
    """
    depth_max = _v.integer("max_depth", max_depth, low=1)
    cap = _v.integer("max_transcripts", max_transcripts, low=1)
    outs: list[tuple] = []
    lps: list[np.ndarray] = []

    def rec(filt: _FilterBase, hist: tuple, lp: np.ndarray) -> None:
        if len(outs) > cap:
            raise ValueError(f"max_transcripts: the tree has more than {cap} transcripts")
        q = choose(hist) if len(hist) < depth_max else None
        if q is None or not filt.would_accept(q):
            outs.append(tuple(y for _, y in hist))
            lps.append(lp)
            return
        tab = _as_table("choose", q)
        for j, y in enumerate(tab.outputs):
            col = tab.log_prob[:, j]
            if np.all(col == -np.inf):
                continue
            child = filt.copy()
            child.submit(tab, y)
            rec(child, hist + ((tab, y),), lp + col)

    rec(filter.copy(), (), np.zeros(filter.domain_size))
    return TranscriptTree(tuple(outs), np.array(lps))


def composition_output_losses(
    tables: Sequence[Any], *, true_value: int | None = None, max_patterns: int = 4096
) -> pd.DataFrame:
    """ℓ(y) of every output pattern of a fixed composition, with its probability under x*.

    Columns: ``pattern`` (tuple of labels), ``loss`` (log scale), ``ratio`` (e^ℓ), ``basic`` (Σ ε_i),
    ``probability`` (under ``true_value``; nan if None).
    """
    tabs = [_as_table("tables", t) for t in tables]
    if not tabs:
        raise ValueError("tables must contain at least one query")
    n = tabs[0].domain_size
    if any(t.domain_size != n for t in tabs):
        raise ValueError("tables must all have the same domain size")
    n_pat = math.prod(t.n_outputs for t in tabs)
    if n_pat > _v.integer("max_patterns", max_patterns, low=1):
        raise ValueError(f"max_patterns: the composition has {n_pat} output patterns (> {max_patterns})")
    x = None if true_value is None else _v.integer("true_value", true_value, low=0, high=n - 1)
    basic = float(sum(t.epsilon for t in tabs))
    # ln Λ of every pattern in itertools.product order (the first query varies slowest), added query by query in
    # order as np.sum over the stacked columns does: shape (n_patterns, |D|)
    ll = tabs[0].log_prob.T
    for t in tabs[1:]:
        ll = (ll[:, None, :] + t.log_prob.T[None, :, :]).reshape(-1, n)
    idx = np.flatnonzero(~np.all(ll == -np.inf, axis=1))  # patterns that can occur
    if idx.size == 0:
        return pd.DataFrame([])
    ll = ll[idx]
    loss = _column_losses(ll.T)  # realized_loss of each pattern (Eq. 10)
    combos = list(itertools.product(*[t.outputs for t in tabs]))
    return pd.DataFrame(
        {
            "pattern": pd.Series([combos[i] for i in idx], dtype=object),
            "loss": loss,
            "ratio": [math.exp(v) if v < 700 else math.inf for v in loss],
            "basic": basic,
            "probability": math.nan if x is None else [float(np.exp(v)) for v in ll[:, x]],
        }
    )


def _absmax_rows(a: np.ndarray) -> np.ndarray:
    """:func:`_absmax` of every leading row of ``a`` (over its other axes)."""
    fin = np.where(np.isfinite(a), np.abs(a), 0.0)
    return fin.reshape(a.shape[0], -1).max(axis=1)


def _cap_candidates(lp: np.ndarray, epsilon: float) -> np.ndarray:
    """:func:`_cap_columns` of every candidate table in ``lp`` (S, n, outputs), as ``two_point`` builds it."""
    with np.errstate(invalid="ignore"):
        d = lp.max(axis=1) - lp.min(axis=1)
    near = np.flatnonzero(np.any(d >= epsilon * (1 - 8 * _RND), axis=1))  # only these can exceed ε exactly
    if near.size:
        lp = lp.copy()
        for i in near:
            lp[i] = _cap_columns(lp[i], epsilon)
    return lp


def acceptance_regions(
    log_likelihood: Any,
    budget: float,
    *,
    epsilons: Any,
    slopes: Any,
    intercept: float = 0.0,
    tolerance: float = TOLERANCE,
) -> pd.DataFrame:
    """Acceptance of candidate queries by the Simplified and the full BPF from a state (Algorithms 2 and 3).

    Candidate (ε, slope): Eq.-5 query on [0, 1] of ``v(x) = clip(intercept + slope·x/(|D|−1), 0, 1)``.
    The Simplified filter uses the declared ε (Algorithm 3).  Columns: epsilon, slope, query_loss
    (tight ε of the candidate), worst_case, bayesian, simplified.  Vectorised over the slopes: the same
    numbers as ``two_point`` + ``BayesianPrivacyFilter.would_accept`` / ``SimplifiedBayesianFilter.would_accept``
    candidate by candidate (tests/dpcore/test_ldp_fastpaths.py).
    """
    ll = _loglik(log_likelihood)
    if np.any(~np.isfinite(ll)):
        raise ValueError("log_likelihood must be finite")
    b = _v.positive("budget", budget)
    eps_arr = _v.real_array("epsilons", epsilons, low=0.0, allow_inf=False).ravel()
    if np.any(eps_arr <= 0) or eps_arr.size == 0:
        raise ValueError("epsilons must be a non-empty array of values > 0")
    sl = _v.real_array("slopes", slopes, allow_inf=False).ravel()
    c0 = _v.real("intercept", intercept)
    tol = _v.nonnegative("tolerance", tolerance)
    n = ll.size
    if sl.size == 0:
        return pd.DataFrame([])
    t = np.arange(n) / max(n - 1, 1)
    v = np.clip(c0 + sl[:, None] * t, 0.0, 1.0)  # (S, n): the candidates' query values on [0, 1]
    u = 1.0 - v
    with np.errstate(divide="ignore"):
        log_v, log_u = np.log(v), np.log(u)
    lim = _budget_limit(b, tol)
    # the filters' normalised state and its round-off bound (as BayesianPrivacyFilter(log_likelihood=ll) keeps it)
    ll_n = ll - ll.max()
    err = _RND * _absmax(ll_n)
    loss = float(ll_n.max() - ll_n.min())  # the odometer of the state, in floats
    frames = []
    for e in eps_arr:
        e = float(e)
        em1, norm = math.expm1(-e), math.log1p(math.exp(-e))
        cols = []
        for q, log_p, log_q in ((v, log_u, log_v), (u, log_v, log_u)):  # _two_point_log_prob(p, q, e)
            x = q * em1
            near_one = x >= -0.5
            small = np.logaddexp(log_p, log_q - e)
            cols.append(np.where(near_one, np.log1p(np.where(near_one, x, 0.0)), small) - norm)
        lp = _cap_candidates(np.stack(cols, axis=-1), e)  # (S, n, 2): ln Pr[low | x], ln Pr[high | x], as two_point
        with np.errstate(invalid="ignore"):
            top = lp.max(axis=1, keepdims=True)
            lpn = lp - np.where(np.isfinite(top), top, 0.0)  # LikelihoodTable._normalised
            tight_cols = lp.max(axis=1) - lp.min(axis=1)
            tight = np.fmax(*np.moveaxis(tight_cols, -1, 0))
            joint = ll_n[None, :, None] + lpn
            d = joint.max(axis=1) - joint.min(axis=1)  # (S, 2)
        e1 = err + _RND * (_absmax_rows(lpn) + _absmax_rows(joint))  # (S,)
        worst_cols = up(d + (2 * e1[:, None] + _RND * d))
        worst = np.fmax(*np.moveaxis(worst_cols, -1, 0))
        # full filter (BayesianPrivacyFilter._fits): sure where the floats are farther than round-off from the limit
        eta = 2 * e1[:, None] + _RND * (d + lim)
        with np.errstate(invalid="ignore"):
            over = np.any((d == np.inf) | (d - eta > lim), axis=1)
            unsure = np.any(np.isfinite(d) & (d + eta > lim), axis=1) & ~over
        bayes = ~over & ~unsure
        fin_tight = np.where(np.isfinite(tight), np.abs(tight), 0.0)
        a_lp = np.abs(lp)
        lp_scale = np.where(np.isfinite(a_lp), a_lp, 0.0).max(axis=(1, 2))
        below = e < tight - DECLARED_ROUNDOFF * np.maximum(np.maximum(1.0, fin_tight), lp_scale)  # Simplified's check
        if np.any(below):
            bad = float(tight[np.argmax(below)])
            raise ValueError(f"epsilon must be ≥ the query's tight LDP level {bad!r}, got {e!r}")
        # simplified filter: ℓ(r) + max(ε_q, tight) ≤ limit, sure unless within round-off
        eff = np.where(tight > e, tight, e)
        vs = loss + eff
        eta_s = 2 * err + _RND * (loss + eff + vs + lim)
        simple = vs + eta_s <= lim
        unsure_s = ~simple & ~(vs - eta_s > lim) & np.isfinite(eff)
        for i in np.flatnonzero(unsure | unsure_s):  # decide exactly, as the filters do
            tab = _make_table(lp[i], (0.0, 1.0), "")
            if unsure[i]:
                bayes[i] = BayesianPrivacyFilter(b, domain_size=n, tolerance=tol, log_likelihood=ll).would_accept(tab)
            if unsure_s[i]:
                simple[i] = SimplifiedBayesianFilter(b, domain_size=n, tolerance=tol, log_likelihood=ll).would_accept(
                    tab, epsilon=e
                )
        frames.append((np.full(sl.size, e), sl, tight, worst, bayes, simple))
    cols_out = [np.concatenate(c) for c in zip(*frames, strict=True)]
    names = ("epsilon", "slope", "query_loss", "worst_case", "bayesian", "simplified")
    return pd.DataFrame(dict(zip(names, cols_out, strict=True)))


def _basic_count(tabs: Sequence[LikelihoodTable], budget: float, cap: int) -> int:
    """How many queries of the stream (``tabs`` cycled) basic composition accepts: the largest k ≤ cap with
    Σ_{i<k} ε_i ≤ ε_G, decided on the exact sum of the tables' tight levels (a binary search on exact sums)."""
    pairs = np.array([t.tight_terms for t in tabs], dtype=float)
    if not np.all(np.isfinite(pairs[:, 0])):
        first_inf = int(np.flatnonzero(~np.isfinite(pairs[:, 0]))[0])
        cap = min(cap, first_inf)  # a query of infinite ε is never accepted, nor anything after it
        pairs = pairs[: max(first_inf, 1)]
    terms = (np.resize(pairs, (cap, 2)) * [1.0, -1.0]).ravel() if cap else np.zeros(0)

    def fits(k: int) -> bool:
        return math.fsum([*terms[: 2 * k], -budget]) <= 0.0

    lo, hi = 0, cap  # fits(lo) holds; find the largest k with fits(k)
    if fits(hi):
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def simulate_accepted_counts(
    tables: Any,
    budget: float,
    *,
    true_value: int,
    n_runs: int = 200,
    method: str = "bayesian",
    max_queries: int = 10_000,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Accepted-query counts of a greedy adversary over many runs (Algorithm 5).

    ``tables`` is one table (repeated) or a list cycled in order; the adversary stops at the first
    rejection.  ``method``: "bayesian", "simplified" or "basic" (Σ ε_i ≤ ε_G).  Columns: run, method,
    accepted, final_loss, basic_composition (⌊ε_G/ε⌋-style count of the same stream).
    """
    tabs = [tables] if isinstance(tables, LikelihoodTable) else list(tables)
    tabs = [_as_table("tables", t) for t in tabs]
    if not tabs:
        raise ValueError("tables must contain at least one query")
    b = _v.positive("budget", budget)
    m = _v.choice("method", method, ("bayesian", "simplified", "basic"))
    runs = _v.integer("n_runs", n_runs, low=1, high=MAX_RUNS)
    cap = _v.integer("max_queries", max_queries, low=1, high=MAX_QUERIES)
    n = tabs[0].domain_size
    x = _v.integer("true_value", true_value, low=0, high=n - 1)
    gen = _v.rng(rng)
    basic_count = _basic_count(tabs, b, cap)
    probs = [np.exp(t.log_prob[x]) for t in tabs]
    rows = []
    for run in range(runs):
        if m == "basic":
            rows.append(
                {
                    "run": run,
                    "method": m,
                    "accepted": basic_count,
                    "final_loss": math.nan,
                    "basic_composition": basic_count,
                }
            )
            continue
        filt: _FilterBase = (BayesianPrivacyFilter if m == "bayesian" else SimplifiedBayesianFilter)(b, domain_size=n)
        k = 0
        while k < cap:
            tab = tabs[k % len(tabs)]
            if not filt.would_accept(tab):
                break
            p = probs[k % len(tabs)]
            j = int(np.searchsorted(np.cumsum(p), gen.random() * p.sum(), side="right"))
            filt.submit(tab, tab.outputs[min(j, tab.n_outputs - 1)])
            k += 1
        rows.append(
            {
                "run": run,
                "method": m,
                "accepted": k,
                "final_loss": filt.loss,
                "basic_composition": basic_count,
            }
        )
    return pd.DataFrame(rows)


def filter_timeline(
    tables: Sequence[Any],
    budget: float,
    *,
    true_value: int,
    outputs: Sequence[Any] | None = None,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Query-by-query trace of the BPF next to basic composition (Example-3 style).

    Each query is checked with the look-ahead; accepted ones are run on ``true_value`` (or take the
    next entry of ``outputs``), rejected ones are probes and not run.  Columns: step, epsilon (tight
    ε of the query), worst_case (max_y ℓ(r + (q, y))), accepted, output, loss (odometer after),
    basic_spent (Σ ε of queries basic composition accepts), basic_accepted.
    """
    tabs = [_as_table("tables", t) for t in tables]
    if not tabs:
        raise ValueError("tables must contain at least one query")
    b = _v.positive("budget", budget)
    n = tabs[0].domain_size
    if any(t.domain_size != n for t in tabs):
        raise ValueError("tables must all have the same domain size")
    x = _v.integer("true_value", true_value, low=0, high=n - 1)
    gen = _v.rng(rng)
    outs = None if outputs is None else _v.sequence("outputs", outputs)
    filt = BayesianPrivacyFilter(b, domain_size=n)
    spent = ExactSum()
    basic_open = True
    rows = []
    k = 0
    for i, t in enumerate(tabs, start=1):
        w = filt.worst_case(t)
        acc = filt.would_accept(t)
        y: Any = None
        if acc:
            if outs is not None:
                if k >= len(outs):
                    raise ValueError("outputs must have one entry per accepted query")
                y = outs[k]
            else:
                y = t.sample(x, gen)
            filt.submit(t, y)
            k += 1
        hi, lo = t.tight_terms
        basic_ok = basic_open and math.isfinite(hi) and math.fsum([*spent.partials, hi, -lo, -b]) <= 0
        if basic_ok:
            spent.add(hi)
            spent.add(-lo)
        else:
            basic_open = False
        rows.append(
            {
                "step": i,
                "epsilon": t.epsilon,
                "worst_case": w,
                "accepted": acc,
                "output": y,
                "loss": filt.loss,
                "basic_spent": spent.upper,
                "basic_accepted": basic_ok,
            }
        )
    return pd.DataFrame(rows)


def _rr_threshold(epsilon: float, budget: float) -> int:
    """m = ⌊ε_G/ε⌋ as the filter counts it: the largest m with m·ℓ ≤ ε_G exactly, ℓ the exact loss of one answer of
    the RR table for ε (≤ ε; ≤ MAX_RR_THRESHOLD, else ValueError naming both: the chain has 2m + 1 states)."""
    ratio = budget / epsilon  # inf when ε is subnormal: rejected below
    if not ratio < MAX_RR_THRESHOLD + 2:
        raise ValueError(
            f"budget/epsilon must be below {MAX_RR_THRESHOLD + 1} (the threshold ⌊ε_G/ε⌋), "
            f"got budget={budget!r}, epsilon={epsilon!r}"
        )
    hi, lo = randomized_response(epsilon).tight_terms  # the filter's RR table: its exact loss per answer (≤ ε)
    m = count_within(Fraction(hi) - Fraction(lo), budget)
    if m > MAX_RR_THRESHOLD:
        raise ValueError(
            f"budget/epsilon must be below {MAX_RR_THRESHOLD + 1} (the threshold ⌊ε_G/ε⌋), "
            f"got budget={budget!r}, epsilon={epsilon!r}"
        )
    return m


def rr_expected_accepted(epsilon: float, budget: float) -> float:
    """Closed-form E[#accepted] of the BPF on a stream of binary RR queries (this project's closed form, not in the
    paper).

    ℓ = ε|n₁ − n₀|; the next query is accepted iff ε(|n₁−n₀|+1) ≤ ε_G, so the count is the hitting time
    of |d| = m = ⌊ε_G/ε⌋ by a ±1 walk with up-probability e^ε/(1+e^ε); solved as a linear system.
    """
    eps = _v.positive("epsilon", epsilon)
    b = _v.positive("budget", budget)
    m = _rr_threshold(eps, b)
    if m == 0:
        return 0.0
    p = special.expit(eps)
    # states d = -(m-1)..(m-1); T(d) = 1 + p T(d+1) + (1-p) T(d-1), T(±m) = 0: a tridiagonal system
    size = 2 * m - 1
    ab = np.empty((3, size))
    ab[0], ab[1], ab[2] = -p, 1.0, -(1 - p)  # super-, main and sub-diagonal (banded storage)
    t = linalg.solve_banded((1, 1), ab, np.ones(size))
    return float(t[m - 1])


def rr_accepted_pmf(epsilon: float, budget: float, *, max_count: int = 2000) -> pd.DataFrame:
    """Distribution of the accepted count for the RR stream of :func:`rr_expected_accepted` (absorbing chain).

    Columns: accepted, probability (mass beyond ``max_count`` is dropped).
    """
    eps = _v.positive("epsilon", epsilon)
    b = _v.positive("budget", budget)
    cap = _v.integer("max_count", max_count, low=1, high=MAX_GRID)
    m = _rr_threshold(eps, b)
    if m == 0:
        return pd.DataFrame({"accepted": [0], "probability": [1.0]})
    p = special.expit(eps)
    dist = np.zeros(2 * m + 1)  # d = -m..m
    dist[m] = 1.0
    pmf = np.zeros(cap + 1)
    for k in range(1, cap + 1):
        new = np.zeros_like(dist)
        new[1:] += p * dist[:-1]
        new[:-1] += (1 - p) * dist[1:]
        pmf[k] = new[0] + new[-1]
        new[0] = new[-1] = 0.0
        dist = new
        if dist.sum() < 1e-15:
            break
    return pd.DataFrame({"accepted": np.arange(cap + 1), "probability": pmf})
