"""The total privacy loss of many unified-filter runs (Rogers et al. 2023, Thm 6) against the N(ρ, 2ρ) law."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from app.compute._cache import cached
from app.compute.noise_reduction.grid import budget
from dpcore import noise_reduction as nr

# ---- distribution of the total privacy loss of filter runs ---------------------------------------

N_FILTER_RUNS = 1000  # filter runs behind the loss histogram
FILTER_LEVELS = 50  # grid levels of each Brownian round inside the simulated filter
#: Seconds the filter part waits for its runs (:func:`filter_runs`, a background job) before it shows a waiting note:
#: through a worker they are ready in time for most ε (drawn in the same run), not near ε = 20 (see bench/).
FILTER_RUNS_WAIT = 0.015


@dataclass(frozen=True)
class LossSummary:
    """Filter runs: ρ*, mean ρ spent, mean and variance of the total loss, its tail above ε (empirical, normal)."""

    rho: float
    spent: float
    mean: float
    var: float
    tail: float
    tail_gauss: float
    delta: float
    rounds: float
    bm_rounds: float


class LossDistribution(NamedTuple):
    """The loss histogram of the filter runs, the N(ρ, 2ρ) density beside it, and the summary."""

    histogram: pd.DataFrame  #: loss, density, width
    curve: pd.DataFrame  #: loss, density
    summary: LossSummary


@cached
def loss_distribution(
    epsilon: float, delta: float, variant: str, value: float, alpha: float, seed: int, mix: float = 0.4
) -> LossDistribution:
    """Total realised loss of N_FILTER_RUNS unified-filter runs (``filter_losses``: a share ``mix`` of Gaussian
    zCDP rounds, the rest Brownian noise reductions of y stopped at relative error ``alpha``) against a
    worst-case neighbour, with the N(ρ, 2ρ) density.

    Returns (histogram: loss bin centre, density; curve: loss, normal density; summary: ρ*, mean spent, mean and
    variance of the loss, empirical and Gaussian tail mass above ε, δ'').
    """
    rho = budget(epsilon, delta, variant).rho
    runs = nr.filter_losses(
        rho, n_runs=N_FILTER_RUNS, value=value, alpha=alpha, zcdp_share=mix, levels=FILTER_LEVELS, rng=seed
    )
    loss = runs["loss"].to_numpy()
    sd = math.sqrt(2.0 * rho)
    lo, hi = min(loss.min(), rho - 4 * sd), max(loss.max(), rho + 4 * sd)
    dens, edges = np.histogram(loss, bins=40, range=(lo, hi), density=True)
    hist = pd.DataFrame({"loss": (edges[:-1] + edges[1:]) / 2.0, "density": dens, "width": np.diff(edges)})
    x = np.linspace(lo, hi, 200)
    curve = pd.DataFrame({"loss": x, "density": stats.norm.pdf(x, loc=rho, scale=sd)})
    summary = LossSummary(
        rho=rho,
        spent=float(runs["spent"].mean()),
        mean=float(loss.mean()),
        var=float(loss.var(ddof=1)),
        tail=float((loss > epsilon).mean()),
        tail_gauss=float(stats.norm.sf(epsilon, loc=rho, scale=sd)),
        delta=delta,
        rounds=float(runs["rounds"].mean()),
        bm_rounds=float(runs["bm_rounds"].mean()),
    )
    return LossDistribution(hist, curve, summary)


def filter_runs(
    epsilon: float, delta: float, variant: str, value: float, alpha: float, seed: int, mix: float
) -> LossDistribution:
    """Panel 9's Monte Carlo as a background job (:mod:`app.background`): :func:`loss_distribution`
    (Thm 6), uncached."""
    return loss_distribution.__wrapped__(epsilon, delta, variant, value, alpha, seed, mix)
