"""Mixing laws: the distribution G of the inverse Laplace scale u = 1/b.

Mohammady et al. 2020 (R²DP), Section IV-B ("Finding utility-maximizing probability distributions") and IV-C
(combined PDFs): Dirac = plain Laplace (Thm 4.3), two-point (the Bernoulli law of Thm 4.4), Gamma (Thm 4.5),
Uniform (Thm 4.7), lower-truncated normal (Thm 4.9) and non-negative linear combinations of independent laws
(Thm 4.11, Cor. 4.12). Each law knows its log-MGF derivatives, its sampler and its rescaling u → c·u.
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import numpy as np
from scipy import integrate, stats
from scipy import special as sp

from dpcore import _validate as _v
from dpcore.r2dp._mgf import _atoms_logd, _gamma_logd, _mills_g, _tn_logd, _uniform_logd


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
        for val, p in zip(*self.atoms, strict=True):
            out = out + np.where(arr == val, p, 0.0)
        return _out(out, u)

    def _small_u_exponent(self) -> float:
        return math.inf

    @property
    def mean(self) -> float:
        vals, probs = self.atoms
        return float(sum(p * v for v, p in zip(vals, probs, strict=True) if p > 0))

    def _inverse_moment(self, m: int) -> float:
        vals, probs = self.atoms
        return float(sum(p / v**m for v, p in zip(vals, probs, strict=True) if p > 0))


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
    """u = u0 with probability p, u = u1 with probability 1 - p (the Bernoulli law of Thm 4.4;
    the paper's pmf and MGF put p on different atoms, here p is always the probability of u0).

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
        return _out(stats.gamma.pdf(np.asarray(u, dtype=float), self.k, scale=self.theta), u)

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
    """u ~ N(μ, σ²) conditioned on u >= low (low >= 0; Thm 4.9, Lemma 4.10).

    The paper's Eq. 9 also names an upper truncation point but never uses it: it is +∞ here.
    """

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
        arr = np.asarray(u, dtype=float)
        return _out(stats.truncnorm.pdf(arr, self.alpha, np.inf, loc=self.mu, scale=self.sigma), u)

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
            for law, a, m in zip(self.laws, self.coefficients, ns, strict=True):
                lt = lt + m * math.log(a) + law.log_mgf_derivative(a * t, m)
            terms.append(np.asarray(lt, dtype=float))
        with np.errstate(all="ignore"):
            return sp.logsumexp(np.stack(np.broadcast_arrays(*terms)), axis=0)

    @property
    def mean(self) -> float:
        return float(sum(a * law.mean for law, a in zip(self.laws, self.coefficients, strict=True)))

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
                lambda x, ui=ui: float(l1.pdf(x)) * float(l2.pdf((ui - a1 * x) / a2)) / a2,  # type: ignore[attr-defined]
                0,
                ui / a1,
                limit=200,
            )[0]
        return _out(out.reshape(np.shape(u)), u)

    def sample(self, n: int, rng: Any = None) -> np.ndarray:
        n = _v.integer("n", n, low=0)
        g = _v.rng(rng)
        return np.asarray(sum(a * law.sample(n, g) for law, a in zip(self.laws, self.coefficients, strict=True)))

    def scaled(self, c: float) -> Combination:
        c = _v.positive("c", c)
        return Combination(self.laws, tuple(a * c for a in self.coefficients))

    def _small_u_exponent(self) -> float:
        return float(sum(law._small_u_exponent() for law in self.laws))


def _has_infinite_atom(law: MixingLaw) -> bool:
    return isinstance(law, _Discrete) and any(math.isinf(u) and p > 0 for u, p in zip(*law.atoms, strict=True))


def _law(law: Any) -> MixingLaw:
    if not isinstance(law, MixingLaw):
        raise ValueError(f"law must be a MixingLaw (Dirac, TwoPoint, Gamma, ...), got {law!r}")
    return law
