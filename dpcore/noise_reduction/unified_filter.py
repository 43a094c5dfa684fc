"""The unified privacy filter for zCDP mechanisms and Brownian noise reductions, and the zCDP filter.

Rogers, Samorodnitsky, Wu, Ramdas (NeurIPS 2023): Thm 2 (zCDP privacy filter, after Whitehouse et al.),
Section 6.2 (Lemma 6.2, Thm 6: zCDP mechanisms and Brownian noise reductions share one zCDP budget ρ*;
a Brownian noise reduction is admitted if its largest level fits, condition (4), and is charged only
ε_T²/2 for the level ε_T at which it stopped).
"""

from __future__ import annotations

import math
from typing import Any, Self

import numpy as np

from dpcore import _validate as _v
from dpcore._exact import half_square_terms, half_square_up
from dpcore.noise_reduction._checks import _grid, _variant
from dpcore.noise_reduction.filter_budget import (
    _TOL,
    BudgetExceeded,
    _fits,
    _Ledger,
    _nonneg,
    _pos,
    _prob,
    _restore,
    _RunningTotal,
    _saved,
    _SpentTotal,
    largest_level,
    rho_budget,
    zcdp_epsilon,
)
from dpcore.noise_reduction.release import NoiseReductionRelease, release_with_stopping

__all__ = ["PrivacyFilter", "ZCDPFilter"]


class PrivacyFilter(_Ledger):
    """Unified privacy filter for zCDP mechanisms and Brownian noise reductions (Lemma 6.2 / Thm 6).

    Budget ρ* = ``rho_budget(epsilon, delta, variant)``; the full transcript is
    (ε, delta_mechanisms + δ)-DP (Thm 6 with the constant 2√(ρ log(1/δ'')) that its proof gives; the paper
    prints 2√(2ρ log(1/δ'')), available as ``variant="as_printed"``). ``delta`` is the conversion slack δ'';
    ``delta_mechanisms`` the budget for Σ δ_n of approximate-zCDP mechanisms.

    Rules (condition (4)): a zCDP mechanism may start iff Σρ + ρ_n ≤ ρ* (and Σδ + δ_n ≤ δ_mech); a Brownian
    noise reduction may start iff Σρ + ε_max²/2 ≤ ρ*, and once stopped it is charged ε_T²/2 (only the last
    level). The paper halts when the sum *equals* the budget; here anything that does not fit is refused with
    :class:`BudgetExceeded` before any noise is drawn, which is what its proof needs. Totals are kept exactly
    and every charge is rounded up, so the exact spend never exceeds ρ* (rounded down); ``tol`` > 0 keeps a
    reserve of ``tol``·ρ* unspent (default 0).
    """

    kind = "unified"
    _allow_nr = True
    rho_spent = _SpentTotal("_rho", "zCDP budget spent so far (the exact running total, rounded to a float).")
    delta_spent = _SpentTotal("_delta", "Σ δ_n of the approximate-zCDP mechanisms run so far.")

    def __init__(
        self,
        epsilon: float,
        delta: float,
        *,
        delta_mechanisms: float = 0.0,
        variant: str = "corrected",
        tol: float = _TOL,
        record: bool = True,
    ) -> None:
        super().__init__(record)
        self.epsilon = _v.positive("epsilon", epsilon)
        self.delta = _v.probability("delta", delta, low_open=True, high_open=True)
        self.delta_mechanisms = _v.probability("delta_mechanisms", delta_mechanisms, high_open=True)
        self.variant = _variant(variant)
        self.tol = _v.nonnegative("tol", tol)
        self.rho_budget = float(rho_budget(self.epsilon, self.delta, variant=self.variant))
        self._rho = _RunningTotal()
        self._delta = _RunningTotal()

    @classmethod
    def from_rho(cls, rho: float, *, delta: float = 1e-6, record: bool = True, **kw: Any) -> PrivacyFilter:
        """A filter whose zCDP budget is exactly ``rho`` (ε = ρ + 2√(ρ ln(1/δ)) for the given δ'')."""
        r = _v.positive("rho", rho)
        var = kw.get("variant", "corrected")
        eps = float(zcdp_epsilon(r, delta, variant=var))
        f = cls(eps, delta, record=record, **kw)
        f.rho_budget = r  # exact, avoids a round-trip rounding error
        return f

    # ---- state ---------------------------------------------------------------------------------
    @property
    def remaining_rho(self) -> float:
        """zCDP budget still available, clamped at 0."""
        return self._rho.remaining(self.rho_budget)

    def _spent_and_remaining(self) -> tuple[float, float]:
        return self.rho_spent, self.remaining_rho

    @property
    def remaining_epsilon_max(self) -> float:
        """The largest top level ε_max of a noise reduction that may start now (ε_max²/2 fits what is left)."""
        return largest_level(self.remaining_rho)

    @property
    def remaining_delta(self) -> float:
        """δ budget of approximate-zCDP mechanisms still available."""
        return self._delta.remaining(self.delta_mechanisms)

    @property
    def spent_epsilon(self) -> float:
        """DP ε of the transcript so far if it stopped now: ρ_spent + 2√(ρ_spent ln(1/δ''))."""
        return float(zcdp_epsilon(min(self.rho_spent, self.rho_budget), self.delta, variant=self.variant))

    @property
    def guarantee(self) -> tuple[float, float]:
        """(ε, δ) guarantee of the whole filtered transcript: (ε, δ_mechanisms + δ'')."""
        return (self.epsilon, self.delta_mechanisms + self.delta)

    @property
    def noise_reduction_open(self) -> bool:
        """Whether a noise reduction has started and not yet been charged."""
        return self._open is not None

    def exhausted(self, min_rho: float = 0.0) -> bool:
        """True when a mechanism costing ``min_rho`` (the cheapest useful one) would be refused.

        With ``min_rho = 0``: when nothing is left (at most ``tol`` × budget).
        """
        m = _v.nonnegative("min_rho", min_rho)
        return self.remaining_rho <= self.tol * self.rho_budget if m == 0 else not self._fits(m, 0.0)

    def _fits(self, rho: float | tuple[float, ...], delta: float) -> bool:
        return _fits(self._rho, rho, self.rho_budget, self.tol) and (
            delta == 0.0 or _fits(self._delta, delta, self.delta_mechanisms, self.tol)
        )

    # ---- decisions -----------------------------------------------------------------------------
    def can_start(self, *, rho: float | None = None, epsilon_max: float | None = None, delta: float = 0.0) -> bool:
        """May this mechanism start? Give ``rho`` (zCDP mechanism) or ``epsilon_max`` (noise reduction).

        Thm 2 look-ahead / condition (4): its worst-case charge must fit the remaining budget.
        """
        w, d = self._worst(rho, epsilon_max, delta)
        if self._open is not None:
            return False
        return self._fits(w, d)

    def _worst(
        self, rho: float | None, epsilon_max: float | None, delta: float
    ) -> tuple[float | tuple[float, ...], float]:
        if (rho is None) == (epsilon_max is None):
            raise ValueError("give exactly one of rho (zCDP mechanism) or epsilon_max (noise reduction)")
        d = _prob("delta", delta)
        if rho is not None:
            return _nonneg("rho", rho), d
        if not self._allow_nr:
            raise ValueError(f"epsilon_max: noise-reduction mechanisms are not allowed in a {self.kind} filter")
        e = _pos("epsilon_max", epsilon_max)
        return half_square_terms(e), d  # ε_max²/2 exactly, as floats whose sum it is

    def _refuse(self, msg: str, *, mechanism: str, label: str, **entry: Any) -> None:
        self._log(mechanism, label, "refused", 0.0, **entry)
        raise BudgetExceeded(msg)

    def charge_zcdp(self, rho: float, *, delta: float = 0.0, label: str = "zCDP") -> float:
        """Run-and-charge a ρ-zCDP (δ-approximate) mechanism; returns the remaining ρ (Thm 2 / Thm 6).

        Raises :class:`BudgetExceeded` (recording a refusal) if ρ does not fit.
        """
        r = _nonneg("rho", rho)
        d = _prob("delta", delta)
        if self._open is not None:
            raise ValueError("rho: a noise reduction is running; charge it before starting another mechanism")
        if not self._fits(r, d):
            self._refuse(
                f"rho = {r:g} exceeds the remaining budget {self.remaining_rho:g}"
                + (f" (or delta {d:g} > remaining {self.remaining_delta:g})" if d else ""),
                mechanism="zcdp",
                label=str(label),
                rho=r,
                delta=d,
            )
        self._rho.add(r)
        if d:
            self._delta.add(d)
        self._log("zcdp", str(label), "accepted", r, rho=r, delta=d)
        return self.remaining_rho

    def start_noise_reduction(self, epsilon_max: float, *, label: str = "noise reduction") -> None:
        """Admit a Brownian noise reduction whose grid ends at ``epsilon_max`` (condition (3)/(4)).

        Raises :class:`BudgetExceeded` if ε_max²/2 does not fit; then no noise may be drawn.
        """
        terms, _ = self._worst(None, epsilon_max, 0.0)
        e = float(epsilon_max)
        w = half_square_up(e)  # the worst case as a reader is told it (rounded up)
        if self._open is not None:
            raise ValueError("epsilon_max: a noise reduction is already running; charge it first")
        if not self._fits(terms, 0.0):
            self._refuse(
                f"epsilon_max = {e:g} needs rho = {w:g} > remaining {self.remaining_rho:g}",
                mechanism="noise_reduction",
                label=str(label),
                rho=w,
                epsilon_max=e,
            )
        self._open = {"epsilon_max": e, "rho": w, "label": str(label)}
        self._log("noise_reduction", str(label), "started", 0.0, rho=w, epsilon_max=e)

    def charge_noise_reduction(
        self, epsilon_stop: float, *, epsilon_max: float | None = None, label: str | None = None
    ) -> float:
        """Charge a stopped Brownian noise reduction ε_T²/2 (Thm 6); returns the remaining ρ.

        If :meth:`start_noise_reduction` was called, ``epsilon_stop`` must not exceed its ε_max.
        Otherwise the mechanism is admitted now with ``epsilon_max`` (default ``epsilon_stop``) as its
        grid maximum; that is sound only if the whole grid was fixed to end there before it ran.
        """
        es = _pos("epsilon_stop", epsilon_stop)
        if self._open is None:
            em = es if epsilon_max is None else _v.positive("epsilon_max", epsilon_max)
            if es > em * (1 + 1e-12):
                raise ValueError(f"epsilon_stop must be <= epsilon_max = {em:g}, got {es:g}")
            self.start_noise_reduction(em, label="noise reduction" if label is None else label)
        assert self._open is not None
        em = self._open["epsilon_max"]
        if es > em * (1 + 1e-12):
            raise ValueError(f"epsilon_stop must be <= the admitted epsilon_max = {em:g}, got {es:g}")
        es = min(es, em)
        lab = self._open["label"] if label is None else str(label)
        # ε_T²/2 exactly (ε_T ≤ ε_max: never more than what was admitted); the ledger shows it rounded up
        c = half_square_up(es)
        self._open = None
        self._rho.add(half_square_terms(es))
        self._log("noise_reduction", lab, "accepted", c, rho=c, epsilon_max=em, epsilon_stop=es)
        return self.remaining_rho

    def run_noise_reduction(
        self,
        value: float,
        *,
        epsilons: Any,
        alpha: float,
        sensitivity: float = 1.0,
        label: str = "noise reduction",
        rng: np.random.Generator | int | None = None,
    ) -> NoiseReductionRelease:
        """Admit, run and charge one Brownian noise reduction of ``value`` (Thm 6 round).

        The grid maximum ``epsilons[-1]`` must fit (else :class:`BudgetExceeded` is raised before any
        noise is drawn); the release stops by the relative-error rule and is charged ε_T²/2.
        Returns the :class:`dpcore.noise_reduction.NoiseReductionRelease`.
        """
        grid = _grid("epsilons", epsilons)
        self.start_noise_reduction(float(grid[-1]), label=label)
        try:
            res = release_with_stopping(value, epsilons=grid, alpha=alpha, sensitivity=sensitivity, rng=rng)
        except Exception:
            self._open = None  # nothing was released: withdraw the admission
            self._log("noise_reduction", str(label), "withdrawn", 0.0)
            raise
        self.charge_noise_reduction(res.epsilon_stop)
        return res

    # ---- serialisation -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form (JSON-serialisable) of the configuration and the whole ledger."""
        return {
            "type": type(self).__name__,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "delta_mechanisms": self.delta_mechanisms,
            "variant": self.variant,
            "tol": self.tol,
            "record": self.record,
            "rho_budget": self.rho_budget,
            **_saved("rho_spent", self._rho),
            **_saved("delta_spent", self._delta),
            **self._saved_ledger(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Rebuild a filter from :meth:`to_dict` output, checking the totals are within budget."""
        if not isinstance(data, dict):
            raise ValueError("data must be a dict produced by to_dict()")
        f = cls(
            data["epsilon"],
            data["delta"],
            delta_mechanisms=data.get("delta_mechanisms", 0.0),
            variant=data.get("variant", "corrected"),
            tol=data.get("tol", _TOL),
            record=data.get("record", True),
        )
        f.rho_budget = _v.positive("rho_budget", data.get("rho_budget", f.rho_budget))
        f._rho = _restore(data, "rho_spent")
        f._delta = _restore(data, "delta_spent")
        entries = [dict(e) for e in data.get("entries", [])]
        if entries:
            acc = [e for e in entries if e.get("status") == "accepted"]
            total = math.fsum(float(e["charge"]) for e in acc)
            if abs(total - f._rho._sum.value) > 1e-12 * max(f.rho_budget, f.rho_spent):
                raise ValueError(f"rho_spent = {f.rho_spent:g} does not match the ledger total {total:g}")
        if not f._fits(0.0, 0.0):
            raise ValueError(f"rho_spent = {f.rho_spent:g} exceeds the budget {f.rho_budget:g}")
        if not _fits(f._delta, 0.0, f.delta_mechanisms, f.tol):
            raise ValueError(f"delta_spent = {f.delta_spent:g} exceeds delta_mechanisms = {f.delta_mechanisms:g}")
        f._restore_ledger(data, entries)
        return f


class ZCDPFilter(PrivacyFilter):
    """zCDP privacy filter (Thm 2, Whitehouse et al.): only zCDP mechanisms, look-ahead admission.

    Round n+1 may run only if Σ_{m≤n+1} ρ_m ≤ ρ*(ε, δ'') and Σ δ_m ≤ δ_mech; the transcript is
    (ε, δ_mech + δ'')-DP (the theorem's last sentence says "(ε, δ)"; the δ'' of the conversion adds to
    it). Used for the doubling baseline, whose every attempt is one zCDP charge.
    """

    kind = "zcdp"
    _allow_nr = False

    def start_noise_reduction(self, epsilon_max: float, *, label: str = "noise reduction") -> None:
        """Not allowed: a zCDP filter only admits zCDP mechanisms."""
        raise ValueError("epsilon_max: noise-reduction mechanisms are not allowed in a zCDP filter (Thm 2)")

    def charge_noise_reduction(
        self, epsilon_stop: float, *, epsilon_max: float | None = None, label: str | None = None
    ) -> float:
        """Not allowed: a zCDP filter only admits zCDP mechanisms."""
        raise ValueError("epsilon_stop: noise-reduction mechanisms are not allowed in a zCDP filter (Thm 2)")
