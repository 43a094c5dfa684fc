"""Budget arithmetic shared by the privacy filters: the zCDP budget, an exact running total, the ledger.

Rogers, Samorodnitsky, Wu, Ramdas (NeurIPS 2023), Lemma 2.3 (Bun & Steinke 2016: ρ-zCDP implies
(ρ + 2√(ρ ln(1/δ)), δ)-DP), used by Thm 2, Lemma 6.2 and Thm 6 to turn a DP target (ε, δ'') into a
zCDP budget ρ*. This is the conversion the paper states; the tighter one of Canonne, Kamath & Steinke
(2020) would allow a larger ρ* for the same (ε, δ''), but the paper's filters are defined with this one.

A filter decides with an exact running total: charges are summed in double-double arithmetic and the
decision "spent + charge ≤ budget" is taken on the correctly rounded excess (``math.fsum``), so a
filter never accepts a release that overspends its budget by more than ``tol`` × budget (default 1e-15),
whatever the number and size of the charges.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore.noise_reduction._checks import _variant

__all__ = ["BudgetExceeded", "rho_budget", "zcdp_epsilon"]

#: Default relative tolerance of every filter decision: accepted totals stay ≤ budget·(1 + _TOL).
_TOL = 1e-15
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


def _log_inv_delta(delta: Any) -> np.ndarray:
    dl = _v.real_array("delta", delta, allow_inf=False)
    if dl.size and (dl.min() <= 0 or dl.max() >= 1):
        raise ValueError("delta must be in (0, 1)")
    return -np.log(dl)


def rho_budget(epsilon: Any, delta: Any, *, variant: str = "corrected") -> np.ndarray | float:
    """Largest ρ with ρ + 2√(ρ·ln(1/δ)) ≤ ε: ρ* = (√(L+ε) − √L)², L = ln(1/δ) (Lemma 2.3, Bun–Steinke form).

    This is the budget of Lemma 6.2 and of Thm 6 read with the constant its proof gives.
    ``variant="as_printed"`` inverts Thm 6's printed constant ρ + 2√(2ρ ln(1/δ)) instead (a misprint; looser:
    ρ* = (√(2L+ε) − √(2L))², e.g. 0.770693 instead of 1.353015 at ε = 10, δ = 1e-6). Vectorised over ε and δ;
    ε = 0 gives 0, ε < 0 is refused.
    """
    var = _variant(variant)
    eps = _v.real_array("epsilon", epsilon, low=0.0, allow_inf=False)
    lg = _log_inv_delta(delta) * (2.0 if var == "as_printed" else 1.0)
    # (√(L+ε) − √L)² = (ε / (√(L+ε) + √L))², free of cancellation for small ε and of overflow for huge ε
    out = (eps / (np.sqrt(lg + eps) + np.sqrt(lg))) ** 2
    return out if out.ndim else float(out)


def zcdp_epsilon(rho: Any, delta: Any, *, variant: str = "corrected") -> np.ndarray | float:
    """DP ε of a (δ-approximate) ρ-zCDP transcript: ρ + 2√(ρ ln(1/δ)) (Lemma 2.3, Bun–Steinke form).

    ``variant="as_printed"``: Thm 6 as printed, ρ + 2√(2ρ ln(1/δ)).
    """
    var = _variant(variant)
    r = _v.real_array("rho", rho, low=0.0, allow_inf=False)
    lg = _log_inv_delta(delta) * (2.0 if var == "as_printed" else 1.0)
    out = r + 2.0 * np.sqrt(r * lg)
    return out if out.ndim else float(out)


class _RunningTotal:
    """A sum of non-negative charges kept as an unevaluated pair hi + lo (double-double arithmetic).

    ``hi`` is the sum rounded to a float; ``hi + lo`` carries the exact sum to ~1e-32 relative, so thousands
    of small charges do not drift. :meth:`excess` is the correctly rounded value of total + x − budget.
    """

    __slots__ = ("hi", "lo")

    def __init__(self, value: float = 0.0, residual: float = 0.0) -> None:
        self.hi = float(value)
        self.lo = float(residual)

    def add(self, x: float) -> None:
        s = self.hi + x
        bp = s - self.hi
        err = (self.hi - (s - bp)) + (x - bp) + self.lo  # exact error of hi + x (Knuth's TwoSum), plus lo
        hi = s + err
        self.lo = err - (hi - s)
        self.hi = hi

    def excess(self, x: float, budget: float) -> float:
        """Correctly rounded total + x − budget."""
        return math.fsum((self.hi, self.lo, x, -budget))

    def remaining(self, budget: float) -> float:
        """budget − total, clamped at 0."""
        r = math.fsum((budget, -self.hi, -self.lo))
        return r if r > 0.0 else 0.0


class _SpentTotal:
    """A float attribute read from (and reset through) the exact running total stored in ``attr``."""

    def __init__(self, attr: str, doc: str) -> None:
        self.attr = attr
        self.__doc__ = doc
        self.name = attr

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self if obj is None else getattr(obj, self.attr).hi

    def __set__(self, obj: Any, value: float) -> None:
        setattr(obj, self.attr, _RunningTotal(_v.nonnegative(self.name, value)))


def _restore(data: dict[str, Any], key: str) -> _RunningTotal:
    """The running total saved by ``to_dict`` as ``key`` and ``key + "_residual"``."""
    return _RunningTotal(
        _v.nonnegative(key, data.get(key, 0.0)), _v.real(f"{key}_residual", data.get(f"{key}_residual", 0.0))
    )


def _fits(total: _RunningTotal, x: float, budget: float, tol: float) -> bool:
    """Does total + x stay within budget·(1 + tol)? (Exact decision up to one rounding of the excess.)"""
    return total.excess(x, budget) <= tol * budget


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
