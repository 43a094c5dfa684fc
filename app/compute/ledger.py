"""Cached accounting of a privacy ledger: the five accountants' totals and their running totals release by release."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from app.compute._cache import cached
from dpcore import ledger as dl


@dataclass(frozen=True)
class Accounts:
    """``totals``: one row per accountant (name, epsilon, delta, within, note); ``curve``: the running totals."""

    totals: pd.DataFrame
    curve: pd.DataFrame


@cached
def accounts(ledger_json: str) -> Accounts:
    """The accountants of a ledger given as :meth:`dpcore.ledger.Ledger.to_json` (a string: a cheap cache key)."""
    led = dl.restore(ledger_json)
    res = dl.accountants(led.releases, led.epsilon, led.delta, delta_share=led.delta_share)
    totals = pd.DataFrame([dataclasses.asdict(r) for r in res], columns=["name", "epsilon", "delta", "within", "note"])
    return Accounts(totals, dl.cumulative(led.releases, led.epsilon, led.delta, delta_share=led.delta_share))
