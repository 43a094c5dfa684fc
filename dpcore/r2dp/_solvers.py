"""Numerical search used by Algorithm 1: the scale that meets an exact ε, and a fast Nelder–Mead.

Mohammady et al. 2020 (R²DP), Section IV-B/C and Algorithm 1. Every family is searched as u = s·V (shape V,
scale s); the exact ε of Cor. 3.3 grows strictly with s, from 0 to ∞, so each shape has exactly one scale
meeting the target ε. These root finders solve for it; :func:`_nelder_mead` searches the shapes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import optimize as _opt


def _scale_root(logmp: Any, eps: float, dq: float, s_guess: Any, iters: int = 64) -> np.ndarray:
    """Vectorised bisection in log s for ε(s) = log M_V'(0) - log M_V'(-s Δq) = ε (increasing in s).

    ``logmp(t)`` = log M_V'(t) broadcast over shapes; ``s_guess`` the centre of the bracket.
    """
    m0 = logmp(np.zeros_like(np.asarray(s_guess, dtype=float)))
    lo_ = np.log(s_guess) - 60.0
    hi_ = np.log(s_guess) + 60.0
    with np.errstate(all="ignore"):
        for _ in range(iters):
            mid = 0.5 * (lo_ + hi_)
            val = m0 - logmp(-np.exp(mid) * dq) - eps
            big = val > 0
            hi_ = np.where(big, mid, hi_)
            lo_ = np.where(big, lo_, mid)
    return np.exp(0.5 * (lo_ + hi_))


def _scalar_root(logmp: Any, eps: float, dq: float, s_guess: float) -> float:
    """Root in s of ε(s) = log M_V'(0) - log M_V'(-sΔq) = ε (brentq in log s; ε(s) increasing)."""
    m0 = float(logmp(0.0))

    def f(ls: float) -> float:
        return m0 - float(logmp(-math.exp(ls) * dq)) - eps

    c = math.log(s_guess)
    a, b = c - 2.0, c + 2.0
    fa, fb = f(a), f(b)
    while fa > 0:
        a -= 8.0
        fa = f(a)
    while fb < 0:
        b += 8.0
        fb = f(b)
    return math.exp(_opt.brentq(f, a, b, xtol=1e-14, rtol=1e-14))


class _MaxFev(Exception):
    pass


def _nelder_mead(
    fun: Any, x0: Any, *, xatol: float, fatol: float, maxfev: int, initial_simplex: Any = None
) -> tuple[np.ndarray, float]:
    """Pure-Python replica of ``scipy.optimize.minimize(method="Nelder-Mead")`` (non-adaptive, no bounds, maxfev
    only): same simplex, same steps, same order of operations, so the same iterates — without scipy's per-step
    numpy overhead, which costs more than these objectives (bench/results-where-time-goes.md). Returns (x, fun) as
    ``res.x, res.fun``."""
    if initial_simplex is None:
        start = [float(v) for v in np.ravel(x0)]
        n = len(start)
        sim = [start]
        for k in range(n):
            y = list(start)
            y[k] = (1 + 0.05) * y[k] if y[k] != 0 else 0.00025
            sim.append(y)
    else:
        sim = [[float(v) for v in row] for row in np.asarray(initial_simplex, dtype=float)]
        n = len(sim[0])
    fsim = [math.inf] * (n + 1)
    calls = [0]

    def call(x: list[float]) -> float:
        if calls[0] >= maxfev:
            raise _MaxFev
        calls[0] += 1
        return float(fun(x))  # the objectives here never modify x (scipy passes a copy)

    def order() -> None:
        if len(set(fsim)) == n + 1 and all(f == f for f in fsim):  # distinct, no nan: the order is unambiguous
            idx = sorted(range(n + 1), key=fsim.__getitem__)
        else:  # np.argsort itself: its order of ties (SIMD sort, not stable) steers the simplex
            idx = np.argsort(np.array(fsim)).tolist()
        sim[:] = [sim[i] for i in idx]
        fsim[:] = [fsim[i] for i in idx]

    try:
        for k in range(n + 1):
            fsim[k] = call(sim[k])
    except _MaxFev:
        pass
    order()
    rng_n = range(n)
    while calls[0] < maxfev:
        try:
            s0, f0 = sim[0], fsim[0]
            if all(abs(sim[j][i] - s0[i]) <= xatol for j in range(1, n + 1) for i in rng_n) and all(
                abs(f0 - fsim[j]) <= fatol for j in range(1, n + 1)
            ):
                break
            xbar = list(sim[0])
            for j in range(1, n):
                xbar = [a + b for a, b in zip(xbar, sim[j], strict=True)]
            xbar = [a / n for a in xbar]
            worst = sim[-1]
            xr = [2 * a - 1 * w for a, w in zip(xbar, worst, strict=True)]
            fxr = call(xr)
            doshrink = False
            if fxr < fsim[0]:
                xe = [3 * a - 2 * w for a, w in zip(xbar, worst, strict=True)]
                fxe = call(xe)
                if fxe < fxr:
                    sim[-1], fsim[-1] = xe, fxe
                else:
                    sim[-1], fsim[-1] = xr, fxr
            elif fxr < fsim[-2]:
                sim[-1], fsim[-1] = xr, fxr
            elif fxr < fsim[-1]:
                xc = [1.5 * a - 0.5 * w for a, w in zip(xbar, worst, strict=True)]
                fxc = call(xc)
                if fxc <= fxr:
                    sim[-1], fsim[-1] = xc, fxc
                else:
                    doshrink = True
            else:
                xcc = [0.5 * a + 0.5 * w for a, w in zip(xbar, worst, strict=True)]
                fxcc = call(xcc)
                if fxcc < fsim[-1]:
                    sim[-1], fsim[-1] = xcc, fxcc
                else:
                    doshrink = True
            if doshrink:
                for j in range(1, n + 1):
                    sim[j] = [a + 0.5 * (b - a) for a, b in zip(sim[0], sim[j], strict=True)]
                    fsim[j] = call(sim[j])
        except _MaxFev:
            pass
        order()
    best = math.nan if any(f != f for f in fsim) else min(fsim)
    return np.array(sim[0]), best


def _scale_root_newton(logmp12: Any, eps: float, dq: float, s_guess: Any, maxit: int = 200) -> np.ndarray:
    """Vectorised safeguarded Newton in log s for ε(s) = ε (same root as :func:`_scale_root`, ~6 steps, not 64).

    ``logmp12(t)`` = (log M_V'(t), log M_V''(t)) broadcast over shapes. Newton runs on F = log ε(s) - log ε,
    whose slope is d = s Δq M_V''(-sΔq)/M_V'(-sΔq)/ε(s) ∈ (0, 1] (ε(s) = ln E[V] - ln M_V'(-sΔq) is concave in
    s, since ln M_V' is convex, and ε(0) = 0; a larger computed d is clipped to 1). A step leaving the bracket
    (known signs, initially log s_guess ± 60 as in the bisection) or following a Newton step that did not halve
    |F| is a bisection step, so it converges wherever the bisection does. Converged: |F| at rounding level, or a
    Newton step h <= 1e-8 (its error is O(h²)) right after a Newton step that cut |F| by 1000× (d trustworthy).
    """
    g = np.asarray(s_guess, dtype=float)
    m0 = logmp12(np.zeros_like(g))[0]
    leps = math.log(eps)
    x = np.log(g)
    lo_, hi_ = x - 60.0, x + 60.0
    prev = np.full(np.shape(x), np.inf)
    fin = np.zeros(np.shape(x), dtype=bool)  # converged entries stay put while the others iterate
    with np.errstate(all="ignore"):
        for _ in range(maxit):
            t = np.exp(x) * dq
            l1, l2 = logmp12(-t)
            e = m0 - l1
            f = np.where(e > 0, np.log(e) - leps, -np.inf)
            d = np.minimum(t * np.exp(l2 - l1) / e, 1.0)
            hi_ = np.where(f > 0, x, hi_)
            lo_ = np.where(f < 0, x, lo_)
            step = np.where(f == 0, 0.0, f / d)
            af = np.abs(f)
            done = ((np.abs(step) <= 1e-8) & (af <= 1e-7) & (af <= 1e-3 * prev)) | (af <= 1e-15)
            xn = x - step
            newton = done | ((xn > lo_) & (xn < hi_) & (af <= 0.5 * prev))
            x = np.where(fin, x, np.where(newton, xn, 0.5 * (lo_ + hi_)))
            prev = np.where(newton, af, np.inf)  # progress is judged on Newton steps only
            fin |= done
            if np.all(fin):
                break
    return np.exp(x)


def _scalar_root_newton(
    logmp12: Any, eps: float, dq: float, s_guess: float, maxit: int = 100, m0: float | None = None
) -> float:
    """Scalar safeguarded Newton in log s for ε(s) = ε (same root as :func:`_scalar_root`, ~3 steps, not ~13).

    ``logmp12(t)`` = (log M_V'(t), log M_V''(t)); ``m0`` = log M_V'(0) = log E[V] if known (else evaluated). The
    ε(s) evaluated is the same expression as in :func:`_scalar_root`, only the search differs (see
    :func:`_scale_root_newton`; while one side of the bracket is unknown, a fallback step is ±8 in log s). Should
    it not converge in ``maxit`` steps, :func:`_scalar_root` (brentq) finishes the job.
    """
    if m0 is None:
        m0 = logmp12(0.0)[0]
    exp, log, inf = math.exp, math.log, math.inf
    leps = log(eps)
    x = log(s_guess)
    lo_, hi_ = -inf, inf
    good = None
    prev = inf
    for _ in range(maxit):
        try:
            t = exp(x) * dq
            l1, l2 = logmp12(-t)
            e = m0 - l1
            if e > 0.0:
                f = log(e) - leps
                d = t * exp(l2 - l1) / e
            else:
                f, d = -inf, 0.0
        except (ValueError, OverflowError, ZeroDivisionError):
            f = d = math.nan
        if f != f:  # outside the numerically safe range: back towards the last good point
            xn = x - 8.0 if good is None else 0.5 * (x + good)
            if abs(xn - x) <= 1e-14 * max(1.0, abs(x)):
                return exp(x)
            x = xn
            continue
        good = x
        if f > 0.0:
            if x < hi_:
                hi_ = x
        elif f < 0.0:
            if x > lo_:
                lo_ = x
        else:
            return exp(x)
        af = abs(f)
        if 0.0 < d < inf and af < inf:
            step = f / (d if d < 1.0 else 1.0)
            if (abs(step) <= 1e-8 and af <= 1e-7 and af <= 1e-3 * prev) or af <= 1e-15:
                return exp(x - step)
            xn = x - step
            if lo_ < xn < hi_ and af <= 0.5 * prev:
                x, prev = xn, af
                continue
        prev = inf  # progress is judged on Newton steps only
        xn = 0.5 * (lo_ + hi_) if (lo_ > -inf and hi_ < inf) else (x + 8.0 if f < 0.0 else x - 8.0)
        if abs(xn - x) <= 1e-14 * max(1.0, abs(x)):
            return exp(xn)
        x = xn
    return _scalar_root(lambda t: logmp12(t)[0], eps, dq, s_guess)
