"""Composition of BR-DP releases (Jiang et al. 2024, Sec. 6: Remarks 3–4, Thm. 3, Alg. 3) and exact composition of
the BR-DP privacy-loss distribution (FFT, via :mod:`dpcore.accounting`).

Thm. 3's binomial mixture must include the k = 0 term (Alg. 3 as printed loops k = 1..T; ``variant="as_printed"``
reproduces it).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Literal

import numpy as np
from scipy import stats

from dpcore import _validate as _v
from dpcore import accounting as _acct
from dpcore._exact import ExactSum, frac_up, up
from dpcore._exact import U as _U
from dpcore.brdp._common import MAX_COMPOSED_POINTS, _delta
from dpcore.brdp.budget_split import BRDPPlan
from dpcore.brdp.exact_accountant import _loss_range, exact_pld
from dpcore.brdp.kernels import _profile_fn


def _plan(plan: Any) -> BRDPPlan:
    if not isinstance(plan, BRDPPlan):
        raise ValueError(f"plan must be a BRDPPlan (from optimize or make_plan), got {type(plan).__name__}")
    return plan


def composition_interval(plan: BRDPPlan, compositions: int, value_discretization_interval: float = 1e-4) -> float:
    """Loss-grid step h' >= h that keeps the T-fold exact composition within :data:`MAX_COMPOSED_POINTS` points.

    The T-fold loss lies, up to a 1e-15 tail (the truncation of the FFT composition), within
    T·mean ± R·sqrt(T ln(2/1e-15)/2) (Hoeffding; R = the single-release loss range), and never outside T times
    that range: h' = max(h, width / MAX_COMPOSED_POINTS).  Losses are still rounded *up* to the coarser grid, so
    the composed δ(ε) and ε_T stay upper bounds; ε_T is then within about T·h' of the truth.  Without it a
    sharp kernel (e.g. ε = 20, Δ_f = 4, T = 1000) needs a grid of ~10⁸ points and gigabytes of memory.
    """
    pl = _plan(plan)
    t = _v.integer("compositions", compositions, low=1, high=_acct.MAX_PLD_COMPOSITIONS)
    h = _v.positive("value_discretization_interval", value_discretization_interval)
    lo, hi = _loss_range(pl.kernel, pl.scale, pl.q, pl.sensitivity, 1e-15)
    r = hi - lo
    if not math.isfinite(r):
        return h  # exact_pld reports the unusable range itself
    width = min(t * r, 2 * r * math.sqrt(t * math.log(2 / 1e-15) / 2)) + r
    return max(h, width / MAX_COMPOSED_POINTS)


def _plan_pld(plan: BRDPPlan, compositions: int, value_discretization_interval: float = 1e-4) -> Any:
    """The plan's exact single-release PLD on the loss grid of :func:`composition_interval` for ``compositions``."""
    return exact_pld(
        kernel=plan.kernel,
        scale=plan.scale,
        theta=plan.theta,
        q=plan.q,
        sensitivity=plan.sensitivity,
        value_discretization_interval=composition_interval(plan, compositions, value_discretization_interval),
    )


def _composed_pld(plan: BRDPPlan, compositions: int, value_discretization_interval: float) -> Any:
    """The exact PLD of ``compositions`` releases of the plan (dp_accounting's own self-composition)."""
    pld = _plan_pld(plan, compositions, value_discretization_interval)
    return pld.self_compose(compositions) if compositions > 1 else pld


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
    with the k = 0 term (Alg. 3 as printed loops k = 1..T and misses the
    W^T δ_Z^T(eps - T L) term; ``variant="as_printed"`` reproduces it).
    delta_Z^T: Gaussian closed form (sensitivity sqrt(T) D), Laplace via ``dpcore.accounting.laplace_delta``
    (PLD) or, as in the paper's Fig. 5(b), RDP (``kernel_composition="rdp"``: Mironov conversion;
    ``"rdp_improved"``, the paper's method for the Laplace kernel).
    ``accountant="exact"``: the exact BR-DP PLD (shift D, pessimistic grid, coarsened for large T by
    :func:`composition_interval`) composed by FFT.
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
        pld = _composed_pld(pl, t, value_discretization_interval)
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
    """Leakage after T compositions: eps_T = min{eps : delta^T(eps) <= delta} (Alg. 3).

    ``accountant="dp"`` gives the plain kernel at the full budget (the plan's dp_scale, q = 0) for comparison.
    ``kernel_composition`` (Laplace, T > 1, paper/dp accountants): "exact" PLD or the paper's RDP bounds.
    """
    pl = _plan(plan)
    dl = _delta(delta)
    t = _v.integer("compositions", compositions, low=1, high=_acct.MAX_PLD_COMPOSITIONS)
    accountant = _v.choice("accountant", accountant, ("exact", "paper", "dp"))
    kc = _v.choice("kernel_composition", kernel_composition, ("exact", "rdp", "rdp_improved"))
    if accountant == "exact":
        pld = _composed_pld(pl, t, value_discretization_interval)
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
    (:func:`dpcore.accounting.pld_profile` suffix sums, inverted by ``accounting.invert_profile``: one
    vectorised pass instead of dp_accounting's Python loop over the pmf); dp_accounting's method when that
    does not apply. Like dp_accounting: +inf when the infinite-loss mass exceeds delta, never below 0."""
    pmf = getattr(pld, "_pmf_remove", None)
    m_inf = getattr(pmf, "_infinity_mass", None)
    if m_inf is not None and m_inf > delta:
        return math.inf
    try:
        e = _acct.invert_profile(_acct.pld_profile(pld), delta, -math.inf, math.inf)
    except Exception:  # noqa: BLE001  (dp_accounting internals changed: use the public method)
        e = None
    if e is None:
        return float(pld.get_epsilon_for_delta(delta))
    return max(0.0, float(e))


def basic_composition(epsilon: float, delta: float, *, compositions: int) -> tuple[float, float]:
    """Remark 3 (basic sequential composition): T releases, each (ε, δ)-DP, are (Tε, Tδ)-DP (Dwork & Roth 2014,
    Thm 3.16). Both totals rounded up (never below the exact products)."""
    e = _v.nonnegative("epsilon", epsilon)
    dl = _v.probability("delta", delta)
    t = _v.integer("compositions", compositions, low=1, high=_acct.MAX_PLD_COMPOSITIONS)
    return frac_up(t * Fraction(e)), min(1.0, frac_up(t * Fraction(dl)))


def advanced_composition(
    epsilon: float,
    delta: float,
    *,
    compositions: int,
    delta_slack: float,
    variant: Literal["corrected", "as_printed"] = "corrected",
) -> tuple[float, float]:
    """Remark 4 (advanced composition): T releases, each (ε, δ)-DP, are (ε_T, Tδ + δ′)-DP with
    ε_T = Tε(e^ε − 1) + ε√(2T ln(1/δ′)) (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm 3.20).

    The paper prints the total δ as δ alone (its δ′ = δ, the releases' own Tδ dropped); ``variant="as_printed"``
    returns that δ (it under-reports: docs/errata.md). ε_T is rounded up.
    """
    e = _v.nonnegative("epsilon", epsilon)
    dl = _v.probability("delta", delta)
    t = _v.integer("compositions", compositions, low=1, high=_acct.MAX_PLD_COMPOSITIONS)
    slack = _v.probability("delta_slack", delta_slack, low_open=True, high_open=True)
    var = _v.choice("variant", variant, ("corrected", "as_printed"))
    big_l = -math.log(slack) * (1 + 4 * _U)  # ln(1/δ′) taken a rounding high
    growth = math.expm1(e) if e < 700 else math.inf  # e^ε − 1 beyond the float range: an unbounded total
    eps_t = up(t * e * growth + e * math.sqrt(2.0 * t * big_l), 16)
    total = slack if var == "as_printed" else min(1.0, ExactSum(frac_up(t * Fraction(dl)), slack).upper)
    return eps_t, total
