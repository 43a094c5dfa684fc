"""The ex-post privacy filter (basic composition) and the concurrent filter of Theorem 3.

Rogers, Samorodnitsky, Wu, Ramdas (NeurIPS 2023), Section 5: Lemma 5.2 (ex-post losses add up; a
mechanism may start only if its worst-case loss fits what is left) and Thm 3 (a zCDP filter and an
ex-post filter run side by side are (ε + ε', δ + δ' + δ'')-DP by concurrent composition, Thm 1).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from dpcore import _validate as _v
from dpcore.noise_reduction.filter_budget import (
    _TOL,
    BudgetExceeded,
    _fits,
    _Ledger,
    _restore,
    _RunningTotal,
    _saved,
    _SpentTotal,
)
from dpcore.noise_reduction.unified_filter import ZCDPFilter

__all__ = ["ExPostFilter", "ConcurrentFilter"]


class ExPostFilter(_Ledger):
    """Ex-post privacy filter by basic composition (Lemma 5.2, with the admission rule its proof needs).

    A mechanism with ex-post bound ℰ_n (worst case sup ℰ_n = ``epsilon_max``) and failure probability
    δ_n may start iff Σ_{i<n} ℰ_i(y_i) + sup ℰ_n ≤ ε and Σ δ_i + δ_n ≤ δ; once run it is charged its
    realised ℰ_n(y_n) (``epsilon_stop``). The transcript is (ε, δ)-DP. Lemma 5.2 as printed only asks
    Σ_{i<n} ℰ_i ≤ ε before round n, which lets round n overshoot ε; Thm 3's text ("do not exceed the
    remaining budget") states the rule used here. For Laplace noise reduction ℰ = ε_T and δ_n = 0 (the
    paper composes Laplace noise reductions only this way, Section 8); for a Brownian one use
    ``brownian_expost_bound``. Totals are kept exactly and decided exactly; ``tol`` > 0 keeps a reserve of
    ``tol``·ε unspent (default 0).
    """

    kind = "ex_post"
    epsilon_spent = _SpentTotal("_eps", "Σ of the realised ex-post losses charged so far (exact, rounded to a float).")
    delta_spent = _SpentTotal("_delta", "Σ δ_n of the mechanisms admitted so far.")

    def __init__(self, epsilon: float, delta: float = 0.0, *, tol: float = _TOL, record: bool = True) -> None:
        super().__init__(record)
        self.epsilon = _v.positive("epsilon", epsilon)
        self.delta = _v.probability("delta", delta, high_open=True)
        self.tol = _v.nonnegative("tol", tol)
        self._eps = _RunningTotal()
        self._delta = _RunningTotal()

    @property
    def remaining_epsilon(self) -> float:
        """Ex-post ε still available, clamped at 0."""
        return self._eps.remaining(self.epsilon)

    def _spent_and_remaining(self) -> tuple[float, float]:
        return self.epsilon_spent, self.remaining_epsilon

    @property
    def guarantee(self) -> tuple[float, float]:
        """(ε, δ) guarantee of the filtered transcript."""
        return (self.epsilon, self.delta)

    def _fits(self, e: float, d: float) -> bool:
        return _fits(self._eps, e, self.epsilon, self.tol) and (d == 0.0 or _fits(self._delta, d, self.delta, self.tol))

    def can_start(self, *, epsilon_max: float, delta: float = 0.0) -> bool:
        """May a mechanism with worst-case ex-post loss ``epsilon_max`` and failure ``delta`` start?"""
        e = _v.nonnegative("epsilon_max", epsilon_max)
        d = _v.probability("delta", delta)
        return self._open is None and self._fits(e, d)

    def start(self, epsilon_max: float, *, delta: float = 0.0, label: str = "ex-post") -> None:
        """Admit a mechanism (Lemma 5.2 admissibility); raises :class:`BudgetExceeded` if it may not fit."""
        e = _v.nonnegative("epsilon_max", epsilon_max)
        d = _v.probability("delta", delta)
        if self._open is not None:
            raise ValueError("epsilon_max: a mechanism is already running; charge it first")
        if not self._fits(e, d):
            self._log_admission("refused", str(label), e, d)
            raise BudgetExceeded(
                f"epsilon_max = {e:g} exceeds the remaining ex-post budget {self.remaining_epsilon:g}"
                + (f" (or delta {d:g} > remaining {self._delta.remaining(self.delta):g})" if d else "")
            )
        self._open = {"epsilon_max": e, "delta": d, "label": str(label)}
        if d:
            self._delta.add(d)
        self._log_admission("started", str(label), e, d)

    def _log_admission(self, status: str, label: str, epsilon_max: float, delta: float) -> None:
        """The entry of a mechanism refused or started: nothing charged yet."""
        self._log("ex_post", label, status, 0.0, epsilon_max=epsilon_max, delta=delta)

    def charge(self, epsilon_stop: float, *, label: str | None = None) -> float:
        """Charge the realised ex-post loss bound ℰ_n(y_n) ≤ the admitted ε_max; returns the remainder."""
        es = _v.nonnegative("epsilon_stop", epsilon_stop)
        if self._open is None:
            raise ValueError("epsilon_stop: call start(epsilon_max) before charging a mechanism")
        em = self._open["epsilon_max"]
        if es > em * (1 + 1e-12) + 1e-300:
            raise ValueError(f"epsilon_stop must be <= the admitted epsilon_max = {em:g}, got {es:g}")
        es = min(es, em)
        lab = self._open["label"] if label is None else str(label)
        d = self._open["delta"]
        self._open = None
        self._eps.add(es)
        self._log("ex_post", lab, "accepted", es, epsilon_max=em, epsilon_stop=es, delta=d)
        return self.remaining_epsilon

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form (JSON-serialisable) of the configuration and the whole ledger."""
        return {
            "type": "ExPostFilter",
            "epsilon": self.epsilon,
            "delta": self.delta,
            "tol": self.tol,
            "record": self.record,
            **_saved("epsilon_spent", self._eps),
            **_saved("delta_spent", self._delta),
            **self._saved_ledger(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExPostFilter:
        """Rebuild from :meth:`to_dict` output, checking the totals are within budget."""
        if not isinstance(data, dict):
            raise ValueError("data must be a dict produced by to_dict()")
        f = cls(
            data["epsilon"],
            data.get("delta", 0.0),
            tol=data.get("tol", _TOL),
            record=data.get("record", True),
        )
        f._eps = _restore(data, "epsilon_spent")
        f._delta = _restore(data, "delta_spent")
        if not (_fits(f._eps, 0.0, f.epsilon, f.tol) and _fits(f._delta, 0.0, f.delta, f.tol)):
            raise ValueError(f"epsilon_spent = {f.epsilon_spent:g} exceeds the budget {f.epsilon:g}")
        f._restore_ledger(data, [dict(e) for e in data.get("entries", [])])
        return f


class ConcurrentFilter:
    """Theorem 3: a zCDP filter (ε, δ, δ'') and an ex-post filter (ε', δ') run side by side.

    zCDP rounds go to ``zcdp`` (Thm 2 rules), ex-post rounds (e.g. Laplace noise reductions) to
    ``expost`` (Lemma 5.2 with the admission rule of :class:`ExPostFilter`); each must fit its own budget.
    By concurrent composition (Thm 1) the interleaved transcript is (ε + ε', δ + δ' + δ'')-DP. The split
    of the budget between the two parts is fixed in advance; the whole run halts at the first halt of
    either part (our reading of the theorem's garbled definition of the stopping time N).
    """

    def __init__(
        self,
        epsilon: float,
        delta: float,
        epsilon_expost: float,
        *,
        delta_expost: float = 0.0,
        delta_mechanisms: float = 0.0,
        record: bool = True,
    ) -> None:
        self.zcdp = ZCDPFilter(epsilon, delta, delta_mechanisms=delta_mechanisms, record=record)
        # checked here so that an error names the ex-post parameter, not ExPostFilter's own ``epsilon``/``delta``
        _v.positive("epsilon_expost", epsilon_expost)
        _v.probability("delta_expost", delta_expost, high_open=True)
        self.expost = ExPostFilter(epsilon_expost, delta_expost, record=record)

    @property
    def guarantee(self) -> tuple[float, float]:
        """(ε + ε', δ_mech + δ'' + δ')."""
        e1, d1 = self.zcdp.guarantee
        e2, d2 = self.expost.guarantee
        return (e1 + e2, d1 + d2)

    @property
    def ledger(self) -> pd.DataFrame:
        """Both ledgers, tagged by ``part`` ("zcdp" or "ex_post")."""
        a = self.zcdp.ledger.assign(part="zcdp")
        b = self.expost.ledger.assign(part="ex_post")
        return pd.concat([x for x in (a, b) if not x.empty] or [a], ignore_index=True)

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form of both parts."""
        return {"type": "ConcurrentFilter", "zcdp": self.zcdp.to_dict(), "expost": self.expost.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConcurrentFilter:
        """Rebuild from :meth:`to_dict` output."""
        if not isinstance(data, dict) or "zcdp" not in data or "expost" not in data:
            raise ValueError("data must be a dict produced by ConcurrentFilter.to_dict()")
        f = cls.__new__(cls)
        f.zcdp = ZCDPFilter.from_dict(data["zcdp"])
        f.expost = ExPostFilter.from_dict(data["expost"])
        return f
