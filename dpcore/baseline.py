"""The baseline additive-noise mechanisms every paper compares against: Gaussian N(0, σ²) and Laplace Lap(b).

Noise densities, accuracy P(|noise| ≤ θ), the error bound θ met with a given confidence, a vectorised sampler,
and the calibrated pair for a target (ε, δ) through :mod:`dpcore.accounting`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from dpcore import _validate as _v
from dpcore import accounting

__all__ = [
    "MECHANISMS",
    "Calibration",
    "calibrate",
    "noise_density",
    "within_probability",
    "error_bound",
    "sample_noise",
]

MECHANISMS = ("gaussian", "laplace")


class _Noise:
    """N(0, σ²) or Lap(0, b) as a scipy.stats distribution at a fixed scale.

    Not a frozen scipy distribution: freezing builds a new distribution object with its docstring
    (bench/results-where-time-goes.md), which
    a page that asks for a density, an accuracy and a sample on every slider move pays several times.
    """

    __slots__ = ("dist", "kwds")

    def __init__(self, dist: stats.rv_continuous, scale: float) -> None:
        self.dist, self.kwds = dist, {"scale": scale}

    def pdf(self, x: np.ndarray) -> np.ndarray:
        return self.dist.pdf(x, **self.kwds)

    def cdf(self, x: np.ndarray) -> np.ndarray:
        return self.dist.cdf(x, **self.kwds)

    def ppf(self, q: float) -> np.ndarray:
        return self.dist.ppf(q, **self.kwds)


def _dist(mechanism: str, scale: float) -> _Noise:
    m = _v.choice("mechanism", mechanism, MECHANISMS)
    s = _v.scale("scale", scale)
    return _Noise(stats.norm if m == "gaussian" else stats.laplace, s)


@dataclass(frozen=True)
class Calibration:
    """Noise scales of the two baselines calibrated to the same (ε, δ) and sensitivity."""

    epsilon: float
    delta: float
    sensitivity: float
    sigma: float  # analytic Gaussian σ (or classic, if requested)
    laplace_scale: float  # b = Δ/ε′ with ε′ = ε − 2 ln(1 − δ)
    method: str

    def scale(self, mechanism: str) -> float:
        """σ for ``"gaussian"``, b for ``"laplace"``."""
        return self.sigma if _v.choice("mechanism", mechanism, MECHANISMS) == "gaussian" else self.laplace_scale


def calibrate(epsilon: float, delta: float, *, sensitivity: float = 1.0, method: str = "analytic") -> Calibration:
    """Calibrate both baselines to (ε, δ): analytic (default) or classic Gaussian σ, and the tight Laplace b."""
    sigma = accounting.gaussian_sigma(epsilon, delta, sensitivity=sensitivity, method=method)
    b = accounting.laplace_scale(epsilon, sensitivity=sensitivity, delta=delta)
    return Calibration(float(epsilon), float(delta), float(sensitivity), sigma, b, method)


def noise_density(x: float | np.ndarray, *, mechanism: str, scale: float) -> float | np.ndarray:
    """Density of the noise at x: N(0, σ²) or Lap(0, b) (``scale`` is σ or b)."""
    arr = _v.real_array("x", x)
    out = _dist(mechanism, scale).pdf(arr)
    return float(out) if np.ndim(out) == 0 else out


def within_probability(theta: float | np.ndarray, *, mechanism: str, scale: float) -> float | np.ndarray:
    """P(|noise| ≤ θ): erf(θ/(σ√2)) for Gaussian, 1 − e^{−θ/b} for Laplace (the p_θ of Jiang et al. 2024, Eq. 4)."""
    th = _v.real_array("theta", theta, low=0.0)
    d = _dist(mechanism, scale)
    out = d.cdf(th) - d.cdf(-th)
    return float(out) if np.ndim(out) == 0 else out


def error_bound(confidence: float, *, mechanism: str, scale: float) -> float:
    """Smallest θ with P(|noise| ≤ θ) ≥ confidence: σ Φ⁻¹((1+c)/2) or −b ln(1 − c)."""
    c = _v.probability("confidence", confidence, high_open=True)
    return float(_dist(mechanism, scale).ppf((1.0 + c) / 2.0)) if c > 0 else 0.0


def sample_noise(n: int, *, mechanism: str, scale: float, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """n independent noise draws (10⁶ draws take a few ms)."""
    k = _v.integer("n", n, low=0, high=100_000_000)
    d = _dist(mechanism, scale)
    g = _v.rng(rng)
    s = d.kwds["scale"]
    return g.normal(0.0, s, k) if mechanism == "gaussian" else g.laplace(0.0, s, k)
