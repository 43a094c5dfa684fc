"""Coupled noise-reduction paths and where they stop (Rogers et al. 2023, Def 4.4, Section 7): the path panel,
the stopping distribution of many runs and the paths on the precision clock (Thm 4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.noise_reduction.grid import grid
from dpcore import filters as fl
from dpcore import noise_reduction as nr

N_PATHS = 5  # coupled paths drawn in the path panel
N_RUNS = 2000  # runs behind the stopping distribution


class Paths(NamedTuple):
    """The path panel: every path over the grid, and where each stops."""

    frame: pd.DataFrame  #: path, epsilon, release
    stops: pd.DataFrame  #: path, epsilon_stop, release, charge, accepted


@cached
def paths(
    epsilon: float,
    delta: float,
    variant: str,
    levels: int,
    spacing: str,
    value: float,
    alpha: float,
    mechanism: str,
    seed: int,
) -> Paths:
    """N_PATHS coupled noise-reduction paths Y_k = y + Z_k over the grid (Def 4.4 / Def A.1), and where each stops.

    Returns (path frame: path, epsilon, release, band_low, band_high, boundary; stop frame: path, epsilon_stop,
    release, charge, accepted). The stop is the first level where the relative-error rule fires (Section 7).
    """
    eps = grid(epsilon, delta, variant, levels, spacing)
    sampler = nr.brownian_path if mechanism == "brownian" else nr.laplace_path
    z = sampler(eps, n_paths=N_PATHS, rng=seed)
    y = value + z
    stop = np.asarray(nr.relative_error_stop(y, eps[None, :], alpha=alpha))
    hit = stop.any(axis=1)
    idx = np.where(hit, stop.argmax(axis=1), eps.size - 1)
    frame = pd.DataFrame(
        {
            "path": np.repeat(np.arange(1, N_PATHS + 1), eps.size),
            "epsilon": np.tile(eps, N_PATHS),
            "release": y.ravel(),
        }
    )
    e_t = eps[idx]
    stops = pd.DataFrame(
        {
            "path": np.arange(1, N_PATHS + 1),
            "epsilon_stop": e_t,
            "release": y[np.arange(N_PATHS), idx],
            "charge": e_t**2 / 2.0 if mechanism == "brownian" else e_t,
            "accepted": hit,
        }
    )
    return Paths(frame, stops)


@cached
def bands(
    epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float, alpha: float
) -> pd.DataFrame:
    """±1/ε noise band around y and the acceptance boundary ŷ = (2+α)/(αε) (the closed form of the Section 7.2 rule)."""
    eps = grid(epsilon, delta, variant, levels, spacing)
    return pd.DataFrame(
        {
            "epsilon": eps,
            "band_low": value - 1.0 / eps,
            "band_high": value + 1.0 / eps,
            "boundary": (2.0 + alpha) / (alpha * eps),
        }
    )


@dataclass(frozen=True)
class StoppingSummary:
    """Where many runs of one noise reduction stop: typical and worst-case charge, accuracy, DP ε of the charges."""

    median_charge: float
    mean_charge: float
    worst_charge: float
    median_epsilon_stop: float
    accepted: float
    precision: float
    mean_loss: float
    dp_epsilon_median: float
    dp_epsilon_worst: float


class Stopping(NamedTuple):
    """Where many runs stop: the histogram of the charge paid and its summary."""

    histogram: pd.DataFrame  #: epsilon_stop, charge, runs, share
    summary: StoppingSummary


@cached
def stopping(
    epsilon: float,
    delta: float,
    variant: str,
    levels: int,
    spacing: str,
    value: float,
    alpha: float,
    mechanism: str,
    seed: int,
) -> Stopping:
    """N_RUNS releases (``release_many``): histogram of the charge paid at the stop, and a summary.

    Brownian charge ρ_T = ε_T²/2 (zCDP, Thm 6); Laplace charge ε_T (pure ex-post, Lemma A.1). The ex-ante worst
    case is the charge at the top level. ``dp_epsilon`` is the DP ε the median Brownian charge alone would certify.
    """
    eps = grid(epsilon, delta, variant, levels, spacing)
    runs = nr.release_many(value, epsilons=eps, alpha=alpha, n_runs=N_RUNS, mechanism=mechanism, rng=seed)
    worst = eps[-1] ** 2 / 2.0 if mechanism == "brownian" else float(eps[-1])
    counts = runs.groupby("index").size()
    k = counts.index.to_numpy()
    hist = pd.DataFrame(
        {
            "epsilon_stop": eps[k],
            "charge": eps[k] ** 2 / 2.0 if mechanism == "brownian" else eps[k],
            "runs": counts.to_numpy(),
            "share": counts.to_numpy() / N_RUNS,
        }
    )
    acc = runs["accepted"].to_numpy()
    good = acc & (np.abs(np.abs(runs["release"].to_numpy()) - abs(value)) < alpha * abs(value))
    median = float(runs["charge"].median())
    summary = StoppingSummary(
        median_charge=median,
        mean_charge=float(runs["charge"].mean()),
        worst_charge=float(worst),
        median_epsilon_stop=float(runs["epsilon_stop"].median()),
        accepted=float(acc.mean()),
        precision=float(good.sum() / acc.sum()) if acc.any() else 1.0,
        mean_loss=float(runs["loss"].mean()),
        dp_epsilon_median=float(fl.zcdp_epsilon(median, delta, variant=variant)) if mechanism == "brownian" else median,
        dp_epsilon_worst=float(fl.zcdp_epsilon(worst, delta, variant=variant))
        if mechanism == "brownian"
        else float(worst),
    )
    return Stopping(hist, summary)


@dataclass(frozen=True)
class InversionSummary:
    """Path 1 of the path panel: its stopping level ε_T, charge ρ_T = ε_T²/2 and realised loss ℒ at the stop."""

    epsilon_stop: float
    rho_stop: float
    loss_stop: float


class Inversion(NamedTuple):
    """The path panel on the precision clock, and path 1 at its stop."""

    paths: pd.DataFrame  #: path, s, W, loss
    summary: InversionSummary


@cached
def inversion(
    epsilon: float,
    delta: float,
    variant: str,
    levels: int,
    spacing: str,
    value: float,
    alpha: float,
    direction: int,
    seed: int,
) -> Inversion:
    """The Brownian paths of the path panel on the precision clock s = ε²: W(s) = s·(Y − y) (a standard BM)
    and the loss process ℒ(s) = s/2 + u·W(s) against the neighbour f(x') = y − u (``brownian_loss``, Thm 4).

    Summary: ε_T, ρ_T = ε_T²/2 and ℒ at the stop of path 1.
    """
    df, stops = paths(epsilon, delta, variant, levels, spacing, value, alpha, "brownian", seed)
    s = df["epsilon"].to_numpy() ** 2
    rel = df["release"].to_numpy()
    loss = nr.brownian_loss(rel, epsilon=df["epsilon"].to_numpy(), value=value, neighbour=value - direction)
    out = pd.DataFrame({"path": df["path"].to_numpy(), "s": s, "W": s * (rel - value), "loss": loss})
    first = stops.iloc[0]
    e_t = float(first["epsilon_stop"])
    loss_t = float(nr.brownian_loss(float(first["release"]), epsilon=e_t, value=value, neighbour=value - direction))
    return Inversion(out, InversionSummary(e_t, e_t**2 / 2.0, loss_t))
