"""Panels 4–6 of the SVT page's explore view (Liu, Wang, Liu, Li and Chen 2024): the headline numbers, the
comparison Z = v − ρ and P[⊤], the success probability p(r) of Eq. 8 against the exact one, and r^op (Eq. 9)
against k, ε and α."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.svt.method import _acceptance, _correction_r, _eq8, _shared, calibration
from app.notation import number
from dpcore import svt

__all__ = [
    "Acceptance",
    "Comparison",
    "Summary",
    "acceptance_at",
    "comparison",
    "rop_vs_alpha",
    "rop_vs_epsilon",
    "rop_vs_k",
    "success_curve",
    "summary",
]


@dataclass(frozen=True)
class Summary:
    """Headline numbers of one calibrated method."""

    b: float  # threshold-noise scale
    scale: float  # query-noise scale 1/λ
    mean: float  # E[v]: the "mean" correction
    r: float  # the correction in use
    r_op: float  # r^op of Eq. 9
    p_eq8: float  # p(r) of Eq. 8 (fresh ρ per comparison)
    p_shared: float  # the exact p(r) with Algorithm 2's one shared ρ
    p_floor: float  # k^k/(k+1)^(k+1), Theorem 8
    p_at_threshold: float  # P[⊤] for a query exactly at the threshold
    epsilon1: float
    epsilon2: float
    w: float
    V: float


@cached
def summary(epsilon: float, c: int, k: int, alpha: float, noise: str, monotonic: bool, rule: str) -> Summary:
    """Headline numbers: scales, the correction in use, r^op (Eq. 9), p(r) by Eq. 8 and exactly (shared ρ)."""
    sp = calibration(epsilon, c, noise, monotonic)
    r = _correction_r(sp, k, alpha, rule)
    r_op = _correction_r(sp, k, alpha, "optimal")
    return Summary(
        b=sp.threshold_scale,
        scale=sp.query_scale,
        mean=sp.mean_correction,
        r=r,
        r_op=r_op,
        p_eq8=float(_eq8(sp, r, k, alpha)),
        p_shared=float(_shared(sp, r, k, alpha)),
        p_floor=math.exp(k * math.log(k / (k + 1)) - math.log(k + 1)),
        p_at_threshold=float(_acceptance(sp, 0.0, r)),
        epsilon1=sp.epsilon1,
        epsilon2=sp.epsilon2,
        w=sp.w,
        V=sp.variance,
    )


class Comparison(NamedTuple):
    """Panel 4: the density of Z = v − ρ and the chance of ⊤ near the threshold."""

    density: pd.DataFrame  # z, density
    acceptance: pd.DataFrame  # count − τ, then P[yes] for each correction r


@cached
def comparison(epsilon: float, c: int, k: int, alpha: float, noise: str, monotonic: bool) -> Comparison:
    """Panel 4: density of Z = v − ρ (closed form for SVT-Exp, FFT framework otherwise) and P[⊤ | q − T = d]
    for r ∈ {0, E[v], r^op} at d ∈ {−θ, 0, θ, 3θ}."""
    sp = calibration(epsilon, c, noise, monotonic)
    b, th = sp.threshold_scale, sp.query_scale
    r_op = _correction_r(sp, k, alpha, "optimal")
    lo, hi = -4 * b - 2 * th if noise != "exponential" else -6 * b, max(r_op + 2 * th, 6 * th)
    z = np.linspace(lo, hi, 501)
    if noise == "exponential":
        dens = svt.comparison_pdf(z, threshold_scale=b, query_scale=th)
    else:
        disc = svt.discretise_comparison(b, th, n_bins=2001, query_noise=noise, threshold_noise=sp.threshold_noise)
        dens = np.interp(z, disc.z, disc.pmf / disc.width)
    df = pd.DataFrame({"z": z, "density": dens})
    d = np.array([-th, 0.0, th, 3 * th])
    acc: dict[str, Any] = {"count − τ": [number(x, 4) for x in d]}
    for label, r in (
        ("r = 0", 0.0),
        (f"r = mean = {number(sp.mean_correction, 4)}", sp.mean_correction),
        (f"r = r^op = {number(r_op, 4)}", r_op),
    ):
        acc[f"P[yes], {label}"] = _acceptance(sp, d, r)
    return Comparison(df, pd.DataFrame(acc))


@dataclass(frozen=True)
class Acceptance:
    """P[⊤] for queries at τ − d, τ and τ + d with the correction r in use."""

    r: float
    below: float
    at: float
    above: float


@cached
def acceptance_at(
    epsilon: float, c: int, k: int, alpha: float, noise: str, monotonic: bool, rule: str, d: float
) -> Acceptance:
    """Panel 4 readouts: P[⊤] at T − d, T and T + d with the correction in use."""
    sp = calibration(epsilon, c, noise, monotonic)
    r = _correction_r(sp, k, alpha, rule)
    below, at, above = (float(x) for x in _acceptance(sp, [-d, 0.0, d], r))
    return Acceptance(r=r, below=below, at=at, above=above)


@cached
def success_curve(epsilon: float, c: int, k: int, alpha: float, noise: str, monotonic: bool) -> pd.DataFrame:
    """Panel 5: p(r) of Eq. 8 and the exact shared-ρ probability over r."""
    sp = calibration(epsilon, c, noise, monotonic)
    r_op = _correction_r(sp, k, alpha, "optimal")
    s = max(sp.threshold_scale, sp.query_scale)
    r = np.linspace(min(-2 * s, r_op - 4 * s), r_op + 4 * s, 121)
    return pd.DataFrame({"r": r, "eq8": _eq8(sp, r, k, alpha), "shared": _shared(sp, r, k, alpha)})


@cached
def rop_vs_k(epsilon: float, c: int, alpha: float, monotonic: bool) -> pd.DataFrame:
    """Panel 6a: SVT-Exp r^op against k for ε/2, ε, 2ε, with the mean θ."""
    ks = np.unique(np.geomspace(1, 5000, 30).astype(int))
    rows = []
    for e in (epsilon / 2, epsilon, 2 * epsilon):
        sp = calibration(e, c, "exponential", monotonic)
        for kk in ks:
            rows.append(
                {
                    "epsilon": e,
                    "k": int(kk),
                    "r_op": _correction_r(sp, int(kk), alpha, "optimal"),
                    "theta": sp.query_scale,
                }
            )
    return pd.DataFrame(rows)


@cached
def rop_vs_epsilon(c: int, k: int, alpha: float, monotonic: bool) -> pd.DataFrame:
    """Panel 6b: r^op·ε and θ·ε against ε — flat at α = 0 (scale invariance)."""
    rows = []
    for e in np.geomspace(0.01, 20.0, 30):
        sp = calibration(float(e), c, "exponential", monotonic)
        rows.append(
            {
                "epsilon": float(e),
                "r_op_eps": _correction_r(sp, k, alpha, "optimal") * e,
                "theta_eps": sp.query_scale * e,
            }
        )
    return pd.DataFrame(rows)


@cached
def rop_vs_alpha(epsilon: float, c: int, k: int, monotonic: bool) -> pd.DataFrame:
    """Panel 6c: r^op against α — V-shaped when θ > b (the paper's "larger α, smaller r^op" holds for small α only)."""
    sp = calibration(epsilon, c, "exponential", monotonic)
    a = np.linspace(0.0, 4 * sp.query_scale, 41)
    return pd.DataFrame(
        {"alpha": a, "r_op": [_correction_r(sp, k, float(x), "optimal") for x in a], "theta": sp.query_scale}
    )
