"""Accuracy of SVT: Theorem 4's (α, β) bound, its exact value, and the appending strategy (Liu et al. 2024,
§2.2.3 Def. 3, §4.1 Theorem 4, App. C, §4.4).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from dpcore import _validate as _v
from dpcore.svt.comparison import _exp_lap_logcdf_logsf, comparison_cdf
from dpcore.svt.correction import _gl_integrate, shared_success_probability
from dpcore.svt.noise import _check_pair

__all__ = ["accuracy_alpha", "accuracy_bound", "appending_probability"]


def appending_probability(
    d,
    *,
    r: float,
    traverses: int,
    threshold_scale: float,
    query_scale: float,
    variant: str = "shared",
):
    """P[a query with q − T = d is answered ⊤ within t passes] (§4.4, the appending strategy).

    ``variant``: "shared" = E_ρ[1 − F_E(ρ + r − d)^t] (exact for Alg. 2, one ρ); "independent" =
    1 − (1 − p)^t (fresh ρ per pass); "as_printed" = the paper's t·p (§4.4), a first-order approximation that
    exceeds the exact value and can exceed 1 (erratum)."""
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
    α/2-split union bound of App. C done right — 8(ln k + ln 2/β)/ε, the same as Dwork and Roth's Laplace bound
    (erratum: the proof drops a factor ε/4). The printed bound still holds numerically (see :func:`accuracy_alpha`)."""
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
    """Smallest α whose exact shared-ρ failure probability is ≤ β (the setting of Theorem 4).

    Worst case of Def. 3: k − 1 queries at T − α must be rejected and one at T + α accepted, all against the
    same noisy threshold (plus correction r)."""
    beta = _v.probability("beta", beta, low_open=True, high_open=True)
    k = _v.integer("k", k, low=1)
    r = _v.real("r", r)
    b, th, qn, _ = _check_pair(threshold_scale, query_scale, query_noise, "laplace")

    def fail(a: float) -> float:
        if k == 1:
            return float(comparison_cdf(r - a, threshold_scale=b, query_scale=th, query_noise=qn))
        return 1.0 - shared_success_probability(r, k=k - 1, alpha=a, threshold_scale=b, query_scale=th, query_noise=qn)

    hi = max(b, th) * (10 + 3 * math.log(k + 2) - math.log(beta)) + abs(r)
    while fail(hi) > beta:
        hi *= 2
    if fail(0.0) <= beta:
        return 0.0
    return float(optimize.brentq(lambda a: fail(a) - beta, 0.0, hi, xtol=1e-9 * hi))
