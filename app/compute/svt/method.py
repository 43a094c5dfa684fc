"""One calibrated SVT method of Liu, Wang, Liu, Li and Chen 2024: the budget split (Tables 4 and 6), the correction
r (r^op of Eq. 9, E[v] or 0), the success probability p(r) (Eq. 8, and exactly with Algorithm 2's one shared ρ)
and the run's total ε (Theorem 3), shared by every panel of the explore view.

Δ = 1 throughout (item counts). Noise families are named as in ``dpcore.svt.NOISES``; the correction rule is
"optimal" (r^op of Eq. 9 under the paper's Eq. 8 model), "mean" (E[v]) or "none" (r = 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.compute._cache import cached_resource
from dpcore import svt

__all__ = ["NOISES", "RULES", "Accountant", "accountant", "calibration"]

NOISES = svt.NOISES
RULES = ("optimal", "mean", "none")
_GAUSS_DELTA = 1e-5  # δ of SVT-Gau in the analytic panels (not stated in the paper: assumed)


# Small immutable values asked for many times per new setting (a curve of r^op over k, α or ε) are shared, not
# copied: a copy of each hit would cost more than computing r^op (bench/results-where-time-goes.md).
@cached_resource(max_entries=4096)
def calibration(epsilon: float, c: int, noise: str, monotonic: bool, w: float | None = None) -> svt.BudgetSplit:
    """Budget split and noise scales of one method (Tables 4 and 6); ``w`` overrides the optimal split."""
    return svt.split_budget(epsilon, c=c, noise=noise, monotonic=monotonic, w=w, delta=_GAUSS_DELTA)


def _correction_r(sp: svt.BudgetSplit, k: int, alpha: float, rule: str) -> float:
    if rule == "none":
        return 0.0
    if rule == "mean":
        return sp.mean_correction
    return _rop(sp.threshold_scale, sp.query_scale, k, alpha, sp.noise, sp.threshold_noise)


@cached_resource(max_entries=4096)
def _rop(b: float, theta: float, k: int, alpha: float, noise: str, threshold_noise: str) -> float:
    """r^op of Eq. 9: closed-form Γ, except Gumbel, whose Γ has no closed form and whose quadrature optimiser
    takes minutes when α ≫ the noise scales — there the FFT framework (Alg. 3, m = 20 001) is used."""
    method = "numeric" if noise == "gumbel" else "analytic"
    return svt.correction_term(
        b, theta, k=k, alpha=alpha, query_noise=noise, threshold_noise=threshold_noise, method=method
    ).r


@cached_resource(max_entries=64)
def _gumbel_grid(b: float, g: float) -> svt.DiscretisedComparison:
    return svt.discretise_comparison(b, g, query_noise="gumbel")


def _noise(sp: svt.BudgetSplit) -> dict:
    """The noise pair of a calibrated split, as the keyword arguments dpcore.svt's probability functions take."""
    return {
        "threshold_scale": sp.threshold_scale,
        "query_scale": sp.query_scale,
        "query_noise": sp.noise,
        "threshold_noise": sp.threshold_noise,
    }


def _shared(sp: svt.BudgetSplit, r, k: int, alpha):
    """Exact success probability with one shared ρ (Algorithm 2), vectorised over r and α; Gumbel tails
    overflow harmlessly."""
    with np.errstate(over="ignore", under="ignore"):
        return svt.shared_success_probability(
            r,
            k=k,
            alpha=alpha,
            **_noise(sp),
        )


def _eq8(sp: svt.BudgetSplit, r, k: int, alpha):
    """p(r) of Eq. 8 (vectorised over r and α). Gumbel: Γ̄ of the FFT framework (within 1e-7 of quadrature,
    which is slow far in the tails)."""
    if sp.noise == "gumbel":
        disc = _gumbel_grid(sp.threshold_scale, sp.query_scale)
        return disc.cdf(np.asarray(r) + alpha) ** k * (1 - disc.cdf(np.asarray(r) - alpha))
    return svt.success_probability(
        r,
        k=k,
        alpha=alpha,
        **_noise(sp),
    )


def _acceptance(sp: svt.BudgetSplit, d, r: float) -> np.ndarray:
    """P[⊤ | q − T = d] = P[Z ≥ r − d]; Gumbel through the FFT framework's Γ̄."""
    d = np.asarray(d, dtype=float)
    if sp.noise == "gumbel":
        return 1 - _gumbel_grid(sp.threshold_scale, sp.query_scale).cdf(r - d)
    return svt.acceptance_probability(
        d,
        r=r,
        **_noise(sp),
    )


@dataclass(frozen=True)
class Accountant:
    """The budget of one SVT run: the split, and the total ε with one threshold noise or a redraw per ⊤."""

    epsilon1: float
    epsilon2: float
    b: float
    scale: float
    w: float
    off: float  # ε₁ + ε₂
    on: float  # c·ε₁ + ε₂ (redraw after every ⊤), Theorem 3 as its proof gives
    on_as_printed: float  # c·ε₁, reading Theorem 3's "(cε₁, ε₂)-DP" as (ε, δ)
    mono_misuse: float  # ε₁ + 2ε₂: the loss of the monotonic calibration on non-monotonic queries
    delta: float
    pure: bool


def accountant(epsilon: float, c: int, noise: str, monotonic: bool) -> Accountant:
    """Panel 12: ε₁, ε₂, scales and the total ε, RESAMPLE off / on (Theorem 3 read as its proof gives: c·ε₁ + ε₂)."""
    sp = calibration(epsilon, c, noise, monotonic)
    return Accountant(
        epsilon1=sp.epsilon1,
        epsilon2=sp.epsilon2,
        b=sp.threshold_scale,
        scale=sp.query_scale,
        w=sp.w,
        off=sp.total_epsilon(False),
        on=sp.total_epsilon(True),
        on_as_printed=c * sp.epsilon1,
        mono_misuse=sp.epsilon1 + 2 * sp.epsilon2,
        delta=sp.delta,
        pure=sp.pure,
    )
