"""The private comparison: distribution of Z = v − ρ (Liu et al. 2024, §4.3.2 and App. D Eq. 40).

A query is answered ⊤ iff ``q + v ≥ T + ρ + r``, i.e. iff Z ≥ r − (q − T); Γ is the CDF of Z and S = 1 − Γ
its survival function. Closed forms in log space for Laplace threshold noise with exponential or Laplace
query noise, quadrature for Gumbel, and the normal CDF for two Gaussians.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, special

from dpcore import _validate as _v
from dpcore.svt.noise import _check_pair, _out

__all__ = ["acceptance_probability", "comparison_cdf", "comparison_pdf", "comparison_sf"]

_LOG_HALF = math.log(0.5)


def _log_phi(x: np.ndarray) -> np.ndarray:
    """log of φ(x) = (1 − e^{−x})/x with φ(0) = 1 (x ≥ 0)."""
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    nz = x > 0
    out[nz] = np.log(-np.expm1(-x[nz]) / x[nz])
    return out


def _exp_lap_logcdf_logsf(z: np.ndarray, b: float, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """log Γ and log S for exponential query noise (scale θ) minus Laplace threshold noise (scale b).

    The closed form of App. D (Eq. 40), rewritten so that it stays finite at b = θ."""
    z = np.asarray(z, dtype=float)
    logcdf = np.empty_like(z)
    logsf = np.empty_like(z)
    neg = z <= 0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        zn = z[neg]
        lc = math.log(b / (2.0 * (b + theta))) + zn / b
        logcdf[neg] = lc
        logsf[neg] = np.log1p(-np.exp(lc))
        zp = z[~neg]
        ell = max(b, theta)
        x = zp * abs(b - theta) / (b * theta)
        t1 = math.log((b + 2.0 * theta) / (2.0 * (b + theta))) - zp / b
        with np.errstate(divide="ignore"):
            t2 = (
                math.log(theta**2 / (b + theta))
                - zp / ell
                + np.log(np.where(np.isfinite(zp), zp, 1.0) / (b * theta))
                + _log_phi(np.where(np.isfinite(x), x, 0.0))
            )
        t2 = np.where(zp > 0, t2, -np.inf)
        ls = np.logaddexp(t1, t2)
        ls = np.where(np.isposinf(zp), -np.inf, ls)
        logsf[~neg] = ls
        logcdf[~neg] = np.log(-np.expm1(ls))
    return logcdf, logsf


def _lap_lap_logcdf_logsf(z: np.ndarray, b: float, a: float) -> tuple[np.ndarray, np.ndarray]:
    """Laplace query (scale a) minus Laplace threshold (scale b), symmetric.

    S(z) = ½e^{−z/ℓ}(1 + m z φ/(ℓ(ℓ+m))) for z ≥ 0 with ℓ = max(a, b), m = min(a, b)."""
    z = np.asarray(z, dtype=float)
    ell, m = max(a, b), min(a, b)
    az = np.abs(z)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        x = np.where(np.isfinite(az), az * (ell - m) / (ell * m), 0.0)
        azf = np.where(np.isfinite(az), az, 0.0)
        tail = _LOG_HALF - az / ell + np.log1p(m * azf * np.exp(_log_phi(x)) / (ell * (ell + m)))
        tail = np.where(np.isinf(az), -np.inf, tail)
        body = np.log1p(-np.exp(tail))
    return np.where(z >= 0, body, tail), np.where(z >= 0, tail, body)


def _gum_lap_logcdf_logsf(z: np.ndarray, b: float, g: float) -> tuple[np.ndarray, np.ndarray]:
    """Gumbel query (scale g) minus Laplace threshold (scale b), by adaptive quadrature."""
    z = np.asarray(z, dtype=float)
    shape = z.shape
    zf = np.atleast_1d(z).ravel()

    def cdf_g(x):
        return np.exp(-np.exp(-x / g))

    def sf_g(x):
        return -np.expm1(-np.exp(-x / g))

    with np.errstate(over="ignore", under="ignore"):
        cdf = integrate.quad_vec(
            lambda u: 0.5 * np.exp(-u) * (cdf_g(zf - b * u) + cdf_g(zf + b * u)),
            0,
            np.inf,
            epsabs=0,
            epsrel=1e-11,
        )[0]
        sf = integrate.quad_vec(
            lambda u: 0.5 * np.exp(-u) * (sf_g(zf - b * u) + sf_g(zf + b * u)),
            0,
            np.inf,
            epsabs=0,
            epsrel=1e-11,
        )[0]
        lc = np.log(np.clip(cdf, 0, 1))
        ls = np.log(np.clip(sf, 0, 1))
    return lc.reshape(shape), ls.reshape(shape)


def _gau_gau_logcdf_logsf(z: np.ndarray, sigma1: float, sigma2: float) -> tuple[np.ndarray, np.ndarray]:
    s = math.hypot(sigma1, sigma2)
    z = np.asarray(z, dtype=float)
    return special.log_ndtr(z / s), special.log_ndtr(-z / s)


#: (log Γ, log S) of Z = v − ρ by (threshold noise, query noise): the pairs with a closed form or a quadrature here.
_PAIR_LOGS = {
    ("laplace", "exponential"): _exp_lap_logcdf_logsf,
    ("laplace", "laplace"): _lap_lap_logcdf_logsf,
    ("laplace", "gumbel"): _gum_lap_logcdf_logsf,
    ("gaussian", "gaussian"): _gau_gau_logcdf_logsf,
}


def _pair_logs(z, threshold_scale: float, query_scale: float, query_noise: str, threshold_noise: str):
    logs = _PAIR_LOGS.get((threshold_noise, query_noise))
    if logs is None:
        raise ValueError(
            "noise pair (threshold_noise, query_noise) must be one of (laplace, exponential|laplace|gumbel) or "
            f"(gaussian, gaussian); got ({threshold_noise}, {query_noise})"
        )
    return logs(z, threshold_scale, query_scale)


def comparison_cdf(
    z,
    *,
    threshold_scale: float,
    query_scale: float,
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
    log: bool = False,
):
    """Γ(z) = P[v − ρ ≤ z], closed form for Laplace threshold + exponential query (App. D Eq. 40).

    Stable at b = θ (Γ(0) = 1/4). Other pairs: Lap–Lap closed form, Gumbel–Lap quadrature, Gauss–Gauss.
    Vectorised over z; ``log=True`` returns log Γ.
    """
    b, th, qn, tn = _check_pair(threshold_scale, query_scale, query_noise, threshold_noise)
    zz = _v.real_array("z", z)
    lc, _ = _pair_logs(zz, b, th, qn, tn)
    return _out(lc if log else np.exp(lc), z)


def comparison_sf(
    z,
    *,
    threshold_scale: float,
    query_scale: float,
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
    log: bool = False,
):
    """S(z) = 1 − Γ(z) = P[v − ρ > z], computed directly (accurate in the right tail)."""
    b, th, qn, tn = _check_pair(threshold_scale, query_scale, query_noise, threshold_noise)
    zz = _v.real_array("z", z)
    _, ls = _pair_logs(zz, b, th, qn, tn)
    return _out(ls if log else np.exp(ls), z)


def comparison_pdf(z, *, threshold_scale: float, query_scale: float):
    """Density f = Γ′ of Z = v − ρ (exponential query, Laplace threshold); finite at b = θ."""
    b = _v.scale("threshold_scale", threshold_scale)
    th = _v.scale("query_scale", query_scale)
    zz = _v.real_array("z", z)
    out = np.empty_like(zz)
    neg = zz <= 0
    with np.errstate(over="ignore", under="ignore"):
        out[neg] = np.exp(zz[neg] / b) / (2 * (b + th))
        zp = zz[~neg]
        # [(b+θ)e^{−z/b} − 2θe^{−z/θ}] / (2(b²−θ²)) written stably: (e^{−z/b} − e^{−z/θ}) = (b−θ)R(z)
        zf = np.where(np.isfinite(zp), zp, 0.0)
        ell = max(b, th)
        x = zf * abs(b - th) / (b * th)
        R = np.exp(-zf / ell + np.log(np.maximum(zf, 1e-300) / (b * th)) + _log_phi(x))
        R = np.where(zf > 0, R, 0.0)
        # (b+θ)e^{−z/b} − 2θe^{−z/θ} = (b−θ)[e^{−z/b} + 2θR]  ⇒  f = (e^{−z/b} + 2θR) / (2(b+θ))
        val = (np.exp(-zf / b) + 2 * th * R) / (2 * (b + th))
        out[~neg] = np.where(np.isposinf(zp), 0.0, val)
    return _out(out, z)


def acceptance_probability(
    d,
    *,
    r: float = 0.0,
    threshold_scale: float,
    query_scale: float,
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
):
    """P[⊤ | q − T = d] = S(r − d) for one comparison (§4.3.2); vectorised over d."""
    dd = _v.real_array("d", d)
    rr = _v.real("r", r)
    return (
        comparison_sf(
            rr - dd,
            threshold_scale=threshold_scale,
            query_scale=query_scale,
            query_noise=query_noise,
            threshold_noise=threshold_noise,
        )
        if np.ndim(d)
        else float(
            comparison_sf(
                rr - float(dd),
                threshold_scale=threshold_scale,
                query_scale=query_scale,
                query_noise=query_noise,
                threshold_noise=threshold_noise,
            )
        )
    )


def _scalar_logs_exp_lap(z: float, b: float, th: float) -> tuple[float, float]:
    """Fast scalar version of :func:`_exp_lap_logcdf_logsf` (used inside root finders)."""
    if z <= 0:
        lc = math.log(b / (2 * (b + th))) + z / b
        return lc, math.log1p(-math.exp(lc))
    t1 = math.log((b + 2 * th) / (2 * (b + th))) - z / b
    x = z * abs(b - th) / (b * th)
    lphi = 0.0 if x == 0 else math.log(-math.expm1(-x) / x)
    t2 = math.log(th * th / (b + th)) - z / max(b, th) + math.log(z / (b * th)) + lphi
    mx = max(t1, t2)
    ls = mx + math.log(math.exp(t1 - mx) + math.exp(t2 - mx))
    return math.log(-math.expm1(ls)) if ls < 0 else -math.inf, ls
