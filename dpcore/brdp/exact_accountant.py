"""Budget Recycling Differential Privacy (BR-DP), paper 000 (Jiang, Du, Sharma, Yan, arXiv:2403.11445).

A kernel (Gaussian or Laplace noise calibrated to a sub-budget ``epsilon_y``) is wrapped in a *recycler*:
an out-of-bound draw (``|n| > theta``) is discarded with probability ``q`` and drawn again.

Two accountants are provided (spec §4):

* ``"paper"`` — the mixture model of Thm. 1 / Prop. 2 / Thm. 3 (W and L).  It is **not** a valid bound in
  general (spec §4.8): it can under-report delta by orders of magnitude.
* ``"exact"`` — the hockey-stick divergence between the two BR-DP output laws (closed form on pieces),
  the sup over shifts in (0, Delta_f], and exact T-fold composition of the BR-DP privacy-loss distribution
  with ``dp_accounting``.  This is the default.

Notation: ``scale`` is the kernel's sigma (Gaussian) or b (Laplace); ``sensitivity`` is Delta_f;
acceptable outputs satisfy ``|y_n - y| <= theta`` (tau_u = theta, tau_l = -theta).

The number of kernel draws of one release is geometric with success probability 1 - pbar_theta q.  It does
not depend on the true answer (translation-invariant kernel), so the iteration count leaks nothing.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import integrate, special, stats
from scipy import optimize as _opt

from dpcore import _validate as _v
from dpcore import accounting as _acct

__all__ = [
    "BRDPPlan",
    "SubsamplingPlan",
    "kernel_scale",
    "success_probability",
    "kernel_delta",
    "acceptance_rate",
    "expected_draws",
    "output_density",
    "output_cdf",
    "output_variance",
    "sample_outputs",
    "simulate_recycler",
    "baseline_q",
    "recycling_loss",
    "paper_w",
    "paper_delta",
    "paper_q",
    "objective",
    "exact_delta",
    "exact_pld",
    "optimize",
    "composed_delta",
    "composed_epsilon",
    "amplify",
    "deamplify",
    "sampling_error_std",
    "subsampled_acceptance",
    "optimal_sampling_rate",
    "budget_split_landscape",
    "acceptance_curve",
    "privacy_profile",
    "composition_curve",
    "loss_distribution",
    "make_plan",
    "experiment_releases",
    "compare_accountants",
]

Kernel = Literal["gaussian", "laplace"]
_KERNELS = ("gaussian", "laplace")
_SQRT2 = math.sqrt(2.0)
#: Size limits, far above what the app uses (≤ 2·10⁵ draws, 200 shifts, T ≤ 1000, landscapes of ≤ 100 points,
#: loss pictures of ~300 points, PLD grids of ~10⁵ points): explicit ValueErrors instead of MemoryErrors.
MAX_SAMPLES = 100_000_000
MAX_SHIFTS = 100_000
MAX_GRID = 1_000_000
#: Most loss-grid points of :func:`exact_pld` ((upper - lower loss)/h; 10⁷ float64 = 80 MB per array).
MAX_PLD_POINTS = 10_000_000
#: Smallest tail_mass_truncation of :func:`exact_pld` (its quantile -Φ⁻¹(t/4) must stay finite).
MIN_TAIL_MASS = 1e-300
_BUDGET_RTOL = 1e-6  # relative tolerance when comparing a delta with a target delta (float rounding of
# the calibrations, e.g. Laplace eps' = eps - 2 ln(1 - delta) at delta = 1e-12, is ~1e-4 relative)


# ---------------------------------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------------------------------


def _kernel(kernel: Any) -> str:
    return _v.choice("kernel", kernel, _KERNELS)


def _scale(scale: Any) -> float:
    return _v.scale("scale", scale)


def _theta(theta: Any) -> float:
    return _v.scale("theta", theta)


def _q(q: Any) -> float:
    return _v.probability("q", q)


def _sens(sensitivity: Any) -> float:
    return _v.scale("sensitivity", sensitivity)


def _delta(delta: Any) -> float:
    return _v.probability("delta", delta, low_open=True, high_open=True)


def _eps_pos(epsilon: Any) -> float:
    # every caller calibrates a kernel at epsilon (or eps_y <= epsilon): accounting's calibration limit
    return _v.bounded("epsilon", epsilon, low=0.0, low_open=True, cap=_acct.MAX_CALIBRATION_EPSILON)


def _eps_y(epsilon_y: Any, epsilon: float) -> float:
    e = _v.positive("epsilon_y", epsilon_y)
    if e > epsilon * (1 + 1e-12):
        raise ValueError(f"epsilon_y must be in (0, epsilon] = (0, {epsilon:g}], got {epsilon_y!r}")
    return min(e, epsilon)


# ---------------------------------------------------------------------------------------------------
# kernel primitives (private, fast; vectorised where marked)
# ---------------------------------------------------------------------------------------------------


def _cdf(kernel: str, x: Any, s: float) -> np.ndarray:
    """Kernel CDF F_N(x) (vectorised)."""
    x = np.asarray(x, dtype=float)
    if kernel == "gaussian":
        return special.ndtr(x / s)
    with np.errstate(over="ignore"):
        half = 0.5 * np.exp(-np.abs(x) / s)  # = 0.5 e^{min(x,0)/s} for x < 0, 0.5 e^{-max(x,0)/s} otherwise
    return np.where(x < 0, half, 1.0 - half)


def _pdf(kernel: str, x: Any, s: float) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore"):  # |x|/s beyond ~1e154: (x/s)^2 = inf, density 0
        if kernel == "gaussian":
            return np.exp(-0.5 * (x / s) ** 2) / (s * math.sqrt(2 * math.pi))
        return np.exp(-np.abs(x) / s) / (2 * s)


def _mass(kernel: str, lo: np.ndarray, hi: np.ndarray, s: float) -> np.ndarray:
    """P(lo < N <= hi) for the kernel, accurate in both tails (vectorised, hi >= lo)."""
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    left = _cdf(kernel, hi, s) - _cdf(kernel, lo, s)
    right = _cdf(kernel, -lo, s) - _cdf(kernel, -hi, s)  # survival differences (symmetric kernel)
    return np.maximum(np.where(lo >= 0, right, left), 0.0)


def _p_theta(kernel: str, s: float, theta: float) -> float:
    """Eq. (4): p_theta = F_N(theta) - F_N(-theta)."""
    if kernel == "gaussian":
        return math.erf(theta / (s * _SQRT2))
    return -math.expm1(-theta / s)


def _cdf_s(kernel: str, x: float, s: float) -> float:
    """Scalar kernel CDF (hot loops)."""
    if kernel == "gaussian":
        return float(special.ndtr(x / s))
    return 0.5 * math.exp(x / s) if x < 0 else 1.0 - 0.5 * math.exp(-x / s)


def _w(kernel: str, s: float, theta: float, d: float) -> float:
    """Eq. (7) with tau_l = -theta, tau_u = theta.

    Equals W = F(min(D-theta, theta)) - F(-theta) (spec §4.4).
    """
    tl, tu = -theta, theta
    first = _cdf_s(kernel, min(tl + d, tu), s) - _cdf_s(kernel, tl, s)
    lo2, hi2 = max(tu, tl + d), tu + d  # both > 0: use survival functions
    second = _cdf_s(kernel, -lo2, s) - _cdf_s(kernel, -hi2, s)
    return max(first, second, 0.0)


def _profile_s(kernel: str, eps: float, s: float, d: float) -> float:
    """Scalar kernel profile delta_Z(eps), every real eps incl. +-inf, for the hot loops of Alg. 1/2.

    Uses :mod:`dpcore.accounting`'s unvalidated cores (the public functions' argument checks would cost more
    than the evaluation itself, hundreds of times per :func:`optimize`).
    """
    if eps == -math.inf:
        return 1.0
    if eps == math.inf:
        return 0.0
    if kernel == "gaussian":
        return math.exp(_acct._gaussian_log_delta_scalar(eps, d / s))
    return float(_acct._laplace_delta_single(eps, d / s))


def _profile_fn(kernel: str, s: float, d: float, compositions: int = 1, method: str = "exact"):
    """Kernel privacy profile delta_Z^T as a vectorised callable (spec §4.3, §6.4).

    Gaussian: :func:`dpcore.accounting.gaussian_delta` (closed form, sensitivity sqrt(T) D).  Laplace:
    :func:`dpcore.accounting.laplace_delta` (closed form at T = 1, cached PLD beyond), or RDP for T > 1
    (``method="rdp"`` / ``"rdp_improved"``, the paper's method).
    """
    if kernel == "gaussian":  # accounting.gaussian_delta's computation, its argument checks done once here
        t = _v.integer("compositions", compositions, low=1)
        try:
            mu = np.float64(math.sqrt(t) * d / s)
        except OverflowError:
            raise ValueError(f"compositions must be an integer in [1, 1e308], got {compositions!r}") from None
        return lambda eps: np.exp(_acct._gaussian_log_delta(np.asarray(eps, dtype=float), mu))
    if compositions > 1 and method != "exact":
        return lambda eps: _laplace_rdp_delta(eps, s, d, compositions, method)
    return lambda eps: _acct.laplace_delta(eps, scale=s, sensitivity=d, compositions=compositions)


def _profile(
    kernel: str, eps: Any, s: float, d: float, compositions: int = 1, method: str = "exact"
) -> np.ndarray:
    """Kernel privacy profile delta_Z^T(eps), vectorised; Laplace T > 1 by PLD or RDP (``method``)."""
    return np.asarray(_profile_fn(kernel, s, d, compositions, method)(eps), dtype=float)


def _laplace_rdp_delta(eps: Any, s: float, d: float, t: int, conversion: str) -> np.ndarray:
    """T-fold Laplace profile from RDP (Mironov 2017; spec §6.4), the paper's method for the Laplace kernel.

    eps_RDP(a) = ln[a/(2a-1) e^{(a-1)/lam} + (a-1)/(2a-1) e^{-a/lam}]/(a-1), lam = b/D; R_T = T eps_RDP.
    "rdp": delta = min_a exp((a-1)(R_T - eps)); "rdp_improved": times ((a-1)/a)^{a-1}/a (Canonne et al.).
    """
    eps = np.asarray(eps, dtype=float)
    a = np.concatenate((np.linspace(1.01, 10, 400), np.linspace(10, 1000, 2001)[1:]))
    lam = s / d
    r = np.logaddexp(np.log(a / (2 * a - 1)) + (a - 1) / lam, np.log((a - 1) / (2 * a - 1)) - a / lam)
    r = r / (a - 1)
    rt = t * r
    with np.errstate(all="ignore"):
        log_d = (a - 1) * (rt - eps[..., None])
        if conversion == "rdp_improved":
            log_d = log_d + (a - 1) * np.log((a - 1) / a) - np.log(a)
        out = np.exp(np.minimum(log_d.min(-1), 0.0))
    out = np.where(eps == -np.inf, 1.0, np.where(eps == np.inf, 0.0, out))
    return np.clip(out, 0.0, 1.0)


# ---------------------------------------------------------------------------------------------------
# fast scalar root-finds (Alg. 2's hot loop): safeguarded Newton on the log-space closed forms
# ---------------------------------------------------------------------------------------------------

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_EPS = float(np.finfo(float).eps)


def _exp_or_inf(x: float) -> float:
    """math.exp without OverflowError (inf beyond the float range: :func:`_safe_newton` then bisects)."""
    return math.exp(x) if x < 709.0 else math.inf


def _safe_newton(fg, lo: float, hi: float, lo_positive: bool, x: float, xtol: float, rtol: float,
                 fg0: tuple[float, float] | None = None, noise_stop: bool = False) -> float:
    """Scalar Newton kept inside the bracket [lo, hi] (sign change; ``lo_positive`` = sign of f at lo; hi
    may be +inf), with a bisection (doubling while hi = inf) step whenever Newton leaves it;
    ``fg(x) -> (f, f')`` (``fg0``: its value at the starting x, if known).  Stops when a step is
    <= xtol + rtol |x|, or (``noise_stop``) when steps below 1e-11 |x| stop shrinking (the rounding noise of
    f).  Returns the last Newton point."""
    prev = math.inf
    for _ in range(400):
        f, g = fg(x) if fg0 is None else fg0
        fg0 = None
        if f == 0:
            return x
        if (f > 0) == lo_positive:
            lo = x
        else:
            hi = x
        nx = x - f / g if g != 0 and math.isfinite(g) else math.nan
        if not (min(lo, hi) < nx < max(lo, hi)):
            nx = 0.5 * (lo + hi) if math.isfinite(hi) else 2.0 * max(lo, x, 1e-300)
        step = abs(nx - x)
        noise = noise_stop and step <= 1e-11 * abs(x) and step > 0.5 * prev
        if step <= xtol + rtol * abs(x) or nx == x or noise:
            break
        prev = step
        x = nx
    return nx


def _analytic_mu_s(eps: float, delta: float) -> float:
    """:func:`dpcore.accounting._analytic_mu` (largest mu with delta_G(eps; mu) <= delta) by Newton steps:
    d delta_G / d mu = phi(mu/2 - eps/mu) (Balle & Wang 2018, Thm 8), so d ln delta/d mu = phi(a)/delta_G.

    Starts from the larger of two feasible points (below the root), both close to it in their regime:
    sqrt(z^2 + 2 eps) - z, z = -Phi^{-1}(delta), the root of Phi(mu/2 - eps/mu) = delta >= delta_G (large
    eps),
    and 2 Phi^{-1}((1 + delta)/2), the root at eps = 0 (delta_G decreases in eps; small eps); about 5
    evaluations instead of accounting's ~20 (bracketing + ``brentq``).  Nudged to the sound side in
    floating point (accounting's ``brentq`` if that takes more than a few ulps).
    """
    log_t = math.log(delta)
    core = _acct._gaussian_log_delta_scalar
    z = -float(special.ndtri(delta))
    lo = max(math.sqrt(z * z + 2.0 * eps) - z if z > 0 else 0.0,
             -2.0 * float(special.ndtri(0.5 - 0.5 * delta)))

    def fg(mu: float) -> tuple[float, float]:
        ld = core(eps, mu)
        a = mu / 2 - eps / mu
        g = _exp_or_inf(-0.5 * a * a - _LOG_SQRT_2PI - ld) if ld > -math.inf else math.inf
        return ld - log_t, g

    fg_lo = fg(lo) if lo > 0 and math.isfinite(lo) else (math.inf, 0.0)
    if not fg_lo[0] <= 0:
        return _acct._analytic_mu(eps, delta)
    mu = _safe_newton(fg, lo, math.inf, False, lo, 1e-300, 4 * _EPS, fg_lo, noise_stop=True)
    for _ in range(64):  # to the sound side in floating point (a few ulps at most)
        if core(eps, mu) - log_t <= 0:
            return mu
        mu = float(np.nextafter(mu, 0.0))
    return _acct._analytic_mu(eps, delta)


def _gauss_eps_for_delta_s(t: float, mu: float, lo: float, hi: float) -> float:
    """Root of ln delta_G(x; mu) = ln t in (lo, hi) by safeguarded Newton (d delta_G/d x =
    -e^x Phi(-mu/2 - x/mu), Balle & Wang 2018), from hi."""
    log_t = math.log(t)
    core = _acct._gaussian_log_delta_scalar

    def fg(x: float) -> tuple[float, float]:
        ld = core(x, mu)
        lb = float(special.log_ndtr(-mu / 2 - x / mu))
        return ld - log_t, -_exp_or_inf(x + lb - ld) if ld > -math.inf else -math.inf

    fg_hi = fg(hi)
    if fg_hi[0] > 0:  # rounding: delta_G(hi) <= t holds in exact arithmetic
        return hi
    return _safe_newton(fg, lo, hi, True, hi, 1e-14, 2 * _EPS, fg_hi)


def _calibrate(kernel: str, eps_y: float, delta: float, d: float, calibration: str) -> float:
    """Kernel scale for budget (eps_y, delta) (spec §4.2) from :mod:`dpcore.accounting`.

    Gaussian: analytic (Balle & Wang) or classic sigma; Laplace: tight b = D/eps' ("analytic") or pure
    b = D/eps ("classic", i.e. delta = 0).  Unvalidated analytic core in the Gaussian case (Alg. 2 hot loop):
    :func:`_analytic_mu_s`, the Newton form of ``accounting._analytic_mu`` (same root to ~1e-10 relative).
    """
    if kernel == "gaussian":
        if calibration == "classic":
            s = _acct.gaussian_sigma(eps_y, delta, sensitivity=d, method="classic")
        else:
            s = d / _analytic_mu_s(eps_y, delta)
        if not _v.MIN_SCALE <= s <= _v.MAX_SCALE:  # as accounting.laplace_scale does for the Laplace kernel
            raise _scale_range_error(d, eps_y)
        return s
    try:
        return _acct.laplace_scale(eps_y, sensitivity=d, delta=delta if calibration == "analytic" else 0.0)
    except ValueError as exc:  # its scale range check, reworded to name epsilon_y (the callers' argument)
        raise _scale_range_error(d, eps_y) from exc


def _scale_range_error(d: float, eps_y: float) -> ValueError:
    lim = f"[{_v.MIN_SCALE:g}, {_v.MAX_SCALE:g}]"
    return ValueError(f"sensitivity/epsilon must give a kernel scale in {lim}, got sensitivity={d!r}, "
                      f"epsilon_y={eps_y!r}")


def _kernel_eps_for_delta(kernel: str, t: float, s: float, d: float) -> float:
    """The kernel's epsilon at delta t: smallest x with delta_Z(x) <= t (scalar).

    Laplace: :func:`dpcore.accounting.laplace_epsilon` (closed form).  Gaussian: safeguarded Newton
    (:func:`_gauss_eps_for_delta_s`) on ln delta_G(x) - ln t with accounting's scalar closed form, inside
    the bracket below (``accounting.gaussian_epsilon`` is the vectorised equivalent, but its per-call
    set-up, ~1 ms, is too slow for Alg. 1 inside Alg. 2).
    """
    if t >= 1:
        return -math.inf
    if kernel == "laplace":
        return _acct.laplace_epsilon(max(t, 0.0), scale=s, sensitivity=d)
    if t <= 0:
        return math.inf
    mu = d / s
    log_t = math.log(t)
    lo = math.log1p(-t)  # delta_G(x) >= 1 - e^x >= t here
    hi = mu * mu / 2 - mu * float(special.ndtri(t))  # delta_G(x) <= Phi(mu/2 - x/mu) <= t here
    if hi <= lo:
        return lo
    if _acct._gaussian_log_delta_scalar(lo, mu) - log_t <= 0:
        return lo
    return _gauss_eps_for_delta_s(t, mu, lo, hi)  # returns hi when delta_G(hi) > t (rounding)


# ---------------------------------------------------------------------------------------------------
# kernel-level public helpers
# ---------------------------------------------------------------------------------------------------


def kernel_scale(
    epsilon_y: float,
    delta: float,
    *,
    sensitivity: float = 1.0,
    kernel: Kernel = "gaussian",
    calibration: Literal["analytic", "classic"] = "analytic",
) -> float:
    """Kernel scale (sigma or b) for the sub-budget (epsilon_y, delta).

    Spec §4.2 [AMBIG -> REC]: Gaussian "analytic" (Balle & Wang) or "classic" (D sqrt(2 ln(1.25/delta))/eps);
    Laplace "analytic" = tight b = D/eps', eps' = eps - 2 ln(1 - delta), "classic" = pure b = D/eps.
    Delegates to :mod:`dpcore.accounting`.
    """
    kernel = _kernel(kernel)
    e = _v.bounded("epsilon_y", epsilon_y, low=0.0, low_open=True, cap=_acct.MAX_CALIBRATION_EPSILON)
    dl = _delta(delta)
    d = _sens(sensitivity)
    calibration = _v.choice("calibration", calibration, ("analytic", "classic"))
    return float(_calibrate(kernel, e, dl, d, calibration))


def success_probability(*, kernel: Kernel, scale: float, theta: float) -> float:
    """p_theta = Pr(|N| <= theta) of the kernel (eqs. 4-5)."""
    return _p_theta(_kernel(kernel), _scale(scale), _theta(theta))


def kernel_delta(
    epsilon: Any, *, kernel: Kernel, scale: float, sensitivity: float = 1.0, compositions: int = 1
) -> np.ndarray | float:
    """Kernel privacy profile delta_Z^T(epsilon) for every real epsilon incl. +-inf (spec §4.3, §6.4)."""
    kernel = _kernel(kernel)
    s = _scale(scale)
    d = _sens(sensitivity)
    t = _v.integer("compositions", compositions, low=1)
    eps = _v.real_array("epsilon", epsilon)
    out = _profile(kernel, eps, s, d, t)
    return float(out) if out.ndim == 0 else out


def acceptance_rate(*, kernel: Kernel, scale: float, theta: float, q: float) -> float:
    """Acceptance Pr(|N_brdp| <= theta) = p_theta / (1 - pbar_theta q) (eq. 9)."""
    p = _p_theta(_kernel(kernel), _scale(scale), _theta(theta))
    q = _q(q)
    return _acc(p, q)


def _den(p: float, q: float) -> float:
    """Release probability per draw 1 - (1 - p_theta) q (scalar :func:`_norm`: p_theta + (1 - p_theta)(1 - q)
    where the difference rounds to <= 0, i.e. p_theta below the float spacing of 1 and q near 1)."""
    den = 1.0 - (1.0 - p) * q
    return den if den > 0 else p + (1.0 - p) * (1.0 - q)


def _acc(p: float, q: float) -> float:
    den = _den(p, q)
    return 1.0 if den <= 0 else min(1.0, p / den)


def expected_draws(*, kernel: Kernel, scale: float, theta: float, q: float) -> float:
    """E[K] = 1/(1 - pbar_theta q): mean number of kernel draws per release (spec §3.2)."""
    p = _p_theta(_kernel(kernel), _scale(scale), _theta(theta))
    q = _q(q)
    den = _den(p, q)
    return math.inf if den <= 0 else 1.0 / den


def output_density(
    x: Any, *, kernel: Kernel, scale: float, theta: float, q: float, center: float = 0.0
) -> np.ndarray | float:
    """BR-DP output density f_brdp(x | y=center) (Prop. 1, eq. 3; App. A erratum: final form is right)."""
    kernel = _kernel(kernel)
    s, th, q = _scale(scale), _theta(theta), _q(q)
    c = _v.real("center", center)
    xs = _v.real_array("x", x)
    p = _p_theta(kernel, s, th)
    den = _den(p, q)
    n = xs - c
    f = _pdf(kernel, n, s) * np.where(np.abs(n) <= th, 1.0, 1.0 - q) / den
    return float(f) if f.ndim == 0 else f


def output_cdf(
    x: Any, *, kernel: Kernel, scale: float, theta: float, q: float, center: float = 0.0
) -> np.ndarray | float:
    """BR-DP output CDF (spec §3.3 [REC]).

    F(t) = [(1-q)F_N(t) + q max(0, F_N(min(t, theta)) - F_N(-theta))] / (1 - pbar q).
    """
    kernel = _kernel(kernel)
    s, th, q = _scale(scale), _theta(theta), _q(q)
    c = _v.real("center", center)
    t = _v.real_array("x", x) - c
    p = _p_theta(kernel, s, th)
    den = _den(p, q)
    inner = _mass(kernel, np.full_like(t, -th), np.clip(t, -th, th), s)
    out = np.clip(((1 - q) * _cdf(kernel, t, s) + q * inner) / den, 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


def output_variance(*, kernel: Kernel, scale: float, theta: float, q: float) -> float:
    """Var of the BR-DP noise: (Var_N - q E[N^2; |N| > theta]) / (1 - pbar q) (spec §3.3 [REC])."""
    kernel = _kernel(kernel)
    s, th, q = _scale(scale), _theta(theta), _q(q)
    p = _p_theta(kernel, s, th)
    # E[N^2; |N| <= theta] = Var_N P(X <= x) with X ~ Gamma(3/2) (N^2/2s^2, Gaussian) or Gamma(3) (|N|/b,
    # Laplace): the numerator Var_N - q E[N^2; |N| > theta] = Var_N ((1 - q) + q P(X <= x)), free of the
    # cancellation of the difference form when q -> 1 and theta << scale
    z = th / s
    a, x, var = (1.5, z * z / 2, s * s) if kernel == "gaussian" else (3.0, z, 2 * s * s)
    return var * ((1.0 - q) + q * float(special.gammainc(a, x))) / _den(p, q)


# ---------------------------------------------------------------------------------------------------
# samplers
# ---------------------------------------------------------------------------------------------------


def _draw_kernel(kernel: str, s: float, size: int, gen: np.random.Generator) -> np.ndarray:
    if kernel == "gaussian":
        return gen.normal(0.0, s, size)
    return gen.laplace(0.0, s, size)


def sample_outputs(
    n: int,
    *,
    kernel: Kernel,
    scale: float,
    theta: float,
    q: float,
    center: float = 0.0,
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """n independent BR-DP releases around ``center`` by the direct sampler (spec §3.2 [REC]).

    Same law as the recycling loop: with probability p_theta/(1 - pbar q) the noise is the kernel truncated to
    [-theta, theta], otherwise the kernel truncated to |n| > theta (inverse CDF; exact even when q -> 1).
    """
    n = _v.integer("n", n, low=0, high=MAX_SAMPLES)
    kernel = _kernel(kernel)
    s, th, q = _scale(scale), _theta(theta), _q(q)
    c = _v.real("center", center)
    gen = _v.rng(rng)
    p = _p_theta(kernel, s, th)
    a = _acc(p, q)
    u = gen.random(n)
    w = 2.0 * gen.random(n) - 1.0  # sign(w) and |w| are independent; |w| ~ U(0, 1)
    v = np.abs(w)
    inside = u < a
    if kernel == "gaussian":
        # |N| given in-bound: Phi^{-1}(1/2 + V p/2); given out-of-bound: -Phi^{-1}(V Phi(-theta/s))
        with np.errstate(divide="ignore"):
            r = special.ndtri(np.where(inside, 0.5 + v * (0.5 * p), v * float(special.ndtr(-th / s))))
        out = np.where(inside, np.minimum(r * s, th), np.maximum(-r * s, th))
    else:
        # in-bound: exponential truncated to [0, theta]; out-of-bound: theta + Exp(s) (memoryless tail)
        lg = np.log1p(np.where(inside, -v * p, -v))
        out = np.where(inside, np.minimum(-s * lg, th), th - s * lg)
    return c + np.copysign(out, w)


_OUTCOMES = np.array(["recycled", "released out-of-bound", "released in-bound"], dtype=object)  # code 0, 1, 2


def simulate_recycler(
    n_releases: int,
    *,
    kernel: Kernel,
    scale: float,
    theta: float,
    q: float,
    center: float = 0.0,
    rng: np.random.Generator | int | None = None,
    max_draws: int = 1_000_000,
) -> pd.DataFrame:
    """Step-by-step recycler of Fig. 1 / spec §3.2 recording every kernel draw (for the animation).

    Columns: ``draw`` (0-based), ``release`` (index of the release the draw belongs to), ``noise``,
    ``output``, ``in_bound``, ``outcome`` in {"released in-bound", "released out-of-bound", "recycled"}.
    Stops after ``n_releases`` releases or ``max_draws`` draws (q = 1 with tiny p_theta).
    """
    n_rel = _v.integer("n_releases", n_releases, low=0, high=MAX_SAMPLES)
    kernel = _kernel(kernel)
    s, th, q = _scale(scale), _theta(theta), _q(q)
    c = _v.real("center", center)
    cap = _v.integer("max_draws", max_draws, low=1, high=MAX_SAMPLES)
    gen = _v.rng(rng)
    noises: list[np.ndarray] = []
    coins: list[np.ndarray] = []
    released = 0
    total = 0
    chunk = max(16, 2 * n_rel)
    while released < n_rel and total < cap:
        m = min(chunk, cap - total)
        nz = _draw_kernel(kernel, s, m, gen)
        cn = gen.random(m)
        noises.append(nz)
        coins.append(cn)
        released += int(np.count_nonzero((np.abs(nz) <= th) | (cn >= q)))
        total += m
    noise = np.concatenate(noises) if noises else np.empty(0)
    coin = np.concatenate(coins) if coins else np.empty(0)
    inb = np.abs(noise) <= th
    rel = inb | (coin >= q)
    if n_rel == 0:
        keep = 0
    elif released >= n_rel:
        keep = int(np.flatnonzero(rel)[n_rel - 1]) + 1
    else:
        keep = len(noise)
    noise, inb, rel = noise[:keep], inb[:keep], rel[:keep]
    release_idx = np.concatenate(([0], np.cumsum(rel)[:-1])) if keep else np.empty(0, dtype=int)
    # label by code through an object array: ~5x faster than np.where on strings and pandas' U -> str conversion
    outcome = _OUTCOMES[rel.astype(np.int8) + (rel & inb)] if keep else np.empty(0, dtype=str)
    return pd.DataFrame(
        {
            "draw": np.arange(keep),
            "release": release_idx.astype(int),
            "noise": noise,
            "output": c + noise,
            "in_bound": inb,
            "outcome": outcome,
        }
    )


# ---------------------------------------------------------------------------------------------------
# the paper's accountant (Thm. 1, Prop. 2, Thm. 2, Alg. 1)
# ---------------------------------------------------------------------------------------------------


def baseline_q(epsilon: float, epsilon_y: float) -> float:
    """Baseline recycling probability q_base = 1 - exp(-(epsilon - epsilon_y)) (Thm. 2 / Remark 1).

    Spec §4.6 erratum: the paper's proof is for probabilistic DP; the rigorous guarantee of the kernel at
    (eps_y, delta) with q_base is (eps, delta/(1 - pbar q))-DP.
    """
    e = _v.positive("epsilon", epsilon)  # no calibration here: any finite epsilon
    ey = _eps_y(epsilon_y, e)
    return float(-math.expm1(-(e - ey)))


def recycling_loss(q: float) -> float:
    """Extra privacy loss L = -ln(1 - q) of the recycler (eq. 6); inf at q = 1."""
    q = _q(q)
    return math.inf if q >= 1 else -math.log1p(-q)


def paper_w(*, kernel: Kernel, scale: float, theta: float, sensitivity: float) -> float:
    """W of eq. (7): kernel probability of being in-bound for X and out-of-bound for X' (Thm. 1).

    With tau = +-theta, (7) and (14) agree (spec §4.4) and W = F(min(D - theta, theta)) - F(-theta).
    """
    return _w(_kernel(kernel), _scale(scale), _theta(theta), _sens(sensitivity))


def _paper_delta(kernel: str, eps: np.ndarray, s: float, theta: float, q: float, d: float) -> np.ndarray:
    w = _w(kernel, s, theta, d)
    big_l = math.inf if q >= 1 else -math.log1p(-q)
    return np.clip((1 - w) * _profile(kernel, eps, s, d) + w * _profile(kernel, eps - big_l, s, d), 0.0, 1.0)


def paper_delta(
    epsilon: Any, *, kernel: Kernel, scale: float, theta: float, q: float, sensitivity: float
) -> np.ndarray | float:
    """The paper's BR-DP privacy profile (Prop. 2, eq. 8): (1 - W) delta_Z(eps) + W delta_Z(eps - L).

    Printed with ">=", used as the accountant's value (spec §4.5).
    NOT a valid bound in general (spec §4.8).
    """
    kernel = _kernel(kernel)
    s, th, q, d = _scale(scale), _theta(theta), _q(q), _sens(sensitivity)
    eps = _v.real_array("epsilon", epsilon)
    out = _paper_delta(kernel, eps, s, th, q, d)
    return float(out) if out.ndim == 0 else out


def _alg1(kernel: str, eps: float, delta: float, s: float, d: float, theta: float, tol: float,
          dz: float | None = None) -> float:
    """Alg. 1 solved in closed form / by one root-find: the largest q with (8) <= delta.

    ``dz``: the kernel's delta_Z(eps), if the caller already has it."""
    w = _w(kernel, s, theta, d)
    if dz is None:
        dz = _profile_s(kernel, eps, s, d)
    if w <= 0:
        return 1.0 if dz <= delta else 0.0
    t = (delta - (1 - w) * dz) / w  # needed delta_Z(eps - L)
    if t >= 1:
        return 1.0
    if t < 0:
        return 0.0
    x = _kernel_eps_for_delta(kernel, t, s, d)
    big_l = eps - x
    if big_l <= 0:
        return 0.0
    q = float(-math.expm1(-big_l))

    def d_of(qq: float) -> float:
        ll = math.inf if qq >= 1 else -math.log1p(-qq)
        return (1 - w) * dz + w * _profile_s(kernel, eps - ll, s, d)

    step = max(tol, 1e-15)
    while q > 0 and d_of(q) > delta:  # stay on the feasible side, as Alg. 1 returns q_lo
        q = max(0.0, q - step)
        step *= 2
    return q


def paper_q(
    *,
    epsilon: float,
    delta: float,
    epsilon_y: float,
    sensitivity: float,
    theta: float,
    kernel: Kernel,
    calibration: Literal["analytic", "classic"] = "analytic",
    tol: float = 1e-10,
) -> float:
    """Alg. 1: largest q with the paper's delta_Gamma(epsilon) <= delta for a kernel at (epsilon_y, delta).

    delta_Gamma is nondecreasing in q, so Alg. 1's bisection and this root-find agree; the returned q
    is on the feasible side (q_lo).  Fixes of spec §4.7: delta_y = delta, q = 1 allowed (L = inf,
    delta_Z(-inf) = 1).
    """
    kernel = _kernel(kernel)
    e = _eps_pos(epsilon)
    dl = _delta(delta)
    ey = _eps_y(epsilon_y, e)
    d, th = _sens(sensitivity), _theta(theta)
    calibration = _v.choice("calibration", calibration, ("analytic", "classic"))
    tol = _v.positive("tol", tol)
    s = _calibrate(kernel, ey, dl, d, calibration)
    return _alg1(kernel, e, dl, s, d, th, tol)


def objective(
    p_theta: float, q: float, *, variant: Literal["corrected", "as_printed"] = "corrected"
) -> float:
    """Alg. 2 objective: corrected O = q + (1 - q)/p_theta = 1/acceptance (spec §5.1); printed eq. (10)
    O = 1 - q + q/p_theta only with ``variant="as_printed"`` (an algebra error)."""
    p = _v.probability("p_theta", p_theta, low_open=True)
    q = _q(q)
    variant = _v.choice("variant", variant, ("corrected", "as_printed"))
    return q + (1 - q) / p if variant == "corrected" else 1 - q + q / p


# ---------------------------------------------------------------------------------------------------
# exact accountant (spec §4.8)
# ---------------------------------------------------------------------------------------------------


def _threshold(kernel: str, s: float, d: np.ndarray, level: np.ndarray) -> np.ndarray:
    """sup{x : Z_d(x) > level} for the kernel loss Z_d(x) = ln f(x)/f(x - d) (nonincreasing in x)."""
    with np.errstate(all="ignore"):
        if kernel == "gaussian":
            t = d / 2 - s * s * level / d
            t = np.where(level == np.inf, -np.inf, np.where(level == -np.inf, np.inf, t))
        else:
            e0 = d / s
            t = np.where(level >= e0, -np.inf, np.where(level < -e0, np.inf, (d - s * level) / 2))
    return t


def _cuts(theta: float, d: np.ndarray):
    """Pieces [l, r] of the line cut at {-theta, theta, d - theta, d + theta}, with a finite point inside each.

    Returns lo, hi, mid with a last axis of length 5 (shape of d + (5,)); read-only, memoised for small d arrays
    (the optimisers' shift grids are evaluated hundreds of times).
    """
    d = np.asarray(d, dtype=float)
    if d.size <= 256:
        return _cuts_cached(float(theta), d.tobytes(), d.shape)
    return _cuts_new(theta, d)


@functools.lru_cache(maxsize=256)
def _cuts_cached(theta: float, d_bytes: bytes, shape: tuple):
    out = _cuts_new(theta, np.frombuffer(d_bytes, dtype=float).reshape(shape))
    for arr in out:
        arr.setflags(write=False)
    return out


def _cuts_new(theta: float, d: np.ndarray):
    parts = [np.full(d.shape, -theta), np.full(d.shape, theta), d - theta, d + theta]
    cuts = np.sort(np.stack(parts, -1), -1)
    inf = np.full(d.shape + (1,), np.inf)
    lo = np.concatenate([-inf, cuts], -1)
    hi = np.concatenate([cuts, inf], -1)
    mid = np.where(np.isinf(lo), hi - 1.0, np.where(np.isinf(hi), lo + 1.0, (lo + hi) / 2))
    return lo, hi, mid


def _pieces(theta: float, d: np.ndarray, q: np.ndarray):
    """Pieces [l, r] of the line where c_0 and c_d are constant.

    Returns l, r, a, b, c = ln(a/b), each with a last axis of length 5.
    """
    d = np.asarray(d, dtype=float)
    q = np.asarray(q, dtype=float)
    d, q = np.broadcast_arrays(d, q)
    lo, hi, mid = _cuts(theta, d)
    qq = q[..., None]
    a = np.where(np.abs(mid) <= theta, 1.0, 1.0 - qq)
    b = np.where(np.abs(mid - d[..., None]) <= theta, 1.0, 1.0 - qq)
    with np.errstate(divide="ignore"):
        big_l = np.where(qq >= 1, np.inf, -np.log1p(-np.minimum(qq, 1.0)))
    c = np.where(a == b, 0.0, np.where(a > b, big_l, -big_l))
    return lo, hi, a, b, c


def _piece_masses(kernel: str, s: Any, lo: np.ndarray, hi: np.ndarray, dd: np.ndarray, t: np.ndarray):
    """u = clip(t, lo, hi) and the kernel masses P(lo < N <= u), P(lo - d < N <= u - d), each from its accurate
    tail (CDF differences left of 0, survival differences right of it, as :func:`_mass`); the CDF at the piece
    boundaries depends on (s, d) only and is evaluated on that smaller array."""
    u = np.clip(t, lo, hi)
    lo_d, u_d = lo - dd, u - dd
    pos, pos_d = lo >= 0, lo_d >= 0
    bp = _cdf(kernel, np.where(pos, -lo, lo), s)
    up = _cdf(kernel, np.where(pos, -u, u), s)
    mp = np.maximum(np.where(pos, bp - up, up - bp), 0.0)
    bq = _cdf(kernel, np.where(pos_d, -lo_d, lo_d), s)
    uq = _cdf(kernel, np.where(pos_d, -u_d, u_d), s)
    mq = np.maximum(np.where(pos_d, bq - uq, uq - bq), 0.0)
    return u, mp, mq


def _piece_contrib(e, lo, u, a, b, mp, mq) -> np.ndarray:
    """max(0, P - e^eps Q) on each piece: a·mass_P − e^eps·b·mass_Q where the piece is not empty."""
    qpart = np.where((b == 0) | (mq == 0), 0.0, np.exp(e) * b * mq)
    qpart = np.where(np.isnan(qpart), 0.0, qpart)
    return np.where((u > lo) & (a > 0), a * mp - qpart, 0.0)


_Q_FREE, _Q_DEP = [0, 2, 4], [1, 3]  # pieces outside or inside both S(0) and S(d) / inside exactly one of them


def _norm(p: Any, q: Any) -> np.ndarray:
    """Release probability 1 - (1 - p_theta) q; where that rounds to <= 0 (p_theta below the float spacing of 1,
    q near 1) its exact equal p_theta + (1 - p_theta)(1 - q) > 0 (so no 0/0 at a tiny theta/scale)."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    norm = 1.0 - (1.0 - p) * q
    return np.where(norm > 0, norm, p + (1.0 - p) * (1.0 - q))


def _exact_core(kernel: str, s: Any, theta: float, eps: Any, q: Any, d: Any) -> np.ndarray:
    """Hockey-stick H_{e^eps}(f_brdp(.|0) || f_brdp(.|d)) in closed form on pieces (broadcast s, eps, q, d).

    On the pieces inside or outside both S(0) and S(d) (pieces 0, 2, 4 for every d > 0) the loss shift is 0,
    so the threshold and the kernel masses do not depend on q: they are computed without the q axis, and only
    the two pieces S(0)\\S(d), S(d)\\S(0) run on the whole (s, eps, q, d) array (same values as piece by piece).
    """
    eps, q = np.asarray(eps, float), np.asarray(q, float)
    d0 = np.asarray(d, float)
    shape = np.broadcast_shapes(eps.shape, q.shape, d0.shape)
    if np.ndim(s):  # several kernel scales at once (the exact optimiser's eps_y grid); pieces do not depend on s
        s = np.asarray(s, float)
        with np.errstate(all="ignore"):
            p = special.erf(theta / (s * _SQRT2)) if kernel == "gaussian" else -np.expm1(-theta / s)
        s = s[..., None]
    else:
        p = _p_theta(kernel, s, theta)
    lo, hi, mid = _cuts(theta, d0)  # d0.shape + (5,)
    dd = d0[..., None]
    qq = q[..., None]
    inside_0 = np.abs(mid) <= theta
    inside_d = np.abs(mid - dd) <= theta
    e = eps[..., None]
    with np.errstate(all="ignore"):
        big_l = np.where(qq >= 1, np.inf, -np.log1p(-np.minimum(qq, 1.0)))
        one_minus_q = 1.0 - qq
        split = inside_0 != inside_d
        if np.all(split == np.array([False, True, False, True, False])):
            # q-free pieces: a = b, c = 0, level = eps (where b = 0, i.e. q = 1 outside, a = 0 drops the piece)
            lo_f, hi_f, in_f = lo[..., _Q_FREE], hi[..., _Q_FREE], inside_0[..., _Q_FREE]
            u_f, mp_f, mq_f = _piece_masses(kernel, s, lo_f, hi_f, dd, _threshold(kernel, s, dd, e))
            a_f = np.where(in_f, 1.0, one_minus_q)
            contrib_f = _piece_contrib(e, lo_f, u_f, a_f, a_f, mp_f, mq_f)
            lo_v, hi_v = lo[..., _Q_DEP], hi[..., _Q_DEP]
            a_v = np.where(inside_0[..., _Q_DEP], 1.0, one_minus_q)
            b_v = np.where(inside_d[..., _Q_DEP], 1.0, one_minus_q)
            c_v = np.where(a_v == b_v, 0.0, np.where(a_v > b_v, big_l, -big_l))
            t_v = np.where(b_v == 0, np.inf, _threshold(kernel, s, dd, e - c_v))
            u_v, mp_v, mq_v = _piece_masses(kernel, s, lo_v, hi_v, dd, t_v)
            contrib_v = _piece_contrib(e, lo_v, u_v, a_v, b_v, mp_v, mq_v)
            full = np.broadcast_shapes(contrib_f.shape[:-1], contrib_v.shape[:-1])
            contrib = np.empty(full + (5,))
            contrib[..., _Q_FREE] = contrib_f
            contrib[..., _Q_DEP] = contrib_v
        else:  # generic layout (not reached for d > 0; kept for safety)
            a = np.where(inside_0, 1.0, one_minus_q)
            b = np.where(inside_d, 1.0, one_minus_q)
            c = np.where(a == b, 0.0, np.where(a > b, big_l, -big_l))
            t = np.where(b == 0, np.inf, _threshold(kernel, s, dd, e - c))
            u, mp, mq = _piece_masses(kernel, s, lo, hi, dd, t)
            contrib = _piece_contrib(e, lo, u, a, b, mp, mq)
    norm = _norm(p, np.broadcast_to(q, shape))
    return np.clip(np.maximum(contrib, 0.0).sum(-1) / norm, 0.0, 1.0)


def _exact_q_fn(kernel: str, ss: np.ndarray, theta: float, eps: float, dgrid: np.ndarray):
    """``qs -> max_d exact delta`` for fixed scales ``ss`` (n,), one eps and a shift grid: :func:`_exact_core`
    with everything that does not depend on q computed once (thresholds and kernel masses of the q-free
    pieces, CDFs at the piece ends), for the grid search and bisections of :func:`_largest_exact_q`. ``qs``
    has shape (n or 1, m), the result (n, m); ``rows`` selects a subset of the scales (then qs has len(rows)
    or 1 rows). Same floating-point operations as :func:`_exact_core`, so the same values (tested bit for
    bit). ``None`` when the piece layout is not the generic one (then use :func:`_exact_core`).
    """
    ss = np.asarray(ss, dtype=float).reshape(-1)
    d0 = np.asarray(dgrid, dtype=float).reshape(1, 1, -1)
    lo, hi, mid = _cuts(theta, d0)  # (1, 1, nd, 5)
    inside_0 = np.abs(mid) <= theta
    inside_d = np.abs(mid - d0[..., None]) <= theta
    if not np.all((inside_0 != inside_d) == np.array([False, True, False, True, False])):
        return None
    with np.errstate(all="ignore"):
        p = special.erf(theta / (ss * _SQRT2)) if kernel == "gaussian" else -np.expm1(-theta / ss)
    s = ss[:, None, None, None]  # (n, 1, 1, 1)
    dd = d0[..., None]
    e = np.float64(eps)
    with np.errstate(all="ignore"):
        ee = np.exp(e)  # inf for eps > ~709: the e^eps-weighted masses then only cancel where they are 0
        lo_f, hi_f, in_f = lo[..., _Q_FREE], hi[..., _Q_FREE], inside_0[..., _Q_FREE]
        thr_f = _threshold(kernel, s, dd, e)
        u_f, mp_f, mq_f = _piece_masses(kernel, s, lo_f, hi_f, dd, thr_f)  # (n, 1, nd, 3)
        nonempty_f = u_f > lo_f
        lo_v, hi_v = lo[..., _Q_DEP], hi[..., _Q_DEP]
        in0_v, ind_v = inside_0[..., _Q_DEP], inside_d[..., _Q_DEP]
        lo_d = lo_v - dd
        pos, pos_d = lo_v >= 0, lo_d >= 0
        bp = _cdf(kernel, np.where(pos, -lo_v, lo_v), s)  # (n, 1, nd, 2): CDF at the piece's left end
        bq = _cdf(kernel, np.where(pos_d, -lo_d, lo_d), s)

    def fn(qs: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        qs = np.asarray(qs, dtype=float)
        if rows is None:
            s_, p_, mp_f_, mq_f_, ne_f, bp_, bq_ = s, p, mp_f, mq_f, nonempty_f, bp, bq
        else:
            s_, p_, mp_f_, mq_f_, ne_f = s[rows], p[rows], mp_f[rows], mq_f[rows], nonempty_f[rows]
            bp_, bq_ = bp[rows], bq[rows]
        qq = qs[..., None, None]  # (n|1, m, 1, 1)
        with np.errstate(all="ignore"):
            big_l = np.where(qq >= 1, np.inf, -np.log1p(-np.minimum(qq, 1.0)))
            one_minus_q = 1.0 - qq
            a_f = np.where(in_f, 1.0, one_minus_q)
            qpart = np.where((a_f == 0) | (mq_f_ == 0), 0.0, ee * a_f * mq_f_)
            qpart = np.where(np.isnan(qpart), 0.0, qpart)
            contrib_f = np.where(ne_f & (a_f > 0), a_f * mp_f_ - qpart, 0.0)
            a_v = np.where(in0_v, 1.0, one_minus_q)
            b_v = np.where(ind_v, 1.0, one_minus_q)
            c_v = np.where(a_v == b_v, 0.0, np.where(a_v > b_v, big_l, -big_l))
            t_v = np.where(b_v == 0, np.inf, _threshold(kernel, s_, dd, e - c_v))
            u = np.clip(t_v, lo_v, hi_v)
            u_d = u - dd
            up = _cdf(kernel, np.where(pos, -u, u), s_)
            mp = np.maximum(np.where(pos, bp_ - up, up - bp_), 0.0)
            uq = _cdf(kernel, np.where(pos_d, -u_d, u_d), s_)
            mq = np.maximum(np.where(pos_d, bq_ - uq, uq - bq_), 0.0)
            qpart = np.where((b_v == 0) | (mq == 0), 0.0, ee * b_v * mq)
            qpart = np.where(np.isnan(qpart), 0.0, qpart)
            contrib_v = np.where((u > lo_v) & (a_v > 0), a_v * mp - qpart, 0.0)
        full = np.broadcast_shapes(contrib_f.shape[:-1], contrib_v.shape[:-1])
        contrib = np.empty(full + (5,))
        contrib[..., _Q_FREE] = contrib_f
        contrib[..., _Q_DEP] = contrib_v
        norm = _norm(p_[:, None, None], qs[..., None])  # (n, m, 1)
        out = np.clip(np.maximum(contrib, 0.0).sum(-1) / norm, 0.0, 1.0)  # (n, m, nd)
        return out.max(-1)

    return fn


def _exact_quad(kernel: str, s: float, theta: float, eps: float, q: float, d: float) -> float:
    """Same quantity by adaptive quadrature of max(0, P - e^eps Q) on every sub-piece (spec §4.8)."""
    p = _p_theta(kernel, s, theta)
    norm = float(_norm(p, q))
    ee = math.exp(eps) if eps < 700 else math.inf

    def f(x: float) -> float:
        px = float(_pdf(kernel, x, s)) * (1.0 if abs(x) <= theta else 1 - q)
        qx = float(_pdf(kernel, x - d, s)) * (1.0 if abs(x - d) <= theta else 1 - q)
        return max(0.0, px - (ee * qx if qx > 0 else 0.0))

    span = 40 * s + theta + d
    cuts = sorted({-span, -theta, theta, d - theta, d + theta, 0.0, d, span})
    total = 0.0
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        if hi > lo:
            total += integrate.quad(f, lo, hi, epsabs=1e-15, epsrel=1e-12, limit=200)[0]
    return min(1.0, total / norm)


def exact_delta(
    epsilon: Any,
    *,
    kernel: Kernel,
    scale: float,
    theta: float,
    q: float,
    sensitivity: float,
    shifts: int = 200,
    method: Literal["closed_form", "quadrature"] = "closed_form",
) -> np.ndarray | float:
    """Exact BR-DP privacy profile: sup over d in (0, Delta_f] of H_{e^eps}(f_brdp(.|0) || f_brdp(.|d)).

    Spec §4.8 [REC]: the loss is Z_d + ell with ell = +-L on S(0)\\S(d) / S(d)\\S(0); on each piece cut at
    {+-theta, d +- theta} the integrand is positive on x < t, giving a closed form for both kernels (Laplace
    loss is clipped-linear).  ``method="quadrature"`` integrates each sub-piece with scipy.quad instead.
    The sup uses ``shifts`` equally spaced d (d = Delta_f included; in every test d = Delta_f was worst); when the
    grid maximum is interior, a bounded scalar search between its neighbours refines it, so the sup is not
    under-reported between grid points. Both directions are equal by symmetry.
    """
    kernel = _kernel(kernel)
    s, th, q, dd = _scale(scale), _theta(theta), _q(q), _sens(sensitivity)
    k = _v.integer("shifts", shifts, low=1, high=MAX_SHIFTS)
    method = _v.choice("method", method, ("closed_form", "quadrature"))
    eps = _v.real_array("epsilon", epsilon)
    dgrid = dd * np.arange(1, k + 1) / k
    if method == "closed_form":
        vals = _exact_core(kernel, s, th, eps[..., None], q, dgrid)
        out = np.asarray(vals.max(-1), dtype=float)
        _refine_interior_sup(out, vals.argmax(-1), eps, dgrid, lambda e, x: float(
            np.ravel(_exact_core(kernel, s, th, np.array([e]), q, np.array([x])))[0]))
    else:
        flat = np.array(
            [max(_exact_quad(kernel, s, th, float(e), q, float(x)) for x in dgrid) for e in eps.ravel()]
        )
        out = flat.reshape(eps.shape)
    return float(out) if np.ndim(out) == 0 else out


def _refine_interior_sup(out: np.ndarray, idx: np.ndarray, eps: np.ndarray, dgrid: np.ndarray, h) -> None:
    """Raise ``out`` in place to the bounded-search maximum of h(ε, d) around each interior grid argmax."""
    last = len(dgrid) - 1
    for j in np.flatnonzero(np.ravel(idx) < last):
        i = int(np.ravel(idx)[j])
        e = float(np.ravel(eps)[j])
        lo = dgrid[i - 1] if i > 0 else dgrid[0] * 1e-9
        res = _opt.minimize_scalar(lambda x: -h(e, x), bounds=(lo, dgrid[i + 1]), method="bounded",
                                   options={"xatol": 1e-12 * dgrid[-1]})
        if np.ndim(out) == 0:
            out[()] = max(float(out), -res.fun)
        else:
            out.flat[j] = max(out.flat[j], -res.fun)


def exact_pld(
    *,
    kernel: Kernel,
    scale: float,
    theta: float,
    q: float,
    sensitivity: float,
    value_discretization_interval: float = 1e-4,
    tail_mass_truncation: float = 1e-15,
):
    """Exact BR-DP privacy-loss distribution (pessimistic, shift d = Delta_f) as a dp_accounting PLD.

    The loss Gamma(x) = Z_D(x) + ell(x) is nonincreasing on each piece, so P(Gamma > g) is a sum of kernel
    masses; losses are rounded *up* to the grid (pessimistic), mass beyond the upper truncation and the
    +L region at q = 1 go to the infinity mass.  Symmetric (remove = add).
    """
    from dp_accounting.pld import pld_pmf, privacy_loss_distribution as pld

    kernel = _kernel(kernel)
    s, th, q, d = _scale(scale), _theta(theta), _q(q), _sens(sensitivity)
    h = _v.positive("value_discretization_interval", value_discretization_interval)
    tail = _v.real("tail_mass_truncation", tail_mass_truncation, low=MIN_TAIL_MASS, high=1.0, high_open=True)
    big_l = math.inf if q >= 1 else -math.log1p(-q)
    mu = d / s
    if kernel == "gaussian":
        zq = float(-special.ndtri(tail / 4))
        zlo, zhi = mu * mu / 2 - zq * mu, mu * mu / 2 + zq * mu
    else:
        zlo, zhi = -mu, mu
    lf = big_l if math.isfinite(big_l) else 0.0
    points = (zhi - zlo + 2 * lf) / h  # nan or inf when mu^2 overflows
    if not points <= MAX_PLD_POINTS:
        raise ValueError(
            f"sensitivity/scale = {mu:g} with value_discretization_interval = {h:g} needs {points:.3g} "
            f"loss-grid points, more than {MAX_PLD_POINTS:g}: use a smaller sensitivity/scale or a larger "
            f"value_discretization_interval")
    kmin = math.floor((zlo - lf) / h) - 1
    kmax = math.ceil((zhi + lf) / h) + 1
    grid = np.arange(kmin, kmax + 1) * h
    surv = _loss_survival(kernel, s, th, q, d, grid)  # P(Gamma > g) incl. infinite mass
    p_inf = _loss_survival(kernel, s, th, q, d, np.array([np.inf]))[0]
    # pessimistic: mass in (g_{k-1}, g_k] -> g_k ; below g_kmin -> g_kmin ; above g_kmax -> infinity
    probs = np.empty(len(grid))
    probs[0] = 1.0 - surv[0]
    probs[1:] = surv[:-1] - surv[1:]
    probs = np.maximum(probs, 0.0)
    inf_mass = float(min(max(surv[-1], p_inf), 1.0 - 1e-15))  # dp_accounting needs infinity_mass < 1
    pmf = pld_pmf.DensePLDPmf(
        discretization=h, lower_loss=int(kmin), probs=probs, infinity_mass=inf_mass, pessimistic_estimate=True
    )
    return pld.PrivacyLossDistribution(pmf)


def _loss_survival(kernel: str, s: float, theta: float, q: float, d: float, g: np.ndarray) -> np.ndarray:
    """P_{x ~ f_brdp(.|0)}(Gamma(x) > g), Gamma = ln f_brdp(x|0)/f_brdp(x|d).

    g may be +inf: then the result is the mass of the infinite loss.
    """
    g = np.asarray(g, dtype=float)
    # the pieces depend on (d, q) only: computed once (shape (5,)) and broadcast against the loss grid
    lo, hi, a, b, c = _pieces(theta, np.float64(d), np.float64(q))
    with np.errstate(all="ignore"):
        t = _threshold(kernel, s, np.float64(d), g[..., None] - c)
        t = np.where(b == 0, np.inf, t)  # Q = 0 there: infinite loss, counted for every g incl. +inf
        t = np.where((b > 0) & np.isposinf(g[..., None]), -np.inf, t)
    u = np.clip(t, lo, hi)
    # _mass(kernel, lo, u, s), evaluating only the accurate tail of each piece (lo is one row of 5 here)
    pos = lo >= 0
    mass = np.empty(u.shape)
    mass[..., pos] = _cdf(kernel, -lo[pos], s) - _cdf(kernel, -u[..., pos], s)
    mass[..., ~pos] = _cdf(kernel, u[..., ~pos], s) - _cdf(kernel, lo[~pos], s)
    m = np.where((u > lo) & (a > 0), a * np.maximum(mass, 0.0), 0.0)
    p = _p_theta(kernel, s, theta)
    return np.clip(m.sum(-1) / _den(p, q), 0.0, 1.0)


# ---------------------------------------------------------------------------------------------------
# budget split (Alg. 2) and the exact optimiser
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BRDPPlan:
    """A BR-DP configuration for one release and what each accountant says about it.

    ``acceptance`` is always the true acceptance p_theta/(1 - pbar q) of eq. (9); ``objective_value`` is the
    objective Alg. 2 minimised (1/acceptance for the corrected objective; the printed eq. (10) otherwise).
    ``paper_delta`` is Prop. 2 at ``epsilon``, ``exact_delta`` the exact hockey-stick (spec §4.8).
    """

    epsilon: float
    delta: float
    sensitivity: float
    theta: float
    kernel: str
    accountant: str
    objective: str
    calibration: str
    epsilon_y: float
    q: float
    scale: float
    p_theta: float
    w: float
    loss: float
    acceptance: float
    expected_draws: float
    baseline_q: float
    objective_value: float
    dp_scale: float
    dp_acceptance: float
    paper_delta: float
    exact_delta: float

    @property
    def sound(self) -> bool:
        """True when the exact delta at epsilon is within the target delta (relative tolerance 1e-6)."""
        return self.exact_delta <= self.delta * (1 + 1e-6)

    @property
    def gain(self) -> float:
        """Acceptance of BR-DP minus acceptance of the plain kernel at the full budget (Prop. 4)."""
        return self.acceptance - self.dp_acceptance


def _alg2(
    kernel: str,
    eps: float,
    delta: float,
    d: float,
    theta: float,
    calibration: str,
    variant: str,
    p_fn=None,
    n_grid: int = 40,
) -> tuple[float, float, float, float]:
    """Alg. 2 (coarse grid + bounded Brent refine of the ternary search): returns (eps_y, scale, q, O)."""
    cache: dict[float, tuple[float, float, float]] = {}

    def ev(ey: float) -> float:
        if ey not in cache:
            s = _calibrate(kernel, ey, delta, d, calibration)
            dz = _profile_s(kernel, eps, s, d)
            q = _alg1(kernel, eps, delta, s, d, theta, 1e-12, dz)
            p = _p_theta(kernel, s, theta) if p_fn is None else p_fn(s)
            # infeasible even at q = 0 (classic Gaussian calibration is not (eps_y, delta)-DP for eps_y >~ 1)
            infeasible = dz > delta * (1 + 1e-6)
            if p <= 0 or infeasible:
                o = math.inf
            else:
                o = q + (1 - q) / p if variant == "corrected" else 1 - q + q / p
            cache[ey] = (s, q, o)
        return cache[ey][2]

    lo_eps = 1e-6 * eps
    grid = eps * np.arange(1, n_grid + 1) / n_grid
    vals = np.array([ev(float(g)) for g in grid])
    i = int(np.argmin(vals))
    a = float(grid[i - 1]) if i > 0 else lo_eps
    b = float(grid[min(i + 1, len(grid) - 1)])
    if b > a:
        res = _opt.minimize_scalar(ev, bounds=(a, b), method="bounded", options={"xatol": 1e-9 * eps})
        ev(float(res.x))
    best = min(cache, key=lambda k: (cache[k][2], -k))
    s, q, o = cache[best]
    return best, s, q, o


def _acc_arr(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Vectorised :func:`_acc` (-1 where q < 0, i.e. no feasible q)."""
    with np.errstate(all="ignore"):
        den = 1.0 - (1.0 - p) * q
        acc = np.where(den <= 0, 1.0, np.minimum(1.0, p / den))
    return np.where(q < 0, -1.0, acc)


_QGRID = np.unique(np.concatenate((np.linspace(0.0, 1.0, 121), 1.0 - np.logspace(-3, -12, 10))))
_QGRID.setflags(write=False)
# the q grid searched top down (q = 1 and 1 - 1e-k first) in these index ranges
_QGRID_CHUNKS = ((len(_QGRID) - 16, len(_QGRID)), (len(_QGRID) - 46, len(_QGRID) - 16),
                 (len(_QGRID) - 86, len(_QGRID) - 46), (0, len(_QGRID) - 86))


def _largest_exact_q(
    kernel: str, s: Any, theta: float, eps: float, delta: float, dgrid: np.ndarray, prune_p: Any = None
) -> Any:
    """Largest q with max_d exact delta(eps) <= delta (-1 if none), for one scale s or an array of scales.

    delta is not monotone in q: a 131-point q grid, then a vectorised 32-way bisection of the last feasible
    cell (about 6 calls instead of about 27 halvings), all scales in lockstep.

    ``prune_p`` (p_theta of each scale): branch and bound for the exact optimiser, which only needs the
    scale of largest acceptance p/(1 - (1-p) q) (nondecreasing in q): the q grid is searched from the top in
    chunks, and a scale whose acceptance at the upper end of what is left of its range is below the best
    lower end found so far is no longer searched or bisected. Returns (q, exact) then: ``exact`` marks the
    scales searched to the end (the others' q is a feasible lower bound, or -1, and their true acceptance is
    below the best).
    """
    ss = np.atleast_1d(np.asarray(s, dtype=float))
    budget = delta * (1 + _BUDGET_RTOL)
    qgrid = _QGRID
    nq = len(qgrid)
    fn = _exact_q_fn(kernel, ss, theta, eps, dgrid)
    pp = None if prune_p is None else np.atleast_1d(np.asarray(prune_p, dtype=float))
    pruned = np.zeros(ss.shape, dtype=bool)
    if fn is None:
        ok = _exact_core(kernel, ss[:, None, None], theta, eps, qgrid[None, :, None], dgrid[None, None, :])
        ok = ok.max(-1) <= budget
        any_ok = ok.any(-1)
        k = np.where(any_ok, nq - 1 - np.argmax(ok[:, ::-1], -1), 0)
    elif pp is None:  # same values as _exact_core, with the q-free work done once
        ok = fn(qgrid[None, :]) <= budget
        any_ok = ok.any(-1)
        k = np.where(any_ok, nq - 1 - np.argmax(ok[:, ::-1], -1), 0)
    else:  # the last feasible grid point, searched from the top in chunks; branch and bound between chunks
        any_ok = np.zeros(ss.shape, dtype=bool)
        k = np.zeros(ss.shape, dtype=int)
        searching = np.ones(ss.shape, dtype=bool)
        for i0, i1 in _QGRID_CHUNKS:
            rows = np.flatnonzero(searching)
            ok = fn(qgrid[None, i0:i1], None if rows.size == ss.size else rows) <= budget
            hit = ok.any(-1)
            k[rows[hit]] = i0 + (i1 - i0) - 1 - np.argmax(ok[hit, ::-1], -1)
            any_ok[rows[hit]] = True
            searching[rows[hit]] = False
            if not searching.any() or i0 == 0:
                break
            if any_ok.any():  # a scale still searching has q < qgrid[i0]: drop it if even that cannot win
                best = _acc_arr(pp[any_ok], qgrid[k[any_ok]]).max()
                drop = searching & (_acc_arr(pp, np.full(ss.shape, qgrid[i0])) < best * (1 - 1e-12))
                pruned |= drop
                searching &= ~drop
                if not searching.any():
                    break
    top = k == nq - 1
    lo = np.where(any_ok, qgrid[k], -1.0)
    hi = np.where(any_ok & ~top, qgrid[np.minimum(k + 1, nq - 1)], lo)
    frac = np.linspace(0.0, 1.0, 34)[1:-1]
    active = any_ok & ~top & (hi - lo > 1e-10) & ~pruned
    while True:
        if pp is not None and active.any():
            best = _acc_arr(pp, lo).max()
            drop = active & (_acc_arr(pp, hi) < best * (1 - 1e-12))
            pruned |= drop
            active &= ~drop
        if not active.any():
            break
        a_lo, a_hi = lo[active], hi[active]
        qs = a_lo[:, None] + (a_hi - a_lo)[:, None] * frac[None, :]
        if fn is not None:  # same values as _exact_core, with the q-free work done once
            ok = fn(qs, None if active.all() else np.flatnonzero(active)) <= budget
        else:
            ok = _exact_core(kernel, ss[active][:, None, None], theta, eps, qs[..., None],
                             dgrid[None, None, :]).max(-1) <= budget
        j = np.where(ok.any(-1), len(frac) - 1 - np.argmax(ok[:, ::-1], -1), -1)
        rows = np.arange(len(j))
        new_lo = np.where(j >= 0, qs[rows, np.maximum(j, 0)], a_lo)
        new_hi = np.where(j + 1 < len(frac), qs[rows, np.minimum(j + 1, len(frac) - 1)], a_hi)
        lo[active], hi[active] = new_lo, new_hi
        active = any_ok & ~top & (hi - lo > 1e-10) & ~pruned
    if pp is not None:
        return lo, ~pruned
    return float(lo[0]) if np.ndim(s) == 0 else lo


def _exact_opt(
    kernel: str, eps: float, delta: float, d: float, theta: float, calibration: str, n_grid: int = 32
) -> tuple[float, float, float]:
    """Largest acceptance with exact delta(eps) <= delta over (eps_y, q): grid over eps_y, zoom twice."""
    coarse_d = d * np.arange(1, 5) / 4  # search on 4 shifts; the chosen plan is verified on 200 below
    full_d = d * np.arange(1, 201) / 200
    cache: dict[float, tuple[float, float, float]] = {}
    inexact: set[float] = set()  # pruned eps_y: q is a feasible lower bound, acceptance below the best (B&B)

    def ev(eys: list[float]) -> np.ndarray:
        new = [ey for ey in dict.fromkeys(eys) if ey not in cache]
        if new:
            ss = np.array([_calibrate(kernel, ey, delta, d, calibration) for ey in new])
            ps = np.array([_p_theta(kernel, float(s), theta) for s in ss])
            qs, exact = _largest_exact_q(kernel, ss, theta, eps, delta, coarse_d, prune_p=ps)
            for ey, s, p, q, ex in zip(new, ss, ps, qs, exact):
                cache[ey] = (float(s), float(q), -1.0 if q < 0 else _acc(float(p), float(q)))
                if not ex:
                    inexact.add(ey)
        return np.array([cache[ey][2] for ey in eys])

    def settle() -> None:  # bisect the pruned eps_y to the end (only if the best plans all fail below)
        for ey in list(inexact):
            s = cache[ey][0]
            q = _largest_exact_q(kernel, s, theta, eps, delta, coarse_d)
            cache[ey] = (s, q, -1.0 if q < 0 else _acc(_p_theta(kernel, s, theta), q))
        inexact.clear()

    grid = eps * np.arange(1, n_grid + 1) / n_grid
    for _ in range(3):
        vals = ev([float(g) for g in grid])
        i = int(np.argmax(vals))
        a = float(grid[max(i - 1, 0)])
        b = float(grid[min(i + 1, len(grid) - 1)])
        grid = np.linspace(a, b, 9)
    order = sorted(cache, key=lambda k: (-cache[k][2], -k))
    tried: set[float] = set()
    while order:
        ey = order.pop(0)
        if ey in inexact:  # every better plan failed: finish the pruned bisections and sort again
            settle()
            order = sorted((k for k in cache if k not in tried), key=lambda k: (-cache[k][2], -k))
            continue
        tried.add(ey)
        s, q, acc = cache[ey]  # verify on the fine shift grid; repair q if a finer shift is worse
        if q < 0:
            continue
        if exact_delta(eps, kernel=kernel, scale=s, theta=theta, q=q, sensitivity=d) <= delta * (1 + _BUDGET_RTOL):
            return ey, s, q
        q2 = _largest_exact_q(kernel, s, theta, eps, delta, full_d)
        if q2 >= 0:
            return ey, s, q2
    s = _calibrate(kernel, eps, delta, d, calibration)
    return eps, s, 0.0


def optimize(
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    kernel: Kernel,
    accountant: Literal["exact", "paper"] = "exact",
    objective: Literal["corrected", "as_printed"] = "corrected",
    calibration: Literal["analytic", "classic"] = "analytic",
) -> BRDPPlan:
    """Budget split (epsilon_y, q) for one (epsilon, delta) BR-DP release.

    ``accountant="paper"``: Alg. 2 (ternary search over eps_y; here a 40-point grid + bounded Brent refine,
    spec §5.2 [REC]) with q from Alg. 1, minimising the corrected objective q + (1-q)/p_theta (spec §5.1);
    the printed eq. (10) only with ``objective="as_printed"``.  Its guarantee is the paper's mixture
    model, which can be unsound (check ``plan.exact_delta`` / ``plan.sound``).
    ``accountant="exact"`` (default): largest acceptance subject to the exact delta(epsilon) <= delta over
    eps_y in (0, eps] and q in [0, 1] (exact delta is not monotone in q: grid + bisection, spec §4.8).
    """
    kernel = _kernel(kernel)
    e = _eps_pos(epsilon)
    dl = _delta(delta)
    d, th = _sens(sensitivity), _theta(theta)
    accountant = _v.choice("accountant", accountant, ("exact", "paper"))
    objective = _v.choice("objective", objective, ("corrected", "as_printed"))
    calibration = _v.choice("calibration", calibration, ("analytic", "classic"))
    if accountant == "exact" and objective != "corrected":
        raise ValueError("objective must be 'corrected' with accountant='exact'; 'as_printed' is paper-only")
    if accountant == "paper":
        ey, s, q, o = _alg2(kernel, e, dl, d, th, calibration, objective)
    else:
        ey, s, q = _exact_opt(kernel, e, dl, d, th, calibration)
        o = math.nan
    return _make_plan(kernel, e, dl, d, th, calibration, accountant, objective, ey, s, q, o)


def _make_plan(kernel, e, dl, d, th, calibration, accountant, objective, ey, s, q, o) -> BRDPPlan:
    p = _p_theta(kernel, s, th)
    acc = _acc(p, q)
    if math.isnan(o):
        o = 1 / acc
    dp_s = _calibrate(kernel, e, dl, d, calibration)
    den = _den(p, q)
    return BRDPPlan(
        epsilon=e,
        delta=dl,
        sensitivity=d,
        theta=th,
        kernel=kernel,
        accountant=accountant,
        objective=objective,
        calibration=calibration,
        epsilon_y=float(ey),
        q=float(q),
        scale=float(s),
        p_theta=p,
        w=_w(kernel, s, th, d),
        loss=math.inf if q >= 1 else -math.log1p(-q),
        acceptance=acc,
        expected_draws=math.inf if den <= 0 else 1 / den,
        baseline_q=float(-math.expm1(-(e - ey))),
        objective_value=o,
        dp_scale=dp_s,
        dp_acceptance=_p_theta(kernel, dp_s, th),
        paper_delta=float(_paper_delta(kernel, np.float64(e), s, th, q, d)),
        exact_delta=float(_exact_core(kernel, s, th, e, q, d * np.arange(1, 201) / 200).max()),
    )


def make_plan(
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    kernel: Kernel,
    epsilon_y: float,
    q: float | None = None,
    calibration: Literal["analytic", "classic"] = "analytic",
) -> BRDPPlan:
    """A plan for a user-chosen eps_y and q (q = None: Alg. 1's q) — the app's "q override"."""
    kernel = _kernel(kernel)
    e = _eps_pos(epsilon)
    dl = _delta(delta)
    d, th = _sens(sensitivity), _theta(theta)
    ey = _eps_y(epsilon_y, e)
    calibration = _v.choice("calibration", calibration, ("analytic", "classic"))
    s = _calibrate(kernel, ey, dl, d, calibration)
    qq = _alg1(kernel, e, dl, s, d, th, 1e-12) if q is None else _q(q)
    acc_name = "paper" if q is None else "manual"
    return _make_plan(kernel, e, dl, d, th, calibration, acc_name, "corrected", ey, s, qq,
                      math.nan)


# ---------------------------------------------------------------------------------------------------
# composition (Thm. 3 / Alg. 3 and exact PLD)
# ---------------------------------------------------------------------------------------------------


def _plan(plan: Any) -> BRDPPlan:
    if not isinstance(plan, BRDPPlan):
        raise ValueError(f"plan must be a BRDPPlan (from optimize or make_plan), got {type(plan).__name__}")
    return plan


def _thm3(prof, eps: np.ndarray, w: float, big_l: float, t: int, drop_k0: bool):
    """Thm. 3 / Alg. 3 with j = T - k: sum_j binom.pmf(j, T, W) delta_Z^T(eps - j L); ``prof`` = delta_Z^T."""
    return _thm3_fn(prof, w, big_l, t, drop_k0)(eps)


def _thm3_fn(prof, w: float, big_l: float, t: int, drop_k0: bool):
    """:func:`_thm3` as a function of eps, with the binomial weights and shifts computed once (root-finds)."""
    j = np.arange(t + 1)
    wts = stats.binom.pmf(j, t, w)
    if drop_k0:
        wts = wts[:-1]
        j = j[:-1]
    keep = wts > 1e-300
    j, wts = j[keep], wts[keep]
    with np.errstate(invalid="ignore"):
        shift = np.where(j == 0, 0.0, j * big_l)

    def fn(eps: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):  # q = 1 makes L infinite: ∞ − ∞ at ε = ∞ is mapped to −∞ below
            args = np.asarray(eps)[..., None] - shift
        args = np.where(np.isnan(args), -np.inf, args)
        return np.clip((np.asarray(prof(args)) * wts).sum(-1), 0.0, 1.0)

    return fn


def composed_delta(
    epsilon: Any,
    *,
    compositions: int,
    plan: BRDPPlan,
    accountant: Literal["exact", "paper"] = "exact",
    variant: Literal["corrected", "as_printed"] = "corrected",
    value_discretization_interval: float = 1e-4,
    kernel_composition: Literal["exact", "rdp", "rdp_improved"] = "exact",
) -> np.ndarray | float:
    """delta after T non-adaptive compositions of the plan's BR-DP mechanism.

    ``accountant="paper"``: Thm. 3 / Alg. 3, sum_{k=0}^T C(T,k)(1-W)^k W^{T-k} delta_Z^T(eps - (T-k)L)
    with the k = 0 term (spec §6.3 erratum; ``variant="as_printed"`` loops k = 1..T).
    delta_Z^T: Gaussian closed form (sensitivity sqrt(T) D), Laplace via ``dpcore.accounting.laplace_delta``
    (PLD) or, as in the paper's Fig. 5(b), RDP (``kernel_composition="rdp"``: Mironov conversion;
    ``"rdp_improved"``; spec §6.4).
    ``accountant="exact"``: the exact BR-DP PLD (shift D, pessimistic grid) composed by dp_accounting.
    """
    pl = _plan(plan)
    t = _v.integer("compositions", compositions, low=1, high=_acct.MAX_PLD_COMPOSITIONS)
    accountant = _v.choice("accountant", accountant, ("exact", "paper"))
    variant = _v.choice("variant", variant, ("corrected", "as_printed"))
    kc = _v.choice("kernel_composition", kernel_composition, ("exact", "rdp", "rdp_improved"))
    eps = _v.real_array("epsilon", epsilon)
    if accountant == "paper":
        prof = _profile_fn(pl.kernel, pl.scale, pl.sensitivity, t, kc)
        out = _thm3(prof, eps, pl.w, pl.loss, t, variant == "as_printed")
    else:
        pld = exact_pld(
            kernel=pl.kernel, scale=pl.scale, theta=pl.theta, q=pl.q, sensitivity=pl.sensitivity,
            value_discretization_interval=value_discretization_interval,
        )
        if t > 1:
            pld = pld.self_compose(t)
        flat = eps.ravel()
        fin = np.isfinite(flat)
        res = np.empty(flat.shape)
        if fin.any():
            res[fin] = _acct.pld_profile(pld)(flat[fin])
        res[flat == -np.inf] = 1.0
        if (flat == np.inf).any():
            res[flat == np.inf] = pld.get_delta_for_epsilon(1e6)
        out = np.clip(res.reshape(eps.shape), 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


def composed_epsilon(
    delta: float,
    *,
    compositions: int,
    plan: BRDPPlan,
    accountant: Literal["exact", "paper", "dp"] = "exact",
    value_discretization_interval: float = 1e-4,
    kernel_composition: Literal["exact", "rdp", "rdp_improved"] = "exact",
) -> float:
    """Leakage after T compositions: eps_T = min{eps : delta^T(eps) <= delta} (spec §6.3).

    ``accountant="dp"`` gives the plain kernel at the full budget (the plan's dp_scale, q = 0) for comparison.
    ``kernel_composition`` (Laplace, T > 1, paper/dp accountants): "exact" PLD or the paper's RDP bounds.
    """
    pl = _plan(plan)
    dl = _delta(delta)
    t = _v.integer("compositions", compositions, low=1, high=_acct.MAX_PLD_COMPOSITIONS)
    accountant = _v.choice("accountant", accountant, ("exact", "paper", "dp"))
    kc = _v.choice("kernel_composition", kernel_composition, ("exact", "rdp", "rdp_improved"))
    if accountant == "exact":
        pld = exact_pld(
            kernel=pl.kernel, scale=pl.scale, theta=pl.theta, q=pl.q, sensitivity=pl.sensitivity,
            value_discretization_interval=value_discretization_interval,
        )
        if t > 1:
            pld = pld.self_compose(t)
        return float(pld.get_epsilon_for_delta(dl))
    return _composed_epsilon_analytic(pl, dl, t, accountant, kc)


def _composed_epsilon_analytic(pl: BRDPPlan, dl: float, t: int, accountant: str, kc: str) -> float:
    """:func:`composed_epsilon` for the "dp" and "paper" accountants (validated arguments)."""
    if accountant == "dp":
        prof = _profile_fn(pl.kernel, pl.dp_scale, pl.sensitivity, t, kc)

        def f(x: float) -> float:
            return float(prof(np.float64(x)))
    else:
        thm3 = _thm3_fn(_profile_fn(pl.kernel, pl.scale, pl.sensitivity, t, kc), pl.w, pl.loss, t, False)

        def f(x: float) -> float:
            return float(thm3(np.float64(x)))

    return _acct.epsilon_for_delta(f, dl)


def _pld_epsilon(pld, delta: float) -> float:
    """``pld.get_epsilon_for_delta(delta)`` of a dense symmetric PLD read off its profile in closed form
    (:func:`dpcore.accounting.pld_profile` suffix sums, inverted by ``accounting._invert_profile``: one
    vectorised pass instead of dp_accounting's Python loop over the pmf); dp_accounting's method when that
    does not apply. Like dp_accounting: +inf when the infinite-loss mass exceeds delta, never below 0."""
    pmf = getattr(pld, "_pmf_remove", None)
    m_inf = getattr(pmf, "_infinity_mass", None)
    if m_inf is not None and m_inf > delta:
        return math.inf
    try:
        e = _acct._invert_profile(_acct.pld_profile(pld), delta, -math.inf, math.inf)
    except Exception:  # noqa: BLE001  (dp_accounting internals changed: use the public method)
        e = None
    if e is None:
        return float(pld.get_epsilon_for_delta(delta))
    return max(0.0, float(e))


# ---------------------------------------------------------------------------------------------------
# subsampling (Sec. 7, Thm. 4, Prop. 6, eq. 13, Alg. 4)
# ---------------------------------------------------------------------------------------------------


def amplify(epsilon: float, delta: float, *, rate: float) -> tuple[float, float]:
    """Thm. 4: an (eps, delta)-DP mechanism on a rate-p subsample is (ln(1 + p(e^eps - 1)), p delta)-DP."""
    e = _v.nonnegative("epsilon", epsilon)
    dl = _v.probability("delta", delta)
    p = _v.probability("rate", rate, low_open=True)
    if e > 30:  # log space: ln(1 + p(e^eps - 1)) = eps + ln(p + (1 - p) e^-eps)
        return e + math.log(p + (1 - p) * math.exp(-e)), p * dl
    return float(math.log1p(p * math.expm1(e))), p * dl


def deamplify(epsilon: float, delta: float, *, rate: float) -> tuple[float, float]:
    """Inverse of Thm. 4 (spec §7.1 [AMBIG]): the inner budget (ln(1 + (e^eps - 1)/p), delta/p)."""
    e = _v.nonnegative("epsilon", epsilon)
    dl = _v.probability("delta", delta)
    p = _v.probability("rate", rate, low_open=True)
    if dl / p >= 1:
        raise ValueError(f"rate must exceed delta = {dl:g} so that the inner delta/p < 1, got {rate!r}")
    if e > 30:  # log space: ln(1 + (e^eps - 1)/p) = eps + ln((1 - e^-eps)/p + e^-eps)
        return e + math.log(-math.expm1(-e) / p + math.exp(-e)), dl / p
    return float(math.log1p(math.expm1(e) / p)), dl / p


def sampling_error_std(
    query: Literal["sum", "average", "count"],
    *,
    rate: float,
    n_records: int,
    sigma_x: float = 1.0,
    p_c: float = 0.5,
) -> float:
    """Prop. 6: std of the sampling error E (fixed-size sampling without replacement, x_i ~ N(mu, sigma_x^2)).

    sum: sigma_x sqrt(|X|(1-p)/p); average: sigma_x sqrt((1-p)/(p|X|)); count: sqrt(|X|(1-p)p_c(1-p_c)/p).
    (App. G erratum: two intermediate lines are wrong, the final formulas are right.)
    """
    query = _v.choice("query", query, ("sum", "average", "count"))
    p = _v.probability("rate", rate, low_open=True)
    n = _v.integer("n_records", n_records, low=1)
    sx = _v.nonnegative("sigma_x", sigma_x)
    pc = _v.probability("p_c", p_c)
    f = (1 - p) / p
    if query == "sum":
        return sx * math.sqrt(n * f)
    if query == "average":
        return sx * math.sqrt(f / n)
    return math.sqrt(n * f * pc * (1 - pc))


def subsampled_acceptance(
    *,
    scale: float,
    theta: float,
    q: float,
    sigma_e: float,
    kernel: Kernel = "gaussian",
    variant: Literal["true", "corrected", "as_printed"] = "true",
) -> float:
    """Acceptance Pr(|E + N_brdp| <= theta) of the subsampled estimator (spec §7.3).

    ``"true"``: int f_brdp(n)[Phi((theta-n)/sigma_E) - Phi((-theta-n)/sigma_E)] dn: Gaussian kernel in closed
    form (bivariate-normal rectangle by Owen's T function, Owen 1956), Laplace by quadrature over the pieces.
    ``"corrected"``: eq. (13) with the §5.1 fix, 1/(q + (1-q)/P_tot), P_tot the N(0, sigma_y^2 +
    sigma_E^2) mass of [-theta, theta] (Gaussian kernel; it wrongly assumes the recycler bounds E + N).
    ``"as_printed"``: 1/(1 - q + q/P_tot).
    """
    kernel = _kernel(kernel)
    s, th, q = _scale(scale), _theta(theta), _q(q)
    se = _v.nonnegative("sigma_e", sigma_e)
    variant = _v.choice("variant", variant, ("true", "corrected", "as_printed"))
    if variant != "true":
        if kernel != "gaussian":
            raise ValueError("kernel must be 'gaussian' for eq. (13) (variant 'corrected'/'as_printed')")
        ptot = math.erf(th / (math.hypot(s, se) * _SQRT2))
        return 1 / (q + (1 - q) / ptot) if variant == "corrected" else 1 / (1 - q + q / ptot)
    p = _p_theta(kernel, s, th)
    if se == 0:
        return _acc(p, q)
    den = _den(p, q)
    if kernel == "gaussian":
        # closed form: with X = N/s, Y = (N + E)/tau (tau^2 = s^2 + sigma_E^2, corr rho = s/tau), the in-bound
        # part J = P(|N| <= theta, |N + E| <= theta) is a bivariate-normal rectangle; Owen's (1956) T-function
        # formula at its four corners (the Phi terms cancel) gives, with h = theta/s, k = theta/tau,
        # J = 1 - 2[T(k, sigma_E/s) + T(h, 2s/sigma_E) + T(k, (2s^2 + sigma_E^2)/(s sigma_E))]; the whole line
        # gives P(|N + E| <= theta) = erf(k/sqrt 2), the out-of-bound pieces the rest.
        tau = math.hypot(s, se)
        h, k = th / s, th / tau
        t_sum = float(special.owens_t(k, se / s) + special.owens_t(h, 2 * s / se)
                      + special.owens_t(k, (2 * s * s + se * se) / (s * se)))
        j_in = min(max(1.0 - 2.0 * t_sum, 0.0), 1.0)
        ptot = math.erf(k / _SQRT2)
        return min(1.0, max(0.0, ((1 - q) * ptot + q * j_in) / den))

    def f(n: float) -> float:
        w = 1.0 if abs(n) <= th else 1 - q
        g = float(special.ndtr((th - n) / se) - special.ndtr((-th - n) / se))
        return float(_pdf(kernel, n, s)) * w * g

    # beyond theta + 40 s the kernel's mass is below e^-40 / 2; beyond theta + 13 sigma_E the Gaussian factor
    # is below Phi(-13) ~ 6e-39: integrating over the shorter span keeps quad's absolute tolerance reachable
    # (split where the integrand has a kink (0, +-theta) or changes on the scales s, sigma_E, so quad does not
    # step over a narrow peak)
    span = th + min(40 * s, 13 * se)
    cuts = {0.0, th, span}
    for c in (th - 10 * se, th - se, th + se, th + 10 * se, 10 * s, s, th + s, th + 10 * s):
        cuts.add(c)
    pos = sorted(c for c in cuts if 0 <= c <= span)
    edges = sorted({-c for c in pos} | set(pos))
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        total += integrate.quad(f, lo, hi, epsabs=1e-14, epsrel=1e-10, limit=200)[0]
    return min(1.0, total / den)


@dataclass(frozen=True)
class SubsamplingPlan:
    """Result of Alg. 4: sampling rate and the inner BR-DP parameters.

    ``acceptance`` is what the mode optimised (paper: eq. 13 corrected; corrected mode: the true acceptance);
    ``true_acceptance`` is always Pr(|E + N_brdp| <= theta) of the mechanism Thm. 4 covers.
    """

    mode: str
    query: str
    rate: float
    epsilon_in: float
    delta_in: float
    kernel_sensitivity: float
    epsilon_y: float
    q: float
    sigma_y: float
    sigma_e: float
    acceptance: float
    eq13_acceptance: float
    true_acceptance: float


def optimal_sampling_rate(
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    n_records: int,
    query: Literal["sum", "average", "count"],
    sigma_x: float = 10.0,
    p_c: float = 0.1,
    mode: Literal["paper", "corrected"] = "paper",
    tol: float = 1e-3,
) -> SubsamplingPlan:
    """Alg. 4 (Gaussian kernel): sampling rate p maximising the acceptance of subsampled BR-DP.

    For each p: inner budget from Thm. 4 inverted, sigma_E from Prop. 6 (paper: "prop. 7", erratum),
    eps_y and q from Alg. 2/1 at the inner budget.
    ``mode="paper"``: kernel sensitivity Delta_f and objective eq. (13) corrected (reproduces Fig. 6).
    ``mode="corrected"`` (spec §7.3): sensitivity Delta_f/p of the rescaled estimator and the true
    acceptance.  Ternary search on [p_min, 1] as printed (a *local* search: with
    eq. (13) the degenerate corner q = 1 at tiny p reports acceptance 1, spec §7.3), then the better of its
    result and p = 1; p_min = max(1/|X|, 2 delta, 1e-4).
    """
    e = _eps_pos(epsilon)
    dl = _delta(delta)
    d, th = _sens(sensitivity), _theta(theta)
    n = _v.integer("n_records", n_records, low=1)
    query = _v.choice("query", query, ("sum", "average", "count"))
    sx = _v.nonnegative("sigma_x", sigma_x)
    pc = _v.probability("p_c", p_c)
    mode = _v.choice("mode", mode, ("paper", "corrected"))
    tol = _v.positive("tol", tol)
    cache: dict[float, SubsamplingPlan] = {}

    def ev(p: float) -> SubsamplingPlan:
        p = float(min(1.0, p))
        if p not in cache:
            ei, di = (e, dl) if p >= 1 else deamplify(e, dl, rate=p)
            se = sampling_error_std(query, rate=p, n_records=n, sigma_x=sx, p_c=pc) if p < 1 else 0.0
            dk = d if mode == "paper" else d / p
            if mode == "paper":
                p_fn = lambda s: math.erf(th / (math.hypot(s, se) * _SQRT2))  # noqa: E731
                ey, s, q, _ = _alg2("gaussian", ei, di, dk, th, "analytic", "corrected", p_fn=p_fn, n_grid=24)
            else:
                ey, s, q, _ = _alg2("gaussian", ei, di, dk, th, "analytic", "corrected", n_grid=24)
            eq13 = subsampled_acceptance(scale=s, theta=th, q=q, sigma_e=se, variant="corrected")
            # the true acceptance is what corrected mode optimises; paper mode needs it only for the
            # returned plan, so it is filled in after the search (NaN placeholder)
            true = subsampled_acceptance(scale=s, theta=th, q=q, sigma_e=se, variant="true") \
                if mode == "corrected" else math.nan
            cache[p] = SubsamplingPlan(
                mode=mode, query=query, rate=p, epsilon_in=ei, delta_in=di, kernel_sensitivity=dk,
                epsilon_y=float(ey), q=q, sigma_y=s, sigma_e=se, acceptance=eq13 if mode == "paper" else true,
                eq13_acceptance=eq13, true_acceptance=true,
            )
        return cache[p]

    def done(sp: SubsamplingPlan) -> SubsamplingPlan:
        if not math.isnan(sp.true_acceptance):
            return sp
        true = subsampled_acceptance(scale=sp.sigma_y, theta=th, q=sp.q, sigma_e=sp.sigma_e, variant="true")
        return dataclasses.replace(sp, true_acceptance=true)

    p_min = max(1.0 / n, 2 * dl, 1e-4)
    if p_min >= 1:
        return done(ev(1.0))
    lo, hi = p_min, 1.0
    while hi - lo > tol:  # Alg. 4 lines 2-8: ternary search (local, as printed)
        p1, p2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if ev(p1).acceptance < ev(p2).acceptance:
            lo = p1
        else:
            hi = p2
    ev(0.5 * (lo + hi))
    ev(1.0)
    best = max(cache, key=lambda k: (cache[k].acceptance, k))
    return done(cache[best])


# ---------------------------------------------------------------------------------------------------
# data for the §14 visualisations (pure functions returning DataFrames)
# ---------------------------------------------------------------------------------------------------


def budget_split_landscape(
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    kernel: Kernel,
    calibration: Literal["analytic", "classic"] = "analytic",
    n: int = 100,
    exact: bool = True,
) -> pd.DataFrame:
    """Alg. 2 landscape over eps_y in (0, eps] (spec §14 panels 3-4, Fig. 3).

    Columns: epsilon_y, scale, p_theta, w, q (Alg. 1), q_base (Remark 1), acceptance (= 1/O corrected),
    objective_corrected, objective_as_printed, paper_delta (at eps), exact_delta (at eps, if ``exact``).
    """
    kernel = _kernel(kernel)
    e = _eps_pos(epsilon)
    dl = _delta(delta)
    d, th = _sens(sensitivity), _theta(theta)
    calibration = _v.choice("calibration", calibration, ("analytic", "classic"))
    k = _v.integer("n", n, low=2, high=MAX_GRID)
    rows = []
    dgrid = d * np.arange(1, 41) / 40
    for ey in e * np.arange(1, k + 1) / k:
        s = _calibrate(kernel, float(ey), dl, d, calibration)
        q = _alg1(kernel, e, dl, s, d, th, 1e-12)
        p = _p_theta(kernel, s, th)
        rows.append(
            {
                "epsilon_y": float(ey),
                "scale": s,
                "p_theta": p,
                "w": _w(kernel, s, th, d),
                "q": q,
                "q_base": float(-math.expm1(-(e - ey))),
                "acceptance": _acc(p, q),
                "objective_corrected": q + (1 - q) / p,
                "objective_as_printed": 1 - q + q / p,
                "paper_delta": float(_paper_delta(kernel, np.float64(e), s, th, q, d)),
                "exact_delta": float(_exact_core(kernel, s, th, e, q, dgrid).max()) if exact else math.nan,
            }
        )
    return pd.DataFrame(rows)


def acceptance_curve(
    epsilons: Any,
    *,
    delta: float,
    sensitivity: float,
    theta: float,
    kernel: Kernel,
    calibration: Literal["analytic", "classic"] = "analytic",
    exact: bool = False,
) -> pd.DataFrame:
    """Acceptance against total eps (Fig. 4, spec §14 panel 5): DP, BR-DP (paper Alg. 2) and optionally
    BR-DP with the exact optimiser.  Columns: epsilon, dp, brdp_paper, brdp_exact, epsilon_y, q."""
    kernel = _kernel(kernel)
    eps = _v.real_array("epsilons", epsilons, low=0.0, allow_inf=False).ravel()
    if (eps <= 0).any():
        raise ValueError("epsilons must all be > 0")
    dl = _delta(delta)
    d, th = _sens(sensitivity), _theta(theta)
    calibration = _v.choice("calibration", calibration, ("analytic", "classic"))
    rows = []
    for e in eps:
        e = float(e)
        ey, s, q, _ = _alg2(kernel, e, dl, d, th, calibration, "corrected")
        row = {
            "epsilon": e,
            "dp": _p_theta(kernel, _calibrate(kernel, e, dl, d, calibration), th),
            "brdp_paper": _acc(_p_theta(kernel, s, th), q),
            "epsilon_y": ey,
            "q": q,
            "brdp_exact": math.nan,
        }
        if exact:
            _, s2, q2 = _exact_opt(kernel, e, dl, d, th, calibration)
            row["brdp_exact"] = _acc(_p_theta(kernel, s2, th), q2)
        rows.append(row)
    return pd.DataFrame(rows)


def privacy_profile(epsilons: Any, *, plan: BRDPPlan) -> pd.DataFrame:
    """Privacy profiles of a plan (spec §14 panel 7).

    Columns: kernel delta_Z, paper delta_Gamma (Prop. 2), exact BR-DP delta, plain DP (kernel at the full
    budget) and ``under_reported`` (exact > paper).
    """
    pl = _plan(plan)
    eps = _v.real_array("epsilons", epsilons).ravel()
    paper = _paper_delta(pl.kernel, eps, pl.scale, pl.theta, pl.q, pl.sensitivity)
    dgrid = pl.sensitivity * np.arange(1, 201) / 200
    exact = _exact_core(pl.kernel, pl.scale, pl.theta, eps[:, None], pl.q, dgrid[None, :]).max(-1)
    return pd.DataFrame(
        {
            "epsilon": eps,
            "kernel": _profile(pl.kernel, eps, pl.scale, pl.sensitivity),
            "paper": paper,
            "exact": exact,
            "dp": _profile(pl.kernel, eps, pl.dp_scale, pl.sensitivity),
            "under_reported": exact > paper * (1 + 1e-9) + 1e-300,
        }
    )


def _thm3_epsilons_gauss(d: float, s: float, w: float, big_l: float, ts: list[int],
                         delta: float) -> np.ndarray:
    """eps_T = min{eps : Thm. 3 delta^T(eps) <= delta} of a Gaussian kernel for several T at once (w = 0: the
    plain kernel, delta_G at mu = sqrt(T) D/s).  Thm. 3's sum (as :func:`_thm3`, weights padded with zeros) in
    one array per step; the bracket of :func:`dpcore.accounting.epsilon_for_delta`, then alternating log-space
    false-position and bisection steps to a bracket of 1e-12 (1 + |eps|); returns its sound (upper) end.
    """
    rows_w, rows_s = [], []
    for t in ts:
        j = np.arange(t + 1)
        wts = stats.binom.pmf(j, t, w)
        keep = wts > 1e-300
        j, wts = j[keep], wts[keep]
        with np.errstate(invalid="ignore"):
            rows_w.append(wts)
            rows_s.append(np.where(j == 0, 0.0, j * big_l))
    width = max(len(r) for r in rows_w)
    wm = np.zeros((len(ts), width))
    sm = np.zeros((len(ts), width))
    for i, (a, b) in enumerate(zip(rows_w, rows_s)):
        wm[i, : len(a)] = a
        sm[i, : len(b)] = b
    mu = np.array([math.sqrt(t) * d / s for t in ts])[:, None]

    def dlt(e: np.ndarray, idx: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            args = e[:, None] - sm[idx]
        args = np.where(np.isnan(args), -np.inf, args)
        log_d = _acct._gaussian_log_delta(args, np.broadcast_to(mu[idx], args.shape))
        val = (np.exp(log_d) * wm[idx]).sum(-1)
        return np.clip(val, 0.0, 1.0)

    n = len(ts)
    every = np.arange(n)
    out = np.full(n, np.nan)
    at_inf = dlt(np.full(n, np.inf), every) > delta
    out[at_inf] = np.inf
    at_minf = dlt(np.full(n, -np.inf), every) <= delta
    out[at_minf & ~at_inf] = -np.inf
    idx = np.flatnonzero(~at_inf & ~at_minf)
    if idx.size == 0:
        return out
    hi = np.ones(idx.size)
    grow = dlt(hi, idx) > delta
    while grow.any():
        hi[grow] *= 2.0
        grow[grow] = dlt(hi[grow], idx[grow]) > delta
    lo = np.where(dlt(np.zeros(idx.size), idx) > delta, 0.0, -1.0)
    shrink = dlt(lo, idx) <= delta
    while shrink.any():
        lo[shrink] *= 2.0
        shrink[shrink] = dlt(lo[shrink], idx[shrink]) <= delta
    log_t = math.log(delta)
    with np.errstate(divide="ignore"):
        f_lo, f_hi = np.log(dlt(lo, idx)) - log_t, np.log(dlt(hi, idx)) - log_t  # f_lo > 0 >= f_hi
    act = np.arange(idx.size)
    for it in range(200):
        width_ok = hi[act] - lo[act] <= 1e-12 * (1.0 + np.abs(hi[act]))
        act = act[~width_ok]
        if act.size == 0:
            break
        a, b, fa, fb = lo[act], hi[act], f_lo[act], f_hi[act]
        with np.errstate(all="ignore"):
            x = b - fb * (b - a) / (fb - fa) if it % 2 == 0 else 0.5 * (a + b)
        x = np.where(np.isfinite(x) & (x > a) & (x < b), x, 0.5 * (a + b))
        with np.errstate(divide="ignore"):
            fx = np.log(dlt(x, idx[act])) - log_t
        pos = fx > 0
        lo[act[pos]], f_lo[act[pos]] = x[pos], fx[pos]
        hi[act[~pos]], f_hi[act[~pos]] = x[~pos], fx[~pos]
    out[idx] = hi
    return out


def composition_curve(
    compositions: Any,
    *,
    plan: BRDPPlan,
    delta: float | None = None,
    exact: bool = True,
    value_discretization_interval: float = 1e-4,
) -> pd.DataFrame:
    """eps_T against T (Fig. 5, spec §14 panel 8): BR-DP via Thm. 3 (paper), BR-DP exact PLD, plain DP.

    delta defaults to the plan's delta.  The exact curve composes the BR-DP PLD once per T with dp_accounting.
    """
    pl = _plan(plan)
    ts = np.atleast_1d(np.asarray(compositions))
    tt = [_v.integer("compositions", t, low=1, high=_acct.MAX_PLD_COMPOSITIONS) for t in ts]
    dl = pl.delta if delta is None else _delta(delta)
    rows = []
    base = None
    if exact:
        base = exact_pld(
            kernel=pl.kernel, scale=pl.scale, theta=pl.theta, q=pl.q, sensitivity=pl.sensitivity,
            value_discretization_interval=value_discretization_interval,
        )
    if pl.kernel == "gaussian" and tt:  # all T at once (same quantities as composed_epsilon, to ~1e-12)
        paper = _thm3_epsilons_gauss(pl.sensitivity, pl.scale, pl.w, pl.loss, tt, dl)
        dp = _thm3_epsilons_gauss(pl.sensitivity, pl.dp_scale, 0.0, 0.0, tt, dl)
    else:
        paper = [_composed_epsilon_analytic(pl, dl, t, "paper", "exact") for t in tt]
        dp = [_composed_epsilon_analytic(pl, dl, t, "dp", "exact") for t in tt]
    for t, e_paper, e_dp in zip(tt, paper, dp):
        row = {"compositions": t, "paper": float(e_paper), "dp": float(e_dp), "exact": math.nan}
        if base is not None:  # accounting's faster self-composition (same pmf) and closed-form inversion
            row["exact"] = _pld_epsilon(_acct._self_compose(base, t) if t > 1 else base, dl)
        rows.append(row)
    return pd.DataFrame(rows)


def loss_distribution(plan: BRDPPlan, *, n: int = 400) -> pd.DataFrame:
    """Privacy-loss picture (Thm. 1, spec §14 panel 6) on a loss grid: CDFs P(loss <= g) of the kernel Z,
    the paper's mixture (1-W) Z + W (Z + L), and the exact BR-DP loss Gamma (shift D); plus the mass at +inf
    of the exact loss in ``exact_inf``.  Densities follow by differencing (Gamma has atoms for Laplace)."""
    pl = _plan(plan)
    k = _v.integer("n", n, low=2, high=MAX_GRID)
    s, d, th, q = pl.scale, pl.sensitivity, pl.theta, pl.q
    mu = d / s
    big_l = pl.loss if math.isfinite(pl.loss) else 0.0
    if pl.kernel == "gaussian":
        lo, hi = mu * mu / 2 - 5 * mu - big_l, mu * mu / 2 + 5 * mu + big_l
    else:
        lo, hi = -mu - big_l - 0.1 * mu, mu + big_l + 0.1 * mu
    g = np.linspace(lo, hi, k)
    zero_q = _loss_survival(pl.kernel, s, th, 0.0, d, g)  # kernel loss survival (q = 0)
    shifted = _loss_survival(pl.kernel, s, th, 0.0, d, g - pl.loss) if math.isfinite(pl.loss) else np.ones(k)
    exact = _loss_survival(pl.kernel, s, th, q, d, g)
    return pd.DataFrame(
        {
            "loss": g,
            "kernel_cdf": 1 - zero_q,
            "paper_cdf": 1 - ((1 - pl.w) * zero_q + pl.w * shifted),
            "exact_cdf": 1 - exact,
            "exact_inf": float(_loss_survival(pl.kernel, s, th, q, d, np.array([np.inf]))[0]),
        }
    )


_MECHANISMS = ("Lap-DP", "Gau-DP", "Lap-BRDP", "Gau-BRDP", "SMP-Lap-BRDP", "SMP-Gau-BRDP")


def experiment_releases(
    values: Any,
    *,
    query: Literal["sum", "average", "count"],
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    n_releases: int = 1000,
    accountant: Literal["exact", "paper"] = "exact",
    subsampling_mode: Literal["paper", "corrected"] = "paper",
    mechanisms: tuple[str, ...] = _MECHANISMS,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Experiment sandbox (Sec. 8, Figs. 7/8; spec §14 panel 10): repeated releases of one query.

    ``values``: one number per record (for ``query="count"`` pass 0/1 indicators of the predicate C).
    Mechanisms: Lap-DP, Gau-DP, Lap-BRDP, Gau-BRDP (plans from :func:`optimize` with ``accountant``) and the
    subsampled SMP-*-BRDP (rate from Alg. 4 with sigma_x / p_c estimated from ``values``; a fresh fixed-size
    subsample per release; Laplace reuses the Gaussian rate, spec §7.4; the SMP rate and the SMP-Gau kernel
    always come from Alg. 4, i.e. the paper's accountant).  Returns a long DataFrame with
    columns mechanism, release, output, error (output - true answer, the paper's "centred" output), in_bound.
    """
    x = _v.real_array("values", values, allow_inf=False).ravel()
    if x.size < 1:
        raise ValueError("values must contain at least one record")
    query = _v.choice("query", query, ("sum", "average", "count"))
    e = _eps_pos(epsilon)
    dl = _delta(delta)
    d, th = _sens(sensitivity), _theta(theta)
    n_rel = _v.integer("n_releases", n_releases, low=1)
    accountant = _v.choice("accountant", accountant, ("exact", "paper"))
    mode = _v.choice("subsampling_mode", subsampling_mode, ("paper", "corrected"))
    mechanisms = _v.sequence("mechanisms", mechanisms)
    for m in mechanisms:
        _v.choice("mechanisms", m, _MECHANISMS)
    gen = _v.rng(rng)
    n = x.size
    if query == "count":
        x = (x != 0).astype(float)

    def answer(v: np.ndarray) -> float:
        return float(v.mean()) if query == "average" else float(v.sum())

    truth = answer(x)
    frames = []
    sp: SubsamplingPlan | None = None
    for mech in mechanisms:
        kernel = "laplace" if "Lap" in mech else "gaussian"
        if mech.endswith("-DP"):
            s = _calibrate(kernel, e, dl, d, "analytic")
            noise = _draw_kernel(kernel, s, n_rel, gen)
            est = np.full(n_rel, truth)
        elif not mech.startswith("SMP"):
            pl = optimize(epsilon=e, delta=dl, sensitivity=d, theta=th, kernel=kernel, accountant=accountant)
            noise = sample_outputs(n_rel, kernel=kernel, scale=pl.scale, theta=th, q=pl.q, rng=gen)
            est = np.full(n_rel, truth)
        else:
            if sp is None:  # the same Alg. 4 plan for both SMP mechanisms: search once
                sp = optimal_sampling_rate(
                    epsilon=e, delta=dl, sensitivity=d, theta=th, n_records=n, query=query,
                    sigma_x=float(np.std(x)), p_c=float(np.mean(x)) if query == "count" else 0.5, mode=mode,
                )
            m_sub = max(1, round(sp.rate * n))
            est = np.empty(n_rel)
            for i in range(n_rel):
                sub = x[gen.choice(n, m_sub, replace=False)] if m_sub < n else x
                est[i] = float(sub.mean()) if query == "average" else float(sub.sum()) * n / m_sub
            if kernel == "gaussian":
                noise = sample_outputs(n_rel, kernel=kernel, scale=sp.sigma_y, theta=th, q=sp.q, rng=gen)
            else:
                pl = optimize(epsilon=sp.epsilon_in, delta=sp.delta_in, sensitivity=sp.kernel_sensitivity,
                              theta=th, kernel="laplace", accountant=accountant)
                noise = sample_outputs(n_rel, kernel=kernel, scale=pl.scale, theta=th, q=pl.q, rng=gen)
        out = est + noise
        frames.append(pd.DataFrame({
            "mechanism": mech,
            "release": np.arange(n_rel),
            "output": out,
            "error": out - truth,
            "in_bound": np.abs(out - truth) <= th,
        }))
    return pd.concat(frames, ignore_index=True)


def compare_accountants(
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    kernel: Kernel,
    calibration: Literal["analytic", "classic"] = "analytic",
) -> pd.DataFrame:
    """"Paper vs exact" audit (spec §14 panel 11): one row per plan (paper Alg. 2, exact optimum, plain DP).

    Columns: plan, epsilon_y, q, acceptance, paper_delta, exact_delta, ratio (exact / target delta) and status
    ("sound" if exact delta <= target, else "anti-conservative").
    """
    kw = dict(epsilon=epsilon, delta=delta, sensitivity=sensitivity, theta=theta, kernel=kernel,
              calibration=calibration)
    paper = optimize(accountant="paper", **kw)
    exact = optimize(accountant="exact", **kw)
    dp = make_plan(epsilon_y=epsilon, q=0.0, **kw)
    rows = []
    for name, pl in (("paper (Alg. 2 + Alg. 1)", paper), ("exact optimum", exact), ("plain DP kernel", dp)):
        rows.append({
            "plan": name,
            "epsilon_y": pl.epsilon_y,
            "q": pl.q,
            "acceptance": pl.acceptance,
            "paper_delta": pl.paper_delta,
            "exact_delta": pl.exact_delta,
            "ratio": pl.exact_delta / pl.delta,
            "status": "sound" if pl.sound else "anti-conservative",
        })
    return pd.DataFrame(rows)
