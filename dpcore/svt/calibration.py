"""Budget split and noise scales of every SVT method (Liu et al. 2024, §4.2 Eq. 6, §5.4 Tables 4 and 6, App. G).

The comparison variance V = Var ρ + Var v is minimised over the split ε₂ = w·ε₁; the optimum is
w* = (C/A)^(1/3) and V* = (A^(1/3) + C^(1/3))³/ε² (App. G).
"""

from __future__ import annotations

from dataclasses import dataclass

from dpcore import _validate as _v
from dpcore.svt.noise import (
    EULER_GAMMA,
    NOISES,
    THRESHOLD_NOISES,
    _gauss_multiplier,
    _variance_per_scale2,
)

__all__ = ["BudgetSplit", "split_budget"]


@dataclass(frozen=True)
class BudgetSplit:
    """What one SVT method draws (Tables 3, 4 and 6): budget split, noise scales, comparison variance V (Eq. 6)."""

    epsilon: float
    c: int
    noise: str
    threshold_noise: str
    monotonic: bool
    sensitivity: float
    delta: float  # δ used to calibrate Gaussian noise (0 for pure-DP pairs)
    w: float  # ε₂ = w·ε₁
    w_optimal: float  # w* = (C/A)^{1/3}
    epsilon1: float
    epsilon2: float
    threshold_scale: float  # b = Δ/ε₁ (Laplace) or σ₁ = sΔ/ε₁ (Gaussian)
    query_scale: float  # f·cΔ/ε₂ (·s for Gaussian); f = 1 monotonic, 2 otherwise
    mean_correction: float  # E[v]: θ (exponential), γ_E·scale (Gumbel), 0 otherwise
    variance: float  # V = Var ρ + Var v at this w
    variance_optimal: float  # V* = (A^{1/3} + C^{1/3})³/ε²

    @property
    def pure(self) -> bool:
        """True when the pair gives pure ε-DP (no Gaussian component)."""
        return self.noise != "gaussian" and self.threshold_noise != "gaussian"

    def total_epsilon(self, resample: bool = False) -> float:
        """ε₁ + ε₂ (one threshold noise) or c·ε₁ + ε₂ when ρ is redrawn after every ⊤ (``resample``; Theorem 3
        states "(cε₁, ε₂)-DP", its proof gives pure (cε₁ + ε₂)-DP)."""
        return (self.c * self.epsilon1 if resample else self.epsilon1) + self.epsilon2


def split_budget(
    epsilon: float,
    *,
    c: int,
    noise: str = "exponential",
    monotonic: bool = False,
    sensitivity: float = 1.0,
    w: float | None = None,
    threshold_noise: str | None = None,
    delta: float = 1e-5,
) -> BudgetSplit:
    """Calibrate an SVT method: optimal split w*, ε₁, ε₂, noise scales and V (Eq. 6, App. G, Tables 4 and 6).

    ``threshold_noise`` defaults to the paper's choice (Gaussian for SVT-Gau, Laplace otherwise); ``delta`` only
    matters when a Gaussian is involved: σ = √(2 ln(1.25/δ))·Δ/ε, the classic Gaussian mechanism (App. G.4 writes
    σ = αΔ/ε with an unexplained constant α).
    ``w`` overrides the variance-optimal split.
    """
    eps = _v.scale("epsilon", epsilon)
    c = _v.integer("c", c, low=1)
    noise = _v.choice("noise", noise, NOISES)
    delta_ = _v.probability("delta", delta, low_open=True, high_open=True)
    sens = _v.scale("sensitivity", sensitivity)
    if threshold_noise is None:
        threshold_noise = "gaussian" if noise == "gaussian" else "laplace"
    threshold_noise = _v.choice("threshold_noise", threshold_noise, THRESHOLD_NOISES)
    gaussian_used = noise == "gaussian" or threshold_noise == "gaussian"
    s = _gauss_multiplier(delta_) if gaussian_used else 1.0
    f = 1.0 if monotonic else 2.0
    a_unit = s if threshold_noise == "gaussian" else 1.0  # threshold scale · ε₁/Δ
    q_unit = f * c * (s if noise == "gaussian" else 1.0)  # query scale · ε₂/Δ
    A = _variance_per_scale2(threshold_noise) * (a_unit * sens) ** 2
    C = _variance_per_scale2(noise) * (q_unit * sens) ** 2
    w_opt = (C / A) ** (1.0 / 3.0)
    w_ = w_opt if w is None else _v.positive("w", w)
    eps1 = eps / (1.0 + w_)
    eps2 = eps - eps1
    b = a_unit * sens / eps1
    theta = q_unit * sens / eps2
    if not (_v.MIN_SCALE <= b <= _v.MAX_SCALE and _v.MIN_SCALE <= theta <= _v.MAX_SCALE):
        raise ValueError(
            f"sensitivity/epsilon must give noise scales in [{_v.MIN_SCALE:g}, {_v.MAX_SCALE:g}], got "
            f"sensitivity={sensitivity!r}, epsilon={epsilon!r} (threshold scale {b:g}, query scale "
            f"{theta:g})"
        )
    mean = {"exponential": theta, "gumbel": EULER_GAMMA * theta}.get(noise, 0.0)
    return BudgetSplit(
        epsilon=eps,
        c=c,
        noise=noise,
        threshold_noise=threshold_noise,
        monotonic=bool(monotonic),
        sensitivity=sens,
        delta=delta_ if gaussian_used else 0.0,
        w=w_,
        w_optimal=w_opt,
        epsilon1=eps1,
        epsilon2=eps2,
        threshold_scale=b,
        query_scale=theta,
        mean_correction=mean,
        variance=A / eps1**2 + C / eps2**2,
        variance_optimal=(A ** (1 / 3) + C ** (1 / 3)) ** 3 / eps**2,
    )
