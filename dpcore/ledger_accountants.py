"""The ledger's accountants: the same releases totalled five ways, and the privacy filter that enforces a budget.

* basic: Σ T_i ε_i at Σ T_i δ_i (Dwork & Roth 2014, Thm 3.16);
* advanced: heterogeneous composition of Kairouz, Oh & Viswanath 2015 (ICML; IEEE TIT 2017), Thm 3.5:
  for δ̃ ∈ (0, 1] the k-fold composition is (ε̃, 1 − (1 − δ̃) Π (1 − δ_i))-DP with
  ε̃ = min{ Σε_i, Σ ε_i(e^{ε_i} − 1)/(e^{ε_i} + 1) + √(2 Σε_i² ln(e + √(Σε_i²)/δ̃)),
  Σ ε_i(e^{ε_i} − 1)/(e^{ε_i} + 1) + √(2 Σε_i² ln(1/δ̃)) }; δ̃ is the slack 1 − (1 − δ)/Π(1 − δ_i);
* zCDP: ρ = Σρ_i (:func:`dpcore.ledger_releases.zcdp_cost`), converted to ε at δ' = δ − Σδ_i by
  :func:`dpcore.zcdp_to_dp` (the δ_i of δ-approximate zCDP add up under composition, Bun & Steinke 2016, §8);
* PLD: privacy-loss distributions composed (Laplace self-composed T times, pure and approximate releases through
  their worst-case (ε, δ) PLD; every Gaussian and noise reduction, a Gaussian with μ = ε_max, merged exactly into
  one Gaussian with μ = √(Σ T_i Δ_i²/σ_i²)); beyond a loss range of :data:`PLD_MAX_LOSS` the PLD is not built and
  the smaller of basic and zCDP is shown;
* filter: the unified privacy filter of Rogers, Samorodnitsky, Wu & Ramdas 2023 (Lemma 6.2 / Thm 6 with the
  corrected constant, docs/errata.md) replayed over the releases; valid when each release is chosen adaptively.

The advanced, zCDP and PLD totals assume the sequence of releases was fixed in advance; they are comparisons, not
filters. The filter's session δ is split in advance: ``delta_share``·δ for the releases' own δ_i and the rest as
the zCDP → DP conversion slack δ''.

Every total is rounded outward (never below the exact value) and "within budget" is decided exactly: a total is
within the budget iff it is ≤ the budget, with no tolerance (:mod:`dpcore._exact`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore import accounting as _acc
from dpcore._exact import ExactSum, down, frac_down, frac_up, sum_up, up
from dpcore.filters import BudgetExceeded, PrivacyFilter
from dpcore.ledger_releases import Release, delta_value

__all__ = [
    "ACCOUNTANTS",
    "PLD_MAX_LOSS",
    "AccountantResult",
    "basic",
    "advanced",
    "zcdp",
    "pld",
    "filter_replay",
    "accountants",
    "cumulative",
]

ACCOUNTANTS = ("basic", "advanced", "zcdp", "pld", "filter")
#: Kept for callers of the former tolerant comparison: budget verdicts are exact now, with no tolerance.
TOL = 0.0

# accountants
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AccountantResult:
    """One accountant's total: ε at the δ it used, whether it fits the session budget, and how it was computed."""

    name: str
    epsilon: float
    delta: float
    within: bool
    note: str


def _check(releases: Any, budget_epsilon: Any, budget_delta: Any) -> tuple[tuple[Release, ...], float, float]:
    """Validate an accountant's arguments: a sequence of Release, ε > 0, δ ∈ (0, 1)."""
    if isinstance(releases, str | bytes | dict) or not isinstance(releases, Iterable):
        raise ValueError("releases must be a sequence of Release")
    rel = tuple(releases)
    if not all(isinstance(r, Release) for r in rel):
        raise ValueError("releases must be a sequence of Release")
    e = _v.positive("budget_epsilon", budget_epsilon)
    d = delta_value("budget_delta", budget_delta, allow_zero=False)
    return rel, e, d


def _within(eps: float, delta: float, budget_eps: float, budget_delta: float) -> bool:
    """Exactly: ε ≤ the budget's ε and δ ≤ its δ (ε and δ are totals already rounded outward)."""
    return eps <= budget_eps and delta <= budget_delta


def _ulps(releases: Sequence[Release]) -> int:
    """Round-off of a float total over the releases, in units of U: a sum of n terms is within (n − 1)U relative;
    each term and the closing logarithms and roots add a few more."""
    return 2 * len(releases) + 32


def _runs(releases: Sequence[Release]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-run (ε_i, δ_i) and the multiplicity T_i of every release."""
    eps = np.array([r.dp_epsilon for r in releases], dtype=float)
    dl = np.array([r.delta for r in releases], dtype=float)
    t = np.array([r.compositions for r in releases], dtype=float)
    return eps, dl, t


def basic(releases: Sequence[Release], budget_epsilon: float, budget_delta: float) -> AccountantResult:
    """Basic composition: Σ T_i ε_i at Σ T_i δ_i (Dwork & Roth 2014, Thm 3.16)."""
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    e = frac_up(sum((r.compositions * Fraction(r.dp_epsilon) for r in releases), Fraction(0)))  # exact, rounded up
    d = frac_up(sum((r.compositions * Fraction(r.delta) for r in releases), Fraction(0)))
    return AccountantResult("basic", e, d, _within(e, d, budget_epsilon, budget_delta), "Σ T·ε at Σ T·δ")


def _kov(eps: np.ndarray, t: np.ndarray, slack: float) -> float:
    """KOV 2015 Thm 3.5 ε̃ for runs ε_i with multiplicity T_i at slack δ̃ (min of its three bounds)."""
    total = float(np.dot(t, eps))
    if slack <= 0 or total == 0:
        return total
    s2 = float(np.dot(t, eps**2))
    first = float(np.dot(t, eps * np.tanh(eps / 2.0)))  # ε(e^ε − 1)/(e^ε + 1) = ε tanh(ε/2)
    b2 = first + math.sqrt(2.0 * s2 * math.log(math.e + math.sqrt(s2) / slack))
    b3 = first + math.sqrt(2.0 * s2 * math.log(1.0 / slack))
    return min(total, b2, b3)


def advanced(releases: Sequence[Release], budget_epsilon: float, budget_delta: float) -> AccountantResult:
    """Heterogeneous advanced composition (Kairouz, Oh & Viswanath 2015, Thm 3.5) at the session δ, min with basic.

    δ_total = 1 − (1 − δ̃) Π (1 − δ_i)^{T_i} = session δ fixes the slack δ̃ = 1 − (1 − δ)/Π(1 − δ_i)^{T_i}.
    """
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    eps, dl, t = _runs(releases)
    dl_s = _v.probability("budget_delta", budget_delta, low_open=True, high_open=True)
    log_keep = float(np.dot(t, np.log1p(-dl)))  # ln Π(1 − δ_i)^{T_i}
    slack = down(-math.expm1(math.log1p(-dl_s) - log_keep), _ulps(releases))  # never more slack than there is
    if slack <= 0:
        b = basic(releases, budget_epsilon, budget_delta)
        return AccountantResult(
            "advanced",
            b.epsilon,
            -math.expm1(log_keep),
            False,
            "no δ slack left after the releases' own δ: basic composition only",
        )
    total = basic(releases, budget_epsilon, budget_delta).epsilon  # Σ T·ε, exact and rounded up
    e = min(total, up(_kov(eps, t, slack), _ulps(releases)))  # KOV's own bounds rounded up; never above basic
    return AccountantResult(
        "advanced", e, dl_s, _within(e, dl_s, budget_epsilon, budget_delta), f"KOV 2015 Thm 3.5, slack δ̃ = {slack:.3g}"
    )


def zcdp(releases: Sequence[Release], budget_epsilon: float, budget_delta: float) -> AccountantResult:
    """zCDP: ρ = Σρ_i (ρ per release from :func:`dpcore.ledger_releases.zcdp_cost`) as ε at δ' = δ − Σδ_i."""
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    dl_s = _v.probability("budget_delta", budget_delta, low_open=True, high_open=True)
    costs = [r.rules.zcdp(r) for r in releases]
    rho = sum_up(*(c[0] for c in costs))  # each ρ_i already rounded up; the sum too
    d_own = sum_up(*(c[1] for c in costs))
    slack = ExactSum(dl_s, -d_own).lower
    if slack <= 0:
        return AccountantResult(
            "zcdp",
            math.inf,
            d_own,
            False,
            f"ρ = {rho:.4g}, but the releases' own δ {d_own:.3g} uses the whole session δ",
        )
    e = float(_acc.zcdp_to_dp(rho, slack)) if rho > 0 else 0.0
    return AccountantResult(
        "zcdp", e, dl_s, _within(e, dl_s, budget_epsilon, budget_delta), f"ρ = {rho:.4g} → ε at δ' = {slack:.3g}"
    )


PLD_MAX_LOSS = 100.0  # PLDs whose privacy loss may exceed this are not built (grid ≥ 1e5 points): fall back


@functools.lru_cache(maxsize=64)
def _pld_single(kind: str, a: float, b: float, t: int) -> Any:
    """PLD of one (T-fold) release from scalars: gaussian (σ/Δ), laplace (b/Δ), dp (ε, δ)."""
    h = _acc.PLD_DISCRETIZATION
    build = {
        "gaussian": lambda: _acc.pld_gaussian(a, discretization=h),
        "laplace": lambda: _acc.pld_laplace(a, discretization=h),
        "dp": lambda: _acc.pld_from_epsilon_delta(a, b, discretization=h),
    }[kind]
    one = build()
    return _acc.self_compose(one, t) if t > 1 else one


#: The part of a release the PLD composes on its own grid (Gaussian-like releases merge into one Gaussian instead).
_PLD_PART = {
    "laplace": lambda r: ("laplace", r.scale / r.sensitivity, 0.0),
    "pure": lambda r: ("dp", r.epsilon, r.delta),
    "approx": lambda r: ("dp", r.epsilon, r.delta),
}


def _max_loss(mu2: float, others: float) -> float:
    """Upper end of the loss grid: Gaussian part μ²/2 + 12μ (beyond: < e^-50 mass) plus Σ T·ε of the others."""
    return mu2 / 2.0 + 12.0 * math.sqrt(mu2) + others


@functools.lru_cache(maxsize=16)
def _pld_prefixes(releases: tuple[Release, ...]) -> tuple[Any, ...]:
    """Composed PLD after each prefix of the releases (None where the loss range exceeds :data:`PLD_MAX_LOSS`).

    All Gaussian-like releases (Gaussian, noise reduction at ε_max) compose exactly into one Gaussian with
    μ = √(Σ T_i Δ_i²/σ_i²), built once per prefix; Laplace and (ε, δ) releases are composed as PLDs. Cached by the
    (hashable, frozen) releases, so a change of the session δ or ε only re-reads ε(δ).
    """
    out: list[Any] = []
    mu2, others, acc = 0.0, 0.0, None
    for r in releases:
        mu2 = sum_up(mu2, r.rules.gaussian_mu2(r))  # μ² never rounded down: the merged Gaussian is never too weak
        part = _PLD_PART.get(r.kind)
        if part is not None:
            others += r.compositions * r.dp_epsilon
            if _max_loss(mu2, others) <= PLD_MAX_LOSS:
                p = _pld_single(*part(r), r.compositions)
                acc = p if acc is None else acc.compose(p)
        if _max_loss(mu2, others) > PLD_MAX_LOSS:
            out.append(None)
            continue
        total = acc
        if mu2 > 0:
            g = _pld_single("gaussian", down(1.0 / math.sqrt(mu2), 4), 0.0, 1)  # σ = 1/μ, never too large
            total = g if total is None else total.compose(g)
        out.append(total)
    return tuple(out)


def _pld_prefix_epsilons(releases: Sequence[Release], delta: float) -> list[float]:
    """PLD ε at δ after each prefix of the releases (NaN where the PLD is not built)."""
    return [
        math.nan if p is None else max(float(p.get_epsilon_for_delta(delta)), 0.0)
        for p in _pld_prefixes(tuple(releases))
    ]


def pld(releases: Sequence[Release], budget_epsilon: float, budget_delta: float) -> AccountantResult:
    """Privacy-loss distributions of every release composed (:mod:`dpcore.accounting`); ε at the session δ.

    When the composed loss could exceed :data:`PLD_MAX_LOSS` the PLD is not built (it would need ≥ 1e5 grid points
    per unit of loss) and the smaller of the basic and zCDP totals, both sound upper bounds, is reported instead.
    """
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    dl_s = _v.probability("budget_delta", budget_delta, low_open=True, high_open=True)
    if not releases:
        return AccountantResult("pld", 0.0, dl_s, True, "no releases")
    e = _pld_prefix_epsilons(releases, dl_s)[-1]
    if math.isnan(e):
        fb = [
            x
            for x in (basic(releases, budget_epsilon, budget_delta), zcdp(releases, budget_epsilon, budget_delta))
            if x.delta <= dl_s
        ]
        e = min((x.epsilon for x in fb), default=math.inf)
        return AccountantResult(
            "pld",
            e,
            dl_s,
            _within(e, dl_s, budget_epsilon, budget_delta),
            f"loss range beyond {PLD_MAX_LOSS:g}: PLD not built, min of basic and zCDP",
        )
    return AccountantResult(
        "pld", e, dl_s, _within(e, dl_s, budget_epsilon, budget_delta), f"PLD, grid {_acc.PLD_DISCRETIZATION:g}"
    )


def _split(budget_delta: float, delta_share: float) -> tuple[float, float]:
    """(δ'' conversion slack, δ_mech for the releases' own δ) of the privacy filter (Rogers et al. 2023), both
    rounded down so that δ'' + δ_mech ≤ δ exactly."""
    slack = frac_down(Fraction(budget_delta) * (1 - Fraction(delta_share)))
    return slack, ExactSum(budget_delta, -slack).lower


def _new_filter(budget_epsilon: float, budget_delta: float, delta_share: float) -> PrivacyFilter:
    delta_share = _v.real("delta_share", delta_share, low=0.0, high=1.0, high_open=True)
    slack, mech = _split(budget_delta, delta_share)
    return PrivacyFilter(budget_epsilon, slack, delta_mechanisms=mech, record=False)


def _charge(flt: PrivacyFilter, r: Release) -> None:
    """Charge one release to the privacy filter (Rogers et al. 2023); BudgetExceeded names the numbers."""
    left = flt.remaining_rho
    if r.rules.epsilon_max:  # a noise reduction: admitted on its worst case, charged ex-post
        assert r.epsilon_max is not None  # its kind carries ε_max (checked when the release was made)
        need = r.epsilon_max**2 / 2.0
        if not flt.can_start(epsilon_max=r.epsilon_max):
            raise BudgetExceeded(
                f"the filter has ρ = {left:.4g} left; this noise reduction may only start if its worst case "
                f"ρ = {need:.4g} (ε_max = {r.epsilon_max:.4g} as ε_max²/2) fits — it would be charged only "
                f"ε_T²/2 = {r.epsilon**2 / 2:.4g} once stopped"
            )
        flt.start_noise_reduction(r.epsilon_max, label=r.label)
        flt.charge_noise_reduction(r.epsilon)
        return
    rho, d, how = r.rules.zcdp(r)
    if not flt.can_start(rho=rho, delta=d):
        if not flt.can_start(rho=rho):
            raise BudgetExceeded(
                f"the filter has ρ = {left:.4g} left; this release needs ρ = {rho:.4g} ({r.rules.charge_text(r, how)})"
            )
        raise BudgetExceeded(
            f"the filter has δ = {flt.remaining_delta:.3g} left for the releases' own δ; this "
            f"release needs δ = {d:.3g} (T·δ)"
        )
    flt.charge_zcdp(rho, delta=d, label=r.label)


def filter_replay(
    releases: Sequence[Release], budget_epsilon: float, budget_delta: float, *, delta_share: float = 0.5
) -> tuple[PrivacyFilter, list[tuple[int, str]]]:
    """Replay the releases through the privacy filter (Rogers et al. 2023); refused ones are skipped and reported
    (index, reason)."""
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    flt = _new_filter(budget_epsilon, budget_delta, delta_share)
    refused = []
    for i, r in enumerate(releases):
        try:
            _charge(flt, r)
        except BudgetExceeded as exc:
            refused.append((i, str(exc)))
    return flt, refused


def _filter_result(
    releases: Sequence[Release], budget_epsilon: float, budget_delta: float, delta_share: float
) -> AccountantResult:
    flt, refused = filter_replay(releases, budget_epsilon, budget_delta, delta_share=delta_share)
    slack, _ = _split(budget_delta, delta_share)
    e = float(_acc.zcdp_to_dp(flt.rho_spent, slack))
    d = sum_up(slack, flt.delta_spent)
    note = (
        f"ρ spent {flt.rho_spent:.4g} of {flt.rho_budget:.4g}; noise reduction charged ex-post (ε²/2 at the level "
        "where it stopped)"
    )
    if refused:
        note = f"would refuse release {refused[0][0] + 1}: {refused[0][1]}"
    return AccountantResult("filter", e, d, not refused and _within(e, d, budget_epsilon, budget_delta), note)


def accountants(
    releases: Sequence[Release], budget_epsilon: float, budget_delta: float, *, delta_share: float = 0.5
) -> list[AccountantResult]:
    """All five accountants (basic, advanced, zCDP, PLD, filter) for the releases at the session budget."""
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    return [
        basic(releases, budget_epsilon, budget_delta),
        advanced(releases, budget_epsilon, budget_delta),
        zcdp(releases, budget_epsilon, budget_delta),
        pld(releases, budget_epsilon, budget_delta),
        _filter_result(releases, budget_epsilon, budget_delta, delta_share),
    ]


def cumulative(
    releases: Sequence[Release], budget_epsilon: float, budget_delta: float, *, delta_share: float = 0.5
) -> pd.DataFrame:
    """ε of every accountant after the first n releases, n = 0 … N, long form (releases, accountant, epsilon)."""
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    rows = [{"releases": 0, "accountant": a, "epsilon": 0.0} for a in ACCOUNTANTS]
    plds = _pld_prefix_epsilons(releases, budget_delta)
    for n in range(1, len(releases) + 1):
        pre = releases[:n]
        for res in (
            basic(pre, budget_epsilon, budget_delta),
            advanced(pre, budget_epsilon, budget_delta),
            zcdp(pre, budget_epsilon, budget_delta),
            _filter_result(pre, budget_epsilon, budget_delta, delta_share),
        ):
            rows.append({"releases": n, "accountant": res.name, "epsilon": res.epsilon})
        rows.append({"releases": n, "accountant": "pld", "epsilon": plds[n - 1]})
    df = pd.DataFrame(rows)
    df["epsilon"] = df["epsilon"].replace([np.inf, -np.inf], np.nan)
    return df.sort_values(["accountant", "releases"], kind="stable", ignore_index=True)
