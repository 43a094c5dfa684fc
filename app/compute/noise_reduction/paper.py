"""The paper's reproductions (Rogers et al. 2023, Section 7): the cost per count at its budget, Figure 3 (with
the reference means in ``app/compute/data/noise_reduction_fig3.json``), the Reddit experiment on stand-in data and
the Zipf counts of Figures 2 and 3."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from typing import NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.noise_reduction.grid import EPS2_MIN
from dpcore import filters as fl
from dpcore import noise_reduction as nr

COST_DRAWS = 300  # draws per true count in the cost panel


PAPER = {"epsilon": 10.0, "delta": 1e-6, "alpha": 0.1, "levels": 1000}  # Section 7.2 settings
PAPER_SIZES = (8000, 16000, 32000, 64000, 128000)


@cached  # a rerun that does not move y or the grid reads one entry, not fourteen
def costs(levels: int, alpha: float, value: float, seed: int) -> pd.DataFrame:
    """Expected ε² spent per count, noise reduction vs doubling vs oracle ((2+α)/α/y)² (``cost_comparison``).

    True counts on a log grid 10 … 10⁴ plus the slider's y, at the paper's budget Σε² ≤ 2ρ*(10, 1e-6) = 2.706 (a grid
    linear in ε² from ε²_min up to it), not the sidebar's ε; each count is cached on its own (moving y adds one row).
    """
    values = np.unique(np.append(np.round(np.geomspace(10.0, 1e4, 13)), value))
    return pd.concat([_cost_row(float(y), levels, alpha, seed) for y in values], ignore_index=True)


@cached
def _cost_row(value: float, levels: int, alpha: float, seed: int) -> pd.DataFrame:
    top = 2.0 * float(fl.rho_budget(PAPER["epsilon"], PAPER["delta"]))
    rng = np.random.default_rng([seed, int(round(value * 100))])
    return nr.cost_comparison(
        [value],
        alpha=alpha,
        epsilon2_min=EPS2_MIN,
        epsilon2_max=top,
        grid_size=max(levels, 2),
        draws=COST_DRAWS,
        rng=rng,
    )


#: CPU seconds one Figure 3 trial costs at most (five sample sizes, both methods; bench/results-where-time-goes.md)
FIG3_SECONDS_PER_TRIAL = 0.08
#: Most trials one request may run: with FIG3_SECONDS_PER_TRIAL each, well under the time a request may take
FIG3_MAX_TRIALS = 500


def figure3_seconds(trials: int) -> float:
    """Estimated CPU seconds of :func:`figure3` for ``trials`` trials per sample size (stated before it starts)."""
    return min(int(trials), FIG3_MAX_TRIALS) * FIG3_SECONDS_PER_TRIAL


@cached
def figure3(trials: int, variant: str, seed: int) -> pd.DataFrame:
    """Figure 3 (Section 7.2): precision and results returned vs n, noise reduction vs doubling (``zipf_experiment``).

    Paper settings (ε = 10, δ'' = 1e-6, α = 0.1, ε_EM = 0.1, grid of 1000 levels linear in ε²), at most
    :data:`FIG3_MAX_TRIALS` trials per n (the paper runs 1000). Pure and picklable: the page runs it in a background
    worker (``app.background.result``), which also keeps the finished result for every session; cached, so a lesson
    that asks twice computes once.
    """
    t = min(int(trials), FIG3_MAX_TRIALS)
    return nr.zipf_experiment(
        sample_sizes=PAPER_SIZES,
        trials=t,
        alpha=PAPER["alpha"],
        epsilon=PAPER["epsilon"],
        delta=PAPER["delta"],
        grid_size=PAPER["levels"],
        variant=variant,
        rng=seed,
    )


@cached
def figure3_reference() -> pd.DataFrame:
    """An independent re-implementation's Figure 3 means (1000 trials), to compare with the reproduced means; the
    values and where they come from are in ``app/compute/data/noise_reduction_fig3.json``."""
    data = json.loads(resources.files("app.compute").joinpath("data/noise_reduction_fig3.json").read_text("utf-8"))
    return pd.DataFrame(data["rows"], columns=data["columns"])


#: The paper's Reddit experiment (Section 7.2): ε = 1, δ'' = 1e-6, α = 0.01, ε_EM = 0.01, smallest level 0.0001
#: (read as ε; as ε² it changes little), 1000 candidate words. Its results over 1000 trials, as printed:
REDDIT = {"epsilon": 1.0, "delta": 1e-6, "alpha": 0.01, "epsilon_em": 0.01, "epsilon2_min": 1e-8, "words": 1000}
REDDIT_PAPER = {"noise_reduction": (152.0, 0.97), "doubling": (109.0, 0.98)}  # (results, precision)
#: The methods and mechanisms of the experiments and the filter, in the words their tables show.
METHOD_WORDS = {
    "noise_reduction": "noise reduction",
    "doubling": "doubling",
    "gaussian": "Gaussian",
    "laplace": "Laplace",
}
#: Stand-in data (the Reddit word histogram is not bundled): 2,000,000 author–word pairs drawn from a Zipf law with
#: exponent 1 over the 1000 words, so the most common word is used by about 270,000 authors.
REDDIT_STANDIN = {"a": 1.0, "n": 2_000_000}
REDDIT_SECONDS_PER_TRIAL = 0.03


@cached
def reddit_standin(
    trials: int,
    seed: int,
    epsilon_em: float = REDDIT["epsilon_em"],
    epsilon_min: float = math.sqrt(REDDIT["epsilon2_min"]),
) -> pd.DataFrame:
    """The Reddit experiment's settings on stand-in Zipf data: results and precision of both methods.

    One row per method: results (mean, sd) and precision (mean) over ``trials`` trials (at most
    :data:`FIG3_MAX_TRIALS`), next to the paper's printed means; ``epsilon_em`` is the selection's budget ε_EM and
    ``epsilon_min`` the smallest noise level ε₁ (the paper: 0.01 and 0.0001). Pure: runs in a background worker."""
    df = nr.zipf_experiment(
        sample_sizes=(REDDIT_STANDIN["n"],),
        trials=min(int(trials), FIG3_MAX_TRIALS),
        alpha=REDDIT["alpha"],
        epsilon=REDDIT["epsilon"],
        delta=REDDIT["delta"],
        epsilon_em=float(epsilon_em),
        epsilon2_min=float(epsilon_min) ** 2,
        a=REDDIT_STANDIN["a"],
        support=REDDIT["words"],
        rng=seed,
    )
    df["paper_results"] = df["method"].map(lambda m: REDDIT_PAPER[m][0])
    df["paper_precision"] = df["method"].map(lambda m: REDDIT_PAPER[m][1])
    return df[["method", "trials", "results_mean", "results_sd", "precision_mean", "paper_results", "paper_precision"]]


@cached
def paper_costs(seed: int, draws: int = 2000) -> pd.DataFrame:
    """Cost per count at y ∈ {30, 50, 100, 200, 500}, the paper's settings: grid linspace(1e-4, 2ρ*(10, 1e-6), 1000)."""
    top = 2.0 * float(fl.rho_budget(PAPER["epsilon"], PAPER["delta"]))
    return nr.cost_comparison(
        [30, 50, 100, 200, 500],
        alpha=PAPER["alpha"],
        epsilon2_min=EPS2_MIN,
        epsilon2_max=top,
        grid_size=int(PAPER["levels"]),
        draws=draws,
        rng=seed,
    )


@dataclass(frozen=True)
class ZipfSummary:
    """Largest count, items that could ever be released at the paper's budget, the count that needs, Σ k^(−a)."""

    largest: int
    releasable: int
    need: float
    normaliser: float


class ZipfCounts(NamedTuple):
    """The counted Zipf draws (item, count, expected) and their summary."""

    table: pd.DataFrame
    summary: ZipfSummary


@cached
def zipf_counts(a: float, n: int, seed: int, support: int = 300) -> ZipfCounts:
    """n i.i.d. Zipf(a) draws on {1..support} (``zipf_probabilities``), counted, with the expected n·p_k.

    Summary: largest count, items with a count ≥ (2+α)/α/ε_max at the paper's budget (count 21/√2.706 for α = 0.1
    would be released at the top level), and the normaliser Σ k^(−a) (13.212814 for a = 0.75 on 1–300).
    """
    p = nr.zipf_probabilities(a, support)
    counts = np.random.default_rng([seed, 3]).multinomial(int(n), p)
    k = np.arange(1, support + 1)
    top = math.sqrt(2.0 * float(fl.rho_budget(PAPER["epsilon"], PAPER["delta"])))
    need = (2.0 + PAPER["alpha"]) / PAPER["alpha"] / top
    df = pd.DataFrame({"item": k, "count": counts, "expected": n * p})
    return ZipfCounts(
        df, ZipfSummary(int(counts.max()), int((counts >= need).sum()), need, float((k.astype(float) ** (-a)).sum()))
    )
