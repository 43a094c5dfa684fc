"""Numbers of the first course's pictures that no paper page computes (the other chapters reuse the pages' own
compute functions): one Laplace noise for a count, and the accuracy each mechanism reaches against ε."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from app.compute._cache import cached
from dpcore import baseline, negotiate

#: The course's fixed settings: counts (one person changes a count by at most Δ = 1), δ = 10⁻⁵ where a δ is needed,
#: 95 % confidence for "accurate enough", and the error tolerance of the paper chapters.
SENSITIVITY, DELTA, CONFIDENCE, THETA = 1.0, 1e-5, 0.95, 1.0


@dataclass(frozen=True)
class LaplaceNoise:
    """The Laplace noise of a count at ε: its density (x, density), its scale b = Δ/ε, and the chance that a
    release lands within ±θ of the true count."""

    frame: pd.DataFrame
    scale: float
    within: float


@cached
def laplace_noise(epsilon: float, theta: float = THETA) -> LaplaceNoise:
    """Laplace noise of scale b = Δ/ε (pure ε-DP for a count) on a grid of ±8 scales, or at least ±3θ."""
    b = SENSITIVITY / epsilon
    half = max(8.0 * b, 3.0 * theta)
    x = np.linspace(-half, half, 401)
    density = baseline.noise_density(x, mechanism="laplace", scale=b)
    within = float(baseline.within_probability(theta, mechanism="laplace", scale=b))
    return LaplaceNoise(pd.DataFrame({"x": x, "density": density}), b, within)


@dataclass(frozen=True)
class Needed:
    """The smallest ε at which each classic mechanism meets "within ±θ in ``confidence`` of releases"."""

    laplace: float
    gaussian: float


@cached
def epsilon_needed(theta: float, confidence: float = CONFIDENCE, delta: float = DELTA) -> Needed:
    """Smallest ε of Laplace and Gaussian noise for a count to land within ±θ with probability ``confidence``."""
    df = negotiate.epsilon_for_accuracy(
        theta=theta, confidence=confidence, sensitivity=SENSITIVITY, delta=delta, mechanisms=("laplace", "gaussian")
    )
    eps = dict(zip(df["mechanism"], df["epsilon"], strict=True))
    return Needed(laplace=float(eps["laplace"]), gaussian=float(eps["gaussian"]))
