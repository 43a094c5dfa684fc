"""Sparse Vector Technique with exponential noise and optimal threshold correction (paper 002).

Liu, Wang, Liu, Li, Chen, "Unleash the Power of Ellipsis: Accuracy-enhanced Sparse Vector Technique with
Exponential Noise". Spec: ``shared/specs/svt.md`` (section numbers below refer to it).

Conventions (spec §0): ``Lap(b)`` has scale b, ``Exp(θ)`` has scale (mean) θ = 1/λ, ``Gum(s)`` is the
right-skewed Gumbel with scale s, Gaussians are given by σ. Z = v − ρ is query noise minus threshold noise;
a query is answered ⊤ iff ``q + v ≥ T + ρ + r``, i.e. iff Z ≥ r − (q − T). Γ is the CDF of Z.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import fft as sp_fft
from scipy import integrate, optimize, special, stats

from dpcore import _validate as _v

__all__ = [
    "EULER_GAMMA",
    "METHODS",
    "NOISES",
    "BudgetSplit",
    "Correction",
    "DiscretisedComparison",
    "SVTRun",
    "acceptance_probability",
    "accuracy_alpha",
    "accuracy_bound",
    "appending_probability",
    "comparison_cdf",
    "comparison_pdf",
    "comparison_sf",
    "correction_term",
    "discretise_comparison",
    "optimal_correction",
    "pattern_probability",
    "query_loss_profile",
    "run_experiment",
    "run_method",
    "run_svt",
    "sample_noise",
    "selection_metrics",
    "shared_success_probability",
    "split_budget",
    "success_probability",
    "threshold_loss_profile",
    "upper_bound_topc",
]

NOISES = ("exponential", "laplace", "gaussian", "gumbel")
THRESHOLD_NOISES = ("laplace", "gaussian")
EULER_GAMMA = float(np.euler_gamma)
#: Most noise draws in one :func:`sample_noise` call (the app draws ≤ 10⁶).
MAX_SAMPLES = 100_000_000
#: Most bins of the discretised comparison (Alg. 3/4; the app uses a few thousand).
MAX_BINS = 1_000_000
_LOG_HALF = math.log(0.5)

#: Table 3 of the paper (spec §1.15): method name -> (query noise, correction rule).
METHODS: dict[str, tuple[str, str]] = {
    "SVT-Exp (optimal)": ("exponential", "optimal"),
    "SVT-Exp (mean)": ("exponential", "mean"),
    "SVT-Exp (no)": ("exponential", "none"),
    "SVT-Gumbel": ("gumbel", "mean"),
    "SVT-Lap": ("laplace", "none"),
    "SVT-Gau": ("gaussian", "none"),
    "SVT-Exp upper bound": ("exponential", "upper_bound"),
}


# ----------------------------------------------------------------------------------------------------------
# §1.14 / §1.15 calibration
# ----------------------------------------------------------------------------------------------------------
def _gauss_multiplier(delta: float) -> float:
    """Classic Gaussian-mechanism multiplier s = √(2 ln(1.25/δ)) (spec §7 item 14)."""
    return math.sqrt(2.0 * math.log(1.25 / delta))


def _variance_per_scale2(noise: str) -> float:
    """Var(noise) / scale² for the four families (Gaussian 'scale' = σ)."""
    return {"exponential": 1.0, "laplace": 2.0, "gumbel": math.pi**2 / 6.0, "gaussian": 1.0}[noise]


@dataclass(frozen=True)
class BudgetSplit:
    """What one SVT method draws (spec §1.15): budget split, noise scales, comparison variance V (Eq. 6)."""

    epsilon: float
    c: int
    noise: str
    threshold_noise: str
    monotonic: bool
    sensitivity: float
    delta: float  # δ used to calibrate Gaussian noise (0 for pure-DP pairs)
    w: float  # ε₂ = w·ε₁
    w_optimal: float  # w* = (C/A)^{1/3}
    epsilon1: float
    epsilon2: float
    threshold_scale: float  # b = Δ/ε₁ (Laplace) or σ₁ = sΔ/ε₁ (Gaussian)
    query_scale: float  # f·cΔ/ε₂ (·s for Gaussian); f = 1 monotonic, 2 otherwise
    mean_correction: float  # E[v]: θ (exponential), γ_E·scale (Gumbel), 0 otherwise
    variance: float  # V = Var ρ + Var v at this w
    variance_optimal: float  # V* = (A^{1/3} + C^{1/3})³/ε²

    @property
    def pure(self) -> bool:
        """True when the pair gives pure ε-DP (no Gaussian component)."""
        return self.noise != "gaussian" and self.threshold_noise != "gaussian"

    def total_epsilon(self, resample: bool = False) -> float:
        """ε₁ + ε₂ (RESAMPLE=False) or c·ε₁ + ε₂ (RESAMPLE=True, corrected Thm 3, spec §7 item 1)."""
        return (self.c * self.epsilon1 if resample else self.epsilon1) + self.epsilon2


def split_budget(
    epsilon: float,
    *,
    c: int,
    noise: str = "exponential",
    monotonic: bool = False,
    sensitivity: float = 1.0,
    w: float | None = None,
    threshold_noise: str | None = None,
    delta: float = 1e-5,
) -> BudgetSplit:
    """Calibrate an SVT method: optimal split w*, ε₁, ε₂, noise scales and V (Eq. 6, spec §1.14–§1.15).

    ``threshold_noise`` defaults to the calibration table (Gaussian for SVT-Gau, Laplace otherwise);
    ``delta`` only matters when a Gaussian is involved (σ = √(2 ln(1.25/δ))·Δ/ε, spec §7 item 14).
    ``w`` overrides the variance-optimal split.
    """
    eps = _v.scale("epsilon", epsilon)
    c = _v.integer("c", c, low=1)
    noise = _v.choice("noise", noise, NOISES)
    delta_ = _v.probability("delta", delta, low_open=True, high_open=True)
    sens = _v.scale("sensitivity", sensitivity)
    if threshold_noise is None:
        threshold_noise = "gaussian" if noise == "gaussian" else "laplace"
    threshold_noise = _v.choice("threshold_noise", threshold_noise, THRESHOLD_NOISES)
    gaussian_used = noise == "gaussian" or threshold_noise == "gaussian"
    s = _gauss_multiplier(delta_) if gaussian_used else 1.0
    f = 1.0 if monotonic else 2.0
    a_unit = s if threshold_noise == "gaussian" else 1.0  # threshold scale · ε₁/Δ
    q_unit = f * c * (s if noise == "gaussian" else 1.0)  # query scale · ε₂/Δ
    A = _variance_per_scale2(threshold_noise) * (a_unit * sens) ** 2
    C = _variance_per_scale2(noise) * (q_unit * sens) ** 2
    w_opt = (C / A) ** (1.0 / 3.0)
    w_ = w_opt if w is None else _v.positive("w", w)
    eps1 = eps / (1.0 + w_)
    eps2 = eps - eps1
    b = a_unit * sens / eps1
    theta = q_unit * sens / eps2
    if not (_v.MIN_SCALE <= b <= _v.MAX_SCALE and _v.MIN_SCALE <= theta <= _v.MAX_SCALE):
        raise ValueError(f"sensitivity/epsilon must give noise scales in [{_v.MIN_SCALE:g}, {_v.MAX_SCALE:g}], got "
                         f"sensitivity={sensitivity!r}, epsilon={epsilon!r} (threshold scale {b:g}, query scale "
                         f"{theta:g})")
    mean = {"exponential": theta, "gumbel": EULER_GAMMA * theta}.get(noise, 0.0)
    return BudgetSplit(
        epsilon=eps,
        c=c,
        noise=noise,
        threshold_noise=threshold_noise,
        monotonic=bool(monotonic),
        sensitivity=sens,
        delta=delta_ if gaussian_used else 0.0,
        w=w_,
        w_optimal=w_opt,
        epsilon1=eps1,
        epsilon2=eps2,
        threshold_scale=b,
        query_scale=theta,
        mean_correction=mean,
        variance=A / eps1**2 + C / eps2**2,
        variance_optimal=(A ** (1 / 3) + C ** (1 / 3)) ** 3 / eps**2,
    )


# ----------------------------------------------------------------------------------------------------------
# §3.1 distribution of Z = v − ρ
# ----------------------------------------------------------------------------------------------------------
def _log_phi(x: np.ndarray) -> np.ndarray:
    """log of φ(x) = (1 − e^{−x})/x with φ(0) = 1 (x ≥ 0)."""
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    nz = x > 0
    out[nz] = np.log(-np.expm1(-x[nz]) / x[nz])
    return out


def _exp_lap_logcdf_logsf(z: np.ndarray, b: float, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """log Γ and log S for exponential query noise (scale θ) minus Laplace threshold noise (scale b).

    Closed form of spec §3.1 in the stable form (finite at b = θ)."""
    z = np.asarray(z, dtype=float)
    logcdf = np.empty_like(z)
    logsf = np.empty_like(z)
    neg = z <= 0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        zn = z[neg]
        lc = math.log(b / (2.0 * (b + theta))) + zn / b
        logcdf[neg] = lc
        logsf[neg] = np.log1p(-np.exp(lc))
        zp = z[~neg]
        ell = max(b, theta)
        x = zp * abs(b - theta) / (b * theta)
        t1 = math.log((b + 2.0 * theta) / (2.0 * (b + theta))) - zp / b
        with np.errstate(divide="ignore"):
            t2 = (
                math.log(theta**2 / (b + theta))
                - zp / ell
                + np.log(np.where(np.isfinite(zp), zp, 1.0) / (b * theta))
                + _log_phi(np.where(np.isfinite(x), x, 0.0))
            )
        t2 = np.where(zp > 0, t2, -np.inf)
        ls = np.logaddexp(t1, t2)
        ls = np.where(np.isposinf(zp), -np.inf, ls)
        logsf[~neg] = ls
        logcdf[~neg] = np.log(-np.expm1(ls))
    return logcdf, logsf


def _lap_lap_logcdf_logsf(z: np.ndarray, b: float, a: float) -> tuple[np.ndarray, np.ndarray]:
    """Laplace query (scale a) minus Laplace threshold (scale b), symmetric.

    S(z) = ½e^{−z/ℓ}(1 + m z φ/(ℓ(ℓ+m))) for z ≥ 0 with ℓ = max(a, b), m = min(a, b)."""
    z = np.asarray(z, dtype=float)
    ell, m = max(a, b), min(a, b)
    az = np.abs(z)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        x = np.where(np.isfinite(az), az * (ell - m) / (ell * m), 0.0)
        azf = np.where(np.isfinite(az), az, 0.0)
        tail = _LOG_HALF - az / ell + np.log1p(m * azf * np.exp(_log_phi(x)) / (ell * (ell + m)))
        tail = np.where(np.isinf(az), -np.inf, tail)
        body = np.log1p(-np.exp(tail))
    return np.where(z >= 0, body, tail), np.where(z >= 0, tail, body)


def _gum_lap_logcdf_logsf(z: np.ndarray, b: float, g: float) -> tuple[np.ndarray, np.ndarray]:
    """Gumbel query (scale g) minus Laplace threshold (scale b), by adaptive quadrature (spec §3.1)."""
    z = np.asarray(z, dtype=float)
    shape = z.shape
    zf = np.atleast_1d(z).ravel()

    def cdf_g(x):
        return np.exp(-np.exp(-x / g))

    def sf_g(x):
        return -np.expm1(-np.exp(-x / g))

    with np.errstate(over="ignore", under="ignore"):
        cdf = integrate.quad_vec(
            lambda u: 0.5 * np.exp(-u) * (cdf_g(zf - b * u) + cdf_g(zf + b * u)),
            0,
            np.inf,
            epsabs=0,
            epsrel=1e-11,
        )[0]
        sf = integrate.quad_vec(
            lambda u: 0.5 * np.exp(-u) * (sf_g(zf - b * u) + sf_g(zf + b * u)),
            0,
            np.inf,
            epsabs=0,
            epsrel=1e-11,
        )[0]
        lc = np.log(np.clip(cdf, 0, 1))
        ls = np.log(np.clip(sf, 0, 1))
    return lc.reshape(shape), ls.reshape(shape)


def _gau_gau_logcdf_logsf(z: np.ndarray, sigma1: float, sigma2: float) -> tuple[np.ndarray, np.ndarray]:
    s = math.hypot(sigma1, sigma2)
    z = np.asarray(z, dtype=float)
    return special.log_ndtr(z / s), special.log_ndtr(-z / s)


def _pair_logs(z, threshold_scale: float, query_scale: float, query_noise: str, threshold_noise: str):
    if threshold_noise == "laplace":
        if query_noise == "exponential":
            return _exp_lap_logcdf_logsf(z, threshold_scale, query_scale)
        if query_noise == "laplace":
            return _lap_lap_logcdf_logsf(z, threshold_scale, query_scale)
        if query_noise == "gumbel":
            return _gum_lap_logcdf_logsf(z, threshold_scale, query_scale)
    if threshold_noise == "gaussian" and query_noise == "gaussian":
        return _gau_gau_logcdf_logsf(z, threshold_scale, query_scale)
    raise ValueError(
        "noise pair (threshold_noise, query_noise) must be one of (laplace, exponential|laplace|gumbel) or "
        f"(gaussian, gaussian); got ({threshold_noise}, {query_noise})"
    )


def _check_pair(threshold_scale, query_scale, query_noise, threshold_noise):
    b = _v.scale("threshold_scale", threshold_scale)
    th = _v.scale("query_scale", query_scale)
    qn = _v.choice("query_noise", query_noise, NOISES)
    tn = _v.choice("threshold_noise", threshold_noise, THRESHOLD_NOISES)
    return b, th, qn, tn


def _out(x: np.ndarray, z_in) -> np.ndarray | float:
    return float(x) if np.ndim(z_in) == 0 else x


def comparison_cdf(
    z,
    *,
    threshold_scale: float,
    query_scale: float,
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
    log: bool = False,
):
    """Γ(z) = P[v − ρ ≤ z], closed form for Laplace threshold + exponential query (spec §3.1, App. D Eq. 40).

    Stable at b = θ (Γ(0) = 1/4). Other pairs: Lap–Lap closed form, Gumbel–Lap quadrature, Gauss–Gauss.
    Vectorised over z; ``log=True`` returns log Γ.
    """
    b, th, qn, tn = _check_pair(threshold_scale, query_scale, query_noise, threshold_noise)
    zz = _v.real_array("z", z)
    lc, _ = _pair_logs(zz, b, th, qn, tn)
    return _out(lc if log else np.exp(lc), z)


def comparison_sf(
    z,
    *,
    threshold_scale: float,
    query_scale: float,
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
    log: bool = False,
):
    """S(z) = 1 − Γ(z) = P[v − ρ > z], computed directly (accurate in the right tail); spec §3.1."""
    b, th, qn, tn = _check_pair(threshold_scale, query_scale, query_noise, threshold_noise)
    zz = _v.real_array("z", z)
    _, ls = _pair_logs(zz, b, th, qn, tn)
    return _out(ls if log else np.exp(ls), z)


def comparison_pdf(z, *, threshold_scale: float, query_scale: float):
    """Density f = Γ′ of Z = v − ρ (exponential query, Laplace threshold), spec §3.1; finite at b = θ."""
    b = _v.scale("threshold_scale", threshold_scale)
    th = _v.scale("query_scale", query_scale)
    zz = _v.real_array("z", z)
    out = np.empty_like(zz)
    neg = zz <= 0
    with np.errstate(over="ignore", under="ignore"):
        out[neg] = np.exp(zz[neg] / b) / (2 * (b + th))
        zp = zz[~neg]
        # [(b+θ)e^{−z/b} − 2θe^{−z/θ}] / (2(b²−θ²)) written stably: (e^{−z/b} − e^{−z/θ}) = (b−θ)R(z)
        zf = np.where(np.isfinite(zp), zp, 0.0)
        ell = max(b, th)
        x = zf * abs(b - th) / (b * th)
        R = np.exp(-zf / ell + np.log(np.maximum(zf, 1e-300) / (b * th)) + _log_phi(x))
        R = np.where(zf > 0, R, 0.0)
        # (b+θ)e^{−z/b} − 2θe^{−z/θ} = (b−θ)[e^{−z/b} + 2θR]  ⇒  f = (e^{−z/b} + 2θR) / (2(b+θ))
        val = (np.exp(-zf / b) + 2 * th * R) / (2 * (b + th))
        out[~neg] = np.where(np.isposinf(zp), 0.0, val)
    return _out(out, z)


def acceptance_probability(
    d,
    *,
    r: float = 0.0,
    threshold_scale: float,
    query_scale: float,
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
):
    """P[⊤ | q − T = d] = S(r − d) for one comparison (spec §3.5); vectorised over d."""
    dd = _v.real_array("d", d)
    rr = _v.real("r", r)
    return (
        comparison_sf(
            rr - dd,
            threshold_scale=threshold_scale,
            query_scale=query_scale,
            query_noise=query_noise,
            threshold_noise=threshold_noise,
        )
        if np.ndim(d)
        else float(
            comparison_sf(
                rr - float(dd),
                threshold_scale=threshold_scale,
                query_scale=query_scale,
                query_noise=query_noise,
                threshold_noise=threshold_noise,
            )
        )
    )


# ----------------------------------------------------------------------------------------------------------
# §2.6 numerical framework (Algorithms 3/4 with the off-by-one fixed)
# ----------------------------------------------------------------------------------------------------------
_FAMILIES = {"exponential": stats.expon, "laplace": stats.laplace, "gumbel": stats.gumbel_r, "gaussian": stats.norm}


def _dist(noise: str, scale: float):
    """The frozen scipy distribution of a noise family at its scale (only the one asked for is built)."""
    return _FAMILIES[noise](scale=scale)


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
        return scale * -math.log(e) if noise == "exponential" else (
            scale * -(math.log(2.0) + math.log(e)) if noise == "laplace" else
            scale * math.log(-math.log(e)) if noise == "gumbel" else -scale * float(special.ndtri(e)))
    if noise == "exponential":
        return scale * math.log(1 / e)
    if noise == "laplace":
        return scale * max(math.log(1 / (2 * e)), 0.0)
    if noise == "gumbel":
        return scale * max(-math.log(-math.log1p(-e)), math.log(-math.log(e)), 0.0)
    return -scale * float(special.ndtri(e))


@dataclass(frozen=True)
class DiscretisedComparison:
    """Discretised Z = v − ρ (Algorithms 3/4, spec §2.6): bin pmfs, FFT convolution and the grid CDF Γ̄."""

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
    """Discretise both noises on [−B, B] in 2m−2 bins and FFT-convolve (Alg. 3/4, spec §2.6 steps 1–6).

    Errata fixed (spec §7 item 9): bins i = −(m−1)..m−2 (not m−1); B also covers the threshold noise's
    quantile; the threshold noise is reflected (Z = v − ρ, not v + ρ); ±∞ tail masses handled explicitly.
    """
    b, th, qn, tn = _check_pair(threshold_scale, query_scale, query_noise, threshold_noise)
    m = _v.integer("n_bins", n_bins, low=3, high=MAX_BINS)
    e = _v.probability("tail_mass", tail_mass, low_open=True, high_open=True)
    # boundary: the (1−e)-quantiles of |v| and |ρ| (for the exponential this is θ ln(1/e), spec §2.6 step 1)
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


# ----------------------------------------------------------------------------------------------------------
# §3.2 success probability and the optimal correction
# ----------------------------------------------------------------------------------------------------------
def success_probability(
    r,
    *,
    k: int,
    alpha: float = 0.0,
    threshold_scale: float,
    query_scale: float,
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
    log: bool = False,
):
    """p(r) = Γ(r+α)^k · (1 − Γ(r−α)) (Eq. 8, independent-threshold-noise model of Eq. 7); vectorised over r.

    Eq. 7 treats the threshold noise as fresh per comparison; the exact value for Algorithm 2's shared ρ is
    :func:`shared_success_probability` (spec §3.2 item 6, §7 item 5)."""
    k = _v.integer("k", k, low=1)
    a = _v.nonnegative("alpha", alpha)
    b, th, qn, tn = _check_pair(threshold_scale, query_scale, query_noise, threshold_noise)
    rr = _v.real_array("r", r)
    lc, _ = _pair_logs(rr + a, b, th, qn, tn)
    _, ls = _pair_logs(rr - a, b, th, qn, tn)
    lp = k * lc + ls
    return _out(lp if log else np.exp(lp), r)


def _query_cdf_sf(noise: str, scale: float):
    """(F_v, S_v) as vectorised callables."""
    if noise == "exponential":
        return (
            lambda x: -np.expm1(-np.maximum(x, 0.0) / scale),
            lambda x: np.exp(-np.maximum(x, 0.0) / scale),
        )
    d = _dist(noise, scale)
    return d.cdf, d.sf


_GL_X, _GL_W = np.polynomial.legendre.leggauss(48)
_GL_STEPS = np.array([0.0, -2.0, 2.0, -8.0, 8.0, -32.0, 32.0, -128.0, 128.0])


def _gl_integrate(
    f: Callable[[np.ndarray], np.ndarray],
    lo: np.ndarray,
    hi: np.ndarray,
    kinks: Sequence[np.ndarray],
    scales: Sequence[float],
) -> np.ndarray:
    """Σ over rows of ∫_{lo}^{hi} f(x) dx by composite Gauss–Legendre, split geometrically around each kink.

    Vectorised: lo, hi and every kink have shape (n,); ``f`` receives x of shape (n, segments, nodes)."""
    pts = [lo, hi]
    for kk in kinks:
        for sc in scales:
            pts.extend(np.clip(kk + st * sc, lo, hi) for st in _GL_STEPS)
    P = np.sort(np.stack(pts, axis=1), axis=1)
    a, b = P[:, :-1, None], P[:, 1:, None]
    half = (b - a) / 2
    x = half * _GL_X + (a + b) / 2
    return np.sum(half * _GL_W * f(x), axis=(1, 2))


def shared_success_probability(
    r,
    *,
    k: int,
    alpha: float = 0.0,
    threshold_scale: float,
    query_scale: float,
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
):
    """Exact success probability with one shared threshold noise ρ (spec §3.2 item 6; sound Eq. 7/8).

    p_sh(r) = E_ρ[F_v(ρ + r + α)^k · S_v(ρ + r − α)]: k negatives at T − α all rejected, then a positive
    at T + α accepted, all compared against the same noisy threshold. One-dimensional integral over ρ by
    composite Gauss–Legendre (vectorised over r; log-space integrand)."""
    k = _v.integer("k", k, low=1)
    a = _v.nonnegative("alpha", alpha)
    b, th, qn, tn = _check_pair(threshold_scale, query_scale, query_noise, threshold_noise)
    r_in = _v.real_array("r", r)
    rr = np.atleast_1d(r_in).astype(float).ravel()
    fin = np.isfinite(rr)
    out = np.zeros(rr.shape)
    if fin.any():
        rf = rr[fin]
        span = 80 * max(b, th)
        logf_rho = _dist(tn, b).logpdf
        if qn == "exponential":
            lo = -rf - a  # F_E(ρ + r + α) = 0 below
            kinks = [-rf + a, np.zeros_like(rf), th * math.log(k + 1) - rf - a]

            def log_f(t):
                x = t + rf[:, None, None]
                with np.errstate(divide="ignore"):
                    lF = np.log(-np.expm1(-np.maximum(x + a, 0.0) / th))
                return logf_rho(t) + k * lF - np.maximum(x - a, 0.0) / th
        else:
            lo = -np.abs(rf) - a - span
            kinks = [-rf - a, -rf + a, np.zeros_like(rf)]
            d = _dist(qn, th)

            def log_f(t):
                x = t + rf[:, None, None]
                return logf_rho(t) + k * d.logcdf(x + a) + d.logsf(x - a)

        hi = np.abs(rf) + a + span

        def f(t):
            with np.errstate(under="ignore"):
                return np.exp(log_f(t))

        out[fin] = _gl_integrate(f, lo, hi, kinks, (b, th))
    return float(out[0]) if np.ndim(r_in) == 0 else out.reshape(np.shape(r_in))


@dataclass(frozen=True)
class Correction:
    """Threshold correction r and its success probability (Eq. 9 / Alg. 3)."""

    r: float
    success_probability: float  # p(r) under the chosen model
    beta: float  # 1 − p(r)
    k: int
    alpha: float
    threshold_scale: float  # b
    query_scale: float  # θ
    mean_correction: float  # E[v] (θ for exponential)
    method: str  # "analytic" | "numeric"
    model: str  # "independent" (Eq. 8) | "shared" (exact, shared ρ)
    query_noise: str = "exponential"


def _scalar_logs_exp_lap(z: float, b: float, th: float) -> tuple[float, float]:
    """Fast scalar version of :func:`_exp_lap_logcdf_logsf` (used inside root finders)."""
    if z <= 0:
        lc = math.log(b / (2 * (b + th))) + z / b
        return lc, math.log1p(-math.exp(lc))
    t1 = math.log((b + 2 * th) / (2 * (b + th))) - z / b
    x = z * abs(b - th) / (b * th)
    lphi = 0.0 if x == 0 else math.log(-math.expm1(-x) / x)
    t2 = math.log(th * th / (b + th)) - z / max(b, th) + math.log(z / (b * th)) + lphi
    mx = max(t1, t2)
    ls = mx + math.log(math.exp(t1 - mx) + math.exp(t2 - mx))
    return math.log(-math.expm1(ls)) if ls < 0 else -math.inf, ls


def correction_term(
    threshold_scale: float,
    query_scale: float,
    *,
    k: int,
    alpha: float = 0.0,
    method: str = "analytic",
    model: str = "independent",
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
    n_bins: int = 20001,
    tail_mass: float = 1e-8,
) -> Correction:
    """r^op = argmax p(r) for given noise scales (Eq. 9; analytic §2.5 or numerical Alg. 3/4 §2.6).

    At α = 0 (Eq. 8 model) r^op solves S(r) = 1/(k+1), i.e. Γ(r^op) = k/(k+1), and p = k^k/(k+1)^{k+1}.
    ``model="shared"`` maximises the exact shared-ρ probability instead (spec §3.2 item 6)."""
    b, th, qn, tn = _check_pair(threshold_scale, query_scale, query_noise, threshold_noise)
    k = _v.integer("k", k, low=1)
    a = _v.nonnegative("alpha", alpha)
    method = _v.choice("method", method, ("analytic", "numeric"))
    model = _v.choice("model", model, ("independent", "shared"))
    mean = {"exponential": th, "gumbel": EULER_GAMMA * th}.get(qn, 0.0)
    scale = max(b, th)
    lo, hi = -10 * scale - a, scale * (10 + 3 * math.log(k + 2)) + a

    if method == "numeric":
        if model != "independent":
            raise ValueError("model must be 'independent' when method='numeric'")
        disc = discretise_comparison(
            b, th, n_bins=n_bins, tail_mass=tail_mass, query_noise=qn, threshold_noise=tn
        )
        with np.errstate(divide="ignore"):

            def neg_logp(r):
                g1 = disc.cdf(np.asarray(r) + a)
                g2 = disc.cdf(np.asarray(r) - a)
                return -(k * np.log(g1) + np.log1p(-g2))

            grid = disc.z
            vals = neg_logp(grid)
            j = int(np.nanargmin(vals))
            x0, x1 = grid[max(j - 1, 0)], grid[min(j + 1, grid.size - 1)]
            res = optimize.minimize_scalar(
                lambda r: float(neg_logp(r)),
                bounds=(x0, x1),
                method="bounded",
                options={"xatol": 1e-10 * scale},
            )
        r_op = float(res.x)
        p = float(np.exp(-neg_logp(r_op)))
        return Correction(r_op, p, 1 - p, k, a, b, th, mean, "numeric", model, qn)

    if model == "shared":
        ind = correction_term(b, th, k=k, alpha=a, query_noise=qn, threshold_noise=tn)

        def negp(r):
            return -shared_success_probability(
                r, k=k, alpha=a, threshold_scale=b, query_scale=th, query_noise=qn, threshold_noise=tn
            )

        span = 3 * scale
        res = optimize.minimize_scalar(
            negp, bounds=(ind.r - span, ind.r + span), method="bounded", options={"xatol": 1e-9 * scale}
        )
        return Correction(
            float(res.x), -float(res.fun), 1 + float(res.fun), k, a, b, th, mean, "analytic", model, qn
        )

    if qn == "exponential" and tn == "laplace":

        def logs(z):
            return _scalar_logs_exp_lap(z, b, th)
    else:

        def logs(z):
            lc, ls = _pair_logs(np.array([z]), b, th, qn, tn)
            return float(lc[0]), float(ls[0])

    if a == 0.0:
        target = -math.log(k + 1)
        f = lambda r: logs(r)[1] - target  # noqa: E731  (S is strictly decreasing)
        while f(lo) < 0:
            lo -= 10 * scale
        while f(hi) > 0:
            hi += 10 * scale
        r_op = optimize.brentq(f, lo, hi, xtol=1e-12 * scale, rtol=1e-14)
    else:

        def neg_l(r):
            return -(k * logs(r + a)[0] + logs(r - a)[1])

        res = optimize.minimize_scalar(
            neg_l, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10 * scale}
        )
        r_op = float(res.x)
    p = math.exp(k * logs(r_op + a)[0] + logs(r_op - a)[1])
    return Correction(float(r_op), p, 1 - p, k, a, b, th, mean, "analytic", model, qn)


def optimal_correction(
    epsilon: float,
    *,
    c: int,
    k: int,
    alpha: float = 0.0,
    sensitivity: float = 1.0,
    monotonic: bool = False,
    method: str = "analytic",
    model: str = "independent",
    noise: str = "exponential",
    delta: float = 1e-5,
    n_bins: int = 20001,
    tail_mass: float = 1e-8,
) -> Correction:
    """r^op for SVT with budget ε and cutoff c (Eq. 9; Alg. 2 line 4), using the calibration of spec §1.15.

    ``model="independent"`` is the paper's Eq. 8 (default, as Alg. 2 uses it); ``"shared"`` the exact
    shared-ρ optimum (spec §7 item 5)."""
    sp = split_budget(epsilon, c=c, noise=noise, monotonic=monotonic, sensitivity=sensitivity, delta=delta)
    return correction_term(
        sp.threshold_scale,
        sp.query_scale,
        k=k,
        alpha=alpha,
        method=method,
        model=model,
        query_noise=sp.noise,
        threshold_noise=sp.threshold_noise,
        n_bins=n_bins,
        tail_mass=tail_mass,
    )


def appending_probability(
    d,
    *,
    r: float,
    traverses: int,
    threshold_scale: float,
    query_scale: float,
    variant: str = "shared",
):
    """P[a query with q − T = d is answered ⊤ within t passes] (spec §4 / §7 item 8, §5 R18).

    ``variant``: "shared" = E_ρ[1 − F_E(ρ + r − d)^t] (exact for Alg. 2, one ρ); "independent" =
    1 − (1 − p)^t (fresh ρ per pass); "as_printed" = the paper's t·p (first-order, may exceed 1)."""
    t = _v.integer("traverses", traverses, low=1)
    variant = _v.choice("variant", variant, ("shared", "independent", "as_printed"))
    b = _v.scale("threshold_scale", threshold_scale)
    th = _v.scale("query_scale", query_scale)
    rr = _v.real("r", r)
    dd = np.atleast_1d(_v.real_array("d", d))
    if not np.isfinite(dd).all():  # a query infinitely above (below) the threshold: always (never) answered ⊤
        fin = np.isfinite(dd)
        out = np.where(dd > 0, float(t) if variant == "as_printed" else 1.0, 0.0)
        if fin.any():
            out[fin] = appending_probability(
                dd[fin], r=rr, traverses=t, threshold_scale=b, query_scale=th, variant=variant
            )
        return float(out.ravel()[0]) if np.ndim(d) == 0 else out
    p = np.exp(_exp_lap_logcdf_logsf(rr - dd, b, th)[1])
    if variant == "independent":
        out = -np.expm1(t * np.log1p(-np.minimum(p, 1 - 1e-300)))
    elif variant == "as_printed":
        out = t * p
    else:
        # E_ρ[1 − F_E(ρ + r − d)^t]: F_E = 0 for ρ < d − r (contributes P[ρ < d − r]), then quadrature
        x0 = dd - rr
        mass_left = stats.laplace.cdf(x0, scale=b)
        span = 80 * max(b, th)

        def f(u):
            y = np.maximum(u - x0[:, None, None], 0.0)
            with np.errstate(under="ignore", divide="ignore"):
                return stats.laplace.pdf(u, scale=b) * -np.expm1(t * np.log(-np.expm1(-y / th)))

        kinks = [np.zeros_like(x0), x0 + th * math.log(t + 1)]
        out = mass_left + _gl_integrate(f, x0, x0 + span + np.abs(x0), kinks, (b, th))
    return float(out[0]) if np.ndim(d) == 0 else out


def accuracy_bound(k: int, beta: float, epsilon: float, *, variant: str = "corrected"):
    """α of Theorem 4 (c = 1, ε₁ = ε₂ = ε/2, Δ = 1): "as_printed" 4(ln k + ln 2/β)/ε; "corrected" — the
    α/2-split union bound done right — 8(ln k + ln 2/β)/ε, the same as Dwork–Roth's Laplace bound (spec §1.12,
    §7 item 4). The printed bound still holds numerically (see :func:`accuracy_alpha`)."""
    k = _v.integer("k", k, low=1)
    beta = _v.probability("beta", beta, low_open=True, high_open=True)
    eps = _v.positive("epsilon", epsilon)
    variant = _v.choice("variant", variant, ("corrected", "as_printed"))
    return (4.0 if variant == "as_printed" else 8.0) * (math.log(k) + math.log(2.0 / beta)) / eps


def accuracy_alpha(
    beta: float,
    *,
    k: int,
    r: float = 0.0,
    threshold_scale: float,
    query_scale: float,
    query_noise: str = "exponential",
) -> float:
    """Smallest α whose exact shared-ρ failure probability is ≤ β (spec §5 R16 setting).

    Worst case of Def. 3: k − 1 queries at T − α must be rejected and one at T + α accepted, all against the
    same noisy threshold (plus correction r)."""
    beta = _v.probability("beta", beta, low_open=True, high_open=True)
    k = _v.integer("k", k, low=1)
    r = _v.real("r", r)
    b, th, qn, _ = _check_pair(threshold_scale, query_scale, query_noise, "laplace")

    def fail(a: float) -> float:
        if k == 1:
            return float(comparison_cdf(r - a, threshold_scale=b, query_scale=th, query_noise=qn))
        return 1.0 - shared_success_probability(
            r, k=k - 1, alpha=a, threshold_scale=b, query_scale=th, query_noise=qn
        )

    hi = max(b, th) * (10 + 3 * math.log(k + 2) - math.log(beta)) + abs(r)
    while fail(hi) > beta:
        hi *= 2
    if fail(0.0) <= beta:
        return 0.0
    return float(optimize.brentq(lambda a: fail(a) - beta, 0.0, hi, xtol=1e-9 * hi))


def query_loss_profile(x, *, noise: str, scale: float, shift: float = 2.0):
    """ℓ(x) = ln S₂(x − shift) − ln S₂(x): per-positive privacy loss of query noise (spec §1.7, §6 panel 3).

    Exponential: = shift/θ for x ≥ shift (flat, exactly ε₂/c at the calibrated scale); Laplace and Gumbel stay
    below shift/scale; Gaussian grows without bound (no pure DP). Use shift = 2Δ (non-monotonic) or Δ."""
    noise = _v.choice("noise", noise, NOISES)
    sc = _v.scale("scale", scale)
    sh = _v.nonnegative("shift", shift)
    xx = _v.real_array("x", x, allow_inf=False)
    d = _dist(noise, sc)
    with np.errstate(invalid="ignore"):
        hi, lo = d.logsf(xx - sh), d.logsf(xx)
        out = hi - lo
    # both survival functions underflow far in the right tail: the loss has reached its limit there
    # (exactly shift/scale for Laplace and exponential, → shift/scale for Gumbel, → +inf for the Gaussian)
    far = np.isneginf(hi) & np.isneginf(lo)
    if far.any():
        out = np.where(far, math.inf if noise == "gaussian" else sh / sc, out)
    return _out(out, x)


def threshold_loss_profile(u, *, noise: str, scale: float, shift: float = 1.0):
    """ln f₁(u − shift) − ln f₁(u) for threshold noise (spec §1.7, §6 panel 3): within ±shift/b for Laplace,
    unbounded for Gaussian. ``noise`` "laplace" or "gaussian" (paper), or beyond the paper "exponential"
    (support ≥ 0; −∞ where f₁(u − shift) = 0) and "gumbel"."""
    noise = _v.choice("noise", noise, ("laplace", "gaussian", "exponential", "gumbel"))
    sc = _v.scale("scale", scale)
    sh = _v.nonnegative("shift", shift)
    uu = _v.real_array("u", u, allow_inf=False)
    d = _dist(noise, sc)
    with np.errstate(invalid="ignore"):
        out = d.logpdf(uu - sh) - d.logpdf(uu)
    out = np.where(np.isnan(out), -np.inf, out)  # both outside the support: no constraint
    return _out(out, u)


# ----------------------------------------------------------------------------------------------------------
# Noise sampling and the SVT runner (Alg. 1, Alg. 2, Alg. 5)
# ----------------------------------------------------------------------------------------------------------
def sample_noise(noise: str, scale: float, size: int | tuple[int, ...] = 1, rng=None) -> np.ndarray:
    """Draw noise of a family at its scale (spec §0.1 parameterisation): Exp(θ), Lap(b), Gum(s), N(0, σ²)."""
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


@dataclass(frozen=True)
class SVTRun:
    """Transcript of one SVT run: selections, every comparison (one row each) and the budget spent."""

    selected: np.ndarray  # query indices answered ⊤, in order
    comparisons: pd.DataFrame  # step, index, pass, answer, threshold, query_noise, threshold_noise, ...
    calibration: BudgetSplit
    correction: float  # r added to the noisy threshold
    k: int  # k used for r^op
    n_comparisons: int
    n_positive: int
    n_threshold_draws: int
    halted: str  # "cutoff" | "k_max" | "exhausted"
    resample: bool
    append: bool
    traverses: int | None
    k_max: int
    epsilon_spent: float  # ε₁ + ε₂, or c·ε₁ + ε₂ with RESAMPLE (corrected Thm 3)
    delta_spent: float  # nominal δ of the Gaussian calibration (0 for pure-DP pairs)


def _resolve_correction(correction, sp: BudgetSplit, *, k: int, alpha: float) -> float:
    if isinstance(correction, str):
        correction = _v.choice("correction", correction, ("optimal", "mean", "none"))
        if correction == "none":
            return 0.0
        if correction == "mean":
            return sp.mean_correction
        return correction_term(
            sp.threshold_scale,
            sp.query_scale,
            k=k,
            alpha=alpha,
            query_noise=sp.noise,
            threshold_noise=sp.threshold_noise,
        ).r
    return _v.real("correction", correction)


def run_svt(
    answers,
    *,
    threshold,
    epsilon: float,
    c: int,
    noise: str = "exponential",
    correction: str | float = "optimal",
    append: bool = False,
    resample: bool = False,
    rng=None,
    k: int | None = None,
    alpha: float = 0.0,
    traverses: int | None = None,
    k_max: int | None = None,
    monotonic: bool = False,
    sensitivity: float = 1.0,
    delta: float = 1e-5,
    threshold_noise: str | None = None,
    w: float | None = None,
) -> SVTRun:
    """Run SVT on a queue of answers: Alg. 1 (any calibrated pair) / Alg. 2 (SVT-Exp) / Alg. 5 (SVT-Gum).

    A query is ⊤ iff q + v ≥ T + ρ + r. Halts after c ⊤'s, after ``k_max`` comparisons (checked after every
    comparison — fixes the infinite loop of Alg. 2, spec §7 item 10), or when the queue is empty. With
    ``append`` a ⊥ query goes to the back of the queue until it has been compared ``traverses`` times
    (default: unlimited, bounded by k_max; k_max defaults to n·traverses, or 100·n if unlimited).
    ``correction``: "optimal" (r^op of Eq. 9 with k = ⌊n/c⌋ unless given), "mean" (E[v]), "none" or a number.
    Budget: ε₁ + ε₂, or c·ε₁ + ε₂ with ``resample`` (corrected Theorem 3, spec §7 item 1).
    Pass-by-pass vectorised; equivalent in law to the sequential loop (spec §2.7).
    """
    q = _v.real_array("answers", answers)
    if q.ndim != 1 or q.size == 0:
        raise ValueError("answers must be a non-empty one-dimensional array")
    n = q.size
    T = _v.real_array("threshold", threshold, allow_inf=False)
    if T.ndim == 0:
        T = np.full(n, float(T))
    elif T.shape != (n,):
        raise ValueError("threshold must be a scalar or have the same length as answers")
    sp = split_budget(
        epsilon,
        c=c,
        noise=noise,
        monotonic=monotonic,
        sensitivity=sensitivity,
        w=w,
        threshold_noise=threshold_noise,
        delta=delta,
    )
    c = sp.c
    a = _v.nonnegative("alpha", alpha)
    k_ = max(n // c, 1) if k is None else _v.integer("k", k, low=1)
    t_cap = None if traverses is None else _v.integer("traverses", traverses, low=1)
    if not append:
        t_cap = 1
    if k_max is None:
        k_max_ = n * (t_cap if t_cap is not None else 100)
    else:
        k_max_ = _v.integer("k_max", k_max, low=1)
    r = _resolve_correction(correction, sp, k=k_, alpha=a)
    g = _v.rng(rng)

    def draw_rho():
        return float(sample_noise(sp.threshold_noise, sp.threshold_scale, 1, g)[0])

    rho = draw_rho()
    n_draws = 1
    n_c = n_a = 0
    halted = "exhausted"
    rec_idx, rec_pass, rec_v, rec_rho, rec_top = [], [], [], [], []
    selected: list[int] = []
    queue = np.arange(n)
    pass_no = 0
    while queue.size and halted == "exhausted":
        pass_no += 1
        v_all = sample_noise(sp.noise, sp.query_scale, queue.size, g)
        pos = 0
        negatives = []
        while pos < queue.size:
            if n_a >= k_max_:  # checked before every comparison (spec §2.2 FIX, §7 item 10)
                halted = "k_max"
                break
            idx = queue[pos:]
            v = v_all[pos:]
            top = q[idx] + v >= T[idx] + rho + r
            # truncate at the first of: the ⊤ that reaches c (or the first ⊤ with RESAMPLE), or k_max
            need = 1 if resample else c - n_c
            top_pos = np.flatnonzero(top)
            stop = idx.size  # exclusive end of the processed segment
            reason = None
            if top_pos.size >= need:
                stop = int(top_pos[need - 1]) + 1
                reason = "resample" if resample else "cutoff"
            if stop > k_max_ - n_a:
                stop, reason = k_max_ - n_a, None
            seg_top = top[:stop]
            rec_idx.append(idx[:stop])
            rec_pass.append(np.full(stop, pass_no))
            rec_v.append(v[:stop])
            rec_rho.append(np.full(stop, rho))
            rec_top.append(seg_top)
            n_a += stop
            new_pos = idx[:stop][seg_top]
            selected.extend(int(i) for i in new_pos)
            n_c += int(seg_top.sum())
            negatives.append(idx[:stop][~seg_top])
            pos += stop
            if reason == "resample":  # Alg. 1 line 7 / Alg. 2 line 10: redraw after every ⊤
                rho = draw_rho()
                n_draws += 1
                if n_c >= c:
                    halted = "cutoff"
            elif reason == "cutoff":
                halted = "cutoff"
            if halted != "exhausted":
                break
        if halted != "exhausted":
            break
        neg = np.concatenate(negatives) if negatives else np.empty(0, int)
        if t_cap is not None and pass_no >= t_cap:
            break
        queue = neg

    idx = np.concatenate(rec_idx) if rec_idx else np.empty(0, int)
    v = np.concatenate(rec_v) if rec_v else np.empty(0)
    rho_arr = np.concatenate(rec_rho) if rec_rho else np.empty(0)
    top = np.concatenate(rec_top) if rec_top else np.empty(0, bool)
    comp = pd.DataFrame(
        {
            "step": np.arange(1, idx.size + 1),
            "index": idx,
            "pass": np.concatenate(rec_pass) if rec_pass else np.empty(0, int),
            "answer": q[idx],
            "threshold": T[idx],
            "query_noise": v,
            "threshold_noise": rho_arr,
            "correction": np.full(idx.size, r),
            "noisy_answer": q[idx] + v,
            "noisy_threshold": T[idx] + rho_arr + r,
            "positive": top,
            "n_positive": np.cumsum(top),
        }
    )
    return SVTRun(
        selected=np.asarray(selected, dtype=int),
        comparisons=comp,
        calibration=sp,
        correction=float(r),
        k=k_,
        n_comparisons=int(n_a),
        n_positive=int(n_c),
        n_threshold_draws=n_draws,
        halted=halted,
        resample=bool(resample),
        append=bool(append),
        traverses=t_cap,
        k_max=k_max_,
        epsilon_spent=sp.total_epsilon(resample),
        delta_spent=sp.delta,
    )


def pattern_probability(
    answers,
    pattern: Sequence[bool],
    *,
    threshold: float,
    threshold_scale: float,
    query_scale: float,
    correction: float = 0.0,
    query_noise: str = "exponential",
    threshold_noise: str = "laplace",
) -> float:
    """Exact P[SVT outputs ``pattern``] (RESAMPLE=False; proof of Thm 2, spec §1.7) by quadrature.

    ∫ f_ρ(t) ∏_{⊥} F_v(T + t + r − q_i) ∏_{⊤} S_v(T + t + r − q_j) dt. ``threshold_noise`` may also be one of
    the beyond-the-paper families of spec §5 R15: "exponential" (support ≥ 0), "negative_exponential"
    (support ≤ 0) or "gumbel" (all at scale ``threshold_scale``)."""
    q = _v.real_array("answers", answers, allow_inf=False)
    pat = np.asarray(pattern, dtype=bool)
    if q.ndim != 1 or pat.shape != q.shape:
        raise ValueError("pattern must have the same length as answers")
    T = _v.real("threshold", threshold)
    b = _v.scale("threshold_scale", threshold_scale)
    th = _v.scale("query_scale", query_scale)
    r = _v.real("correction", correction)
    qn = _v.choice("query_noise", query_noise, NOISES)
    tn = _v.choice(
        "threshold_noise",
        threshold_noise,
        ("laplace", "gaussian", "exponential", "negative_exponential", "gumbel"),
    )
    F, S = _query_cdf_sf(qn, th)
    shifts = T + r - q
    if tn == "negative_exponential":
        f_rho = lambda t: math.exp(t / b) / b if t <= 0 else 0.0  # noqa: E731
    elif tn == "laplace":
        f_rho = lambda t: math.exp(-abs(t) / b) / (2 * b)  # noqa: E731
    elif tn == "gumbel":
        f_rho = lambda t: math.exp(-(t / b) - math.exp(-t / b)) / b if t > -30 * b else 0.0  # noqa: E731
    elif tn == "exponential":
        f_rho = lambda t: math.exp(-t / b) / b if t >= 0 else 0.0  # noqa: E731
    else:
        f_rho = lambda t: math.exp(-0.5 * (t / b) ** 2) / (b * math.sqrt(2 * math.pi))  # noqa: E731
    top_shifts, bot_shifts = shifts[pat], shifts[~pat]

    def g(t):
        with np.errstate(divide="ignore", under="ignore"):
            val = float(np.prod(S(t + top_shifts))) * float(np.prod(F(t + bot_shifts)))
            return f_rho(t) * val if val > 0 else 0.0

    kinks = sorted(set((-shifts).tolist()) | {0.0})
    span = 80 * max(b, th) + float(np.max(np.abs(shifts)))
    brk = [-span] + [x for x in kinks if -span < x < span] + [span]
    tot = 0.0
    for x0, x1 in zip(brk[:-1], brk[1:]):
        tot += integrate.quad(g, x0, x1, epsabs=0, epsrel=1e-10, limit=200)[0]
    return tot


# ----------------------------------------------------------------------------------------------------------
# Experiments (§2.8, Table 3, §5.2)
# ----------------------------------------------------------------------------------------------------------
def upper_bound_topc(
    answers, *, epsilon: float, c: int, sensitivity: float = 1.0, monotonic: bool = False, rng=None
) -> np.ndarray:
    """'SVT-Exp upper bound' of Table 3: add Exp(Δ/ε₂) to every score, return the top c (spec §2.4).

    NOT a DP top-c procedure at budget ε (spec §7 item 16) — an empirical ceiling; ε₂ is SVT-Exp's."""
    q = _v.real_array("answers", answers)
    if q.ndim != 1 or q.size == 0:
        raise ValueError("answers must be a non-empty one-dimensional array")
    sp = split_budget(epsilon, c=c, noise="exponential", monotonic=monotonic, sensitivity=sensitivity)
    noisy = q + sample_noise("exponential", sp.sensitivity / sp.epsilon2, q.size, rng)
    return np.argsort(-noisy, kind="stable")[: sp.c]


def run_method(
    method: str,
    answers,
    *,
    threshold: float,
    epsilon: float,
    c: int,
    k: int | None = None,
    alpha: float = 0.0,
    append: bool = True,
    traverses: int | None = 1,
    resample: bool = False,
    monotonic: bool = False,
    delta: float = 1e-5,
    rng=None,
) -> np.ndarray:
    """Indices selected by one Table-3 method (spec §1.15 calibration, same queue/append logic for all)."""
    method = _v.choice("method", method, METHODS)
    noise, corr = METHODS[method]
    if corr == "upper_bound":
        return upper_bound_topc(answers, epsilon=epsilon, c=c, monotonic=monotonic, rng=rng)
    return run_svt(
        answers,
        threshold=threshold,
        epsilon=epsilon,
        c=c,
        noise=noise,
        correction=corr,
        append=append,
        resample=resample,
        rng=rng,
        k=k,
        alpha=alpha,
        traverses=traverses,
        monotonic=monotonic,
        delta=delta,
    ).selected


def selection_metrics(selected, scores, *, threshold: float, c: int) -> dict[str, float]:
    """Precision, recall, F1 and NCR of a top-c selection (spec §2.8, §7 item 17).

    True positives: items with score ≥ T. NCR: the true top-1 item scores c, top-2 c−1, …, top-c 1, others
    0, tied true scores share the average; NCR = Σ_selected / (c(c+1)/2). 0/0 is reported as 0."""
    s = _v.real_array("scores", scores)
    if s.ndim != 1 or s.size == 0:
        raise ValueError("scores must be a non-empty one-dimensional array")
    T = _v.real("threshold", threshold)
    c = _v.integer("c", c, low=1)
    idx = _v.real_array("selected", selected, allow_inf=False).ravel()
    if idx.size and (idx.min() < 0 or idx.max() >= s.size or not np.all(idx == np.floor(idx))):
        raise ValueError("selected must hold indices into scores")
    sel = np.unique(idx.astype(int))
    truth = s >= T
    tp = int(truth[sel].sum())
    fp = sel.size - tp
    fn = int(truth.sum()) - tp
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
    order = np.argsort(-s, kind="stable")
    pos_score = np.maximum(c - np.arange(s.size), 0).astype(float)
    sorted_s = s[order]
    _, inv = np.unique(-sorted_s, return_inverse=True)
    avg = np.bincount(inv, weights=pos_score) / np.bincount(inv)
    item_score = np.empty(s.size)
    item_score[order] = avg[inv]
    ncr = float(item_score[sel].sum() / (c * (c + 1) / 2))
    return {"precision": precision, "recall": recall, "f1": f1, "ncr": ncr}


def run_experiment(
    scores,
    *,
    threshold: float,
    epsilons: Sequence[float],
    c: int,
    methods: Sequence[str] | None = None,
    n_runs: int = 100,
    traverses: Sequence[int | None] | int | None = 1,
    append: bool = True,
    alpha: float = 0.0,
    k: int | None = None,
    monotonic: bool = False,
    resample: bool = False,
    delta: float | None = None,
    rng=None,
    progress: Callable[[float], None] | None = None,
) -> pd.DataFrame:
    """Top-c experiment of §5.2 (spec §2.8): many runs over random queue orders; means with 95 % CIs.

    One row per (method, ε, traverses) with columns <metric>, <metric>_lo, <metric>_hi (Student-t interval)
    for precision, recall, f1, ncr. k defaults to ⌊n_items/c⌋; δ (SVT-Gau) defaults to 1/n_items."""
    s = _v.real_array("scores", scores, allow_inf=False)
    if s.ndim != 1 or s.size == 0:
        raise ValueError("scores must be a non-empty one-dimensional array")
    eps_list = [_v.positive("epsilons", e) for e in np.atleast_1d(epsilons)]
    if not eps_list:
        raise ValueError("epsilons must not be empty")
    c = _v.integer("c", c, low=1)
    methods = list(METHODS) if methods is None else [
        _v.choice("methods", m, METHODS) for m in _v.sequence("methods", methods)
    ]
    n_runs = _v.integer("n_runs", n_runs, low=2)
    trav = [traverses] if traverses is None or np.ndim(traverses) == 0 else list(traverses)
    delta_ = 1.0 / max(s.size, 2) if delta is None else delta
    g = _v.rng(rng)
    rows = []
    total = len(methods) * len(eps_list) * len(trav)
    done = 0
    tcrit = float(stats.t.ppf(0.975, n_runs - 1))
    for m in methods:
        for e in eps_list:
            for t in trav:
                vals = {key: np.empty(n_runs) for key in ("precision", "recall", "f1", "ncr")}
                for j in range(n_runs):
                    perm = g.permutation(s.size)
                    sel = run_method(
                        m,
                        s[perm],
                        threshold=threshold,
                        epsilon=e,
                        c=c,
                        k=k,
                        alpha=alpha,
                        append=append,
                        traverses=t,
                        resample=resample,
                        monotonic=monotonic,
                        delta=delta_,
                        rng=g,
                    )
                    met = selection_metrics(perm[sel], s, threshold=threshold, c=c)
                    for key in vals:
                        vals[key][j] = met[key]
                row = {"method": m, "epsilon": e, "traverses": t, "n_runs": n_runs}
                for key, x in vals.items():
                    mu, se = float(x.mean()), float(x.std(ddof=1) / math.sqrt(n_runs))
                    row[key], row[f"{key}_lo"], row[f"{key}_hi"] = mu, mu - tcrit * se, mu + tcrit * se
                rows.append(row)
                done += 1
                if progress is not None:
                    progress(done / total)
    return pd.DataFrame(rows)
