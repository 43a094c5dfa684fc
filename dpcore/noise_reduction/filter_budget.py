"""Budget arithmetic shared by the privacy filters: the zCDP budget, an exact running total, the ledger.

Rogers, Samorodnitsky, Wu, Ramdas (NeurIPS 2023), Lemma 2.3 (Bun & Steinke 2016: ρ-zCDP implies
(ρ + 2√(ρ ln(1/δ)), δ)-DP), used by Thm 2, Lemma 6.2 and Thm 6 to turn a DP target (ε, δ'') into a
zCDP budget ρ*. This is the conversion the paper states; the tighter one of Canonne, Kamath & Steinke
(2020) would allow a larger ρ* for the same (ε, δ''), but the paper's filters are defined with this one.

A filter decides with an exact running total: charges are kept as an exact sum of floats and the decision
"spent + charge ≤ budget" is taken on the sign of the exact excess (:mod:`dpcore._exact`), so a filter never
accepts a release that overspends its budget, not even by an ulp, whatever the number and size of the charges
(0.1 + 0.2 does not fit a budget of 0.3: as exact numbers the floats 0.1 + 0.2 exceed the float 0.3). A
``tol`` > 0 only ever refuses more: it is a reserve of ``tol`` × budget. The budget ρ* is rounded down and every
reported ε up, so neither is on the unsafe side of the exact conversion.
"""

from __future__ import annotations

import abc
import math
from typing import Any

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore._exact import ExactSum, down, half_square_up, up
from dpcore.noise_reduction._checks import _variant

__all__ = ["BudgetExceeded", "rho_budget", "zcdp_epsilon"]

#: Default reserve of every filter decision (a fraction of the budget that is never spent): none, decisions are exact.
_TOL = 0.0
#: Relative round-off of the conversions below (a dozen basic operations, a logarithm and two square roots, each
#: within one unit of round-off U): results are moved outward by this many U (checked against 50-digit mpmath).
_CONVERSION_ULPS = 16
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
    """ln(1/δ) taken a rounding high (ρ* decreases and ε increases in it)."""
    dl = _v.real_array("delta", delta, allow_inf=False)
    if dl.size and (dl.min() <= 0 or dl.max() >= 1):
        raise ValueError("delta must be in (0, 1)")
    return up(-np.log(dl), 2)


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
    out = down((eps / (np.sqrt(lg + eps) + np.sqrt(lg))) ** 2, _CONVERSION_ULPS)  # never above the exact ρ*
    return out if np.ndim(out) else float(out)


def zcdp_epsilon(rho: Any, delta: Any, *, variant: str = "corrected") -> np.ndarray | float:
    """DP ε of a (δ-approximate) ρ-zCDP transcript: ρ + 2√(ρ ln(1/δ)) (Lemma 2.3, Bun–Steinke form).

    ``variant="as_printed"``: Thm 6 as printed, ρ + 2√(2ρ ln(1/δ)).
    """
    var = _variant(variant)
    r = _v.real_array("rho", rho, low=0.0, allow_inf=False)
    lg = _log_inv_delta(delta) * (2.0 if var == "as_printed" else 1.0)
    out = up(r + 2.0 * np.sqrt(r * lg), _CONVERSION_ULPS)  # never below the exact ε
    return out if np.ndim(out) else float(out)


def largest_level(rho: float) -> float:
    """The largest float ε with ε²/2 ≤ ρ exactly: the top noise level a zCDP budget ρ can admit (condition (4))."""
    r = _v.nonnegative("rho", rho)
    e = math.sqrt(2.0) * math.sqrt(r)  # within a few ulps of the answer (no overflow for ρ near the float range)
    for _ in range(8):
        if e > 0 and half_square_up(e) > r:
            e = math.nextafter(e, 0.0)
        elif half_square_up(math.nextafter(e, math.inf)) <= r:
            e = math.nextafter(e, math.inf)
        else:
            break
    return e


class _RunningTotal:
    """A sum of non-negative charges, kept exactly (:class:`dpcore._exact.ExactSum`).

    ``hi`` is the sum rounded up (what a reader is told was spent: never too low), ``lo`` the exact remainder
    ``sum − hi`` rounded to a float (≤ 0; kept for older saved filters), ``partials`` the exact sum itself.
    """

    __slots__ = ("_sum",)

    def __init__(self, value: float = 0.0, residual: float = 0.0, partials: Any = None) -> None:
        if partials is not None:
            self._sum = ExactSum(*(float(p) for p in partials))
        else:
            self._sum = ExactSum(float(value), float(residual))

    def add(self, x: float | tuple[float, ...]) -> None:
        for v in x if isinstance(x, tuple) else (x,):
            self._sum.add(v)

    @property
    def hi(self) -> float:
        return self._sum.upper

    @property
    def lo(self) -> float:
        return math.fsum([*self._sum.partials, -self._sum.upper])

    @property
    def partials(self) -> list[float]:
        return list(self._sum.partials)

    def excess(self, x: float, budget: float) -> float:
        """total + x − budget, correctly rounded (its sign is exact)."""
        return self._sum.excess(x, budget)

    def remaining(self, budget: float) -> float:
        """budget − total rounded down, clamped at 0."""
        r = ExactSum(budget, *(-p for p in self._sum.partials)).lower
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


def _saved(key: str, total: _RunningTotal) -> dict[str, Any]:
    """A running total as ``to_dict`` saves it for :func:`_restore`: ``key``, its residual and its exact partials."""
    return {key: total.hi, f"{key}_residual": total.lo, f"{key}_partials": total.partials}


def _restore(data: dict[str, Any], key: str) -> _RunningTotal:
    """The running total saved by ``to_dict`` as ``key + "_partials"`` (exact), or ``key`` and ``key + "_residual"``."""
    parts = data.get(f"{key}_partials")
    if parts is not None:
        if not isinstance(parts, list | tuple) or len(parts) > 64:
            raise ValueError(f"{key}_partials must be a short list of numbers")
        vals = [_v.real(f"{key}_partials", p) for p in parts]
        total = _RunningTotal(partials=vals)
        if total.hi < 0:
            raise ValueError(f"{key} must be ≥ 0, got {total.hi:g}")
        if key in data and _v.real(key, data[key]) != total.hi:
            raise ValueError(f"{key} = {data[key]!r} does not match its exact total {total.hi!r}")
        return total
    return _RunningTotal(
        _v.nonnegative(key, data.get(key, 0.0)), _v.real(f"{key}_residual", data.get(f"{key}_residual", 0.0))
    )


def _fits(total: _RunningTotal, x: float | tuple[float, ...], budget: float, tol: float) -> bool:
    """Exactly: total + x ≤ budget, less a reserve of ``tol`` × budget (which only ever refuses more); ``x`` a float
    or a tuple of floats whose exact sum is the charge (ε²/2 as :func:`dpcore._exact.half_square_terms`)."""
    terms = x if isinstance(x, tuple) else (x,)
    return math.fsum([*total._sum.partials, *terms, -budget, tol * budget]) <= 0.0


class _Ledger(abc.ABC):
    """Shared ledger machinery: entries are plain dicts (JSON-friendly)."""

    kind = "base"

    def __init__(self, record: bool) -> None:
        self.record = bool(record)
        self._entries: list[dict[str, Any]] = []
        self._steps = 0
        self._open: dict[str, Any] | None = None  # the mechanism admitted and not yet charged

    def _saved_ledger(self) -> dict[str, Any]:
        """The ledger part of a filter's ``to_dict``: the mechanism still open, the step count and the entries."""
        return {
            "open": None if self._open is None else dict(self._open),
            "steps": self._steps,
            "entries": self.entries,
        }

    def _restore_ledger(self, data: dict[str, Any], entries: list[dict[str, Any]]) -> None:
        """Take back the ledger part of ``to_dict`` output (its ``entries`` already read and checked)."""
        self._entries = entries
        self._steps = int(data.get("steps", len(entries)))
        self._open = None if data.get("open") is None else dict(data["open"])

    @abc.abstractmethod
    def _spent_and_remaining(self) -> tuple[float, float]:
        """The budget spent so far and what is left, in the filter's own unit (ρ or ε)."""

    def _log(self, mechanism: str, label: str, status: str, charge: float, **entry: Any) -> None:
        """Record one decision (``entry``: the ledger's other columns it fills) with the budget spent and
        remaining as they stand after it; a filter that keeps no ledger only counts the step."""
        self._steps += 1
        if self.record:
            spent, remaining = self._spent_and_remaining()
            fields = dict(entry, mechanism=mechanism, label=label, status=status, charge=charge)
            fields.update(spent=spent, remaining=remaining, step=self._steps)
            self._entries.append({c: fields.get(c) for c in _LEDGER_COLUMNS})

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
