"""The sidebar law's picture (Mohammady et al. 2020, Sections 3–4): the law of u, the noise it adds, its privacy
loss (Thm 3.2) and its moment generating function (Thm 4.2)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.r2dp.law import LawKey, make_law
from dpcore import r2dp

MC_SAMPLES = 20_000
#: Draws behind the noise histogram after the "sample 10⁵" button .
BIG_SAMPLES = 100_000


@cached
def mixing_law(key: LawKey, epsilon: float, sensitivity: float, seed: int, as_scale: bool = False) -> pd.DataFrame:
    """Density (or pmf) of u = 1/b — or, with ``as_scale``, of the Laplace scale b = 1/u — on a grid covering
    99.5 % (b: 99 %) of the law and the Laplace value u* = ε/Δq (b* = Δq/ε).

    Columns: x (u or b), density, kind ("pdf", "pmf" or "histogram" — the Gamma+TN density is a sampled histogram,
    its convolution integral being too slow for an interactive page).
    """
    law = make_law(key)
    if law.discrete:
        atoms, probs = law.atoms
        x = 1.0 / np.asarray(atoms) if as_scale else np.asarray(atoms)
        return pd.DataFrame({"x": x, "density": probs, "kind": "pmf"})
    draws = law.sample(MC_SAMPLES, np.random.default_rng(seed))
    if as_scale:
        draws = 1.0 / draws
        top = max(float(np.quantile(draws, 0.99)), 1.5 * sensitivity / epsilon)
    else:
        top = max(float(np.quantile(draws, 0.995)), 1.5 * epsilon / sensitivity)
    if isinstance(law, r2dp.Combination):
        counts, edges = np.histogram(draws, bins=80, range=(0.0, top))
        return pd.DataFrame(
            {"x": (edges[:-1] + edges[1:]) / 2, "density": counts / (draws.size * np.diff(edges)), "kind": "histogram"}
        )
    x = np.linspace(top / 200, top, 200)
    return pd.DataFrame({"x": x, "density": r2dp.scale_pdf(law, x) if as_scale else law.pdf(x), "kind": "pdf"})


class NoiseView(NamedTuple):
    """The noise panel: the three noise densities, a histogram of sampled noise, and its share within ±γ."""

    densities: pd.DataFrame  #: w, r2dp, laplace, staircase
    histogram: pd.DataFrame  #: bin_left, bin_right, count, empirical_density
    sampled: float


@cached
def noise(
    key: LawKey, epsilon: float, gamma: float, sensitivity: float, seed: int, samples: int = MC_SAMPLES
) -> NoiseView:
    """Noise densities (R²DP, Laplace(Δq/ε), optimal staircase), a seeded histogram of ``samples`` draws and the
    sampled share within ±γ ("sample 10⁵" sets ``samples`` = :data:`BIG_SAMPLES`).

    Window: |w| ≤ min(5Δq, max(3γ, 8Δq/ε)) — ±5Δq, narrowed at large ε where all the mass is near 0.

    The histogram's densities are normalised by all draws, so bars outside the window are simply not shown.
    """
    law = make_law(key)
    half = min(5.0, max(3 * gamma / sensitivity, 8.0 / epsilon)) * sensitivity
    w = np.linspace(-half, half, 401)
    r_star = r2dp.staircase_optimal_r(epsilon, gamma=gamma, sensitivity=sensitivity)
    dens = pd.DataFrame(
        {
            "w": w,
            "r2dp": r2dp.noise_density(w, law),
            "laplace": r2dp.noise_density(w, r2dp.Dirac(epsilon / sensitivity)),
            "staircase": r2dp.staircase_density(w, epsilon, sensitivity=sensitivity, r=r_star),
        }
    )
    draws = r2dp.sample_noise(samples, law, np.random.default_rng(seed))
    counts, edges = np.histogram(draws, bins=100, range=(-half, half))
    hist = pd.DataFrame(
        {
            "bin_left": edges[:-1],
            "bin_right": edges[1:],
            "count": counts,
            "empirical_density": counts / (draws.size * np.diff(edges)),
        }
    )
    return NoiseView(dens, hist, float(np.mean(np.abs(draws) <= gamma)))


@cached
def loss_profile(key: LawKey, epsilon: float, sensitivity: float) -> pd.DataFrame:
    """Privacy-loss profile L(y) = ln f(y) − ln f(y − Δq) of the law and of Laplace at ε (Thm 3.2, Cor. 3.3)."""
    law = make_law(key)
    y = np.linspace(-3 * sensitivity, 4 * sensitivity, 351)
    return pd.DataFrame(
        {
            "y": y,
            "r2dp": r2dp.privacy_loss(y, law, sensitivity=sensitivity),
            "laplace": r2dp.privacy_loss(y, r2dp.Dirac(epsilon / sensitivity), sensitivity=sensitivity),
        }
    )


@cached
def mgf_view(key: LawKey, gamma: float, sensitivity: float) -> pd.DataFrame:
    """M(t) and M′(t) on t ∈ [min(−3γ, −1.5Δq), Δq]; +inf where the MGF diverges is left blank."""
    law = make_law(key)
    t = np.linspace(min(-3 * gamma, -1.5 * sensitivity), sensitivity, 200)
    with np.errstate(over="ignore"):
        m = np.asarray(law.mgf(t), dtype=float)
        mp = np.asarray(law.mgf_prime(t), dtype=float)
    return pd.DataFrame(
        {"t": t, "M": np.where(np.isfinite(m), m, np.nan), "M_prime": np.where(np.isfinite(mp), mp, np.nan)}
    )
