"""Log-MGF primitives: log E[uⁿ e^{tu}] of each mixing law, vectorised and scalar.

Mohammady et al. 2020 (R²DP), Sections III–IV: the noise density, the usefulness and the exact ε of the R²DP
Laplace mechanism are all values of the moment generating function M(t) = E[e^{tu}] of the inverse Laplace
scale u and of its derivatives (Def. 3.2, Thm 3.1, Cor. 3.3). This module computes their logarithms stably
(log space, erfcx and continued fractions in the tails) for the Gamma (Thm 4.5), Uniform (Thm 4.7),
lower-truncated normal (Thm 4.9) and discrete laws; the scalar variants are fast paths for the optimisers of
:mod:`.optimal`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import integrate
from scipy import special as sp

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_SQRT2 = math.sqrt(2.0)
_LOG2 = math.log(2.0)


def _gamma_logd(t: Any, n: int, k: Any, theta: Any) -> np.ndarray:
    """log M^{(n)}(t) of Gamma(k, θ): θ^n (k)_n (1 - θ t)^{-k-n}; +inf for θ t >= 1."""
    t = np.asarray(t, dtype=float)
    with np.errstate(all="ignore"):
        x = -theta * t
        core = n * np.log(theta) + sp.gammaln(k + n) - sp.gammaln(k) - (k + n) * np.log1p(x)
        return np.where(x <= -1.0, np.inf, core)


def _logS(z: np.ndarray) -> np.ndarray:
    """log(sinh(z)/z), even, stable for every real z."""
    az = np.abs(z)
    with np.errstate(all="ignore"):
        small = np.log(np.where(az > 0, np.sinh(np.minimum(az, 20.0)) / np.where(az > 0, az, 1.0), 1.0))
        large = az - np.log(2 * az) + np.log1p(-np.exp(-2 * az))
    return np.where(az < 20.0, small, large)


_S_COEF = np.array([1.0 / math.factorial(2 * m + 1) for m in range(12)])
_S_COEF_LIST = [float(v) for v in _S_COEF]


def _uniform_logd(t: Any, n: int, a: Any, b: Any) -> np.ndarray:
    """log M^{(n)}(t) of Uniform(a, b) on u (Thm 4.7), stably: M(t) = e^{tc} sinh(th)/(th), c = centre, h =
    half-width."""
    t = np.asarray(t, dtype=float)
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    c = (a + b) / 2
    h = (b - a) / 2
    z = t * h
    with np.errstate(all="ignore"):
        if n == 0:
            return t * c + _logS(z)
        if n == 1:
            az = np.abs(z)
            zs = np.where(az < 1.0, z, 0.0)
            z2 = zs * zs
            S = np.zeros_like(z2)
            Sp = np.zeros_like(z2)
            pw = np.ones_like(z2)  # z^{2m}
            for m, cf in enumerate(_S_COEF):
                if m >= 1:
                    Sp = Sp + 2 * m * cf * pw * zs  # 2m z^{2m-1}/(2m+1)!, pw = z^{2(m-1)}
                    pw = pw * z2
                S = S + cf * pw
            series = t * c + np.log(c * S + h * Sp)
            # t < 0, |z| >= 1: M'(t) = [e^{-xa}(1+xa) - e^{-xb}(1+xb)] / (t^2 (b-a))
            xa = -a * t
            xb = -b * t
            ratio = np.exp(-(xb - xa)) * (1 + xb) / (1 + xa)
            neg = -xa + np.log1p(xa) + np.log1p(-ratio) - 2 * np.log(np.abs(t)) - np.log(b - a)
            # t > 0, z >= 1
            e2 = np.exp(-2 * az)
            br = c * (1 - e2) + h * ((1 + e2) - (1 - e2) / np.where(az > 0, az, 1.0))
            pos = t * c + az - np.log(2 * az) + np.log(br)
            return np.where(az < 1.0, series, np.where(t < 0, neg, pos))
        # n >= 2: incomplete-gamma form for t < 0, exact moment at t = 0, quadrature for t > 0
        x = -t
        xs = np.where(x > 0, x, 1.0)
        lower = sp.gammainc(n + 1, xs * b) - sp.gammainc(n + 1, xs * a)
        upper = sp.gammaincc(n + 1, xs * a) - sp.gammaincc(n + 1, xs * b)
        diff = np.where(sp.gammainc(n + 1, xs * a) > 0.5, upper, lower)
        neg = sp.gammaln(n + 1) - (n + 1) * np.log(xs) + np.log(diff) - np.log(b - a)
        zero = np.log((b ** (n + 1) - a ** (n + 1)) / ((n + 1) * (b - a)))
        out = np.where(x > 0, neg, zero)
    if np.any(t > 0):  # rarely needed (M'' at t > 0): quadrature
        tb, ab, bb = np.broadcast_arrays(t, a, b)
        shape = tb.shape
        tb, ab, bb = tb.ravel(), ab.ravel(), bb.ravel()
        ob = np.broadcast_to(out, shape).ravel().copy()
        for i in np.nonzero(tb > 0)[0]:
            ti, ai, bi = float(tb[i]), float(ab[i]), float(bb[i])
            val = integrate.quad(
                lambda u, ti=ti, bi=bi: u**n * math.exp(ti * (u - bi)), ai, bi, epsabs=0, epsrel=1e-13
            )[0]
            ob[i] = math.log(val) + ti * bi - math.log(bi - ai)
        out = ob.reshape(shape)
    return out


_CF_DEPTH = 32


def _mills_g(alpha: Any) -> np.ndarray:
    """g(α) = E[Z - α | Z >= α] = φ(α)/Q(α) - α, stable for all α (continued fraction for α >= 5)."""
    alpha = np.asarray(alpha, dtype=float)
    with np.errstate(all="ignore"):
        direct = math.sqrt(2 / math.pi) / sp.erfcx(alpha / _SQRT2) - alpha
        if not np.any(alpha >= 5.0):
            return direct
        al = np.maximum(alpha, 5.0)
        K = np.zeros_like(al)
        for j in range(_CF_DEPTH, 0, -1):  # depth 32 is exact to 1e-16 for α >= 5
            K = 1.0 / (al + (j + 1) * K)
    return np.where(alpha < 5.0, direct, K)


def _tn_half_moments(alpha: np.ndarray, nmax: int) -> list[np.ndarray]:
    """h_j = E[(Z - α)^j | Z >= α], j = 0..nmax, stable (continued fraction for α >= 5)."""
    alpha = np.asarray(alpha, dtype=float)
    g = _mills_g(alpha)
    # recursion h_{j+1} = j h_{j-1} - α h_j (fine for α < 5)
    rec = [np.ones_like(alpha), g]
    for j in range(1, nmax):
        rec.append(j * rec[j - 1] - alpha * rec[j])
    # continued-fraction products for α >= 5: h_n = n! Π_{j<=n} K_j
    if not np.any(alpha >= 5.0):
        return rec
    al = np.maximum(alpha, 5.0)
    depth = _CF_DEPTH + nmax
    Ks = [None] * (nmax + 2)
    K = np.zeros_like(al)
    with np.errstate(all="ignore"):
        for j in range(depth, 0, -1):
            K = 1.0 / (al + (j + 1) * K)
            if j <= nmax + 1:
                Ks[j] = K
    cf = [np.ones_like(al)]
    for j in range(1, nmax + 1):
        cf.append(cf[-1] * j * Ks[j])
    hs = [np.where(alpha < 5.0, rec[j], cf[j]) for j in range(nmax + 1)]
    return hs


def _tn_logM(t: Any, mu: Any, sigma: Any, lo: Any) -> np.ndarray:
    """log M(t) of N(μ, σ²) truncated to [lo, ∞) (Thm 4.9; erfcx identity, log_ndtr far in the tail)."""
    t = np.asarray(t, dtype=float)
    with np.errstate(all="ignore"):
        alpha = (lo - mu) / sigma
        a2 = alpha - sigma * t
        erfcx_form = t * lo + np.log(sp.erfcx(a2 / _SQRT2)) - np.log(sp.erfcx(alpha / _SQRT2))
        ndtr_form = mu * t + 0.5 * sigma**2 * t**2 + sp.log_ndtr(-a2) - sp.log_ndtr(-alpha)
        return np.where((alpha > -5) & (a2 > -5), erfcx_form, ndtr_form)


def _tn_logd12(t: Any, mu: Any, sigma: Any, lo: Any) -> tuple[np.ndarray, np.ndarray]:
    """(log M'(t), log M''(t)) of the lower-truncated normal in one pass (:func:`_tn_logd` for n = 1 and 2)."""
    t = np.asarray(t, dtype=float)
    logM = _tn_logM(t, mu, sigma, lo)
    with np.errstate(all="ignore"):
        alpha = (lo - (mu + sigma**2 * t)) / sigma
        h0, h1, h2 = _tn_half_moments(alpha, 2)
        m1 = lo * h0 + sigma * h1
        m2 = lo**2 * h0 + 2 * lo * sigma * h1 + sigma**2 * h2
        return logM + np.log(m1), logM + np.log(m2)


def _tn_logd(t: Any, n: int, mu: Any, sigma: Any, lo: Any) -> np.ndarray:
    """log M^{(n)}(t) of the lower-truncated normal: M(t) · E[X^n], X ~ TN(μ + σ² t, σ, lo)."""
    t = np.asarray(t, dtype=float)
    logM = _tn_logM(t, mu, sigma, lo)
    if n == 0:
        return logM
    with np.errstate(all="ignore"):
        nu = mu + sigma**2 * t
        alpha = (lo - nu) / sigma
        hs = _tn_half_moments(alpha, n)
        lo_b = np.broadcast_to(np.asarray(lo, dtype=float), np.shape(alpha))
        mom = np.zeros(np.broadcast_shapes(np.shape(alpha), np.shape(sigma)))
        for j in range(n + 1):
            mom = mom + math.comb(n, j) * lo_b ** (n - j) * sigma**j * hs[j]
        return logM + np.log(mom)


def _lse0(a: np.ndarray) -> np.ndarray:
    """logsumexp over axis 0 for a few stacked terms, as scipy.special.logsumexp (max term out, log1p of the rest)
    without its array-API overhead, paid on every ε / usefulness of a discrete law
    (bench/results-where-time-goes.md)."""
    if a.shape[0] == 1:
        return a[0].copy()
    with np.errstate(all="ignore"):
        i = np.argmax(a, axis=0)
        m = np.take_along_axis(a, i[None], axis=0)[0]
        ms = np.where(np.isfinite(m), m, 0.0)
        e = np.exp(a - ms)
        np.put_along_axis(e, i[None], 0.0, axis=0)
        out = np.log1p(e.sum(axis=0)) + ms
        return np.where(np.isneginf(m), -np.inf, np.where(np.isposinf(m), np.inf, out))


def _atoms_logd(t: Any, n: int, atoms: tuple[float, ...], probs: tuple[float, ...]) -> np.ndarray:
    """log Σ p_i u_i^n e^{t u_i}; atoms may include +inf (the exact answer released)."""
    t = np.asarray(t, dtype=float)
    terms = []
    with np.errstate(all="ignore"):
        for u, p in zip(atoms, probs, strict=True):
            if p <= 0:
                continue
            if math.isinf(u):
                val = np.where(t < 0, -np.inf, np.where((t > 0) | (n > 0), np.inf, 0.0))
                terms.append(math.log(p) + val)
            else:
                terms.append(math.log(p) + n * math.log(u) + t * u)
        return _lse0(np.stack(np.broadcast_arrays(*terms)))


def _tn_from_shape(alpha: Any, lr: Any, s: Any) -> tuple[Any, Any, Any]:
    """Shape (α, log r) + scale s → (μ, σ, lo): u = s (r + Y_α/g(α)), Y_α = Z - α | Z >= α."""
    g = _mills_g(alpha)
    r = np.exp(lr)
    sigma = s / g
    lo = s * r
    return lo - sigma * alpha, sigma, lo


def _g_scalar(alpha: float) -> float:
    if alpha < 5.0:
        return _SQRT_2_OVER_PI / float(sp.erfcx(alpha / _SQRT2)) - alpha
    K = 0.0
    depth = 32 if alpha < 8 else (20 if alpha < 12 else (14 if alpha < 25 else 10))  # all exact to ~1e-16
    for j in range(depth, 0, -1):
        K = 1.0 / (alpha + (j + 1) * K)
    return K


def _tn_logM_scalar(t: float, mu: float, sigma: float, lo: float) -> float:
    alpha = (lo - mu) / sigma
    a2 = alpha - sigma * t
    if alpha > -5 and a2 > -5:
        return t * lo + math.log(float(sp.erfcx(a2 / _SQRT2))) - math.log(float(sp.erfcx(alpha / _SQRT2)))
    return mu * t + 0.5 * sigma * sigma * t * t + float(sp.log_ndtr(-a2)) - float(sp.log_ndtr(-alpha))


def _tn_logmp_scalar(t: float, mu: float, sigma: float, lo: float) -> float:
    """Scalar fast path of log M'(t) for the lower-truncated normal (used inside the optimisers)."""
    nu = mu + sigma * sigma * t
    return _tn_logM_scalar(t, mu, sigma, lo) + math.log(lo + sigma * _g_scalar((lo - nu) / sigma))


def _gamma_logM_scalar(t: float, k: float, theta: float) -> float:
    return -k * math.log1p(-theta * t)


def _gamma_logmp_scalar(t: float, k: float, theta: float) -> float:
    return math.log(k * theta) - (k + 1) * math.log1p(-theta * t)


def _tn_logmp12_scalar(t: float, mu: float, sigma: float, lo: float) -> tuple[float, float]:
    """(log M'(t), log M''(t)) of the lower-truncated normal; the first is :func:`_tn_logmp_scalar` exactly, the
    second (E[X²] = lo² + 2 lo σ h1 + σ² h2, h2 = 1 - α' h1) only steers Newton."""
    lm = _tn_logM_scalar(t, mu, sigma, lo)
    al = (lo - (mu + sigma * sigma * t)) / sigma
    g = _g_scalar(al)
    m1 = lo + sigma * g
    m2 = max(lo * lo + 2 * lo * sigma * g + sigma * sigma * (1.0 - al * g), m1 * m1)
    return lm + math.log(m1), lm + math.log(m2)


def _tn_scalar012(mu: float, sigma: float, lo: float) -> Any:
    """t -> (log M(t), log M'(t), log M''(t)) of the lower-truncated normal, for the optimisers' inner loops.

    Same formulas as :func:`_tn_logM_scalar` / :func:`_tn_logmp_scalar` with the t-free parts computed once and
    one erfcx per call (the tilted α' = α - σt is used both in M and in g(α'))."""
    alpha = (lo - mu) / sigma
    fast = alpha > -5
    la = math.log(float(sp.erfcx(alpha / _SQRT2))) if fast else 0.0
    ln = 0.0 if fast else float(sp.log_ndtr(-alpha))  # needed for t <= 0 only when α <= -5
    s2 = sigma * sigma
    erfcx = sp.erfcx

    def f(t: float) -> tuple[float, float, float]:
        a2 = alpha - sigma * t
        ex = float(erfcx(a2 / _SQRT2))
        if fast and a2 > -5:
            l0 = t * lo + math.log(ex) - la
        else:
            l0 = mu * t + 0.5 * s2 * t * t + float(sp.log_ndtr(-a2)) - (float(sp.log_ndtr(-alpha)) if fast else ln)
        g = _SQRT_2_OVER_PI / ex - a2 if a2 < 5.0 else _g_scalar(a2)
        m1 = lo + sigma * g
        m2 = lo * lo + 2 * lo * sigma * g + s2 * (1.0 - a2 * g)
        return l0, l0 + math.log(m1), l0 + math.log(m2 if m2 > m1 * m1 else m1 * m1)

    return f


def _tn_from_shape_scalar(alpha: float, lr: float, s: float) -> tuple[float, float, float]:
    """Scalar :func:`_tn_from_shape` (no numpy overhead inside the optimisers)."""
    sigma = s / _g_scalar(alpha)
    lo = s * math.exp(lr)
    return lo - sigma * alpha, sigma, lo


def _uniform_logM_scalar(t: float, a: float, b: float) -> float:
    """Scalar :func:`_uniform_logd` with n = 0: t c + log(sinh(z)/z), z = t h."""
    c = (a + b) / 2
    az = abs(t * (b - a) / 2)
    if az < 20.0:
        return t * c + (math.log(math.sinh(az) / az) if az > 0 else 0.0)
    return t * c + az - math.log(2 * az) + math.log1p(-math.exp(-2 * az))


def _uniform_logmp_scalar(t: float, a: float, b: float) -> float:
    """Scalar :func:`_uniform_logd` with n = 1 (same branches and formulas)."""
    c = (a + b) / 2
    h = (b - a) / 2
    z = t * h
    if abs(z) < 1.0:
        z2 = z * z
        S = Sp = 0.0
        pw = 1.0
        for m, cf in enumerate(_S_COEF_LIST):
            if m >= 1:
                Sp = Sp + 2 * m * cf * pw * z
                pw = pw * z2
            S = S + cf * pw
        return t * c + math.log(c * S + h * Sp)
    if t < 0:
        xa = -a * t
        xb = -b * t
        ratio = math.exp(-(xb - xa)) * (1 + xb) / (1 + xa)
        return -xa + math.log1p(xa) + math.log1p(-ratio) - 2 * math.log(abs(t)) - math.log(b - a)
    return float(_uniform_logd(t, 1, a, b))


def _uniform_logmp12_scalar(t: float, a: float, b: float) -> tuple[float, float]:
    """(log M'(t), log M''(t)) of Uniform(a, b) for t <= 0; the second (closed form or incomplete gamma) only steers
    Newton."""
    l1 = _uniform_logmp_scalar(t, a, b)
    x = -t
    if x <= 0:
        return l1, math.log((b**3 - a**3) / (3 * (b - a)))
    if x * (b - a) >= 2.0:  # [e^{-xa} q(a) - e^{-xb} q(b)] / (x (b - a)), q(u) = u² + 2u/x + 2/x², in logs
        qa = a * a + 2 * a / x + 2 / (x * x)
        qb = b * b + 2 * b / x + 2 / (x * x)
        ratio = math.exp(-x * (b - a)) * qb / qa
        return l1, -x * a + math.log(qa) + math.log1p(-ratio) - math.log(x) - math.log(b - a)
    pa = float(sp.gammainc(3, x * a))
    if pa > 0.5:
        diff = float(sp.gammaincc(3, x * a) - sp.gammaincc(3, x * b))
    else:
        diff = float(sp.gammainc(3, x * b)) - pa
    if not diff > 0:
        return l1, l1 + math.log((a + b) / 2)
    return l1, math.log(2.0) - 3 * math.log(x) + math.log(diff) - math.log(b - a)
