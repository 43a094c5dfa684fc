"""Calibration, privacy profiles δ(ε), composition and conversions for the Gaussian and Laplace mechanisms.

These are the sound accountants every paper page compares against:

* Gaussian calibration, analytic (Balle & Wang 2018, Thm 8) and classic (Dwork & Roth 2014, Thm A.1);
  spec brdp.md §4.2.
* Laplace calibration with the tight ε′ = ε − 2 ln(1 − δ) (spec brdp.md §4.2).
* Exact privacy profiles δ(ε) for every real ε, negative and ±inf included (spec brdp.md §4.3).
* T-fold composition: Gaussian in closed form (T Gaussians with sensitivity Δ = one with √T·Δ, spec brdp.md §6.4);
  Laplace and any other privacy-loss distribution through ``dp_accounting`` PLDs.
* zCDP ↔ (ε, δ): ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3) and its exact inverse.

PLD discretisation
------------------
``dp_accounting`` rounds privacy losses to a grid of width ``h`` (pessimistically, with connect-the-dots).
:data:`PLD_DISCRETIZATION` = 1e-3 keeps δ(ε) within 1e-6 absolute of a fine (h = 2e-5) PLD for Laplace
ε₀ = Δ/b ∈ [0.1, 5] and T ≤ 1000 (largest gap measured: 5.1e-7 at ε₀ = 0.1, T = 1000; the gap grows roughly
like h²·√T); ``tests/crossval/test_accounting_pld.py`` checks this. It costs ≤ 50 ms for T = 1000.
Outside [−Tε₀, Tε₀] the profile is exact in closed form (δ = 0 above, 1 − e^ε below), so no grid is needed there.

Speed: the Laplace PLD and its T-fold composition are ``dp_accounting``'s own algorithms (pessimistic
connect-the-dots, FFT power with Chernoff truncation) with their Python loops vectorised (:class:`_LaplaceLoss`,
:func:`_laplace_single_pld`, :func:`_self_compose`): the pmfs are identical bit for bit to
``from_laplace_mechanism(...).self_compose(T)``, 5–10× faster; ε(δ) is read off the profile in closed form
(:func:`_invert_profile`) instead of by ``brentq``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from dp_accounting.pld import pld_pmf as _pld_pmf
from dp_accounting.pld import privacy_loss_distribution as _pld
from dp_accounting.pld import privacy_loss_mechanism as _plm
from scipy import fft as _fft
from scipy import optimize, special
from scipy.optimize import elementwise

from dpcore import _validate as _v

__all__ = [
    "PLD_DISCRETIZATION",
    "gaussian_sigma",
    "laplace_scale",
    "gaussian_delta",
    "laplace_delta",
    "gaussian_epsilon",
    "laplace_epsilon",
    "epsilon_for_delta",
    "pld_delta",
    "pld_profile",
    "zcdp_to_dp",
    "dp_to_zcdp",
    "gaussian_rho",
    "posterior_bound",
]

#: Width of the privacy-loss grid used for PLD composition (see module docstring).
PLD_DISCRETIZATION = 1e-3
#: Largest T composed through a PLD (Laplace, :func:`pld_delta`): the composed pmf grows like √T·ε₀/h grid points
#: (the app uses T ≤ 1000). The Gaussian closed form takes any T.
MAX_PLD_COMPOSITIONS = 10_000
#: Largest finite ε for Gaussian calibration: beyond ~1e70 the root μ ≈ √(2ε) is lost to rounding in δ_G(ε; μ).
MAX_CALIBRATION_EPSILON = 1e50

FloatOrArray = float | np.ndarray
_SQRT2 = math.sqrt(2.0)


def _out(arr: np.ndarray) -> FloatOrArray:
    """Return a Python float for 0-d results, the array otherwise."""
    return float(arr) if arr.ndim == 0 else arr


# --------------------------------------------------------------------------------------------------------------
# Gaussian
# --------------------------------------------------------------------------------------------------------------


def _gaussian_log_delta_scalar(eps: float, mu: float) -> float:
    """ln δ_G(ε; μ) for finite float ε and μ > 0 (Balle & Wang 2018, Thm 8), without cancellation in the tails.

    ln δ = ln Φ(a) + ln(−expm1(g)) with g = ε + ln Φ(b) − ln Φ(a), a = μ/2 − ε/μ, b = a − μ. For a < 0,
    g = ln[erfcx(−b/√2) / erfcx(−a/√2)]: with Φ(x) = ½e^{−x²/2} erfcx(−x/√2) and b² − a² = 2ε the ε terms cancel
    exactly, which keeps full relative precision for δ down to 1e-300 even when μ is small. Plain-float code
    (about 1 µs): calibration and BR-DP's Alg. 1/2 call it thousands of times.
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
    """Array version of :func:`_gaussian_log_delta_scalar` (same formula) for finite ε and μ > 0."""
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


def _gaussian_log_delta(eps: np.ndarray, mu: np.ndarray) -> np.ndarray:
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

    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) with μ = √T·Δ/σ (spec brdp.md §4.3 and §6.4); valid for every
    real ε including negative values and ±inf (δ(−inf) = 1, δ(+inf) = 0). Vectorised over ε.
    """
    eps = _v.real_array("epsilon", epsilon)
    s = _v.scale("sigma", sigma)
    d = _v.scale("sensitivity", sensitivity)
    t = _v.integer("compositions", compositions, low=1)
    mu = math.sqrt(t) * d / s
    return _out(np.exp(_gaussian_log_delta(eps, np.float64(mu))))


def gaussian_sigma(
    epsilon: float, delta: float, *, sensitivity: float = 1.0, method: str = "analytic"
) -> float:
    """Noise scale σ of a Gaussian mechanism that is (ε, δ)-DP for sensitivity Δ.

    ``"analytic"`` (default): the smallest σ with δ_G(ε; σ, Δ) ≤ δ (Balle & Wang 2018; spec brdp.md §4.2), found
    by ``brentq`` on μ = Δ/σ (:func:`_analytic_mu`); valid for every ε ≥ 0. ``"classic"``: σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth, Thm A.1),
    proven only for ε < 1 and always larger than the analytic σ.
    """
    m = _v.choice("method", method, ("analytic", "classic"))
    d = _v.scale("sensitivity", sensitivity)
    dl = _v.probability("delta", delta, low_open=True, high_open=True)
    if m == "classic":
        e = _v.bounded("epsilon", epsilon, low=0.0, low_open=True, cap=MAX_CALIBRATION_EPSILON)
        return d * math.sqrt(2.0 * (math.log(1.25) - math.log(dl))) / e
    e = _v.bounded("epsilon", epsilon, low=0.0, cap=MAX_CALIBRATION_EPSILON)
    return d / _analytic_mu(e, dl)


def _analytic_mu(eps: float, delta: float) -> float:
    """μ = Δ/σ of the analytic Gaussian: the largest μ with δ_G(ε; μ) ≤ δ (δ_G increases with μ).

    ``brentq`` on the scalar core from the classic μ = ε/√(2 ln(1.25/δ)) as first guess (tens of µs); the root is
    then nudged to the sound side so that δ_G(ε; μ) ≤ δ holds exactly in floating point.
    """
    if eps > MAX_CALIBRATION_EPSILON:  # also guards callers in other modules (BR-DP's kernel calibration)
        raise ValueError(f"epsilon must be in [0, {MAX_CALIBRATION_EPSILON:g}] for Gaussian calibration, got {eps!r}")
    log_target = math.log(delta)

    def f(mu: float) -> float:
        return _gaussian_log_delta_scalar(eps, mu) - log_target

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
        at_zero = _gaussian_log_delta(np.zeros_like(mm), mm)
        positive = log_d < at_zero
        z = -special.ndtri(dd)
        lo = np.where(positive, 0.0, np.log1p(-dd))
        with np.errstate(over="ignore"):  # μ > ~1e154: the root ε ≈ μ²/2 exceeds the float range, reported as +inf
            hi = np.where(positive, mm**2 / 2 + mm * np.maximum(z, 0.0) + 1.0, 0.0)
        huge = ~np.isfinite(hi)
        hi = np.where(huge, 0.0, hi)
        lo = np.where(huge, -1.0, lo)

        def f(e: np.ndarray, mu_: np.ndarray, ld: np.ndarray) -> np.ndarray:
            return _gaussian_log_delta(e, mu_) - ld

        res = elementwise.find_root(f, (lo, hi), args=(mm, log_d), tolerances={"xatol": 1e-13, "xrtol": 1e-14})
        # Report the bracket's upper end (δ there ≤ target): a sound, never-optimistic ε.
        out[inner] = np.where(huge, np.inf, np.where(f(res.x, mm, log_d) <= 0, res.x, res.bracket[1]))
    return _out(out)


def gaussian_rho(sigma: float, *, sensitivity: float = 1.0) -> float:
    """zCDP parameter ρ = Δ²/(2σ²) of the Gaussian mechanism (Bun & Steinke 2016, Prop. 1.6)."""
    s = _v.scale("sigma", sigma)
    d = _v.scale("sensitivity", sensitivity)
    return d * d / (2 * s * s)  # Δ, σ ∈ [1e-100, 1e100]: no 0 denominator; ρ beyond the float range reads as +inf


# --------------------------------------------------------------------------------------------------------------
# Laplace
# --------------------------------------------------------------------------------------------------------------


def laplace_scale(epsilon: float, *, sensitivity: float = 1.0, delta: float = 0.0) -> float:
    """Scale b = Δ/ε′ of a Laplace mechanism that is (ε, δ)-DP, with ε′ = ε − 2 ln(1 − δ).

    Laplace(b) is (ε, δ)-DP exactly when δ ≥ 1 − exp((ε − Δ/b)/2) (spec brdp.md §4.2), so δ > 0 buys the
    slightly larger "enhanced" ε′. δ = 0 gives the pure-DP scale Δ/ε.
    """
    e = _v.positive("epsilon", epsilon)
    d = _v.scale("sensitivity", sensitivity)
    dl = _v.probability("delta", delta, high_open=True)
    b = d / (e - 2.0 * math.log1p(-dl))
    if not _v.MIN_SCALE <= b <= _v.MAX_SCALE:
        raise ValueError(f"sensitivity/epsilon must give a scale in [{_v.MIN_SCALE:g}, {_v.MAX_SCALE:g}], "
                         f"got sensitivity={sensitivity!r}, epsilon={epsilon!r}")
    return b


def _laplace_delta_single(eps: np.ndarray, eps0: float) -> np.ndarray:
    """Closed form of spec brdp.md §4.3: 0 above ε₀, 1 − e^{(ε−ε₀)/2} on [−ε₀, ε₀), 1 − e^ε below −ε₀."""
    with np.errstate(over="ignore"):
        return np.where(
            eps >= eps0,
            0.0,
            np.where(eps >= -eps0, -np.expm1((np.minimum(eps, eps0) - eps0) / 2), -np.expm1(np.minimum(eps, 0))),
        )


def _log_suffix_sums(w: np.ndarray) -> np.ndarray:
    """ln Σ_{j ≥ k} e^{w_j} for every k: a scaled ``cumsum`` (fast), ``logaddexp.accumulate`` where that underflows.

    Suffix sums shrink to the right, so the entries within e^{-600} of the largest term form a right tail; only that
    tail needs the (≈10× slower) log-space accumulation.
    """
    if w.size == 0:
        return w
    top = float(np.max(w))
    with np.errstate(divide="ignore", under="ignore"):
        out = np.log(np.cumsum(np.exp(w - top)[::-1])[::-1]) + top
    bad = ~(out - top > -600.0)
    if bad.any():
        k0 = int(np.argmax(bad))
        out[k0:] = np.logaddexp.accumulate(w[k0:][::-1])[::-1]
    return out


def pld_profile(pld: _pld.PrivacyLossDistribution) -> Callable[[np.ndarray], np.ndarray]:
    """Fast vectorised δ(ε) of a symmetric ``dp_accounting`` PLD, for any order of ε.

    δ(ε) = m_∞ + Σ_{l > ε} p_l − e^ε Σ_{l > ε} p_l e^{−l}, with both sums precomputed as suffix sums (the second in
    log space) and located by ``searchsorted``: O(log n) per ε instead of ``get_delta_for_epsilon``'s O(n), and
    no requirement that ε be sorted. Reads the PLD's dense pmf (``dp_accounting`` internals); falls back to the
    public method for other PLDs.
    """
    pmf = getattr(pld, "_pmf_remove", None)
    probs = getattr(pmf, "_probs", None)
    if probs is None or not getattr(pld, "_symmetric", False):

        def slow(eps: np.ndarray) -> np.ndarray:
            e = np.asarray(eps, dtype=float)
            vals = [float(pld.get_delta_for_epsilon(float(x))) if x < np.inf else 0.0 for x in e.ravel()]
            return np.clip(np.array(vals).reshape(e.shape), 0.0, 1.0)

        return slow
    losses = (np.arange(len(probs)) + pmf._lower_loss) * pmf._discretization  # noqa: SLF001
    keep = probs > 0
    losses, probs = losses[keep], np.asarray(probs)[keep]
    m_inf = float(pmf._infinity_mass)  # noqa: SLF001
    mass_above = np.concatenate((np.cumsum(probs[::-1])[::-1], [0.0]))
    log_weighted = np.concatenate((_log_suffix_sums(np.log(probs) - losses), [-np.inf]))

    def fast(eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=float)
        k = np.searchsorted(losses, e, side="right")
        with np.errstate(all="ignore"):
            tail = mass_above[k] - np.exp(np.where(np.isneginf(e), -np.inf, e + log_weighted[k]))
        return np.clip(m_inf + np.maximum(np.nan_to_num(tail, nan=0.0), 0.0), 0.0, 1.0)

    fast.arrays = (losses, mass_above, log_weighted, m_inf)  # type: ignore[attr-defined]  (for _invert_profile)
    return fast


def _invert_profile(profile: Callable[[np.ndarray], np.ndarray], delta: float, low: float, high: float) -> float | None:
    """Smallest ε in (low, high) with profile(ε) ≤ δ, read off the PLD profile's arrays in closed form; None if not there.

    Between consecutive grid losses l_{j−1} ≤ ε < l_j the profile is m_∞ + A_j − e^{ε + W_j} (A_j, W_j the suffix
    sums of :func:`pld_profile`), so after locating the first grid loss where δ ≤ target (one vectorised pass) the
    root is ε = ln(m_∞ + A_j − δ) − W_j, then nudged up to the first float where the profile meets the target.
    Replaces ~40 scalar evaluations inside ``brentq``.
    """
    arrays = getattr(profile, "arrays", None)
    if arrays is None:
        return None
    losses, mass_above, log_weighted, m_inf = arrays
    if losses.size < 2:
        return None
    with np.errstate(all="ignore"):
        at_grid = m_inf + np.maximum(mass_above[1:] - np.exp(losses + log_weighted[1:]), 0.0)  # δ(l_j), l_j ∈ grid
    j = int(np.argmax(at_grid <= delta))
    if not at_grid[j] <= delta or j == 0:
        return None
    with np.errstate(all="ignore"):
        root = math.log(m_inf + mass_above[j] - delta) - log_weighted[j] if m_inf + mass_above[j] > delta else -math.inf
    e = min(max(root, float(losses[j - 1])), float(losses[j]))
    if not (low < e < high and math.isfinite(e)):
        return None
    for _ in range(64):
        if float(profile(np.array([e]))[0]) <= delta:
            break
        e = float(np.nextafter(e, math.inf)) if e < losses[j] else float(losses[j])
    else:
        return None
    # step back while the float just below also meets the target (the closed form may land a few ulps high)
    for _ in range(64):
        below = float(np.nextafter(e, -math.inf))
        if below <= losses[j - 1] or float(profile(np.array([below]))[0]) > delta:
            break
        e = below
    return e


_CHERNOFF_ORDERS = np.concatenate((np.arange(-20, 0), np.arange(1, 21))).astype(float)


@functools.lru_cache(maxsize=16)  # keyed on the pmf object (identity); small: BR-DP pmfs are large
def _dense_pmf(pmf: _pld_pmf.SparsePLDPmf) -> _pld_pmf.DensePLDPmf:
    """``pmf.to_dense_pmf()``, kept for the (cached) single-release PLDs that are composed at many T."""
    return pmf.to_dense_pmf()


@functools.lru_cache(maxsize=16)  # keyed on the pmf object (identity); small: BR-DP pmfs are large
def _chernoff_log_mgf(pmf: _pld_pmf.DensePLDPmf) -> np.ndarray:
    """ln E[e^{λK}] of the pmf's grid index K at dp_accounting's 40 Chernoff orders λ (one vectorised log-sum-exp)."""
    probs = np.asarray(pmf._probs, dtype=float)  # noqa: SLF001
    n = probs.size
    with np.errstate(divide="ignore"):
        log_p = np.log(probs)
    expo = np.outer(_CHERNOFF_ORDERS / n, np.arange(n)) + log_p
    top = np.max(expo, axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(np.sum(np.exp(expo - top), axis=1)) + top[:, 0]


def _self_compose(pld: _pld.PrivacyLossDistribution, num_times: int,
                  tail_mass_truncation: float = 1e-15) -> _pld.PrivacyLossDistribution:
    """``pld.self_compose(num_times)`` with the same result, several times faster for dense symmetric PLDs.

    ``dp_accounting`` (common.self_convolve) truncates the T-fold pmf to a window from Chernoff bounds at 40 orders,
    each a separate ``scipy.special.logsumexp`` call (~0.2 ms apiece, most of the cost of a Laplace composition);
    here the 40 log-MGFs are one vectorised log-sum-exp, then the same FFT power, window and infinity mass follow
    (dp_accounting/pld/common.py::compute_self_convolve_bounds, self_convolve; pld_pmf.DensePLDPmf.self_compose).
    Other PLDs fall back to the library method.
    """
    pmf = getattr(pld, "_pmf_remove", None)
    if isinstance(pmf, _pld_pmf.SparsePLDPmf) and num_times > 1 and pmf.size > 1 \
            and num_times * math.log(pmf.size) > math.log(_pld_pmf._MAX_PMF_SPARSE_SIZE):  # noqa: SLF001
        pmf = _dense_pmf(pmf)  # what the library does before composing a large sparse pmf
    if not (getattr(pld, "_symmetric", False) and isinstance(pmf, _pld_pmf.DensePLDPmf)) or num_times <= 1 \
            or tail_mass_truncation <= 0:
        return pld.self_compose(num_times, tail_mass_truncation)
    probs = np.asarray(pmf._probs, dtype=float)  # noqa: SLF001
    n = probs.size
    upper, lower = (n - 1) * num_times, 0
    orders = _CHERNOFF_ORDERS / n
    log_mgf = _chernoff_log_mgf(pmf)  # depends on the pmf only, not on T: one per cached single-release PLD
    with np.errstate(divide="ignore", invalid="ignore"):
        bounds = (num_times * log_mgf + math.log(2 / tail_mass_truncation)) / orders
    for order, bound in zip(orders, bounds):
        if not math.isfinite(bound):
            continue
        if order > 0:
            upper = min(upper, math.ceil(bound))
        else:
            lower = max(lower, math.floor(bound))
    out_len = upper - lower + 1
    fast_len = _fft.next_fast_len(max(out_len, n))
    conv = np.real(_fft.ifft(_fft.fft(probs, fast_len) ** num_times))
    out = np.roll(conv, -lower)[:out_len]
    inf_prob = tail_mass_truncation - math.expm1(num_times * math.log1p(-pmf._infinity_mass))  # noqa: SLF001
    composed = _pld_pmf.DensePLDPmf(pmf._discretization, pmf._lower_loss * num_times + lower, out,  # noqa: SLF001
                                    inf_prob, pmf._pessimistic_estimate)  # noqa: SLF001
    return _pld.PrivacyLossDistribution(composed)


@functools.lru_cache(maxsize=64)
def _laplace_pld(eps0: float, compositions: int, discretization: float) -> _pld.PrivacyLossDistribution:
    if compositions > 1:  # compose the cached single-release PLD (building it is the costly part)
        return _self_compose(_laplace_pld(eps0, 1, discretization), compositions)
    return _laplace_single_pld(1.0 / eps0, discretization)


class _LaplaceLoss(_plm.LaplacePrivacyLoss):
    """``dp_accounting``'s Laplace privacy loss with ``get_delta_for_epsilon`` vectorised over an ε array.

    The library maps ``inverse_privacy_loss`` over the connect-the-dots ε grid in a Python loop (2Δ/(b·h) calls,
    ~40 ms at ε₀ = 20, h = 1e-3); this evaluates the same piecewise inverse (x = −(Δ + εb)/2 on (−Δ/b, Δ/b], ±inf
    outside) and the same δ = μ_upper_cdf(x) − e^{ε + ln μ_lower_cdf(x)} on the whole array at once. Only the
    REMOVE, un-subsampled case is vectorised; anything else defers to the library.
    """

    def get_delta_for_epsilon(self, epsilon):  # type: ignore[override]
        if (self.sampling_prob != 1.0 or self.adjacency_type != _plm.AdjacencyType.REMOVE
                or np.ndim(epsilon) == 0):
            return super().get_delta_for_epsilon(epsilon)
        eps = np.asarray(epsilon, dtype=float)
        thr = eps * self._parameter
        x = np.where(thr > self.sensitivity, -np.inf,
                     np.where(thr <= -self.sensitivity, np.inf, 0.5 * (-self.sensitivity - thr)))
        with np.errstate(over="ignore", invalid="ignore"):
            deltas = self.mu_upper_cdf(x) - np.exp(eps + self.mu_lower_log_cdf(x))
        return np.clip(deltas, 0, 1)


def _laplace_single_pld(scale: float, discretization: float) -> _pld.PrivacyLossDistribution:
    """``_pld.from_laplace_mechanism(scale, value_discretization_interval=h)`` (pessimistic connect-the-dots, Δ = 1)."""
    build = getattr(_pld, "_create_pld_pmf_from_monotone_privacy_loss", None)
    if build is None:  # another dp_accounting version: use the public (slower) constructor
        return _pld.from_laplace_mechanism(scale, sensitivity=1.0, value_discretization_interval=discretization)
    loss = _LaplaceLoss(scale, sensitivity=1.0, sampling_prob=1.0, adjacency_type=_plm.AdjacencyType.REMOVE)
    h = discretization
    bounds = loss.connect_dots_bounds()
    lo, hi = math.floor(bounds.epsilon_lower / h), math.ceil(bounds.epsilon_upper / h)
    if hi - lo + 1 > _pld_pmf._MAX_PMF_SPARSE_SIZE:  # noqa: SLF001
        # Dense result: the library's connect-the-dots masses (pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap,
        # Doroshenko et al. 2022, Alg. 1) computed the same way, minus its int → float dict of every grid point.
        deltas = np.asarray(loss.get_delta_for_epsilon(np.arange(lo, hi + 1) * h), dtype=np.float64)
        if not np.any(np.diff(deltas) > 1e-12):
            deltas = np.minimum.accumulate(deltas)
            diffs = np.diff(deltas)
            probs = np.zeros_like(deltas)
            probs[0] = 1 - deltas[0] + diffs[0] / math.expm1(h)
            probs[1:-1] = (diffs[1:] - diffs[:-1] * math.exp(h)) / math.expm1(h)
            probs[-1] = diffs[-1] / math.expm1(-h)
            pmf = _pld_pmf.DensePLDPmf(h, lo, np.maximum(0.0, probs), deltas[-1], True)
            return _pld.PrivacyLossDistribution(pmf)
    return _pld.PrivacyLossDistribution(build(loss, pessimistic_estimate=True,
                                              value_discretization_interval=discretization, use_connect_dots=True))


@functools.lru_cache(maxsize=64)
def _laplace_profile(eps0: float, compositions: int, discretization: float) -> Callable[[np.ndarray], np.ndarray]:
    return pld_profile(_laplace_pld(eps0, compositions, discretization))


#: Largest ε₀ = Δ/b composed through a PLD: its grid holds 2ε₀/h points before composition.
MAX_PLD_EPSILON0 = 100.0


def _check_pld_eps0(eps0: float) -> None:
    if eps0 > MAX_PLD_EPSILON0:
        raise ValueError(f"sensitivity/scale must be in (0, {MAX_PLD_EPSILON0:g}] when compositions > 1, got {eps0:g}")


def laplace_delta(
    epsilon: FloatOrArray,
    *,
    scale: float,
    sensitivity: float = 1.0,
    compositions: int = 1,
    discretization: float = PLD_DISCRETIZATION,
) -> FloatOrArray:
    """Privacy profile δ(ε) of the Laplace mechanism Lap(b), composed ``compositions`` times.

    T = 1: exact closed form (spec brdp.md §4.3; note the 1 − e^ε branch below −Δ/b that the common
    max(0, 1 − e^{(ε−Δ/b)/2}) misses). T > 1: ``dp_accounting`` PLD (pessimistic, grid ``discretization``) for
    ε ∈ (−Tε₀, Tε₀), and the exact values 0 / 1 − e^ε outside. Valid for every real ε; vectorised over ε.
    """
    eps = _v.real_array("epsilon", epsilon)
    b = _v.scale("scale", scale)
    d = _v.scale("sensitivity", sensitivity)
    t = _v.integer("compositions", compositions, low=1, high=MAX_PLD_COMPOSITIONS)
    h = _v.real("discretization", discretization, low=1e-6, high=0.1)
    eps0 = d / b
    if t == 1:
        return _out(_laplace_delta_single(eps, eps0))
    _check_pld_eps0(eps0)
    total = t * eps0
    out = np.where(eps >= total, 0.0, 0.0)
    below = eps <= -total
    with np.errstate(over="ignore"):
        out = np.where(below, -np.expm1(np.minimum(eps, 0.0)), out)
    inside = (eps > -total) & (eps < total)
    if inside.any():
        out = out.astype(float)
        out[inside] = _laplace_profile(eps0, t, h)(eps[inside])
    return _out(np.asarray(out, dtype=float))


def laplace_epsilon(
    delta: float,
    *,
    scale: float,
    sensitivity: float = 1.0,
    compositions: int = 1,
    discretization: float = PLD_DISCRETIZATION,
) -> float:
    """Smallest ε with δ_L(ε) ≤ δ for T-fold Laplace composition (closed form at T = 1, PLD profile inverted beyond)."""
    dl = _v.probability("delta", delta)
    b = _v.scale("scale", scale)
    d = _v.scale("sensitivity", sensitivity)
    t = _v.integer("compositions", compositions, low=1, high=MAX_PLD_COMPOSITIONS)
    h = _v.real("discretization", discretization, low=1e-6, high=0.1)
    eps0 = d / b
    if dl >= 1.0:
        return -math.inf
    if t > 1:
        _check_pld_eps0(eps0)
    if t == 1:
        # invert §4.3: δ ≤ 1 − e^{−ε₀} on the middle branch, 1 − e^ε below −ε₀
        return eps0 + 2.0 * math.log1p(-dl) if dl <= -math.expm1(-eps0) else math.log1p(-dl)
    if dl == 0.0:
        return t * eps0
    # Invert our own profile: dp_accounting's get_epsilon_for_delta overflows at large ε and then over-reports
    # (by ~1 at ε₀ = 20, T = 1000, where its own δ(ε) already meets the target ~1 lower).
    profile = _laplace_profile(eps0, t, h)
    total = t * eps0
    direct = _invert_profile(profile, dl, -total, total)
    if direct is not None:
        return direct

    def delta_fn(e: float) -> float:
        if e >= total:
            return 0.0
        if e <= -total:
            return -math.expm1(e)
        return float(profile(np.array([e]))[0])

    return epsilon_for_delta(delta_fn, dl)


# --------------------------------------------------------------------------------------------------------------
# Generic
# --------------------------------------------------------------------------------------------------------------


def epsilon_for_delta(delta_fn: Callable[[float], float], delta: float) -> float:
    """Smallest ε with ``delta_fn(ε) ≤ δ`` for any non-increasing privacy profile (``brentq`` after bracketing).

    Returns +inf when even δ(+inf) > δ (e.g. a positive infinite-loss mass), −inf when δ ≥ δ(−inf).
    """
    if not callable(delta_fn):
        raise ValueError(f"delta_fn must be callable, got {delta_fn!r}")
    dl = _v.probability("delta", delta)

    def g(e: float) -> float:
        return float(delta_fn(e)) - dl

    if g(math.inf) > 0:
        return math.inf
    if g(-math.inf) <= 0:
        return -math.inf
    hi = 1.0
    while g(hi) > 0:
        hi *= 2.0
    lo = 0.0 if g(0.0) > 0 else -1.0
    while g(lo) <= 0:
        lo *= 2.0
    root = optimize.brentq(g, lo, hi, xtol=1e-12, rtol=1e-12)
    # the profile may be flat or jump at the root; return the sound side
    return root if g(root) <= 0 else hi if g(hi) <= 0 and hi - root < 1e-9 else float(np.nextafter(root, math.inf))


def pld_delta(
    epsilon: FloatOrArray,
    *,
    losses: np.ndarray,
    probabilities: np.ndarray,
    compositions: int = 1,
    infinity_mass: float = 0.0,
    discretization: float = PLD_DISCRETIZATION,
) -> FloatOrArray:
    """δ(ε) of the T-fold composition of any mechanism given its privacy-loss distribution as a pmf.

    ``losses`` (finite, any order) carry P-mass ``probabilities``; ``infinity_mass`` is P(loss = +inf). Losses are
    rounded **up** to the grid (pessimistic) and composed with ``dp_accounting``; this is the generic path used by
    the paper modules (e.g. BR-DP's exact composition). Vectorised over ε.
    """
    eps = _v.real_array("epsilon", epsilon)
    lo_ = _v.real_array("losses", losses, allow_inf=False).ravel()
    pr = _v.real_array("probabilities", probabilities, low=0.0, high=1.0).ravel()
    if lo_.shape != pr.shape:
        raise ValueError("losses and probabilities must have the same length")
    inf_m = _v.probability("infinity_mass", infinity_mass)
    t = _v.integer("compositions", compositions, low=1, high=MAX_PLD_COMPOSITIONS)
    h = _v.real("discretization", discretization, low=1e-6, high=0.1)
    if abs(pr.sum() + inf_m - 1.0) > 1e-6:
        raise ValueError(f"probabilities plus infinity_mass must sum to 1, got {pr.sum() + inf_m:.8g}")
    idx = np.ceil(lo_ / h - 1e-9).astype(np.int64)
    uniq, inv = np.unique(idx, return_inverse=True)
    mass = np.bincount(inv, weights=pr)
    pld = _pld.PrivacyLossDistribution.create_from_rounded_probability(
        dict(zip(uniq.tolist(), mass.tolist(), strict=True)), inf_m, h, pessimistic_estimate=True
    )
    if t > 1:
        pld = _self_compose(pld, t)
    top = (uniq.max() * h) * t  # no finite loss exceeds this: δ = P(L = inf) there (dp_accounting overflows)
    out = np.full(eps.shape, 1.0 - (1.0 - inf_m) ** t)
    inside = eps < top
    if inside.any():
        out[inside] = pld_profile(pld)(eps[inside])
    return _out(out)


# --------------------------------------------------------------------------------------------------------------
# zCDP
# --------------------------------------------------------------------------------------------------------------


def zcdp_to_dp(rho: FloatOrArray, delta: float) -> FloatOrArray:
    """ε = ρ + 2√(ρ ln(1/δ)): ρ-zCDP implies (ε, δ)-DP for every δ ∈ (0, 1) (Bun & Steinke 2016, Prop. 1.3)."""
    r = _v.real_array("rho", rho, low=0.0, allow_inf=False)
    dl = _v.probability("delta", delta, low_open=True, high_open=True)
    return _out(r + 2.0 * np.sqrt(r * math.log(1.0 / dl)))


def dp_to_zcdp(epsilon: FloatOrArray, delta: float) -> FloatOrArray:
    """Largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε, i.e. ρ = (√(ε + L) − √L)² with L = ln(1/δ) (inverse of zcdp_to_dp)."""
    e = _v.real_array("epsilon", epsilon, low=0.0, allow_inf=False)
    dl = _v.probability("delta", delta, low_open=True, high_open=True)
    big_l = math.log(1.0 / dl)
    # (√(ε+L) − √L)² = ε² / (√(ε+L) + √L)², free of cancellation for small ε
    root_sum = np.sqrt(e + big_l) + math.sqrt(big_l)
    with np.errstate(over="ignore"):  # ε² overflows beyond ~1e154: there square the (smaller) ratio instead
        return _out(np.where(e < 1e150, e**2 / root_sum**2, (e / root_sum) ** 2))


def posterior_bound(prior: FloatOrArray, epsilon: float) -> FloatOrArray:
    """Largest posterior an observer can reach from ``prior`` after seeing any output of an ε-DP mechanism.

    ε-DP bounds the likelihood ratio of any output by e^ε, so posterior odds ≤ e^ε · prior odds:
    p′ ≤ p e^ε / (p e^ε + 1 − p). Computed as a logistic function of log-odds for stability; vectorised over p.
    """
    p = _v.real_array("prior", prior, low=0.0, high=1.0)
    e = _v.nonnegative("epsilon", epsilon, allow_inf=True)
    with np.errstate(divide="ignore"):
        log_odds = np.log(p) - np.log1p(-p)
    return _out(special.expit(log_odds + e))


# --------------------------------------------------------------------------------------------------------------
# Building blocks other dpcore modules use (the paper modules never import dp_accounting themselves)
# --------------------------------------------------------------------------------------------------------------

gaussian_log_delta = _gaussian_log_delta  #: ln δ(ε) of a Gaussian with μ = Δ/σ, vectorised (Balle & Wang 2018, Thm 8)
gaussian_log_delta_scalar = _gaussian_log_delta_scalar  #: the same for one (ε, μ)
analytic_mu = _analytic_mu  #: largest μ = Δ/σ with δ_G(ε; μ) ≤ δ (analytic Gaussian calibration)
laplace_delta_single = _laplace_delta_single  #: exact δ(ε) of one Laplace release with ε₀ = Δ/b
self_compose = _self_compose  #: T-fold self-composition of a dp_accounting PLD (FFT for symmetric dense PMFs)
invert_profile = _invert_profile  #: smallest ε with profile(ε) ≤ δ on [low, high], or None


def pld_from_dense_pmf(discretization: float, lower_loss: int, probs: np.ndarray, infinity_mass: float,
                       *, pessimistic: bool = True) -> _pld.PrivacyLossDistribution:
    """A symmetric PLD from a dense PMF on the loss grid ``(lower_loss + i)·discretization`` (remove = add)."""
    pmf = _pld_pmf.DensePLDPmf(discretization=discretization, lower_loss=int(lower_loss),
                               probs=np.asarray(probs, dtype=float), infinity_mass=float(infinity_mass),
                               pessimistic_estimate=pessimistic)
    return _pld.PrivacyLossDistribution(pmf)


def pld_gaussian(sigma: float, *, sensitivity: float = 1.0, discretization: float = PLD_DISCRETIZATION
                 ) -> _pld.PrivacyLossDistribution:
    """PLD of one Gaussian release with noise σ (pessimistic, dp_accounting)."""
    return _pld.from_gaussian_mechanism(sigma, sensitivity=sensitivity, value_discretization_interval=discretization)


def pld_laplace(scale: float, *, sensitivity: float = 1.0, discretization: float = PLD_DISCRETIZATION
                ) -> _pld.PrivacyLossDistribution:
    """PLD of one Laplace release with scale b (pessimistic, dp_accounting)."""
    return _pld.from_laplace_mechanism(scale, sensitivity=sensitivity, value_discretization_interval=discretization)


def pld_from_epsilon_delta(epsilon: float, delta: float, *, discretization: float = PLD_DISCRETIZATION
                           ) -> _pld.PrivacyLossDistribution:
    """The worst PLD of any (ε, δ)-DP mechanism (dp_accounting's ``from_privacy_parameters``)."""
    from dp_accounting.pld import common

    return _pld.from_privacy_parameters(common.DifferentialPrivacyParameters(epsilon, delta),
                                        value_discretization_interval=discretization)
