"""Why exponential query noise is private: loss profiles and exact output probabilities (Liu et al. 2024,
§3 Theorem 2, Eqs. 4–5, App. A; Theorem 3, App. B).

SVT releases only ⊤/⊥, so the query noise needs only its survival function to satisfy
S₂(x − 2Δ) ≤ e^(ε₂/c)·S₂(x) (Eq. 5) and the threshold noise only f₁(u − Δ) ≤ e^(ε₁)·f₁(u) (Eq. 4).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import integrate

from dpcore import _validate as _v
from dpcore.svt.noise import NOISES, _dist, _out, _query_cdf_sf

__all__ = ["pattern_probability", "query_loss_profile", "threshold_loss_profile"]


def query_loss_profile(x, *, noise: str, scale: float, shift: float = 2.0):
    """ℓ(x) = ln S₂(x − shift) − ln S₂(x): per-positive privacy loss of query noise (Eq. 5).

    Exponential: = shift/θ for x ≥ shift (flat, exactly ε₂/c at the calibrated scale); Laplace and Gumbel stay
    below shift/scale; Gaussian grows without bound (no pure DP). Use shift = 2Δ (non-monotonic) or Δ."""
    noise = _v.choice("noise", noise, NOISES)
    sc = _v.scale("scale", scale)
    sh = _v.nonnegative("shift", shift)
    xx = _v.real_array("x", x, allow_inf=False)
    d = _dist(noise, sc)
    with np.errstate(invalid="ignore"):
        hi, lo = d.logsf(xx - sh), d.logsf(xx)
        out = hi - lo
    # both survival functions underflow far in the right tail: the loss has reached its limit there
    # (exactly shift/scale for Laplace and exponential, → shift/scale for Gumbel, → +inf for the Gaussian)
    far = np.isneginf(hi) & np.isneginf(lo)
    if far.any():
        out = np.where(far, math.inf if noise == "gaussian" else sh / sc, out)
    return _out(out, x)


def threshold_loss_profile(u, *, noise: str, scale: float, shift: float = 1.0):
    """ln f₁(u − shift) − ln f₁(u) for threshold noise (Eq. 4): within ±shift/b for Laplace,
    unbounded for Gaussian. ``noise`` "laplace" or "gaussian" (paper), or beyond the paper "exponential"
    (support ≥ 0; −∞ where f₁(u − shift) = 0) and "gumbel"."""
    noise = _v.choice("noise", noise, ("laplace", "gaussian", "exponential", "gumbel"))
    sc = _v.scale("scale", scale)
    sh = _v.nonnegative("shift", shift)
    uu = _v.real_array("u", u, allow_inf=False)
    d = _dist(noise, sc)
    with np.errstate(invalid="ignore"):
        out = d.logpdf(uu - sh) - d.logpdf(uu)
    out = np.where(np.isnan(out), -np.inf, out)  # both outside the support: no constraint
    return _out(out, u)


def pattern_probability(
    answers,
    pattern: Sequence[bool],
    *,
    threshold: float,
    threshold_scale: float,
    query_scale: float,
    correction: float = 0.0,
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
) -> float:
    """Exact P[SVT outputs ``pattern``] (one threshold noise; proof of Theorem 2, App. A) by quadrature.

    ∫ f_ρ(t) ∏_{⊥} F_v(T + t + r − q_i) ∏_{⊤} S_v(T + t + r − q_j) dt. ``threshold_noise`` may also be one of
    families beyond the paper: "exponential" (support ≥ 0), "negative_exponential"
    (support ≤ 0) or "gumbel" (all at scale ``threshold_scale``)."""
    q = _v.real_array("answers", answers, allow_inf=False)
    pat = np.asarray(pattern, dtype=bool)
    if q.ndim != 1 or pat.shape != q.shape:
        raise ValueError("pattern must have the same length as answers")
    T = _v.real("threshold", threshold)
    b = _v.scale("threshold_scale", threshold_scale)
    th = _v.scale("query_scale", query_scale)
    r = _v.real("correction", correction)
    qn = _v.choice("query_noise", query_noise, NOISES)
    tn = _v.choice(
        "threshold_noise",
        threshold_noise,
        ("laplace", "gaussian", "exponential", "negative_exponential", "gumbel"),
    )
    F, S = _query_cdf_sf(qn, th)
    shifts = T + r - q
    if tn == "negative_exponential":
        f_rho = lambda t: math.exp(t / b) / b if t <= 0 else 0.0  # noqa: E731
    elif tn == "laplace":
        f_rho = lambda t: math.exp(-abs(t) / b) / (2 * b)  # noqa: E731
    elif tn == "gumbel":
        f_rho = lambda t: math.exp(-(t / b) - math.exp(-t / b)) / b if t > -30 * b else 0.0  # noqa: E731
    elif tn == "exponential":
        f_rho = lambda t: math.exp(-t / b) / b if t >= 0 else 0.0  # noqa: E731
    else:
        f_rho = lambda t: math.exp(-0.5 * (t / b) ** 2) / (b * math.sqrt(2 * math.pi))  # noqa: E731
    top_shifts, bot_shifts = shifts[pat], shifts[~pat]

    def g(t):
        with np.errstate(divide="ignore", under="ignore"):
            val = float(np.prod(S(t + top_shifts))) * float(np.prod(F(t + bot_shifts)))
            return f_rho(t) * val if val > 0 else 0.0

    kinks = sorted(set((-shifts).tolist()) | {0.0})
    span = 80 * max(b, th) + float(np.max(np.abs(shifts)))
    brk = [-span] + [x for x in kinks if -span < x < span] + [span]
    tot = 0.0
    for x0, x1 in zip(brk[:-1], brk[1:], strict=True):
        tot += integrate.quad(g, x0, x1, epsabs=0, epsrel=1e-10, limit=200)[0]
    return tot
