"""BR-DP with subsampling (Jiang et al. 2024, Sec. 7, Alg. 4, Figs. 6–8): the best sampling rate for a query and a
data-set size, and seeded experiments on synthetic records."""

from __future__ import annotations

import math
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.brdp.plans import Accountant, Mode, Query
from dpcore import brdp

SIGMA_X, MU_X, P_C = 10.0, 5.0, 0.1  # synthetic records x_i ~ N(μ, σ_x²); counting predicate share p_c (Fig. 6)


class SampleKey(NamedTuple):
    """A subsampled release's settings (Sec. 7): the target (ε, δ), the query's sensitivity Δ_f, the tolerance θ, the
    query and the data-set size |X|, and the synthetic records' spread σ_x (sum, average) or counted share p_c
    (count)."""

    epsilon: float
    delta: float
    sensitivity: float
    theta: float
    query: Query
    n_records: int
    sigma_x: float = SIGMA_X
    p_c: float = P_C


def _rates(n_records: int, delta: float) -> np.ndarray:
    low = max(1.0 / n_records, 2.0 * delta, 1e-3)
    return np.geomspace(low, 1.0, 22) if low < 1 else np.array([1.0])


def subsampling_curve(key: SampleKey) -> pd.DataFrame:
    """Sampling vs perturbation noise against the rate p (Sec. 7), Gaussian kernel.

    For each p: inner budget from Thm. 4 inverted, σ_E from Prop. 6, kernel (σ_y, q) from Alg. 2 at the inner
    budget, in both modes: ``paper`` (sensitivity Δ_f, eq. 13 corrected) and ``corrected`` (Δ_f/p, true
    acceptance). Long form: mode, rate, sigma_e, sigma_y, total, acceptance.
    """
    epsilon, delta, sensitivity, theta, query, n_records, sigma_x, p_c = key
    rows = []
    for p in _rates(n_records, delta):
        p = float(p)
        ei, di = (epsilon, delta) if p >= 1 else brdp.deamplify(epsilon, delta, rate=p)
        se = brdp.sampling_error_std(query, rate=p, n_records=n_records, sigma_x=sigma_x, p_c=p_c) if p < 1 else 0.0
        for mode, dk in (("paper", sensitivity), ("corrected", sensitivity / p)):
            pl = brdp.optimize(epsilon=ei, delta=di, sensitivity=dk, theta=theta, kernel="gaussian", accountant="paper")
            variant: Literal["corrected", "true"] = "corrected" if mode == "paper" else "true"
            acc = brdp.subsampled_acceptance(scale=pl.scale, theta=theta, q=pl.q, sigma_e=se, variant=variant)
            rows.append(
                {
                    "mode": mode,
                    "rate": p,
                    "epsilon_in": ei,
                    "sigma_e": se,
                    "sigma_y": pl.scale,
                    "q": pl.q,
                    "total": math.hypot(se, pl.scale),
                    "acceptance": acc,
                }
            )
    return pd.DataFrame(rows)


def sampling_plan(key: SampleKey, mode: Mode) -> brdp.SubsamplingPlan:
    """Alg. 4's optimal sampling rate in ``paper`` or ``corrected`` mode."""
    return brdp.optimal_sampling_rate(**key._asdict(), mode=mode)


@cached
def at_rate(key: SampleKey, rate: float) -> pd.DataFrame:
    """The subsampled BR-DP at the sidebar's rate p, in both modes: inner ε, σ_E, σ_y, q, acceptance as the
    paper computes it (eq. 13 corrected) and the true acceptance Pr(|E + N_brdp| ≤ θ)."""
    epsilon, delta, sensitivity, theta, query, n_records, sigma_x, p_c = key
    ei, di = (epsilon, delta) if rate >= 1 else brdp.deamplify(epsilon, delta, rate=rate)
    se = brdp.sampling_error_std(query, rate=rate, n_records=n_records, sigma_x=sigma_x, p_c=p_c) if rate < 1 else 0.0
    rows = []
    for mode, dk in (("paper: sensitivity Δ", sensitivity), ("corrected: sensitivity Δ / p", sensitivity / rate)):
        pl = brdp.optimize(epsilon=ei, delta=di, sensitivity=dk, theta=theta, kernel="gaussian", accountant="paper")
        rows.append(
            {
                "mode": mode,
                "inner ε": ei,
                "inner δ": di,
                "σ_E": se,
                "σ_y": pl.scale,
                "q": pl.q,
                "acceptance, eq. (13) corrected": brdp.subsampled_acceptance(
                    scale=pl.scale, theta=theta, q=pl.q, sigma_e=se, variant="corrected"
                ),
                "true acceptance": brdp.subsampled_acceptance(scale=pl.scale, theta=theta, q=pl.q, sigma_e=se),
            }
        )
    return pd.DataFrame(rows)


SIZE_GRID = (100, 1000, 10_000, 100_000)  # |X| of the p*-against-|X| chart (Fig. 6 at the sidebar's settings)


def rate_vs_size(key: SampleKey) -> pd.DataFrame:
    """Alg. 4's p* and acceptance against |X| at the sidebar's settings, paper mode and corrected mode
    (Fig. 6); |X| = :data:`SIZE_GRID` and the sidebar's |X|."""
    rows = []
    for n in sorted({*SIZE_GRID, int(key.n_records)}):
        for mode in ("paper", "corrected"):
            sp = sampling_plan(key._replace(n_records=n), mode)
            rows.append(
                {
                    "query": key.query,
                    "mode": mode,
                    "n_records": n,
                    "rate": sp.rate,
                    "acceptance": sp.acceptance,
                    "true_acceptance": sp.true_acceptance,
                }
            )
    return pd.DataFrame(rows)


class Subsampling(NamedTuple):
    """Panel 9: the sampling rate's effect at the sidebar's |X|, and the best rate against |X|."""

    by_rate: pd.DataFrame  # :func:`subsampling_curve`
    by_size: pd.DataFrame  # :func:`rate_vs_size`


def subsampling(key: SampleKey) -> Subsampling:
    """Panel 9 as one background job (:mod:`app.background`): :func:`subsampling_curve` and :func:`rate_vs_size`
    (whose rows at the sidebar's |X| are Alg. 4's optima in both modes), for records of spread σ_x (sum, average)
    or a counted share p_c (count)."""
    return Subsampling(subsampling_curve(key), rate_vs_size(key))


def synthetic_records(query: Query, n_records: int, seed: int) -> np.ndarray:
    """Synthetic data: x_i ~ N(μ, σ_x²); for counting, the indicators of x_i > q_{0.9}
    (so Pr(x_i ∈ C) ≈ p_c = 0.1)."""
    x = np.random.default_rng(seed).normal(MU_X, SIGMA_X, n_records)
    return (x > np.quantile(x, 1 - P_C)).astype(float) if query == "count" else x


def experiment(
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    query: Query,
    n_records: int,
    accountant: Accountant,
    seed: int,
    n_releases: int = 1000,
) -> pd.DataFrame:
    """Experiment sandbox (Figs. 7/8): box-plot statistics of the centred releases of the six
    mechanisms (IQR box, whiskers 2.5 %–97.5 %) and the acceptance share within ±θ."""
    rel = brdp.experiment_releases(
        synthetic_records(query, n_records, seed),
        query=query,
        epsilon=epsilon,
        delta=delta,
        sensitivity=sensitivity,
        theta=theta,
        n_releases=n_releases,
        accountant=accountant,
        rng=seed,
    )
    g = rel.groupby("mechanism", sort=False)["error"]
    stats = pd.DataFrame(
        {
            "q025": g.quantile(0.025),
            "q25": g.quantile(0.25),
            "median": g.median(),
            "q75": g.quantile(0.75),
            "q975": g.quantile(0.975),
            "mean": g.mean(),
            "acceptance": rel.groupby("mechanism", sort=False)["in_bound"].mean(),
        }
    ).reset_index()
    stats.insert(1, "releases", n_releases)
    return stats


SANDBOX_EPS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)  # ε grid of the acceptance-against-ε chart (sandbox)
SANDBOX_RELEASES = 300  # releases per mechanism and ε behind that chart


def experiment_acceptance(
    delta: float, sensitivity: float, theta: float, query: Query, n_records: int, accountant: Accountant, seed: int
) -> pd.DataFrame:
    """Acceptance share within ±θ of each sandbox mechanism against ε (Figs. 7/8, right column):
    :data:`SANDBOX_RELEASES` seeded releases per mechanism at each ε of :data:`SANDBOX_EPS`.
    Long form: epsilon, mechanism, acceptance."""
    x = synthetic_records(query, n_records, seed)
    frames = []
    for e in SANDBOX_EPS:
        rel = brdp.experiment_releases(
            x,
            query=query,
            epsilon=e,
            delta=delta,
            sensitivity=sensitivity,
            theta=theta,
            n_releases=SANDBOX_RELEASES,
            accountant=accountant,
            rng=seed,
        )
        acc = rel.groupby("mechanism", sort=False)["in_bound"].mean().reset_index(name="acceptance")
        frames.append(acc.assign(epsilon=e))
    return pd.concat(frames, ignore_index=True)[["epsilon", "mechanism", "acceptance"]]
