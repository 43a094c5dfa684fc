"""Privacy filters for zCDP and accuracy-first (noise-reduction) mechanisms, with a ledger.

Rogers, Samorodnitsky, Wu, Ramdas, "Adaptive Privacy Composition for Accuracy-first Mechanisms"
(NeurIPS 2023), Sections 3, 5 and 6.2. The filters live with the paper's other pieces in
:mod:`dpcore.noise_reduction`; this module gathers them:

* :class:`PrivacyFilter` — the unified filter (Lemma 6.2 / Thm 6): one zCDP budget ρ* = :func:`rho_budget`
  (ε, δ''); zCDP mechanisms are charged ρ_n, Brownian noise reductions are admitted only if ε_max²/2 fits
  (condition (4)) and are charged ε_T²/2 once stopped.
* :class:`ZCDPFilter` — the same bookkeeping restricted to zCDP mechanisms (Thm 2, look-ahead rule).
* :class:`ExPostFilter` — ex-post composition filter (Lemma 5.2, admitting round n only if its worst case
  fits what is left), e.g. for Laplace noise reduction.
* :class:`ConcurrentFilter` — Thm 3: a zCDP filter and an ex-post filter side by side.

Every decision is recorded in a ledger (``ledger`` DataFrame) and filters round-trip through plain
dicts (``to_dict`` / ``from_dict``) so a cross-page ledger can store them. Running totals and decisions are
exact: no filter accepts a release that takes the exact total over its budget, not even by an ulp.
"""

from __future__ import annotations

from typing import Any

from dpcore import _validate as _v
from dpcore.noise_reduction.expost_filter import ConcurrentFilter, ExPostFilter
from dpcore.noise_reduction.filter_budget import BudgetExceeded, largest_level, rho_budget, zcdp_epsilon
from dpcore.noise_reduction.unified_filter import PrivacyFilter, ZCDPFilter

__all__ = [
    "BudgetExceeded",
    "largest_level",
    "rho_budget",
    "zcdp_epsilon",
    "PrivacyFilter",
    "ZCDPFilter",
    "ExPostFilter",
    "ConcurrentFilter",
    "filter_from_dict",
]


def filter_from_dict(data: dict[str, Any]) -> PrivacyFilter | ExPostFilter | ConcurrentFilter:
    """Rebuild any filter of this module from its ``to_dict`` form (dispatch on ``data["type"]``)."""
    if not isinstance(data, dict) or "type" not in data:
        raise ValueError("data must be a dict produced by to_dict()")
    kinds: dict[str, Any] = {
        "PrivacyFilter": PrivacyFilter,
        "ZCDPFilter": ZCDPFilter,
        "ExPostFilter": ExPostFilter,
        "ConcurrentFilter": ConcurrentFilter,
    }
    t = _v.choice("type", data["type"], tuple(kinds))
    return kinds[t].from_dict(data)
