"""The best laws of every family (Mohammady et al. 2020, Algorithm 1): usefulness curves over ε and γ/Δq, the
region where a family beats Laplace, the Gamma landscape and the two-point explorer (Thm 4.4)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.r2dp.law import GammaPoint, Optimum, optimum, staircase
from dpcore import r2dp

#: Families drawn in the usefulness curves , in legend order (Algorithm 1's Gamma + truncated normal is the slowest
#: optimum, bench/results-where-time-goes.md).
CURVE_FAMILIES = ("two_point", "gamma", "uniform", "truncnorm", "combo")


CURVE_EPSILONS = (0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 14.0, 20.0)
CURVE_GS = (0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)


class CurvePoint(NamedTuple):
    """A family optimum on a usefulness curve: its U(γ) and its ratio to Laplace."""

    usefulness: float
    ratio: float


@cached(show_spinner="Optimising every family over ε (Gamma + TN takes a few s) …")
def usefulness_vs_epsilon(g: float) -> pd.DataFrame:
    """U of Laplace, each optimised family (Algorithm 1's Gamma + truncated normal included), the staircase and the cap
    over ε.

    Δq = 1 and γ = g = γ/Δq (scale invariance). Long form: epsilon, family, usefulness, ratio (to Laplace). The
    optima go through :func:`optimum`, so they are shared with the γ curve and the family table.
    """
    opt = pd.DataFrame(
        [(e, fam, *_curve_point(e, g, fam)) for e in CURVE_EPSILONS for fam in CURVE_FAMILIES],
        columns=["epsilon", "family", "usefulness", "ratio"],
    )
    eps = np.geomspace(0.1, 20.0, 120)
    lap = r2dp.laplace_usefulness(eps, gamma=g)
    fine = pd.concat(
        [
            pd.DataFrame({"epsilon": eps, "family": "laplace", "usefulness": lap, "ratio": 1.0}),
            pd.DataFrame(
                {"epsilon": eps, "family": "staircase", "usefulness": r2dp.staircase_usefulness(eps, gamma=g)}
            ),
            pd.DataFrame({"epsilon": eps, "family": "cap", "usefulness": r2dp.universal_cap(eps, gamma=g)}),
        ],
        ignore_index=True,
    )
    fine["ratio"] = fine["usefulness"] / np.tile(lap, 3)
    return pd.concat([fine, opt], ignore_index=True)


def _u_ratio(res: Optimum) -> CurvePoint:
    return CurvePoint(res.usefulness, res.ratio)


#: γ/Δq points of the Gamma + TN curve against γ (each is one of Algorithm 1's slowest optima, so fewer points; the
#: whole
#: multiples of Δq are free, see :func:`_curve_point`; 1.5 is left out — for γ ≥ Δq no R²DP law was found to beat
#: Laplace).
COMBO_CURVE_GS = (0.01, 0.05, 0.1, 0.3, 0.75, 1.0, 2.0, 3.0)


def _curve_point(epsilon: float, g: float, family: str) -> CurvePoint:
    """(U, ratio to Laplace) of the family optimum at (ε, γ/Δq = g, Δq = 1), as :func:`optimum` reports it.

    Where the optimal staircase is no better than Laplace (g a whole number: then Laplace is optimal
    among all ε-DP additive noises) every family optimum is Laplace itself (ties count as Laplace in
    :func:`dpcore.r2dp.optimize`), so its U is returned without running Algorithm 1.
    """
    lap = float(r2dp.usefulness(r2dp.Dirac(epsilon), gamma=g))
    if staircase.__wrapped__(epsilon, g, 1.0) <= lap:
        return CurvePoint(lap, 1.0)
    return _u_ratio(optimum.__wrapped__(epsilon, g, 1.0, family))


def usefulness_vs_g_frame(epsilon: float) -> pd.DataFrame:
    """U against g = γ/Δq ∈ (0, 3] at fixed ε (Δq = 1). Long form: g, family, usefulness, ratio.

    Algorithm 1 for every family at 11 γ (seconds on a new ε): the page runs it as a background job."""
    opt = pd.DataFrame(
        [
            (g, fam, *_curve_point(epsilon, g, fam))
            for g in CURVE_GS
            for fam in CURVE_FAMILIES
            if fam != "combo" or g in COMBO_CURVE_GS
        ],
        columns=["g", "family", "usefulness", "ratio"],
    )
    gs = np.linspace(0.005, 3.0, 300)
    lap = np.array([r2dp.laplace_usefulness(epsilon, gamma=x) for x in gs])
    stair = np.array([r2dp.staircase_usefulness(epsilon, gamma=x) for x in gs])
    fine = pd.concat(
        [
            pd.DataFrame({"g": gs, "family": "laplace", "usefulness": lap, "ratio": 1.0}),
            pd.DataFrame({"g": gs, "family": "staircase", "usefulness": stair, "ratio": stair / lap}),
        ],
        ignore_index=True,
    )
    return pd.concat([fine, opt], ignore_index=True)


MAP_EPSILONS = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 14.0, 20.0)
MAP_GS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5)
COMBO_MAP_EPSILONS = (0.5, 1.0, 2.0, 2.5, 3.0, 4.0, 6.0, 10.0, 20.0)
COMBO_MAP_GS = (0.01, 0.05, 0.1, 0.3, 0.75, 1.5)


@cached(show_spinner="Computing the region of improvement (one optimisation per cell; Gamma + TN ≈ 0.15 s a cell) …")
def improvement(family: str) -> pd.DataFrame:
    """Ratio U*_family / U_Lap over (ε, γ/Δq) (the paper's missing Fig. 10), with the local threshold 2/(1 − g).

    Gamma + TN (the slowest optimum, bench/results-where-time-goes.md) uses the coarser :data:`COMBO_MAP_EPSILONS` ×
    :data:`COMBO_MAP_GS` grid.
    """
    eps, gs = (COMBO_MAP_EPSILONS, COMBO_MAP_GS) if family == "combo" else (MAP_EPSILONS, MAP_GS)
    df = r2dp.improvement_map(np.array(eps), np.array(gs), family=family)
    df["threshold_epsilon"] = r2dp.laplace_threshold(df["g"].to_numpy())
    return df


class ImprovementMaps(NamedTuple):
    """A family's region of improvement and the two-point one, whose boundary its map draws."""

    family: pd.DataFrame
    two_point: pd.DataFrame


def improvement_maps(family: str) -> ImprovementMaps:
    """The family's improvement map and the two-point one (whose boundary the map draws)."""
    return ImprovementMaps(improvement(family), improvement("two_point"))


class Landscape(NamedTuple):
    """The Gamma law's (ν, s) landscape and the best Gamma law at the budget."""

    grid: pd.DataFrame  #: k, theta, usefulness, epsilon, necessary_condition
    optimum: GammaPoint


@cached
def landscape(epsilon: float, gamma: float, sensitivity: float) -> Landscape:
    """Gamma-family (k, θ) landscape: U(γ), exact ε, ln M(Δq) on a log mesh, and the constrained optimum."""
    k = np.geomspace(0.1, 100.0, 32)
    theta = np.geomspace(1e-3, 1e3, 32) / sensitivity
    grid = r2dp.gamma_landscape(k, theta, gamma=gamma, sensitivity=sensitivity)
    df = pd.DataFrame({name: np.ravel(v) for name, v in grid.items()})
    best = optimum(epsilon, gamma, sensitivity, "gamma").family_law
    return Landscape(df, GammaPoint(best.k, best.theta))


@cached
def two_point_map(epsilon: float, gamma: float, sensitivity: float) -> pd.DataFrame:
    """U of the ε-exact two-point law over (u0/u*, u1/u*): p set so the exact ε is met."""
    ustar = epsilon / sensitivity
    r0 = np.geomspace(0.01, 0.98, 24)
    r1 = np.geomspace(1.02, 100.0, 28)
    x1, x0 = (a.ravel() for a in np.meshgrid(r1, r0, indexing="ij"))  # rows: u1 outer, u0 inner
    p, useful = r2dp._two_point_grid(x0 * ustar, x1 * ustar, epsilon=epsilon, gamma=gamma, sensitivity=sensitivity)
    return pd.DataFrame({"u0_over_ustar": x0, "u1_over_ustar": x1, "p": p, "usefulness": useful})
