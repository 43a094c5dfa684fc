"""The live ledger a session keeps on the noise-reduction page: the unified filter (Rogers et al. 2023, Thm 6) as
a plain dict in ``st.session_state``, one button press at a time, and its table and gauge."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.noise_reduction.releases import _release_nr, queue
from app.notation import number
from dpcore import filters as fl
from dpcore._exact import half_square_up


@dataclass(frozen=True)
class LedgerState:
    """The live ledger kept in the session: its settings, the unified filter as a plain dict, the queue position."""

    config: tuple[float, float, str]
    filter: dict[str, Any]
    next: int


def ledger_new(epsilon: float, delta: float, variant: str) -> LedgerState:
    """A fresh live ledger: an empty unified filter (as a dict) and the queue position."""
    return LedgerState((epsilon, delta, variant), fl.PrivacyFilter(epsilon, delta, variant=variant).to_dict(), 0)


class LedgerStep(NamedTuple):
    """One button press: the ledger after it and what happened, in a sentence."""

    state: LedgerState
    message: str


def ledger_add(
    state: LedgerState, kind: str, *, value: float, count: int, alpha: float, levels: int, spacing: str, seed: int
) -> LedgerStep:
    """Apply one button press to the ledger: the next count of the queue by a zCDP (Gaussian) release or by noise
    reduction. Returns the new state and the message.

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
        rho = half_square_up(e)  # ε²/2 rounded up: the Gaussian at level ε costs exactly ε²/2 (Thm 2)
        try:
            flt.charge_zcdp(rho, label=f"Gaussian release of {label} at ε = {number(e, 3)}")
            msg = (
                f"Accepted: Gaussian release of {label}, ŷ = {y + rng.standard_normal() / e:.1f}, ρ = {number(rho, 4)}."
            )
        except fl.BudgetExceeded as exc:
            msg = f"Refused: Gaussian release of {label} — {exc}."
    else:
        out = _release_nr(
            flt, y, alpha=alpha, levels=levels, spacing=spacing, rng=rng, label=f"noise reduction of {label}"
        )
        msg = (
            f"Refused: noise reduction of {label} — no noise level fits the remaining budget."
            if out.status == "refused"
            else f"Noise reduction of {label}: {out.status}, ŷ = {out.release:.1f}, "
            f"charged ρ = {number(out.charge, 4)}."
        )
    return LedgerStep(LedgerState(state.config, flt.to_dict(), state.next + 1), msg)


@dataclass(frozen=True)
class Gauge:
    """The live filter's budget ρ*, spent and remaining ρ, the DP ε spent so far, accepted and refused requests."""

    budget: float
    spent: float
    remaining: float
    epsilon_spent: float
    accepted: int
    refused: int


class LedgerView(NamedTuple):
    """A stored filter's ledger table and its gauge numbers."""

    table: pd.DataFrame
    gauge: Gauge


def ledger_view(state: LedgerState) -> LedgerView:
    """The ledger table and the gauge numbers of a stored filter."""
    return _ledger_view(json.dumps(state.filter))


@cached
def _ledger_view(filter_json: str) -> LedgerView:
    flt = fl.PrivacyFilter.from_dict(json.loads(filter_json))
    df = flt.ledger[
        ["step", "mechanism", "label", "status", "epsilon_max", "epsilon_stop", "charge", "spent", "remaining"]
    ]
    return LedgerView(
        df,
        Gauge(
            flt.rho_budget,
            flt.rho_spent,
            flt.remaining_rho,
            flt.spent_epsilon,
            int((df["status"] == "accepted").sum()),
            int((df["status"] == "refused").sum()),
        ),
    )
