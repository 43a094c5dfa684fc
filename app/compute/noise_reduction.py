"""Cached tables for the "Accuracy first: noise reduction" page (paper 001, spec ``noise_reduction.md`` §7).

Scalar arguments in, small DataFrames / dicts out; every cache is bounded by :data:`app.compute.MAX_ENTRIES`.
The maths lives in :mod:`dpcore.noise_reduction` and :mod:`dpcore.filters`; this module only evaluates it on the
grids the charts need. The interactive ledger keeps a :class:`dpcore.filters.PrivacyFilter` as a plain dict
(``to_dict`` / ``from_dict``) so the page can store it in ``st.session_state``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
import streamlit as st

from app.compute import MAX_ENTRIES
from dpcore import filters as fl
from dpcore import noise_reduction as nr

EPS2_MIN = 1e-4  # smallest noise level ε²_min of every grid (Section 7.2: (ε^(1))² = 0.0001)
N_PATHS = 5  # coupled paths drawn in the path panel
N_RUNS = 2000  # runs behind the stopping distribution
COST_DRAWS = 300  # draws per true count in the cost panel
ZIPF_A = 0.75  # Figure 2 / 3 Zipf exponent
PAPER = {"epsilon": 10.0, "delta": 1e-6, "alpha": 0.1, "levels": 1000}  # Section 7.2 settings
PAPER_SIZES = (8000, 16000, 32000, 64000, 128000)
#: spec §4.3 re-implementation (1000 trials): n → (NR results, NR precision, doubling results, doubling precision)
SPEC_FIG3 = {
    8000: (21.25, 0.9672, 16.57, 0.9829),
    16000: (45.37, 0.9693, 32.43, 0.9815),
    32000: (85.52, 0.9693, 58.82, 0.9824),
    64000: (149.15, 0.9725, 102.67, 0.9822),
    128000: (247.82, 0.9762, 176.19, 0.9826),
}


def _cached(fn: Callable) -> Callable:
    return st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)(fn)


# ---- budget and grids ---------------------------------------------------------------------------


@_cached
def budget(epsilon: float, delta: float, variant: str) -> dict[str, float]:
    """ρ* of the unified filter (Thm 6; ``variant`` picks the corrected or printed constant, E1) and the grid top."""
    rho = float(fl.rho_budget(epsilon, delta, variant=variant))
    return {"rho": rho, "eps2_budget": 2.0 * rho, "epsilon_max": math.sqrt(2.0 * rho),
            "corrected": float(fl.rho_budget(epsilon, delta)),
            "as_printed": float(fl.rho_budget(epsilon, delta, variant="as_printed"))}


@_cached
def shortfall(epsilon: float, delta: float, variant: str) -> dict[str, float] | None:
    """None when the budget reaches the grid's first level ε_min; else why not and the smallest ε that does.

    A valid but infeasible combination (e.g. ε = 0.025 at δ = 1e-6): ε_max = √(2ρ*) < ε_min, no count can be released.
    The smallest sufficient ε is the filter's ε for ρ = ε²_min/2 (Thm 6, ``fl.zcdp_epsilon``).
    """
    top = budget(epsilon, delta, variant)["epsilon_max"]
    eps_min = math.sqrt(EPS2_MIN)
    if top > eps_min * (1 + 1e-9):
        return None
    need = float(fl.zcdp_epsilon(EPS2_MIN / 2.0, delta, variant=variant))
    return {"epsilon_max": top, "epsilon_min": eps_min, "epsilon_needed": need}


def make_grid(epsilon_max: float, levels: int, spacing: str) -> np.ndarray:
    """Noise levels from ε_min = √EPS2_MIN to ``epsilon_max``: equally spaced in ε² ("linear", §3.9) or geometric."""
    eps_min = math.sqrt(EPS2_MIN)
    if not epsilon_max > eps_min * (1 + 1e-9):
        raise ValueError(
            f"epsilon: the budget allows noise levels up to ε = {epsilon_max:.3g} only, not above the first level "
            f"ε_min = {eps_min:g} (ε²_min = {EPS2_MIN:g}, Section 7.2): no count can be released. Raise ε or δ."
        )
    if levels < 2:
        return np.array([epsilon_max])
    if spacing == "linear":
        return np.sqrt(np.linspace(EPS2_MIN, epsilon_max**2, levels))
    return np.geomspace(eps_min, epsilon_max, levels)


@_cached
def grid(epsilon: float, delta: float, variant: str, levels: int, spacing: str) -> np.ndarray:
    """The page's ε grid: its top level uses the whole budget, ε_max²/2 = ρ* (spec §3.9)."""
    return make_grid(budget(epsilon, delta, variant)["epsilon_max"], levels, spacing)


# ---- V1: coupled paths --------------------------------------------------------------------------


@_cached
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


@_cached
def bands(epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float,
          alpha: float) -> pd.DataFrame:
    """±1/ε noise band around y and the acceptance boundary ŷ = (2+α)/(αε) (spec §2.11 closed form)."""
    eps = grid(epsilon, delta, variant, levels, spacing)
    return pd.DataFrame({"epsilon": eps, "band_low": value - 1.0 / eps, "band_high": value + 1.0 / eps,
                         "boundary": (2.0 + alpha) / (alpha * eps)})


# ---- V1 readout: distribution of the stopping level over many runs -------------------------------


@_cached
def stopping(epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float, alpha: float,
             mechanism: str, seed: int) -> tuple[pd.DataFrame, dict[str, float]]:
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
    summary = {
        "median_charge": median,
        "mean_charge": float(runs["charge"].mean()),
        "worst_charge": float(worst),
        "median_epsilon_stop": float(runs["epsilon_stop"].median()),
        "accepted": float(acc.mean()),
        "precision": float(good.sum() / acc.sum()) if acc.any() else 1.0,
        "mean_loss": float(runs["loss"].mean()),
        "dp_epsilon_median": float(fl.zcdp_epsilon(median, delta, variant=variant)) if mechanism == "brownian"
        else median,
        "dp_epsilon_worst": float(fl.zcdp_epsilon(worst, delta, variant=variant)) if mechanism == "brownian"
        else float(worst),
    }
    return hist, summary


# ---- the queue of counts, the filter odometer (V5) and the live ledger ----------------------------


def queue(value: float, count: int) -> np.ndarray:
    """A Zipf-shaped queue of true counts y·j^(−0.75), j = 1..count, rounded (at least 1), as in Figure 2."""
    return np.maximum(np.round(value * np.arange(1, count + 1, dtype=float) ** (-ZIPF_A)), 1.0)


def _release_nr(flt: fl.PrivacyFilter, y: float, *, alpha: float, levels: int, spacing: str,
                rng: np.random.Generator, label: str) -> dict[str, Any]:
    """One Brownian noise reduction whose grid ends at the whole remaining budget (spec §3.9), admitted by ``flt``."""
    top = math.sqrt(2.0 * flt.remaining_rho)
    eps_min = math.sqrt(EPS2_MIN)
    eps = make_grid(top, levels, spacing) if top > eps_min * (1 + 1e-9) else np.array([eps_min])
    try:
        flt.start_noise_reduction(float(eps[-1]), label=label)
    except fl.BudgetExceeded:
        return {"status": "refused", "release": math.nan, "charge": 0.0}
    res = nr.release_with_stopping(y, epsilons=eps, alpha=alpha, rng=rng)
    status = "accepted" if res.accepted else "failed (discarded)"
    flt.charge_noise_reduction(res.epsilon_stop, label=f"{label} → ŷ = {res.release:.1f}, {status}")
    return {"status": status, "release": res.release, "charge": res.charge}


def _release_doubling(flt: fl.PrivacyFilter, y: float, *, alpha: float, rng: np.random.Generator,
                      label: str) -> dict[str, Any]:
    """Doubling baseline (Section 7.1): every attempt is paid, capped at the remaining budget (spec §3.8)."""
    if flt.remaining_rho < EPS2_MIN / 2.0:
        try:
            flt.charge_zcdp(EPS2_MIN / 2.0, label=label)
        except fl.BudgetExceeded:
            return {"status": "refused", "release": math.nan, "charge": 0.0}
    res = nr.doubling_release(y, alpha=alpha, epsilon_start=math.sqrt(EPS2_MIN),
                              epsilon_max=math.sqrt(2.0 * flt.remaining_rho), rho_budget=flt.remaining_rho, rng=rng)
    status = "accepted" if res.accepted else "failed (discarded)"
    flt.charge_zcdp(min(res.charge, flt.remaining_rho), label=f"{label}: {res.attempts} attempts, {status}")
    return {"status": status, "release": res.release, "charge": res.charge}


@_cached
def odometer(epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float, alpha: float,
             count: int, seed: int) -> pd.DataFrame:
    """Release the queue of counts in order under one budget (Figure 1 made live, spec V5).

    Noise reduction under the unified filter (Thm 6; each count's grid ends at the remaining budget) against
    doubling under the zCDP filter (Thm 2). Columns: method, count (index), true_count, status, charge, spent.
    """
    rows = []
    for method in ("noise_reduction", "doubling"):
        flt = (fl.PrivacyFilter if method == "noise_reduction" else fl.ZCDPFilter)(epsilon, delta, variant=variant)
        rng = np.random.default_rng([seed, 1 if method == "noise_reduction" else 2])
        for j, y in enumerate(queue(value, count), start=1):
            label = f"count {j} (y = {y:g})"
            if method == "noise_reduction":
                out = _release_nr(flt, float(y), alpha=alpha, levels=levels, spacing=spacing, rng=rng, label=label)
            else:
                out = _release_doubling(flt, float(y), alpha=alpha, rng=rng, label=label)
            rows.append({"method": method, "count": j, "true_count": y, "status": out["status"],
                         "charge": out["charge"], "spent": flt.rho_spent, "remaining": flt.remaining_rho})
    return pd.DataFrame(rows)


def odometer_summary(df: pd.DataFrame) -> dict[str, int]:
    """Counts returned (accepted) per method."""
    acc = df[df["status"] == "accepted"]
    return {m: int((acc["method"] == m).sum()) for m in ("noise_reduction", "doubling")}


def ledger_new(epsilon: float, delta: float, variant: str) -> dict[str, Any]:
    """A fresh live ledger: an empty unified filter (as a dict) and the queue position."""
    return {"config": [epsilon, delta, variant], "filter": fl.PrivacyFilter(epsilon, delta, variant=variant).to_dict(),
            "next": 0}


def ledger_add(state: dict[str, Any], kind: str, *, value: float, count: int, alpha: float, levels: int,
               spacing: str, seed: int) -> tuple[dict[str, Any], str]:
    """Apply one button press to the ledger: the next count of the queue by a zCDP (Gaussian) release or by noise
    reduction. Returns (new state, message).

    ``kind="zcdp"``: a one-shot Gaussian at the level where the relative-error rule would just fire at ŷ = y,
    ε = (2+α)/(α·y), charged ρ = ε²/2 — refused when it does not fit (Thm 2 look-ahead). ``kind="noise_reduction"``:
    a Brownian noise reduction whose grid ends at the whole remaining budget (condition (4)), charged ε_T²/2.
    """
    flt = fl.PrivacyFilter.from_dict(state["filter"])
    j = state["next"] % count
    y = float(queue(value, count)[j])
    rng = np.random.default_rng([seed, state["next"], 0 if kind == "zcdp" else 1])
    label = f"count {j + 1} (y = {y:g})"
    if kind == "zcdp":
        e = (2.0 + alpha) / (alpha * y)
        rho = e * e / 2.0
        try:
            flt.charge_zcdp(rho, label=f"Gaussian release of {label} at ε = {e:.3g}")
            msg = f"Accepted: Gaussian release of {label}, ŷ = {y + rng.standard_normal() / e:.1f}, ρ = {rho:.4g}."
        except fl.BudgetExceeded as exc:
            msg = f"Refused: Gaussian release of {label} — {exc}."
    else:
        out = _release_nr(flt, y, alpha=alpha, levels=levels, spacing=spacing, rng=rng,
                          label=f"noise reduction of {label}")
        msg = (f"Refused: noise reduction of {label} — no noise level fits the remaining budget."
               if out["status"] == "refused" else
               f"Noise reduction of {label}: {out['status']}, ŷ = {out['release']:.1f}, charged ρ = {out['charge']:.4g}.")
    return {"config": state["config"], "filter": flt.to_dict(), "next": state["next"] + 1}, msg


def ledger_view(state: dict[str, Any]) -> tuple[pd.DataFrame, dict[str, float]]:
    """The ledger table and the gauge numbers (budget, spent, remaining, DP ε spent so far) of a stored filter."""
    return _ledger_view(json.dumps(state["filter"]))


@_cached
def _ledger_view(filter_json: str) -> tuple[pd.DataFrame, dict[str, float]]:
    flt = fl.PrivacyFilter.from_dict(json.loads(filter_json))
    df = flt.ledger[["step", "mechanism", "label", "status", "epsilon_max", "epsilon_stop", "charge", "spent",
                     "remaining"]]
    return df, {"budget": flt.rho_budget, "spent": flt.rho_spent, "remaining": flt.remaining_rho,
                "epsilon_spent": flt.spent_epsilon, "accepted": int((df["status"] == "accepted").sum()),
                "refused": int((df["status"] == "refused").sum())}


# ---- V7: cost per count --------------------------------------------------------------------------


def costs(levels: int, alpha: float, value: float, seed: int) -> pd.DataFrame:
    """Expected ε² spent per count, noise reduction vs doubling vs oracle ((2+α)/α/y)² (``cost_comparison``, §4.4, V7).

    True counts on a log grid 10 … 10⁴ plus the slider's y. As in spec V7 the budget is the paper's, Σε² ≤ 2ρ*(10,
    1e-6) = 2.706 (the noise-reduction grid is linear in ε² from ε²_min up to it), so the panel does not depend on
    the sidebar's ε; each true count is cached on its own, so moving y computes one new row.
    """
    values = np.unique(np.append(np.round(np.geomspace(10.0, 1e4, 13)), value))
    return pd.concat([_cost_row(float(y), levels, alpha, seed) for y in values], ignore_index=True)


@_cached
def _cost_row(value: float, levels: int, alpha: float, seed: int) -> pd.DataFrame:
    top = 2.0 * float(fl.rho_budget(PAPER["epsilon"], PAPER["delta"]))
    rng = np.random.default_rng([seed, int(round(value * 100))])
    return nr.cost_comparison([value], alpha=alpha, epsilon2_min=EPS2_MIN, epsilon2_max=top,
                              grid_size=max(levels, 2), draws=COST_DRAWS, rng=rng)


# ---- V4 / E1: the filter constant ----------------------------------------------------------------


@_cached
def constants(epsilon: float, delta: float) -> pd.DataFrame:
    """ε(ρ) certified by Thm 6 with the corrected constant 2√(ρ log(1/δ'')) and the printed 2√(2ρ log(1/δ''))."""
    top = 1.5 * float(fl.rho_budget(epsilon, delta))
    rho = np.linspace(0.0, top, 200)
    return pd.DataFrame({"rho": rho, "corrected": fl.zcdp_epsilon(rho, delta),
                         "as_printed": fl.zcdp_epsilon(rho, delta, variant="as_printed")})


@_cached
def errata(epsilon: float, delta: float, count: int, levels: int) -> dict[str, float]:
    """Numbers for the errata: E1 (Thm 6 constant), E3 (Thm 5 drift) and E6 (Lemma 5.2 admissibility index).

    E3: ``count`` Brownian reductions each stopped at ε² = 0.01 (V = 0.01·count, γ = 0.01, R11), printed ψ(V) vs
    corrected V/2 + ψ(V). E6: after 90 % of an ex-post budget ε is spent, the printed rule (Σ_{i<n} ℰ_i ≤ ε) still
    admits a Laplace noise reduction whose grid tops at ε, so the worst-case total is 1.9ε, not ε.
    """
    v = 0.01 * count
    ex = fl.ExPostFilter(epsilon)
    ex.start(0.9 * epsilon, label="earlier releases")
    ex.charge(0.9 * epsilon)
    return {
        "rho_corrected": float(fl.rho_budget(epsilon, delta)),
        "rho_printed": float(fl.rho_budget(epsilon, delta, variant="as_printed")),
        "thm5_v": v,
        "thm5_printed": float(nr.brownian_expost_bound(v, gamma=0.01, delta=delta, variant="as_printed")),
        "thm5_corrected": float(nr.brownian_expost_bound(v, gamma=0.01, delta=delta)),
        "thm6_for_same_v": float(fl.zcdp_epsilon(v / 2.0, delta)),
        "lemma52_spent": ex.epsilon_spent,
        "lemma52_printed_worst": ex.epsilon_spent + epsilon,
        "lemma52_admits_corrected": float(ex.can_start(epsilon_max=epsilon)),
        "lemma52_corrected_max": ex.remaining_epsilon,
    }


@_cached
def composition_curves(delta: float, eps2: float = 0.01, gamma: float = 0.01) -> pd.DataFrame:
    """V9: ε after m Brownian noise reductions each stopped at ε² = ``eps2`` (spec R11), m = 1 … 1000.

    Thm 6 (corrected): zcdp_epsilon(m·ε²/2, δ); Thm 5 (corrected, E3): V/2 + ψ(V; γ, δ) with V = m·ε²; basic
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


# ---- Figure 3 and the §4.4 table at the paper's settings -----------------------------------------


_FIGURE3: dict[tuple[int, str, int], pd.DataFrame] = {}  # bounded by MAX_ENTRIES, oldest evicted first


def figure3(trials: int, variant: str, seed: int, progress: Callable[[float], None] | None = None) -> pd.DataFrame:
    """Figure 3 (Section 7.2): precision and results returned vs n, noise reduction vs doubling (``zipf_experiment``).

    Paper settings (ε = 10, δ'' = 1e-6, α = 0.1, ε_EM = 0.1, grid of 1000 levels linear in ε²). Cached by the
    scalars in a bounded dict rather than ``st.cache_data``, whose replay forbids the progress bar updates that
    ``progress`` (fraction done) makes while it runs.
    """
    key = (int(trials), str(variant), int(seed))
    if key not in _FIGURE3:
        df = nr.zipf_experiment(sample_sizes=PAPER_SIZES, trials=trials, alpha=PAPER["alpha"],
                                epsilon=PAPER["epsilon"], delta=PAPER["delta"], grid_size=PAPER["levels"],
                                variant=variant, rng=seed, progress=progress)
        while len(_FIGURE3) >= MAX_ENTRIES:
            _FIGURE3.pop(next(iter(_FIGURE3)))
        _FIGURE3[key] = df
    return _FIGURE3[key].copy()


def figure3_cached(trials: int, variant: str, seed: int) -> bool:
    """Whether :func:`figure3` already holds these settings (then the page shows it without a button press)."""
    return (int(trials), str(variant), int(seed)) in _FIGURE3


def figure3_reference() -> pd.DataFrame:
    """The spec's §4.3 re-implementation (1000 trials), for comparison with the reproduced means."""
    rows = []
    for n, (r_nr, p_nr, r_db, p_db) in SPEC_FIG3.items():
        rows.append({"n": n, "method": "noise_reduction", "results_mean": r_nr, "precision_mean": p_nr})
        rows.append({"n": n, "method": "doubling", "results_mean": r_db, "precision_mean": p_db})
    return pd.DataFrame(rows)


@_cached
def paper_costs(seed: int, draws: int = 2000) -> pd.DataFrame:
    """Spec §4.4 table: cost per count at y ∈ {30, 50, 100, 200, 500}, grid linspace(1e-4, 2ρ*(10, 1e-6), 1000)."""
    top = 2.0 * float(fl.rho_budget(PAPER["epsilon"], PAPER["delta"]))
    return nr.cost_comparison([30, 50, 100, 200, 500], alpha=PAPER["alpha"], epsilon2_min=EPS2_MIN,
                              epsilon2_max=top, grid_size=PAPER["levels"], draws=draws, rng=seed)


# ---- V2: time inversion and the privacy-loss process ----------------------------------------------


@_cached
def inversion(epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float, alpha: float,
              direction: int, seed: int) -> tuple[pd.DataFrame, dict[str, float]]:
    """V2: the Brownian paths of panel 1 on the precision clock s = ε²: W(s) = s·(Y − y) (a standard BM, spec §2.8)
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
    summary = {"epsilon_stop": e_t, "rho_stop": e_t**2 / 2.0,
               "loss_stop": float(nr.brownian_loss(float(first["release"]), epsilon=e_t, value=value,
                                                   neighbour=value - direction))}
    return out, summary


# ---- V3: correlation of the coupled noise across levels ------------------------------------------

N_CORR = 2000  # paths behind the empirical correlation matrix
CORR_LEVELS = 25  # levels shown in the heatmap (evenly picked from the page grid)


@_cached
def correlation(epsilon: float, delta: float, variant: str, levels: int, spacing: str, mechanism: str,
                seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, float]]:
    """V3: empirical Corr(Z_i, Z_j) of N_CORR coupled paths against min(ε_i, ε_j)/max(ε_i, ε_j) (spec §2.10, C2/C8).

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
    return eps, emp, theory, {"max_gap": float(np.abs(emp - theory).max()), "adjacent": adj}


def correlation_frame(eps: np.ndarray, emp: np.ndarray, theory: np.ndarray) -> pd.DataFrame:
    """The heatmap's data in long form (epsilon_i, epsilon_j, empirical, theory) for the CSV download."""
    k = eps.size
    return pd.DataFrame({"epsilon_i": np.repeat(eps, k), "epsilon_j": np.tile(eps, k), "empirical": emp.ravel(),
                         "theory": theory.ravel()})


# ---- V6: distribution of the total privacy loss of filter runs -----------------------------------

N_FILTER_RUNS = 1000  # filter runs behind the loss histogram
FILTER_LEVELS = 50  # grid levels of each Brownian round inside the simulated filter


@_cached
def loss_distribution(epsilon: float, delta: float, variant: str, value: float, alpha: float,
                      seed: int, mix: float = 0.4) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, float]]:
    """V6: total realised loss of N_FILTER_RUNS unified-filter runs (``filter_losses``: a share ``mix`` of Gaussian
    zCDP rounds, the rest Brownian noise reductions of y stopped at relative error ``alpha``, spec C10) against a
    worst-case neighbour, with the N(ρ, 2ρ) density.

    Returns (histogram: loss bin centre, density; curve: loss, normal density; summary: ρ*, mean spent, mean and
    variance of the loss, empirical and Gaussian tail mass above ε, δ'').
    """
    rho = budget(epsilon, delta, variant)["rho"]
    runs = nr.filter_losses(rho, n_runs=N_FILTER_RUNS, value=value, alpha=alpha, zcdp_share=mix,
                            levels=FILTER_LEVELS, rng=seed)
    loss = runs["loss"].to_numpy()
    sd = math.sqrt(2.0 * rho)
    lo, hi = min(loss.min(), rho - 4 * sd), max(loss.max(), rho + 4 * sd)
    dens, edges = np.histogram(loss, bins=40, range=(lo, hi), density=True)
    hist = pd.DataFrame({"loss": (edges[:-1] + edges[1:]) / 2.0, "density": dens, "width": np.diff(edges)})
    x = np.linspace(lo, hi, 200)
    curve = pd.DataFrame({"loss": x, "density": stats.norm.pdf(x, loc=rho, scale=sd)})
    summary = {"rho": rho, "spent": float(runs["spent"].mean()), "mean": float(loss.mean()),
               "var": float(loss.var(ddof=1)), "tail": float((loss > epsilon).mean()),
               "tail_gauss": float(stats.norm.sf(epsilon, loc=rho, scale=sd)), "delta": delta,
               "rounds": float(runs["rounds"].mean()), "bm_rounds": float(runs["bm_rounds"].mean())}
    return hist, curve, summary


# ---- V8 left: the Zipf data of Figures 2-3 -------------------------------------------------------


@_cached
def zipf_counts(a: float, n: int, seed: int, support: int = 300) -> tuple[pd.DataFrame, dict[str, float]]:
    """V8 left: n i.i.d. Zipf(a) draws on {1..support} (``zipf_probabilities``), counted, with the expected n·p_k.

    Summary: largest count, items with a count ≥ (2+α)/α/ε_max at the paper's budget (count 21/√2.706 for α = 0.1
    would be released at the top level), and the normaliser Σ k^(−a) (spec R13: 13.212814 for a = 0.75).
    """
    p = nr.zipf_probabilities(a, support)
    counts = np.random.default_rng([seed, 3]).multinomial(int(n), p)
    k = np.arange(1, support + 1)
    top = math.sqrt(2.0 * float(fl.rho_budget(PAPER["epsilon"], PAPER["delta"])))
    need = (2.0 + PAPER["alpha"]) / PAPER["alpha"] / top
    df = pd.DataFrame({"item": k, "count": counts, "expected": n * p})
    return df, {"max": int(counts.max()), "releasable": int((counts >= need).sum()), "need": need,
                "normaliser": float((k.astype(float) ** (-a)).sum())}


# ---- V11: the backward martingale ---------------------------------------------------------------

N_MART = 4000  # paths behind the martingale means
MART_SHOWN = 15  # paths drawn


@_cached
def martingale(epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float, alpha: float,
               lam: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, float]]:
    """V11: M(t) = exp(λB(t)/t − λ²/(2t)) (Lemma 6.1, ``backward_martingale``) on N_MART Brownian paths of the
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
    return shown, mean, {"stopped_mean": float(at_stop.mean()),
                         "stopped_se": float(at_stop.std(ddof=1) / math.sqrt(N_MART)),
                         "stopped_share": float(hit.mean()), "median_t_stop": float(np.median(t[idx]))}


# ---- V10: the Laplace noise-reduction process -----------------------------------------------------

N_LAPLACE = 2000  # paths behind the empirical P(flat) and the loss check
LAPLACE_SHOWN = 3  # paths drawn


@_cached
def laplace_process(epsilon: float, delta: float, variant: str, levels: int, spacing: str, value: float,
                    alpha: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, float]]:
    """V10: the piecewise-constant Laplace process X(b), b = 1/ε, on the page grid (``laplace_path``, spec §3.4).

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
    loss = nr.laplace_loss(value + x, epsilon=eps[None, :], value=value, neighbour=value - 1.0)
    stop = np.asarray(nr.relative_error_stop(value + x[0], eps, alpha=alpha))
    k = int(np.argmax(stop)) if stop.any() else eps.size - 1
    gap = float(np.abs(pairs["empirical"] - pairs["theory"]).max()) if eps.size > 1 else 0.0
    return shown, pairs, {
        "flat_empirical": float(pairs["empirical"].mean()) if eps.size > 1 else 1.0,
        "flat_theory": float(pairs["theory"].mean()) if eps.size > 1 else 1.0, "flat_gap": gap,
        "epsilon_stop": float(eps[k]), "loss_stop": float(loss[0, k]),
        "max_ratio": float(np.max(np.abs(loss) / eps[None, :])), "flat_share_path1": float(flat[0, :-1].mean())
        if eps.size > 1 else 1.0,
    }
