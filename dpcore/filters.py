"""Privacy filters for zCDP and accuracy-first (noise-reduction) mechanisms, with a ledger (paper 001).

Rogers, Samorodnitsky, Wu, Ramdas (NeurIPS 2023); spec ``shared/specs/noise_reduction.md`` §2.4,
§2.6, §2.9, §3.6.

* :class:`PrivacyFilter` — the unified filter (Lemma 6.2 / Thm 6, corrected constant, erratum E1):
  one zCDP budget ρ* = :func:`rho_budget` (ε, δ''); zCDP mechanisms are charged ρ_n, Brownian noise
  reductions are admitted only if ε_max²/2 fits (condition (4)) and are charged ε_T²/2 once stopped.
* :class:`ZCDPFilter` — the same bookkeeping restricted to zCDP mechanisms (Thm 2, look-ahead rule).
* :class:`ExPostFilter` — basic ex-post composition filter (Lemma 5.2 with the corrected admissibility
  Σ_{i<n} ℰ_i + sup ℰ_n ≤ ε, erratum E6), e.g. for Laplace noise reduction (E18).
* :class:`ConcurrentFilter` — Thm 3: a zCDP filter and an ex-post filter side by side.

Every decision is recorded in a ledger (``ledger`` DataFrame) and filters round-trip through plain
dicts (``to_dict`` / ``from_dict``) so a cross-page ledger can store them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore import accounting as _acc

__all__ = [
    "BudgetExceeded",
    "rho_budget",
    "zcdp_epsilon",
    "PrivacyFilter",
    "ZCDPFilter",
    "ExPostFilter",
    "ConcurrentFilter",
    "filter_from_dict",
]

_TOL = 1e-12
_LEDGER_COLUMNS = [
    "step",
    "mechanism",
    "label",
    "status",
    "rho",
    "epsilon_max",
    "epsilon_stop",
    "delta",
    "charge",
    "spent",
    "remaining",
]


def _nonneg(name: str, x: Any) -> float:
    """Fast path of ``_v.nonnegative`` for plain finite floats (filter decisions are hot)."""
    if type(x) is float and 0.0 <= x < math.inf:
        return x
    return _v.nonnegative(name, x)


def _pos(name: str, x: Any) -> float:
    """Fast path of ``_v.positive`` for plain finite floats."""
    if type(x) is float and 0.0 < x < math.inf:
        return x
    return _v.positive(name, x)


def _prob(name: str, x: Any) -> float:
    """Fast path of ``_v.probability`` for plain floats."""
    if type(x) is float and 0.0 <= x <= 1.0:
        return x
    return _v.probability(name, x)


class BudgetExceeded(ValueError):
    """A mechanism was refused because its worst-case charge does not fit the remaining budget."""


def _variant(variant: str) -> str:
    return _v.choice("variant", variant, ("corrected", "as_printed"))


def rho_budget(epsilon: Any, delta: Any, *, variant: str = "corrected") -> np.ndarray | float:
    """Largest ρ with ρ + 2√(ρ·ln(1/δ)) ≤ ε: ρ* = (√(L+ε) − √L)², L = ln(1/δ) (Lemma 2.3 ii, spec §2.2).

    ``variant="as_printed"`` inverts Thm 6's printed constant ρ + 2√(2ρ ln(1/δ)) instead (erratum E1;
    looser: ρ* = (√(2L+ε) − √(2L))²). Vectorised over ε and δ; ε = 0 gives 0, ε < 0 is refused.
    """
    var = _variant(variant)
    eps = _v.real_array("epsilon", epsilon, low=0.0, allow_inf=False)
    dl = _v.real_array("delta", delta, allow_inf=False)
    if dl.size and (dl.min() <= 0 or dl.max() >= 1):
        raise ValueError("delta must be in (0, 1)")
    if var == "corrected" and dl.ndim == 0:
        return _acc.dp_to_zcdp(eps if eps.ndim else float(eps), float(dl))
    lg = -np.log(dl) * (2.0 if var == "as_printed" else 1.0)
    # (√(L+ε) − √L)² written without cancellation
    out = (eps / (np.sqrt(lg + eps) + np.sqrt(lg))) ** 2
    return out if out.ndim else float(out)


def zcdp_epsilon(rho: Any, delta: Any, *, variant: str = "corrected") -> np.ndarray | float:
    """DP ε of a (δ-approximate) ρ-zCDP transcript: ρ + 2√(ρ ln(1/δ)) (Lemma 2.3 ii, Thm 6 corrected).

    ``variant="as_printed"``: Thm 6 as printed, ρ + 2√(2ρ ln(1/δ)) (erratum E1).
    """
    var = _variant(variant)
    r = _v.real_array("rho", rho, low=0.0, allow_inf=False)
    dl = _v.real_array("delta", delta, allow_inf=False)
    if dl.size and (dl.min() <= 0 or dl.max() >= 1):
        raise ValueError("delta must be in (0, 1)")
    if var == "corrected" and dl.ndim == 0:
        return _acc.zcdp_to_dp(r if r.ndim else float(r), float(dl))
    lg = -np.log(dl) * (2.0 if var == "as_printed" else 1.0)
    out = r + 2.0 * np.sqrt(r * lg)
    return out if out.ndim else float(out)


# --------------------------------------------------------------------------------------------------


class _Ledger:
    """Shared ledger machinery: entries are plain dicts (JSON-friendly)."""

    kind = "base"

    def __init__(self, record: bool) -> None:
        self.record = bool(record)
        self._entries: list[dict[str, Any]] = []
        self._steps = 0

    def _log(self, **entry: Any) -> None:
        self._steps += 1
        if self.record:
            row = {c: entry.get(c) for c in _LEDGER_COLUMNS}
            row["step"] = self._steps
            self._entries.append(row)

    @property
    def entries(self) -> list[dict[str, Any]]:
        """The ledger as a list of plain dicts (copies)."""
        return [dict(e) for e in self._entries]

    @property
    def ledger(self) -> pd.DataFrame:
        """The ledger as a DataFrame: one row per decision (accepted, refused, opened, closed)."""
        df = pd.DataFrame(self._entries, columns=_LEDGER_COLUMNS)
        num = ["rho", "epsilon_max", "epsilon_stop", "delta", "charge", "spent", "remaining"]
        df[num] = df[num].astype(float)
        df["step"] = df["step"].astype(int)
        return df


class PrivacyFilter(_Ledger):
    """Unified privacy filter for zCDP mechanisms and Brownian noise reductions (Lemma 6.2 / Thm 6).

    Budget ρ* = ``rho_budget(epsilon, delta, variant)``; the full transcript is
    (ε, delta_mechanisms + δ)-DP (Thm 6 with the corrected constant 2√(ρ log(1/δ'')), erratum E1;
    ``variant="as_printed"`` budgets with the printed 2√(2ρ log(1/δ'')) instead). ``delta`` is the
    conversion slack δ''; ``delta_mechanisms`` the budget for Σ δ_n of approximate-zCDP mechanisms.

    Rules (condition (4), spec §3.6 d, E8): a zCDP mechanism may start iff Σρ + ρ_n ≤ ρ* (and
    Σδ + δ_n ≤ δ_mech); a Brownian noise reduction may start iff Σρ + ε_max²/2 ≤ ρ*, and once stopped
    it is charged ε_T²/2 (only the last level). Anything else raises :class:`BudgetExceeded` before
    any noise is drawn, so the spend never exceeds ρ* (up to ``tol``).
    """

    kind = "unified"
    _allow_nr = True

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
        self.rho_spent = 0.0
        self.delta_spent = 0.0
        self._open: dict[str, Any] | None = None

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
        r = self.rho_budget - self.rho_spent
        return r if r > 0.0 else 0.0

    @property
    def remaining_delta(self) -> float:
        """δ budget of approximate-zCDP mechanisms still available."""
        return max(self.delta_mechanisms - self.delta_spent, 0.0)

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
        """True when less than ``min_rho`` (the cheapest useful mechanism) remains (spec E8)."""
        m = _v.nonnegative("min_rho", min_rho)
        return self.remaining_rho <= self.tol if m == 0 else self.remaining_rho < m - self.tol

    def _slack(self) -> float:
        return self.tol * (self.rho_budget if self.rho_budget > 1.0 else 1.0)

    def _fits(self, rho: float, delta: float) -> bool:
        return (
            self.rho_spent + rho <= self.rho_budget + self._slack()
            and (delta == 0.0 or self.delta_spent + delta <= self.delta_mechanisms + self.tol)
        )

    # ---- decisions -----------------------------------------------------------------------------
    def can_start(
        self, *, rho: float | None = None, epsilon_max: float | None = None, delta: float = 0.0
    ) -> bool:
        """May this mechanism start? Give ``rho`` (zCDP mechanism) or ``epsilon_max`` (noise reduction).

        Thm 2 look-ahead / condition (4): its worst-case charge must fit the remaining budget.
        """
        w, d = self._worst(rho, epsilon_max, delta)
        if self._open is not None:
            return False
        return self._fits(w, d)

    def _worst(self, rho: float | None, epsilon_max: float | None, delta: float) -> tuple[float, float]:
        if (rho is None) == (epsilon_max is None):
            raise ValueError("give exactly one of rho (zCDP mechanism) or epsilon_max (noise reduction)")
        d = _prob("delta", delta)
        if rho is not None:
            return _nonneg("rho", rho), d
        if not self._allow_nr:
            raise ValueError(
                f"epsilon_max: noise-reduction mechanisms are not allowed in a {self.kind} filter"
            )
        e = _pos("epsilon_max", epsilon_max)
        return e * e / 2.0, d

    def _refuse(self, msg: str, **entry: Any) -> None:
        self._log(status="refused", charge=0.0, spent=self.rho_spent, remaining=self.remaining_rho, **entry)
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
                mechanism="zcdp", label=str(label), rho=r, delta=d,
            )
        self.rho_spent += r
        self.delta_spent += d
        if self.record:
            self._log(
                mechanism="zcdp", label=str(label), status="accepted", rho=r, delta=d, charge=r,
                spent=self.rho_spent, remaining=self.remaining_rho,
            )
        else:
            self._steps += 1
        return self.remaining_rho

    def start_noise_reduction(self, epsilon_max: float, *, label: str = "noise reduction") -> None:
        """Admit a Brownian noise reduction whose grid ends at ``epsilon_max`` (condition (3)/(4)).

        Raises :class:`BudgetExceeded` if ε_max²/2 does not fit; then no noise may be drawn.
        """
        w, _ = self._worst(None, epsilon_max, 0.0)
        e = math.sqrt(2.0 * w)
        if self._open is not None:
            raise ValueError("epsilon_max: a noise reduction is already running; charge it first")
        if not self._fits(w, 0.0):
            self._refuse(
                f"epsilon_max = {e:g} needs rho = {w:g} > remaining {self.remaining_rho:g}",
                mechanism="noise_reduction", label=str(label), rho=w, epsilon_max=e,
            )
        self._open = {"epsilon_max": e, "label": str(label)}
        self._log(
            mechanism="noise_reduction", label=str(label), status="started", rho=w, epsilon_max=e,
            charge=0.0, spent=self.rho_spent, remaining=self.remaining_rho,
        )

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
        self._open = None
        c = es * es / 2.0
        self.rho_spent += c
        self._log(
            mechanism="noise_reduction", label=lab, status="accepted", rho=c, epsilon_max=em,
            epsilon_stop=es, charge=c, spent=self.rho_spent, remaining=self.remaining_rho,
        )
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
    ) -> Any:
        """Admit, run and charge one Brownian noise reduction of ``value`` (Thm 6 round).

        The grid maximum ``epsilons[-1]`` must fit (else :class:`BudgetExceeded` is raised before any
        noise is drawn); the release stops by the relative-error rule and is charged ε_T²/2.
        Returns the :class:`dpcore.noise_reduction.NoiseReductionRelease`.
        """
        from dpcore import noise_reduction as _nr

        grid = _nr._grid("epsilons", epsilons)  # noqa: SLF001 - same validation as the mechanism
        self.start_noise_reduction(float(grid[-1]), label=label)
        try:
            res = _nr.release_with_stopping(
                value, epsilons=grid, alpha=alpha, sensitivity=sensitivity, rng=rng
            )
        except Exception:
            self._open = None  # nothing was released: withdraw the admission
            self._log(mechanism="noise_reduction", label=str(label), status="withdrawn", charge=0.0,
                      spent=self.rho_spent, remaining=self.remaining_rho)
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
            "rho_spent": self.rho_spent,
            "delta_spent": self.delta_spent,
            "open": None if self._open is None else dict(self._open),
            "steps": self._steps,
            "entries": self.entries,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PrivacyFilter:
        """Rebuild a filter from :meth:`to_dict` output, checking the totals are within budget."""
        if not isinstance(data, dict):
            raise ValueError("data must be a dict produced by to_dict()")
        f = cls(
            data["epsilon"], data["delta"], delta_mechanisms=data.get("delta_mechanisms", 0.0),
            variant=data.get("variant", "corrected"), tol=data.get("tol", _TOL),
            record=data.get("record", True),
        )
        f.rho_budget = _v.positive("rho_budget", data.get("rho_budget", f.rho_budget))
        f.rho_spent = _v.nonnegative("rho_spent", data.get("rho_spent", 0.0))
        f.delta_spent = _v.nonnegative("delta_spent", data.get("delta_spent", 0.0))
        entries = [dict(e) for e in data.get("entries", [])]
        if entries:
            acc = [e for e in entries if e.get("status") == "accepted"]
            total = float(sum(float(e["charge"]) for e in acc))
            if abs(total - f.rho_spent) > 1e-9 * max(1.0, f.rho_budget):
                raise ValueError(f"rho_spent = {f.rho_spent:g} does not match the ledger total {total:g}")
        if not f._fits(0.0, 0.0):
            raise ValueError(f"rho_spent = {f.rho_spent:g} exceeds the budget {f.rho_budget:g}")
        if f.delta_spent > f.delta_mechanisms + f.tol:
            raise ValueError(f"delta_spent = {f.delta_spent:g} exceeds delta_mechanisms = {f.delta_mechanisms:g}")
        f._entries = entries
        f._steps = int(data.get("steps", len(entries)))
        f._open = None if data.get("open") is None else dict(data["open"])
        return f


class ZCDPFilter(PrivacyFilter):
    """zCDP privacy filter (Thm 2, Whitehouse et al.): only zCDP mechanisms, look-ahead admission.

    Round n+1 may run only if Σ_{m≤n+1} ρ_m ≤ ρ*(ε, δ'') and Σ δ_m ≤ δ_mech; the transcript is
    (ε, δ_mech + δ'')-DP (the paper's "(ε,δ)" should read (ε, δ+δ''), erratum E5). Used for the
    doubling baseline, whose every attempt is one zCDP charge.
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


class ExPostFilter(_Ledger):
    """Ex-post privacy filter by basic composition (Lemma 5.2, corrected admissibility, erratum E6).

    A mechanism with ex-post bound ℰ_n (worst case sup ℰ_n = ``epsilon_max``) and failure probability
    δ_n may start iff Σ_{i<n} ℰ_i(y_i) + sup ℰ_n ≤ ε and Σ δ_i + δ_n ≤ δ; once run it is charged its
    realised ℰ_n(y_n) (``epsilon_stop``). The transcript is (ε, δ)-DP. For Laplace noise reduction
    ℰ = ε_T and δ_n = 0 (spec E18); for a Brownian one use ``brownian_expost_bound``.
    """

    kind = "ex_post"

    def __init__(self, epsilon: float, delta: float = 0.0, *, tol: float = _TOL, record: bool = True) -> None:
        super().__init__(record)
        self.epsilon = _v.positive("epsilon", epsilon)
        self.delta = _v.probability("delta", delta, high_open=True)
        self.tol = _v.nonnegative("tol", tol)
        self.epsilon_spent = 0.0
        self.delta_spent = 0.0
        self._open: dict[str, Any] | None = None

    @property
    def remaining_epsilon(self) -> float:
        """Ex-post ε still available, clamped at 0."""
        return max(self.epsilon - self.epsilon_spent, 0.0)

    @property
    def guarantee(self) -> tuple[float, float]:
        """(ε, δ) guarantee of the filtered transcript."""
        return (self.epsilon, self.delta)

    def _fits(self, e: float, d: float) -> bool:
        return (
            self.epsilon_spent + e <= self.epsilon + self.tol * max(1.0, self.epsilon)
            and self.delta_spent + d <= self.delta + self.tol
        )

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
            self._log(
                mechanism="ex_post", label=str(label), status="refused", epsilon_max=e, delta=d, charge=0.0,
                spent=self.epsilon_spent, remaining=self.remaining_epsilon,
            )
            raise BudgetExceeded(
                f"epsilon_max = {e:g} exceeds the remaining ex-post budget {self.remaining_epsilon:g}"
                + (f" (or delta {d:g} > remaining {self.delta - self.delta_spent:g})" if d else "")
            )
        self._open = {"epsilon_max": e, "delta": d, "label": str(label)}
        self.delta_spent += d
        self._log(
            mechanism="ex_post", label=str(label), status="started", epsilon_max=e, delta=d, charge=0.0,
            spent=self.epsilon_spent, remaining=self.remaining_epsilon,
        )

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
        self.epsilon_spent += es
        self._log(
            mechanism="ex_post", label=lab, status="accepted", epsilon_max=em, epsilon_stop=es, delta=d,
            charge=es, spent=self.epsilon_spent, remaining=self.remaining_epsilon,
        )
        return self.remaining_epsilon

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form (JSON-serialisable) of the configuration and the whole ledger."""
        return {
            "type": "ExPostFilter",
            "epsilon": self.epsilon,
            "delta": self.delta,
            "tol": self.tol,
            "record": self.record,
            "epsilon_spent": self.epsilon_spent,
            "delta_spent": self.delta_spent,
            "open": None if self._open is None else dict(self._open),
            "steps": self._steps,
            "entries": self.entries,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExPostFilter:
        """Rebuild from :meth:`to_dict` output, checking the totals are within budget."""
        if not isinstance(data, dict):
            raise ValueError("data must be a dict produced by to_dict()")
        f = cls(
            data["epsilon"], data.get("delta", 0.0), tol=data.get("tol", _TOL),
            record=data.get("record", True),
        )
        f.epsilon_spent = _v.nonnegative("epsilon_spent", data.get("epsilon_spent", 0.0))
        f.delta_spent = _v.nonnegative("delta_spent", data.get("delta_spent", 0.0))
        if not f._fits(0.0, 0.0):
            raise ValueError(f"epsilon_spent = {f.epsilon_spent:g} exceeds the budget {f.epsilon:g}")
        f._entries = [dict(e) for e in data.get("entries", [])]
        f._steps = int(data.get("steps", len(f._entries)))
        f._open = None if data.get("open") is None else dict(data["open"])
        return f


class ConcurrentFilter:
    """Theorem 3: a zCDP filter (ε, δ, δ'') and an ex-post filter (ε', δ') run side by side.

    zCDP rounds go to ``zcdp`` (Thm 2 rules), ex-post rounds (e.g. Laplace noise reductions) to
    ``expost`` (Lemma 5.2, corrected admissibility E6); each must fit its own budget. By concurrent
    composition (Thm 1) the interleaved transcript is (ε + ε', δ + δ' + δ'')-DP. The split of the
    budget between the two parts is fixed in advance (E7: the paper's N = min of the two halts).
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
