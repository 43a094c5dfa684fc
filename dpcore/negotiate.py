"""Negotiate a budget: the smallest ε each mechanism of the app needs for a stated accuracy, and back.

A requirement is one of

* ``"error"``: P(|output − true| ≤ θ) ≥ p (an absolute error bound θ with confidence p);
* ``"relative"``: the same with θ = α·|x| for a true value x (relative error α); noise reduction answers it
  with its own relative-error stopping rule (noise_reduction spec §2.11) and is charged its ex-post ε;
* ``"topc"``: SVT's success probability (svt spec §3.2, Eq. 8 with one shared threshold noise, i.e. the exact
  p_sh): k queries θ below the threshold are all rejected and the next query θ above it is accepted, with the
  query-noise scale of cutoff c (spec §1.15, non-monotonic calibration).

Accuracy of each mechanism at ε: Laplace 1 − e^{−εθ/Δ}; Gaussian 2Φ(θ/σ) − 1 with the analytic σ(ε, δ)
(Balle & Wang 2018); BR-DP the acceptance p_θ/(1 − p̄_θ q) of the optimised plan (brdp spec §5.1, eq. 9) under
the exact accountant and, separately, the paper's (which can under-report δ, spec §4.8); R²DP the usefulness
1 − M(−γ) of the best paper family and of the two-point optimum (r2dp spec §4.1, §4.5); the staircase
mechanism's optimal usefulness (r2dp spec §7). The inverse is a geometric bisection in ε of a monotone
accuracy (optimal plans at a larger ε include those at a smaller one), closed form where there is one.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import special, stats

from dpcore import _validate as _v
from dpcore import accounting as _acct
from dpcore import brdp as _brdp
from dpcore import noise_reduction as _nr
from dpcore import r2dp as _r2dp
from dpcore import svt as _svt

__all__ = [
    "MECHANISMS",
    "LABELS",
    "REQUIREMENTS",
    "Requirement",
    "make_requirement",
    "accuracy",
    "epsilon_for_accuracy",
    "accuracy_for_epsilon",
    "accuracy_curves",
    "NoiseReductionCost",
    "noise_reduction_cost",
]

Kind = Literal["error", "relative", "topc"]
REQUIREMENTS = ("error", "relative", "topc")

#: Every mechanism of the app, in table order.
MECHANISMS = (
    "laplace",
    "gaussian",
    "brdp",
    "brdp_paper",
    "r2dp",
    "r2dp_two_point",
    "staircase",
    "noise_reduction",
    "svt_exp",
    "svt_laplace",
)

LABELS = {
    "laplace": "Laplace",
    "gaussian": "Gaussian",
    "brdp": "BR-DP (exact accountant)",
    "brdp_paper": "BR-DP (paper's accountant)",
    "r2dp": "R²DP (best paper family)",
    "r2dp_two_point": "R²DP (two-point optimum)",
    "staircase": "Staircase",
    "noise_reduction": "Laplace noise reduction (expected ex-post ε)",
    "svt_exp": "SVT, exponential noise + optimal correction",
    "svt_laplace": "SVT, Laplace noise (no correction)",
}

_NOISE = ("laplace", "gaussian", "brdp", "brdp_paper", "r2dp", "r2dp_two_point", "staircase")
_SVT = ("svt_exp", "svt_laplace")
_R2DP_FAMILIES = ("gamma", "uniform", "truncated_normal", "gamma+truncated_normal")
_RTOL = 1e-5  # relative width of the final ε bracket of every bisection


@dataclass(frozen=True)
class Requirement:
    """A stakeholder's accuracy requirement (validated by :func:`requirement`)."""

    kind: str
    theta: float  # error bound (kind "error"), SVT margin (kind "topc")
    confidence: float  # p: probability the bound must hold with / SVT success probability
    sensitivity: float
    delta: float  # δ for the Gaussian and BR-DP rows
    alpha: float  # relative error (kind "relative")
    value: float  # |x|, the true value the relative error refers to
    c: int  # SVT cutoff
    k: int  # SVT: queries below the threshold before each one above
    kernel: str  # BR-DP kernel
    cap: float  # largest ε considered

    @property
    def bound(self) -> float:
        """The absolute error bound the noise-adding mechanisms must meet: θ, or α|x| for a relative error."""
        return self.alpha * self.value if self.kind == "relative" else self.theta


def make_requirement(
    *,
    requirement: str = "error",
    theta: float = 1.0,
    confidence: float = 0.95,
    sensitivity: float = 1.0,
    delta: float = 1e-5,
    alpha: float = 0.1,
    value: float = 100.0,
    c: int = 1,
    k: int = 50,
    kernel: str = "gaussian",
    cap: float = 50.0,
) -> Requirement:
    """Validate and bundle a requirement (see the module docstring for the three kinds)."""
    return Requirement(
        kind=_v.choice("requirement", requirement, REQUIREMENTS),
        theta=_v.positive("theta", theta),
        confidence=_v.probability("confidence", confidence, low_open=True, high_open=True),
        sensitivity=_v.positive("sensitivity", sensitivity),
        delta=_v.probability("delta", delta, low_open=True, high_open=True),
        alpha=_v.real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True),
        value=_v.positive("value", value),
        c=_v.integer("c", c, low=1, high=10_000),
        k=_v.integer("k", k, low=1, high=1_000_000),
        kernel=_v.choice("kernel", kernel, ("gaussian", "laplace")),
        cap=_v.real("cap", cap, low=1e-3, high=1000.0),
    )


def _applicable(mech: str, req: Requirement) -> tuple[bool, str]:
    if req.kind == "topc":
        if mech in _SVT:
            return True, ""
        return False, "Not a selection mechanism: it releases a number, not which queries are above a threshold."
    if mech in _SVT:
        return False, "SVT only says which queries are above a threshold; choose the top-c requirement."
    if mech == "noise_reduction" and req.kind != "relative":
        return False, "Noise reduction stops by a relative-error rule; choose the relative-error requirement."
    return True, ""


# ----------------------------------------------------------------------------------------------------------
# accuracy of one mechanism at one ε
# ----------------------------------------------------------------------------------------------------------


def _svt_success(eps: float, req: Requirement, noise: str) -> tuple[float, float]:
    """(exact shared-threshold success probability, correction r) of SVT at ε (spec §1.15, §3.2 item 6)."""
    sp = _svt.split_budget(eps, c=req.c, noise=noise, sensitivity=req.sensitivity)
    if noise == "exponential":
        r = _svt.correction_term(sp.threshold_scale, sp.query_scale, k=req.k, alpha=req.theta).r
    else:
        r = 0.0
    p = _svt.shared_success_probability(r, k=req.k, alpha=req.theta, threshold_scale=sp.threshold_scale,
                                        query_scale=sp.query_scale, query_noise=noise)
    return float(p), float(r)


def _brdp_plan(eps: float, req: Requirement, accountant: str) -> _brdp.BRDPPlan:
    return _brdp_plan_cached(float(eps), float(req.delta), float(req.sensitivity), float(req.bound), req.kernel,
                             accountant)


@functools.lru_cache(maxsize=1024)
def _brdp_plan_cached(eps: float, delta: float, sensitivity: float, bound: float, kernel: str,
                      accountant: str) -> _brdp.BRDPPlan:
    """brdp.optimize memoised by its scalars (a bisection and the reverse table ask for the same plans again)."""
    return _brdp.optimize(epsilon=eps, delta=delta, sensitivity=sensitivity, theta=bound, kernel=kernel,
                          accountant=accountant)


def _r2dp_best(eps: float, req: Requirement, families: Sequence[str]) -> tuple[float, str]:
    return _r2dp_best_cached(float(eps), float(req.bound), float(req.sensitivity), tuple(families))


@functools.lru_cache(maxsize=1024)
def _r2dp_best_cached(eps: float, bound: float, sensitivity: float, families: tuple[str, ...]) -> tuple[float, str]:
    """Best U(θ) over the R²DP families and its name ("Laplace" when no family beats it).

    Shortcut: when the optimal staircase is no better than Laplace (θ a whole multiple of Δ, r2dp spec §7), no
    ε-DP additive noise — so no R²DP law — beats Laplace, and every family optimum is Laplace's own U (ties count
    as Laplace in :func:`dpcore.r2dp.optimize`): return it without running Alg. 1.
    """
    lap = float(_r2dp.usefulness(_r2dp.Dirac(eps / sensitivity), gamma=bound))
    if float(_r2dp.staircase_usefulness(eps, gamma=bound, sensitivity=sensitivity)) <= lap:
        return lap, "Laplace"
    best, name = -1.0, ""
    for fam in families:
        res = _r2dp.optimize(epsilon=eps, gamma=bound, sensitivity=sensitivity, family=fam)
        if res.usefulness > best:
            best, name = res.usefulness, ("Laplace" if res.laplace_optimal else fam)
    return best, name


def _accuracy(mech: str, eps: float, req: Requirement) -> float:
    th, d = req.bound, req.sensitivity
    if mech == "laplace":
        return float(-math.expm1(-eps * th / d))
    if mech == "gaussian":
        sigma = _acct.gaussian_sigma(eps, req.delta, sensitivity=d)
        return float(special.erf(th / (sigma * math.sqrt(2.0))))
    if mech == "brdp":
        return _brdp_plan(eps, req, "exact").acceptance
    if mech == "brdp_paper":
        return _brdp_plan(eps, req, "paper").acceptance
    if mech == "r2dp":
        return _r2dp_best(eps, req, _R2DP_FAMILIES)[0]
    if mech == "r2dp_two_point":
        return _r2dp_best(eps, req, ("two_point",))[0]
    if mech == "staircase":
        return float(_r2dp.staircase_usefulness(eps, gamma=th, sensitivity=d))
    if mech == "svt_exp":
        return _svt_success(eps, req, "exponential")[0]
    if mech == "svt_laplace":
        return _svt_success(eps, req, "laplace")[0]
    raise ValueError(f"mechanism must be one of {', '.join(MECHANISMS)}; got {mech!r}")


def accuracy(mechanism: str, epsilon: float, **kwargs) -> float:
    """Accuracy one mechanism delivers at ε for a requirement (keyword arguments of :func:`make_requirement`).

    P(|noise| ≤ θ) for the noise-adding mechanisms, SVT's exact success probability for ``"topc"``.
    Noise reduction has no fixed-ε accuracy: use :func:`noise_reduction_cost`.
    """
    mech = _v.choice("mechanism", mechanism, tuple(m for m in MECHANISMS if m != "noise_reduction"))
    eps = _v.positive("epsilon", epsilon)
    return _accuracy(mech, eps, make_requirement(**kwargs))


# ----------------------------------------------------------------------------------------------------------
# noise reduction (Laplace, Koufogiannis et al.; noise_reduction spec §2.11, §3.4)
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
    *, alpha: float, value: float, sensitivity: float = 1.0, cap: float = 50.0, n_runs: int = 2000,
    rng: np.random.Generator | int | None = 0,
) -> NoiseReductionCost:
    """Expected ex-post ε of Laplace noise reduction stopped by the relative-error rule (Monte Carlo).

    Levels geomspace(cap·1e-6, cap, 601); the ex-post loss of a run stopped at ε_T is at most ε_T (Lemma A.1),
    so E[ε_T] is the expected ex-post ε; the ex-ante (worst-case) ε is ``cap``. Stopping rule: spec §2.11.
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
# ε for an accuracy
# ----------------------------------------------------------------------------------------------------------


def _meets(acc: Callable[[float], float], eps: float, p: float) -> bool:
    try:
        return acc(eps) >= p
    except ValueError:  # e.g. an optimiser that has no feasible plan at a tiny ε
        return False


def _smallest_epsilon(acc: Callable[[float], float], p: float, cap: float, lo: float, hi: float) -> float:
    """Smallest ε ≤ cap with acc(ε) ≥ p (acc non-decreasing): bracket, then geometric bisection to 1e-5."""
    hi = min(hi, cap)
    if not _meets(acc, hi, p):
        if hi >= cap or not _meets(acc, cap, p):
            return math.inf
        lo, hi = hi, cap
    lo = min(lo, hi)
    while _meets(acc, lo, p):
        if lo < 1e-9:
            return lo
        hi, lo = lo, lo / 16.0
    while hi / lo > 1.0 + _RTOL:
        mid = math.sqrt(lo * hi)
        if _meets(acc, mid, p):
            hi = mid
        else:
            lo = mid
    return hi


def _row(mech: str, **kw) -> dict:
    base = {"mechanism": mech, "label": LABELS[mech], "variant": "—", "applicable": True, "epsilon": math.nan,
            "delta": 0.0, "accuracy": math.nan, "target": math.nan, "meets": False, "sound": True,
            "exact_delta": math.nan, "reason": "", "note": ""}
    base.update(kw)
    return base


def _laplace_eps(req: Requirement) -> float:
    """Closed form ε = Δ ln(1/(1 − p))/θ."""
    return -req.sensitivity * math.log1p(-req.confidence) / req.bound


def _gaussian_eps(req: Requirement) -> tuple[float, float]:
    """σ = θ/Φ⁻¹((1+p)/2) and the smallest ε with δ_G(ε; σ) ≤ δ."""
    sigma = req.bound / float(stats.norm.ppf((1.0 + req.confidence) / 2.0))
    eps = float(_acct.gaussian_epsilon(req.delta, sigma=sigma, sensitivity=req.sensitivity))
    return max(eps, 0.0), sigma


def _forward_row(mech: str, req: Requirement, n_runs: int, seed: int) -> dict:
    ok, why = _applicable(mech, req)
    if not ok:
        return _row(mech, applicable=False, reason=why, sound=True)
    p, th, d = req.confidence, req.bound, req.sensitivity
    bound_txt = f"±{th:.4g}" + (f" (= {req.alpha:g}·{req.value:g})" if req.kind == "relative" else "")
    variant = "paper" if mech == "brdp_paper" else "exact"
    if mech == "laplace":
        eps = _laplace_eps(req)
        reason = f"Lap(Δ/ε) noise lands within {bound_txt} with probability 1 − e^(−εθ/Δ); solved exactly."
        delta = 0.0
    elif mech == "gaussian":
        eps, sigma = _gaussian_eps(req)
        reason = (f"Needs σ = θ/z = {sigma:.4g} (z the {(1 + p) / 2:.4g}-quantile of N(0,1)); smallest ε with "
                  f"δ(ε) ≤ {req.delta:g} for that σ (analytic Gaussian).")
        delta = req.delta
    elif mech == "noise_reduction":
        cost = noise_reduction_cost(alpha=req.alpha, value=req.value, sensitivity=d, cap=req.cap,
                                    n_runs=n_runs, rng=seed)
        meets = cost.success >= p
        return _row(
            mech, variant="exact", epsilon=cost.expected_epsilon, delta=0.0, accuracy=cost.success, target=p,
            meets=meets, sound=True,
            reason=(f"Starts very private and removes noise until the answer looks within {req.alpha:g} relative "
                    f"error; you pay the ex-post ε where it stops, on average {cost.expected_epsilon:.4g} "
                    f"± {cost.standard_error:.2g} (s.e., {cost.runs} seeded runs)."),
            note=(f"The stopping rule is a heuristic: right {100 * cost.success:.1f} % ± {100 * cost.success_se:.1f} "
                  f"% of the time here{'' if meets else ', below the requested confidence'}; worst case "
                  f"(ex-ante) ε = {cost.cap:g}."),
        )
    else:
        acc = lambda e: _accuracy(mech, e, req)  # noqa: E731
        eps_lap = _laplace_eps(req)
        if mech in ("r2dp", "r2dp_two_point", "staircase") and not _meets(acc, eps_lap * (1 - _RTOL), p):
            # they dominate Laplace (a Dirac law is Laplace; the staircase is optimal, r2dp spec §7): when they do
            # not beat it just below Laplace's ε, Laplace's closed-form ε is theirs (θ a multiple of Δ, or small ε)
            eps = eps_lap
        elif mech in ("r2dp", "r2dp_two_point", "staircase"):
            # staircase is the optimal ε-DP additive noise (r2dp spec §7) and R²DP is never below Laplace
            lo = 0.999 * _smallest_epsilon(
                lambda e: float(_r2dp.staircase_usefulness(e, gamma=th, sensitivity=d)), p, req.cap,
                eps_lap / 64, eps_lap) if mech != "staircase" else eps_lap / 64
            eps = _smallest_epsilon(acc, p, req.cap, lo, eps_lap * 1.001)
        elif mech == "brdp":
            # Prop. 4: the exact optimum is never below the plain kernel at the full budget
            kernel_eps = _gaussian_eps(req)[0] if req.kernel == "gaussian" else eps_lap + 2 * math.log1p(-req.delta)
            eps = _smallest_epsilon(acc, p, req.cap, kernel_eps / 8, max(kernel_eps, 1e-6) * 1.001)
        elif mech == "brdp_paper":
            eps = _smallest_epsilon(acc, p, req.cap, eps_lap / 32, eps_lap * 2)
        else:  # SVT
            eps = _smallest_epsilon(acc, p, req.cap, 0.01, 2.0)
        delta = req.delta if mech in ("brdp", "brdp_paper") else 0.0
        reason = _reason(mech, req, bound_txt)
    if not math.isfinite(eps) or eps > req.cap:
        return _row(mech, variant=variant, epsilon=math.inf, delta=delta, target=p, meets=False,
                    accuracy=_safe_acc(mech, req.cap, req),
                    reason=f"Cannot reach {p:g} at any ε ≤ {req.cap:g}: {_why_never(mech, req)}")
    row = _row(mech, variant=variant, epsilon=eps, delta=delta, target=p, reason=reason)
    row["accuracy"] = p if mech in ("laplace", "gaussian") else _accuracy(mech, eps, req)
    row["meets"] = row["accuracy"] >= p * (1 - 1e-9)
    if mech in ("brdp", "brdp_paper"):
        plan = _brdp_plan(eps, req, "exact" if mech == "brdp" else "paper")
        row["exact_delta"] = plan.exact_delta
        row["sound"] = plan.sound
        row["note"] = (f"ε_y = {plan.epsilon_y:.4g}, q = {plan.q:.4g}; exact δ of this plan = {plan.exact_delta:.3g}"
                       + ("" if plan.sound else f" — {plan.exact_delta / req.delta:.3g}× the stated δ: the paper's "
                          "accountant under-reports the privacy loss"))
    elif mech == "r2dp":
        row["note"] = f"best law: {_r2dp_best(eps, req, _R2DP_FAMILIES)[1]}"
    elif mech in _SVT:
        pr, r = _svt_success(eps, req, "exponential" if mech == "svt_exp" else "laplace")
        row["note"] = f"threshold correction r = {r:.4g}; margin θ = {req.theta:g}, c = {req.c}, k = {req.k}"
    return row


def _safe_acc(mech: str, eps: float, req: Requirement) -> float:
    try:
        return _accuracy(mech, eps, req)
    except ValueError:
        return math.nan


def _reason(mech: str, req: Requirement, bound_txt: str) -> str:
    return {
        "brdp": f"Redraws answers outside {bound_txt} (budget recycling); smallest ε whose best plan reaches the "
                "confidence with δ checked by the exact accountant.",
        "brdp_paper": "Same search with the paper's accountant (Alg. 1–2, Prop. 2), which can under-report δ.",
        "r2dp": "Laplace noise with a random scale: best of the paper's Gamma, uniform, truncated-normal laws "
                "and their combination (Laplace when none beats it).",
        "r2dp_two_point": "The best random Laplace scale of all: a two-point law (r2dp spec §4.5).",
        "staircase": "The optimal ε-DP additive noise for this target (Geng–Viswanath staircase).",
        "svt_exp": f"Exponential query noise, threshold raised by the optimal correction; {req.k} queries "
                   f"{req.theta:g} below are all rejected and the next one {req.theta:g} above is accepted.",
        "svt_laplace": "Laplace query noise and no correction (Lyu et al.), same success event.",
    }[mech]


def _why_never(mech: str, req: Requirement) -> str:
    if mech in _SVT:
        return "even at that ε the noisy comparisons near the threshold fail too often."
    return "it still adds too much noise at that budget."


def epsilon_for_accuracy(
    *,
    requirement: str = "error",
    theta: float = 1.0,
    confidence: float = 0.95,
    sensitivity: float = 1.0,
    delta: float = 1e-5,
    alpha: float = 0.1,
    value: float = 100.0,
    c: int = 1,
    k: int = 50,
    kernel: str = "gaussian",
    cap: float = 50.0,
    mechanisms: Sequence[str] | None = None,
    n_runs: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """The smallest ε (and δ) at which each mechanism meets the requirement, one row per mechanism.

    Columns: mechanism, label, variant (exact/paper), applicable, epsilon (inf: not reachable at ε ≤ cap),
    delta, accuracy (at that ε), target, meets, sound (False where the paper's accountant under-reports δ),
    exact_delta (BR-DP rows), reason (one line), note. Noise reduction: its expected ex-post ε (Monte Carlo,
    ``n_runs`` runs seeded by ``seed``).
    """
    req = make_requirement(
        requirement=requirement, theta=theta, confidence=confidence, sensitivity=sensitivity, delta=delta,
        alpha=alpha, value=value, c=c, k=k, kernel=kernel, cap=cap)
    mechs = _mechs(mechanisms)
    n = _v.integer("n_runs", n_runs, low=2)
    s = _v.integer("seed", seed, low=0)
    return pd.DataFrame([_forward_row(m, req, n, s) for m in mechs])


def _mechs(mechanisms: Sequence[str] | None) -> tuple[str, ...]:
    if mechanisms is None:
        return MECHANISMS
    if isinstance(mechanisms, str):
        mechanisms = (mechanisms,)
    return tuple(_v.choice("mechanisms", m, MECHANISMS) for m in mechanisms)


# ----------------------------------------------------------------------------------------------------------
# accuracy for an ε
# ----------------------------------------------------------------------------------------------------------


def _reverse_row(mech: str, eps: float, req: Requirement, n_runs: int, seed: int) -> dict:
    ok, why = _applicable(mech, req)
    if not ok:
        return _row(mech, applicable=False, reason=why)
    p = req.confidence
    if mech == "noise_reduction":
        cost = noise_reduction_cost(alpha=req.alpha, value=req.value, sensitivity=req.sensitivity, cap=eps,
                                    n_runs=n_runs, rng=seed)
        return _row(mech, variant="exact", epsilon=cost.expected_epsilon, delta=0.0, accuracy=cost.success,
                    target=p, meets=cost.success >= p,
                    reason=f"With ε = {eps:g} as the worst case it spends {cost.expected_epsilon:.4g} on average "
                           f"(ex-post, ± {cost.standard_error:.2g}); the rule fired in {100 * cost.fired:.1f} % of runs.",
                    note=f"Monte Carlo, {cost.runs} seeded runs; accuracy ± {cost.success_se:.2g} (s.e.).")
    acc = _safe_acc(mech, eps, req)
    row = _row(mech, variant="paper" if mech == "brdp_paper" else "exact", epsilon=eps,
               delta=req.delta if mech in ("gaussian", "brdp", "brdp_paper") else 0.0, accuracy=acc, target=p,
               meets=bool(acc >= p), reason=_reverse_reason(mech, req))
    if mech in ("brdp", "brdp_paper"):
        plan = _brdp_plan(eps, req, "exact" if mech == "brdp" else "paper")
        row["exact_delta"], row["sound"] = plan.exact_delta, plan.sound
        if not plan.sound:
            row["note"] = (f"exact δ = {plan.exact_delta:.3g} ({plan.exact_delta / req.delta:.3g}× the stated δ): "
                           "the paper's accountant under-reports the privacy loss")
    return row


def _reverse_reason(mech: str, req: Requirement) -> str:
    if mech in _SVT:
        return f"P(all {req.k} queries {req.theta:g} below rejected and the next {req.theta:g} above accepted)"
    return f"P(|output − true| ≤ {req.bound:.4g})"


def accuracy_for_epsilon(
    epsilon: float,
    *,
    requirement: str = "error",
    theta: float = 1.0,
    confidence: float = 0.95,
    sensitivity: float = 1.0,
    delta: float = 1e-5,
    alpha: float = 0.1,
    value: float = 100.0,
    c: int = 1,
    k: int = 50,
    kernel: str = "gaussian",
    mechanisms: Sequence[str] | None = None,
    n_runs: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """The accuracy each mechanism delivers at budget ε (same columns as :func:`epsilon_for_accuracy`).

    ``accuracy`` is P(|output − true| ≤ θ) (θ = α|x| for a relative error) or SVT's success probability;
    ``meets`` compares it with ``confidence``. Noise reduction treats ε as its ex-ante cap and reports its
    expected ex-post ε in ``epsilon``.
    """
    eps = _v.positive("epsilon", epsilon)
    req = make_requirement(
        requirement=requirement, theta=theta, confidence=confidence, sensitivity=sensitivity, delta=delta,
        alpha=alpha, value=value, c=c, k=k, kernel=kernel, cap=max(eps, 1e-3))
    n = _v.integer("n_runs", n_runs, low=2)
    s = _v.integer("seed", seed, low=0)
    return pd.DataFrame([_reverse_row(m, eps, req, n, s) for m in _mechs(mechanisms)])


def accuracy_curves(epsilons: Sequence[float], *, mechanisms: Sequence[str] | None = None, **kwargs) -> pd.DataFrame:
    """Accuracy of each applicable fixed-ε mechanism on an ε grid, long form (epsilon, mechanism, accuracy)."""
    eps = _v.real_array("epsilons", epsilons, low=0.0, allow_inf=False).ravel()
    if eps.size == 0 or eps.min() <= 0:
        raise ValueError("epsilons must be a non-empty list of numbers > 0")
    req = make_requirement(**kwargs)
    rows = []
    for m in _mechs(mechanisms):
        if m == "noise_reduction" or not _applicable(m, req)[0]:
            continue
        if m == "laplace":
            vals = -np.expm1(-eps * req.bound / req.sensitivity)
        elif m == "staircase":
            vals = np.atleast_1d(_r2dp.staircase_usefulness(eps, gamma=req.bound, sensitivity=req.sensitivity))
        else:
            vals = np.array([_safe_acc(m, float(e), req) for e in eps])
        rows.append(pd.DataFrame({"epsilon": eps, "mechanism": m, "accuracy": vals}))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["epsilon", "mechanism", "accuracy"])
