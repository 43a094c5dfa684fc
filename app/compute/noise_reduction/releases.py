"""A queue of counts released under one budget (Rogers et al. 2023, Figure 1 made live): noise reduction under
the unified filter (Thm 6) against doubling under the zCDP filter (Thm 2), and Thm 3's concurrent filter."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.noise_reduction.grid import EPS2_MIN, make_grid
from app.notation import number
from dpcore import filters as fl
from dpcore import noise_reduction as nr
from dpcore._exact import half_square_up
from dpcore.noise_reduction.doubling import _doubling_run

ZIPF_A = 0.75  # Figure 2 / 3 Zipf exponent


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


def _widest(flt: fl.PrivacyFilter) -> float:
    """The largest ε_max whose worst case ε_max²/2 fits what ``flt`` has left, to the ulp.

    √(2ρ) of the float ρ left is rounded, and ρ itself is a rounded difference, so the exact half-square of √(2ρ) can
    be over what is left by an ulp (the filter, which compares budgets exactly, would then refuse the whole grid) or
    under it: step to the neighbouring float while the filter's own verdict says so (a few steps: both roundings are
    within an ulp)."""
    top = math.sqrt(2.0 * flt.remaining_rho)
    for _ in range(64):
        if top > 0.0 and not flt.can_start(epsilon_max=top):
            top = math.nextafter(top, 0.0)
        elif flt.can_start(epsilon_max=math.nextafter(top, math.inf)):
            top = math.nextafter(top, math.inf)
        else:
            break
    return top


def _release_nr(
    flt: fl.PrivacyFilter, y: float, *, alpha: float, levels: int, spacing: str, rng: np.random.Generator, label: str
) -> Outcome:
    """One Brownian noise reduction whose grid ends at the whole remaining budget, admitted by ``flt``."""
    top = _widest(flt)
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


def _release_doubling(
    flt: fl.PrivacyFilter, y: float, *, alpha: float, rng: np.random.Generator, label: str
) -> Outcome:
    """Doubling baseline (Section 7.1): every attempt is paid, the last one capped at the remaining budget.

    Each attempt is charged to ``flt`` before its noise is drawn, and its level is sized from what the filter has
    left (``left``), so the filter records exactly what the released levels cost: recording the attempts' float sum
    afterwards, clipped to what is left, could record an ulp less than the levels the release used."""
    if flt.remaining_rho < EPS2_MIN / 2.0:
        try:
            flt.charge_zcdp(EPS2_MIN / 2.0, label=label)
        except fl.BudgetExceeded:
            return REFUSED
    attempt = 0

    def charge(rho: float) -> None:
        nonlocal attempt
        attempt += 1
        flt.charge_zcdp(rho, label=f"{label}: attempt {attempt}")

    spent, ok, _, draws = _doubling_run(
        y, alpha, EPS2_MIN, math.inf, flt.remaining_rho, 1.0, rng, charge=charge, left=lambda: flt.remaining_rho
    )
    if not draws:  # nothing was left for an attempt: nothing was released
        return REFUSED
    return Outcome("accepted" if ok else "failed (discarded)", draws[-1], spent)


@cached
def odometer(
    epsilon: float,
    delta: float,
    variant: str,
    levels: int,
    spacing: str,
    value: float,
    alpha: float,
    count: int,
    seed: int,
) -> pd.DataFrame:
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
            rows.append(
                {
                    "method": method,
                    "count": j,
                    "true_count": y,
                    "status": out.status,
                    "charge": out.charge,
                    "spent": flt.rho_spent,
                    "remaining": flt.remaining_rho,
                }
            )
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


class Concurrent(NamedTuple):
    """The queue under the concurrent filter, one row per count, and what each part spent and returned."""

    table: pd.DataFrame  #: count, true_count, part, status, charge, rho_spent, expost_spent
    summary: ConcurrentSummary


@cached
def concurrent(
    epsilon: float, delta: float, epsilon_expost: float, value: float, alpha: float, count: int, levels: int, seed: int
) -> Concurrent:
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
                rho = half_square_up(e)  # ε²/2 rounded up: what the Gaussian at level ε costs (Thm 2)
                c.zcdp.charge_zcdp(rho, label=label)
                out = Outcome("accepted", y + rng.standard_normal() / e, rho)  # one-shot: always released
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
                res = nr.release_with_stopping(
                    y, epsilons=make_grid(top, levels, "geometric"), alpha=alpha, mechanism="laplace", rng=rng
                )
                c.expost.charge(res.charge)
                out = Outcome("accepted" if res.accepted else "failed (discarded)", res.release, res.charge)
        rows.append(
            {
                "count": j,
                "true_count": y,
                "part": part,
                "status": out.status,
                "charge": out.charge,
                "rho_spent": c.zcdp.rho_spent,
                "expost_spent": c.expost.epsilon_spent,
            }
        )
    df = pd.DataFrame(rows)
    ok = df["status"] == "accepted"
    eps_total, delta_total = c.guarantee
    return Concurrent(
        df,
        ConcurrentSummary(
            c.zcdp.rho_budget,
            c.zcdp.rho_spent,
            epsilon_expost,
            c.expost.epsilon_spent,
            int((ok & df["part"].str.startswith("zCDP")).sum()),
            int((ok & df["part"].str.startswith("ex-post")).sum()),
            eps_total,
            delta_total,
        ),
    )
