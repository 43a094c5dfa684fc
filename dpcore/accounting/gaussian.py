"""The Gaussian mechanism N(0, σ²): exact privacy profile, calibration, composition and its zCDP parameter.

* δ(ε) in closed form for every real ε (Balle & Wang 2018, Thm 8), computed in log space so that δ keeps full
  relative precision down to 1e-300.
* Calibration: analytic σ (Balle & Wang 2018, Alg. 1, the smallest σ meeting (ε, δ)) and the classic
  σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1).
* T-fold composition in closed form: T Gaussians with sensitivity Δ are one Gaussian with sensitivity √T·Δ
  (Dong, Roth & Su 2022, Cor. 3.3), so ε(δ) is a root of the same closed form.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special
from scipy.optimize import elementwise

from dpcore import _validate as _v
from dpcore.accounting._util import FloatOrArray
from dpcore.accounting._util import out_value as _out

__all__ = [
    "MAX_CALIBRATION_EPSILON",
    "analytic_mu",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_log_delta",
    "gaussian_log_delta_scalar",
    "gaussian_rho",
    "gaussian_sigma",
]

#: Largest finite ε for Gaussian calibration: beyond ~1e70 the root μ ≈ √(2ε) is lost to rounding in δ_G(ε; μ).
MAX_CALIBRATION_EPSILON = 1e50

_SQRT2 = math.sqrt(2.0)

def gaussian_log_delta_scalar(eps: float, mu: float) -> float:
    """ln δ_G(ε; μ) for finite float ε and μ > 0 (Balle & Wang 2018, Thm 8), without cancellation in the tails.

    ln δ = ln Φ(a) + ln(−expm1(g)) with g = ε + ln Φ(b) − ln Φ(a), a = μ/2 − ε/μ, b = a − μ. For a < 0,
    g = ln[erfcx(−b/√2) / erfcx(−a/√2)]: with Φ(x) = ½e^{−x²/2} erfcx(−x/√2) and b² − a² = 2ε the ε terms cancel
    exactly, which keeps full relative precision for δ down to 1e-300 even when μ is small. Plain-float code
    (no array overhead, bench/results-where-time-goes.md): calibration and BR-DP's Alg. 1/2 call it thousands of times.
    """
    a = mu / 2 - eps / mu
    b = a - mu
    la = float(special.log_ndtr(a))
    if la == -math.inf:  # δ = 0 (a = −inf, where the erfcx ratio below would be 0/0)
        return -math.inf
    if a < 0:
        gap = math.log(float(special.erfcx(-b / _SQRT2)) / float(special.erfcx(-a / _SQRT2)))
    else:
        gap = eps + float(special.log_ndtr(b)) - la
    return min(la + math.log(-math.expm1(gap)), 0.0) if gap < 0 else -math.inf


def _gaussian_log_delta_finite(e: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Array version of :func:`gaussian_log_delta_scalar` (same formula) for finite ε and μ > 0."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a = m / 2 - e / m
        b = a - m
        la = special.log_ndtr(a)
        gap = np.where(
            a < 0,
            np.log(special.erfcx(-b / _SQRT2)) - np.log(special.erfcx(-a / _SQRT2)),
            e + special.log_ndtr(b) - la,
        )
        val = np.minimum(la + np.log(-np.expm1(np.minimum(gap, 0.0))), 0.0)  # clip rounding: g ≤ 0, δ ≤ 1
        return np.where(la == -np.inf, -np.inf, val)


def gaussian_log_delta(eps: FloatOrArray, mu: FloatOrArray) -> np.ndarray:
    """ln δ_G(ε) for arrays, every real ε including ±inf (δ(−inf) = 1, δ(+inf) = 0)."""
    eps, mu = np.broadcast_arrays(np.asarray(eps, float), np.asarray(mu, float))
    out = np.empty(eps.shape)
    out[eps == np.inf] = -np.inf
    out[eps == -np.inf] = 0.0
    fin = np.isfinite(eps)
    out[fin] = _gaussian_log_delta_finite(eps[fin], mu[fin])
    return out


def gaussian_delta(
    epsilon: FloatOrArray, *, sigma: float, sensitivity: float = 1.0, compositions: int = 1
) -> FloatOrArray:
    """Exact privacy profile δ(ε) of the Gaussian mechanism N(0, σ²), composed ``compositions`` times.

    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) with μ = √T·Δ/σ (Balle & Wang 2018, Thm 8; T Gaussian releases compose to
    one with sensitivity √T·Δ); valid for every
    real ε including negative values and ±inf (δ(−inf) = 1, δ(+inf) = 0). Vectorised over ε.
    """
    eps = _v.real_array("epsilon", epsilon)
    s = _v.scale("sigma", sigma)
    d = _v.scale("sensitivity", sensitivity)
    t = _v.integer("compositions", compositions, low=1)
    mu = math.sqrt(t) * d / s
    return _out(np.exp(gaussian_log_delta(eps, np.float64(mu))))


def gaussian_sigma(
    epsilon: float, delta: float, *, sensitivity: float = 1.0, method: str = "analytic"
) -> float:
    """Noise scale σ of a Gaussian mechanism that is (ε, δ)-DP for sensitivity Δ.

    ``"analytic"`` (default): the smallest σ with δ_G(ε; σ, Δ) ≤ δ (Balle & Wang 2018, Thm 8), found
    by ``brentq`` on μ = Δ/σ (:func:`analytic_mu`); valid for every ε ≥ 0. ``"classic"``: σ = Δ√(2 ln(1.25/δ))/ε (Dwork
    & Roth, Thm A.1), proven only for ε < 1 and always larger than the analytic σ.
    """
    m = _v.choice("method", method, ("analytic", "classic"))
    d = _v.scale("sensitivity", sensitivity)
    dl = _v.probability("delta", delta, low_open=True, high_open=True)
    if m == "classic":
        e = _v.bounded("epsilon", epsilon, low=0.0, low_open=True, cap=MAX_CALIBRATION_EPSILON)
        return d * math.sqrt(2.0 * (math.log(1.25) - math.log(dl))) / e
    e = _v.bounded("epsilon", epsilon, low=0.0, cap=MAX_CALIBRATION_EPSILON)
    return d / analytic_mu(e, dl)


def analytic_mu(eps: float, delta: float) -> float:
    """μ = Δ/σ of the analytic Gaussian: the largest μ with δ_G(ε; μ) ≤ δ (δ_G increases with μ).

    ``brentq`` on the scalar core from the classic μ = ε/√(2 ln(1.25/δ)) as first guess; the root is
    then nudged to the sound side so that δ_G(ε; μ) ≤ δ holds exactly in floating point.
    """
    if eps > MAX_CALIBRATION_EPSILON:  # also guards callers in other modules (BR-DP's kernel calibration)
        raise ValueError(f"epsilon must be in [0, {MAX_CALIBRATION_EPSILON:g}] for Gaussian calibration, got {eps!r}")
    log_target = math.log(delta)

    def f(mu: float) -> float:
        return gaussian_log_delta_scalar(eps, mu) - log_target

    hi = max(eps, 1e-3) / math.sqrt(2.0 * (math.log(1.25) - log_target))
    while f(hi) <= 0:
        hi *= 2.0
    lo = hi / 2.0
    while f(lo) > 0:
        lo /= 2.0
    mu = optimize.brentq(f, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=200)
    while f(mu) > 0:
        mu = float(np.nextafter(mu, 0.0))
    return mu


#: Up to this many (δ, T) pairs, :func:`gaussian_epsilon` finds each root with scalar ``brentq``.
_SCALAR_ROOTS = 8


def _scalar_root(lo: float, hi: float, mu: float, log_d: float) -> float:
    """The ε in [lo, hi] with ln δ_G(ε; μ) = log_d, to 1e-13 absolute / 1e-14 relative, on the sound side.

    Same tolerances and the same guarantee as the vectorised path of :func:`gaussian_epsilon`: the returned ε has
    δ_G(ε) ≤ δ in floating point (δ_G decreases in ε, so the root is moved up by one tolerance until it holds).
    """
    def f(e: float) -> float:
        return gaussian_log_delta_scalar(e, mu) - log_d

    f_lo, f_hi = f(float(lo)), f(float(hi))
    if f_hi == 0:
        return float(hi)
    if not (f_hi < 0 <= f_lo):  # not a bracket (never seen): the caller falls back to the vectorised search
        return math.nan
    x = optimize.brentq(f, float(lo), float(hi), xtol=1e-13, rtol=1e-14, maxiter=500)
    step = 1e-13 + 1e-14 * abs(x)
    while float(_gaussian_log_delta_finite(np.array([x]), np.array([mu]))[0]) - log_d > 0 and x < hi:
        x = min(x + step, float(hi))
    return x


def gaussian_epsilon(
    delta: FloatOrArray, *, sigma: float, sensitivity: float = 1.0, compositions: int | np.ndarray = 1
) -> FloatOrArray:
    """Smallest ε with δ_G(ε) ≤ δ for T-fold Gaussian composition; vectorised over δ and T.

    Inverts the closed form of :func:`gaussian_delta` with Chandrupatla's bracketing root finder
    (``scipy.optimize.elementwise.find_root``), so a whole composition curve T = 1..1000 costs milliseconds.
    δ = 1 gives −inf; δ = 0 gives +inf.
    """
    dl = _v.real_array("delta", delta, low=0.0, high=1.0)
    s = _v.scale("sigma", sigma)
    d = _v.scale("sensitivity", sensitivity)
    t_arr = np.asarray(compositions)
    if t_arr.size == 0 or t_arr.dtype.kind not in "iuf" or not np.all(np.isfinite(t_arr)) \
            or np.any(t_arr != np.round(t_arr)):
        raise ValueError(f"compositions must be integers in [1, inf], got {compositions!r}")
    if np.any(t_arr < 1):
        raise ValueError(f"compositions must be integers in [1, inf], got {compositions!r}")
    mu = np.sqrt(t_arr.astype(float)) * d / s
    dl, mu = np.broadcast_arrays(dl, mu)
    out = np.full(dl.shape, np.nan)
    out[dl == 0] = np.inf
    out[dl == 1] = -np.inf
    inner = (dl > 0) & (dl < 1)
    if inner.any():
        dd, mm = dl[inner], mu[inner]
        log_d = np.log(dd)
        at_zero = gaussian_log_delta(np.zeros_like(mm), mm)
        positive = log_d < at_zero
        z = -special.ndtri(dd)
        lo = np.where(positive, 0.0, np.log1p(-dd))
        with np.errstate(over="ignore"):  # μ > ~1e154: the root ε ≈ μ²/2 exceeds the float range, reported as +inf
            hi = np.where(positive, mm**2 / 2 + mm * np.maximum(z, 0.0) + 1.0, 0.0)
        huge = ~np.isfinite(hi)
        hi = np.where(huge, 0.0, hi)
        lo = np.where(huge, -1.0, lo)

        def f(e: np.ndarray, mu_: np.ndarray, ld: np.ndarray) -> np.ndarray:
            return gaussian_log_delta(e, mu_) - ld

        if mm.size <= _SCALAR_ROOTS:  # a few roots: plain brentq (find_root's set-up costs more than a few of them)
            roots = np.array([np.inf if h else _scalar_root(a, b, m, ld)
                              for a, b, m, ld, h in zip(lo, hi, mm, log_d, huge, strict=True)])
            if not np.isnan(roots).any():
                out[inner] = roots
                return _out(out)
        res = elementwise.find_root(f, (lo, hi), args=(mm, log_d), tolerances={"xatol": 1e-13, "xrtol": 1e-14})
        # Report the bracket's upper end (δ there ≤ target): a sound, never-optimistic ε.
        out[inner] = np.where(huge, np.inf, np.where(f(res.x, mm, log_d) <= 0, res.x, res.bracket[1]))
    return _out(out)


def gaussian_rho(sigma: float, *, sensitivity: float = 1.0) -> float:
    """zCDP parameter ρ = Δ²/(2σ²) of the Gaussian mechanism (Bun & Steinke 2016, Prop. 1.6)."""
    s = _v.scale("sigma", sigma)
    d = _v.scale("sensitivity", sensitivity)
    return d * d / (2 * s * s)  # Δ, σ ∈ [1e-100, 1e100]: no 0 denominator; ρ beyond the float range reads as +inf

