"""Cached tables for the "Accuracy first: noise reduction" page (Rogers, Samorodnitsky, Wu & Ramdas 2023).

Scalar arguments in, small DataFrames and frozen dataclasses out; every cache is bounded by
:data:`app.compute._cache.MAX_ENTRIES` (``@cached`` works inside and outside Streamlit).
The maths lives in :mod:`dpcore.noise_reduction` and :mod:`dpcore.filters`; this module only evaluates it on the
grids the charts need. The interactive ledger keeps a :class:`dpcore.filters.PrivacyFilter` as a plain dict
(``to_dict`` / ``from_dict``) so the page can store it in ``st.session_state``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from app.compute._cache import cached
from app.notation import number
from dpcore import filters as fl
from dpcore import noise_reduction as nr

EPS2_MIN = 1e-4  # smallest noise level ε²_min of every grid (Section 7.2: (ε^(1))² = 0.0001)
N_PATHS = 5  # coupled paths drawn in the path panel
N_RUNS = 2000  # runs behind the stopping distribution
COST_DRAWS = 300  # draws per true count in the cost panel
ZIPF_A = 0.75  # Figure 2 / 3 Zipf exponent
PAPER = {"epsilon": 10.0, "delta": 1e-6, "alpha": 0.1, "levels": 1000}  # Section 7.2 settings
PAPER_SIZES = (8000, 16000, 32000, 64000, 128000)


@dataclass(frozen=True)
class Budget:
    """The unified filter's zCDP budget ρ*, its Σε² form 2ρ*, the top noise level √(2ρ*), both constants' ρ*."""
    rho: float
    eps2_budget: float
    epsilon_max: float
    corrected: float
    as_printed: float


@cached
def budget(epsilon: float, delta: float, variant: str) -> Budget:
    """ρ* of the unified filter (Thm 6; ``variant`` picks the constant its proof gives or the printed one)."""
    rho = float(fl.rho_budget(epsilon, delta, variant=variant))
    return Budget(rho=rho, eps2_budget=2.0 * rho, epsilon_max=math.sqrt(2.0 * rho),
                  corrected=float(fl.rho_budget(epsilon, delta)),
                  as_printed=float(fl.rho_budget(epsilon, delta, variant="as_printed")))


@dataclass(frozen=True)
class Shortfall:
    """Why no count can be released: the top level ε_max is below the grid's first level ε_min; the ε that suffices."""
    epsilon_max: float
    epsilon_min: float
    epsilon_needed: float


@cached
def shortfall(epsilon: float, delta: float, variant: str) -> Shortfall | None:
    """None when the budget reaches the grid's first level ε_min; else why not and the smallest ε that does.

    A valid but infeasible combination (e.g. ε = 0.025 at δ = 1e-6): ε_max = √(2ρ*) < ε_min, no count can be released.
    The smallest sufficient ε is the filter's ε for ρ = ε²_min/2 (Thm 6, ``fl.zcdp_epsilon``).
    """
    top = budget(epsilon, delta, variant).epsilon_max
    eps_min = math.sqrt(EPS2_MIN)
    if top > eps_min * (1 + 1e-9):
        return None
    need = float(fl.zcdp_epsilon(EPS2_MIN / 2.0, delta, variant=variant))
    return Shortfall(epsilon_max=top, epsilon_min=eps_min, epsilon_needed=need)


def make_grid(epsilon_max: float, levels: int, spacing: str) -> np.ndarray:
    """Noise levels from ε_min = √EPS2_MIN to ``epsilon_max``, evenly spaced in ε² ("linear", Sec. 7.2) or geometric."""
    eps_min = math.sqrt(EPS2_MIN)
    if not epsilon_max > eps_min * (1 + 1e-9):
        raise ValueError(
            f"epsilon: the budget allows noise levels up to ε = {number(epsilon_max, 3)} only, not above the "
            f"first level ε_min = {number(eps_min)} (ε²_min = {number(EPS2_MIN)}, Section 7.2): no count can "
            "be released. Raise ε or δ."
        )
    if levels < 2:
        return np.array([epsilon_max])
    if spacing == "linear":
        return np.sqrt(np.linspace(EPS2_MIN, epsilon_max**2, levels))
    return np.geomspace(eps_min, epsilon_max, levels)


@cached
def grid(epsilon: float, delta: float, variant: str, levels: int, spacing: str) -> np.ndarray:
    """The page's ε grid: its top level uses the whole budget, ε_max²/2 = ρ*."""
    return make_grid(budget(epsilon, delta, variant).epsilon_max, levels, spacing)


@cached
def paths(epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float, alpha: float,
          mechanism: str, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """N_PATHS coupled noise-reduction paths Y_k = y + Z_k over the grid (Def 4.4 / Def A.1), and where each stops.

    Returns (path frame: path, epsilon, release, band_low, band_high, boundary; stop frame: path, epsilon_stop,
    release, charge, accepted). The stop is the first level where the relative-error rule fires (Section 7).
    """
    eps = grid(epsilon, delta, variant, levels, spacing)
    sampler = nr.brownian_path if mechanism == "brownian" else nr.laplace_path
    z = sampler(eps, n_paths=N_PATHS, rng=seed)
    y = value + z
    stop = np.asarray(nr.relative_error_stop(y, eps[None, :], alpha=alpha))
    hit = stop.any(axis=1)
    idx = np.where(hit, stop.argmax(axis=1), eps.size - 1)
    frame = pd.DataFrame({
        "path": np.repeat(np.arange(1, N_PATHS + 1), eps.size),
        "epsilon": np.tile(eps, N_PATHS),
        "release": y.ravel(),
    })
    e_t = eps[idx]
    stops = pd.DataFrame({
        "path": np.arange(1, N_PATHS + 1),
        "epsilon_stop": e_t,
        "release": y[np.arange(N_PATHS), idx],
        "charge": e_t**2 / 2.0 if mechanism == "brownian" else e_t,
        "accepted": hit,
    })
    return frame, stops


@cached
def bands(epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float,
          alpha: float) -> pd.DataFrame:
    """±1/ε noise band around y and the acceptance boundary ŷ = (2+α)/(αε) (the closed form of the Section 7.2 rule)."""
    eps = grid(epsilon, delta, variant, levels, spacing)
    return pd.DataFrame({"epsilon": eps, "band_low": value - 1.0 / eps, "band_high": value + 1.0 / eps,
                         "boundary": (2.0 + alpha) / (alpha * eps)})


@dataclass(frozen=True)
class StoppingSummary:
    """Where many runs of one noise reduction stop: typical and worst-case charge, accuracy, DP ε of the charges."""
    median_charge: float
    mean_charge: float
    worst_charge: float
    median_epsilon_stop: float
    accepted: float
    precision: float
    mean_loss: float
    dp_epsilon_median: float
    dp_epsilon_worst: float


@cached
def stopping(epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float, alpha: float,
             mechanism: str, seed: int) -> tuple[pd.DataFrame, StoppingSummary]:
    """N_RUNS releases (``release_many``): histogram of the charge paid at the stop, and a summary.

    Brownian charge ρ_T = ε_T²/2 (zCDP, Thm 6); Laplace charge ε_T (pure ex-post, Lemma A.1). The ex-ante worst
    case is the charge at the top level. ``dp_epsilon`` is the DP ε the median Brownian charge alone would certify.
    """
    eps = grid(epsilon, delta, variant, levels, spacing)
    runs = nr.release_many(value, epsilons=eps, alpha=alpha, n_runs=N_RUNS, mechanism=mechanism, rng=seed)
    worst = eps[-1] ** 2 / 2.0 if mechanism == "brownian" else float(eps[-1])
    counts = runs.groupby("index").size()
    k = counts.index.to_numpy()
    hist = pd.DataFrame({
        "epsilon_stop": eps[k],
        "charge": eps[k] ** 2 / 2.0 if mechanism == "brownian" else eps[k],
        "runs": counts.to_numpy(),
        "share": counts.to_numpy() / N_RUNS,
    })
    acc = runs["accepted"].to_numpy()
    good = acc & (np.abs(np.abs(runs["release"].to_numpy()) - abs(value)) < alpha * abs(value))
    median = float(runs["charge"].median())
    summary = StoppingSummary(
        median_charge=median,
        mean_charge=float(runs["charge"].mean()),
        worst_charge=float(worst),
        median_epsilon_stop=float(runs["epsilon_stop"].median()),
        accepted=float(acc.mean()),
        precision=float(good.sum() / acc.sum()) if acc.any() else 1.0,
        mean_loss=float(runs["loss"].mean()),
        dp_epsilon_median=float(fl.zcdp_epsilon(median, delta, variant=variant)) if mechanism == "brownian"
        else median,
        dp_epsilon_worst=float(fl.zcdp_epsilon(worst, delta, variant=variant)) if mechanism == "brownian"
        else float(worst),
    )
    return hist, summary


def queue(value: float, count: int) -> np.ndarray:
    """A Zipf-shaped queue of true counts y·j^(−0.75), j = 1..count, rounded (at least 1), as in Figure 2."""
    return np.maximum(np.round(value * np.arange(1, count + 1, dtype=float) ** (-ZIPF_A)), 1.0)


@dataclass(frozen=True)
class Outcome:
    """One count of the queue: accepted, failed (discarded) or refused; the value released and the charge."""
    status: str
    release: float
    charge: float


REFUSED = Outcome("refused", math.nan, 0.0)


def _release_nr(flt: fl.PrivacyFilter, y: float, *, alpha: float, levels: int, spacing: str,
                rng: np.random.Generator, label: str) -> Outcome:
    """One Brownian noise reduction whose grid ends at the whole remaining budget, admitted by ``flt``."""
    top = math.sqrt(2.0 * flt.remaining_rho)
    eps_min = math.sqrt(EPS2_MIN)
    eps = make_grid(top, levels, spacing) if top > eps_min * (1 + 1e-9) else np.array([eps_min])
    try:
        flt.start_noise_reduction(float(eps[-1]), label=label)
    except fl.BudgetExceeded:
        return REFUSED
    res = nr.release_with_stopping(y, epsilons=eps, alpha=alpha, rng=rng)
    status = "accepted" if res.accepted else "failed (discarded)"
    flt.charge_noise_reduction(res.epsilon_stop, label=f"{label} → ŷ = {res.release:.1f}, {status}")
    return Outcome(status, res.release, res.charge)


def _release_doubling(flt: fl.PrivacyFilter, y: float, *, alpha: float, rng: np.random.Generator,
                      label: str) -> Outcome:
    """Doubling baseline (Section 7.1): every attempt is paid, the last one capped at the remaining budget."""
    if flt.remaining_rho < EPS2_MIN / 2.0:
        try:
            flt.charge_zcdp(EPS2_MIN / 2.0, label=label)
        except fl.BudgetExceeded:
            return REFUSED
    res = nr.doubling_release(y, alpha=alpha, epsilon_start=math.sqrt(EPS2_MIN),
                              epsilon_max=math.sqrt(2.0 * flt.remaining_rho), rho_budget=flt.remaining_rho, rng=rng)
    status = "accepted" if res.accepted else "failed (discarded)"
    flt.charge_zcdp(min(res.charge, flt.remaining_rho), label=f"{label}: {res.attempts} attempts, {status}")
    return Outcome(status, res.release, res.charge)


@cached
def odometer(epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float, alpha: float,
             count: int, seed: int) -> pd.DataFrame:
    """Release the queue of counts in order under one budget (Figure 1 made live).

    Noise reduction under the unified filter (Thm 6; each count's grid ends at the remaining budget) against
    doubling under the zCDP filter (Thm 2). Columns: method, count (index), true_count, status, charge, spent.
    """
    rows = []
    for method in ("noise_reduction", "doubling"):
        flt = (fl.PrivacyFilter if method == "noise_reduction" else fl.ZCDPFilter)(epsilon, delta, variant=variant)
        rng = np.random.default_rng([seed, 1 if method == "noise_reduction" else 2])
        for j, y in enumerate(queue(value, count), start=1):
            label = f"count {j} (y = {number(y)})"
            if method == "noise_reduction":
                out = _release_nr(flt, float(y), alpha=alpha, levels=levels, spacing=spacing, rng=rng, label=label)
            else:
                out = _release_doubling(flt, float(y), alpha=alpha, rng=rng, label=label)
            rows.append({"method": method, "count": j, "true_count": y, "status": out.status,
                         "charge": out.charge, "spent": flt.rho_spent, "remaining": flt.remaining_rho})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Returned:
    """Counts of the queue returned (accepted) by each method under the same budget."""
    noise_reduction: int
    doubling: int


def odometer_summary(df: pd.DataFrame) -> Returned:
    """Counts returned (accepted) per method."""
    acc = df[df["status"] == "accepted"]
    return Returned(*(int((acc["method"] == m).sum()) for m in ("noise_reduction", "doubling")))


@dataclass(frozen=True)
class LedgerState:
    """The live ledger kept in the session: its settings, the unified filter as a plain dict, the queue position."""
    config: tuple[float, float, str]
    filter: dict[str, Any]
    next: int


def ledger_new(epsilon: float, delta: float, variant: str) -> LedgerState:
    """A fresh live ledger: an empty unified filter (as a dict) and the queue position."""
    return LedgerState((epsilon, delta, variant), fl.PrivacyFilter(epsilon, delta, variant=variant).to_dict(), 0)


def ledger_add(state: LedgerState, kind: str, *, value: float, count: int, alpha: float, levels: int,
               spacing: str, seed: int) -> tuple[LedgerState, str]:
    """Apply one button press to the ledger: the next count of the queue by a zCDP (Gaussian) release or by noise
    reduction. Returns (new state, message).

    ``kind="zcdp"``: a one-shot Gaussian at the level where the relative-error rule would just fire at ŷ = y,
    ε = (2+α)/(α·y), charged ρ = ε²/2 — refused when it does not fit (Thm 2 look-ahead). ``kind="noise_reduction"``:
    a Brownian noise reduction whose grid ends at the whole remaining budget (condition (4)), charged ε_T²/2.
    """
    flt = fl.PrivacyFilter.from_dict(state.filter)
    j = state.next % count
    y = float(queue(value, count)[j])
    rng = np.random.default_rng([seed, state.next, 0 if kind == "zcdp" else 1])
    label = f"count {j + 1} (y = {number(y)})"
    if kind == "zcdp":
        e = (2.0 + alpha) / (alpha * y)
        rho = e * e / 2.0
        try:
            flt.charge_zcdp(rho, label=f"Gaussian release of {label} at ε = {number(e, 3)}")
            msg = (f"Accepted: Gaussian release of {label}, ŷ = {y + rng.standard_normal() / e:.1f}, "
                   f"ρ = {number(rho, 4)}.")
        except fl.BudgetExceeded as exc:
            msg = f"Refused: Gaussian release of {label} — {exc}."
    else:
        out = _release_nr(flt, y, alpha=alpha, levels=levels, spacing=spacing, rng=rng,
                          label=f"noise reduction of {label}")
        msg = (f"Refused: noise reduction of {label} — no noise level fits the remaining budget."
               if out.status == "refused" else
               f"Noise reduction of {label}: {out.status}, ŷ = {out.release:.1f}, charged ρ = {number(out.charge, 4)}.")
    return LedgerState(state.config, flt.to_dict(), state.next + 1), msg


@dataclass(frozen=True)
class Gauge:
    """The live filter's budget ρ*, spent and remaining ρ, the DP ε spent so far, accepted and refused requests."""
    budget: float
    spent: float
    remaining: float
    epsilon_spent: float
    accepted: int
    refused: int


def ledger_view(state: LedgerState) -> tuple[pd.DataFrame, Gauge]:
    """The ledger table and the gauge numbers of a stored filter."""
    return _ledger_view(json.dumps(state.filter))


@cached
def _ledger_view(filter_json: str) -> tuple[pd.DataFrame, Gauge]:
    flt = fl.PrivacyFilter.from_dict(json.loads(filter_json))
    df = flt.ledger[["step", "mechanism", "label", "status", "epsilon_max", "epsilon_stop", "charge", "spent",
                     "remaining"]]
    return df, Gauge(flt.rho_budget, flt.rho_spent, flt.remaining_rho, flt.spent_epsilon,
                     int((df["status"] == "accepted").sum()), int((df["status"] == "refused").sum()))


@dataclass(frozen=True)
class ConcurrentSummary:
    """Thm 3: both budgets, what each part spent, counts returned by each, and the overall (ε + ε', δ) guarantee."""
    rho_budget: float
    rho_spent: float
    expost_budget: float
    expost_spent: float
    zcdp_returned: int
    expost_returned: int
    epsilon_total: float
    delta_total: float


@cached
def concurrent(epsilon: float, delta: float, epsilon_expost: float, value: float, alpha: float, count: int,
               levels: int, seed: int) -> tuple[pd.DataFrame, ConcurrentSummary]:
    """The queue of counts under Thm 3's concurrent filter: odd counts by one-shot Gaussian releases (zCDP part, Thm 2
    rules, budget from (ε, δ'')), even counts by Laplace noise reductions (ex-post part, Lemma 5.2, budget ε'), each
    grid ending at the ex-post budget still left and charged ε_T. Columns: count, true_count, part, status, charge,
    rho_spent, expost_spent."""
    c = fl.ConcurrentFilter(epsilon, delta, epsilon_expost)
    rng = np.random.default_rng([seed, 5])
    rows = []
    for j, y in enumerate(queue(value, count), start=1):
        label = f"count {j} (y = {number(y)})"
        if j % 2:
            e = (2.0 + alpha) / (alpha * y)  # the level at which the rule would just fire at ŷ = y
            try:
                c.zcdp.charge_zcdp(e * e / 2.0, label=label)
                out = Outcome("accepted", y + rng.standard_normal() / e, e * e / 2.0)  # one-shot: always released
            except fl.BudgetExceeded:
                out = REFUSED
            part = "zCDP: Gaussian"
        else:
            part = "ex-post: Laplace noise reduction"
            top = c.expost.remaining_epsilon
            if top <= math.sqrt(EPS2_MIN) * (1 + 1e-9):
                out = REFUSED
            else:
                c.expost.start(top, label=label)
                res = nr.release_with_stopping(y, epsilons=make_grid(top, levels, "geometric"), alpha=alpha,
                                               mechanism="laplace", rng=rng)
                c.expost.charge(res.charge)
                out = Outcome("accepted" if res.accepted else "failed (discarded)", res.release, res.charge)
        rows.append({"count": j, "true_count": y, "part": part, "status": out.status, "charge": out.charge,
                     "rho_spent": c.zcdp.rho_spent, "expost_spent": c.expost.epsilon_spent})
    df = pd.DataFrame(rows)
    ok = df["status"] == "accepted"
    eps_total, delta_total = c.guarantee
    return df, ConcurrentSummary(c.zcdp.rho_budget, c.zcdp.rho_spent, epsilon_expost, c.expost.epsilon_spent,
                                 int((ok & df["part"].str.startswith("zCDP")).sum()),
                                 int((ok & df["part"].str.startswith("ex-post")).sum()), eps_total, delta_total)


@cached  # a rerun that does not move y or the grid reads one entry, not fourteen
def costs(levels: int, alpha: float, value: float, seed: int) -> pd.DataFrame:
    """Expected ε² spent per count, noise reduction vs doubling vs oracle ((2+α)/α/y)² (``cost_comparison``).

    True counts on a log grid 10 … 10⁴ plus the slider's y, at the paper's budget Σε² ≤ 2ρ*(10, 1e-6) = 2.706 (a grid
    linear in ε² from ε²_min up to it), not the sidebar's ε; each count is cached on its own (moving y adds one row).
    """
    values = np.unique(np.append(np.round(np.geomspace(10.0, 1e4, 13)), value))
    return pd.concat([_cost_row(float(y), levels, alpha, seed) for y in values], ignore_index=True)


@cached
def _cost_row(value: float, levels: int, alpha: float, seed: int) -> pd.DataFrame:
    top = 2.0 * float(fl.rho_budget(PAPER["epsilon"], PAPER["delta"]))
    rng = np.random.default_rng([seed, int(round(value * 100))])
    return nr.cost_comparison([value], alpha=alpha, epsilon2_min=EPS2_MIN, epsilon2_max=top,
                              grid_size=max(levels, 2), draws=COST_DRAWS, rng=rng)


@cached
def constants(epsilon: float, delta: float) -> pd.DataFrame:
    """ε(ρ) certified by Thm 6 with the corrected constant 2√(ρ log(1/δ'')) and the printed 2√(2ρ log(1/δ''))."""
    top = 1.5 * float(fl.rho_budget(epsilon, delta))
    rho = np.linspace(0.0, top, 200)
    return pd.DataFrame({"rho": rho, "corrected": fl.zcdp_epsilon(rho, delta),
                         "as_printed": fl.zcdp_epsilon(rho, delta, variant="as_printed")})


@dataclass(frozen=True)
class Errata:
    """Printed vs correct numbers for the paper's three misprints that change a number (see :func:`errata`)."""
    rho_corrected: float
    rho_printed: float
    thm5_v: float
    thm5_printed: float
    thm5_corrected: float
    thm6_for_same_v: float
    lemma52_spent: float
    lemma52_printed_worst: float
    lemma52_admits_corrected: bool
    lemma52_corrected_max: float


@cached
def errata(epsilon: float, delta: float, count: int, levels: int) -> Errata:
    """Numbers for the misprints: Thm 6's constant, Thm 5's missing drift and Lemma 5.2's admission rule.

    Thm 5: ``count`` Brownian reductions each stopped at ε² = 0.01 (V = 0.01·count, γ = 0.01), printed ψ(V) vs
    V/2 + ψ(V). Lemma 5.2: after 90 % of an ex-post budget ε is spent, the printed rule (Σ_{i<n} ℰ_i ≤ ε) still
    admits a Laplace noise reduction whose grid tops at ε, so the worst-case total is 1.9ε, not ε.
    """
    v = 0.01 * count
    ex = fl.ExPostFilter(epsilon)
    ex.start(0.9 * epsilon, label="earlier releases")
    ex.charge(0.9 * epsilon)
    return Errata(
        rho_corrected=float(fl.rho_budget(epsilon, delta)),
        rho_printed=float(fl.rho_budget(epsilon, delta, variant="as_printed")),
        thm5_v=v,
        thm5_printed=float(nr.brownian_expost_bound(v, gamma=0.01, delta=delta, variant="as_printed")),
        thm5_corrected=float(nr.brownian_expost_bound(v, gamma=0.01, delta=delta)),
        thm6_for_same_v=float(fl.zcdp_epsilon(v / 2.0, delta)),
        lemma52_spent=ex.epsilon_spent,
        lemma52_printed_worst=ex.epsilon_spent + epsilon,
        lemma52_admits_corrected=bool(ex.can_start(epsilon_max=epsilon)),
        lemma52_corrected_max=ex.remaining_epsilon,
    )


@cached
def composition_curves(delta: float, eps2: float = 0.01, gamma: float = 0.01) -> pd.DataFrame:
    """ε after m Brownian noise reductions each stopped at ε² = ``eps2``, m = 1 … 1000.

    Thm 6: zcdp_epsilon(m·ε²/2, δ); Thm 5 with its drift restored: V/2 + ψ(V; γ, δ) with V = m·ε²; basic
    ex-post composition (Lemma 5.1): m·(ε²/2 + ψ(ε²; γ, δ/m)).
    """
    m = np.unique(np.append(np.round(np.geomspace(1, 1000, 60)), [10.0, 100.0]))
    single = eps2 / 2.0 + np.array([nr.psi(eps2, gamma=gamma, delta=delta / k) for k in m])
    return pd.DataFrame({
        "m": m,
        "thm6": fl.zcdp_epsilon(m * eps2 / 2.0, delta),
        "thm5": nr.brownian_expost_bound(m * eps2, gamma=gamma, delta=delta),
        "basic": m * single,
    })


#: CPU seconds one Figure 3 trial costs at most (five sample sizes, both methods; bench/results-where-time-goes.md)
FIG3_SECONDS_PER_TRIAL = 0.08
#: Most trials one request may run: with FIG3_SECONDS_PER_TRIAL each, well under the time a request may take
FIG3_MAX_TRIALS = 500


def figure3_seconds(trials: int) -> float:
    """Estimated CPU seconds of :func:`figure3` for ``trials`` trials per sample size (stated before it starts)."""
    return min(int(trials), FIG3_MAX_TRIALS) * FIG3_SECONDS_PER_TRIAL


@cached
def figure3(trials: int, variant: str, seed: int) -> pd.DataFrame:
    """Figure 3 (Section 7.2): precision and results returned vs n, noise reduction vs doubling (``zipf_experiment``).

    Paper settings (ε = 10, δ'' = 1e-6, α = 0.1, ε_EM = 0.1, grid of 1000 levels linear in ε²), at most
    :data:`FIG3_MAX_TRIALS` trials per n (the paper runs 1000). Pure and picklable: the page runs it in a background
    worker (``app.background.result``), which also keeps the finished result for every session; cached, so a lesson
    that asks twice computes once.
    """
    t = min(int(trials), FIG3_MAX_TRIALS)
    return nr.zipf_experiment(sample_sizes=PAPER_SIZES, trials=t, alpha=PAPER["alpha"], epsilon=PAPER["epsilon"],
                              delta=PAPER["delta"], grid_size=PAPER["levels"], variant=variant, rng=seed)


@cached
def figure3_reference() -> pd.DataFrame:
    """An independent re-implementation's Figure 3 means (1000 trials), to compare with the reproduced means; the
    values and where they come from are in ``app/compute/data/noise_reduction_fig3.json``."""
    data = json.loads(resources.files("app.compute").joinpath("data/noise_reduction_fig3.json").read_text("utf-8"))
    return pd.DataFrame(data["rows"], columns=data["columns"])


#: The paper's Reddit experiment (Section 7.2): ε = 1, δ'' = 1e-6, α = 0.01, ε_EM = 0.01, smallest level 0.0001
#: (read as ε; as ε² it changes little), 1000 candidate words. Its results over 1000 trials, as printed:
REDDIT = {"epsilon": 1.0, "delta": 1e-6, "alpha": 0.01, "epsilon_em": 0.01, "epsilon2_min": 1e-8, "words": 1000}
REDDIT_PAPER = {"noise_reduction": (152.0, 0.97), "doubling": (109.0, 0.98)}  # (results, precision)
#: The methods and mechanisms of the experiments and the filter, in the words their tables show.
METHOD_WORDS = {"noise_reduction": "noise reduction", "doubling": "doubling", "gaussian": "Gaussian",
                "laplace": "Laplace"}
#: Stand-in data (the Reddit word histogram is not bundled): 2,000,000 author–word pairs drawn from a Zipf law with
#: exponent 1 over the 1000 words, so the most common word is used by about 270,000 authors.
REDDIT_STANDIN = {"a": 1.0, "n": 2_000_000}
REDDIT_SECONDS_PER_TRIAL = 0.03


@cached
def reddit_standin(trials: int, seed: int, epsilon_em: float = REDDIT["epsilon_em"],
                   epsilon_min: float = math.sqrt(REDDIT["epsilon2_min"])) -> pd.DataFrame:
    """The Reddit experiment's settings on stand-in Zipf data: results and precision of both methods.

    One row per method: results (mean, sd) and precision (mean) over ``trials`` trials (at most
    :data:`FIG3_MAX_TRIALS`), next to the paper's printed means; ``epsilon_em`` is the selection's budget ε_EM and
    ``epsilon_min`` the smallest noise level ε₁ (the paper: 0.01 and 0.0001). Pure: runs in a background worker."""
    df = nr.zipf_experiment(sample_sizes=(REDDIT_STANDIN["n"],), trials=min(int(trials), FIG3_MAX_TRIALS),
                            alpha=REDDIT["alpha"], epsilon=REDDIT["epsilon"], delta=REDDIT["delta"],
                            epsilon_em=float(epsilon_em), epsilon2_min=float(epsilon_min) ** 2,
                            a=REDDIT_STANDIN["a"], support=REDDIT["words"], rng=seed)
    df["paper_results"] = df["method"].map(lambda m: REDDIT_PAPER[m][0])
    df["paper_precision"] = df["method"].map(lambda m: REDDIT_PAPER[m][1])
    return df[["method", "trials", "results_mean", "results_sd", "precision_mean", "paper_results",
               "paper_precision"]]


@cached
def paper_costs(seed: int, draws: int = 2000) -> pd.DataFrame:
    """Cost per count at y ∈ {30, 50, 100, 200, 500}, the paper's settings: grid linspace(1e-4, 2ρ*(10, 1e-6), 1000)."""
    top = 2.0 * float(fl.rho_budget(PAPER["epsilon"], PAPER["delta"]))
    return nr.cost_comparison([30, 50, 100, 200, 500], alpha=PAPER["alpha"], epsilon2_min=EPS2_MIN,
                              epsilon2_max=top, grid_size=int(PAPER["levels"]), draws=draws, rng=seed)


@dataclass(frozen=True)
class InversionSummary:
    """Path 1 of the path panel: its stopping level ε_T, charge ρ_T = ε_T²/2 and realised loss ℒ at the stop."""
    epsilon_stop: float
    rho_stop: float
    loss_stop: float


@cached
def inversion(epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float, alpha: float,
              direction: int, seed: int) -> tuple[pd.DataFrame, InversionSummary]:
    """The Brownian paths of the path panel on the precision clock s = ε²: W(s) = s·(Y − y) (a standard BM)
    and the loss process ℒ(s) = s/2 + u·W(s) against the neighbour f(x') = y − u (``brownian_loss``, Thm 4).

    Summary: ε_T, ρ_T = ε_T²/2 and ℒ at the stop of path 1.
    """
    df, stops = paths(epsilon, delta, variant, levels, spacing, value, alpha, "brownian", seed)
    s = df["epsilon"].to_numpy() ** 2
    rel = df["release"].to_numpy()
    loss = nr.brownian_loss(rel, epsilon=df["epsilon"].to_numpy(), value=value, neighbour=value - direction)
    out = pd.DataFrame({"path": df["path"].to_numpy(), "s": s, "W": s * (rel - value), "loss": loss})
    first = stops.iloc[0]
    e_t = float(first["epsilon_stop"])
    loss_t = float(nr.brownian_loss(float(first["release"]), epsilon=e_t, value=value, neighbour=value - direction))
    return out, InversionSummary(e_t, e_t**2 / 2.0, loss_t)


# ---- correlation of the coupled noise across levels ----------------------------------------------

N_CORR = 2000  # paths behind the empirical correlation matrix
CORR_LEVELS = 25  # levels shown in the heatmap (evenly picked from the page grid)


@dataclass(frozen=True)
class CorrelationSummary:
    """Largest |empirical − theory| correlation and the mean correlation of neighbouring levels (theory)."""
    max_gap: float
    adjacent: float


@cached
def correlation(epsilon: float, delta: float, variant: str, levels: int, spacing: str, mechanism: str,
                seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, CorrelationSummary]:
    """Empirical Corr(Z_i, Z_j) of N_CORR coupled paths against min(ε_i, ε_j)/max(ε_i, ε_j) (both processes).

    Returns (levels ε, empirical matrix, theory matrix, summary: largest |empirical − theory|, adjacent-level
    correlation in theory).
    """
    eps = grid(epsilon, delta, variant, levels, spacing)
    eps = eps[np.unique(np.round(np.linspace(0, eps.size - 1, min(CORR_LEVELS, eps.size))).astype(int))]
    sampler = nr.brownian_path if mechanism == "brownian" else nr.laplace_path
    z = sampler(eps, n_paths=N_CORR, rng=seed)
    emp = np.corrcoef(z, rowvar=False) if eps.size > 1 else np.ones((1, 1))
    theory = np.minimum.outer(eps, eps) / np.maximum.outer(eps, eps)
    adj = float(np.mean(eps[:-1] / eps[1:])) if eps.size > 1 else 1.0
    return eps, emp, theory, CorrelationSummary(float(np.abs(emp - theory).max()), adj)


def correlation_frame(eps: np.ndarray, emp: np.ndarray, theory: np.ndarray) -> pd.DataFrame:
    """The heatmap's data in long form (epsilon_i, epsilon_j, empirical, theory) for the CSV download."""
    k = eps.size
    return pd.DataFrame({"epsilon_i": np.repeat(eps, k), "epsilon_j": np.tile(eps, k), "empirical": emp.ravel(),
                         "theory": theory.ravel()})


# ---- distribution of the total privacy loss of filter runs ---------------------------------------

N_FILTER_RUNS = 1000  # filter runs behind the loss histogram
FILTER_LEVELS = 50  # grid levels of each Brownian round inside the simulated filter
#: Seconds the filter part waits for its runs (:func:`filter_runs`, a background job) before it shows a waiting note:
#: through a worker they are ready in time for most ε (drawn in the same run), not near ε = 20 (see bench/).
FILTER_RUNS_WAIT = 0.015


@dataclass(frozen=True)
class LossSummary:
    """Filter runs: ρ*, mean ρ spent, mean and variance of the total loss, its tail above ε (empirical, normal)."""
    rho: float
    spent: float
    mean: float
    var: float
    tail: float
    tail_gauss: float
    delta: float
    rounds: float
    bm_rounds: float


@cached
def loss_distribution(epsilon: float, delta: float, variant: str, value: float, alpha: float,
                      seed: int, mix: float = 0.4) -> tuple[pd.DataFrame, pd.DataFrame, LossSummary]:
    """Total realised loss of N_FILTER_RUNS unified-filter runs (``filter_losses``: a share ``mix`` of Gaussian
    zCDP rounds, the rest Brownian noise reductions of y stopped at relative error ``alpha``) against a
    worst-case neighbour, with the N(ρ, 2ρ) density.

    Returns (histogram: loss bin centre, density; curve: loss, normal density; summary: ρ*, mean spent, mean and
    variance of the loss, empirical and Gaussian tail mass above ε, δ'').
    """
    rho = budget(epsilon, delta, variant).rho
    runs = nr.filter_losses(rho, n_runs=N_FILTER_RUNS, value=value, alpha=alpha, zcdp_share=mix,
                            levels=FILTER_LEVELS, rng=seed)
    loss = runs["loss"].to_numpy()
    sd = math.sqrt(2.0 * rho)
    lo, hi = min(loss.min(), rho - 4 * sd), max(loss.max(), rho + 4 * sd)
    dens, edges = np.histogram(loss, bins=40, range=(lo, hi), density=True)
    hist = pd.DataFrame({"loss": (edges[:-1] + edges[1:]) / 2.0, "density": dens, "width": np.diff(edges)})
    x = np.linspace(lo, hi, 200)
    curve = pd.DataFrame({"loss": x, "density": stats.norm.pdf(x, loc=rho, scale=sd)})
    summary = LossSummary(rho=rho, spent=float(runs["spent"].mean()), mean=float(loss.mean()),
                          var=float(loss.var(ddof=1)), tail=float((loss > epsilon).mean()),
                          tail_gauss=float(stats.norm.sf(epsilon, loc=rho, scale=sd)), delta=delta,
                          rounds=float(runs["rounds"].mean()), bm_rounds=float(runs["bm_rounds"].mean()))
    return hist, curve, summary


def filter_runs(epsilon: float, delta: float, variant: str, value: float, alpha: float, seed: int,
                mix: float) -> tuple[pd.DataFrame, pd.DataFrame, LossSummary]:
    """Panel 9's Monte Carlo as a background job (:mod:`app.background`): :func:`loss_distribution`
    (Thm 6), uncached."""
    return loss_distribution.__wrapped__(epsilon, delta, variant, value, alpha, seed, mix)


@dataclass(frozen=True)
class ZipfSummary:
    """Largest count, items that could ever be released at the paper's budget, the count that needs, Σ k^(−a)."""
    largest: int
    releasable: int
    need: float
    normaliser: float


@cached
def zipf_counts(a: float, n: int, seed: int, support: int = 300) -> tuple[pd.DataFrame, ZipfSummary]:
    """n i.i.d. Zipf(a) draws on {1..support} (``zipf_probabilities``), counted, with the expected n·p_k.

    Summary: largest count, items with a count ≥ (2+α)/α/ε_max at the paper's budget (count 21/√2.706 for α = 0.1
    would be released at the top level), and the normaliser Σ k^(−a) (13.212814 for a = 0.75 on 1–300).
    """
    p = nr.zipf_probabilities(a, support)
    counts = np.random.default_rng([seed, 3]).multinomial(int(n), p)
    k = np.arange(1, support + 1)
    top = math.sqrt(2.0 * float(fl.rho_budget(PAPER["epsilon"], PAPER["delta"])))
    need = (2.0 + PAPER["alpha"]) / PAPER["alpha"] / top
    df = pd.DataFrame({"item": k, "count": counts, "expected": n * p})
    return df, ZipfSummary(int(counts.max()), int((counts >= need).sum()), need,
                           float((k.astype(float) ** (-a)).sum()))


# ---- the backward martingale ----------------------------------------------------------------------

N_MART = 4000  # paths behind the martingale means
MART_SHOWN = 15  # paths drawn


@dataclass(frozen=True)
class MartingaleSummary:
    """Mean of M at the stopping time and its standard error, share stopped early, median stopping time t_T."""
    stopped_mean: float
    stopped_se: float
    stopped_share: float
    median_t_stop: float


@cached
def martingale(epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float, alpha: float,
               lam: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, MartingaleSummary]:
    """M(t) = exp(λB(t)/t − λ²/(2t)) (Lemma 6.1, ``backward_martingale``) on N_MART Brownian paths of the
    page grid, its mean ± 2 se at every level, and its mean at the adaptive stopping time of the relative-error rule.

    Returns (paths: path, t, M for MART_SHOWN paths; mean: t, mean, low, high; summary: mean of M at the stop ± se,
    share of runs stopped before the last level).
    """
    eps = grid(epsilon, delta, variant, levels, spacing)
    z = nr.brownian_path(eps, n_paths=N_MART, rng=np.random.default_rng([seed, 4]))
    m = nr.backward_martingale(z, eps, lam=lam)
    t = 1.0 / eps**2
    se = m.std(axis=0, ddof=1) / math.sqrt(N_MART)
    mean = pd.DataFrame({"t": t, "mean": m.mean(axis=0), "low": m.mean(axis=0) - 2 * se,
                         "high": m.mean(axis=0) + 2 * se})
    shown = pd.DataFrame({"path": np.repeat(np.arange(1, MART_SHOWN + 1), eps.size), "t": np.tile(t, MART_SHOWN),
                          "M": m[:MART_SHOWN].ravel()})
    stop = np.asarray(nr.relative_error_stop(value + z, eps[None, :], alpha=alpha))
    hit = stop.any(axis=1)
    idx = np.where(hit, stop.argmax(axis=1), eps.size - 1)
    at_stop = m[np.arange(N_MART), idx]
    return shown, mean, MartingaleSummary(float(at_stop.mean()), float(at_stop.std(ddof=1) / math.sqrt(N_MART)),
                                          float(hit.mean()), float(np.median(t[idx])))


# ---- the Laplace noise-reduction process ----------------------------------------------------------

N_LAPLACE = 2000  # paths behind the empirical P(flat) and the loss check
LAPLACE_SHOWN = 3  # paths drawn


@dataclass(frozen=True)
class LaplaceSummary:
    """Mean empirical and theoretical P(flat), largest gap, path 1's stop ε_T and loss, largest |ℒ|/ε (Lemma A.1)."""
    flat_empirical: float
    flat_theory: float
    flat_gap: float
    epsilon_stop: float
    loss_stop: float
    max_ratio: float


@cached
def laplace_process(epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float,
                    alpha: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, LaplaceSummary]:
    """The piecewise-constant Laplace process X(b), b = 1/ε, on the page grid (``laplace_path``, Appendix A).

    Returns (paths: path, b, X, flat — whether X(b) equals the value at the next finer level, for LAPLACE_SHOWN
    paths; pairs: b_fine, b_coarse, empirical share of N_LAPLACE paths flat between the two levels, theory
    (b_fine/b_coarse)²; summary: mean empirical and theory P(flat), largest gap, ε_T and the ex-post loss
    (``laplace_loss``, neighbour y − 1) of path 1 at the relative-error stop, and the largest |ℒ|/ε over all
    paths and levels, which Lemma A.1 keeps ≤ 1).
    """
    eps = grid(epsilon, delta, variant, levels, spacing)
    x = nr.laplace_path(eps, n_paths=N_LAPLACE, rng=np.random.default_rng([seed, 10]))
    b = 1.0 / eps
    flat = np.zeros(x.shape, dtype=bool)
    flat[:, :-1] = x[:, :-1] == x[:, 1:]
    shown = pd.DataFrame({"path": np.repeat(np.arange(1, LAPLACE_SHOWN + 1), eps.size),
                          "b": np.tile(b, LAPLACE_SHOWN), "X": x[:LAPLACE_SHOWN].ravel(),
                          "flat": flat[:LAPLACE_SHOWN].ravel()})
    pairs = pd.DataFrame({"b_fine": b[1:], "b_coarse": b[:-1], "empirical": flat[:, :-1].mean(axis=0),
                          "theory": (b[1:] / b[:-1]) ** 2})
    loss = np.asarray(nr.laplace_loss(value + x, epsilon=eps[None, :], value=value, neighbour=value - 1.0))
    stop = np.asarray(nr.relative_error_stop(value + x[0], eps, alpha=alpha))
    k = int(np.argmax(stop)) if stop.any() else eps.size - 1
    gap = float(np.abs(pairs["empirical"] - pairs["theory"]).max()) if eps.size > 1 else 0.0
    return shown, pairs, LaplaceSummary(
        flat_empirical=float(pairs["empirical"].mean()) if eps.size > 1 else 1.0,
        flat_theory=float(pairs["theory"].mean()) if eps.size > 1 else 1.0, flat_gap=gap,
        epsilon_stop=float(eps[k]), loss_stop=float(loss[0, k]),
        max_ratio=float(np.max(np.abs(loss) / eps[None, :])),
    )
