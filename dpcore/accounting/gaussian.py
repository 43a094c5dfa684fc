"""The Gaussian mechanism N(0, σ²): exact privacy profile, calibration, composition and its zCDP parameter.

* δ(ε) in closed form for every real ε (Balle & Wang 2018, Thm 8), computed in log space so that δ keeps full
  relative precision down to 1e-300.
* Calibration: analytic σ (Balle & Wang 2018, Alg. 1, the smallest σ meeting (ε, δ)) and the classic
  σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1).
* T-fold composition in closed form: T Gaussians with sensitivity Δ are one Gaussian with sensitivity √T·Δ
  (Dong, Roth & Su 2022, Cor. 3.3), so ε(δ) is a root of the same closed form.

Every reported number is on the safe side of the exact one, not even an ulp beyond it: δ(ε) is never too low, a
calibrated σ never too small and ε(δ) never too low. :func:`gaussian_log_delta_bound` evaluates ln δ together with
a bound on its round-off (each special function within a stated number of units of round-off U, measured against
50-digit mpmath, and every rounding of the arguments propagated), and the answers are taken on the far side of it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from scipy import optimize, special
from scipy.optimize import elementwise

from dpcore import _validate as _v
from dpcore._exact import U, div_up, frac_up, up
from dpcore.accounting._util import FloatOrArray
from dpcore.accounting._util import out_value as _out

__all__ = [
    "MAX_CALIBRATION_EPSILON",
    "analytic_mu",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_log_delta",
    "gaussian_log_delta_bound",
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


#: Round-off of SciPy's special functions in units of U, with room to spare (measured against 50-digit mpmath:
#: ``erfcx`` ≤ 8 U; ``log_ndtr`` ≤ 5 U for x ≤ 0 and ≤ (36 + 1.5 x²) U for x > 0, where Φ(−x) loses ~x²U).
_ERFCX_ULPS = 16.0
_LOG_NDTR_ULPS = 16.0
_ERF_ULPS = 8.0  # erf: ≤ 3 U measured
_PHI_MAX = 0.3989422804014327  # the normal density's largest value 1/√(2π), rounded up


def _log_ndtr_err(x: float, value: float, dx: float) -> float:
    """Bound on |log_ndtr(x) − ln Φ(x ± dx)|: SciPy's own round-off plus the propagated error dx of the argument
    (d ln Φ/dx = φ(x)/Φ(x): ≤ |x| + 2 for x < 0, ≤ φ(0)/Φ(0) < 0.8 for x ≥ 0)."""
    own = (_LOG_NDTR_ULPS + (2.0 * x * x if x > 0 else 0.0)) * U * abs(value) if value else 0.0
    return own + ((abs(x) + 2.0) if x < 0 else 0.8) * dx


def gaussian_log_delta_upper(eps: float, mu: float) -> float:
    """An upper bound on the exact ln δ_G(ε; μ) at these float arguments (Balle & Wang 2018, Thm 8): never too low.

    Evaluates the formula of :func:`gaussian_log_delta_scalar` with a bound on every rounding: of a = μ/2 − ε/μ and
    b = a − μ, of ``log_ndtr`` and ``erfcx`` (their measured accuracy, with room), and of the gap g in
    δ = Φ(a)(1 − e^g), taken on its far side because ln(1 − e^g) is ill-conditioned near g = 0 (small ε).
    −inf only where δ = 0 in any precision (a = −inf).
    """
    a = mu / 2 - eps / mu
    b = a - mu
    da = 2 * U * (abs(eps / mu) + abs(a))  # two roundings (μ/2 is exact)
    db = da + U * abs(b)
    la = float(special.log_ndtr(a))
    if la == -math.inf:
        return -math.inf
    e_la = _log_ndtr_err(a, la, da)
    if a < 0:
        xb, xa = -b / _SQRT2, -a / _SQRT2
        gap = math.log(float(special.erfcx(xb)) / float(special.erfcx(xa)))
        # erfcx's round-off and a division, then the arguments' (|d ln erfcx(x)/dx| ≤ 2/√π for x ≥ 0; /√2 rounds)
        e_gap = (2 * _ERFCX_ULPS + 2) * U + U * abs(gap) + 1.2 * (da + db + 2 * U * (abs(xa) + abs(xb)))
    else:
        lb = float(special.log_ndtr(b))
        gap = eps + lb - la
        e_gap = _log_ndtr_err(b, lb, db) + e_la + 2 * U * (abs(eps) + abs(lb) + abs(la))
    low = gap - e_gap  # ln(1 − e^g) decreases in g: the far side of the gap's bound gives the largest δ
    if not low < 0:  # the gap's sign is lost in round-off (never seen): 1 − e^g ≤ 1 − e^{−2·bound}
        low = -2.0 * max(e_gap, U)
    tail = math.log(-math.expm1(low))
    # expm1 and log round too, and so do the two additions (a few U of the magnitudes involved)
    top = la + e_la + tail + 4 * U * (abs(la) + abs(tail) + 1.0)
    if a >= 0 >= b:  # the noise interval straddles 0 (ε ≤ μ²/2): a second bound, well conditioned at tiny μ
        top = min(top, _straddle_upper(eps, a, b, da, db))
    return min(top, 0.0)


def _straddle_upper(eps: float, a: float, b: float, da: float, db: float) -> float:
    """Upper bound on ln δ_G where a ≥ 0 ≥ b, from δ = [Φ(a) − Φ(b)] − (e^ε − 1)Φ(b): the first term is
    ½[erf(a/√2) + erf(−b/√2)], a sum of two positive numbers erf computes to a few U, so it stays accurate where
    Φ(a)(1 − e^g) loses every digit (ε = 0 and δ ≈ 1e-20 need μ ≈ 2.5e-20). inf when it gives nothing."""
    if eps > 700:  # e^ε − 1 beyond the float range: this bound is of no use there
        return math.inf
    d1 = 0.5 * (float(special.erf(a / _SQRT2)) + float(special.erf(-b / _SQRT2)))
    d1_hi = d1 * (1 + (_ERF_ULPS + 4) * U) + _PHI_MAX * (da + db + 2 * U * (abs(a) + abs(b)))
    t2 = math.expm1(eps) * float(special.ndtr(b))
    t2_lo = t2 * (1 - 8 * U)  # expm1, ndtr (b ∈ [−∞, 0]: a few U), the product
    val = d1_hi - t2_lo
    if not val > 0:
        return math.inf
    return math.log(val) + 4 * U * (abs(math.log(val)) + 1.0) + 4 * U * (d1_hi + t2_lo) / val


def gaussian_log_delta_bound(eps: float, mu: float) -> tuple[float, float]:
    """``(ln δ_G(ε; μ), bound)``: :func:`gaussian_log_delta_scalar` and how far above it the exact value may lie
    (:func:`gaussian_log_delta_upper` minus the value; ``inf`` when the value is −inf but δ > 0)."""
    value = gaussian_log_delta_scalar(eps, mu)
    top = gaussian_log_delta_upper(eps, mu)
    if top == -math.inf:
        return value, 0.0
    return value, (top - value if value > -math.inf else math.inf)


def _log_ndtr_err_arr(x: np.ndarray, value: np.ndarray, dx: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        own = np.where(value == 0, 0.0, (_LOG_NDTR_ULPS + np.where(x > 0, 2.0 * x * x, 0.0)) * U * np.abs(value))
        return own + np.where(x < 0, np.abs(x) + 2.0, 0.8) * dx


def _gaussian_log_delta_upper_finite(e: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Array version of :func:`gaussian_log_delta_upper` (same bound) for finite ε and μ > 0."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a = m / 2 - e / m
        b = a - m
        da = 2 * U * (np.abs(e / m) + np.abs(a))
        db = da + U * np.abs(b)
        la = special.log_ndtr(a)
        e_la = _log_ndtr_err_arr(a, la, da)
        xb, xa = -b / _SQRT2, -a / _SQRT2
        gap_neg = np.log(special.erfcx(xb) / special.erfcx(xa))
        e_neg = (2 * _ERFCX_ULPS + 2) * U + U * np.abs(gap_neg) + 1.2 * (da + db + 2 * U * (np.abs(xa) + np.abs(xb)))
        lb = special.log_ndtr(b)
        gap_pos = e + lb - la
        e_pos = _log_ndtr_err_arr(b, lb, db) + e_la + 2 * U * (np.abs(e) + np.abs(lb) + np.abs(la))
        neg = a < 0
        gap = np.where(neg, gap_neg, gap_pos)
        e_gap = np.where(neg, e_neg, e_pos)
        low = gap - e_gap
        low = np.where(low < 0, low, -2.0 * np.maximum(e_gap, U))
        tail = np.log(-np.expm1(low))
        top = la + e_la + tail + 4 * U * (np.abs(la) + np.abs(tail) + 1.0)
        straddle = (a >= 0) & (b <= 0)
        if straddle.any():  # the second bound of :func:`_straddle_upper`
            d1 = 0.5 * (special.erf(a / _SQRT2) + special.erf(-b / _SQRT2))
            d1_hi = d1 * (1 + (_ERF_ULPS + 4) * U) + _PHI_MAX * (da + db + 2 * U * (np.abs(a) + np.abs(b)))
            t2_lo = np.expm1(e) * special.ndtr(b) * (1 - 8 * U)
            val = d1_hi - t2_lo
            lv = np.log(np.where(val > 0, val, 1.0))
            alt = lv + 4 * U * (np.abs(lv) + 1.0) + 4 * U * (d1_hi + t2_lo) / np.where(val > 0, val, 1.0)
            top = np.where(straddle & (val > 0), np.minimum(top, alt), top)
        return np.where(la == -np.inf, -np.inf, np.minimum(top, 0.0))


def _every_real_epsilon(
    log_delta_finite: Callable[[np.ndarray, np.ndarray], np.ndarray], eps: FloatOrArray, mu: FloatOrArray
) -> np.ndarray:
    """``log_delta_finite`` (ln δ at finite ε) broadcast over arrays and extended to ε = ±inf: ln 1 and ln 0."""
    eps, mu = np.broadcast_arrays(np.asarray(eps, float), np.asarray(mu, float))
    out = np.empty(eps.shape)
    out[eps == np.inf] = -np.inf
    out[eps == -np.inf] = 0.0
    fin = np.isfinite(eps)
    out[fin] = log_delta_finite(eps[fin], mu[fin])
    return out


def gaussian_log_delta_upper_array(eps: FloatOrArray, mu: FloatOrArray) -> np.ndarray:
    """:func:`gaussian_log_delta_upper` for arrays, every real ε including ±inf (δ(−inf) = 1, δ(+inf) = 0)."""
    return _every_real_epsilon(_gaussian_log_delta_upper_finite, eps, mu)


def gaussian_log_delta(eps: FloatOrArray, mu: FloatOrArray) -> np.ndarray:
    """ln δ_G(ε) for arrays, every real ε including ±inf (δ(−inf) = 1, δ(+inf) = 0)."""
    return _every_real_epsilon(_gaussian_log_delta_finite, eps, mu)


def gaussian_delta(
    epsilon: FloatOrArray, *, sigma: float, sensitivity: float = 1.0, compositions: int = 1
) -> FloatOrArray:
    """Exact privacy profile δ(ε) of the Gaussian mechanism N(0, σ²), composed ``compositions`` times.

    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) with μ = √T·Δ/σ (Balle & Wang 2018, Thm 8; T Gaussian releases compose to
    one with sensitivity √T·Δ); valid for every real ε including negative values and ±inf (δ(−inf) = 1,
    δ(+inf) = 0). Vectorised over ε. Rounded up: never below the exact δ (within ~1e-15 relative of it where δ is not
    tiny against Φ(μ/2 − ε/μ)).
    """
    eps = _v.real_array("epsilon", epsilon)
    s = _v.scale("sigma", sigma)
    d = _v.scale("sensitivity", sensitivity)
    t = _v.integer("compositions", compositions, low=1)
    # δ increases with μ: μ = √T·Δ/σ taken at or above its exact value (exactly the next float up at T = 1)
    mu = div_up(d, s) if t == 1 else up(math.sqrt(t) * d / s, 4)
    upper = gaussian_log_delta_upper_array(eps, np.float64(mu))
    with np.errstate(over="ignore", under="ignore"):
        out = np.minimum(np.asarray(up(np.exp(upper), 2), dtype=float), 1.0)  # never too low, never above 1
    # a positive δ below the smallest float reads as that float, not 0 (0 only where δ is exactly 0: ε = +inf)
    return _out(np.where((out == 0) & (upper > -np.inf), 5e-324, out))


def gaussian_sigma(epsilon: float, delta: float, *, sensitivity: float = 1.0, method: str = "analytic") -> float:
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
        return up(d * math.sqrt(2.0 * (math.log(1.25) - math.log(dl))) / e, 8)  # never too small
    e = _v.bounded("epsilon", epsilon, low=0.0, cap=MAX_CALIBRATION_EPSILON)
    return frac_up(Fraction(d) / Fraction(analytic_mu(e, dl)))  # σ ≥ Δ/μ exactly: Δ/σ never exceeds μ


def _log_low(delta: float) -> float:
    """ln δ taken a rounding low (``math.log`` is within one ulp) and 8 U lower still: never above the exact
    logarithm, with room for the exp and the rounding up of :func:`gaussian_delta` at the σ it gives."""
    ld = math.log(delta)
    return ld - 2 * U * abs(ld) - 8 * U


def analytic_mu(eps: float, delta: float) -> float:
    """μ = Δ/σ of the analytic Gaussian: the largest μ with δ_G(ε; μ) ≤ δ (δ_G increases with μ).

    ``brentq`` on the scalar core from the classic μ = ε/√(2 ln(1.25/δ)) as first guess; the root is then nudged to
    the sound side so that the exact δ_G(ε; μ) ≤ δ: the upper bound of ln δ_G (:func:`gaussian_log_delta_upper`)
    stays at or below ln δ (itself taken a rounding low).
    """
    if eps > MAX_CALIBRATION_EPSILON:  # also guards callers in other modules (BR-DP's kernel calibration)
        raise ValueError(f"epsilon must be in [0, {MAX_CALIBRATION_EPSILON:g}] for Gaussian calibration, got {eps!r}")
    log_target = _log_low(delta)

    def f(mu: float) -> float:
        return gaussian_log_delta_upper(eps, mu) - log_target

    hi = max(eps, 1e-3) / math.sqrt(2.0 * (math.log(1.25) - log_target))
    while f(hi) <= 0:
        hi *= 2.0
    lo = hi / 2.0
    while f(lo) > 0:
        lo /= 2.0
    mu = optimize.brentq(f, lo, hi, xtol=max(lo * 1e-16, 5e-324), rtol=4 * np.finfo(float).eps, maxiter=200)
    step = U
    while f(mu) > 0:  # down to the sound side, in steps that double (the bound is not monotone to the last ulp)
        mu = min(float(np.nextafter(mu, 0.0)), mu * (1 - step))
        step *= 2
    return mu


#: Up to this many (δ, T) pairs, :func:`gaussian_epsilon` finds each root with scalar ``brentq``.
_SCALAR_ROOTS = 8


def _scalar_root(lo: float, hi: float, mu: float, log_d: float) -> float:
    """The ε in [lo, hi] with ln δ_G(ε; μ) = log_d, to 1e-13 absolute / 1e-14 relative, on the sound side.

    Same tolerances and the same guarantee as the vectorised path of :func:`gaussian_epsilon`: the returned ε has
    exact δ_G(ε) ≤ δ (its upper bound holds; δ_G decreases in ε, so the root is moved up until it does).
    """

    def f(e: float) -> float:
        return gaussian_log_delta_upper(e, mu) - log_d

    f_lo, f_hi = f(float(lo)), f(float(hi))
    if f_hi == 0:
        return float(hi)
    if not (f_hi < 0 <= f_lo):  # not a bracket (never seen): the caller falls back to the vectorised search
        return math.nan
    x = optimize.brentq(f, float(lo), float(hi), xtol=1e-13, rtol=1e-14, maxiter=500)
    step = 1e-13 + 1e-14 * abs(x)
    while f(x) > 0 and x < hi:  # up to the sound side, in steps that double
        x = min(x + step, float(hi))
        step *= 2
    return x if f(x) <= 0 else math.nan


def gaussian_epsilon(
    delta: FloatOrArray, *, sigma: float, sensitivity: float = 1.0, compositions: int | np.ndarray = 1
) -> FloatOrArray:
    """Smallest ε with δ_G(ε) ≤ δ for T-fold Gaussian composition; vectorised over δ and T.

    Inverts the closed form of :func:`gaussian_delta` with Chandrupatla's bracketing root finder
    (``scipy.optimize.elementwise.find_root``), so a whole composition curve T = 1..1000 costs milliseconds.
    δ = 1 gives −inf; δ = 0 gives +inf. Never too low: the exact δ_G at the returned ε is ≤ δ (the root of the
    upper bound of ln δ_G, with μ taken a rounding high and ln δ a rounding low).
    """
    dl = _v.real_array("delta", delta, low=0.0, high=1.0)
    s = _v.scale("sigma", sigma)
    d = _v.scale("sensitivity", sensitivity)
    t_arr = np.asarray(compositions)
    if (
        t_arr.size == 0
        or t_arr.dtype.kind not in "iuf"
        or not np.all(np.isfinite(t_arr))
        or np.any(t_arr != np.round(t_arr))
    ):
        raise ValueError(f"compositions must be integers in [1, inf], got {compositions!r}")
    if np.any(t_arr < 1):
        raise ValueError(f"compositions must be integers in [1, inf], got {compositions!r}")
    mu = up(np.sqrt(t_arr.astype(float)) * d / s, 4)  # δ_G increases with μ
    dl, mu = np.broadcast_arrays(dl, mu)
    out = np.full(dl.shape, np.nan)
    out[dl == 0] = np.inf
    out[dl == 1] = -np.inf
    inner = (dl > 0) & (dl < 1)
    if inner.any():
        dd, mm = dl[inner], mu[inner]
        log_d = np.log(dd) - 2 * U * np.abs(np.log(dd))  # ln δ taken a rounding low
        at_zero = gaussian_log_delta(np.zeros_like(mm), mm)
        positive = log_d < at_zero
        z = -special.ndtri(dd)
        lo = np.where(positive, 0.0, np.log1p(-dd))
        with np.errstate(over="ignore"):  # μ > ~1e154: the root ε ≈ μ²/2 exceeds the float range, reported as +inf
            # δ_G(ε) ≤ Φ(μ/2 − ε/μ) ≤ δ from ε = μ²/2 + μz on (Balle & Wang 2018): a sound ε in any precision, taken
            # a rounding high; the answer when the round-off of the closed form hides the root (μ beyond ~1e7)
            hi = np.where(positive, up(mm**2 / 2 + mm * np.maximum(z, 0.0), 8) + 1.0, 0.0)
        huge = ~np.isfinite(hi)
        hi = np.where(huge, 0.0, hi)
        lo = np.where(huge, -1.0, lo)

        def f(e: np.ndarray, mu_: np.ndarray, ld: np.ndarray) -> np.ndarray:
            return gaussian_log_delta_upper_array(e, mu_) - ld

        if mm.size <= _SCALAR_ROOTS:  # a few roots: plain brentq (find_root's set-up costs more than a few of them)
            roots = np.array(
                [
                    np.inf if h else _scalar_root(a, b, m, ld)
                    for a, b, m, ld, h in zip(lo, hi, mm, log_d, huge, strict=True)
                ]
            )
            out[inner] = np.where(np.isnan(roots), hi, roots)  # no bracket found: the sound upper end
            return _out(out)
        res = elementwise.find_root(f, (lo, hi), args=(mm, log_d), tolerances={"xatol": 1e-13, "xrtol": 1e-14})
        # Report the bracket's upper end (δ there ≤ target): a sound, never-optimistic ε.
        x = np.where(f(res.x, mm, log_d) <= 0, res.x, res.bracket[1])
        for i in np.flatnonzero(~huge & ~(f(x, mm, log_d) <= 0)):  # the bound is not monotone to the last ulp
            r = _scalar_root(lo[i], hi[i], mm[i], log_d[i])
            x[i] = hi[i] if math.isnan(r) else r  # no root of the bound: the bracket's sound upper end
        out[inner] = np.where(huge, np.inf, x)
    return _out(out)


def gaussian_rho(sigma: float, *, sensitivity: float = 1.0) -> float:
    """zCDP parameter ρ = Δ²/(2σ²) of the Gaussian mechanism (Bun & Steinke 2016, Prop. 1.6)."""
    s = _v.scale("sigma", sigma)
    d = _v.scale("sensitivity", sensitivity)
    # Δ, σ ∈ [1e-100, 1e100]: no 0 denominator; exact, rounded up (ρ beyond the float range reads as +inf)
    rho = (Fraction(d) / Fraction(s)) ** 2 / 2
    return frac_up(rho) if rho < Fraction(1.7e308) else math.inf
