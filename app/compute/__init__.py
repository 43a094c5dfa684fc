"""Cached wrappers around dpcore: scalar arguments in, small frames out (the cache keys on the scalars).

Each function evaluates dpcore on the grid a chart needs and returns a pandas DataFrame that is both the chart's
data and its CSV download. No figures here, and no formulas beyond evaluating dpcore functions on a grid.
This module holds the baselines (home, Gaussian & Laplace); each paper page has its own submodule
(``app.compute.brdp`` …) built the same way, with :data:`MAX_ENTRIES` bounding every cache.
"""

from __future__ import annotations

import gc
import sys
import threading
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

import dpcore
from app.compute._cache import MAX_ENTRIES, cached, cached_resource  # noqa: F401 — re-exported
from dpcore import accounting, baseline

MECHS = baseline.MECHANISMS
#: Past this ε, e^ε overflows double precision (ln of the largest float, ≈ 709.78); dpcore works in log space there,
#: dp_accounting does not.
EXP_OVERFLOW = float(np.log(sys.float_info.max))
#: process-wide: how many modules were loaded at the last freeze, and who freezes
_HEAP: dict[str, Any] = {"modules": 0, "lock": threading.Lock()}


def settle_heap() -> None:
    """Keep Streamlit's full garbage collection after every rerun cheap: freeze the long-lived heap once it is loaded.

    Streamlit calls ``gc.collect(2)`` at the end of each script run (option ``runner.postScriptGC``); over the
    ~160 000 objects of numpy, scipy, pandas, plotly and streamlit that was most of a rerun's CPU in the live server,
    under the GIL (bench/results-where-time-goes.md). After a run that imported new modules this collects once
    and then ``gc.freeze()``s what survived (modules, functions, classes: objects that live as long as the process),
    so later collections only scan the objects created since. Runs again only when ``sys.modules`` grows (a page
    or a scipy submodule imported for the first time), a handful of times per process.
    """
    if len(sys.modules) == _HEAP["modules"] or not _HEAP["lock"].acquire(blocking=False):
        return
    try:
        n = len(sys.modules)
        gc.collect()  # this run's garbage must not be frozen
        gc.freeze()
        _HEAP["modules"] = n
    finally:
        _HEAP["lock"].release()


@cached
def gaussian_reference_epsilon(sigma: float, sensitivity: float, compositions: int, delta: float) -> float | None:
    """ε after ``compositions`` Gaussian releases by dp_accounting's own privacy-loss distribution: an independent
    cross-check of :func:`composed_epsilons` (the baselines lesson shows both).

    Grid 1e-3 (connect-the-dots): within 2e-4 of the exact total wherever that total is below 709, and several times
    faster than a 1e-4 grid (bench/results-where-time-goes.md). Past :data:`EXP_OVERFLOW`, e^ε overflows double
    precision inside dp_accounting and its answer drifts (by 0.94 at ε = 779, where the exact value is confirmed at
    80 digits): ``None`` there, without running it.
    """
    exact = dpcore.gaussian_epsilon(delta, sigma=sigma, sensitivity=sensitivity, compositions=compositions)
    if float(exact) >= EXP_OVERFLOW:
        return None
    pld = accounting.pld_gaussian(sigma, sensitivity=sensitivity, discretization=1e-3).self_compose(compositions)
    return float(pld.get_epsilon_for_delta(delta))


@cached
def calibration(epsilon: float, delta: float, sensitivity: float, method: str) -> dpcore.Calibration:
    """σ (analytic or classic) and the tight Laplace b for (ε, δ, Δ)."""
    return dpcore.calibrate(epsilon, delta, sensitivity=sensitivity, method=method)


@cached
def densities(epsilon: float, delta: float, sensitivity: float, method: str) -> pd.DataFrame:
    """Noise densities of both calibrated mechanisms on a common grid (x, gaussian, laplace)."""
    cal = calibration(epsilon, delta, sensitivity, method)
    half = max(4.0 * cal.sigma, 7.0 * cal.laplace_scale)
    x = np.linspace(-half, half, 601)
    frame: dict[str, Any] = {"x": x}
    for m in MECHS:
        frame[m] = baseline.noise_density(x, mechanism=m, scale=cal.scale(m))
    return pd.DataFrame(frame)


@cached
def accuracy_curve(theta: float, delta: float, sensitivity: float, method: str) -> pd.DataFrame:
    """P(|noise| ≤ θ) of both mechanisms calibrated at each ε of a log grid 0.01 … 20 (epsilon, gaussian, laplace)."""
    eps = np.geomspace(0.01, 20.0, 160)
    rows = {"epsilon": eps, "gaussian": np.empty_like(eps), "laplace": np.empty_like(eps)}
    for i, e in enumerate(eps):
        cal = dpcore.calibrate(float(e), delta, sensitivity=sensitivity, method=method)
        for m in MECHS:
            rows[m][i] = baseline.within_probability(theta, mechanism=m, scale=cal.scale(m))
    return pd.DataFrame(rows)


@cached
def profiles(epsilon: float, delta: float, sensitivity: float, method: str) -> pd.DataFrame:
    """Privacy profiles δ(ε′) of both calibrated mechanisms over ε′ ∈ [−1, max(3ε, ε + 4)]."""
    cal = calibration(epsilon, delta, sensitivity, method)
    grid = np.linspace(-1.0, max(3.0 * epsilon, epsilon + 4.0), 400)
    return pd.DataFrame(
        {
            "epsilon": grid,
            "gaussian": dpcore.gaussian_delta(grid, sigma=cal.sigma, sensitivity=sensitivity),
            "laplace": dpcore.laplace_delta(grid, scale=cal.laplace_scale, sensitivity=sensitivity),
        }
    )


def composition_range(compositions: int) -> int:
    """The composition chart spans T = 1 … max(100, 10·T), capped at 1000."""
    return int(min(1000, max(100, 10 * compositions)))


@cached(show_spinner="Composing privacy-loss distributions …")
def composition(epsilon: float, delta: float, sensitivity: float, method: str, t_max: int) -> pd.DataFrame:
    """ε(T) at the slider's δ after T releases, T = 1 … t_max, in long form (T, mechanism, epsilon).

    Gaussian: exact closed form at every T. Laplace: the privacy-loss distribution at 14 log-spaced T, on
    ``dpcore.laplace_epsilon``'s own grid (within 1e-4 relative of a much finer one, never below it). Basic
    composition T·ε (which holds at δ·T) is the naive reference line.
    """
    cal = calibration(epsilon, delta, sensitivity, method)
    t_all = np.arange(1, t_max + 1)
    gauss = dpcore.gaussian_epsilon(delta, sigma=cal.sigma, sensitivity=sensitivity, compositions=t_all)
    t_lap = np.unique(np.round(np.geomspace(1, t_max, 14)).astype(int))
    lap = [
        dpcore.laplace_epsilon(delta, scale=cal.laplace_scale, sensitivity=sensitivity, compositions=int(t))
        for t in t_lap
    ]
    return pd.concat(
        [
            pd.DataFrame({"T": t_all, "mechanism": "gaussian", "epsilon": np.atleast_1d(gauss)}),
            pd.DataFrame({"T": t_lap, "mechanism": "laplace", "epsilon": lap}),
            pd.DataFrame({"T": t_all, "mechanism": "reference", "epsilon": epsilon * t_all}),
        ],
        ignore_index=True,
    )


@dataclass(frozen=True)
class ComposedEpsilons:
    """Total ε of T releases of each calibrated mechanism, at the page's δ."""

    gaussian: float
    laplace: float

    def of(self, mechanism: str) -> float:
        """The total of ``mechanism`` ("gaussian" or "laplace")."""
        return {"gaussian": self.gaussian, "laplace": self.laplace}[mechanism]


@cached(show_spinner="Composing privacy-loss distributions …")
def composed_epsilons(
    epsilon: float, delta: float, sensitivity: float, method: str, compositions: int
) -> ComposedEpsilons:
    """Total ε at δ after exactly T releases: Gaussian closed form, Laplace privacy-loss distribution on
    ``dpcore.laplace_epsilon``'s grid (pessimistic: an upper bound within 1e-4 relative of a much finer grid)."""
    cal = calibration(epsilon, delta, sensitivity, method)
    return ComposedEpsilons(
        gaussian=float(
            dpcore.gaussian_epsilon(delta, sigma=cal.sigma, sensitivity=sensitivity, compositions=compositions)
        ),
        laplace=float(
            dpcore.laplace_epsilon(delta, scale=cal.laplace_scale, sensitivity=sensitivity, compositions=compositions)
        ),
    )


class SampledOutputs(NamedTuple):
    """Seeded noise draws of each mechanism: their histogram, and their accuracy against the exact one."""

    histogram: pd.DataFrame  # mechanism, bin_left, bin_right, count, empirical_density, density
    summary: pd.DataFrame  # mechanism, samples, empirical_within_theta, standard_error, exact_within_theta


@cached
def sampled_outputs(
    epsilon: float, delta: float, sensitivity: float, method: str, theta: float, seed: int, n: int = 100_000
) -> SampledOutputs:
    """n seeded noise draws per mechanism, binned, with the empirical accuracy beside the exact one."""
    cal = calibration(epsilon, delta, sensitivity, method)
    half = max(4.0 * cal.sigma, 7.0 * cal.laplace_scale)
    edges = np.linspace(-half, half, 81)
    centers = (edges[:-1] + edges[1:]) / 2
    rng = np.random.default_rng(seed)
    hist, summary = [], []
    for m in MECHS:
        draws = baseline.sample_noise(n, mechanism=m, scale=cal.scale(m), rng=rng)
        counts, _ = np.histogram(draws, bins=edges)
        hist.append(
            pd.DataFrame(
                {
                    "mechanism": m,
                    "bin_left": edges[:-1],
                    "bin_right": edges[1:],
                    "count": counts,
                    "empirical_density": counts / (n * np.diff(edges)),
                    "density": baseline.noise_density(centers, mechanism=m, scale=cal.scale(m)),
                }
            )
        )
        inside = float(np.mean(np.abs(draws) <= theta))
        summary.append(
            {
                "mechanism": m,
                "samples": n,
                "empirical_within_theta": inside,
                "standard_error": float(np.sqrt(inside * (1 - inside) / n)),
                "exact_within_theta": baseline.within_probability(theta, mechanism=m, scale=cal.scale(m)),
            }
        )
    return SampledOutputs(pd.concat(hist, ignore_index=True), pd.DataFrame(summary))


class BeliefTable(NamedTuple):
    """How far one ε-DP answer can move a belief: the largest posterior for a few priors, and the odds factor."""

    table: pd.DataFrame  # prior, largest_posterior
    odds_factor: float  # e^ε


@cached
def belief_table(epsilon: float, priors: tuple[float, ...] = (0.01, 0.1, 0.5, 0.9)) -> BeliefTable:
    """Largest posterior after one ε-DP answer for a few priors, and the odds factor e^ε (home page)."""
    post = np.atleast_1d(dpcore.posterior_bound(np.array(priors), epsilon))
    table = pd.DataFrame({"prior": priors, "largest_posterior": post})
    return BeliefTable(table, float(np.exp(epsilon)))


@cached
def belief_curve(epsilon: float) -> pd.DataFrame:
    """The band an observer's belief can move in after one ε-DP answer, for every prior (prior, highest, lowest).

    ε-DP bounds every likelihood ratio by e^ε, so the posterior odds stay within a factor e^ε of the prior odds
    (``dpcore.posterior_bound``); the lowest posterior is the highest one of the opposite event.
    """
    prior = np.linspace(0.0, 1.0, 201)
    high = np.atleast_1d(dpcore.posterior_bound(prior, epsilon))
    low = 1.0 - np.atleast_1d(dpcore.posterior_bound(1.0 - prior, epsilon))
    return pd.DataFrame({"prior": prior, "highest": high, "lowest": low})
