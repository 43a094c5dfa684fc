"""The coupled noise processes behind a noise reduction (Rogers et al. 2023): their correlation across levels,
the backward martingale of Lemma 6.1 and the piecewise-constant Laplace process of Appendix A."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.noise_reduction.grid import grid
from dpcore import noise_reduction as nr

# ---- correlation of the coupled noise across levels ----------------------------------------------

N_CORR = 2000  # paths behind the empirical correlation matrix
CORR_LEVELS = 25  # levels shown in the heatmap (evenly picked from the page grid)


@dataclass(frozen=True)
class CorrelationSummary:
    """Largest |empirical − theory| correlation and the mean correlation of neighbouring levels (theory)."""

    max_gap: float
    adjacent: float


class Correlation(NamedTuple):
    """The levels of the heatmap, the empirical and theoretical correlation matrices, and their summary."""

    levels: np.ndarray
    empirical: np.ndarray
    theory: np.ndarray
    summary: CorrelationSummary


@cached
def correlation(
    epsilon: float, delta: float, variant: str, levels: int, spacing: str, mechanism: str, seed: int
) -> Correlation:
    """Empirical Corr(Z_i, Z_j) of N_CORR coupled paths against min(ε_i, ε_j)/max(ε_i, ε_j) (both processes).

    Returns (levels ε, empirical matrix, theory matrix, summary: largest |empirical − theory|, adjacent-level
    correlation in theory).
    """
    eps = grid(epsilon, delta, variant, levels, spacing)
    eps = eps[np.unique(np.round(np.linspace(0, eps.size - 1, min(CORR_LEVELS, eps.size))).astype(int))]
    sampler = nr.brownian_path if mechanism == "brownian" else nr.laplace_path
    z = sampler(eps, n_paths=N_CORR, rng=seed)
    emp = np.corrcoef(z, rowvar=False) if eps.size > 1 else np.ones((1, 1))
    theory = np.minimum.outer(eps, eps) / np.maximum.outer(eps, eps)
    adj = float(np.mean(eps[:-1] / eps[1:])) if eps.size > 1 else 1.0
    return Correlation(eps, emp, theory, CorrelationSummary(float(np.abs(emp - theory).max()), adj))


def correlation_frame(eps: np.ndarray, emp: np.ndarray, theory: np.ndarray) -> pd.DataFrame:
    """The heatmap's data in long form (epsilon_i, epsilon_j, empirical, theory) for the CSV download."""
    k = eps.size
    return pd.DataFrame(
        {
            "epsilon_i": np.repeat(eps, k),
            "epsilon_j": np.tile(eps, k),
            "empirical": emp.ravel(),
            "theory": theory.ravel(),
        }
    )


# ---- the backward martingale ----------------------------------------------------------------------

N_MART = 4000  # paths behind the martingale means
MART_SHOWN = 15  # paths drawn


@dataclass(frozen=True)
class MartingaleSummary:
    """Mean of M at the stopping time and its standard error, share stopped early, median stopping time t_T."""

    stopped_mean: float
    stopped_se: float
    stopped_share: float
    median_t_stop: float


class Martingale(NamedTuple):
    """The martingale's drawn paths, its mean ± 2 se at every level, and its mean at the stop."""

    paths: pd.DataFrame  #: path, t, M
    mean: pd.DataFrame  #: t, mean, low, high
    summary: MartingaleSummary


@cached
def martingale(
    epsilon: float,
    delta: float,
    variant: str,
    levels: int,
    spacing: str,
    value: float,
    alpha: float,
    lam: float,
    seed: int,
) -> Martingale:
    """M(t) = exp(λB(t)/t − λ²/(2t)) (Lemma 6.1, ``backward_martingale``) on N_MART Brownian paths of the
    page grid, its mean ± 2 se at every level, and its mean at the adaptive stopping time of the relative-error rule.

    Returns (paths: path, t, M for MART_SHOWN paths; mean: t, mean, low, high; summary: mean of M at the stop ± se,
    share of runs stopped before the last level).
    """
    eps = grid(epsilon, delta, variant, levels, spacing)
    z = nr.brownian_path(eps, n_paths=N_MART, rng=np.random.default_rng([seed, 4]))
    m = nr.backward_martingale(z, eps, lam=lam)
    t = 1.0 / eps**2
    se = m.std(axis=0, ddof=1) / math.sqrt(N_MART)
    mean = pd.DataFrame(
        {"t": t, "mean": m.mean(axis=0), "low": m.mean(axis=0) - 2 * se, "high": m.mean(axis=0) + 2 * se}
    )
    shown = pd.DataFrame(
        {
            "path": np.repeat(np.arange(1, MART_SHOWN + 1), eps.size),
            "t": np.tile(t, MART_SHOWN),
            "M": m[:MART_SHOWN].ravel(),
        }
    )
    stop = np.asarray(nr.relative_error_stop(value + z, eps[None, :], alpha=alpha))
    hit = stop.any(axis=1)
    idx = np.where(hit, stop.argmax(axis=1), eps.size - 1)
    at_stop = m[np.arange(N_MART), idx]
    return Martingale(
        shown,
        mean,
        MartingaleSummary(
            float(at_stop.mean()),
            float(at_stop.std(ddof=1) / math.sqrt(N_MART)),
            float(hit.mean()),
            float(np.median(t[idx])),
        ),
    )


# ---- the Laplace noise-reduction process ----------------------------------------------------------

N_LAPLACE = 2000  # paths behind the empirical P(flat) and the loss check
LAPLACE_SHOWN = 3  # paths drawn


@dataclass(frozen=True)
class LaplaceSummary:
    """Mean empirical and theoretical P(flat), largest gap, path 1's stop ε_T and loss, largest |ℒ|/ε (Lemma A.1)."""

    flat_empirical: float
    flat_theory: float
    flat_gap: float
    epsilon_stop: float
    loss_stop: float
    max_ratio: float


class LaplaceProcess(NamedTuple):
    """The Laplace process's drawn paths, the flat share between neighbouring levels, and the summary."""

    paths: pd.DataFrame  #: path, b, X, flat
    pairs: pd.DataFrame  #: b_fine, b_coarse, empirical, theory
    summary: LaplaceSummary


@cached
def laplace_process(
    epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float, alpha: float, seed: int
) -> LaplaceProcess:
    """The piecewise-constant Laplace process X(b), b = 1/ε, on the page grid (``laplace_path``, Appendix A).

    Returns (paths: path, b, X, flat — whether X(b) equals the value at the next finer level, for LAPLACE_SHOWN
    paths; pairs: b_fine, b_coarse, empirical share of N_LAPLACE paths flat between the two levels, theory
    (b_fine/b_coarse)²; summary: mean empirical and theory P(flat), largest gap, ε_T and the ex-post loss
    (``laplace_loss``, neighbour y − 1) of path 1 at the relative-error stop, and the largest |ℒ|/ε over all
    paths and levels, which Lemma A.1 keeps ≤ 1).
    """
    eps = grid(epsilon, delta, variant, levels, spacing)
    x = nr.laplace_path(eps, n_paths=N_LAPLACE, rng=np.random.default_rng([seed, 10]))
    b = 1.0 / eps
    flat = np.zeros(x.shape, dtype=bool)
    flat[:, :-1] = x[:, :-1] == x[:, 1:]
    shown = pd.DataFrame(
        {
            "path": np.repeat(np.arange(1, LAPLACE_SHOWN + 1), eps.size),
            "b": np.tile(b, LAPLACE_SHOWN),
            "X": x[:LAPLACE_SHOWN].ravel(),
            "flat": flat[:LAPLACE_SHOWN].ravel(),
        }
    )
    pairs = pd.DataFrame(
        {"b_fine": b[1:], "b_coarse": b[:-1], "empirical": flat[:, :-1].mean(axis=0), "theory": (b[1:] / b[:-1]) ** 2}
    )
    loss = np.asarray(nr.laplace_loss(value + x, epsilon=eps[None, :], value=value, neighbour=value - 1.0))
    stop = np.asarray(nr.relative_error_stop(value + x[0], eps, alpha=alpha))
    k = int(np.argmax(stop)) if stop.any() else eps.size - 1
    gap = float(np.abs(pairs["empirical"] - pairs["theory"]).max()) if eps.size > 1 else 0.0
    return LaplaceProcess(
        shown,
        pairs,
        LaplaceSummary(
            flat_empirical=float(pairs["empirical"].mean()) if eps.size > 1 else 1.0,
            flat_theory=float(pairs["theory"].mean()) if eps.size > 1 else 1.0,
            flat_gap=gap,
            epsilon_stop=float(eps[k]),
            loss_stop=float(loss[0, k]),
            max_ratio=float(np.max(np.abs(loss) / eps[None, :])),
        ),
    )
