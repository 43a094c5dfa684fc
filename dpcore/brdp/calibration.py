"""Kernel calibration for BR-DP (Jiang et al. 2024, Sec. 4.2 and Alg. 2's inner loop): the kernel's noise scale
for a sub-budget (ε_y, δ) and the inverse ε of a kernel profile, by safeguarded Newton steps on log-space closed
forms (the paper leaves calibration open; this package uses the analytic Gaussian of Balle & Wang 2018, Thm 8, or
the classic σ = Δ√(2 ln(1.25/δ))/ε, and the tight Laplace ε' = ε - 2 ln(1 - δ)).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from dpcore import _validate as _v
from dpcore import accounting as _acct

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_EPS = float(np.finfo(float).eps)


def _exp_or_inf(x: float) -> float:
    """math.exp without OverflowError (inf beyond the float range: :func:`_safe_newton` then bisects)."""
    return math.exp(x) if x < 709.0 else math.inf


def _safe_newton(
    fg,
    lo: float,
    hi: float,
    lo_positive: bool,
    x: float,
    xtol: float,
    rtol: float,
    fg0: tuple[float, float] | None = None,
    noise_stop: bool = False,
) -> float:
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
    """:func:`dpcore.accounting.analytic_mu` (largest mu with delta_G(eps; mu) <= delta) by Newton steps:
    d delta_G / d mu = phi(mu/2 - eps/mu) (Balle & Wang 2018, Thm 8), so d ln delta/d mu = phi(a)/delta_G.

    Starts from the larger of two feasible points (below the root), both close to it in their regime:
    sqrt(z^2 + 2 eps) - z, z = -Phi^{-1}(delta), the root of Phi(mu/2 - eps/mu) = delta >= delta_G (large
    eps),
    and 2 Phi^{-1}((1 + delta)/2), the root at eps = 0 (delta_G decreases in eps; small eps); about 5
    evaluations instead of accounting's ~20 (bracketing + ``brentq``).  Nudged to the sound side in
    floating point (accounting's ``brentq`` if that takes more than a few ulps).
    """
    log_t = math.log(delta)
    core = _acct.gaussian_log_delta_scalar
    z = -float(special.ndtri(delta))
    lo = max(math.sqrt(z * z + 2.0 * eps) - z if z > 0 else 0.0, -2.0 * float(special.ndtri(0.5 - 0.5 * delta)))

    def fg(mu: float) -> tuple[float, float]:
        ld = core(eps, mu)
        a = mu / 2 - eps / mu
        g = _exp_or_inf(-0.5 * a * a - _LOG_SQRT_2PI - ld) if ld > -math.inf else math.inf
        return ld - log_t, g

    fg_lo = fg(lo) if lo > 0 and math.isfinite(lo) else (math.inf, 0.0)
    if not fg_lo[0] <= 0:
        return _acct.analytic_mu(eps, delta)
    mu = _safe_newton(fg, lo, math.inf, False, lo, 1e-300, 4 * _EPS, fg_lo, noise_stop=True)
    for _ in range(64):  # to the sound side in floating point (a few ulps at most)
        if core(eps, mu) - log_t <= 0:
            return mu
        mu = float(np.nextafter(mu, 0.0))
    return _acct.analytic_mu(eps, delta)


def _gauss_eps_for_delta_s(t: float, mu: float, lo: float, hi: float) -> float:
    """Root of ln delta_G(x; mu) = ln t in (lo, hi) by safeguarded Newton (d delta_G/d x =
    -e^x Phi(-mu/2 - x/mu), Balle & Wang 2018), from hi."""
    log_t = math.log(t)
    core = _acct.gaussian_log_delta_scalar

    def fg(x: float) -> tuple[float, float]:
        ld = core(x, mu)
        lb = float(special.log_ndtr(-mu / 2 - x / mu))
        return ld - log_t, -_exp_or_inf(x + lb - ld) if ld > -math.inf else -math.inf

    fg_hi = fg(hi)
    if fg_hi[0] > 0:  # rounding: delta_G(hi) <= t holds in exact arithmetic
        return hi
    return _safe_newton(fg, lo, hi, True, hi, 1e-14, 2 * _EPS, fg_hi)


def _calibrate(kernel: str, eps_y: float, delta: float, d: float, calibration: str) -> float:
    """Kernel scale for budget (eps_y, delta) (the paper leaves calibration open) from :mod:`dpcore.accounting`.

    Gaussian: analytic (Balle & Wang) or classic sigma; Laplace: tight b = D/eps' ("analytic") or pure
    b = D/eps ("classic", i.e. delta = 0).  Unvalidated analytic core in the Gaussian case (Alg. 2 hot loop):
    :func:`_analytic_mu_s`, the Newton form of ``accounting.analytic_mu`` (same root to ~1e-10 relative).
    """
    if kernel == "gaussian":
        if calibration == "classic":
            s = _acct.gaussian_sigma(eps_y, delta, sensitivity=d, method="classic")
        else:
            # the Newton root is within ~1e-12 relative of the outward-rounded accounting.gaussian_sigma (measured
            # on ε in [0.01, 20], δ in [1e-12, 0.1]): 1e-11 more puts σ on the safe side, never too small
            s = d / _analytic_mu_s(eps_y, delta) * (1 + 1e-11)
        if not _v.MIN_SCALE <= s <= _v.MAX_SCALE:  # as accounting.laplace_scale does for the Laplace kernel
            raise _scale_range_error(d, eps_y)
        return s
    try:
        return _acct.laplace_scale(eps_y, sensitivity=d, delta=delta if calibration == "analytic" else 0.0)
    except ValueError as exc:  # its scale range check, reworded to name epsilon_y (the callers' argument)
        raise _scale_range_error(d, eps_y) from exc


def _scale_range_error(d: float, eps_y: float) -> ValueError:
    lim = f"[{_v.MIN_SCALE:g}, {_v.MAX_SCALE:g}]"
    return ValueError(
        f"sensitivity/epsilon must give a kernel scale in {lim}, got sensitivity={d!r}, epsilon_y={eps_y!r}"
    )


def _kernel_eps_for_delta(kernel: str, t: float, s: float, d: float) -> float:
    """The kernel's epsilon at delta t: smallest x with delta_Z(x) <= t (scalar).

    Laplace: :func:`dpcore.accounting.laplace_epsilon` (closed form).  Gaussian: safeguarded Newton
    (:func:`_gauss_eps_for_delta_s`) on ln delta_G(x) - ln t with accounting's scalar closed form, inside
    the bracket below (``accounting.gaussian_epsilon`` is the vectorised equivalent, but its per-call
    set-up is too slow for Alg. 1 inside Alg. 2; bench/results-where-time-goes.md).
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
    if _acct.gaussian_log_delta_scalar(lo, mu) - log_t <= 0:
        return lo
    return _gauss_eps_for_delta_s(t, mu, lo, hi)  # returns hi when delta_G(hi) > t (rounding)
