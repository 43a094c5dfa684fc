"""The R²DP Gaussian mechanism: a Gaussian whose σ is drawn from a discrete law (paper appendix).

Mohammady et al. 2020 (R²DP), Appendix: Thm A.2 (the calibration σ = κΔq of Le Ny & Pappas 2014, printed there
under the title "Laplace mechanism"), Thm A.3 (Gaussian usefulness 1 - 2Q(γ/σ)) and Cor. A.4 (σ random). As
printed, Cor. A.4's constraint assumes Δq = 1 and asks for a pure-ε bound no Gaussian meets;
:func:`gaussian_mixture_delta` gives the exact δ(ε) of the mixture and two sound-or-printed alternatives.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from scipy import optimize as _opt
from scipy import special as sp

from dpcore import _validate as _v
from dpcore.r2dp._mgf import _LOG_SQRT_2PI


def gaussian_kappa(epsilon: float, delta: float) -> float:
    """κ(δ, ε) = (K + sqrt(K² + 2ε))/(2ε), K = Q^{-1}(δ): σ = κ Δq (Thm A.2 = Le Ny & Pappas 2014, printed
    under the title "Laplace mechanism" although it is the Gaussian one)."""
    e = _v.positive("epsilon", epsilon)
    d = _v.probability("delta", delta, low_open=True, high_open=True)
    K = float(-sp.ndtri(d))
    return (K + math.sqrt(K * K + 2 * e)) / (2 * e)


def _mixture(sigmas: Any, weights: Any) -> tuple[np.ndarray, np.ndarray]:
    s = _v.real_array("sigmas", sigmas, low=0.0, allow_inf=False).ravel()
    if s.size == 0 or np.any(s <= 0):
        raise ValueError("sigmas must be a non-empty array of values > 0")
    if weights is None:
        w = np.full(s.size, 1.0 / s.size)
    else:
        w = _v.real_array("weights", weights, low=0.0, allow_inf=False).ravel()
        if w.size != s.size or not math.isclose(float(w.sum()), 1.0, rel_tol=1e-9):
            raise ValueError("weights must be non-negative, one per sigma, summing to 1")
    return s, w


def gaussian_usefulness(sigmas: Any, *, gamma: float, weights: Any = None) -> float:
    """R²DP Gaussian usefulness 1 - 2 E_σ[Q(γ/σ)] (Thm A.3 averaged over a discrete σ law)."""
    s, w = _mixture(sigmas, weights)
    g = _v.positive("gamma", gamma)
    return float(1.0 - 2.0 * np.sum(w * sp.ndtr(-g / s)))


def gaussian_mixture_delta(
    epsilon: float,
    *,
    sigmas: Any,
    weights: Any = None,
    sensitivity: float = 1.0,
    variant: Literal["exact", "averaged", "as_printed"] = "exact",
) -> float:
    """δ(ε) of the R²DP Gaussian mechanism with σ ~ discrete law (Cor. A.4, with a well-formed constraint).

    ``exact``: sup over shifts 0 < s <= Δq of ∫(f(x) - e^ε f(x - s))_+ dx for the scale mixture f;
    ``averaged``: E_σ[δ_BW(ε; σ)] (Balle–Wang, sound by convexity); ``as_printed``: E_σ[Q(εσ - 1/(2σ))]
    (the paper's form, which silently assumes Δq = 1).
    """
    e = _v.real("epsilon", epsilon)
    s, w = _mixture(sigmas, weights)
    dq = _v.scale("sensitivity", sensitivity)
    variant = _v.choice("variant", variant, ("exact", "averaged", "as_printed"))
    if variant == "as_printed":
        return float(np.sum(w * sp.ndtr(-(e * s - 1 / (2 * s)))))
    if variant == "averaged":
        a = dq / (2 * s)
        b = e * s / dq
        return float(np.sum(w * (sp.ndtr(a - b) - math.exp(e) * sp.ndtr(-a - b))))

    def logf(x: np.ndarray) -> np.ndarray:
        return sp.logsumexp(
            np.log(w)[:, None] - np.log(s)[:, None] - _LOG_SQRT_2PI - 0.5 * (x[None, :] / s[:, None]) ** 2, axis=0
        )

    def cdf(x: float) -> float:
        return float(np.sum(w * sp.ndtr(x / s)))

    def hockey(shift: float) -> float:
        span = 40 * s.max() + shift
        x = np.linspace(-span, span, 40001)
        d = logf(x) - e - logf(x - shift)
        sign = d > 0
        idx = np.nonzero(sign[1:] != sign[:-1])[0]
        roots = []
        for i in idx:
            roots.append(
                _opt.brentq(
                    lambda y: float(logf(np.array([y]))[0] - e - logf(np.array([y - shift]))[0]),
                    x[i],
                    x[i + 1],
                    xtol=1e-14,
                )
            )
        edges = [-math.inf, *roots, math.inf]
        total = 0.0
        for j in range(len(edges) - 1):
            lo_, hi_ = edges[j], edges[j + 1]
            mid = (
                0.5 * (lo_ + hi_)
                if math.isfinite(lo_) and math.isfinite(hi_)
                else (hi_ - 1.0 if math.isfinite(hi_) else (lo_ + 1.0 if math.isfinite(lo_) else 0.0))
            )
            if float(logf(np.array([mid]))[0] - e - logf(np.array([mid - shift]))[0]) > 0:
                pa = cdf(hi_) - cdf(lo_)
                pb = cdf(hi_ - shift) - cdf(lo_ - shift)
                total += pa - math.exp(e) * pb
        return max(total, 0.0)

    shifts = np.linspace(dq / 8, dq, 8)
    return float(max(hockey(float(sh)) for sh in shifts))
