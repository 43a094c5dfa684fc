"""Noise families of SVT and how to draw them (Liu et al. 2024, §2.2 and Table 1).

``Lap(b)`` has scale b, ``Exp(θ)`` has scale (mean) θ = 1/λ (the paper's Exp(1/λ), Alg. 2 line 4), ``Gum(s)``
is the right-skewed Gumbel with scale s, Gaussians are given by σ. The threshold noise ρ is Laplace (Gaussian
for SVT-Gau); the query noise v is any of the four.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special, stats

from dpcore import _validate as _v

__all__ = ["EULER_GAMMA", "MAX_SAMPLES", "NOISES", "THRESHOLD_NOISES", "sample_noise"]

NOISES = ("exponential", "laplace", "gaussian", "gumbel")
THRESHOLD_NOISES = ("laplace", "gaussian")
EULER_GAMMA = float(np.euler_gamma)
#: Most noise draws in one :func:`sample_noise` call (the app draws ≤ 10⁶).
MAX_SAMPLES = 100_000_000


def _gauss_multiplier(delta: float) -> float:
    """Classic Gaussian-mechanism multiplier s = √(2 ln(1.25/δ)) (Dwork and Roth 2014, Thm A.1)."""
    return math.sqrt(2.0 * math.log(1.25 / delta))


def _variance_per_scale2(noise: str) -> float:
    """Var(noise) / scale² for the four families (Gaussian 'scale' = σ)."""
    return {"exponential": 1.0, "laplace": 2.0, "gumbel": math.pi**2 / 6.0, "gaussian": 1.0}[noise]


_FAMILIES = {"exponential": stats.expon, "laplace": stats.laplace, "gumbel": stats.gumbel_r, "gaussian": stats.norm}


class _Scaled:
    """A noise family at one scale: ``_dist("laplace", b).logpdf(x)`` is ``stats.laplace.logpdf(x, scale=b)``.

    Not scipy's frozen distribution: freezing one builds its docstring (bench/results-where-time-goes.md), which the
    SVT correction pays for
    every r it tries; the family's methods with the scale passed on each call give the same values."""

    __slots__ = ("_family", "_scale")

    def __init__(self, family, scale: float) -> None:
        self._family, self._scale = family, scale

    def __getattr__(self, name: str):
        return functools.partial(getattr(self._family, name), scale=self._scale)


def _dist(noise: str, scale: float) -> _Scaled:
    """A noise family's distribution at its scale (see :class:`_Scaled`)."""
    return _Scaled(_FAMILIES[noise], scale)


def _fast_cdf(noise: str, scale: float, x: np.ndarray) -> np.ndarray:
    """CDF of a noise family at its scale (plain numpy; avoids scipy's frozen-distribution overhead)."""
    y = np.asarray(x, dtype=float) / scale
    with np.errstate(over="ignore", under="ignore"):
        if noise == "exponential":
            return -np.expm1(-np.maximum(y, 0.0))
        if noise == "laplace":
            return np.where(y < 0, 0.5 * np.exp(np.minimum(y, 0.0)), 1 - 0.5 * np.exp(-np.maximum(y, 0.0)))
        if noise == "gumbel":
            return np.exp(-np.exp(-y))
        return special.ndtr(y)


def _fast_sf(noise: str, scale: float, x: float) -> float:
    y = x / scale
    if noise == "exponential":
        return math.exp(-max(y, 0.0))
    if noise == "laplace":
        return 0.5 * math.exp(-y) if y >= 0 else 1 - 0.5 * math.exp(y)
    if noise == "gumbel":
        return -math.expm1(-math.exp(-y))
    return float(special.ndtr(-y))


def _quantile_bound(noise: str, scale: float, e: float) -> float:
    """max(F⁻¹(1 − e), −F⁻¹(e), 0): half-width leaving mass ≤ e in each tail."""
    if e < 1e-300:  # 1/e would overflow: the same logs, taken apart
        return (
            scale * -math.log(e)
            if noise == "exponential"
            else (
                scale * -(math.log(2.0) + math.log(e))
                if noise == "laplace"
                else scale * math.log(-math.log(e))
                if noise == "gumbel"
                else -scale * float(special.ndtri(e))
            )
        )
    if noise == "exponential":
        return scale * math.log(1 / e)
    if noise == "laplace":
        return scale * max(math.log(1 / (2 * e)), 0.0)
    if noise == "gumbel":
        return scale * max(-math.log(-math.log1p(-e)), math.log(-math.log(e)), 0.0)
    return -scale * float(special.ndtri(e))


def _query_cdf_sf(noise: str, scale: float):
    """(F_v, S_v) as vectorised callables."""
    if noise == "exponential":
        return (
            lambda x: -np.expm1(-np.maximum(x, 0.0) / scale),
            lambda x: np.exp(-np.maximum(x, 0.0) / scale),
        )
    d = _dist(noise, scale)
    return d.cdf, d.sf


def _check_pair(threshold_scale, query_scale, query_noise, threshold_noise):
    b = _v.scale("threshold_scale", threshold_scale)
    th = _v.scale("query_scale", query_scale)
    qn = _v.choice("query_noise", query_noise, NOISES)
    tn = _v.choice("threshold_noise", threshold_noise, THRESHOLD_NOISES)
    return b, th, qn, tn


def _out(x: np.ndarray, z_in) -> np.ndarray | float:
    return float(x) if np.ndim(z_in) == 0 else x


def sample_noise(noise: str, scale: float, size: int | tuple[int, ...] = 1, rng=None) -> np.ndarray:
    """Draw noise of a family at its scale (scale parameterisation): Exp(θ), Lap(b), Gum(s), N(0, σ²)."""
    noise = _v.choice("noise", noise, NOISES)
    sc = _v.scale("scale", scale)
    if isinstance(size, tuple):
        size = tuple(_v.integer("size", n, low=0, high=MAX_SAMPLES) for n in size)
        if math.prod(size) > MAX_SAMPLES:
            raise ValueError(f"size must hold at most {MAX_SAMPLES} draws in all, got {size!r}")
    else:
        size = _v.integer("size", size, low=0, high=MAX_SAMPLES)
    g = _v.rng(rng)
    if noise == "exponential":
        return g.exponential(sc, size)
    if noise == "laplace":
        return g.laplace(0.0, sc, size)
    if noise == "gumbel":
        return g.gumbel(0.0, sc, size)
    return g.normal(0.0, sc, size)
