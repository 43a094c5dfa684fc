"""Numbers of the first course's pictures that no paper page computes (the other chapters reuse the pages' own
compute functions): one Laplace noise for a count, and the accuracy each mechanism reaches against ε."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from app.compute._cache import cached
from dpcore import baseline, calibrate, negotiate

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


#: Half the width of the noise chapter's picture, the same at every ε: the curve visibly spreads as ε shrinks (an
#: axis fitted to each ε would draw the same shape at every ε, only the tick numbers changing).
NOISE_HALF_WIDTH = 10.0


@cached
def laplace_noise(epsilon: float, theta: float = THETA) -> LaplaceNoise:
    """Laplace noise of scale b = Δ/ε (pure ε-DP for a count) on one grid for every ε, ±:data:`NOISE_HALF_WIDTH`
    (at least ±3θ), fine enough for the sharp peak of the largest ε."""
    b = SENSITIVITY / epsilon
    half = max(NOISE_HALF_WIDTH, 3.0 * theta)
    x = np.linspace(-half, half, 1601)
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


@cached
def two_noises(delta: float, epsilon: float = 1.0, *, widest_delta: float) -> pd.DataFrame:
    """The Gaussian (analytic calibration at ``delta``) and the Laplace noise that keep ε, on one grid for every δ of
    the chapter's control: ±4σ of the smallest δ (``widest_delta``), the widest Gaussian. Columns x, gaussian,
    laplace."""
    half = max(4.0 * calibrate(epsilon, widest_delta, sensitivity=SENSITIVITY, method="analytic").sigma, 7.0)
    cal = calibrate(epsilon, delta, sensitivity=SENSITIVITY, method="analytic")
    x = np.linspace(-half, half, 801)
    return pd.DataFrame(
        {
            "x": x,
            "gaussian": baseline.noise_density(x, mechanism="gaussian", scale=cal.scale("gaussian")),
            "laplace": baseline.noise_density(x, mechanism="laplace", scale=cal.scale("laplace")),
        }
    )
