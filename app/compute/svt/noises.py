"""Panels 1–3 of the SVT page's explore view (Liu, Wang, Liu, Li and Chen 2024): the four noise families at their
calibrated scales, the split of ε between threshold and queries (Eq. 6) and each noise's privacy loss (Eqs. 4–5)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from app.compute._cache import cached
from app.compute.svt.method import _GAUSS_DELTA, NOISES, calibration
from dpcore import svt

__all__ = [
    "LossLimits",
    "LossProfiles",
    "NoiseZoo",
    "SplitTables",
    "budget_split",
    "loss_profiles",
    "manual_split",
    "noise_zoo",
    "variance_curves",
]


def _pdf(noise: str, scale: float, x: np.ndarray) -> np.ndarray:
    dist = {
        "exponential": stats.expon,
        "laplace": stats.laplace,
        "gumbel": stats.gumbel_r,
        "gaussian": stats.norm,
    }
    return dist[noise].pdf(x, scale=scale)


class NoiseZoo(NamedTuple):
    """Panel 1's densities and the calibration of each method."""

    densities: pd.DataFrame  # long: x, curve, density
    table: pd.DataFrame  # per method: w*, ε₁, ε₂, scales, variances and V


@cached
def noise_zoo(epsilon: float, c: int, noise: str, monotonic: bool) -> NoiseZoo:
    """Panel 1: densities of the threshold noise and of each query noise at its own calibrated scale."""
    splits = {n: calibration(epsilon, c, n, monotonic) for n in NOISES}
    th = splits["exponential"].query_scale
    x = np.linspace(-3 * th, 6 * th, 451)
    sel = splits[noise]
    frames = [
        pd.DataFrame(
            {
                "x": x,
                "curve": f"threshold ρ ~ {sel.threshold_noise}",
                "density": _pdf(sel.threshold_noise, sel.threshold_scale, x),
            }
        )
    ]
    frames += [pd.DataFrame({"x": x, "curve": n, "density": _pdf(n, splits[n].query_scale, x)}) for n in NOISES]
    var = {"exponential": 1.0, "laplace": 2.0, "gumbel": math.pi**2 / 6, "gaussian": 1.0}
    table = pd.DataFrame(
        [
            {
                "query noise": n,
                "w*": s.w,
                "ε₁": s.epsilon1,
                "ε₂": s.epsilon2,
                "threshold scale": s.threshold_scale,
                "query scale": s.query_scale,
                "Var ρ": s.variance - var[n] * s.query_scale**2,
                "Var v": var[n] * s.query_scale**2,
                "V = Var ρ + Var v": s.variance,
            }
            for n, s in splits.items()
        ]
    )
    return NoiseZoo(pd.concat(frames, ignore_index=True), table)


class SplitTables(NamedTuple):
    """Panel 2: the variance of the comparison over the split, and each family's optimum."""

    curves: pd.DataFrame  # w, noise, V_eps2 (:func:`variance_curves`)
    optima: pd.DataFrame  # per noise: w_star, V_eps2_star, epsilon1, epsilon2


@cached
def budget_split(epsilon: float, c: int, monotonic: bool) -> SplitTables:
    """Panel 2: V(w)·ε² over w (Eq. 6) for the four families, and ε₁, ε₂ at each w* for the slider's ε."""
    opt = []
    for n in NOISES:
        s = calibration(epsilon, c, n, monotonic)
        opt.append(
            {
                "noise": n,
                "w_star": s.w,
                "V_eps2_star": s.variance_optimal * epsilon**2,
                "epsilon1": s.epsilon1,
                "epsilon2": s.epsilon2,
            }
        )
    return SplitTables(variance_curves(c, monotonic), pd.DataFrame(opt))


@cached
def variance_curves(c: int, monotonic: bool) -> pd.DataFrame:
    """V(w)·ε² over w (Eq. 6) for the four families: evaluated at ε = 1, it does not depend on ε (V ∝ 1/ε²),
    so it is cached without ε and a new ε only recomputes the optima."""
    w = np.geomspace(0.05, max(200.0, 10 * c), 160)
    rows = []
    for n in NOISES:
        v = [
            svt.split_budget(1.0, c=c, noise=n, monotonic=monotonic, w=float(x), delta=_GAUSS_DELTA).variance for x in w
        ]
        rows.append(pd.DataFrame({"w": w, "noise": n, "V_eps2": v}))
    return pd.concat(rows, ignore_index=True)


@cached
def manual_split(epsilon: float, c: int, monotonic: bool, w: float) -> pd.DataFrame:
    """Panel 2 (Eq. 6): ε₁, ε₂, scales and V at a hand-picked split w = ε₂/ε₁ for every
    family, against the optimum V* (the ratio is what the manual split costs in comparison variance)."""
    rows = []
    for n in NOISES:
        s = calibration(epsilon, c, n, monotonic, w)
        rows.append(
            {
                "query noise": n,
                "w": w,
                "ε₁": s.epsilon1,
                "ε₂": s.epsilon2,
                "threshold scale": s.threshold_scale,
                "query scale": s.query_scale,
                "V(w)": s.variance,
                "V*": s.variance_optimal,
                "V(w)/V*": s.variance / s.variance_optimal,
            }
        )
    return pd.DataFrame(rows)


def _long_frame(xname: str, x: np.ndarray, losses: dict[str, np.ndarray]) -> pd.DataFrame:
    """Long form (x, noise, loss) of one curve per noise on a shared grid, built column-wise (a concat of
    per-noise frames costs more)."""
    return pd.DataFrame(
        {
            xname: np.tile(x, len(losses)),
            "noise": np.repeat(np.array(list(losses), dtype=object), len(x)),
            "loss": np.concatenate([np.asarray(v, dtype=float) for v in losses.values()]),
        }
    )


@dataclass(frozen=True)
class LossLimits:
    """The allowances the loss profiles are drawn against: ε₂/c per positive answer, ε₁ for the threshold."""

    per_positive: float
    epsilon1: float


class LossProfiles(NamedTuple):
    """Panel 3: the privacy loss of each query noise and of each threshold noise, and the allowances."""

    query: pd.DataFrame  # x, noise, loss
    threshold: pd.DataFrame  # u, noise, loss
    limits: LossLimits


@cached
def loss_profiles(epsilon: float, c: int, monotonic: bool) -> LossProfiles:
    """Panel 3 (Eqs. 4–5): per-positive loss ln S₂(x − 2Δ) − ln S₂(x) of each query noise at the exponential
    method's scale f·cΔ/ε₂, and threshold loss ln f₁(u − Δ) − ln f₁(u) at scale Δ/ε₁."""
    sp = calibration(epsilon, c, "exponential", monotonic)
    shift = 1.0 if monotonic else 2.0
    th = sp.query_scale
    x = np.linspace(-4 * th, 8 * th, 361)
    q = _long_frame("x", x, {n: svt.query_loss_profile(x, noise=n, scale=th, shift=shift) for n in NOISES})
    b = sp.threshold_scale
    u = np.linspace(-6 * b, 6 * b, 361)
    t = _long_frame(
        "u", u, {n: svt.threshold_loss_profile(u, noise=n, scale=b) for n in ("laplace", "gaussian", "exponential")}
    )
    t["loss"] = t["loss"].where(np.isfinite(t["loss"]))
    return LossProfiles(q, t, LossLimits(per_positive=sp.epsilon2 / c, epsilon1=sp.epsilon1))
