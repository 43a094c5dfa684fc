"""The relative-error stopping rule of the paper's experiments.

Rogers, Samorodnitsky, Wu, Ramdas (NeurIPS 2023), Section 7.2: a noisy count ŷ released at level ε
(noise standard deviation σ = Δ/ε) is accepted once 1−η < |(ŷ+σ)/(ŷ−σ)| ≤ 1+η and |ŷ| > σ, where η is
the relative-error tolerance (the paper's α). The rule looks only at the released value and its level.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcore import _validate as _v

__all__ = ["relative_error_stop"]


def _stop_mask(yhat: np.ndarray, sigma: np.ndarray, alpha: float) -> np.ndarray:
    """1−α < |(ŷ+σ)/(ŷ−σ)| ≤ 1+α and |ŷ| > σ, written without division (|ŷ−σ| > 0 there)."""
    num = np.abs(yhat + sigma)
    den = np.abs(yhat - sigma)
    ok = np.abs(yhat) > sigma
    ok &= (1.0 - alpha) * den < num
    ok &= num <= (1.0 + alpha) * den
    return ok


def _stop_scalar(yhat: float, sigma: float, alpha: float) -> bool:
    num = abs(yhat + sigma)
    den = abs(yhat - sigma)
    return abs(yhat) > sigma and (1.0 - alpha) * den < num <= (1.0 + alpha) * den


def relative_error_stop(release: Any, epsilon: Any, *, alpha: float, sensitivity: float = 1.0) -> np.ndarray | bool:
    """Relative-error stopping rule of Section 7: stop once 1−α < |(ŷ+σ)/(ŷ−σ)| ≤ 1+α and |ŷ| > σ.

    σ = Δ/ε is the noise std at the current level. It uses only the released value and its level
    (never the true count). For ŷ > σ it is equivalent to ŷ·ε/Δ ≥ (2+α)/α; its lower inequality is then
    always true. It is a one-standard-deviation heuristic, not a guarantee (precision ≈ 96–98%).
    """
    y = _v.real_array("release", release, allow_inf=False)
    eps = _v.real_array("epsilon", epsilon, allow_inf=False)
    if eps.size and eps.min() <= 0:
        raise ValueError("epsilon must be > 0")
    a = _v.positive("alpha", alpha)
    sens = _v.scale("sensitivity", sensitivity)
    with np.errstate(over="ignore", invalid="ignore"):  # σ = Δ/ε → inf: never stop
        out = _stop_mask(y, sens / eps, a)
    return out if out.ndim else bool(out)
