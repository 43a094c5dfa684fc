"""The Gaussian appendix of Mohammady et al. (2020), Thm A.2–A.3 and Cor. A.4: the calibration's claimed and
exact δ, and mixtures of Gaussian scales."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from app.compute._cache import cached
from app.notation import number
from dpcore import r2dp


@dataclass(frozen=True)
class GaussianCalibration:
    """Thm A.2–A.3 at one (ε, δ), Δq = 1."""

    kappa: float  # σ = κ Δq
    delta_printed: float  # the δ the calibration claims
    delta_exact: float  # the exact δ of the Gaussian at that σ
    usefulness: float  # 1 − 2Q(γ/σ)


@cached
def gaussian_appendix(epsilon: float, delta: float, gamma: float) -> GaussianCalibration:
    """Thm A.2–A.3 and Cor. A.4 at (ε, δ) with Δq = 1: κ, the δ the paper's calibration claims, the exact δ of the
    Gaussian at σ = κ (analytic, Balle & Wang 2018) and the usefulness 1 − 2Q(γ/σ)."""
    kappa = r2dp.gaussian_kappa(epsilon, delta)
    return GaussianCalibration(
        kappa=kappa,
        delta_printed=r2dp.gaussian_mixture_delta(epsilon, sigmas=[kappa], variant="as_printed"),
        delta_exact=r2dp.gaussian_mixture_delta(epsilon, sigmas=[kappa]),
        usefulness=r2dp.gaussian_usefulness([kappa], gamma=gamma),
    )


GAUSSIAN_MIXTURES = (((1.0, 4.0), (0.5, 0.5)), ((2.0,), (1.0,)), ((0.5, 2.0, 8.0), (0.25, 0.5, 0.25)))


@cached
def gaussian_mixtures(epsilon: float, gamma: float) -> pd.DataFrame:
    """Cor. A.4 for a few σ laws (Δq = 1): exact δ(ε) of the mixture, the sound average of per-σ δ, the paper's
    form, and the usefulness. Columns: σ law, exact δ, averaged δ, paper's δ, U(γ)."""
    rows = []
    for sigmas, weights in GAUSSIAN_MIXTURES:
        law = ", ".join(f"σ = {number(s)} w.p. {number(w)}" for s, w in zip(sigmas, weights, strict=True))
        rows.append(
            {
                "σ law": law,
                "exact δ": r2dp.gaussian_mixture_delta(epsilon, sigmas=sigmas, weights=weights),
                "averaged δ (sound)": r2dp.gaussian_mixture_delta(
                    epsilon, sigmas=sigmas, weights=weights, variant="averaged"
                ),
                "paper's δ": r2dp.gaussian_mixture_delta(epsilon, sigmas=sigmas, weights=weights, variant="as_printed"),
                "U(γ)": r2dp.gaussian_usefulness(sigmas, gamma=gamma, weights=weights),
            }
        )
    return pd.DataFrame(rows)
