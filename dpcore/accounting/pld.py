"""Privacy-loss distributions (PLDs): fast δ(ε) profiles, their inversion, and T-fold self-composition.

A PLD is the law of the privacy loss L = ln(p(Y)/q(Y)), Y ~ P, rounded to a grid of width h. Its profile is
δ(ε) = P(L = ∞) + E[(1 − e^{ε − L})₊] and T-fold composition is a T-fold convolution (Koskela, Jälkö &
Honkela 2020; Doroshenko et al. 2022). The PLD objects are Google's ``dp_accounting`` ones; this module adds
vectorised profiles (:func:`pld_profile`), a closed-form inverse (:func:`invert_profile`) and a faster
self-composition (:func:`self_compose`) with identical results, plus constructors so that the paper modules never
import ``dp_accounting`` themselves.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import fft as _fft
from scipy import optimize

from dpcore import _validate as _v
from dpcore.accounting._dp_accounting import PrivacyLossDistribution
from dpcore.accounting._dp_accounting import common as _common
from dpcore.accounting._dp_accounting import pld as _pld
from dpcore.accounting._dp_accounting import pld_pmf as _pld_pmf
from dpcore.accounting._util import FloatOrArray
from dpcore.accounting._util import out_value as _out

__all__ = [
    "MAX_PLD_COMPOSITIONS",
    "PLD_DISCRETIZATION",
    "PrivacyLossDistribution",
    "epsilon_for_delta",
    "invert_profile",
    "pld_delta",
    "pld_from_dense_pmf",
    "pld_from_epsilon_delta",
    "pld_gaussian",
    "pld_laplace",
    "pld_profile",
    "self_compose",
]

#: Default width of the privacy-loss grid of generic PLD composition (:func:`pld_delta`, the ledger). The Laplace
#: accountant chooses its own grid from ε₀ and T (:func:`dpcore.accounting.laplace.laplace_discretization`).
PLD_DISCRETIZATION = 1e-3
#: Largest T composed through a PLD: the composed pmf grows like √T·ε₀/h grid points.
MAX_PLD_COMPOSITIONS = 10_000


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
    pmf: Any = getattr(pld, "_pmf_remove", None)
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

    fast.arrays = (losses, mass_above, log_weighted, m_inf)  # type: ignore[attr-defined]  # for invert_profile
    return fast


def invert_profile(profile: Callable[[np.ndarray], np.ndarray], delta: float, low: float, high: float) -> float | None:
    """Smallest ε in (low, high) with profile(ε) ≤ δ, read off the PLD profile's arrays in closed form; None if not
    there.

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


def self_compose(
    pld: _pld.PrivacyLossDistribution, num_times: int, tail_mass_truncation: float = 1e-15
) -> _pld.PrivacyLossDistribution:
    """``pld.self_compose(num_times)`` with the same result, faster for dense symmetric PLDs.

    ``dp_accounting`` (common.self_convolve) truncates the T-fold pmf to a window from Chernoff bounds at 40 orders,
    each a separate ``scipy.special.logsumexp`` call (most of the cost of a Laplace composition,
    bench/results-where-time-goes.md);
    here the 40 log-MGFs are one vectorised log-sum-exp, then the same FFT power, window and infinity mass follow
    (dp_accounting/pld/common.py::compute_self_convolve_bounds, self_convolve; pld_pmf.DensePLDPmf.self_compose).
    Other PLDs fall back to the library method.
    """
    pmf: Any = getattr(pld, "_pmf_remove", None)
    if (
        isinstance(pmf, _pld_pmf.SparsePLDPmf)
        and num_times > 1
        and pmf.size > 1
        and num_times * math.log(pmf.size) > math.log(_pld_pmf._MAX_PMF_SPARSE_SIZE)
    ):  # noqa: SLF001
        pmf = _dense_pmf(pmf)  # what the library does before composing a large sparse pmf
    if (
        not (getattr(pld, "_symmetric", False) and isinstance(pmf, _pld_pmf.DensePLDPmf))
        or num_times <= 1
        or tail_mass_truncation <= 0
    ):
        return pld.self_compose(num_times, tail_mass_truncation)
    probs = np.asarray(pmf._probs, dtype=float)  # noqa: SLF001
    n = probs.size
    upper, lower = (n - 1) * num_times, 0
    orders = _CHERNOFF_ORDERS / n
    log_mgf = _chernoff_log_mgf(pmf)  # depends on the pmf only, not on T: one per cached single-release PLD
    with np.errstate(divide="ignore", invalid="ignore"):
        bounds = (num_times * log_mgf + math.log(2 / tail_mass_truncation)) / orders
    for order, bound in zip(orders, bounds, strict=True):
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
    composed = _pld_pmf.DensePLDPmf(
        pmf._discretization,
        pmf._lower_loss * num_times + lower,
        out,  # noqa: SLF001
        inf_prob,
        pmf._pessimistic_estimate,
    )  # noqa: SLF001
    return _pld.PrivacyLossDistribution(composed)


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
        pld = self_compose(pld, t)
    top = (uniq.max() * h) * t  # no finite loss exceeds this: δ = P(L = inf) there (dp_accounting overflows)
    out = np.full(eps.shape, 1.0 - (1.0 - inf_m) ** t)
    inside = eps < top
    if inside.any():
        out[inside] = pld_profile(pld)(eps[inside])
    return _out(out)


def pld_from_dense_pmf(
    discretization: float, lower_loss: int, probs: np.ndarray, infinity_mass: float, *, pessimistic: bool = True
) -> _pld.PrivacyLossDistribution:
    """A symmetric PLD from a dense PMF on the loss grid ``(lower_loss + i)·discretization`` (remove = add)."""
    pmf = _pld_pmf.DensePLDPmf(
        discretization=discretization,
        lower_loss=int(lower_loss),
        probs=np.asarray(probs, dtype=float),
        infinity_mass=float(infinity_mass),
        pessimistic_estimate=pessimistic,
    )
    return _pld.PrivacyLossDistribution(pmf)


def pld_gaussian(
    sigma: float, *, sensitivity: float = 1.0, discretization: float = PLD_DISCRETIZATION
) -> _pld.PrivacyLossDistribution:
    """PLD of one Gaussian release with noise σ (pessimistic, dp_accounting)."""
    return _pld.from_gaussian_mechanism(sigma, sensitivity=sensitivity, value_discretization_interval=discretization)


def pld_laplace(
    scale: float, *, sensitivity: float = 1.0, discretization: float = PLD_DISCRETIZATION
) -> _pld.PrivacyLossDistribution:
    """PLD of one Laplace release with scale b (pessimistic, dp_accounting)."""
    return _pld.from_laplace_mechanism(scale, sensitivity=sensitivity, value_discretization_interval=discretization)


def pld_from_epsilon_delta(
    epsilon: float, delta: float, *, discretization: float = PLD_DISCRETIZATION
) -> _pld.PrivacyLossDistribution:
    """The worst PLD of any (ε, δ)-DP mechanism (dp_accounting's ``from_privacy_parameters``)."""
    return _pld.from_privacy_parameters(
        _common.DifferentialPrivacyParameters(epsilon, delta), value_discretization_interval=discretization
    )
