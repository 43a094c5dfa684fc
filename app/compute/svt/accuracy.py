"""Panel 7 of the SVT page's explore view (Liu, Wang, Liu, Li and Chen 2024): (α, β)-accuracy, β = 1 − p(r) against
α for the Fig. 3 methods, and the α Theorem 4 promises (as printed, as its proof gives, and exactly)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.svt.method import NOISES, _correction_r, _eq8, _shared, calibration
from dpcore import svt

__all__ = ["AB_METHODS", "AccuracyPanel", "Theorem4", "accuracy_panel", "alpha_beta", "theorem4"]

AB_METHODS = {  # Fig. 3 curves: label → (query noise, correction rule)
    "SVT-Exp + r^op": ("exponential", "optimal"),
    "SVT-Exp, r = 0": ("exponential", "none"),
    "SVT-Exp, r = mean": ("exponential", "mean"),
    "SVT-Lap": ("laplace", "none"),
    "SVT-Gumbel + mean": ("gumbel", "mean"),
    "SVT-Gau": ("gaussian", "none"),
}


def _alpha_beta(splits: dict[str, svt.BudgetSplit], k: int, alphas: np.ndarray) -> pd.DataFrame:
    """β = 1 − p at each α, Eq. 8 (:func:`_eq8`) and exact (shared ρ); each method's (r, α) pairs in one
    call."""
    a = np.asarray(alphas, dtype=float)
    frames = []
    for label, (n, rule) in AB_METHODS.items():
        sp = splits[n]
        r = np.array([_correction_r(sp, k, float(x), rule) for x in a])
        # Gumbel's Γ̄^k one α at a time, as summary() computes it: numpy's power of a scalar and of an array
        # can differ in the last bit
        if sp.noise == "gumbel":
            p8 = np.array([float(_eq8(sp, float(ri), k, float(x))) for ri, x in zip(r, a, strict=True)])
        else:
            p8 = np.asarray(_eq8(sp, r, k, a), dtype=float)
        frames.append(
            pd.DataFrame(
                {
                    "method": label,
                    "alpha": a,
                    "r": r,
                    "beta_eq8": 1 - p8,
                    "beta_exact": 1 - np.asarray(_shared(sp, r, k, a), dtype=float),
                }
            )
        )
    df = pd.concat(frames, ignore_index=True)
    df[["beta_eq8", "beta_exact"]] = df[["beta_eq8", "beta_exact"]].clip(lower=1e-12)
    return df


@cached(show_spinner="Computing (α, β) curves …")
def alpha_beta(epsilon: float, c: int, k: int, monotonic: bool) -> pd.DataFrame:
    """Panel 7: β(α) = 1 − p for the Fig. 3 methods at the slider's calibration, Eq. 8 and exact shared ρ."""
    splits = {n: calibration(epsilon, c, n, monotonic) for n in NOISES}
    return _alpha_beta(splits, k, np.linspace(0.0, 8 * splits["exponential"].query_scale, 17))


@dataclass(frozen=True)
class Theorem4:
    """The α that (α, β)-accuracy needs: Theorem 4 as printed, its proof done right, and exact values."""

    printed: float  # 4(ln k + ln 2/β)/ε
    corrected: float  # 8(ln k + ln 2/β)/ε, what the union bound of App. C gives
    exp_rop: float  # exact, SVT-Exp with r^op
    exp_r0: float  # exact, SVT-Exp with r = 0
    lap_r0: float  # exact, SVT-Lap
    beta: float


@cached
def theorem4(epsilon: float, k: int, beta: float = 0.1) -> Theorem4:
    """Theorem 4 (c = 1, ε₁ = ε₂ = ε/2): printed 4(ln k + ln 2/β)/ε, the corrected union bound 8(…)/ε and the
    exact α needed (shared ρ) by SVT-Exp with r^op and r = 0 and by SVT-Lap."""
    exp = svt.split_budget(epsilon, c=1, w=1.0)
    lap = svt.split_budget(epsilon, c=1, w=1.0, noise="laplace")
    r_op = svt.correction_term(exp.threshold_scale, exp.query_scale, k=k).r
    kw: dict[str, Any] = dict(threshold_scale=exp.threshold_scale, query_scale=exp.query_scale)
    return Theorem4(
        printed=svt.accuracy_bound(k, beta, epsilon, variant="as_printed"),
        corrected=svt.accuracy_bound(k, beta, epsilon),
        exp_rop=svt.accuracy_alpha(beta, k=k, r=r_op, **kw),
        exp_r0=svt.accuracy_alpha(beta, k=k, r=0.0, **kw),
        lap_r0=svt.accuracy_alpha(
            beta, k=k, threshold_scale=lap.threshold_scale, query_scale=lap.query_scale, query_noise="laplace"
        ),
        beta=beta,
    )


class AccuracyPanel(NamedTuple):
    """Panel 7: the (α, β) curves and Theorem 4's α."""

    curves: pd.DataFrame  # :func:`alpha_beta`
    theorem4: Theorem4


def accuracy_panel(epsilon: float, c: int, k: int, monotonic: bool) -> AccuracyPanel:
    """Panel 7 as one background job (:mod:`app.background`; too slow for a rerun on a new ε,
    bench/results-where-time-goes.md): the (α, β) curves of
    :func:`alpha_beta` (Fig. 3) and the α of Theorem 4 (:func:`theorem4`)."""
    return AccuracyPanel(alpha_beta.__wrapped__(epsilon, c, k, monotonic), theorem4.__wrapped__(epsilon, k))
