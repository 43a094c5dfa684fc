"""Cached tables of the SVT page's explore view (Liu, Wang, Liu, Li and Chen 2024): scalar arguments in, frames and
frozen dataclasses out.

Every function evaluates :mod:`dpcore.svt` / :mod:`dpcore.data` on the grid one chart needs. Δ = 1 throughout
(item counts). Noise families are named as in ``dpcore.svt.NOISES``; the correction rule is "optimal" (r^op of
Eq. 9 under the paper's Eq. 8 model), "mean" (E[v]) or "none" (r = 0). The top-c experiments are plain functions
(no Streamlit cache): the page runs them in the worker pool of :mod:`app.background`, which keeps their results.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from app.compute._cache import cached
from app.notation import number
from dpcore import data as dpdata
from dpcore import svt

NOISES = svt.NOISES
RULES = ("optimal", "mean", "none")
#: Data sets of Table 2 by their short URL value.
DATASETS = {
    "zipf": "Zipf",
    "binary": "Binary",
    "t40": "T40I10D100K",
    "bmspos": "BMS-POS",
    "kosarak": "Kosarak",
    "adult": "Adult",
}
EXPERIMENT_EPSILONS = (0.05, 0.1, 0.5, 1.0, 2.0)  # Fig. 7: the paper does not state its ε grid
LIVE_MAX_ITEMS = 500
BIN_GRID = (11, 21, 51, 101, 201, 501, 1001, 2001, 5001, 10001, 20001)
_GAUSS_DELTA = 1e-5  # δ of SVT-Gau in the analytic panels (not stated in the paper: assumed)


# ---------------------------------------------------------------------------------------------- calibration
# Small immutable values asked for hundreds of times per rerun (a curve of r^op over k, α or ε) are memoised in
# the process (functools.lru_cache): Streamlit's data cache pickles every hit, which costs more than computing r^op
# (bench/results-where-time-goes.md).
@functools.lru_cache(maxsize=4096)
def calibration(
    epsilon: float, c: int, noise: str, monotonic: bool, w: float | None = None
) -> svt.BudgetSplit:
    """Budget split and noise scales of one method (Tables 4 and 6); ``w`` overrides the optimal split."""
    return svt.split_budget(epsilon, c=c, noise=noise, monotonic=monotonic, w=w, delta=_GAUSS_DELTA)


def _correction_r(sp: svt.BudgetSplit, k: int, alpha: float, rule: str) -> float:
    if rule == "none":
        return 0.0
    if rule == "mean":
        return sp.mean_correction
    return _rop(sp.threshold_scale, sp.query_scale, k, alpha, sp.noise, sp.threshold_noise)


@functools.lru_cache(maxsize=4096)
def _rop(b: float, theta: float, k: int, alpha: float, noise: str, threshold_noise: str) -> float:
    """r^op of Eq. 9: closed-form Γ, except Gumbel, whose Γ has no closed form and whose quadrature optimiser
    takes minutes when α ≫ the noise scales — there the FFT framework (Alg. 3, m = 20 001) is used."""
    method = "numeric" if noise == "gumbel" else "analytic"
    return svt.correction_term(
        b, theta, k=k, alpha=alpha, query_noise=noise, threshold_noise=threshold_noise, method=method
    ).r


@functools.lru_cache(maxsize=64)
def _gumbel_grid(b: float, g: float) -> svt.DiscretisedComparison:
    return svt.discretise_comparison(b, g, query_noise="gumbel")


def _noise(sp: svt.BudgetSplit) -> dict:
    """The noise pair of a calibrated split, as the keyword arguments dpcore.svt's probability functions take."""
    return {
        "threshold_scale": sp.threshold_scale,
        "query_scale": sp.query_scale,
        "query_noise": sp.noise,
        "threshold_noise": sp.threshold_noise,
    }


def _shared(sp: svt.BudgetSplit, r, k: int, alpha):
    """Exact success probability with one shared ρ (Algorithm 2), vectorised over r and α; Gumbel tails
    overflow harmlessly."""
    with np.errstate(over="ignore", under="ignore"):
        return svt.shared_success_probability(
            r,
            k=k,
            alpha=alpha,
            **_noise(sp),
        )


def _eq8(sp: svt.BudgetSplit, r, k: int, alpha):
    """p(r) of Eq. 8 (vectorised over r and α). Gumbel: Γ̄ of the FFT framework (within 1e-7 of quadrature,
    which is slow far in the tails)."""
    if sp.noise == "gumbel":
        disc = _gumbel_grid(sp.threshold_scale, sp.query_scale)
        return disc.cdf(np.asarray(r) + alpha) ** k * (1 - disc.cdf(np.asarray(r) - alpha))
    return svt.success_probability(
        r,
        k=k,
        alpha=alpha,
        **_noise(sp),
    )


@dataclass(frozen=True)
class Summary:
    """Headline numbers of one calibrated method."""

    b: float  # threshold-noise scale
    scale: float  # query-noise scale 1/λ
    mean: float  # E[v]: the "mean" correction
    r: float  # the correction in use
    r_op: float  # r^op of Eq. 9
    p_eq8: float  # p(r) of Eq. 8 (fresh ρ per comparison)
    p_shared: float  # the exact p(r) with Algorithm 2's one shared ρ
    p_floor: float  # k^k/(k+1)^(k+1), Theorem 8
    p_at_threshold: float  # P[⊤] for a query exactly at the threshold
    epsilon1: float
    epsilon2: float
    w: float
    V: float


@cached
def summary(epsilon: float, c: int, k: int, alpha: float, noise: str, monotonic: bool, rule: str) -> Summary:
    """Headline numbers: scales, the correction in use, r^op (Eq. 9), p(r) by Eq. 8 and exactly (shared ρ)."""
    sp = calibration(epsilon, c, noise, monotonic)
    r = _correction_r(sp, k, alpha, rule)
    r_op = _correction_r(sp, k, alpha, "optimal")
    return Summary(
        b=sp.threshold_scale,
        scale=sp.query_scale,
        mean=sp.mean_correction,
        r=r,
        r_op=r_op,
        p_eq8=float(_eq8(sp, r, k, alpha)),
        p_shared=float(_shared(sp, r, k, alpha)),
        p_floor=math.exp(k * math.log(k / (k + 1)) - math.log(k + 1)),
        p_at_threshold=float(_acceptance(sp, 0.0, r)),
        epsilon1=sp.epsilon1,
        epsilon2=sp.epsilon2,
        w=sp.w,
        V=sp.variance,
    )


# ---------------------------------------------------------------------------------------------- panel 1–3
def _pdf(noise: str, scale: float, x: np.ndarray) -> np.ndarray:
    dist = {
        "exponential": stats.expon,
        "laplace": stats.laplace,
        "gumbel": stats.gumbel_r,
        "gaussian": stats.norm,
    }
    return dist[noise].pdf(x, scale=scale)


@cached
def noise_zoo(epsilon: float, c: int, noise: str, monotonic: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Panel 1: densities of the threshold noise and of each query noise at its own calibrated scale.

    Returns (long frame x, curve, density; table of w*, ε₁, ε₂, scales, variances and V per method)."""
    splits = {n: calibration(epsilon, c, n, monotonic) for n in NOISES}
    th = splits["exponential"].query_scale
    x = np.linspace(-3 * th, 6 * th, 451)
    sel = splits[noise]
    frames = [
        pd.DataFrame(
            {
                "x": x,
                "curve": f"threshold ρ ~ {sel.threshold_noise}",
                "density": _pdf(sel.threshold_noise, sel.threshold_scale, x),
            }
        )
    ]
    frames += [
        pd.DataFrame({"x": x, "curve": n, "density": _pdf(n, splits[n].query_scale, x)}) for n in NOISES
    ]
    var = {"exponential": 1.0, "laplace": 2.0, "gumbel": math.pi**2 / 6, "gaussian": 1.0}
    table = pd.DataFrame(
        [
            {
                "query noise": n,
                "w*": s.w,
                "ε₁": s.epsilon1,
                "ε₂": s.epsilon2,
                "threshold scale": s.threshold_scale,
                "query scale": s.query_scale,
                "Var ρ": s.variance - var[n] * s.query_scale**2,
                "Var v": var[n] * s.query_scale**2,
                "V = Var ρ + Var v": s.variance,
            }
            for n, s in splits.items()
        ]
    )
    return pd.concat(frames, ignore_index=True), table


@cached
def budget_split(epsilon: float, c: int, monotonic: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Panel 2: V(w)·ε² over w (Eq. 6) for the four families, and ε₁, ε₂ at each w* for the slider's ε."""
    opt = []
    for n in NOISES:
        s = calibration(epsilon, c, n, monotonic)
        opt.append(
            {
                "noise": n,
                "w_star": s.w,
                "V_eps2_star": s.variance_optimal * epsilon**2,
                "epsilon1": s.epsilon1,
                "epsilon2": s.epsilon2,
            }
        )
    return variance_curves(c, monotonic), pd.DataFrame(opt)


@cached
def variance_curves(c: int, monotonic: bool) -> pd.DataFrame:
    """V(w)·ε² over w (Eq. 6) for the four families: evaluated at ε = 1, it does not depend on ε (V ∝ 1/ε²),
    so it is cached without ε and a new ε only recomputes the optima."""
    w = np.geomspace(0.05, max(200.0, 10 * c), 160)
    rows = []
    for n in NOISES:
        v = [
            svt.split_budget(1.0, c=c, noise=n, monotonic=monotonic, w=float(x), delta=_GAUSS_DELTA).variance
            for x in w
        ]
        rows.append(pd.DataFrame({"w": w, "noise": n, "V_eps2": v}))
    return pd.concat(rows, ignore_index=True)


@cached
def manual_split(epsilon: float, c: int, monotonic: bool, w: float) -> pd.DataFrame:
    """Panel 2 (Eq. 6): ε₁, ε₂, scales and V at a hand-picked split w = ε₂/ε₁ for every
    family, against the optimum V* (the ratio is what the manual split costs in comparison variance)."""
    rows = []
    for n in NOISES:
        s = calibration(epsilon, c, n, monotonic, w)
        rows.append(
            {
                "query noise": n,
                "w": w,
                "ε₁": s.epsilon1,
                "ε₂": s.epsilon2,
                "threshold scale": s.threshold_scale,
                "query scale": s.query_scale,
                "V(w)": s.variance,
                "V*": s.variance_optimal,
                "V(w)/V*": s.variance / s.variance_optimal,
            }
        )
    return pd.DataFrame(rows)


def _long_frame(xname: str, x: np.ndarray, losses: dict[str, np.ndarray]) -> pd.DataFrame:
    """Long form (x, noise, loss) of one curve per noise on a shared grid, built column-wise (a concat of
    per-noise frames costs more)."""
    return pd.DataFrame({
        xname: np.tile(x, len(losses)),
        "noise": np.repeat(np.array(list(losses), dtype=object), len(x)),
        "loss": np.concatenate([np.asarray(v, dtype=float) for v in losses.values()]),
    })


@dataclass(frozen=True)
class LossLimits:
    """The allowances the loss profiles are drawn against: ε₂/c per positive answer, ε₁ for the threshold."""

    per_positive: float
    epsilon1: float


@cached
def loss_profiles(epsilon: float, c: int, monotonic: bool) -> tuple[pd.DataFrame, pd.DataFrame, LossLimits]:
    """Panel 3 (Eqs. 4–5): per-positive loss ln S₂(x − 2Δ) − ln S₂(x) of each query noise at the exponential
    method's scale f·cΔ/ε₂, and threshold loss ln f₁(u − Δ) − ln f₁(u) at scale Δ/ε₁."""
    sp = calibration(epsilon, c, "exponential", monotonic)
    shift = 1.0 if monotonic else 2.0
    th = sp.query_scale
    x = np.linspace(-4 * th, 8 * th, 361)
    q = _long_frame(
        "x", x, {n: svt.query_loss_profile(x, noise=n, scale=th, shift=shift) for n in NOISES}
    )
    b = sp.threshold_scale
    u = np.linspace(-6 * b, 6 * b, 361)
    t = _long_frame(
        "u", u, {n: svt.threshold_loss_profile(u, noise=n, scale=b) for n in ("laplace", "gaussian", "exponential")}
    )
    t["loss"] = t["loss"].where(np.isfinite(t["loss"]))
    return q, t, LossLimits(per_positive=sp.epsilon2 / c, epsilon1=sp.epsilon1)


# ---------------------------------------------------------------------------------------------- panel 4–7
@cached
def comparison(
    epsilon: float, c: int, k: int, alpha: float, noise: str, monotonic: bool
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Panel 4: density of Z = v − ρ (closed form for SVT-Exp, FFT framework otherwise) and P[⊤ | q − T = d]
    for r ∈ {0, E[v], r^op} at d ∈ {−θ, 0, θ, 3θ}."""
    sp = calibration(epsilon, c, noise, monotonic)
    b, th = sp.threshold_scale, sp.query_scale
    r_op = _correction_r(sp, k, alpha, "optimal")
    lo, hi = -4 * b - 2 * th if noise != "exponential" else -6 * b, max(r_op + 2 * th, 6 * th)
    z = np.linspace(lo, hi, 501)
    if noise == "exponential":
        dens = svt.comparison_pdf(z, threshold_scale=b, query_scale=th)
    else:
        disc = svt.discretise_comparison(
            b, th, n_bins=2001, query_noise=noise, threshold_noise=sp.threshold_noise
        )
        dens = np.interp(z, disc.z, disc.pmf / disc.width)
    df = pd.DataFrame({"z": z, "density": dens})
    d = np.array([-th, 0.0, th, 3 * th])
    acc: dict[str, Any] = {"count − τ": [number(x, 4) for x in d]}
    for label, r in (
        ("r = 0", 0.0),
        (f"r = mean = {number(sp.mean_correction, 4)}", sp.mean_correction),
        (f"r = r^op = {number(r_op, 4)}", r_op),
    ):
        acc[f"P[yes], {label}"] = _acceptance(sp, d, r)
    return df, pd.DataFrame(acc)


def _acceptance(sp: svt.BudgetSplit, d, r: float) -> np.ndarray:
    """P[⊤ | q − T = d] = P[Z ≥ r − d]; Gumbel through the FFT framework's Γ̄."""
    d = np.asarray(d, dtype=float)
    if sp.noise == "gumbel":
        return 1 - _gumbel_grid(sp.threshold_scale, sp.query_scale).cdf(r - d)
    return svt.acceptance_probability(
        d,
        r=r,
        **_noise(sp),
    )


@dataclass(frozen=True)
class Acceptance:
    """P[⊤] for queries at τ − d, τ and τ + d with the correction r in use."""

    r: float
    below: float
    at: float
    above: float


@cached
def acceptance_at(
    epsilon: float, c: int, k: int, alpha: float, noise: str, monotonic: bool, rule: str, d: float
) -> Acceptance:
    """Panel 4 readouts: P[⊤] at T − d, T and T + d with the correction in use."""
    sp = calibration(epsilon, c, noise, monotonic)
    r = _correction_r(sp, k, alpha, rule)
    below, at, above = (float(x) for x in _acceptance(sp, [-d, 0.0, d], r))
    return Acceptance(r=r, below=below, at=at, above=above)


@cached
def success_curve(epsilon: float, c: int, k: int, alpha: float, noise: str, monotonic: bool) -> pd.DataFrame:
    """Panel 5: p(r) of Eq. 8 and the exact shared-ρ probability over r."""
    sp = calibration(epsilon, c, noise, monotonic)
    r_op = _correction_r(sp, k, alpha, "optimal")
    s = max(sp.threshold_scale, sp.query_scale)
    r = np.linspace(min(-2 * s, r_op - 4 * s), r_op + 4 * s, 121)
    return pd.DataFrame({"r": r, "eq8": _eq8(sp, r, k, alpha), "shared": _shared(sp, r, k, alpha)})


@cached
def rop_vs_k(epsilon: float, c: int, alpha: float, monotonic: bool) -> pd.DataFrame:
    """Panel 6a: SVT-Exp r^op against k for ε/2, ε, 2ε, with the mean θ."""
    ks = np.unique(np.geomspace(1, 5000, 30).astype(int))
    rows = []
    for e in (epsilon / 2, epsilon, 2 * epsilon):
        sp = calibration(e, c, "exponential", monotonic)
        for kk in ks:
            rows.append(
                {
                    "epsilon": e,
                    "k": int(kk),
                    "r_op": _correction_r(sp, int(kk), alpha, "optimal"),
                    "theta": sp.query_scale,
                }
            )
    return pd.DataFrame(rows)


@cached
def rop_vs_epsilon(c: int, k: int, alpha: float, monotonic: bool) -> pd.DataFrame:
    """Panel 6b: r^op·ε and θ·ε against ε — flat at α = 0 (scale invariance)."""
    rows = []
    for e in np.geomspace(0.01, 20.0, 30):
        sp = calibration(float(e), c, "exponential", monotonic)
        rows.append(
            {
                "epsilon": float(e),
                "r_op_eps": _correction_r(sp, k, alpha, "optimal") * e,
                "theta_eps": sp.query_scale * e,
            }
        )
    return pd.DataFrame(rows)


@cached
def rop_vs_alpha(epsilon: float, c: int, k: int, monotonic: bool) -> pd.DataFrame:
    """Panel 6c: r^op against α — V-shaped when θ > b (the paper's "larger α, smaller r^op" holds for small α only)."""
    sp = calibration(epsilon, c, "exponential", monotonic)
    a = np.linspace(0.0, 4 * sp.query_scale, 41)
    return pd.DataFrame(
        {"alpha": a, "r_op": [_correction_r(sp, k, float(x), "optimal") for x in a], "theta": sp.query_scale}
    )


AB_METHODS = {  # Fig. 3 curves: label → (query noise, correction rule)
    "SVT-Exp + r^op": ("exponential", "optimal"),
    "SVT-Exp, r = 0": ("exponential", "none"),
    "SVT-Exp, r = mean": ("exponential", "mean"),
    "SVT-Lap": ("laplace", "none"),
    "SVT-Gumbel + mean": ("gumbel", "mean"),
    "SVT-Gau": ("gaussian", "none"),
}


def _alpha_beta(splits: dict[str, svt.BudgetSplit], k: int, alphas: np.ndarray) -> pd.DataFrame:
    """β = 1 − p at each α, Eq. 8 (:func:`_eq8`) and exact (shared ρ); each method's (r, α) pairs in one
    call."""
    a = np.asarray(alphas, dtype=float)
    frames = []
    for label, (n, rule) in AB_METHODS.items():
        sp = splits[n]
        r = np.array([_correction_r(sp, k, float(x), rule) for x in a])
        # Gumbel's Γ̄^k one α at a time, as summary() computes it: numpy's power of a scalar and of an array
        # can differ in the last bit
        if sp.noise == "gumbel":
            p8 = np.array([float(_eq8(sp, float(ri), k, float(x))) for ri, x in zip(r, a, strict=True)])
        else:
            p8 = np.asarray(_eq8(sp, r, k, a), dtype=float)
        frames.append(
            pd.DataFrame(
                {
                    "method": label,
                    "alpha": a,
                    "r": r,
                    "beta_eq8": 1 - p8,
                    "beta_exact": 1 - np.asarray(_shared(sp, r, k, a), dtype=float),
                }
            )
        )
    df = pd.concat(frames, ignore_index=True)
    df[["beta_eq8", "beta_exact"]] = df[["beta_eq8", "beta_exact"]].clip(lower=1e-12)
    return df


@cached(show_spinner="Computing (α, β) curves …")
def alpha_beta(epsilon: float, c: int, k: int, monotonic: bool) -> pd.DataFrame:
    """Panel 7: β(α) = 1 − p for the Fig. 3 methods at the slider's calibration, Eq. 8 and exact shared ρ."""
    splits = {n: calibration(epsilon, c, n, monotonic) for n in NOISES}
    return _alpha_beta(splits, k, np.linspace(0.0, 8 * splits["exponential"].query_scale, 17))


@dataclass(frozen=True)
class Theorem4:
    """The α that (α, β)-accuracy needs: Theorem 4 as printed, its proof done right, and exact values."""

    printed: float  # 4(ln k + ln 2/β)/ε
    corrected: float  # 8(ln k + ln 2/β)/ε, what the union bound of App. C gives
    exp_rop: float  # exact, SVT-Exp with r^op
    exp_r0: float  # exact, SVT-Exp with r = 0
    lap_r0: float  # exact, SVT-Lap
    beta: float


@cached
def theorem4(epsilon: float, k: int, beta: float = 0.1) -> Theorem4:
    """Theorem 4 (c = 1, ε₁ = ε₂ = ε/2): printed 4(ln k + ln 2/β)/ε, the corrected union bound 8(…)/ε and the
    exact α needed (shared ρ) by SVT-Exp with r^op and r = 0 and by SVT-Lap."""
    exp = svt.split_budget(epsilon, c=1, w=1.0)
    lap = svt.split_budget(epsilon, c=1, w=1.0, noise="laplace")
    r_op = svt.correction_term(exp.threshold_scale, exp.query_scale, k=k).r
    kw: dict[str, Any] = dict(threshold_scale=exp.threshold_scale, query_scale=exp.query_scale)
    return Theorem4(
        printed=svt.accuracy_bound(k, beta, epsilon, variant="as_printed"),
        corrected=svt.accuracy_bound(k, beta, epsilon),
        exp_rop=svt.accuracy_alpha(beta, k=k, r=r_op, **kw),
        exp_r0=svt.accuracy_alpha(beta, k=k, r=0.0, **kw),
        lap_r0=svt.accuracy_alpha(
            beta, k=k, threshold_scale=lap.threshold_scale, query_scale=lap.query_scale, query_noise="laplace"
        ),
        beta=beta,
    )


def accuracy_panel(epsilon: float, c: int, k: int, monotonic: bool) -> tuple[pd.DataFrame, Theorem4]:
    """Panel 7 as one background job (:mod:`app.background`; too slow for a rerun on a new ε,
    bench/results-where-time-goes.md): the (α, β) curves of
    :func:`alpha_beta` (Fig. 3) and the α of Theorem 4 (:func:`theorem4`)."""
    return alpha_beta.__wrapped__(epsilon, c, k, monotonic), theorem4.__wrapped__(epsilon, k)


# ---------------------------------------------------------------------------------------------- panel 8–9
def live_queue_size(c: int, k: int) -> int:
    """Items in the live-run queue: c·k (so k = ⌊n/c⌋ as in the paper), at least 20, at most 500."""
    return int(min(max(c * k, 20), LIVE_MAX_ITEMS))


@dataclass(frozen=True)
class LiveRun:
    """What one seeded SVT run did (its comparisons are the frame returned beside it)."""

    n_items: int
    n_comparisons: int
    n_positive: int
    halted: str  # "cutoff" | "k_max" | "exhausted"
    correction: float
    epsilon_spent: float
    threshold_draws: int
    passes: int
    true_positives_selected: int


@cached
def live_run(
    epsilon: float,
    c: int,
    k: int,
    alpha: float,
    threshold: float,
    noise: str,
    monotonic: bool,
    append: bool,
    traverses: int,
    resample: bool,
    rule: str,
    seed: int,
    k_max: int = 10_000,
) -> tuple[pd.DataFrame, LiveRun]:
    """Panel 8: one seeded run of SVT on a shuffled Zipf queue s_i = T·c/i (exactly c items ≥ T; the paper's
    Zipf set when c = 50, T = 200), every comparison recorded, stopped after at most ``k_max`` comparisons
    (Algorithm 2's k_max). Returns (comparisons, summary)."""
    n = live_queue_size(c, k)
    rng = np.random.default_rng(seed)
    scores = dpdata.zipf_scores(n, scale=threshold * c)[rng.permutation(n)]
    sp = calibration(epsilon, c, noise, monotonic)
    run = svt.run_svt(
        scores,
        threshold=threshold,
        epsilon=epsilon,
        c=c,
        noise=noise,
        correction=_correction_r(sp, k, alpha, rule),
        append=append,
        traverses=traverses if append else None,
        resample=resample,
        rng=rng,
        k=k,
        alpha=alpha,
        monotonic=monotonic,
        k_max=k_max,
        delta=_GAUSS_DELTA,
    )
    comp = run.comparisons.drop(columns=["threshold"])
    comp["true_positive"] = comp["answer"] >= threshold
    comp["n_positive"] = comp["positive"].cumsum()  # counters after each comparison: a step is a lookup
    comp["n_true_selected"] = (comp["positive"] & comp["true_positive"]).cumsum()
    info = LiveRun(
        n_items=n,
        n_comparisons=run.n_comparisons,
        n_positive=run.n_positive,
        halted=run.halted,
        correction=run.correction,
        epsilon_spent=run.epsilon_spent,
        threshold_draws=run.n_threshold_draws,
        passes=int(comp["pass"].max()) if len(comp) else 0,
        true_positives_selected=int(comp.loc[comp["positive"], "true_positive"].sum()),
    )
    return comp, info


@dataclass(frozen=True)
class AppendingGap:
    """Where the paper's t·p is furthest from the exact chance of being selected within t passes."""

    d: float  # q − τ
    paper: float  # t·p
    exact: float  # E_ρ[1 − F(ρ + r − d)^t], one shared ρ
    independent: float  # 1 − (1 − p)^t, fresh ρ per pass
    r: float


@cached
def appending(
    epsilon: float, c: int, k: int, alpha: float, monotonic: bool, traverses: int
) -> tuple[pd.DataFrame, AppendingGap]:
    """Panel 9 (§4.4): P[selected within t passes] vs d = q − T, t ∈ {1, 2, 5, 10, slider}:
    exact shared ρ, fresh-ρ 1 − (1 − p)^t and the paper's t·p; and the worst gap of t·p at the slider's t."""
    sp = calibration(epsilon, c, "exponential", monotonic)
    r = _correction_r(sp, k, alpha, "optimal")
    kw = dict(r=r, threshold_scale=sp.threshold_scale, query_scale=sp.query_scale)
    d = np.linspace(r - 4 * sp.query_scale, r + 3 * sp.query_scale, 71)
    rows = []
    for t in sorted({1, 2, 5, 10, traverses}):
        frame = {"d": d, "t": t}
        for v in ("shared", "independent", "as_printed"):
            frame[v] = svt.appending_probability(d, traverses=t, variant=v, **kw)
        rows.append(pd.DataFrame(frame))
    df = pd.concat(rows, ignore_index=True)
    at = df[df["t"] == traverses].reset_index(drop=True)
    reach = np.flatnonzero(at["as_printed"].to_numpy() >= 1.0)  # where t·p first claims certain selection
    if traverses == 1:  # t·p is exact for one pass: report the query at the threshold
        i = int(np.argmin(np.abs(at["d"].to_numpy())))
    else:
        i = int(reach[0]) if reach.size else int(np.argmax((at["as_printed"] - at["shared"]).to_numpy()))
    row = at.iloc[i]
    return df, AppendingGap(
        d=float(row["d"]),
        paper=float(row["as_printed"]),
        exact=float(row["shared"]),
        independent=float(row["independent"]),
        r=r,
    )


# ---------------------------------------------------------------------------------------------- panel 11–12
@dataclass(frozen=True)
class Grid:
    """The closed-form r^op and the grid of the numerical framework: half-width B and bin width u."""

    r_op: float
    B: float
    u: float


@cached
def numeric_framework(
    epsilon: float, c: int, k: int, alpha: float, monotonic: bool, n_bins: int, tail_mass: float = 1e-8
) -> tuple[pd.DataFrame, pd.DataFrame, Grid]:
    """Panel 11 / Figs. 9, 17 (Algorithms 3/4): the discretised pmfs at ``n_bins`` against the exact Γ, and
    r̄^op, its error, the RMS error of p̄ over r ∈ [−5θ, 20θ] and the runtime for every bin count; the
    tail mass e sets the grid's half-width B (the (1 − e)-quantile, Alg. 3 line 1)."""
    sp = calibration(epsilon, c, "exponential", monotonic)
    b, th = sp.threshold_scale, sp.query_scale
    exact = svt.correction_term(b, th, k=k, alpha=alpha).r
    r = np.linspace(-5 * th, 20 * th, 2001)
    p_exact = svt.success_probability(r, k=k, alpha=alpha, threshold_scale=b, query_scale=th)
    rows = []
    for m in BIN_GRID:
        runtime = math.inf
        for _ in range(3):  # best of three: the machine is shared
            t0 = time.perf_counter()
            corr = svt.correction_term(
                b, th, k=k, alpha=alpha, method="numeric", n_bins=m, tail_mass=tail_mass
            )
            runtime = min(runtime, time.perf_counter() - t0)
        disc = svt.discretise_comparison(b, th, n_bins=m, tail_mass=tail_mass)
        p_num = disc.cdf(r + alpha) ** k * (1 - disc.cdf(r - alpha))
        rows.append(
            {
                "n_bins": m,
                "r_op_numeric": corr.r,
                "abs_error": abs(corr.r - exact),
                "rms_error_p": float(np.sqrt(np.mean((p_num - p_exact) ** 2))),
                "runtime_ms": 1e3 * runtime,
            }
        )
    disc = svt.discretise_comparison(b, th, n_bins=n_bins, tail_mass=tail_mass)
    shown = (disc.z >= -6 * b) & (disc.z <= max(exact + 3 * th, 8 * th))
    step = max(1, int(shown.sum()) // 800)
    zs = disc.z[shown][::step]
    pmf = pd.DataFrame(
        {
            "z": zs,
            "numeric_density": (disc.pmf / disc.width)[shown][::step],
            "numeric_cdf": disc.cdf(zs),
            "exact_cdf": svt.comparison_cdf(zs, threshold_scale=b, query_scale=th),
            "exact_density": svt.comparison_pdf(zs, threshold_scale=b, query_scale=th),
        }
    )
    return pmf, pd.DataFrame(rows), Grid(r_op=exact, B=disc.bound, u=disc.width)


@dataclass(frozen=True)
class Accountant:
    """The budget of one SVT run: the split, and the total ε with one threshold noise or a redraw per ⊤."""

    epsilon1: float
    epsilon2: float
    b: float
    scale: float
    w: float
    off: float  # ε₁ + ε₂
    on: float  # c·ε₁ + ε₂ (redraw after every ⊤), Theorem 3 as its proof gives
    on_as_printed: float  # c·ε₁, reading Theorem 3's "(cε₁, ε₂)-DP" as (ε, δ)
    mono_misuse: float  # ε₁ + 2ε₂: the loss of the monotonic calibration on non-monotonic queries
    delta: float
    pure: bool


def accountant(epsilon: float, c: int, noise: str, monotonic: bool) -> Accountant:
    """Panel 12: ε₁, ε₂, scales and the total ε, RESAMPLE off / on (Theorem 3 read as its proof gives: c·ε₁ + ε₂)."""
    sp = calibration(epsilon, c, noise, monotonic)
    return Accountant(
        epsilon1=sp.epsilon1,
        epsilon2=sp.epsilon2,
        b=sp.threshold_scale,
        scale=sp.query_scale,
        w=sp.w,
        off=sp.total_epsilon(False),
        on=sp.total_epsilon(True),
        on_as_printed=c * sp.epsilon1,
        mono_misuse=sp.epsilon1 + 2 * sp.epsilon2,
        delta=sp.delta,
        pure=sp.pure,
    )

