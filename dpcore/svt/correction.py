"""Success probability p(r) and the optimal threshold correction r^op (Liu et al. 2024, §4.3.2 Eqs. 7–9,
App. D, App. E Theorem 8).

p(r) = Γ(r + α)^k · (1 − Γ(r − α)) is the probability that k negatives are rejected and then one positive is
accepted (Eq. 8); r^op = argmax p(r) (Eq. 9). The paper's Eq. 7 treats the threshold noise as fresh for each
comparison; Algorithm 2 shares one ρ, whose exact success probability is :func:`shared_success_probability`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from dpcore import _validate as _v
from dpcore.svt.calibration import split_budget
from dpcore.svt.comparison import _pair_logs, _scalar_logs_exp_lap
from dpcore.svt.discretisation import discretise_comparison
from dpcore.svt.noise import EULER_GAMMA, _check_pair, _dist, _out

__all__ = [
    "Correction",
    "correction_term",
    "optimal_correction",
    "shared_success_probability",
    "success_probability",
]


def success_probability(
    r,
    *,
    k: int,
    alpha: float = 0.0,
    threshold_scale: float,
    query_scale: float,
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
    log: bool = False,
):
    """p(r) = Γ(r+α)^k · (1 − Γ(r−α)) (Eq. 8, independent-threshold-noise model of Eq. 7); vectorised over r
    and α (broadcast together: one (r, α) pair per element).

    Eq. 7 treats the threshold noise as fresh per comparison; the exact value for Algorithm 2's shared ρ is
    :func:`shared_success_probability`."""
    k = _v.integer("k", k, low=1)
    a = _alpha(alpha)
    b, th, qn, tn = _check_pair(threshold_scale, query_scale, query_noise, threshold_noise)
    rr = _v.real_array("r", r)
    lc, _ = _pair_logs(rr + a, b, th, qn, tn)
    _, ls = _pair_logs(rr - a, b, th, qn, tn)
    lp = k * lc + ls
    return _out(lp if log else np.exp(lp), lp)


def _alpha(alpha) -> float | np.ndarray:
    """The accuracy tolerance α ≥ 0: a float, or a finite array for one α per (r, α) pair."""
    if np.ndim(alpha) == 0:
        return _v.nonnegative("alpha", alpha)
    return _v.real_array("alpha", alpha, low=0.0, allow_inf=False)


_GL_X, _GL_W = np.polynomial.legendre.leggauss(48)
_GL_STEPS = np.array([0.0, -2.0, 2.0, -8.0, 8.0, -32.0, 32.0, -128.0, 128.0])


def _gl_integrate(
    f: Callable[[np.ndarray], np.ndarray],
    lo: np.ndarray,
    hi: np.ndarray,
    kinks: Sequence[np.ndarray],
    scales: Sequence[float],
) -> np.ndarray:
    """Σ over rows of ∫_{lo}^{hi} f(x) dx by composite Gauss–Legendre, split geometrically around each kink.

    Vectorised: lo, hi and every kink have shape (n,); ``f`` receives x of shape (n, segments, nodes)."""
    lo_c, hi_c = lo[:, None], hi[:, None]
    pts = [lo_c, hi_c]
    for kk in kinks:
        for sc in scales:
            pts.append(np.clip(kk[:, None] + _GL_STEPS * sc, lo_c, hi_c))
    P = np.sort(np.concatenate(pts, axis=1), axis=1)
    a, b = P[:, :-1, None], P[:, 1:, None]
    half = (b - a) / 2
    x = half * _GL_X + (a + b) / 2
    w = half * _GL_W
    return np.sum(np.multiply(w, f(x), out=w), axis=(1, 2))


def _threshold_logpdf(noise: str, scale: float) -> Callable[[np.ndarray], np.ndarray]:
    """Log density of the threshold noise ρ at its scale, for the quadrature of
    :func:`shared_success_probability`.

    Laplace: scipy's own computation of ``stats.laplace.logpdf(x, scale=b)``, ln(½·e^{−|x/b|}) − ln b, done
    directly (the same operations, so the same values, without scipy's argument handling, which costs more
    than the formula on the quadrature's arrays); other families through scipy."""
    if noise != "laplace":
        return _dist(noise, scale).logpdf
    log_b = np.log(np.float64(scale))

    def logpdf(x: np.ndarray) -> np.ndarray:
        y = x / scale  # then in place: the quadrature's arrays are large, and fresh ones cost page faults
        np.abs(y, out=y)
        np.negative(y, out=y)
        np.exp(y, out=y)
        np.multiply(0.5, y, out=y)
        with np.errstate(divide="ignore"):
            np.log(y, out=y)
        return np.subtract(y, log_b, out=y)

    return logpdf


def shared_success_probability(
    r,
    *,
    k: int,
    alpha: float = 0.0,
    threshold_scale: float,
    query_scale: float,
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
):
    """Exact success probability with one shared threshold noise ρ (Eq. 7/8 done for Algorithm 2's shared ρ).

    p_sh(r) = E_ρ[F_v(ρ + r + α)^k · S_v(ρ + r − α)]: k negatives at T − α all rejected, then a positive
    at T + α accepted, all compared against the same noisy threshold. One-dimensional integral over ρ by
    composite Gauss–Legendre (vectorised over r and α, broadcast together; log-space integrand; each (r, α)
    pair is integrated on its own, so its value does not depend on what else is in the batch)."""
    k = _v.integer("k", k, low=1)
    a_in = _alpha(alpha)
    b, th, qn, tn = _check_pair(threshold_scale, query_scale, query_noise, threshold_noise)
    r_in = _v.real_array("r", r)
    shape = np.broadcast_shapes(r_in.shape, np.shape(a_in))
    rr = np.atleast_1d(np.broadcast_to(r_in, shape)).astype(float).ravel()
    aa = np.atleast_1d(np.broadcast_to(np.asarray(a_in, dtype=float), shape)).ravel()
    fin = np.isfinite(rr)
    out = np.zeros(rr.shape)
    if fin.any():
        rf, a = rr[fin], aa[fin]
        a3 = a[:, None, None]
        span = 80 * max(b, th)
        logf_rho = _threshold_logpdf(tn, b)
        if qn == "exponential":
            lo = -rf - a  # F_E(ρ + r + α) = 0 below
            kinks = [-rf + a, np.zeros_like(rf), th * math.log(k + 1) - rf - a]

            def log_f(t):  # ln f_ρ(t) + k·ln F_E(x + α) − (x − α)⁺/θ with x = t + r, in place
                x = t + rf[:, None, None]
                lF = np.add(x, a3)
                np.maximum(lF, 0.0, out=lF)
                np.negative(lF, out=lF)
                np.divide(lF, th, out=lF)
                np.expm1(lF, out=lF)
                np.negative(lF, out=lF)
                with np.errstate(divide="ignore"):
                    np.log(lF, out=lF)
                out = logf_rho(t)
                np.add(out, np.multiply(k, lF, out=lF), out=out)
                np.subtract(x, a3, out=x)
                np.maximum(x, 0.0, out=x)
                return np.subtract(out, np.divide(x, th, out=x), out=out)
        else:
            lo = -np.abs(rf) - a - span
            kinks = [-rf - a, -rf + a, np.zeros_like(rf)]
            d = _dist(qn, th)

            def log_f(t):
                x = t + rf[:, None, None]
                return logf_rho(t) + k * d.logcdf(x + a3) + d.logsf(x - a3)

        hi = np.abs(rf) + a + span

        def f(t):
            v = log_f(t)
            with np.errstate(under="ignore"):
                return np.exp(v, out=v)

        out[fin] = _gl_integrate(f, lo, hi, kinks, (b, th))
    return float(out[0]) if not shape else out.reshape(shape)


@dataclass(frozen=True)
class Correction:
    """Threshold correction r and its success probability (Eq. 9 / Alg. 3)."""

    r: float
    success_probability: float  # p(r) under the chosen model
    beta: float  # 1 − p(r)
    k: int
    alpha: float
    threshold_scale: float  # b
    query_scale: float  # θ
    mean_correction: float  # E[v] (θ for exponential)
    method: str  # "analytic" | "numeric"
    model: str  # "independent" (Eq. 8) | "shared" (exact, shared ρ)
    query_noise: str = "exponential"


def correction_term(
    threshold_scale: float,
    query_scale: float,
    *,
    k: int,
    alpha: float = 0.0,
    method: str = "analytic",
    model: str = "independent",
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
    n_bins: int = 20001,
    tail_mass: float = 1e-8,
) -> Correction:
    """r^op = argmax p(r) for given noise scales (Eq. 9; analytic via App. D, or numerical by Alg. 3/4 of §4.3.3).

    At α = 0 (Eq. 8 model) r^op solves S(r) = 1/(k+1), i.e. Γ(r^op) = k/(k+1), and p = k^k/(k+1)^{k+1}.
    ``model="shared"`` maximises the exact shared-ρ probability instead."""
    b, th, qn, tn = _check_pair(threshold_scale, query_scale, query_noise, threshold_noise)
    k = _v.integer("k", k, low=1)
    a = _v.nonnegative("alpha", alpha)
    method = _v.choice("method", method, ("analytic", "numeric"))
    model = _v.choice("model", model, ("independent", "shared"))
    mean = {"exponential": th, "gumbel": EULER_GAMMA * th}.get(qn, 0.0)
    scale = max(b, th)
    lo, hi = -10 * scale - a, scale * (10 + 3 * math.log(k + 2)) + a

    if method == "numeric":
        if model != "independent":
            raise ValueError("model must be 'independent' when method='numeric'")
        disc = discretise_comparison(b, th, n_bins=n_bins, tail_mass=tail_mass, query_noise=qn, threshold_noise=tn)
        with np.errstate(divide="ignore"):

            def neg_logp(r):
                g1 = disc.cdf(np.asarray(r) + a)
                g2 = disc.cdf(np.asarray(r) - a)
                return -(k * np.log(g1) + np.log1p(-g2))

            grid = disc.z
            vals = neg_logp(grid)
            j = int(np.nanargmin(vals))
            x0, x1 = grid[max(j - 1, 0)], grid[min(j + 1, grid.size - 1)]
            res = optimize.minimize_scalar(
                lambda r: float(neg_logp(r)),
                bounds=(x0, x1),
                method="bounded",
                options={"xatol": 1e-10 * scale},
            )
        r_op = float(res.x)
        p = float(np.exp(-neg_logp(r_op)))
        return Correction(r_op, p, 1 - p, k, a, b, th, mean, "numeric", model, qn)

    if model == "shared":
        ind = correction_term(b, th, k=k, alpha=a, query_noise=qn, threshold_noise=tn)

        def negp(r):
            return -shared_success_probability(
                r, k=k, alpha=a, threshold_scale=b, query_scale=th, query_noise=qn, threshold_noise=tn
            )

        span = 3 * scale
        res = optimize.minimize_scalar(
            negp, bounds=(ind.r - span, ind.r + span), method="bounded", options={"xatol": 1e-9 * scale}
        )
        return Correction(float(res.x), -float(res.fun), 1 + float(res.fun), k, a, b, th, mean, "analytic", model, qn)

    if qn == "exponential" and tn == "laplace":

        def logs(z):
            return _scalar_logs_exp_lap(z, b, th)
    else:

        def logs(z):
            lc, ls = _pair_logs(np.array([z]), b, th, qn, tn)
            return float(lc[0]), float(ls[0])

    if a == 0.0:
        target = -math.log(k + 1)
        f = lambda r: logs(r)[1] - target  # noqa: E731  (S is strictly decreasing)
        while f(lo) < 0:
            lo -= 10 * scale
        while f(hi) > 0:
            hi += 10 * scale
        r_op = optimize.brentq(f, lo, hi, xtol=1e-12 * scale, rtol=1e-14)
    else:

        def neg_l(r):
            return -(k * logs(r + a)[0] + logs(r - a)[1])

        res = optimize.minimize_scalar(neg_l, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10 * scale})
        r_op = float(res.x)
    p = math.exp(k * logs(r_op + a)[0] + logs(r_op - a)[1])
    return Correction(float(r_op), p, 1 - p, k, a, b, th, mean, "analytic", model, qn)


def optimal_correction(
    epsilon: float,
    *,
    c: int,
    k: int,
    alpha: float = 0.0,
    sensitivity: float = 1.0,
    monotonic: bool = False,
    method: str = "analytic",
    model: str = "independent",
    noise: str = "exponential",
    delta: float = 1e-5,
    n_bins: int = 20001,
    tail_mass: float = 1e-8,
) -> Correction:
    """r^op for SVT with budget ε and cutoff c (Eq. 9; Alg. 2 line 4), using the calibration of Table 4.

    ``model="independent"`` is the paper's Eq. 8 (default, as Alg. 2 uses it); ``"shared"`` the exact
    shared-ρ optimum."""
    sp = split_budget(epsilon, c=c, noise=noise, monotonic=monotonic, sensitivity=sensitivity, delta=delta)
    return correction_term(
        sp.threshold_scale,
        sp.query_scale,
        k=k,
        alpha=alpha,
        method=method,
        model=model,
        query_noise=sp.noise,
        threshold_noise=sp.threshold_noise,
        n_bins=n_bins,
        tail_mass=tail_mass,
    )
