"""How accurate each mechanism is at a budget ε, and the smallest ε that meets a requirement.

Accuracy at ε: Laplace 1 − e^{−εθ/Δ}; Gaussian 2Φ(θ/σ) − 1 with the analytic σ(ε, δ) (Balle & Wang 2018, Thm 8);
BR-DP the acceptance p_θ/(1 − p̄_θ q) of the optimised plan (Jiang et al. 2024, Eq. 9), under the exact
accountant or the paper's (Alg. 1–2, Prop. 2, which can under-report δ: docs/errata.md); R²DP the usefulness
P(|noise| ≤ γ) = 1 − M(−γ) of the best paper family or of the two-point optimum (Mohammady et al. 2020); the
Geng–Viswanath
staircase's optimal usefulness; SVT's exact success probability with one shared threshold noise (Liu et al. 2024,
Eq. 8). The inverse is a bracketing root search in ln ε of a non-decreasing accuracy (optimal plans at a larger ε
include those at a smaller one), in closed form where there is one.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import special, stats
from scipy.optimize import elementwise

from dpcore import _validate as _v
from dpcore import accounting as _acct
from dpcore import brdp as _brdp
from dpcore import noise_reduction as _nr
from dpcore import r2dp as _r2dp
from dpcore import svt as _svt
from dpcore.mechanisms.requirement import Requirement

_Accountant = Literal["exact", "paper"]  # the BR-DP accountants a plan is optimised under

R2DP_FAMILIES = ("gamma", "uniform", "truncnorm", "combo")
RTOL = 1e-5  # relative width of the final ε bracket of every bisection
TINY_EPSILON = 1e-9  # below this a requirement counts as met "for free" (the search stops)


# ----------------------------------------------------------------------------------------------------------
# accuracy at one ε
# ----------------------------------------------------------------------------------------------------------


def laplace_accuracy(eps: float, req: Requirement) -> float:
    """P(|Lap(Δ/ε)| ≤ θ) = 1 − e^{−εθ/Δ}."""
    return float(-math.expm1(-eps * req.bound / req.sensitivity))


def gaussian_accuracy(eps: float, req: Requirement) -> float:
    """P(|N(0, σ²)| ≤ θ) = erf(θ/(σ√2)) with the analytic σ(ε, δ)."""
    sigma = _acct.gaussian_sigma(eps, req.delta, sensitivity=req.sensitivity)
    return float(special.erf(req.bound / (sigma * math.sqrt(2.0))))


@functools.lru_cache(maxsize=1024)
def _brdp_plan_cached(
    eps: float, delta: float, sensitivity: float, bound: float, kernel: _brdp.Kernel, accountant: _Accountant
) -> _brdp.BRDPPlan:
    """brdp.optimize memoised by its scalars (a bisection and the reverse table ask for the same plans again)."""
    return _brdp.optimize(
        epsilon=eps, delta=delta, sensitivity=sensitivity, theta=bound, kernel=kernel, accountant=accountant
    )


def brdp_plan(eps: float, req: Requirement, accountant: _Accountant) -> _brdp.BRDPPlan:
    """The optimised BR-DP plan at ε for this requirement (memoised)."""
    return _brdp_plan_cached(
        float(eps), float(req.delta), float(req.sensitivity), float(req.bound), req.kernel, accountant
    )


def brdp_accuracy(accountant: _Accountant) -> Callable[[float, Requirement], float]:
    """Acceptance of the best BR-DP plan at ε under ``accountant`` ("exact" or "paper")."""
    return lambda eps, req: brdp_plan(eps, req, accountant).acceptance


@functools.lru_cache(maxsize=1024)
def _r2dp_best_cached(eps: float, bound: float, sensitivity: float, families: tuple[str, ...]) -> tuple[float, str]:
    """Best U(θ) over the R²DP families and the best law's family id ("laplace" when no family beats it).

    Shortcut: when the optimal staircase is no better than Laplace (θ a whole multiple of Δ), no ε-DP additive
    noise, so no R²DP law, beats Laplace: return Laplace's U without running the optimiser.
    """
    lap = float(_r2dp.usefulness(_r2dp.Dirac(eps / sensitivity), gamma=bound))
    if float(_r2dp.staircase_usefulness(eps, gamma=bound, sensitivity=sensitivity)) <= lap:
        return lap, "laplace"
    best, name = -1.0, ""
    for fam in families:
        res = _r2dp.optimize(epsilon=eps, gamma=bound, sensitivity=sensitivity, family=fam)
        if res.usefulness > best:
            best, name = res.usefulness, ("laplace" if res.laplace_optimal else fam)
    return best, name


def r2dp_best(eps: float, req: Requirement, families: Sequence[str]) -> tuple[float, str]:
    """(best usefulness, family id of the best law: one of :data:`dpcore.r2dp.FAMILIES`) over ``families`` at ε."""
    return _r2dp_best_cached(float(eps), float(req.bound), float(req.sensitivity), tuple(families))


def r2dp_accuracy(families: Sequence[str]) -> Callable[[float, Requirement], float]:
    """Usefulness of the best R²DP law among ``families`` at ε."""
    fams = tuple(families)
    return lambda eps, req: r2dp_best(eps, req, fams)[0]


def staircase_accuracy(eps: float, req: Requirement) -> float:
    """The optimal ε-DP additive noise's P(|noise| ≤ θ) (Geng & Viswanath staircase)."""
    return float(_r2dp.staircase_usefulness(eps, gamma=req.bound, sensitivity=req.sensitivity))


def svt_success(eps: float, req: Requirement, noise: str) -> tuple[float, float]:
    """(exact shared-threshold success probability, threshold correction r) of SVT at ε."""
    sp = _svt.split_budget(eps, c=req.c, noise=noise, sensitivity=req.sensitivity)
    r = (
        _svt.correction_term(sp.threshold_scale, sp.query_scale, k=req.k, alpha=req.theta).r
        if noise == "exponential"
        else 0.0
    )
    p = _svt.shared_success_probability(
        r, k=req.k, alpha=req.theta, threshold_scale=sp.threshold_scale, query_scale=sp.query_scale, query_noise=noise
    )
    return min(1.0, max(0.0, float(p))), float(r)  # the quadrature can overshoot 1 by ~1e-15


def svt_accuracy(noise: str) -> Callable[[float, Requirement], float]:
    """SVT's success probability with ``noise`` query noise ("exponential": with the optimal correction)."""
    return lambda eps, req: svt_success(eps, req, noise)[0]


# ----------------------------------------------------------------------------------------------------------
# the smallest ε
# ----------------------------------------------------------------------------------------------------------


def _accuracy_or_nan(acc: Callable[[float], float], eps: float) -> float:
    """acc(ε), or NaN where it cannot be computed (e.g. an optimiser with no feasible plan)."""
    try:
        return acc(eps)
    except (ValueError, ZeroDivisionError, OverflowError, FloatingPointError):
        return math.nan


def meets(acc: Callable[[float], float], eps: float, p: float) -> bool:
    """acc(ε) ≥ p, False where the accuracy cannot be computed (e.g. an optimiser with no feasible plan)."""
    return eps > 0 and math.isfinite(eps) and _accuracy_or_nan(acc, eps) >= p


def smallest_epsilon(
    acc: Callable[[float], float], p: float, cap: float, lo: float, hi: float, *, costly: bool = False
) -> float:
    """Smallest ε ≤ cap with acc(ε) ≥ p (acc non-decreasing), to a relative RTOL: bracket, then a root search.

    ``lo`` and ``hi`` are a guess of the bracket; any positive guess works (non-positive or non-finite guesses
    are replaced). Returns inf when even ``cap`` is not enough and a value ≤ TINY_EPSILON when ε ≈ 0 suffices.
    The returned ε has been evaluated and meets the requirement; ε/(1 + RTOL) has been evaluated and does not.
    ``costly``: each accuracy costs milliseconds (an optimisation), so a search that needs fewer of them is worth
    its own set-up (:func:`_root_in_bracket`; bench/results-where-time-goes.md); otherwise a plain geometric bisection.
    """
    hi = min(hi, cap) if hi > 0 and math.isfinite(hi) else cap
    lo = lo if lo > 0 and math.isfinite(lo) else hi * 1e-3
    if not meets(acc, hi, p):
        if hi >= cap or not meets(acc, cap, p):
            return math.inf
        lo, hi = hi, cap
    lo = min(lo, hi)
    while meets(acc, lo, p):
        if lo < TINY_EPSILON:
            return lo
        hi, lo = lo, lo / 16.0
    return _root_in_bracket(acc, p, lo, hi) if costly else _bisect(acc, p, lo, hi)


def _root_in_bracket(acc: Callable[[float], float], p: float, lo: float, hi: float) -> float:
    """Narrow lo (fails) < hi (meets) until hi/lo ≤ 1 + RTOL and return hi.

    Chandrupatla's bracketing search (scipy.optimize.elementwise.find_root) on acc(e^x) − p in x = ln ε. It keeps
    a valid bracket, like bisection, and takes interpolation steps where the accuracy is smooth: an expensive
    accuracy (a BR-DP plan optimisation) is evaluated 8–12 times instead of 20. Bisection finishes the job in
    the rare case the search stops short (e.g. an accuracy that cannot be computed inside the bracket).
    """

    def gap(x: np.ndarray) -> np.ndarray:
        out = np.empty(np.shape(x))
        for i, xi in np.ndenumerate(x):
            a = _accuracy_or_nan(acc, math.exp(xi))
            out[i] = a - p if a >= p or a < p else -1.0  # acc ≥ p exactly where meets() holds; NaN fails
        return out

    res = elementwise.find_root(
        gap,
        (math.log(lo), math.log(hi)),
        tolerances={"xatol": math.log1p(RTOL), "xrtol": 0.0, "fatol": 0.0, "frtol": 0.0},
    )
    ends = sorted(zip((float(x) for x in res.bracket), (float(f) for f in res.f_bracket), strict=True))
    (x_lo, f_lo), (x_hi, f_hi) = ends
    if f_hi >= 0 and f_lo < 0:
        lo, hi = math.exp(x_lo), math.exp(x_hi)
    elif f_lo >= 0:  # the search landed exactly on acc = p
        return math.exp(x_lo)
    return _bisect(acc, p, lo, hi)


def _bisect(acc: Callable[[float], float], p: float, lo: float, hi: float) -> float:
    """Geometric bisection of lo (fails) < hi (meets) until hi/lo ≤ 1 + RTOL; returns hi."""
    while hi / lo > 1.0 + RTOL:
        mid = math.sqrt(lo * hi)
        if meets(acc, mid, p):
            hi = mid
        else:
            lo = mid
    return hi


def laplace_epsilon(req: Requirement) -> float:
    """Closed form ε = Δ ln(1/(1 − p))/θ."""
    return -req.sensitivity * math.log1p(-req.confidence) / req.bound


def gaussian_epsilon(req: Requirement) -> tuple[float, float]:
    """σ = θ/Φ⁻¹((1+p)/2) and the smallest ε ≥ 0 with δ_G(ε; σ) ≤ δ (0 when δ allows any ε)."""
    sigma = req.bound / float(stats.norm.ppf((1.0 + req.confidence) / 2.0))
    eps = float(_acct.gaussian_epsilon(req.delta, sigma=sigma, sensitivity=req.sensitivity))
    return max(eps, 0.0), sigma


def solve_laplace(req: Requirement, acc: Callable[[float], float]) -> float:
    return laplace_epsilon(req)


def solve_gaussian(req: Requirement, acc: Callable[[float], float]) -> float:
    return gaussian_epsilon(req)[0]


def solve_dominating_laplace(staircase_floor: bool) -> Callable[[Requirement, Callable[[float], float]], float]:
    """Search for noises that are never worse than Laplace (R²DP contains Laplace; the staircase is optimal).

    When they do not beat Laplace just below its closed-form ε, that ε is theirs (θ a multiple of Δ, or small
    ε). Otherwise bisect between a lower end (the staircase's ε for R²DP, which no ε-DP noise beats) and Laplace's.
    """

    def solve(req: Requirement, acc: Callable[[float], float]) -> float:
        eps_lap = laplace_epsilon(req)
        p = req.confidence
        if not meets(acc, eps_lap * (1 - RTOL), p):
            return eps_lap
        lo = eps_lap / 64
        if staircase_floor:
            lo = 0.999 * smallest_epsilon(lambda e: staircase_accuracy(e, req), p, req.cap, eps_lap / 64, eps_lap)
        return smallest_epsilon(acc, p, req.cap, lo, eps_lap * 1.001)

    return solve


def solve_brdp_exact(req: Requirement, acc: Callable[[float], float]) -> float:
    """The exact optimum never needs more than its plain kernel at the full budget (Jiang et al. 2024, Prop. 4):
    start the bracket at the kernel's own ε (floored: at a large δ the Gaussian kernel needs ε ≈ 0)."""
    eps_lap = laplace_epsilon(req)
    kernel_eps = gaussian_epsilon(req)[0] if req.kernel == "gaussian" else eps_lap + 2 * math.log1p(-req.delta)
    start = max(kernel_eps, eps_lap * 1e-3, TINY_EPSILON * 16)
    return smallest_epsilon(acc, req.confidence, req.cap, start / 8, start * 1.001, costly=True)


def solve_brdp_paper(req: Requirement, acc: Callable[[float], float]) -> float:
    eps_lap = laplace_epsilon(req)
    return smallest_epsilon(acc, req.confidence, req.cap, eps_lap / 32, eps_lap * 2, costly=True)


def solve_svt(req: Requirement, acc: Callable[[float], float]) -> float:
    return smallest_epsilon(acc, req.confidence, req.cap, 0.01, 2.0)


# ----------------------------------------------------------------------------------------------------------
# noise reduction (Laplace, Koufogiannis et al. 2015; relative-error stopping rule of Rogers et al. 2023, §7)
# ----------------------------------------------------------------------------------------------------------

NR_LEVELS = 601  # geometric ε grid over six decades below the ex-ante cap (ratio 1.023 between levels)


@dataclass(frozen=True)
class NoiseReductionCost:
    """Monte-Carlo summary of Laplace noise reduction with the relative-error stopping rule."""

    expected_epsilon: float  # E[ex-post ε] = E[ε_T]
    standard_error: float
    success: float  # P(rule fires and |ŷ − x| ≤ α|x|)
    success_se: float
    fired: float  # P(rule fires before the cap)
    cap: float  # ex-ante worst case ε (last grid level)
    runs: int


def noise_reduction_cost(
    *,
    alpha: float,
    value: float,
    sensitivity: float = 1.0,
    cap: float = 50.0,
    n_runs: int = 2000,
    rng: np.random.Generator | int | None = 0,
) -> NoiseReductionCost:
    """Expected ex-post ε of Laplace noise reduction stopped by the relative-error rule (Monte Carlo).

    Levels geomspace(cap·1e-6, cap, 601); the ex-post loss of a run stopped at ε_T is at most ε_T (Rogers et al.
    2023, Lemma A.1), so E[ε_T] is the expected ex-post ε; the ex-ante (worst-case) ε is ``cap``. The rule stops
    once the noisy answer looks within α relative error (Rogers et al. 2023, §7).
    """
    a = _v.real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    x = _v.positive("value", value)
    d = _v.positive("sensitivity", sensitivity)
    top = _v.positive("cap", cap)
    n = _v.integer("n_runs", n_runs, low=2)
    eps = np.geomspace(top * 1e-6, top, NR_LEVELS)
    df = _nr.release_many(x, epsilons=eps, alpha=a, n_runs=n, mechanism="laplace", sensitivity=d, rng=rng)
    fired = df["accepted"].to_numpy(bool)  # the rule holds at the returned level (it fired there)
    good = (fired & (np.abs(df["release"].to_numpy() - x) <= a * x)).astype(float)
    e_t = df["epsilon_stop"].to_numpy()
    return NoiseReductionCost(
        expected_epsilon=float(e_t.mean()),
        standard_error=float(e_t.std(ddof=1) / math.sqrt(n)),
        success=float(good.mean()),
        success_se=float(good.std(ddof=1) / math.sqrt(n)),
        fired=float(fired.mean()),
        cap=top,
        runs=n,
    )


# ----------------------------------------------------------------------------------------------------------
# extra facts a table row shows at the answer ε
# ----------------------------------------------------------------------------------------------------------


def brdp_details(accountant: _Accountant) -> Callable[[float, Requirement, bool], dict]:
    """The plan's split, its exact δ and whether the stated δ holds (the paper's accountant can under-report it)."""

    def details(eps: float, req: Requirement, forward: bool) -> dict:
        plan = brdp_plan(eps, req, accountant)
        ratio = plan.exact_delta / req.delta
        warn = (
            f"{ratio:.3g}× the stated δ: the paper's accountant under-reports the privacy loss"
            if not plan.sound
            else ""
        )
        if forward:
            note = f"ε_y = {plan.epsilon_y:.4g}, q = {plan.q:.4g}; exact δ of this plan = {plan.exact_delta:.3g}" + (
                f" — {warn}" if warn else ""
            )
        else:
            note = f"exact δ = {plan.exact_delta:.3g} ({warn})" if warn else ""
        return {"exact_delta": plan.exact_delta, "sound": plan.sound, "note": note}

    return details


def r2dp_details(eps: float, req: Requirement, forward: bool) -> dict:
    return {"note": f"Best law here: {_r2dp.FAMILY_WORDS[r2dp_best(eps, req, R2DP_FAMILIES)[1]]}."} if forward else {}


def svt_details(noise: str) -> Callable[[float, Requirement, bool], dict]:
    def details(eps: float, req: Requirement, forward: bool) -> dict:
        if not forward:
            return {}
        r = svt_success(eps, req, noise)[1]
        return {"note": f"threshold correction r = {r:.4g}; margin θ = {req.theta:g}, c = {req.c}, k = {req.k}"}

    return details
