"""Usefulness-optimal mixing laws under the exact ε constraint (Algorithm 1).

Mohammady et al. 2020 (R²DP), Section IV-A (Eq. 5: maximise U = 1 - M(-γ) subject to the exact ε), Section
IV-B/C (Gamma, Uniform, truncated normal and their combination) and Algorithm 1 (Gamma + truncated normal).
The constraint is linear in the law (ε_R <= ε ⟺ E[c_ε(u)] <= 0, c_ε(u) = u (1 - e^{ε - Δq u})) and so is the
objective, so the optimum over *all* laws has at most two atoms: :func:`optimize` with ``family="two_point"``
finds it and :func:`two_point_lp` cross-checks it by linear programming. (The paper dismisses the two-point
law because of its printed Thm 4.4, which is wrong; see ``docs/errata.md``.)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize as _opt
from scipy import special as sp

from dpcore import _validate as _v
from dpcore.r2dp._mgf import (
    _LOG2,
    _g_scalar,
    _gamma_logM_scalar,
    _mills_g,
    _tn_from_shape,
    _tn_from_shape_scalar,
    _tn_logd,
    _tn_logd12,
    _tn_logM,
    _tn_logM_scalar,
    _tn_logmp12_scalar,
    _tn_scalar012,
    _uniform_logd,
    _uniform_logM_scalar,
    _uniform_logmp12_scalar,
)
from dpcore.r2dp._solvers import _nelder_mead, _scalar_root_newton, _scale_root_newton
from dpcore.r2dp.laws import (
    Combination,
    Dirac,
    Gamma,
    MixingLaw,
    TruncatedNormal,
    TwoPoint,
    Uniform,
    _has_infinite_atom,
    _law,
    _out,
)
from dpcore.r2dp.mechanism import epsilon, usefulness

#: Most grid atoms of :func:`two_point_lp` (default 6000).
MAX_LP_ATOMS = 100_000
#: |ln s| beyond which a scale factor s leaves the float range (:func:`scale_for_epsilon`).
_MAX_LOG_SCALE = 700.0


def _c(u: Any, eps: float, dq: float) -> np.ndarray:
    """Constraint integrand c_ε(u) = u (1 - e^{ε - Δq u}) (ε_R <= ε ⟺ E[c] <= 0: the constraint of Eq. 5 is
    linear in the law)."""
    with np.errstate(over="ignore"):
        return -u * np.expm1(eps - dq * np.asarray(u, dtype=float))


def two_point_for_epsilon(u0: float, u1: float, *, epsilon: float, sensitivity: float = 1.0) -> TwoPoint:
    """The two-point law on {u0, u1} (u0 < ε/Δq < u1) with p = P(u0) set so the exact ε is met.

    One atom more private than Laplace, one less, mixed to spend exactly ε; the global optimum is such a law.

    (:func:`optimize` lists the rarer atom first instead, so that a tiny probability stays exact.)
    """
    eps = _v.positive("epsilon", epsilon)
    dq = _v.positive("sensitivity", sensitivity)
    u0 = _v.positive("u0", u0)
    u1 = _v.positive("u1", u1)
    ustar = eps / dq
    if not u0 < ustar:
        raise ValueError(f"u0 must be < epsilon/sensitivity = {ustar:g}, got {u0!r}")
    if not u1 > ustar:
        raise ValueError(f"u1 must be > epsilon/sensitivity = {ustar:g}, got {u1!r}")
    c0, c1 = float(_c(u0, eps, dq)), float(_c(u1, eps, dq))
    p1 = -c0 / (c1 - c0)
    return TwoPoint(u0, u1, 1.0 - p1)


def _two_point_grid(
    u0: np.ndarray, u1: np.ndarray, *, epsilon: float, gamma: float, sensitivity: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`two_point_for_epsilon` + :func:`usefulness` over arrays of atoms u0 < ε/Δq < u1:
    (p = P(u0), U(γ)) elementwise, by the same formulas as the scalar calls."""
    eps, dq, gam = float(epsilon), float(sensitivity), float(gamma)
    u0, u1 = np.asarray(u0, dtype=float), np.asarray(u1, dtype=float)
    c0, c1 = _c(u0, eps, dq), _c(u1, eps, dq)
    p = 1.0 - (-c0 / (c1 - c0))
    with np.errstate(all="ignore"):
        terms = np.stack([np.log(p) + (-gam) * u0, np.log(1.0 - p) + (-gam) * u1])
        terms = np.where(np.stack([p, 1.0 - p]) > 0, terms, -np.inf)
        useful = -np.expm1(sp.logsumexp(terms, axis=0))
    return p, useful


def scale_for_epsilon(law: MixingLaw, epsilon: float, *, sensitivity: float = 1.0) -> MixingLaw:
    """law.scaled(s) with s solving exact ε(s) = ε — the app's "lock ε" (by Cor. 3.3, ε grows strictly in
    s from 0 to ∞)."""
    law = _law(law)
    eps = _v.positive("epsilon", epsilon)
    dq = _v.positive("sensitivity", sensitivity)
    if _has_infinite_atom(law):
        raise ValueError("law has an atom at u = inf: its epsilon is infinite at every scale")

    def gap(log_s: float) -> float:
        return _epsilon_of(law.scaled(math.exp(log_s)), dq) - eps

    ratio = eps / dq / law.mean
    centre = math.log(ratio) if 0.0 < ratio < math.inf else math.inf
    if abs(centre) > _MAX_LOG_SCALE - 2.0:
        raise ValueError(
            f"epsilon/sensitivity = {eps / dq:g} is outside the range this law can be scaled to "
            f"(scale factor within e^±{_MAX_LOG_SCALE:g})"
        )
    lo, hi = centre - 2.0, centre + 2.0
    while gap(lo) > 0:
        lo -= 4.0
        if lo < -_MAX_LOG_SCALE:
            raise ValueError(
                f"epsilon={eps:g} needs a scale factor below e^-{_MAX_LOG_SCALE:g} for this law "
                "(outside the float range): choose a larger epsilon"
            )
    while gap(hi) < 0:
        hi += 4.0
        if hi > _MAX_LOG_SCALE:
            raise ValueError(
                f"epsilon={eps:g} needs a scale factor above e^{_MAX_LOG_SCALE:g} for this law "
                "(outside the float range): choose a smaller epsilon"
            )
    return law.scaled(math.exp(_opt.brentq(gap, lo, hi, xtol=1e-13, rtol=1e-13)))


@dataclass(frozen=True)
class OptimizationResult:
    """Outcome of :func:`optimize` (Alg. 1 under the exact ε constraint)."""

    family: str
    law: MixingLaw  # the law to use: the family optimum, or Dirac(ε/Δq) if Laplace is better
    epsilon: float  # exact ε of ``law`` (Cor. 3.3), = target up to 1e-7
    usefulness: float  # 1 - M(-γ) of ``law``
    family_law: MixingLaw  # best law found inside the family (may be worse than Laplace)
    family_usefulness: float
    laplace_usefulness: float
    laplace_optimal: bool  # True when no law of the family beats Laplace
    target_epsilon: float
    gamma: float
    sensitivity: float

    @property
    def ratio(self) -> float:
        """U / U_Lap (≥ 1)."""
        return self.usefulness / self.laplace_usefulness


#: The mixing-law families, by the ids the app's address bar carries too (``fam=truncnorm``): "truncnorm" is the
#: truncated normal, "combo" Algorithm 1's Gamma + truncated normal.
FAMILIES = ("laplace", "two_point", "gamma", "uniform", "truncnorm", "combo")
#: Each family in words, inside a sentence ("best law here: Gamma + truncated normal"); the app's catalogue reads them.
FAMILY_WORDS = {
    "laplace": "Laplace",
    "two_point": "two-point",
    "gamma": "gamma",
    "uniform": "uniform",
    "truncnorm": "truncated-normal",
    "combo": "Gamma + truncated normal",
}


def gamma_theta_for_epsilon(k: Any, *, epsilon: float, sensitivity: float = 1.0) -> np.ndarray | float:
    """θ(k) = expm1(ε/(k+1))/Δq: the Gamma scale with exact ε (inverse of ε = (k+1) ln(1+Δq θ), Thm 4.5)."""
    kk = _v.real_array("k", k, low=0.0, allow_inf=False)
    if np.any(kk <= 0):
        raise ValueError("k must be > 0")
    e = _v.positive("epsilon", epsilon)
    dq = _v.scale("sensitivity", sensitivity)
    with np.errstate(over="ignore"):  # θ beyond the float range reads as +inf
        return _out(np.expm1(e / (kk + 1)) / dq, k)


def _opt_gamma(eps: float, dq: float, gam: float) -> MixingLaw:
    def logfail(lk: Any) -> np.ndarray:
        k = np.exp(lk)
        th = np.expm1(eps / (k + 1)) / dq
        return -k * np.log1p(th * gam)

    grid = np.linspace(math.log(1e-3), math.log(1e6), 400)
    vals = logfail(grid)
    i = int(np.argmin(vals))
    lo_, hi_ = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    best = grid[i]
    if hi_ > lo_:
        res = _opt.minimize_scalar(
            lambda x: float(logfail(x)), bounds=(lo_, hi_), method="bounded", options={"xatol": 1e-10}
        )
        if res.fun <= vals[i]:
            best = res.x
    k = math.exp(best)
    return Gamma(k, math.expm1(eps / (k + 1)) / dq)


def _opt_uniform(eps: float, dq: float, gam: float) -> MixingLaw:
    # u = s·U(ρ, 1), shape ρ = a/b ∈ [0, 1); s root of the exact ε; maximise U over ρ
    ustar = eps / dq

    def logmp(t: Any, rho: Any) -> np.ndarray:
        return _uniform_logd(t, 1, rho, 1.0)

    def logfail(rho: Any, s: Any) -> np.ndarray:
        return _uniform_logd(-gam * s, 0, rho, 1.0)

    grid = np.concatenate([[0.0], 1 - np.geomspace(1.0, 1e-4, 80)[1:]])
    s = _scale_root_newton(lambda t: (logmp(t, grid), _uniform_logd(t, 2, grid, 1.0)), eps, dq, 2 * ustar / (1 + grid))
    vals = logfail(grid, s)
    i = int(np.argmin(vals))

    def obj(rho: float) -> float:
        sr = _scalar_root_newton(lambda t: _uniform_logmp12_scalar(t, rho, 1.0), eps, dq, float(s[i]))
        return _uniform_logM_scalar(-gam * sr, rho, 1.0)

    lo_, hi_ = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    best_rho, best_val = grid[i], vals[i]
    res = _opt.minimize_scalar(obj, bounds=(lo_, hi_), method="bounded", options={"xatol": 1e-9})
    if res.fun < best_val:
        best_rho = float(res.x)
    sr = _scalar_root_newton(lambda t: _uniform_logmp12_scalar(t, best_rho, 1.0), eps, dq, float(s[i]))
    return Uniform(best_rho * sr, sr)


def _opt_tn(eps: float, dq: float, gam: float) -> MixingLaw:
    ustar = eps / dq
    A, LR = np.meshgrid(np.array([-3.0, -1.0, 0.0, 1.0, 2.5, 5.0, 10.0, 25.0]), np.linspace(-9.0, 4.0, 14))
    A, LR = A.ravel(), LR.ravel()

    def logmp_shape(t: Any, al: Any, lr: Any) -> np.ndarray:
        mu, sig, lo = _tn_from_shape(al, lr, 1.0)
        return _tn_logd(t, 1, mu, sig, lo)

    mu1, sig1, lo1 = _tn_from_shape(A, LR, 1.0)
    s = _scale_root_newton(lambda t: _tn_logd12(t, mu1, sig1, lo1), eps, dq, ustar / (1 + np.exp(LR)))
    mu, sig, lo = _tn_from_shape(A, LR, s)
    vals = _tn_logM(-gam, mu, sig, lo)
    order = np.argsort(vals)

    def shape_scalar(al: float, lr: float) -> tuple[float, float, float]:
        g = _g_scalar(al)
        r = math.exp(lr)
        return r - al / g, 1.0 / g, r  # (μ, σ, lo) at scale 1

    def obj(x: np.ndarray) -> float:
        al, lr = min(max(float(x[0]), -6.0), 200.0), min(max(float(x[1]), -30.0), 10.0)
        m1, s1, l1 = shape_scalar(al, lr)
        f012 = _tn_scalar012(m1, s1, l1)
        sr = _scalar_root_newton(lambda t: f012(t)[1:], eps, dq, last[0], m0=math.log1p(math.exp(lr)))
        last[0] = sr  # warm start: the next simplex point is close (the root is unique, only the steps change)
        return _tn_logM_scalar(-gam, m1 * sr, s1 * sr, l1 * sr)

    best_x, best_v = np.array([A[order[0]], LR[order[0]]]), float(vals[order[0]])
    last = [ustar]
    for j in order[:2]:
        last[0] = float(s[j])
        rx, rf = _nelder_mead(
            obj,
            np.array([A[j], LR[j]]),
            xatol=1e-6,
            fatol=1e-12,
            maxfev=160,
            initial_simplex=np.array([[A[j], LR[j]], [A[j] + 1.0, LR[j]], [A[j], LR[j] + 0.7]]),
        )
        if rf < best_v:
            best_x, best_v = rx, float(rf)
    al, lr = min(max(float(best_x[0]), -6.0), 200.0), min(max(float(best_x[1]), -30.0), 10.0)
    m1, s1, l1 = shape_scalar(al, lr)
    sr = _scalar_root_newton(lambda t: _tn_logmp12_scalar(t, m1, s1, l1), eps, dq, ustar / (1 + math.exp(lr)))
    return TruncatedNormal(m1 * sr, s1 * sr, l1 * sr)


def _opt_gamma_tn(eps: float, dq: float, gam: float, starts: list[MixingLaw]) -> MixingLaw:
    """u = X1 + X2, X1 ~ Gamma(k, θ), X2 ~ TN: shape (ln k, logit share of E[X1], α, ln r) + scale root."""
    ustar = eps / dq

    def parts(x: np.ndarray, s: float) -> tuple[float, float, Any, Any, Any]:
        lk, lw, al, lr = x
        k = math.exp(min(max(lk, -7.0), 14.0))
        w = 1.0 / (1.0 + math.exp(-min(max(lw, -30.0), 30.0)))
        al = min(max(al, -6.0), 200.0)
        lr = min(max(lr, -30.0), 10.0)
        mu, sig, lo = _tn_from_shape_scalar(al, lr, s * (1 - w) / (1 + math.exp(lr)))
        return k, s * w / k, mu, sig, lo

    def logmp12(p: tuple[float, float, float, float, float]) -> Any:
        """t -> (log M', log M'') of Gamma + TN by the product rule: M' = M_G' M_T + M_G M_T',
        M'' = M_G'' M_T + 2 M_G' M_T' + M_G M_T''."""
        k, th, mu, sig, lo = p
        lkth = math.log(k * th)
        lk2 = math.log(k * (k + 1) * th * th)
        tn = _tn_scalar012(mu, sig, lo)

        def f(t: float) -> tuple[float, float]:
            lp = math.log1p(-th * t)
            g0 = -k * lp
            g1 = lkth - (k + 1) * lp
            t0, t1, t2 = tn(t)
            a = g1 + t0
            b = g0 + t1
            l1 = max(a, b) + math.log1p(math.exp(-abs(a - b)))
            c0, c1, c2 = lk2 - (k + 2) * lp + t0, _LOG2 + g1 + t1, g0 + t2
            top = max(c0, c1, c2)
            return l1, top + math.log(math.exp(c0 - top) + math.exp(c1 - top) + math.exp(c2 - top))

        return f

    last = [ustar]  # warm start: the previous root (the root is unique, only the number of steps changes)

    def solve(x: np.ndarray) -> tuple[float, float]:
        p1 = parts(x, 1.0)
        s = _scalar_root_newton(logmp12(p1), eps, dq, last[0], m0=0.0)  # E[V] = w + (1 - w) = 1 by construction
        last[0] = s
        k, th, mu, sig, lo = (p1[0], p1[1] * s, p1[2] * s, p1[3] * s, p1[4] * s)
        return _gamma_logM_scalar(-gam, k, th) + _tn_logM_scalar(-gam, mu, sig, lo), s

    x0s = []
    for law in starts:
        if isinstance(law, Gamma):
            x0s.append(np.array([math.log(law.k), 4.0, 25.0, -4.0]))
        elif isinstance(law, TruncatedNormal):
            lr = math.log(max(law.low, 1e-300) / (law.sigma * float(_mills_g(law.alpha))))
            x0s.append(np.array([0.0, -4.0, law.alpha, max(lr, -30.0)]))
    x0s.append(np.array([0.0, 0.0, 25.0, -2.0]))
    best_x, best_v = None, math.inf
    for x0 in x0s:
        rx, rf = _nelder_mead(lambda x: solve(x)[0], x0, xatol=1e-5, fatol=1e-11, maxfev=150)
        if rf < best_v:
            best_x, best_v = rx, float(rf)
    rx, rf = _nelder_mead(lambda x: solve(x)[0], best_x, xatol=1e-6, fatol=1e-12, maxfev=200)  # restart
    if rf < best_v:
        best_x, best_v = rx, float(rf)
    assert best_x is not None  # some start had a finite objective
    s = solve(best_x)[1]
    k, th, mu, sig, lo = (float(v) for v in parts(best_x, s))
    return Combination((Gamma(k, th), TruncatedNormal(mu, sig, lo)), (1.0, 1.0))


def _two_point_fail(x0: Any, x1: Any, eps: float, dq: float, gam: float) -> tuple[Any, Any, Any, Any]:
    ustar = eps / dq
    with np.errstate(all="ignore"):
        u0 = ustar / (1.0 + np.exp(-x0))
        u1 = ustar + np.exp(x1)
        c0 = _c(u0, eps, dq)
        c1 = _c(u1, eps, dq)
        p0 = c1 / (c1 - c0)  # P(u0), computed directly (1 - p1 would lose a tiny p0 ~ e^{-ε})
        p1 = -c0 / (c1 - c0)
        fail = p0 * np.exp(-gam * u0) + p1 * np.exp(-gam * u1)
    return fail, u0, u1, (p0, p1)


def _two_point_fail_scalar(x0: float, x1: float, eps: float, dq: float, gam: float) -> float:
    """Scalar :func:`_two_point_fail` (failure probability only; nan where the numpy form gives nan/inf)."""
    ustar = eps / dq
    try:
        u0 = ustar / (1.0 + math.exp(-x0))
        u1 = ustar + math.exp(x1)
        c0 = -u0 * math.expm1(eps - dq * u0)
        c1 = -u1 * math.expm1(eps - dq * u1)
        p0 = c1 / (c1 - c0)
        p1 = -c0 / (c1 - c0)
        return p0 * math.exp(-gam * u0) + p1 * math.exp(-gam * u1)
    except (OverflowError, ZeroDivisionError, ValueError):
        return math.nan


def _opt_two_point(eps: float, dq: float, gam: float) -> MixingLaw:
    ustar = eps / dq
    X0, X1 = np.meshgrid(np.linspace(-8.0, 8.0, 25), math.log(ustar) + np.linspace(-7.0, 9.0, 33))
    fail, *_ = _two_point_fail(X0, X1, eps, dq, gam)
    fail = np.where(np.isfinite(fail), fail, np.inf)
    i = np.unravel_index(int(np.argmin(fail)), fail.shape)
    x, best = np.array([X0[i], X1[i]]), float(fail[i])

    def obj(z: np.ndarray) -> float:
        return _two_point_fail_scalar(float(z[0]), float(z[1]), eps, dq, gam)

    for step in (0.5, 0.1, 0.02):  # restarted Nelder–Mead (the valley is narrow and curved)
        simplex = np.array([x, x + [step, 0.0], x + [0.0, step]])
        rx, rf = _nelder_mead(obj, x, xatol=1e-10, fatol=1e-16, maxfev=400, initial_simplex=simplex)
        if rf <= best:
            x, best = rx, float(rf)
    _, u0, u1, (p0, p1) = _two_point_fail(x[0], x[1], eps, dq, gam)
    u0, u1, p0, p1 = float(u0), float(u1), float(p0), float(p1)
    if p0 <= p1:  # list the rarer atom first so its (possibly tiny, ~e^{-ε}) probability is stored exactly
        return TwoPoint(u0, u1, p0)
    return TwoPoint(u1, u0, p1)


#: The optimiser of each single family (Gamma+TN combines two of them, in :func:`_family_law`).
_FAMILY_OPTIMA = {"two_point": _opt_two_point, "gamma": _opt_gamma, "uniform": _opt_uniform, "truncnorm": _opt_tn}


@functools.lru_cache(maxsize=1024)
def _family_law(eps: float, dq: float, gam: float, family: str) -> MixingLaw:
    """The best law found inside one family (pure in its scalars, memoised: Alg. 1's Gamma+TN re-uses the Gamma
    and truncated-normal optima, and pages asking for the same (ε, γ, Δq) share them)."""
    if family == "laplace":
        return Dirac(eps / dq)
    if family in _FAMILY_OPTIMA:
        return _FAMILY_OPTIMA[family](eps, dq, gam)
    g_law = _family_law(eps, dq, gam, "gamma")
    t_law = _family_law(eps, dq, gam, "truncnorm")
    fam_law = _opt_gamma_tn(eps, dq, gam, [g_law, t_law])
    for cand in (g_law, t_law):
        if float(usefulness(cand, gamma=gam)) > float(usefulness(fam_law, gamma=gam)):
            fam_law = cand
    return fam_law


def optimize(
    *, epsilon: float, gamma: float, sensitivity: float = 1.0, family: str = "two_point"
) -> OptimizationResult:
    """Usefulness-optimal mixing law of a family under the exact ε constraint (Eq. 5, Algorithm 1).

    Families: ``"laplace"``; ``"two_point"`` (the global optimum over *all* mixing laws: a linear
    objective under one linear constraint has an optimal law with at most two atoms);
    ``"gamma"`` (Thm 4.5), ``"uniform"`` (Thm 4.7), ``"truncnorm"`` (the truncated normal, Thm 4.9, low >= 0,
    no upper cut), ``"combo"`` (Gamma + truncated normal, Algorithm 1's combination, Thm 4.11; best effort, never
    worse than the single-family optima). The result always holds the better of the family optimum and
    Laplace (``laplace_optimal`` tells which), with ε recomputed by Cor. 3.3.
    """
    eps = _v.positive("epsilon", epsilon)
    gam = _v.positive("gamma", gamma)
    dq = _v.positive("sensitivity", sensitivity)
    family = _v.choice("family", family, FAMILIES)
    lap = Dirac(eps / dq)
    u_lap = float(usefulness(lap, gamma=gam))
    if u_lap == 1.0:  # Laplace is within γ with probability 1 to float precision: no law can do better
        fam_law: MixingLaw = lap
    else:
        try:
            with np.errstate(all="ignore"):  # the search's own overflows end in the except below or fail the check
                fam_law = _family_law(eps, dq, gam, family)
        except (ValueError, OverflowError, FloatingPointError) as exc:
            raise ValueError(
                f"epsilon={eps:g}, gamma={gam:g}, sensitivity={dq:g}: the {family} search leaves the "
                f"float range (ε·γ/Δq or ε too extreme); choose a smaller epsilon ({exc})"
            ) from None
    fam_eps = _epsilon_of(fam_law, dq)
    fam_u = float(usefulness(fam_law, gamma=gam))
    if abs(fam_eps - eps) > 1e-7 * max(1.0, eps):  # safety net: never return a law over budget
        fam_u = -math.inf
    better = fam_u > u_lap + 1e-12  # ties (e.g. a two-point law collapsing onto u*) count as Laplace
    law = fam_law if better else lap
    return OptimizationResult(
        family=family,
        law=law,
        epsilon=_epsilon_of(law, dq),
        usefulness=fam_u if better else u_lap,
        family_law=fam_law,
        family_usefulness=fam_u,
        laplace_usefulness=u_lap,
        laplace_optimal=not better,
        target_epsilon=eps,
        gamma=gam,
        sensitivity=dq,
    )


def _epsilon_of(law: MixingLaw, dq: float) -> float:
    return epsilon(law, sensitivity=dq)


def two_point_lp(
    *, epsilon: float, gamma: float, sensitivity: float = 1.0, atoms: int = 6000
) -> tuple[float, np.ndarray, np.ndarray]:
    """LP cross-check of the two-point optimum: min Σ p_i e^{-γ u_i} s.t. Σ p_i c(u_i) <= 0 over a log grid of
    atoms.

    Returns (usefulness, support atoms, their probabilities) — the support has <= 2 atoms.
    """
    eps = _v.positive("epsilon", epsilon)
    gam = _v.positive("gamma", gamma)
    dq = _v.scale("sensitivity", sensitivity)
    n = _v.integer("atoms", atoms, low=10, high=MAX_LP_ATOMS)
    ustar = eps / dq
    if not _v.MIN_SCALE <= ustar <= _v.MAX_SCALE:
        raise ValueError(f"epsilon/sensitivity must be in [{_v.MIN_SCALE:g}, {_v.MAX_SCALE:g}], got {ustar:g}")
    u = np.unique(np.concatenate([np.geomspace(1e-4, 1e3, n) * ustar, [ustar]]))
    cu = _c(u, eps, dq)
    if not np.all(np.isfinite(cu)):  # u(1 − e^{ε − Δq·u}) overflows on the grid's small atoms once ε ≳ 709
        raise ValueError(f"epsilon must be at most about 700 for the LP grid (e^epsilon overflows), got {eps:g}")
    res = _opt.linprog(
        np.exp(-gam * u),
        A_ub=cu[None, :],
        b_ub=[0.0],
        A_eq=np.ones((1, u.size)),
        b_eq=[1.0],
        bounds=(0, None),
        method="highs",
    )
    if res.x is None:  # extreme ε·γ/Δq: the grid's costs under/overflow and HiGHS finds no solution
        raise ValueError(f"no LP solution for epsilon={eps:g}, gamma={gam:g}, sensitivity={dq:g}: {res.message}")
    p = res.x
    keep = p > 1e-9
    return 1.0 - float(res.fun), u[keep], p[keep]
