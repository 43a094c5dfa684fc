"""Numerical framework for the threshold correction (Liu et al. 2024, §4.3.3, Algorithms 3 and 4, Fig. 9).

Both noises are discretised on [−B, B], their pmfs FFT-convolved and the grid CDF Γ̄ of Z = v − ρ read off;
this works for any pair of noise families, where the closed form of App. D covers only Laplace–exponential.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import fft as sp_fft

from dpcore import _validate as _v
from dpcore.svt.noise import _check_pair, _fast_cdf, _fast_sf, _quantile_bound

__all__ = ["MAX_BINS", "DiscretisedComparison", "discretise_comparison"]

#: Most bins of the discretised comparison (Alg. 3/4; the app uses a few thousand).
MAX_BINS = 1_000_000


@dataclass(frozen=True)
class DiscretisedComparison:
    """Discretised Z = v − ρ (Algorithms 3/4): bin pmfs, FFT convolution and the grid CDF Γ̄."""

    n_bins: int
    tail_mass: float
    bound: float  # B
    width: float  # u = B/(m − 1)
    edges: np.ndarray = field(repr=False)  # left edges i·u, i = −(m−1)..m−2
    query_pmf: np.ndarray = field(repr=False)  # Ē (interior bins)
    neg_threshold_pmf: np.ndarray = field(repr=False)  # pmf of −ρ on the same bins (L̄ reflected)
    z: np.ndarray = field(repr=False)  # midpoints z_n of the convolution bins
    pmf: np.ndarray = field(repr=False)  # convolution (mass of each z_n bin)
    cdf_grid: np.ndarray = field(repr=False)  # Γ̄(z_n)
    mass_minus_inf: float
    mass_plus_inf: float

    def cdf(self, z) -> np.ndarray:
        """Γ̄ by linear interpolation between grid points; tails: mass(−∞) left, 1 − mass(+∞) right."""
        return np.interp(z, self.z, self.cdf_grid, left=self.mass_minus_inf, right=1.0 - self.mass_plus_inf)


def discretise_comparison(
    threshold_scale: float,
    query_scale: float,
    *,
    n_bins: int = 20001,
    tail_mass: float = 1e-8,
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
) -> DiscretisedComparison:
    """Discretise both noises on [−B, B] in 2m−2 bins and FFT-convolve (Alg. 3/4).

    Slips of Algorithm 4 fixed: bins i = −(m−1)..m−2 (not m−1); B also covers the threshold noise's
    quantile; the threshold noise is reflected (Z = v − ρ, not v + ρ); ±∞ tail masses handled explicitly.
    """
    b, th, qn, tn = _check_pair(threshold_scale, query_scale, query_noise, threshold_noise)
    m = _v.integer("n_bins", n_bins, low=3, high=MAX_BINS)
    e = _v.probability("tail_mass", tail_mass, low_open=True, high_open=True)
    # boundary: the (1−e)-quantiles of |v| and |ρ| (for the exponential this is θ ln(1/e), Alg. 3 line 1)
    B = max(_quantile_bound(qn, th, e), _quantile_bound(tn, b, e))
    u = B / (m - 1)
    idx = np.arange(-(m - 1), m - 1)  # 2m − 2 bins
    grid = np.arange(-(m - 1), m) * u  # 2m − 1 edges from −B to B
    cq = _fast_cdf(qn, th, grid)
    q_pmf = np.diff(cq)
    q_lo, q_hi = float(cq[0]), _fast_sf(qn, th, B)
    # −ρ ∈ [iu, (i+1)u)  ⇔  ρ ∈ (−(i+1)u, −iu]
    ct = _fast_cdf(tn, b, -grid)  # F_ρ(−edge)
    t_pmf = ct[:-1] - ct[1:]
    t_lo, t_hi = _fast_sf(tn, b, B), float(ct[-1])  # P[−ρ < −B] = P[ρ > B], P[−ρ ≥ B] = F_ρ(−B)
    n = 2 * len(idx)
    nfft = sp_fft.next_fast_len(n, real=True)
    conv = sp_fft.irfft(sp_fft.rfft(q_pmf, nfft) * sp_fft.rfft(t_pmf, nfft), nfft)[: 2 * len(idx) - 1]
    conv = np.clip(conv, 0.0, None)
    q_in, t_in = q_pmf.sum(), t_pmf.sum()
    mass_minus = q_lo * (t_lo + t_in) + q_in * t_lo  # one side −∞, other not +∞
    mass_plus = q_hi + t_hi * (1.0 - q_hi)  # any +∞ (incl. the −∞ + ∞ corner, ≤ e²)
    # conv index n' ↔ bin sum i + j = n' − 2(m − 1); mass over [(i+j)u, (i+j+2)u), midpoint (i+j+1)u
    z = (np.arange(conv.size) - 2 * (m - 1) + 1) * u
    cum = np.cumsum(conv)
    cdf_grid = mass_minus + cum - 0.5 * conv
    return DiscretisedComparison(
        n_bins=m,
        tail_mass=e,
        bound=B,
        width=u,
        edges=idx * u,
        query_pmf=q_pmf,
        neg_threshold_pmf=t_pmf,
        z=z,
        pmf=conv,
        cdf_grid=cdf_grid,
        mass_minus_inf=float(mass_minus),
        mass_plus_inf=float(mass_plus),
    )
