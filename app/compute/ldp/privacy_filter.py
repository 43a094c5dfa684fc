"""The Local DP page's Bayesian privacy filter (Pan 2023, Algorithms 3 and 4): its timeline against basic
composition, the region of queries it accepts, and the (ε, δ) variant."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.ldp.queries import _tables, add_ratio
from dpcore import ldp

REGION_MAX_EPSILON = 100.0  # the acceptance panel's candidate ε range stops at 2·ε_G, and never above this
#: The (ε, δ) filter's δ for the pure-ε queries of the page (Algorithm 4 spends no δ on them).
APPROX_DELTA = 1e-6


@dataclass(frozen=True)
class Timeline:
    """The Bayesian filter on a stream of k queries next to basic composition."""

    #: step, epsilon, worst_case, accepted, output, loss, basic_spent, basic_accepted, budget (+_ratio)
    table: pd.DataFrame
    accepted: int
    basic_accepted: int
    first_rejection: int | None
    basic_stop: int | None
    loss: float
    remaining: float
    basic_remaining: float
    simplified_max_epsilon: float
    remaining_share: float
    basic_remaining_share: float
    decreases: int
    log_likelihood: np.ndarray  # ln Λ of the accepted transcript


@cached
def timeline(family: str, epsilon: float, budget: float, n: int, k: int, x: int, seed: int) -> Timeline:
    """The filter on k queries (Algorithm 2: look-ahead over every output); rejected queries are probes, not run."""
    tabs = _tables(family, epsilon, n, k)
    df = ldp.filter_timeline(tabs, budget, true_value=x, rng=np.random.default_rng(seed))
    df["output"] = df["output"].astype(object).where(df["accepted"], None)
    df["budget"] = budget
    acc = df["accepted"].to_numpy()
    ll = (
        ldp.transcript_log_likelihood([t for t, a in zip(tabs, acc, strict=True) if a], df.loc[acc, "output"].tolist())
        if acc.any()
        else np.zeros(n)
    )
    df = add_ratio(df, ("worst_case", "loss", "basic_spent", "budget"))
    loss = float(df["loss"].iloc[-1])
    spent = float(df["basic_spent"].iloc[-1])
    return Timeline(
        df,
        int(acc.sum()),
        int(df["basic_accepted"].sum()),
        int(df.loc[~df["accepted"], "step"].min()) if (~acc).any() else None,
        int(df.loc[~df["basic_accepted"], "step"].min()) if (~df["basic_accepted"]).any() else None,
        loss,
        budget - loss,
        budget - spent,
        max(budget - loss, 0.0),
        min(max(1.0 - loss / budget, 0.0), 1.0),
        min(max(1.0 - spent / budget, 0.0), 1.0),
        int((np.diff(np.r_[0.0, df["loss"].to_numpy()]) < -1e-12).sum()),
        ll,
    )


@dataclass(frozen=True)
class Regions:
    """Which candidate queries the full and the Simplified filter accept from the timeline's state."""

    table: pd.DataFrame  # epsilon, slope, query_loss, worst_case, bayesian, simplified, region
    bayesian: int
    simplified: int
    candidates: int
    loss: float
    superset: bool


@cached
def regions(family: str, epsilon: float, budget: float, n: int, k: int, x: int, seed: int) -> Regions:
    """Acceptance of candidate Eq.-5 queries (ε_q, slope) by the Simplified rule ℓ + ε_q ≤ ε_G (Algorithm 3) and the
    full look-ahead (Eq. 15) from the state the timeline left."""
    tl = timeline(family, epsilon, budget, n, k, x, seed)
    eps_grid = np.geomspace(0.02, min(max(2.0 * budget, 0.1), REGION_MAX_EPSILON), 24)
    df = ldp.acceptance_regions(tl.log_likelihood, budget, epsilons=eps_grid, slopes=np.linspace(0.0, 1.0, 21))
    df["region"] = np.select(
        [df["simplified"] & df["bayesian"], df["bayesian"]], ["both accept", "only the full filter"], "both reject"
    )
    return Regions(
        df,
        int(df["bayesian"].sum()),
        int(df["simplified"].sum()),
        len(df),
        tl.loss,
        bool((df["bayesian"] | ~df["simplified"]).all()),
    )


@dataclass(frozen=True)
class ApproximateRun:
    """The (ε, δ) filter of Algorithm 4 on the timeline's stream: when it leaves basic composition."""

    table: pd.DataFrame  # step, mode (words), accepted, loss, spent
    accepted: int
    bayesian_accepted: int
    switch_step: int | None  # first query judged in Bayesian mode
    halted: bool


_MODE_WORDS = {"OI": "adding up ε (basic composition)", "BAYES": "Bayesian look-ahead", "HALT": "halted"}


@cached
def approximate_run(family: str, epsilon: float, budget: float, n: int, k: int, x: int, seed: int) -> ApproximateRun:
    """Algorithm 4 (experimental, no proof in the paper): spend ε by basic composition until it would stop, then
    switch to the Bayesian look-ahead if ℓ ≤ ε_G. The answers are drawn as in :func:`timeline`."""
    tabs = _tables(family, epsilon, n, k)
    gen = np.random.default_rng(seed)
    filt = ldp.ApproximateBayesianFilter(budget, APPROX_DELTA, domain_size=n)
    rows, switch = [], None
    for i, t in enumerate(tabs, start=1):
        ok = filt.would_accept(t)
        if switch is None and filt.mode != "OI":
            switch = i
        if ok:
            filt.submit(t, t.sample(x, gen))
        rows.append(
            {"step": i, "mode": _MODE_WORDS[filt.mode], "accepted": ok, "loss": filt.loss, "spent": filt.spent[0]}
        )
    df = pd.DataFrame(rows)
    return ApproximateRun(
        df,
        int(df["accepted"].sum()),
        timeline(family, epsilon, budget, n, k, x, seed).accepted,
        switch,
        filt.mode == "HALT",
    )
