"""R²DP: randomising the Laplace scale (paper 004, spec ``specs/r2dp.md``).

The mechanism releases ``q(d) + W`` with ``W | u ~ Laplace(0, 1/u)`` and the inverse scale
``u = 1/b`` drawn fresh (and kept secret) from a *mixing law* G for every release.
Everything follows from the moment generating function ``M(t) = E[e^{t u}]`` of u (spec §0):

* noise density ``f(w) = M'(-|w|)/2``, tail ``P(|W| > x) = M(-x)``;
* usefulness ``U(γ) = P(|W| <= γ) = 1 - M(-γ)``;
* exact privacy ``ε = ln(E[u] / M'(-Δq))`` (Cor. 3.3, tight; worst output = the true answer).

Mixing laws (all frozen dataclasses): :class:`Dirac` (plain Laplace), :class:`TwoPoint`,
:class:`Gamma`, :class:`Uniform`, :class:`TruncatedNormal` (lower truncation only, spec A8) and
:class:`Combination` (Thm 4.11: ``u = Σ a_i X_i``, independent X_i, a_i >= 0).

Infinite ε. An atom at ``u = inf`` (``Dirac(math.inf)`` or ``TwoPoint(u0, math.inf, p)`` with
``p < 1``: "release the exact answer with probability 1 - p", spec A6) is accepted; such laws
have ``epsilon(...) == math.inf`` — the honest answer — instead of raising.
Every other valid law has a finite ε.
"""

from __future__ import annotations

import abc
import functools
import math
from dataclasses import dataclass, field
from itertools import product
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import integrate, optimize as _opt, special as sp

from dpcore import _validate as _v

__all__ = [
    "MixingLaw",
    "Dirac",
    "TwoPoint",
    "Gamma",
    "Uniform",
    "TruncatedNormal",
    "Combination",
    "epsilon",
    "usefulness",
    "necessary_condition",
    "reuse_epsilon",
    "noise_density",
    "noise_cdf",
    "sample_noise",
    "release",
    "privacy_loss",
    "mean_abs_noise",
    "rms_noise",
    "entropy",
    "entropy_both",
    "scale_pdf",
    "Metrics",
    "metrics",
    "laplace_usefulness",
    "staircase_usefulness",
    "staircase_density",
    "sample_staircase",
    "staircase_optimal_r",
    "laplace_threshold",
    "universal_cap",
    "two_point_for_epsilon",
    "scale_for_epsilon",
    "OptimizationResult",
    "FAMILIES",
    "optimize",
    "two_point_lp",
    "gamma_theta_for_epsilon",
    "usefulness_curves",
    "improvement_map",
    "gamma_landscape",
    "lemma_4_10",
    "Lemma410",
    "gaussian_kappa",
    "gaussian_usefulness",
    "gaussian_mixture_delta",
]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_SQRT2 = math.sqrt(2.0)
_LOG2 = math.log(2.0)


# --------------------------------------------------------------------------------------------
# vectorised primitives: log E[u^n e^{t u}] for each family, broadcasting over t and parameters
# --------------------------------------------------------------------------------------------


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


#: Most draws in one sampling call (the app draws ≤ 10⁶).
MAX_SAMPLES = 100_000_000
#: Most grid atoms of :func:`two_point_lp` (default 6000).
MAX_LP_ATOMS = 100_000
#: |ln s| beyond which a scale factor s leaves the float range (:func:`scale_for_epsilon`).
_MAX_LOG_SCALE = 700.0

_S_COEF = np.array([1.0 / math.factorial(2 * m + 1) for m in range(12)])
_S_COEF_LIST = [float(v) for v in _S_COEF]


def _uniform_logd(t: Any, n: int, a: Any, b: Any) -> np.ndarray:
    """log M^{(n)}(t) of Uniform(a, b) on u (spec §5.4, stable sinh form)."""
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
            val = integrate.quad(lambda u: u**n * math.exp(ti * (u - bi)), ai, bi, epsabs=0, epsrel=1e-13)[0]
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
    """log M(t) of N(μ, σ²) truncated to [lo, ∞) (spec §5.5, erfcx identity / log_ndtr)."""
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
    without its array-API overhead (~40 µs a call, paid on every ε / usefulness of a discrete law)."""
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
        for u, p in zip(atoms, probs):
            if p <= 0:
                continue
            if math.isinf(u):
                val = np.where(t < 0, -np.inf, np.where((t > 0) | (n > 0), np.inf, 0.0))
                terms.append(math.log(p) + val)
            else:
                terms.append(math.log(p) + n * math.log(u) + t * u)
        return _lse0(np.stack(np.broadcast_arrays(*terms)))


# --------------------------------------------------------------------------------------------
# mixing laws
# --------------------------------------------------------------------------------------------


class MixingLaw(abc.ABC):
    """Law G of the inverse Laplace scale u = 1/b (abstract base class; see the concrete laws)."""

    discrete: bool = False

    # --- to implement
    @abc.abstractmethod
    def log_mgf_derivative(self, t: Any, n: int = 0) -> np.ndarray:
        """log M^{(n)}(t) = log E[u^n e^{t u}] (vectorised over t; +inf where the MGF diverges)."""

    @abc.abstractmethod
    def sample(self, n: int, rng: Any = None) -> np.ndarray:
        """n independent draws of u."""

    @abc.abstractmethod
    def scaled(self, c: float) -> MixingLaw:
        """The law of c·u (c > 0)."""

    @abc.abstractmethod
    def _small_u_exponent(self) -> float:
        """β with P(u <= x) ~ C x^β as x -> 0 (inf if u is bounded away from 0): E[u^-m] < inf iff β > m."""

    # --- derived
    def mgf(self, t: Any) -> np.ndarray | float:
        """M(t) = E[e^{t u}] (Def. 3.2)."""
        return _out(np.exp(self.log_mgf_derivative(t, 0)), t)

    def mgf_prime(self, t: Any) -> np.ndarray | float:
        """M'(t) = E[u e^{t u}]."""
        return _out(np.exp(self.log_mgf_derivative(t, 1)), t)

    def mgf_second(self, t: Any) -> np.ndarray | float:
        """M''(t) = E[u² e^{t u}]."""
        return _out(np.exp(self.log_mgf_derivative(t, 2)), t)

    def mgf_derivative(self, t: Any, n: int = 0) -> np.ndarray | float:
        """M^{(n)}(t) = E[u^n e^{t u}]."""
        n = _v.integer("n", n, low=0)
        return _out(np.exp(self.log_mgf_derivative(t, n)), t)

    @property
    def mean(self) -> float:
        """E[u] = M'(0)."""
        return float(np.exp(self.log_mgf_derivative(0.0, 1)))

    def _inverse_moment(self, m: int) -> float:
        """E[u^{-m}] = (1/Γ(m)) ∫_0^∞ x^{m-1} M(-x) dx (inf when it diverges)."""
        if self._small_u_exponent() <= m:
            return math.inf

        def f(x: float) -> float:
            return x ** (m - 1) * math.exp(float(self.log_mgf_derivative(-x, 0)))

        s = 1.0 / self.mean
        val = integrate.quad(f, 0, s)[0] + integrate.quad(f, s, math.inf, limit=200)[0]
        return val / math.gamma(m)


def _out(arr: np.ndarray, like: Any) -> np.ndarray | float:
    return float(arr) if np.ndim(like) == 0 and np.ndim(arr) == 0 else arr


@dataclass(frozen=True)
class _Discrete(MixingLaw):
    discrete = True

    @property
    @abc.abstractmethod
    def atoms(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """(values, probabilities) of the atoms."""

    def log_mgf_derivative(self, t: Any, n: int = 0) -> np.ndarray:
        vals, probs = self.atoms
        return _atoms_logd(t, n, vals, probs)

    def pmf(self, u: Any) -> np.ndarray | float:
        """P(u = value) for each value."""
        arr = np.asarray(u, dtype=float)
        out = np.zeros_like(arr)
        for val, p in zip(*self.atoms):
            out = out + np.where(arr == val, p, 0.0)
        return _out(out, u)

    def _small_u_exponent(self) -> float:
        return math.inf

    @property
    def mean(self) -> float:
        vals, probs = self.atoms
        return float(sum(p * v for v, p in zip(vals, probs) if p > 0))

    def _inverse_moment(self, m: int) -> float:
        vals, probs = self.atoms
        return float(sum(p / v**m for v, p in zip(vals, probs) if p > 0))


@dataclass(frozen=True)
class Dirac(_Discrete):
    """Point mass u = u0: plain Laplace(1/u0) noise (Thm 4.3). ``u0 = inf`` = no noise (ε = ∞)."""

    u: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "u", _v.positive("u", self.u, allow_inf=True))

    @property
    def atoms(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        return (self.u,), (1.0,)

    def sample(self, n: int, rng: Any = None) -> np.ndarray:
        n = _v.integer("n", n, low=0)
        return np.full(n, self.u)

    def scaled(self, c: float) -> Dirac:
        return Dirac(self.u * _v.positive("c", c))


@dataclass(frozen=True)
class TwoPoint(_Discrete):
    """u = u0 with probability p, u = u1 with probability 1 - p (Bernoulli law, §5.2; spec convention).

    ``u1 = inf`` (an atom at b = 0: release the exact answer) is allowed and gives ε = ∞ when p < 1.
    """

    u0: float
    u1: float
    p: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "u0", _v.positive("u0", self.u0, allow_inf=True))
        object.__setattr__(self, "u1", _v.positive("u1", self.u1, allow_inf=True))
        object.__setattr__(self, "p", _v.probability("p", self.p))

    @property
    def atoms(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        return (self.u0, self.u1), (self.p, 1.0 - self.p)

    def sample(self, n: int, rng: Any = None) -> np.ndarray:
        n = _v.integer("n", n, low=0)
        g = _v.rng(rng)
        return np.where(g.random(n) < self.p, self.u0, self.u1)

    def scaled(self, c: float) -> TwoPoint:
        c = _v.positive("c", c)
        return TwoPoint(self.u0 * c, self.u1 * c, self.p)


@dataclass(frozen=True)
class Gamma(MixingLaw):
    """u ~ Gamma(shape k, scale θ) (Thm 4.5): M(t) = (1 - θt)^{-k}; noise = symmetric Lomax."""

    k: float
    theta: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", _v.positive("k", self.k))
        object.__setattr__(self, "theta", _v.positive("theta", self.theta))

    def log_mgf_derivative(self, t: Any, n: int = 0) -> np.ndarray:
        return _gamma_logd(t, n, self.k, self.theta)

    @property
    def mean(self) -> float:
        return self.k * self.theta

    def pdf(self, u: Any) -> np.ndarray | float:
        """Density of u."""
        from scipy.stats import gamma as _g

        return _out(_g.pdf(np.asarray(u, dtype=float), self.k, scale=self.theta), u)

    def sample(self, n: int, rng: Any = None) -> np.ndarray:
        """Gamma draws; exact zeros (underflow, only for tiny k) are redrawn (conditioning on u > 0)."""
        n = _v.integer("n", n, low=0)
        g = _v.rng(rng)
        u = g.gamma(self.k, self.theta, n)
        for _ in range(200):
            bad = u <= 0
            if not bad.any():
                break
            u[bad] = g.gamma(self.k, self.theta, int(bad.sum()))
        return u

    def scaled(self, c: float) -> Gamma:
        return Gamma(self.k, self.theta * _v.positive("c", c))

    def _small_u_exponent(self) -> float:
        return self.k

    def _inverse_moment(self, m: int) -> float:
        if self.k <= m:
            return math.inf
        return math.exp(sp.gammaln(self.k - m) - sp.gammaln(self.k)) / self.theta**m


@dataclass(frozen=True)
class Uniform(MixingLaw):
    """u ~ Uniform(a, b), 0 <= a < b < ∞ (bounds of u, not Laplace scales; Thm 4.7)."""

    a: float
    b: float

    def __post_init__(self) -> None:
        a = _v.nonnegative("a", self.a)
        b = _v.positive("b", self.b)
        if not a < b:
            raise ValueError(f"b must be > a (Uniform needs 0 <= a < b < inf), got a={a!r}, b={b!r}")
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)

    def log_mgf_derivative(self, t: Any, n: int = 0) -> np.ndarray:
        return _uniform_logd(t, n, self.a, self.b)

    @property
    def mean(self) -> float:
        return (self.a + self.b) / 2

    def pdf(self, u: Any) -> np.ndarray | float:
        arr = np.asarray(u, dtype=float)
        return _out(np.where((arr >= self.a) & (arr <= self.b), 1.0 / (self.b - self.a), 0.0), u)

    def sample(self, n: int, rng: Any = None) -> np.ndarray:
        n = _v.integer("n", n, low=0)
        g = _v.rng(rng)
        u = g.uniform(self.a, self.b, n)
        if self.a == 0.0:
            bad = u <= 0
            while bad.any():
                u[bad] = g.uniform(self.a, self.b, int(bad.sum()))
                bad = u <= 0
        return u

    def scaled(self, c: float) -> Uniform:
        c = _v.positive("c", c)
        return Uniform(self.a * c, self.b * c)

    def _small_u_exponent(self) -> float:
        return 1.0 if self.a == 0 else math.inf

    def _inverse_moment(self, m: int) -> float:
        if self.a == 0:
            return math.inf
        if m == 1:
            return math.log(self.b / self.a) / (self.b - self.a)
        return (self.a ** (1 - m) - self.b ** (1 - m)) / ((m - 1) * (self.b - self.a))


@dataclass(frozen=True)
class TruncatedNormal(MixingLaw):
    """u ~ N(μ, σ²) conditioned on u >= low (low >= 0; upper truncation = ∞, spec A8; Thm 4.9)."""

    mu: float
    sigma: float
    low: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", _v.real("mu", self.mu))
        object.__setattr__(self, "sigma", _v.positive("sigma", self.sigma))
        object.__setattr__(self, "low", _v.nonnegative("low", self.low))

    @property
    def alpha(self) -> float:
        """Standardised lower bound (low - μ)/σ."""
        return (self.low - self.mu) / self.sigma

    def log_mgf_derivative(self, t: Any, n: int = 0) -> np.ndarray:
        return _tn_logd(t, n, self.mu, self.sigma, self.low)

    @property
    def mean(self) -> float:
        """m(μ) = μ + σ φ(α)/Q(α) (Eq. 7 numerator), computed as low + σ g(α)."""
        return self.low + self.sigma * float(_mills_g(self.alpha))

    def pdf(self, u: Any) -> np.ndarray | float:
        from scipy.stats import truncnorm

        arr = np.asarray(u, dtype=float)
        return _out(truncnorm.pdf(arr, self.alpha, np.inf, loc=self.mu, scale=self.sigma), u)

    def sample(self, n: int, rng: Any = None) -> np.ndarray:
        """Inverse-CDF sampling in log space (ndtri_exp), exact also far in the tail."""
        n = _v.integer("n", n, low=0)
        g = _v.rng(rng)
        logq = sp.log_ndtr(-self.alpha)
        with np.errstate(divide="ignore"):
            z = -sp.ndtri_exp(logq + np.log1p(-g.random(n)))
        u = self.mu + self.sigma * z
        u = np.maximum(u, self.low)
        if self.low == 0.0:
            bad = u <= 0
            while bad.any():
                u[bad] = self.sample(int(bad.sum()), g)
                bad = u <= 0
        return u

    def scaled(self, c: float) -> TruncatedNormal:
        c = _v.positive("c", c)
        return TruncatedNormal(self.mu * c, self.sigma * c, self.low * c)

    def _small_u_exponent(self) -> float:
        return 1.0 if self.low == 0 else math.inf


@dataclass(frozen=True)
class Combination(MixingLaw):
    """u = Σ a_i X_i with independent X_i and coefficients a_i >= 0 (Thm 4.11, Cor. 4.12).

    ``M_u(t) = Π M_i(a_i t)``; ``M_u'`` by the product rule. Construct as
    ``Combination((Gamma(2, 1), TruncatedNormal(0, 1, 0.5)), (1.0, 1.0))``.
    """

    laws: tuple[MixingLaw, ...]
    coefficients: tuple[float, ...] = field(default=())

    def __post_init__(self) -> None:
        laws = tuple(_v.sequence("laws", self.laws))
        if len(laws) < 1 or not all(isinstance(x, MixingLaw) for x in laws):
            raise ValueError("laws must be a non-empty sequence of MixingLaw objects")
        coefs = tuple(_v.sequence("coefficients", self.coefficients)) or (1.0,) * len(laws)
        if len(coefs) != len(laws):
            raise ValueError("coefficients must have one entry per law")
        coefs = tuple(_v.positive(f"coefficients[{i}]", c) for i, c in enumerate(coefs))
        object.__setattr__(self, "laws", laws)
        object.__setattr__(self, "coefficients", coefs)

    def log_mgf_derivative(self, t: Any, n: int = 0) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        L = len(self.laws)
        terms = []
        for ns in product(range(n + 1), repeat=L):
            if sum(ns) != n:
                continue
            lt = sp.gammaln(n + 1) - sum(sp.gammaln(m + 1) for m in ns)
            for law, a, m in zip(self.laws, self.coefficients, ns):
                lt = lt + m * math.log(a) + law.log_mgf_derivative(a * t, m)
            terms.append(np.asarray(lt, dtype=float))
        with np.errstate(all="ignore"):
            return sp.logsumexp(np.stack(np.broadcast_arrays(*terms)), axis=0)

    @property
    def mean(self) -> float:
        return float(sum(a * law.mean for law, a in zip(self.laws, self.coefficients)))

    def pdf(self, u: Any) -> np.ndarray | float:
        """Density of u by numerical convolution (two continuous components only)."""
        if len(self.laws) != 2 or any(x.discrete for x in self.laws):
            raise ValueError("laws: pdf of a Combination is implemented for two continuous components")
        (l1, l2), (a1, a2) = self.laws, self.coefficients
        arr = np.atleast_1d(np.asarray(u, dtype=float))
        out = np.zeros_like(arr)
        for i, ui in enumerate(arr):
            if ui <= 0:
                continue
            out[i] = integrate.quad(
                lambda x: float(l1.pdf(x)) * float(l2.pdf((ui - a1 * x) / a2)) / a2, 0, ui / a1, limit=200
            )[0]
        return _out(out.reshape(np.shape(u)), u)

    def sample(self, n: int, rng: Any = None) -> np.ndarray:
        n = _v.integer("n", n, low=0)
        g = _v.rng(rng)
        return sum(a * law.sample(n, g) for law, a in zip(self.laws, self.coefficients))

    def scaled(self, c: float) -> Combination:
        c = _v.positive("c", c)
        return Combination(self.laws, tuple(a * c for a in self.coefficients))

    def _small_u_exponent(self) -> float:
        return float(sum(law._small_u_exponent() for law in self.laws))


# --------------------------------------------------------------------------------------------
# privacy, usefulness, noise
# --------------------------------------------------------------------------------------------


def _has_infinite_atom(law: MixingLaw) -> bool:
    return law.discrete and any(math.isinf(u) and p > 0 for u, p in zip(*law.atoms))


def _law(law: Any) -> MixingLaw:
    if not isinstance(law, MixingLaw):
        raise ValueError(f"law must be a MixingLaw (Dirac, TwoPoint, Gamma, ...), got {law!r}")
    return law


def epsilon(
    law: MixingLaw, *, sensitivity: float = 1.0, variant: Literal["exact", "as_printed"] = "exact"
) -> float:
    """Exact ε of the R²DP Laplace mechanism: ln(E[u] / M'(-Δq)) (Cor. 3.3; tight).

    Returns ``math.inf`` for laws with an atom at u = ∞ (exact answer released with positive
    probability). ``variant="as_printed"``: the paper's Theorem 4.4 for two-point laws,
    ``ln(p e^{Δq u0} + (1-p) e^{Δq u1}) = ln M(+Δq)`` — wrong (spec §5.2, E6), neither an upper
    nor a lower bound; only defined for Dirac/TwoPoint.
    """
    law = _law(law)
    dq = _v.positive("sensitivity", sensitivity)
    variant = _v.choice("variant", variant, ("exact", "as_printed"))
    if variant == "as_printed":
        if not isinstance(law, Dirac | TwoPoint):
            raise ValueError("variant='as_printed' (Thm 4.4) is only defined for Dirac/TwoPoint laws")
        return float(law.log_mgf_derivative(dq, 0))
    if _has_infinite_atom(law):
        return math.inf
    val = math.log(law.mean) - float(law.log_mgf_derivative(-dq, 1))
    return max(val, 0.0)


def usefulness(law: MixingLaw, *, gamma: Any) -> np.ndarray | float:
    """U(γ) = P(|W| <= γ) = 1 - M(-γ) (Thm 3.1 / Cor. 4.1 at t = -γ, spec E8); vectorised over γ."""
    law = _law(law)
    g = _v.real_array("gamma", gamma, low=0.0, allow_inf=False)
    if np.any(g <= 0):
        raise ValueError("gamma must be > 0")
    with np.errstate(all="ignore"):
        out = -np.expm1(law.log_mgf_derivative(-g, 0))
    return _out(out, gamma)


def necessary_condition(law: MixingLaw, *, sensitivity: float = 1.0) -> float:
    """ln M(+Δq) = ln E[e^{Δq u}] (Thm 4.2, Eq. 6): R²DP can beat Laplace only if ε < this (may be inf)."""
    law = _law(law)
    dq = _v.positive("sensitivity", sensitivity)
    return float(law.log_mgf_derivative(dq, 0))


def reuse_epsilon(law: MixingLaw, *, sensitivity: float = 1.0, queries: int = 2) -> float:
    """Exact joint ε when ONE draw of u is reused for n queries: ln(M^{(n)}(0)/M^{(n)}(-n Δq)) (spec §2.6-4)."""
    law = _law(law)
    dq = _v.positive("sensitivity", sensitivity)
    n = _v.integer("queries", queries, low=1)
    if _has_infinite_atom(law):
        return math.inf
    return float(law.log_mgf_derivative(0.0, n) - law.log_mgf_derivative(-n * dq, n))


def noise_density(w: Any, law: MixingLaw) -> np.ndarray | float:
    """Density of W: f(w) = M'(-|w|)/2 (Thm 3.1; mixture of Laplace densities)."""
    law = _law(law)
    arr = _v.real_array("w", w)
    with np.errstate(all="ignore"):
        out = 0.5 * np.exp(law.log_mgf_derivative(-np.abs(arr), 1))
    return _out(out, w)


def noise_cdf(w: Any, law: MixingLaw) -> np.ndarray | float:
    """CDF of W: M(w)/2 for w < 0, 1 - M(-w)/2 for w >= 0 (spec §3.1)."""
    law = _law(law)
    arr = _v.real_array("w", w)
    with np.errstate(all="ignore"):
        half_tail = 0.5 * np.exp(law.log_mgf_derivative(-np.abs(arr), 0))
    return _out(np.where(arr < 0, half_tail, 1.0 - half_tail), w)


def sample_noise(n: int, law: MixingLaw, rng: Any = None) -> np.ndarray:
    """n draws of W: fresh secret u ~ G per draw, then Laplace(0, 1/u) (spec §6.8)."""
    law = _law(law)
    n = _v.integer("n", n, low=0, high=MAX_SAMPLES)
    g = _v.rng(rng)
    u = law.sample(n, g)
    return g.laplace(0.0, 1.0, n) / u


def release(value: Any, law: MixingLaw, rng: Any = None) -> np.ndarray | float:
    """q(d) + W for each entry of value (independent u per release; u is never returned)."""
    arr = _v.real_array("value", value, allow_inf=False)
    w = sample_noise(int(arr.size), _law(law), rng).reshape(arr.shape)
    return _out(arr + w, value)


def privacy_loss(x: Any, law: MixingLaw, *, sensitivity: float = 1.0) -> np.ndarray | float:
    """Privacy-loss profile L(x) = ln f(x) - ln f(x - Δq) (q(d) = 0, q(d') = Δq; spec §3.3).

    Max ε at x = 0, min -ε at x = Δq, antisymmetric about Δq/2, → Δq·essinf(u) as x → -∞.
    """
    law = _law(law)
    dq = _v.positive("sensitivity", sensitivity)
    arr = _v.real_array("x", x, allow_inf=False)
    out = law.log_mgf_derivative(-np.abs(arr), 1) - law.log_mgf_derivative(-np.abs(arr - dq), 1)
    return _out(out, x)


# --------------------------------------------------------------------------------------------
# other utility metrics (Table I, corrected)
# --------------------------------------------------------------------------------------------


def mean_abs_noise(law: MixingLaw) -> float:
    """E|W| = ∫_0^∞ M(-x) dx = E[1/u] (Table I ℓ1, correct); inf when it diverges (e.g. Gamma k <= 1)."""
    return float(_law(law)._inverse_moment(1))


def rms_noise(law: MixingLaw, *, variant: Literal["exact", "as_printed"] = "exact") -> float:
    """RMS of W = sqrt(2 E[1/u²]) = sqrt(2 ∫_0^∞ x M(-x) dx) (Table I ℓ2 with corrected limits, E3).

    ``variant="as_printed"``: the printed double integral over [0, ∞)² diverges → inf.
    """
    law = _law(law)
    variant = _v.choice("variant", variant, ("exact", "as_printed"))
    if variant == "as_printed":
        return math.inf
    return math.sqrt(2 * law._inverse_moment(2))


def entropy(law: MixingLaw, *, variant: Literal["exact", "as_printed"] = "exact") -> float:
    """Differential entropy of W: ln(2/E[u]) + ∫_0^∞ M(-x) M''(-x)/M'(-x) dx (Table I, corrected E3).

    ``variant="as_printed"``: the paper's integral alone (missing ``+ ln(2/E[u])``).
    """
    variant = _v.choice("variant", variant, ("exact", "as_printed"))
    exact, printed = entropy_both(law)
    return printed if variant == "as_printed" else exact


def entropy_both(law: MixingLaw) -> tuple[float, float]:
    """(exact, as printed) entropy of W from one evaluation of the integral (see :func:`entropy`).

    Closed forms: Gamma (k+1)/k; Dirac 1 (M''/M' = u, so ∫ u e^{-xu} dx = 1: Laplace's 1 + ln 2b).
    """
    law = _law(law)
    if _has_infinite_atom(law):
        return -math.inf, -math.inf  # an atom of W at 0 (exact answer released): differential entropy -∞
    if isinstance(law, Gamma):
        integral = (law.k + 1) / law.k
    elif isinstance(law, Dirac):
        integral = 1.0
    else:

        def f(x: float) -> float:
            t = -x
            return math.exp(
                float(law.log_mgf_derivative(t, 0) + law.log_mgf_derivative(t, 2) - law.log_mgf_derivative(t, 1))
            )

        s = 1.0 / law.mean
        integral = 0.0
        edges = [0.0, s, 10 * s, 100 * s, math.inf]
        for lo_, hi_ in zip(edges[:-1], edges[1:]):
            integral += integrate.quad(f, lo_, hi_, limit=200)[0]
    return math.log(2 / law.mean) + integral, integral


def scale_pdf(law: MixingLaw, b: Any) -> np.ndarray | float:
    """Density of the Laplace scale b = 1/u: f_u(1/b)/b² (spec §11 panel 1, "or b" toggle; continuous laws)."""
    law = _law(law)
    if law.discrete:
        raise ValueError("law must be continuous (a discrete law has atoms 1/u_i, not a density)")
    arr = _v.real_array("b", b, low=0.0, allow_inf=False)
    with np.errstate(over="ignore", invalid="ignore"):  # b → 0 (u = 1/b beyond the float range): density → f_u(inf) = 0
        inv = 1.0 / np.where(arr > 0, arr, 1.0)  # b = 0 (u = ∞) has density 0
        dens = np.asarray(law.pdf(inv), dtype=float)
        out = np.where((arr > 0) & (dens > 0), dens * inv**2, 0.0)
    return _out(out, b)


@dataclass(frozen=True)
class Metrics:
    """Table I numbers of one law (corrected formulas)."""

    epsilon: float
    usefulness: float
    mean_abs: float
    rms: float
    entropy: float
    necessary_condition: float


def metrics(law: MixingLaw, *, gamma: float, sensitivity: float = 1.0) -> Metrics:
    """ε, U(γ), E|W|, RMS, entropy and ln M(Δq) of a law (spec §4.3, §11 panel 12)."""
    law = _law(law)
    return Metrics(
        epsilon=epsilon(law, sensitivity=sensitivity),
        usefulness=float(usefulness(law, gamma=_v.positive("gamma", gamma))),
        mean_abs=mean_abs_noise(law),
        rms=rms_noise(law),
        entropy=entropy(law),
        necessary_condition=necessary_condition(law, sensitivity=sensitivity),
    )


# --------------------------------------------------------------------------------------------
# baselines: Laplace, staircase, caps
# --------------------------------------------------------------------------------------------


def _eps_array(epsilon: Any) -> np.ndarray:
    e = _v.real_array("epsilon", epsilon, low=0.0, allow_inf=False)
    if np.any(e <= 0):
        raise ValueError("epsilon must be > 0")
    return e


def laplace_usefulness(
    epsilon: Any, *, gamma: float, sensitivity: float = 1.0, variant: Literal["exact", "as_printed"] = "exact"
) -> np.ndarray | float:
    """U_Lap = 1 - exp(-ε γ/Δq) (Thm 2.2, corrected; vectorised over ε).

    ``variant="as_printed"``: the appendix's failure probability ``e^{+γ/b(ε)}`` (sign error, E1),
    i.e. ``1 - exp(+ε γ/Δq)`` — negative, not a probability.
    """
    e = _eps_array(epsilon)
    g = _v.positive("gamma", gamma)
    dq = _v.positive("sensitivity", sensitivity)
    variant = _v.choice("variant", variant, ("exact", "as_printed"))
    with np.errstate(over="ignore"):
        out = -np.expm1(-e * g / dq) if variant == "exact" else -np.expm1(e * g / dq)
    return _out(out, epsilon)


def staircase_usefulness(
    epsilon: Any, *, gamma: float, sensitivity: float = 1.0, r: float | None = None
) -> np.ndarray | float:
    """Usefulness of the Geng–Viswanath staircase (spec §7); r=None → optimal r* = frac(γ/Δq).

    U*(ε) = 1 - e^{-mε} + e^{-mε} (e^ε - 1) g / ((e^ε - 1) g + 1), m = ⌊γ/Δq⌋, g = frac(γ/Δq).
    """
    e = _eps_array(epsilon)
    gam = _v.scale("gamma", gamma)
    dq = _v.scale("sensitivity", sensitivity)
    ratio = gam / dq
    m = float(math.floor(ratio))
    rho = ratio - m
    with np.errstate(all="ignore"):
        emeps = np.exp(-m * e)
        if r is None:
            em1g = np.expm1(e) * rho
            inner = np.where(rho > 0, 1.0 / (1.0 + 1.0 / np.where(em1g > 0, em1g, 1.0)), 0.0)
        else:
            rr = _v.probability("r", r)
            a2 = -np.expm1(-e) / (rr + (1 - rr) * np.exp(-e))  # 2 Δq a(r)
            inner = a2 * (min(rho, rr) + np.exp(-e) * max(0.0, rho - rr))
        out = -np.expm1(-m * e) + emeps * inner
    return _out(out, epsilon)


def staircase_optimal_r(
    epsilon: float, *, gamma: float | None = None, sensitivity: float = 1.0, cost: str = "usefulness"
) -> float:
    """Optimal staircase fraction r: usefulness → frac(γ/Δq); ``cost="l1"`` → 1/(1+e^{ε/2});
    ``cost="l2"`` → Geng–Viswanath r2*(ε) (spec §7)."""
    e = _v.positive("epsilon", epsilon)
    cost = _v.choice("cost", cost, ("usefulness", "l1", "l2"))
    if cost == "usefulness":
        g = _v.scale("gamma", gamma) / _v.scale("sensitivity", sensitivity)
        return g - math.floor(g)
    if cost == "l1":
        return 1.0 / (1.0 + math.exp(e / 2))
    b = math.exp(-e)
    return -b / (1 - b) + (b - 2 * b**2 + 2 * b**4 - b**5) ** (1 / 3) / (2 ** (1 / 3) * (1 - b) ** 2)


def staircase_density(x: Any, epsilon: float, *, sensitivity: float = 1.0, r: float = 0.5) -> np.ndarray | float:
    """Staircase noise density f_r(x) (Geng–Viswanath; spec §7)."""
    e = _v.positive("epsilon", epsilon)
    dq = _v.scale("sensitivity", sensitivity)
    rr = _v.probability("r", r)
    arr = _v.real_array("x", x)
    ax = np.abs(arr) / dq
    with np.errstate(all="ignore"):
        j = np.floor(ax)
        a = -math.expm1(-e) / (2 * dq * (rr + (1 - rr) * math.exp(-e)))
        out = np.where(ax - j < rr, a * np.exp(-j * e), a * np.exp(-(j + 1) * e))
        out = np.where(np.isinf(ax), 0.0, out)
    return _out(out, x)


def sample_staircase(
    n: int, epsilon: float, *, sensitivity: float = 1.0, r: float = 0.5, rng: Any = None
) -> np.ndarray:
    """n draws of staircase noise (geometric × uniform construction, spec §7)."""
    n = _v.integer("n", n, low=0, high=MAX_SAMPLES)
    e = _v.positive("epsilon", epsilon)
    dq = _v.scale("sensitivity", sensitivity)
    rr = _v.probability("r", r)
    g = _v.rng(rng)
    G = g.geometric(-math.expm1(-e), n) - 1  # P(G = i) = (1 - e^-ε) e^{-iε}
    U = g.random(n)
    pb = (1 - rr) * math.exp(-e) / (rr + (1 - rr) * math.exp(-e))
    B = g.random(n) < pb
    S = np.where(g.random(n) < 0.5, -1.0, 1.0)
    return S * dq * np.where(B, G + rr + (1 - rr) * U, G + rr * U)


def laplace_threshold(g: Any) -> np.ndarray | float:
    """Local-optimality threshold ε = 2/(1 - γ/Δq): Gamma/Uniform beat Laplace iff ε above it (§4.4-2)."""
    arr = _v.real_array("g", g, low=0.0)
    with np.errstate(divide="ignore"):
        out = np.where(arr < 1, 2.0 / (1.0 - np.minimum(arr, 1.0 - 1e-300)), np.inf)
    return _out(out, g)


def universal_cap(epsilon: Any, *, gamma: float, sensitivity: float = 1.0) -> np.ndarray | float:
    """min(1, γ e^{ε-1}/Δq): upper bound on the usefulness of every ε-DP R²DP-Laplace mechanism (§4.4-1)."""
    e = _eps_array(epsilon)
    g = _v.positive("gamma", gamma) / _v.positive("sensitivity", sensitivity)
    with np.errstate(over="ignore"):
        return _out(np.minimum(1.0, g * np.exp(e - 1.0)), epsilon)


# --------------------------------------------------------------------------------------------
# optimisation (Algorithm 1, spec §6)
# --------------------------------------------------------------------------------------------


def _c(u: Any, eps: float, dq: float) -> np.ndarray:
    """Constraint integrand c_ε(u) = u (1 - e^{ε - Δq u}) (ε_R <= ε ⟺ E[c] <= 0, §4.1)."""
    with np.errstate(over="ignore"):
        return -u * np.expm1(eps - dq * np.asarray(u, dtype=float))


def two_point_for_epsilon(u0: float, u1: float, *, epsilon: float, sensitivity: float = 1.0) -> TwoPoint:
    """The two-point law on {u0, u1} (u0 < ε/Δq < u1) with p = P(u0) set so the exact ε is met (§4.5, panel 9).

    (:func:`optimize` lists the rarer atom first instead, so that a tiny probability stays exact.)
    """
    eps = _v.positive("epsilon", epsilon)
    dq = _v.positive("sensitivity", sensitivity)
    u0 = _v.positive("u0", u0)
    u1 = _v.positive("u1", u1)
    ustar = eps / dq
    if not u0 < ustar:
        raise ValueError(f"u0 must be < epsilon/sensitivity = {ustar:g}, got {u0!r}")
    if not u1 > ustar:
        raise ValueError(f"u1 must be > epsilon/sensitivity = {ustar:g}, got {u1!r}")
    c0, c1 = float(_c(u0, eps, dq)), float(_c(u1, eps, dq))
    p1 = -c0 / (c1 - c0)
    return TwoPoint(u0, u1, 1.0 - p1)


def _two_point_grid(u0: np.ndarray, u1: np.ndarray, *, epsilon: float, gamma: float,
                    sensitivity: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`two_point_for_epsilon` + :func:`usefulness` over arrays of atoms u0 < ε/Δq < u1 (panel 9):
    (p = P(u0), U(γ)) elementwise, by the same formulas as the scalar calls."""
    eps, dq, gam = float(epsilon), float(sensitivity), float(gamma)
    u0, u1 = np.asarray(u0, dtype=float), np.asarray(u1, dtype=float)
    c0, c1 = _c(u0, eps, dq), _c(u1, eps, dq)
    p = 1.0 - (-c0 / (c1 - c0))
    with np.errstate(all="ignore"):
        terms = np.stack([np.log(p) + (-gam) * u0, np.log(1.0 - p) + (-gam) * u1])
        terms = np.where(np.stack([p, 1.0 - p]) > 0, terms, -np.inf)
        useful = -np.expm1(sp.logsumexp(terms, axis=0))
    return p, useful


def scale_for_epsilon(law: MixingLaw, epsilon: float, *, sensitivity: float = 1.0) -> MixingLaw:
    """law.scaled(s) with s solving exact ε(s) = ε — the app's "lock ε" (ε grows in s from 0 to ∞, §3.3, §6.2)."""
    law = _law(law)
    eps = _v.positive("epsilon", epsilon)
    dq = _v.positive("sensitivity", sensitivity)
    if _has_infinite_atom(law):
        raise ValueError("law has an atom at u = inf: its epsilon is infinite at every scale")

    def gap(log_s: float) -> float:
        return _epsilon_of(law.scaled(math.exp(log_s)), dq) - eps

    ratio = eps / dq / law.mean
    centre = math.log(ratio) if 0.0 < ratio < math.inf else math.inf
    if abs(centre) > _MAX_LOG_SCALE - 2.0:
        raise ValueError(f"epsilon/sensitivity = {eps / dq:g} is outside the range this law can be scaled to "
                         f"(scale factor within e^±{_MAX_LOG_SCALE:g})")
    lo, hi = centre - 2.0, centre + 2.0
    while gap(lo) > 0:
        lo -= 4.0
        if lo < -_MAX_LOG_SCALE:
            raise ValueError(f"epsilon={eps:g} needs a scale factor below e^-{_MAX_LOG_SCALE:g} for this law "
                             "(outside the float range): choose a larger epsilon")
    while gap(hi) < 0:
        hi += 4.0
        if hi > _MAX_LOG_SCALE:
            raise ValueError(f"epsilon={eps:g} needs a scale factor above e^{_MAX_LOG_SCALE:g} for this law "
                             "(outside the float range): choose a smaller epsilon")
    return law.scaled(math.exp(_opt.brentq(gap, lo, hi, xtol=1e-13, rtol=1e-13)))


@dataclass(frozen=True)
class OptimizationResult:
    """Outcome of :func:`optimize` (Alg. 1 under the exact ε constraint)."""

    family: str
    law: MixingLaw  # the law to use: the family optimum, or Dirac(ε/Δq) if Laplace is better
    epsilon: float  # exact ε of ``law`` (Cor. 3.3), = target up to 1e-7
    usefulness: float  # 1 - M(-γ) of ``law``
    family_law: MixingLaw  # best law found inside the family (may be worse than Laplace)
    family_usefulness: float
    laplace_usefulness: float
    laplace_optimal: bool  # True when no law of the family beats Laplace
    target_epsilon: float
    gamma: float
    sensitivity: float

    @property
    def ratio(self) -> float:
        """U / U_Lap (≥ 1)."""
        return self.usefulness / self.laplace_usefulness


FAMILIES = ("laplace", "two_point", "gamma", "uniform", "truncated_normal", "gamma+truncated_normal")


def gamma_theta_for_epsilon(k: Any, *, epsilon: float, sensitivity: float = 1.0) -> np.ndarray | float:
    """θ(k) = expm1(ε/(k+1))/Δq: the Gamma scale with exact ε (inverse of ε = (k+1) ln(1+Δq θ), §5.3)."""
    kk = _v.real_array("k", k, low=0.0, allow_inf=False)
    if np.any(kk <= 0):
        raise ValueError("k must be > 0")
    e = _v.positive("epsilon", epsilon)
    dq = _v.scale("sensitivity", sensitivity)
    with np.errstate(over="ignore"):  # θ beyond the float range reads as +inf
        return _out(np.expm1(e / (kk + 1)) / dq, k)


def _opt_gamma(eps: float, dq: float, gam: float) -> MixingLaw:
    def logfail(lk: Any) -> np.ndarray:
        k = np.exp(lk)
        th = np.expm1(eps / (k + 1)) / dq
        return -k * np.log1p(th * gam)

    grid = np.linspace(math.log(1e-3), math.log(1e6), 400)
    vals = logfail(grid)
    i = int(np.argmin(vals))
    lo_, hi_ = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    best = grid[i]
    if hi_ > lo_:
        res = _opt.minimize_scalar(lambda x: float(logfail(x)), bounds=(lo_, hi_), method="bounded",
                                   options={"xatol": 1e-10})
        if res.fun <= vals[i]:
            best = res.x
    k = math.exp(best)
    return Gamma(k, math.expm1(eps / (k + 1)) / dq)


def _scale_root(logmp: Any, eps: float, dq: float, s_guess: Any, iters: int = 64) -> np.ndarray:
    """Vectorised bisection in log s for ε(s) = log M_V'(0) - log M_V'(-s Δq) = ε (increasing in s).

    ``logmp(t)`` = log M_V'(t) broadcast over shapes; ``s_guess`` the centre of the bracket.
    """
    m0 = logmp(np.zeros_like(np.asarray(s_guess, dtype=float)))
    lo_ = np.log(s_guess) - 60.0
    hi_ = np.log(s_guess) + 60.0
    with np.errstate(all="ignore"):
        for _ in range(iters):
            mid = 0.5 * (lo_ + hi_)
            val = m0 - logmp(-np.exp(mid) * dq) - eps
            big = val > 0
            hi_ = np.where(big, mid, hi_)
            lo_ = np.where(big, lo_, mid)
    return np.exp(0.5 * (lo_ + hi_))


def _scalar_root(logmp: Any, eps: float, dq: float, s_guess: float) -> float:
    """Root in s of ε(s) = log M_V'(0) - log M_V'(-sΔq) = ε (brentq in log s; ε(s) increasing)."""
    m0 = float(logmp(0.0))

    def f(ls: float) -> float:
        return m0 - float(logmp(-math.exp(ls) * dq)) - eps

    c = math.log(s_guess)
    a, b = c - 2.0, c + 2.0
    fa, fb = f(a), f(b)
    while fa > 0:
        a -= 8.0
        fa = f(a)
    while fb < 0:
        b += 8.0
        fb = f(b)
    return math.exp(_opt.brentq(f, a, b, xtol=1e-14, rtol=1e-14))


class _MaxFev(Exception):
    pass


def _nelder_mead(fun: Any, x0: Any, *, xatol: float, fatol: float, maxfev: int,
                 initial_simplex: Any = None) -> tuple[np.ndarray, float]:
    """Pure-Python replica of ``scipy.optimize.minimize(method="Nelder-Mead")`` (non-adaptive, no bounds, maxfev
    only): same simplex, same steps, same order of operations, so the same iterates — without scipy's per-step
    numpy overhead (≈ 20 µs a step; these objectives cost a few µs). Returns (x, fun) as ``res.x, res.fun``."""
    if initial_simplex is None:
        start = [float(v) for v in np.ravel(x0)]
        n = len(start)
        sim = [start]
        for k in range(n):
            y = list(start)
            y[k] = (1 + 0.05) * y[k] if y[k] != 0 else 0.00025
            sim.append(y)
    else:
        sim = [[float(v) for v in row] for row in np.asarray(initial_simplex, dtype=float)]
        n = len(sim[0])
    fsim = [math.inf] * (n + 1)
    calls = [0]

    def call(x: list[float]) -> float:
        if calls[0] >= maxfev:
            raise _MaxFev
        calls[0] += 1
        return float(fun(x))  # the objectives here never modify x (scipy passes a copy)

    def order() -> None:
        if len(set(fsim)) == n + 1 and all(f == f for f in fsim):  # distinct, no nan: the order is unambiguous
            idx = sorted(range(n + 1), key=fsim.__getitem__)
        else:  # np.argsort itself: its order of ties (SIMD sort, not stable) steers the simplex
            idx = np.argsort(np.array(fsim)).tolist()
        sim[:] = [sim[i] for i in idx]
        fsim[:] = [fsim[i] for i in idx]

    try:
        for k in range(n + 1):
            fsim[k] = call(sim[k])
    except _MaxFev:
        pass
    order()
    rng_n = range(n)
    while calls[0] < maxfev:
        try:
            s0, f0 = sim[0], fsim[0]
            if (all(abs(sim[j][i] - s0[i]) <= xatol for j in range(1, n + 1) for i in rng_n)
                    and all(abs(f0 - fsim[j]) <= fatol for j in range(1, n + 1))):
                break
            xbar = list(sim[0])
            for j in range(1, n):
                xbar = [a + b for a, b in zip(xbar, sim[j])]
            xbar = [a / n for a in xbar]
            worst = sim[-1]
            xr = [2 * a - 1 * w for a, w in zip(xbar, worst)]
            fxr = call(xr)
            doshrink = False
            if fxr < fsim[0]:
                xe = [3 * a - 2 * w for a, w in zip(xbar, worst)]
                fxe = call(xe)
                if fxe < fxr:
                    sim[-1], fsim[-1] = xe, fxe
                else:
                    sim[-1], fsim[-1] = xr, fxr
            elif fxr < fsim[-2]:
                sim[-1], fsim[-1] = xr, fxr
            elif fxr < fsim[-1]:
                xc = [1.5 * a - 0.5 * w for a, w in zip(xbar, worst)]
                fxc = call(xc)
                if fxc <= fxr:
                    sim[-1], fsim[-1] = xc, fxc
                else:
                    doshrink = True
            else:
                xcc = [0.5 * a + 0.5 * w for a, w in zip(xbar, worst)]
                fxcc = call(xcc)
                if fxcc < fsim[-1]:
                    sim[-1], fsim[-1] = xcc, fxcc
                else:
                    doshrink = True
            if doshrink:
                for j in range(1, n + 1):
                    sim[j] = [a + 0.5 * (b - a) for a, b in zip(sim[0], sim[j])]
                    fsim[j] = call(sim[j])
        except _MaxFev:
            pass
        order()
    best = math.nan if any(f != f for f in fsim) else min(fsim)
    return np.array(sim[0]), best


def _scale_root_newton(logmp12: Any, eps: float, dq: float, s_guess: Any, maxit: int = 200) -> np.ndarray:
    """Vectorised safeguarded Newton in log s for ε(s) = ε (same root as :func:`_scale_root`, ~6 steps, not 64).

    ``logmp12(t)`` = (log M_V'(t), log M_V''(t)) broadcast over shapes. Newton runs on F = log ε(s) - log ε,
    whose slope is d = s Δq M_V''(-sΔq)/M_V'(-sΔq)/ε(s) ∈ (0, 1] (ε(s) = ln E[V] - ln M_V'(-sΔq) is concave in
    s, since ln M_V' is convex, and ε(0) = 0; a larger computed d is clipped to 1). A step leaving the bracket
    (known signs, initially log s_guess ± 60 as in the bisection) or following a Newton step that did not halve
    |F| is a bisection step, so it converges wherever the bisection does. Converged: |F| at rounding level, or a
    Newton step h <= 1e-8 (its error is O(h²)) right after a Newton step that cut |F| by 1000× (d trustworthy).
    """
    g = np.asarray(s_guess, dtype=float)
    m0 = logmp12(np.zeros_like(g))[0]
    leps = math.log(eps)
    x = np.log(g)
    lo_, hi_ = x - 60.0, x + 60.0
    prev = np.full(np.shape(x), np.inf)
    fin = np.zeros(np.shape(x), dtype=bool)  # converged entries stay put while the others iterate
    with np.errstate(all="ignore"):
        for _ in range(maxit):
            t = np.exp(x) * dq
            l1, l2 = logmp12(-t)
            e = m0 - l1
            f = np.where(e > 0, np.log(e) - leps, -np.inf)
            d = np.minimum(t * np.exp(l2 - l1) / e, 1.0)
            hi_ = np.where(f > 0, x, hi_)
            lo_ = np.where(f < 0, x, lo_)
            step = np.where(f == 0, 0.0, f / d)
            af = np.abs(f)
            done = (((np.abs(step) <= 1e-8) & (af <= 1e-7) & (af <= 1e-3 * prev))
                    | (af <= 1e-15))
            xn = x - step
            newton = done | ((xn > lo_) & (xn < hi_) & (af <= 0.5 * prev))
            x = np.where(fin, x, np.where(newton, xn, 0.5 * (lo_ + hi_)))
            prev = np.where(newton, af, np.inf)  # progress is judged on Newton steps only
            fin |= done
            if np.all(fin):
                break
    return np.exp(x)


def _scalar_root_newton(logmp12: Any, eps: float, dq: float, s_guess: float, maxit: int = 100,
                        m0: float | None = None) -> float:
    """Scalar safeguarded Newton in log s for ε(s) = ε (same root as :func:`_scalar_root`, ~3 steps, not ~13).

    ``logmp12(t)`` = (log M_V'(t), log M_V''(t)); ``m0`` = log M_V'(0) = log E[V] if known (else evaluated). The
    ε(s) evaluated is the same expression as in :func:`_scalar_root`, only the search differs (see
    :func:`_scale_root_newton`; while one side of the bracket is unknown, a fallback step is ±8 in log s). Should
    it not converge in ``maxit`` steps, :func:`_scalar_root` (brentq) finishes the job.
    """
    if m0 is None:
        m0 = logmp12(0.0)[0]
    exp, log, inf = math.exp, math.log, math.inf
    leps = log(eps)
    x = log(s_guess)
    lo_, hi_ = -inf, inf
    good = None
    prev = inf
    for _ in range(maxit):
        try:
            t = exp(x) * dq
            l1, l2 = logmp12(-t)
            e = m0 - l1
            if e > 0.0:
                f = log(e) - leps
                d = t * exp(l2 - l1) / e
            else:
                f, d = -inf, 0.0
        except (ValueError, OverflowError, ZeroDivisionError):
            f = d = math.nan
        if f != f:  # outside the numerically safe range: back towards the last good point
            xn = x - 8.0 if good is None else 0.5 * (x + good)
            if abs(xn - x) <= 1e-14 * max(1.0, abs(x)):
                return exp(x)
            x = xn
            continue
        good = x
        if f > 0.0:
            if x < hi_:
                hi_ = x
        elif f < 0.0:
            if x > lo_:
                lo_ = x
        else:
            return exp(x)
        af = abs(f)
        if 0.0 < d < inf and af < inf:
            step = f / (d if d < 1.0 else 1.0)
            if (abs(step) <= 1e-8 and af <= 1e-7 and af <= 1e-3 * prev) or af <= 1e-15:
                return exp(x - step)
            xn = x - step
            if lo_ < xn < hi_ and af <= 0.5 * prev:
                x, prev = xn, af
                continue
        prev = inf  # progress is judged on Newton steps only
        xn = 0.5 * (lo_ + hi_) if (lo_ > -inf and hi_ < inf) else (x + 8.0 if f < 0.0 else x - 8.0)
        if abs(xn - x) <= 1e-14 * max(1.0, abs(x)):
            return exp(xn)
        x = xn
    return _scalar_root(lambda t: logmp12(t)[0], eps, dq, s_guess)


def _opt_uniform(eps: float, dq: float, gam: float) -> MixingLaw:
    # u = s·U(ρ, 1), shape ρ = a/b ∈ [0, 1); s root of the exact ε; maximise U over ρ
    ustar = eps / dq

    def logmp(t: Any, rho: Any) -> np.ndarray:
        return _uniform_logd(t, 1, rho, 1.0)

    def logfail(rho: Any, s: Any) -> np.ndarray:
        return _uniform_logd(-gam * s, 0, rho, 1.0)

    grid = np.concatenate([[0.0], 1 - np.geomspace(1.0, 1e-4, 80)[1:]])
    s = _scale_root_newton(lambda t: (logmp(t, grid), _uniform_logd(t, 2, grid, 1.0)), eps, dq,
                           2 * ustar / (1 + grid))
    vals = logfail(grid, s)
    i = int(np.argmin(vals))

    def obj(rho: float) -> float:
        sr = _scalar_root_newton(lambda t: _uniform_logmp12_scalar(t, rho, 1.0), eps, dq, float(s[i]))
        return _uniform_logM_scalar(-gam * sr, rho, 1.0)

    lo_, hi_ = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    best_rho, best_val = grid[i], vals[i]
    res = _opt.minimize_scalar(obj, bounds=(lo_, hi_), method="bounded", options={"xatol": 1e-9})
    if res.fun < best_val:
        best_rho = float(res.x)
    sr = _scalar_root_newton(lambda t: _uniform_logmp12_scalar(t, best_rho, 1.0), eps, dq, float(s[i]))
    return Uniform(best_rho * sr, sr)


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


def _opt_tn(eps: float, dq: float, gam: float) -> MixingLaw:
    ustar = eps / dq
    A, LR = np.meshgrid(np.array([-3.0, -1.0, 0.0, 1.0, 2.5, 5.0, 10.0, 25.0]),
                        np.linspace(-9.0, 4.0, 14))
    A, LR = A.ravel(), LR.ravel()

    def logmp_shape(t: Any, al: Any, lr: Any) -> np.ndarray:
        mu, sig, lo = _tn_from_shape(al, lr, 1.0)
        return _tn_logd(t, 1, mu, sig, lo)

    mu1, sig1, lo1 = _tn_from_shape(A, LR, 1.0)
    s = _scale_root_newton(lambda t: _tn_logd12(t, mu1, sig1, lo1), eps, dq, ustar / (1 + np.exp(LR)))
    mu, sig, lo = _tn_from_shape(A, LR, s)
    vals = _tn_logM(-gam, mu, sig, lo)
    order = np.argsort(vals)

    def shape_scalar(al: float, lr: float) -> tuple[float, float, float]:
        g = _g_scalar(al)
        r = math.exp(lr)
        return r - al / g, 1.0 / g, r  # (μ, σ, lo) at scale 1

    def obj(x: np.ndarray) -> float:
        al, lr = min(max(float(x[0]), -6.0), 200.0), min(max(float(x[1]), -30.0), 10.0)
        m1, s1, l1 = shape_scalar(al, lr)
        f012 = _tn_scalar012(m1, s1, l1)
        sr = _scalar_root_newton(lambda t: f012(t)[1:], eps, dq, last[0], m0=math.log1p(math.exp(lr)))
        last[0] = sr  # warm start: the next simplex point is close (the root is unique, only the steps change)
        return _tn_logM_scalar(-gam, m1 * sr, s1 * sr, l1 * sr)

    best_x, best_v = np.array([A[order[0]], LR[order[0]]]), float(vals[order[0]])
    last = [ustar]
    for j in order[:2]:
        last[0] = float(s[j])
        rx, rf = _nelder_mead(obj, np.array([A[j], LR[j]]), xatol=1e-6, fatol=1e-12, maxfev=160,
                              initial_simplex=np.array([[A[j], LR[j]], [A[j] + 1.0, LR[j]], [A[j], LR[j] + 0.7]]))
        if rf < best_v:
            best_x, best_v = rx, float(rf)
    al, lr = min(max(float(best_x[0]), -6.0), 200.0), min(max(float(best_x[1]), -30.0), 10.0)
    m1, s1, l1 = shape_scalar(al, lr)
    sr = _scalar_root_newton(lambda t: _tn_logmp12_scalar(t, m1, s1, l1), eps, dq, ustar / (1 + math.exp(lr)))
    return TruncatedNormal(m1 * sr, s1 * sr, l1 * sr)


def _opt_gamma_tn(eps: float, dq: float, gam: float, starts: list[MixingLaw]) -> MixingLaw:
    """u = X1 + X2, X1 ~ Gamma(k, θ), X2 ~ TN: shape (ln k, logit share of E[X1], α, ln r) + scale root."""
    ustar = eps / dq

    def parts(x: np.ndarray, s: float) -> tuple[float, float, Any, Any, Any]:
        lk, lw, al, lr = x
        k = math.exp(min(max(lk, -7.0), 14.0))
        w = 1.0 / (1.0 + math.exp(-min(max(lw, -30.0), 30.0)))
        al = min(max(al, -6.0), 200.0)
        lr = min(max(lr, -30.0), 10.0)
        mu, sig, lo = _tn_from_shape_scalar(al, lr, s * (1 - w) / (1 + math.exp(lr)))
        return k, s * w / k, mu, sig, lo

    def logmp12(p: tuple[float, float, float, float, float]) -> Any:
        """t -> (log M', log M'') of Gamma + TN by the product rule: M' = M_G' M_T + M_G M_T',
        M'' = M_G'' M_T + 2 M_G' M_T' + M_G M_T''."""
        k, th, mu, sig, lo = p
        lkth = math.log(k * th)
        lk2 = math.log(k * (k + 1) * th * th)
        tn = _tn_scalar012(mu, sig, lo)

        def f(t: float) -> tuple[float, float]:
            lp = math.log1p(-th * t)
            g0 = -k * lp
            g1 = lkth - (k + 1) * lp
            t0, t1, t2 = tn(t)
            a = g1 + t0
            b = g0 + t1
            l1 = max(a, b) + math.log1p(math.exp(-abs(a - b)))
            c0, c1, c2 = lk2 - (k + 2) * lp + t0, _LOG2 + g1 + t1, g0 + t2
            top = max(c0, c1, c2)
            return l1, top + math.log(math.exp(c0 - top) + math.exp(c1 - top) + math.exp(c2 - top))

        return f

    last = [ustar]  # warm start: the previous root (the root is unique, only the number of steps changes)

    def solve(x: np.ndarray) -> tuple[float, float]:
        p1 = parts(x, 1.0)
        s = _scalar_root_newton(logmp12(p1), eps, dq, last[0], m0=0.0)  # E[V] = w + (1 - w) = 1 by construction
        last[0] = s
        k, th, mu, sig, lo = (p1[0], p1[1] * s, p1[2] * s, p1[3] * s, p1[4] * s)
        return _gamma_logM_scalar(-gam, k, th) + _tn_logM_scalar(-gam, mu, sig, lo), s

    x0s = []
    for law in starts:
        if isinstance(law, Gamma):
            x0s.append(np.array([math.log(law.k), 4.0, 25.0, -4.0]))
        elif isinstance(law, TruncatedNormal):
            lr = math.log(max(law.low, 1e-300) / (law.sigma * float(_mills_g(law.alpha))))
            x0s.append(np.array([0.0, -4.0, law.alpha, max(lr, -30.0)]))
    x0s.append(np.array([0.0, 0.0, 25.0, -2.0]))
    best_x, best_v = None, math.inf
    for x0 in x0s:
        rx, rf = _nelder_mead(lambda x: solve(x)[0], x0, xatol=1e-5, fatol=1e-11, maxfev=150)
        if rf < best_v:
            best_x, best_v = rx, float(rf)
    rx, rf = _nelder_mead(lambda x: solve(x)[0], best_x, xatol=1e-6, fatol=1e-12, maxfev=200)  # restart
    if rf < best_v:
        best_x, best_v = rx, float(rf)
    s = solve(best_x)[1]
    k, th, mu, sig, lo = (float(v) for v in parts(best_x, s))
    return Combination((Gamma(k, th), TruncatedNormal(mu, sig, lo)), (1.0, 1.0))


def _two_point_fail(x0: Any, x1: Any, eps: float, dq: float, gam: float) -> tuple[Any, Any, Any, Any]:
    ustar = eps / dq
    with np.errstate(all="ignore"):
        u0 = ustar / (1.0 + np.exp(-x0))
        u1 = ustar + np.exp(x1)
        c0 = _c(u0, eps, dq)
        c1 = _c(u1, eps, dq)
        p0 = c1 / (c1 - c0)  # P(u0), computed directly (1 - p1 would lose a tiny p0 ~ e^{-ε})
        p1 = -c0 / (c1 - c0)
        fail = p0 * np.exp(-gam * u0) + p1 * np.exp(-gam * u1)
    return fail, u0, u1, (p0, p1)


def _two_point_fail_scalar(x0: float, x1: float, eps: float, dq: float, gam: float) -> float:
    """Scalar :func:`_two_point_fail` (failure probability only; nan where the numpy form gives nan/inf)."""
    ustar = eps / dq
    try:
        u0 = ustar / (1.0 + math.exp(-x0))
        u1 = ustar + math.exp(x1)
        c0 = -u0 * math.expm1(eps - dq * u0)
        c1 = -u1 * math.expm1(eps - dq * u1)
        p0 = c1 / (c1 - c0)
        p1 = -c0 / (c1 - c0)
        return p0 * math.exp(-gam * u0) + p1 * math.exp(-gam * u1)
    except (OverflowError, ZeroDivisionError, ValueError):
        return math.nan


def _opt_two_point(eps: float, dq: float, gam: float) -> MixingLaw:
    ustar = eps / dq
    X0, X1 = np.meshgrid(np.linspace(-8.0, 8.0, 25), math.log(ustar) + np.linspace(-7.0, 9.0, 33))
    fail, *_ = _two_point_fail(X0, X1, eps, dq, gam)
    fail = np.where(np.isfinite(fail), fail, np.inf)
    i = np.unravel_index(int(np.argmin(fail)), fail.shape)
    x, best = np.array([X0[i], X1[i]]), float(fail[i])

    def obj(z: np.ndarray) -> float:
        return _two_point_fail_scalar(float(z[0]), float(z[1]), eps, dq, gam)

    for step in (0.5, 0.1, 0.02):  # restarted Nelder–Mead (the valley is narrow and curved)
        simplex = np.array([x, x + [step, 0.0], x + [0.0, step]])
        rx, rf = _nelder_mead(obj, x, xatol=1e-10, fatol=1e-16, maxfev=400, initial_simplex=simplex)
        if rf <= best:
            x, best = rx, float(rf)
    _, u0, u1, (p0, p1) = _two_point_fail(x[0], x[1], eps, dq, gam)
    u0, u1, p0, p1 = float(u0), float(u1), float(p0), float(p1)
    if p0 <= p1:  # list the rarer atom first so its (possibly tiny, ~e^{-ε}) probability is stored exactly
        return TwoPoint(u0, u1, p0)
    return TwoPoint(u1, u0, p1)


@functools.lru_cache(maxsize=1024)
def _family_law(eps: float, dq: float, gam: float, family: str) -> MixingLaw:
    """The best law found inside one family (pure in its scalars, memoised: Alg. 1's Gamma+TN re-uses the Gamma
    and truncated-normal optima, and pages asking for the same (ε, γ, Δq) share them)."""
    if family == "laplace":
        return Dirac(eps / dq)
    if family == "two_point":
        return _opt_two_point(eps, dq, gam)
    if family == "gamma":
        return _opt_gamma(eps, dq, gam)
    if family == "uniform":
        return _opt_uniform(eps, dq, gam)
    if family == "truncated_normal":
        return _opt_tn(eps, dq, gam)
    g_law = _family_law(eps, dq, gam, "gamma")
    t_law = _family_law(eps, dq, gam, "truncated_normal")
    fam_law = _opt_gamma_tn(eps, dq, gam, [g_law, t_law])
    for cand in (g_law, t_law):
        if float(usefulness(cand, gamma=gam)) > float(usefulness(fam_law, gamma=gam)):
            fam_law = cand
    return fam_law


def optimize(
    *, epsilon: float, gamma: float, sensitivity: float = 1.0, family: str = "two_point"
) -> OptimizationResult:
    """Usefulness-optimal mixing law of a family under the exact ε constraint (Alg. 1, spec §6).

    Families: ``"laplace"``; ``"two_point"`` (the global optimum over *all* mixing laws, §4.5);
    ``"gamma"`` (§6.3), ``"uniform"`` (§6.4), ``"truncated_normal"`` (§6.5, low >= 0, no upper cut),
    ``"gamma+truncated_normal"`` (Algorithm 1's combination, §6.6; best effort, never worse than
    the single-family optima). The result always holds the better of the family optimum and
    Laplace (``laplace_optimal`` tells which), with ε recomputed by Cor. 3.3.
    """
    eps = _v.positive("epsilon", epsilon)
    gam = _v.positive("gamma", gamma)
    dq = _v.positive("sensitivity", sensitivity)
    family = _v.choice("family", family, FAMILIES)
    lap = Dirac(eps / dq)
    u_lap = float(usefulness(lap, gamma=gam))
    fam_law = _family_law(eps, dq, gam, family)
    fam_eps = _epsilon_of(fam_law, dq)
    fam_u = float(usefulness(fam_law, gamma=gam))
    if abs(fam_eps - eps) > 1e-7 * max(1.0, eps):  # safety net: never return a law over budget
        fam_u = -math.inf
    better = fam_u > u_lap + 1e-12  # ties (e.g. a two-point law collapsing onto u*) count as Laplace
    law = fam_law if better else lap
    return OptimizationResult(
        family=family,
        law=law,
        epsilon=_epsilon_of(law, dq),
        usefulness=fam_u if better else u_lap,
        family_law=fam_law,
        family_usefulness=fam_u,
        laplace_usefulness=u_lap,
        laplace_optimal=not better,
        target_epsilon=eps,
        gamma=gam,
        sensitivity=dq,
    )


def _epsilon_of(law: MixingLaw, dq: float) -> float:
    return epsilon(law, sensitivity=dq)


def two_point_lp(
    *, epsilon: float, gamma: float, sensitivity: float = 1.0, atoms: int = 6000
) -> tuple[float, np.ndarray, np.ndarray]:
    """LP cross-check of §4.5: min Σ p_i e^{-γ u_i} s.t. Σ p_i c(u_i) <= 0 over a log grid of atoms.

    Returns (usefulness, support atoms, their probabilities) — the support has <= 2 atoms.
    """
    from scipy.optimize import linprog

    eps = _v.positive("epsilon", epsilon)
    gam = _v.positive("gamma", gamma)
    dq = _v.scale("sensitivity", sensitivity)
    n = _v.integer("atoms", atoms, low=10, high=MAX_LP_ATOMS)
    ustar = eps / dq
    if not _v.MIN_SCALE <= ustar <= _v.MAX_SCALE:
        raise ValueError(f"epsilon/sensitivity must be in [{_v.MIN_SCALE:g}, {_v.MAX_SCALE:g}], got {ustar:g}")
    u = np.unique(np.concatenate([np.geomspace(1e-4, 1e3, n) * ustar, [ustar]]))
    cu = _c(u, eps, dq)
    if not np.all(np.isfinite(cu)):  # u(1 − e^{ε − Δq·u}) overflows on the grid's small atoms once ε ≳ 709
        raise ValueError(f"epsilon must be at most about 700 for the LP grid (e^epsilon overflows), got {eps:g}")
    res = linprog(np.exp(-gam * u), A_ub=cu[None, :], b_ub=[0.0], A_eq=np.ones((1, u.size)), b_eq=[1.0],
                  bounds=(0, None), method="highs")
    if res.x is None:  # extreme ε·γ/Δq: the grid's costs under/overflow and HiGHS finds no solution
        raise ValueError(f"no LP solution for epsilon={eps:g}, gamma={gam:g}, sensitivity={dq:g}: {res.message}")
    p = res.x
    keep = p > 1e-9
    return 1.0 - float(res.fun), u[keep], p[keep]


# --------------------------------------------------------------------------------------------
# curves for the app (§11)
# --------------------------------------------------------------------------------------------


def usefulness_curves(
    epsilons: Any, *, gamma: float, sensitivity: float = 1.0, families: tuple[str, ...] = FAMILIES[:5]
) -> pd.DataFrame:
    """Long table (epsilon, family, usefulness, ratio) over an ε grid: each optimised family,
    plus "staircase" (§11 panel 5; use γ/Δq grids for panel 6)."""
    e = _eps_array(epsilons).ravel()
    rows = []
    families = _v.sequence("families", families)
    for fam in families:
        _v.choice("family", fam, FAMILIES)
    for ei in e:
        lap = float(laplace_usefulness(ei, gamma=gamma, sensitivity=sensitivity))
        for fam in families:
            res = optimize(epsilon=float(ei), gamma=gamma, sensitivity=sensitivity, family=fam)
            rows.append((float(ei), fam, res.usefulness, res.usefulness / lap))
        st = float(staircase_usefulness(ei, gamma=gamma, sensitivity=sensitivity))
        rows.append((float(ei), "staircase", st, st / lap))
    return pd.DataFrame(rows, columns=["epsilon", "family", "usefulness", "ratio"])


def improvement_map(
    epsilons: Any, g_values: Any, *, family: str = "gamma", sensitivity: float = 1.0
) -> pd.DataFrame:
    """Region-of-improvement grid (§11 panel 7): ratio U*_family / U_Lap over (ε, γ/Δq)."""
    e = _eps_array(epsilons).ravel()
    gv = _v.real_array("g_values", g_values, low=0.0, allow_inf=False).ravel()
    if np.any(gv <= 0):
        raise ValueError("g_values must be > 0")
    family = _v.choice("family", family, FAMILIES)
    dq = _v.positive("sensitivity", sensitivity)
    rows = []
    for ei in e:
        for gi in gv:
            res = optimize(epsilon=float(ei), gamma=float(gi * dq), sensitivity=dq, family=family)
            rows.append((float(ei), float(gi), res.usefulness, res.laplace_usefulness, res.ratio))
    return pd.DataFrame(rows, columns=["epsilon", "g", "usefulness", "laplace_usefulness", "ratio"])


def gamma_landscape(
    k: Any, theta: Any, *, gamma: float, sensitivity: float = 1.0
) -> dict[str, np.ndarray]:
    """Gamma-family constraint landscape on a (k, θ) mesh (§11 panel 8): usefulness, exact ε
    ((k+1) ln(1+Δqθ)) and the necessary-condition value ln M(Δq) (inf where Δqθ >= 1)."""
    kk = _v.real_array("k", k, low=0.0, allow_inf=False)
    tt = _v.real_array("theta", theta, low=0.0, allow_inf=False)
    if np.any(kk <= 0):
        raise ValueError("k must be > 0")
    if np.any(tt <= 0):
        raise ValueError("theta must be > 0")
    gam = _v.positive("gamma", gamma)
    dq = _v.positive("sensitivity", sensitivity)
    K, T = np.meshgrid(kk, tt, indexing="ij")
    return {
        "k": K,
        "theta": T,
        "usefulness": -np.expm1(-K * np.log1p(T * gam)),
        "epsilon": (K + 1) * np.log1p(dq * T),
        "necessary_condition": _gamma_logd(dq, 0, K, T),
    }


# --------------------------------------------------------------------------------------------
# paper reproduction helpers
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lemma410:
    """Lemma 4.10 numbers: TN(μ=0.5223, σ=1.5454, low=0.5223), Δq = 0.6."""

    epsilon: float
    log_mgf_at_sensitivity: float
    law: MixingLaw


def lemma_4_10(*, variant: Literal["exact", "as_printed"] = "exact") -> Lemma410:
    """Lemma 4.10: exact ε = 1.180112, ln M(+Δq) = 1.241735; as printed ε = 1.1703 (E13, off by 0.0098)."""
    variant = _v.choice("variant", variant, ("exact", "as_printed"))
    law = TruncatedNormal(0.5223, 1.5454, 0.5223)
    if variant == "as_printed":
        return Lemma410(1.1703, 1.2417, law)
    return Lemma410(epsilon(law, sensitivity=0.6), necessary_condition(law, sensitivity=0.6), law)


def gaussian_kappa(epsilon: float, delta: float) -> float:
    """κ(δ, ε) = (K + sqrt(K² + 2ε))/(2ε), K = Q^{-1}(δ): σ = κ Δq (Thm A.2, Le Ny–Pappas; mislabelled E10)."""
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
    """R²DP Gaussian usefulness 1 - 2 E_σ[Q(γ/σ)] (Thm A.3 averaged over a discrete σ law, §8)."""
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
    """δ(ε) of the R²DP Gaussian mechanism with σ ~ discrete law (Cor. A.4, corrected §8).

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
        return sp.logsumexp(np.log(w)[:, None] - np.log(s)[:, None] - _LOG_SQRT_2PI
                            - 0.5 * (x[None, :] / s[:, None]) ** 2, axis=0)

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
            roots.append(_opt.brentq(lambda y: float(logf(np.array([y]))[0] - e - logf(np.array([y - shift]))[0]),
                                     x[i], x[i + 1], xtol=1e-14))
        edges = [-math.inf, *roots, math.inf]
        total = 0.0
        for j in range(len(edges) - 1):
            lo_, hi_ = edges[j], edges[j + 1]
            mid = 0.5 * (lo_ + hi_) if math.isfinite(lo_) and math.isfinite(hi_) else (
                hi_ - 1.0 if math.isfinite(hi_) else (lo_ + 1.0 if math.isfinite(lo_) else 0.0))
            if float(logf(np.array([mid]))[0] - e - logf(np.array([mid - shift]))[0]) > 0:
                pa = cdf(hi_) - cdf(lo_)
                pb = cdf(hi_ - shift) - cdf(lo_ - shift)
                total += pa - math.exp(e) * pb
        return max(total, 0.0)

    shifts = np.linspace(dq / 8, dq, 8)
    return float(max(hockey(float(sh)) for sh in shifts))
