"""Kernel primitives of BR-DP (Jiang et al. 2024, Sec. 3-4): CDF, density and tail masses of the Gaussian or
Laplace kernel, p_θ of Eq. (4), W of Eq. (7), the release probability 1 - p̄_θ q, and the kernel's privacy profile
δ_Z(ε) (closed forms from :mod:`dpcore.accounting`; T-fold Laplace by PLD or, as the paper does, by RDP).

Private and fast: the public functions of the package validate their arguments and call these.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from dpcore import _validate as _v
from dpcore import accounting as _acct
from dpcore.brdp._common import _SQRT2


def _cdf(kernel: str, x: Any, s: Any) -> np.ndarray:
    """Kernel CDF F_N(x) (vectorised)."""
    x = np.asarray(x, dtype=float)
    if kernel == "gaussian":
        return special.ndtr(x / s)
    with np.errstate(over="ignore"):
        half = 0.5 * np.exp(-np.abs(x) / s)  # = 0.5 e^{min(x,0)/s} for x < 0, 0.5 e^{-max(x,0)/s} otherwise
    return np.where(x < 0, half, 1.0 - half)


def _pdf(kernel: str, x: Any, s: float) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore"):  # |x|/s beyond ~1e154: (x/s)^2 = inf, density 0
        if kernel == "gaussian":
            return np.exp(-0.5 * (x / s) ** 2) / (s * math.sqrt(2 * math.pi))
        return np.exp(-np.abs(x) / s) / (2 * s)


def _mass(kernel: str, lo: np.ndarray, hi: np.ndarray, s: float) -> np.ndarray:
    """P(lo < N <= hi) for the kernel, accurate in both tails (vectorised, hi >= lo)."""
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    left = _cdf(kernel, hi, s) - _cdf(kernel, lo, s)
    right = _cdf(kernel, -lo, s) - _cdf(kernel, -hi, s)  # survival differences (symmetric kernel)
    return np.maximum(np.where(lo >= 0, right, left), 0.0)


def _p_theta(kernel: str, s: float, theta: float) -> float:
    """Eq. (4): p_theta = F_N(theta) - F_N(-theta)."""
    if kernel == "gaussian":
        return math.erf(theta / (s * _SQRT2))
    return -math.expm1(-theta / s)


def _cdf_s(kernel: str, x: float, s: float) -> float:
    """Scalar kernel CDF (hot loops)."""
    if kernel == "gaussian":
        return float(special.ndtr(x / s))
    return 0.5 * math.exp(x / s) if x < 0 else 1.0 - 0.5 * math.exp(-x / s)


def _w(kernel: str, s: float, theta: float, d: float) -> float:
    """Eq. (7) with tau_l = -theta, tau_u = theta.

    Equals W = F(min(D-theta, theta)) - F(-theta) for these symmetric bounds (Eq. (7) and the
    appendix's Eq. (14) differ in the second term, which describes the opposite event; both give this value).
    """
    tl, tu = -theta, theta
    first = _cdf_s(kernel, min(tl + d, tu), s) - _cdf_s(kernel, tl, s)
    lo2, hi2 = max(tu, tl + d), tu + d  # both > 0: use survival functions
    second = _cdf_s(kernel, -lo2, s) - _cdf_s(kernel, -hi2, s)
    return max(first, second, 0.0)


def _profile_s(kernel: str, eps: float, s: float, d: float) -> float:
    """Scalar kernel profile delta_Z(eps), every real eps incl. +-inf, for the hot loops of Alg. 1/2.

    Uses :mod:`dpcore.accounting`'s unvalidated cores (the public functions' argument checks would cost more
    than the evaluation itself, hundreds of times per :func:`optimize`).
    """
    if eps == -math.inf:
        return 1.0
    if eps == math.inf:
        return 0.0
    if kernel == "gaussian":
        return math.exp(_acct.gaussian_log_delta_scalar(eps, d / s))
    return float(_acct.laplace_delta_single(eps, _acct.laplace_eps0(d, s)))


def _profile_fn(kernel: str, s: float, d: float, compositions: int = 1, method: str = "exact"):
    """Kernel privacy profile delta_Z^T as a vectorised callable.

    Gaussian: :func:`dpcore.accounting.gaussian_delta` (closed form, sensitivity sqrt(T) D).  Laplace:
    :func:`dpcore.accounting.laplace_delta` (closed form at T = 1, cached PLD beyond), or RDP for T > 1
    (``method="rdp"`` / ``"rdp_improved"``, the paper's method).
    """
    if kernel == "gaussian":  # accounting.gaussian_delta's computation, its argument checks done once here
        t = _v.integer("compositions", compositions, low=1)
        try:
            mu = np.float64(math.sqrt(t) * d / s)
        except OverflowError:
            raise ValueError(f"compositions must be an integer in [1, 1e308], got {compositions!r}") from None
        return lambda eps: np.exp(_acct.gaussian_log_delta(np.asarray(eps, dtype=float), mu))
    if compositions > 1 and method != "exact":
        return lambda eps: _laplace_rdp_delta(eps, s, d, compositions, method)
    return lambda eps: _acct.laplace_delta(eps, scale=s, sensitivity=d, compositions=compositions)


def _profile(kernel: str, eps: Any, s: float, d: float, compositions: int = 1, method: str = "exact") -> np.ndarray:
    """Kernel privacy profile delta_Z^T(eps), vectorised; Laplace T > 1 by PLD or RDP (``method``)."""
    return np.asarray(_profile_fn(kernel, s, d, compositions, method)(eps), dtype=float)


def _profile_scales(kernel: str, eps: Any, s: np.ndarray, d: float) -> np.ndarray:
    """Single-release kernel profile delta_Z(eps) with one scale per element (eps and s broadcast): the
    values of :func:`_profile` at T = 1 for many scales in one call (Balle & Wang 2018, Thm 8; Laplace closed
    form)."""
    eps, s = np.asarray(eps, dtype=float), np.asarray(s, dtype=float)
    if kernel == "gaussian":
        return np.exp(_acct.gaussian_log_delta(eps, d / s))
    eps0 = np.vectorize(_acct.laplace_eps0, otypes=[float])(d, s)
    return np.asarray(_acct.laplace_delta_single(eps, eps0), dtype=float)


def _laplace_rdp_delta(eps: Any, s: float, d: float, t: int, conversion: str) -> np.ndarray:
    """T-fold Laplace profile from RDP (Mironov 2017), the paper's method for the Laplace kernel.

    eps_RDP(a) = ln[a/(2a-1) e^{(a-1)/lam} + (a-1)/(2a-1) e^{-a/lam}]/(a-1), lam = b/D; R_T = T eps_RDP.
    "rdp": delta = min_a exp((a-1)(R_T - eps)); "rdp_improved": times ((a-1)/a)^{a-1}/a (Canonne et al.).
    """
    eps = np.asarray(eps, dtype=float)
    a = np.concatenate((np.linspace(1.01, 10, 400), np.linspace(10, 1000, 2001)[1:]))
    lam = s / d
    r = np.logaddexp(np.log(a / (2 * a - 1)) + (a - 1) / lam, np.log((a - 1) / (2 * a - 1)) - a / lam)
    r = r / (a - 1)
    rt = t * r
    with np.errstate(all="ignore"):
        log_d = (a - 1) * (rt - eps[..., None])
        if conversion == "rdp_improved":
            log_d = log_d + (a - 1) * np.log((a - 1) / a) - np.log(a)
        out = np.exp(np.minimum(log_d.min(-1), 0.0))
    out = np.where(eps == -np.inf, 1.0, np.where(eps == np.inf, 0.0, out))
    return np.clip(out, 0.0, 1.0)


def _den(p: float, q: float) -> float:
    """Release probability per draw 1 - (1 - p_theta) q (scalar :func:`_norm`: p_theta + (1 - p_theta)(1 - q)
    where the difference rounds to <= 0, i.e. p_theta below the float spacing of 1 and q near 1)."""
    den = 1.0 - (1.0 - p) * q
    return den if den > 0 else p + (1.0 - p) * (1.0 - q)


def _acc(p: float, q: float) -> float:
    den = _den(p, q)
    return 1.0 if den <= 0 else min(1.0, p / den)
