"""How many queries the Local DP page's filter answers (Pan 2023): simulated runs against basic composition, and
binary randomized response's expected count in closed form and by Monte Carlo."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.ldp.queries import _query, _tables
from dpcore import ldp

SIM_RUNS = 100  # Monte Carlo runs per filter of the answered-counts panel (seeded)
SIM_CAP = 200  # a run stops after this many accepted queries (stated on the page)
RR_MULTIPLES = tuple(range(1, 13))  # the closed-form curve: ε_G = j·ε
RR_MC_MULTIPLES = (2, 4, 8, 12)
RR_MC_RUNS = 80
RR_CLOSED_FORM_MAX_M = 300  # ⌊ε_G/ε⌋ above this: the linear system is too slow for a rerun


@dataclass(frozen=True)
class AcceptedCounts:
    """Answered counts of a greedy adversary over seeded runs, per filter."""

    table: pd.DataFrame  # accepted, method, runs
    bayesian_mean: float
    simplified_mean: float
    bayesian_median: float
    simplified_median: float
    capped: int  # runs (either filter) that reached SIM_CAP
    basic: int


@cached(show_spinner="Simulating the filter …")
def accepted_counts(family: str, epsilon: float, budget: float, n: int, x: int, seed: int) -> AcceptedCounts:
    """Answered counts of a greedy adversary (Algorithm 5) under the full and the Simplified filter,
    :data:`SIM_RUNS` seeded runs each, stream capped at :data:`SIM_CAP`; basic composition's single count."""
    stream = [_query(family, epsilon, n, 1)] if family == "rr" else _tables(family, epsilon, n, SIM_CAP)
    frames, stats = [], {}
    basic = 0
    for i, method in enumerate(("bayesian", "simplified")):
        sim = ldp.simulate_accepted_counts(
            stream,
            budget,
            true_value=x,
            n_runs=SIM_RUNS,
            method=method,
            max_queries=SIM_CAP,
            rng=np.random.default_rng([seed, i]),
        )
        counts = sim["accepted"].value_counts().sort_index()
        frames.append(pd.DataFrame({"accepted": counts.index, "method": method, "runs": counts.to_numpy()}))
        stats[method] = (
            float(sim["accepted"].mean()),
            float(sim["accepted"].median()),
            int((sim["accepted"] >= SIM_CAP).sum()),
        )
        basic = int(sim["basic_composition"].iloc[0])
    return AcceptedCounts(
        pd.concat(frames, ignore_index=True),
        stats["bayesian"][0],
        stats["simplified"][0],
        stats["bayesian"][1],
        stats["simplified"][1],
        stats["bayesian"][2] + stats["simplified"][2],
        basic,
    )


@cached(show_spinner="Simulating the randomized-response stream …")
def rr_curve(epsilon: float, x: int, seed: int) -> pd.DataFrame:
    """E[# answered] of the filter on a binary RR stream against ε_G = j·ε (closed form: a ±1 walk's hitting time)
    with seeded Monte Carlo means ± standard errors at a few j; basic composition ⌊ε_G/ε⌋ = j.

    Columns: budget, multiple, closed_form, basic, mc_mean, mc_se (nan where not simulated).
    """
    rr = ldp.randomized_response(epsilon)
    df = rr_closed_form(epsilon)
    for i, j in enumerate(RR_MULTIPLES):
        if j in RR_MC_MULTIPLES:
            sim = ldp.simulate_accepted_counts(
                rr, j * epsilon, true_value=min(x, 1), n_runs=RR_MC_RUNS, rng=np.random.default_rng([seed, j])
            )
            df.loc[i, "mc_mean"] = float(sim["accepted"].mean())
            df.loc[i, "mc_se"] = float(sim["accepted"].std(ddof=1) / math.sqrt(RR_MC_RUNS))
    return df


@cached
def rr_closed_form(epsilon: float) -> pd.DataFrame:
    """The closed-form part of :func:`rr_curve` (no simulation: mc_mean and mc_se are nan)."""
    return pd.DataFrame(
        [
            {
                "budget": j * epsilon,
                "multiple": j,
                "closed_form": ldp.rr_expected_accepted(epsilon, j * epsilon),
                "basic": j,
                "mc_mean": math.nan,
                "mc_se": math.nan,
            }
            for j in RR_MULTIPLES
        ]
    )


@cached
def rr_expected(epsilon: float, budget: float) -> float | None:
    """Closed-form E[# answered] at (ε, ε_G); None when ⌊ε_G/ε⌋ is too large to solve on a rerun."""
    if math.floor(budget / epsilon + 1e-9) > RR_CLOSED_FORM_MAX_M:
        return None
    return ldp.rr_expected_accepted(epsilon, budget)
