"""Noise paths: Brownian and Laplace noise reduction sampled level by level.

Rogers, Samorodnitsky, Wu, Ramdas, "Adaptive Privacy Composition for Accuracy-first Mechanisms"
(NeurIPS 2023), Section 4 (Def. 4.4, Lemma 4.1) and Appendix A (Laplace noise reduction, after
Koufogiannis et al.). A noise reduction releases f(x) + Z_k at increasing levels ε_1 < ε_2 < …; the
noise Z_k shrinks and the values are coupled so that only the last release carries privacy loss.

* Brownian noise at level ε is Δ·B(1/ε²) for one standard Brownian motion B (variance Δ²/ε²);
  internally the "precision clock" s = ε² is used, in which W(s) = s·B(1/s) is a forward Brownian motion.
* Laplace noise at level ε is X(b) with b = Δ/ε, where X is the Laplace process (X(b) ~ Lap(b)).
"""

from __future__ import annotations

import abc
import math
from typing import Any

import numpy as np

from dpcore import _validate as _v
from dpcore.noise_reduction._checks import MAX_PATHS, _grid

__all__ = ["BrownianSampler", "LaplaceSampler", "brownian_path", "laplace_path"]


class _LevelSampler(abc.ABC):
    """A noise reduction sampled one level at a time: ``n_paths`` paths moved to ever larger levels ε.

    A subclass says how its noise moves from the current level to the next (:meth:`_advance`) and what the
    noise at the current level is (:meth:`_noise`); this class checks that the levels increase and records them.
    """

    def __init__(self, *, n_paths: int, sensitivity: float, rng: np.random.Generator | int | None) -> None:
        self.n_paths = _v.integer("n_paths", n_paths, low=1, high=MAX_PATHS)
        self.sensitivity = _v.scale("sensitivity", sensitivity)
        self._rng = _v.rng(rng)
        self._eps = 0.0
        self.epsilons: list[float] = []

    @property
    def epsilon(self) -> float:
        """Current noise level (0 before the first step)."""
        return self._eps

    @property
    def noise(self) -> np.ndarray:
        """Noise at the current level, shape (n_paths,)."""
        return self._noise()

    def step(self, epsilon: float) -> np.ndarray:
        """Noise at the next level ``epsilon`` (> the current one), shape (n_paths,)."""
        eps = _v.scale("epsilon", epsilon)
        if not eps > self._eps:
            raise ValueError(f"epsilon must be > the current level {self._eps:g}, got {eps:g}")
        self._advance(eps)
        self._eps = eps
        self.epsilons.append(eps)
        return self._noise()

    @abc.abstractmethod
    def _advance(self, eps: float) -> None:
        """Move every path from the current level to the larger level ``eps``."""

    @abc.abstractmethod
    def _noise(self) -> np.ndarray:
        """A fresh array of the noise at the current level."""


class BrownianSampler(_LevelSampler):
    """Brownian noise reduction sampled one level at a time, for grids chosen while running.

    Def 4.4 / Lemma 4.1. ``step(epsilon)`` returns the noise Z = Δ·B(1/ε²) at the next (larger) level,
    for ``n_paths`` independent paths. ``form="increment"`` uses W(s) = s·B(1/s) (a forward BM in
    s = ε²); ``form="bridge"`` uses the equivalent reverse-time step
    Z' = (s/s')·Z + √(s'−s)/s'·ξ. Both give exactly the same law.
    """

    def __init__(
        self,
        *,
        n_paths: int = 1,
        sensitivity: float = 1.0,
        form: str = "increment",
        rng: np.random.Generator | int | None = None,
    ) -> None:
        super().__init__(n_paths=n_paths, sensitivity=sensitivity, rng=rng)
        self.form = _v.choice("form", form, ("increment", "bridge"))
        self._s = 0.0
        self._w = np.zeros(self.n_paths)  # W(s) = s * B(1/s) in unit-sensitivity units
        self._z = np.zeros(self.n_paths)  # B(1/s) in unit-sensitivity units

    def _noise(self) -> np.ndarray:
        return self.sensitivity * self._z

    def _advance(self, eps: float) -> None:
        s_next = eps * eps
        ds = max(s_next - self._s, 0.0)
        xi = self._rng.standard_normal(self.n_paths)
        if self.form == "increment":
            self._w = self._w + math.sqrt(ds) * xi
            self._z = self._w / s_next
        else:
            self._z = (self._s / s_next) * self._z + math.sqrt(ds) / s_next * xi
            self._w = s_next * self._z
        self._s = s_next


def brownian_path(
    epsilons: Any,
    *,
    n_paths: int = 1,
    sensitivity: float = 1.0,
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """Coupled Brownian noise at every level of an increasing ε grid, shape (n_paths, len(epsilons)).

    Def 4.4; Z_k = Δ·B(1/ε_k²) for one standard BM B per row, computed as W(s_k)/s_k with
    W a BM in s = ε² (vectorised form). Marginals N(0, Δ²/ε_k²), Corr = min ε / max ε.
    """
    eps = _grid("epsilons", epsilons)
    n = _v.integer("n_paths", n_paths, low=1, high=MAX_PATHS)
    sens = _v.scale("sensitivity", sensitivity)
    gen = _v.rng(rng)
    s = eps * eps
    steps = np.sqrt(np.diff(s, prepend=0.0))
    w = np.cumsum(gen.standard_normal((n, s.size)) * steps, axis=1)
    return (sens / s) * w


def _laplace_reverse_step(x1: np.ndarray, b1: float, b2: float, gen: np.random.Generator) -> np.ndarray:
    """Exact draw of X(b2) given X(b1) = x1 for the Laplace process, b2 < b1 (Appendix A)."""
    a = np.abs(x1)
    sgn = np.where(x1 < 0, -1.0, 1.0)
    c = 1.0 / b2 + 1.0 / b1
    d = 1.0 / b2 - 1.0 / b1
    n = a.shape[0]
    if not d > 0:  # b2 == b1 in floating point: the path cannot move
        return np.array(x1, dtype=float, copy=True)
    stay = np.log1p(-gen.random(n)) < math.log(b2 / b1) - a * d
    pos = a > 0
    lm1 = -a / b1 - math.log(c)
    lm2 = np.where(pos, -a / b1 + np.log(np.where(pos, -np.expm1(-d * a), 1.0)) - math.log(d), -np.inf)
    lm3 = -a / b2 - math.log(c)
    top = np.maximum(np.maximum(lm1, lm2), lm3)
    p1, p2, p3 = np.exp(lm1 - top), np.exp(lm2 - top), np.exp(lm3 - top)
    tot = p1 + p2 + p3
    u = gen.random(n) * tot
    e = gen.standard_exponential(n)
    v = gen.random(n)
    x_mid = -np.log1p(v * np.expm1(-d * a)) / d
    x = np.where(u < p1, -e / c, np.where(u < p1 + p2, x_mid, a + e / c))
    return np.where(stay, x1, sgn * x)


def _laplace_reverse_step_one(x1: float, b1: float, b2: float, gen: np.random.Generator) -> float:
    """:func:`_laplace_reverse_step` for a single path (Appendix A): the same draws from ``gen`` in the same
    order and the same floating-point operations on numpy scalars, so the same value, without the cost of
    one-element arrays (a Laplace noise reduction takes one such step per level)."""
    c = 1.0 / b2 + 1.0 / b1
    d = 1.0 / b2 - 1.0 / b1
    if not d > 0:  # b2 == b1 in floating point: the path cannot move
        return x1
    a = np.abs(np.float64(x1))
    stay = np.log1p(-gen.random()) < math.log(b2 / b1) - a * d
    lm1 = -a / b1 - math.log(c)
    lm2 = -a / b1 + np.log(-np.expm1(-d * a)) - math.log(d) if a > 0 else -np.inf
    lm3 = -a / b2 - math.log(c)
    top = max(max(lm1, lm2), lm3)
    p1, p2, p3 = np.exp(lm1 - top), np.exp(lm2 - top), np.exp(lm3 - top)
    tot = p1 + p2 + p3
    u = gen.random() * tot
    e = gen.standard_exponential()
    v = gen.random()
    if stay:
        return x1
    if u < p1:
        x = -e / c
    elif u < p1 + p2:
        x = -np.log1p(v * np.expm1(-d * a)) / d
    else:
        x = a + e / c
    return float(-x if x1 < 0 else x)


class LaplaceSampler(_LevelSampler):
    """Laplace noise reduction sampled one level at a time with the exact reverse step.

    Appendix A, Def A.1 (Koufogiannis et al.). The noise at level ε is X(b), b = Δ/ε, where X is the
    Laplace process (X(b) ~ Lap(b), independent increments). Given X(b1) = x1 the next value stays
    at x1 with probability (b2/b1)·exp(−|x1|(1/b2 − 1/b1)), otherwise it is drawn from the density
    ∝ exp(−|x|/b2 − |x1 − x|/b1) by the three-piece exact sampler.
    """

    def __init__(
        self,
        *,
        n_paths: int = 1,
        sensitivity: float = 1.0,
        rng: np.random.Generator | int | None = None,
    ) -> None:
        super().__init__(n_paths=n_paths, sensitivity=sensitivity, rng=rng)
        self._b = math.inf
        self._x = np.zeros(self.n_paths)

    def _noise(self) -> np.ndarray:
        return self._x.copy()

    def _advance(self, eps: float) -> None:
        b2 = self.sensitivity / eps
        if math.isinf(self._b):
            self._x = self._rng.laplace(0.0, b2, self.n_paths)
        else:
            self._x = _laplace_reverse_step(self._x, self._b, b2, self._rng)
        self._b = b2


def laplace_path(
    epsilons: Any,
    *,
    n_paths: int = 1,
    sensitivity: float = 1.0,
    method: str = "fixed",
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """Coupled Laplace-process noise at every level of an increasing ε grid, shape (n_paths, len).

    Appendix A. Scales b_k = Δ/ε_k. ``method="fixed"`` samples the least noisy level
    first, X(b_K) ~ Lap(b_K), then adds increments that are 0 with probability (ε_k/ε_{k+1})² and
    Lap(b_k) otherwise; ``method="reverse"`` runs the exact reverse step from the noisiest
    level. Both are exact; marginals Lap(b_k), Corr = min ε / max ε.
    """
    eps = _grid("epsilons", epsilons)
    n = _v.integer("n_paths", n_paths, low=1, high=MAX_PATHS)
    sens = _v.scale("sensitivity", sensitivity)
    meth = _v.choice("method", method, ("fixed", "reverse"))
    gen = _v.rng(rng)
    b = sens / eps
    k = eps.size
    out = np.empty((n, k))
    if meth == "fixed":
        out[:, -1] = gen.laplace(0.0, b[-1], n)
        if k > 1:
            keep = (eps[:-1] / eps[1:]) ** 2  # P(flat between b_{k+1} and b_k)
            jump = gen.random((n, k - 1)) >= keep
            inc = np.where(jump, gen.laplace(0.0, 1.0, (n, k - 1)) * b[:-1], 0.0)
            out[:, :-1] = out[:, -1:] + np.cumsum(inc[:, ::-1], axis=1)[:, ::-1]
    else:
        out[:, 0] = gen.laplace(0.0, b[0], n)
        for j in range(1, k):
            out[:, j] = _laplace_reverse_step(out[:, j - 1], b[j - 1], b[j], gen)
    return out
