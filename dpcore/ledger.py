"""A cross-page privacy ledger: releases from every page accounted for side by side, and enforced by a filter.

A :class:`Release` (:mod:`dpcore.ledger_releases`) is one (possibly T-fold) DP release described by its kind and
scalars. A :class:`Ledger` holds a session budget (ε, δ), the releases accepted so far, and an *enforcing*
accountant that refuses a release that would overspend (raising :class:`dpcore.filters.BudgetExceeded` with the
numbers in the message):

* ``"filter"`` (default): the unified privacy filter of Rogers, Samorodnitsky, Wu & Ramdas 2023
  (:class:`dpcore.filters.PrivacyFilter`, Lemma 6.2 / Thm 6 with the corrected constant; Whitehouse et al. 2023
  for approximate zCDP). It stays valid when each release is chosen *adaptively* after seeing earlier results,
  and it charges a Brownian noise reduction only its ex-post level ε_T²/2.
* ``"basic"``: basic composition Σε_i ≤ ε, Σδ_i ≤ δ, also a valid filter (Rogers, Roth, Ullman & Vadhan 2016).

The five accountants (basic, advanced, zCDP, PLD, filter) live in :mod:`dpcore.ledger_accountants`. A ledger
exports to JSON (budget and releases) and CSV (releases); an import keeps every number exactly or refuses the
file with a message naming the field.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pandas as pd

from dpcore import _validate as _v
from dpcore import accounting as _acc
from dpcore._exact import frac_down, frac_up
from dpcore.filters import BudgetExceeded
from dpcore.ledger_accountants import (
    ACCOUNTANTS,
    PLD_MAX_LOSS,
    AccountantResult,
    _split,
    accountants,
    advanced,
    basic,
    cumulative,
    filter_replay,
    pld,
    zcdp,
)
from dpcore.ledger_releases import FIELDS as _FIELDS
from dpcore.ledger_releases import (
    KINDS,
    MAX_COMPOSITIONS,
    MAX_EPSILON,
    MAX_LABEL,
    MIN_DELTA,
    Release,
    approx_release,
    delta_value,
    gaussian_release,
    laplace_release,
    noise_reduction_release,
    pure_release,
    short,
    zcdp_cost,
)

__all__ = [
    "KINDS",
    "ENFORCERS",
    "ACCOUNTANTS",
    "MAX_BYTES",
    "MAX_RELEASES",
    "MAX_LABEL",
    "MAX_COMPOSITIONS",
    "MAX_EPSILON",
    "MAX_BUDGET_EPSILON",
    "MIN_DELTA",
    "PLD_MAX_LOSS",
    "BudgetExceeded",
    "Release",
    "AccountantResult",
    "Ledger",
    "Imported",
    "gaussian_release",
    "laplace_release",
    "pure_release",
    "approx_release",
    "noise_reduction_release",
    "zcdp_cost",
    "basic",
    "advanced",
    "zcdp",
    "pld",
    "filter_replay",
    "accountants",
    "cumulative",
    "from_json",
    "from_csv",
    "restore",
]

ENFORCERS = ("filter", "basic")
MAX_BYTES = 64 * 1024  # an imported file larger than this is refused before parsing
MAX_RELEASES = 200
#: Largest session budget ε (the per-run limit of a release): a file asking for more is refused, not clamped.
MAX_BUDGET_EPSILON = MAX_EPSILON
_FORMAT = "dp-explorer-ledger"


# ---------------------------------------------------------------------------------------------------------------
# the ledger
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Imported:
    """Result of an import: the new ledger and the releases its enforcing accountant refused, with the reason."""

    ledger: Ledger
    refused: tuple[tuple[Release, str], ...]


@dataclass(frozen=True)
class Ledger:
    """A session budget (ε, δ), the releases accepted so far, and the enforcing accountant (``filter``/``basic``)."""

    epsilon: float = 10.0
    delta: float = 1e-4
    enforce: str = "filter"
    releases: tuple[Release, ...] = ()
    delta_share: float = 0.5

    def __post_init__(self) -> None:
        if isinstance(self.epsilon, int) and not isinstance(self.epsilon, bool) and abs(self.epsilon) >= 10**18:
            raise ValueError(f"epsilon must be in (0, {MAX_BUDGET_EPSILON:g}], got {short(self.epsilon)}")
        object.__setattr__(
            self, "epsilon", _v.real("epsilon", self.epsilon, low=0.0, high=MAX_BUDGET_EPSILON, low_open=True)
        )
        object.__setattr__(self, "delta", delta_value("delta", self.delta, allow_zero=False))
        _v.choice("enforce", self.enforce, ENFORCERS)
        share = _v.real("delta_share", self.delta_share, low=0.0, high=1.0, high_open=True)
        if 0 < self.delta * (1.0 - share) < MIN_DELTA or 0 < self.delta * share < MIN_DELTA:
            raise ValueError(
                f"delta_share must leave both parts of δ = {self.delta:g} at least {MIN_DELTA:g}, got {share!r}"
            )
        object.__setattr__(self, "delta_share", share)
        rel = tuple(self.releases)
        if len(rel) > MAX_RELEASES:
            raise ValueError(f"releases: at most {MAX_RELEASES} releases, got {len(rel)}")
        if not all(isinstance(r, Release) for r in rel):
            raise ValueError("releases must be Release objects")
        object.__setattr__(self, "releases", rel)

    # ---- enforcement ---------------------------------------------------------------------------------------
    def refusals(self) -> list[tuple[int, str]]:
        """Releases the enforcing accountant refuses when replayed under this budget (empty when consistent)."""
        if self.enforce == "filter":
            return filter_replay(self.releases, self.epsilon, self.delta, delta_share=self.delta_share)[1]
        out, e_sum, d_sum = [], Fraction(0), Fraction(0)
        for i, r in enumerate(self.releases):
            e, d = r.compositions * Fraction(r.dp_epsilon), r.compositions * Fraction(r.delta)  # exact
            reason = self._basic_reason(e_sum, d_sum, e, d)
            if reason:
                out.append((i, reason))
            else:
                e_sum, d_sum = e_sum + e, d_sum + d
        return out

    def _basic_reason(self, e_sum: Fraction, d_sum: Fraction, e: Fraction, d: Fraction) -> str:
        """Why basic composition refuses a release (exact sums: no tolerance, 0.1 + 0.2 does not fit 0.3)."""
        if e_sum + e > Fraction(self.epsilon):
            return (
                f"basic composition has ε = {max(frac_down(Fraction(self.epsilon) - e_sum), 0.0):.4g} left; "
                f"this release needs ε = {frac_up(e):.4g}"
            )
        if d_sum + d > Fraction(self.delta):
            return (
                f"basic composition has δ = {max(frac_down(Fraction(self.delta) - d_sum), 0.0):.3g} left; "
                f"this release needs δ = {frac_up(d):.3g}"
            )
        return ""

    @property
    def over_budget(self) -> bool:
        """True when the budget was lowered below what the accepted releases already spend."""
        return bool(self.refusals())

    def try_add(self, release: Release) -> Ledger:
        """The ledger with ``release`` added, or :class:`BudgetExceeded` naming the numbers if it would overspend."""
        if not isinstance(release, Release):
            raise ValueError("release must be a Release")
        if len(self.releases) >= MAX_RELEASES:
            raise BudgetExceeded(f"the ledger holds at most {MAX_RELEASES} releases")
        before = self.refusals()
        if before:
            raise BudgetExceeded(
                f"the ledger is already over this budget (release {before[0][0] + 1}: "
                f"{before[0][1]}); raise the budget or remove releases first"
            )
        new = dataclasses.replace(self, releases=(*self.releases, release))
        after = new.refusals()
        if after:
            raise BudgetExceeded(after[0][1])
        return new

    def with_budget(self, epsilon: float, delta: float, enforce: str | None = None) -> Ledger:
        """Same releases under another budget/enforcer (check :attr:`over_budget` afterwards)."""
        return dataclasses.replace(
            self, epsilon=epsilon, delta=delta, enforce=self.enforce if enforce is None else enforce
        )

    def remove_last(self) -> Ledger:
        """The ledger without its last release."""
        return dataclasses.replace(self, releases=self.releases[:-1])

    def clear(self) -> Ledger:
        """The ledger with no releases (same budget)."""
        return dataclasses.replace(self, releases=())

    # ---- views ---------------------------------------------------------------------------------------------
    def table(self) -> pd.DataFrame:
        """The releases, one row each (fields plus ρ and the per-run ε at δ)."""
        rows = []
        for i, r in enumerate(self.releases, start=1):
            rows.append({"#": i, **r.to_dict(), "epsilon_at_delta": r.dp_epsilon, "rho": r.rho})
        cols = ["#", *_FIELDS, "epsilon_at_delta", "rho"]
        return pd.DataFrame(rows, columns=cols)

    def accountants(self) -> pd.DataFrame:
        """One row per accountant: ε at the δ used, that δ, whether within the budget, a note."""
        res = accountants(self.releases, self.epsilon, self.delta, delta_share=self.delta_share)
        return pd.DataFrame(
            [dataclasses.asdict(r) for r in res], columns=["name", "epsilon", "delta", "within", "note"]
        )

    def spent(self) -> float:
        """ε spent by the enforcing accountant (filter: ρ_spent as ε at δ''; basic: Σ T·ε); cheap (no PLD)."""
        if self.enforce == "filter":
            flt, _ = filter_replay(self.releases, self.epsilon, self.delta, delta_share=self.delta_share)
            return float(_acc.zcdp_to_dp(flt.rho_spent, _split(self.delta, self.delta_share)[0]))
        return basic(self.releases, self.epsilon, self.delta).epsilon

    # ---- export / import -----------------------------------------------------------------------------------
    def to_json(self) -> str:
        """The ledger (budget + releases) as JSON."""
        return json.dumps(
            {
                "format": _FORMAT,
                "version": 1,
                "budget": {
                    "epsilon": self.epsilon,
                    "delta": self.delta,
                    "enforce": self.enforce,
                    "delta_share": self.delta_share,
                },
                "releases": [r.to_dict() for r in self.releases],
            },
            indent=1,
            allow_nan=False,
            ensure_ascii=False,
        )

    def to_csv(self) -> str:
        """The releases as CSV (one row each, the fields of :class:`Release`); the budget is not part of it."""
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(_FIELDS), lineterminator="\n")
        w.writeheader()
        for r in self.releases:
            w.writerow(
                {k: ("" if v is None else repr(v) if isinstance(v, float) else v) for k, v in r.to_dict().items()}
            )
        return buf.getvalue()


def restore(text: str) -> Ledger:
    """The ledger of :meth:`Ledger.to_json` as it was accepted, not replayed through its accountant: for the app's own
    stored copies. A file from outside goes through :func:`from_json` (size-limited, validated, replayed)."""
    data = json.loads(text)
    b = data["budget"]
    releases = tuple(Release.from_dict(r) for r in data["releases"])
    return Ledger(b["epsilon"], b["delta"], b["enforce"], releases, b.get("delta_share", 0.5))


def _decode(text: Any) -> str:
    if isinstance(text, bytes | bytearray):
        if len(text) > MAX_BYTES:
            raise ValueError(f"file: larger than {MAX_BYTES // 1024} KiB ({len(text)} bytes)")
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ValueError("file: not UTF-8 text") from None
    if not isinstance(text, str):
        raise ValueError("file: expected text")
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise ValueError(f"file: larger than {MAX_BYTES // 1024} KiB")
    return text.lstrip("\ufeff")


def _replay(base: Ledger, releases: Iterable[Release]) -> Imported:
    led, refused = base, []
    for r in releases:
        try:
            led = led.try_add(r)
        except BudgetExceeded as exc:
            refused.append((r, str(exc)))
    return Imported(led, tuple(refused))


def _no_constant(name: str) -> Any:
    raise ValueError(f"file: {name} is not a number JSON allows")


#: Digits a whole number in an imported file may have. No field needs more (budgets and counts are refused from
#: 10¹⁸ on, naming the field); a longer number is refused while reading, with our message instead of the one of
#: Python's own limit (4300 digits), which speaks of interpreter settings.
MAX_INT_DIGITS = 1000


def _whole_number(text: str) -> int:
    """A JSON integer, refused beyond :data:`MAX_INT_DIGITS` digits."""
    digits = len(text.lstrip("-"))
    problem = ValueError(f"file: holds a whole number with {digits} digits (at most {MAX_INT_DIGITS} are read)")
    if digits > MAX_INT_DIGITS:
        raise problem
    try:
        return int(text)
    except ValueError:  # an interpreter set to a lower limit than ours
        raise problem from None


def from_json(text: str | bytes) -> Imported:
    """Import a ledger exported by :meth:`Ledger.to_json` (size-limited, strictly validated, replayed).

    Releases the file's enforcing accountant refuses are returned in :attr:`Imported.refused`, not dropped silently.
    """
    s = _decode(text)
    try:
        data = json.loads(s, parse_constant=_no_constant, parse_int=_whole_number)
    except RecursionError:
        raise ValueError("file: nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"file: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise ValueError(f'file: not a DP Explorer ledger (expected an object with "format": "{_FORMAT}")')
    version = data.get("version")
    if type(version) is not int or version != 1:  # true and 1.0 equal 1 in Python, but are not a version number
        raise ValueError(f"version: unsupported ledger version {json.dumps(version)[:20]} (this app reads version 1)")
    extra = set(data) - {"format", "version", "budget", "releases"}
    if extra:
        raise ValueError(f"file: unknown field(s) {', '.join(sorted(map(str, extra)))[:200]}")
    budget = data.get("budget")
    if (
        not isinstance(budget, dict)
        or not {"epsilon", "delta", "enforce"} <= set(budget)
        or set(budget) - {"epsilon", "delta", "enforce", "delta_share"}
    ):
        raise ValueError("budget: must be an object with epsilon, delta, enforce (and optionally delta_share)")
    for k in ("epsilon", "delta", "delta_share"):
        if k in budget and (isinstance(budget[k], bool) or not isinstance(budget[k], int | float)):
            raise ValueError(f"budget.{k} must be a number")
        if k in budget and isinstance(budget[k], int) and abs(budget[k]) >= 10**18:
            raise ValueError(f"budget.{k} is out of range, got {short(budget[k])}")
    if not isinstance(budget["enforce"], str):
        raise ValueError(f"budget.enforce must be one of {', '.join(ENFORCERS)}")
    rel = data.get("releases")
    if not isinstance(rel, list):
        raise ValueError("releases: must be a list")
    if len(rel) > MAX_RELEASES:
        raise ValueError(f"releases: at most {MAX_RELEASES} releases, got {len(rel)}")
    try:
        base = Ledger(budget["epsilon"], budget["delta"], budget["enforce"], (), budget.get("delta_share", 0.5))
    except ValueError as exc:
        raise ValueError(f"budget.{exc}") from None
    parsed = []
    for i, item in enumerate(rel, start=1):
        try:
            parsed.append(Release.from_dict(item))
        except ValueError as exc:
            raise ValueError(f"release {i}: {exc}") from None
    return _replay(base, parsed)


def _csv_value(field: str, raw: str) -> Any:
    raw = raw.strip()
    if field in ("label", "source", "kind"):
        return raw
    if raw == "":
        return None
    if field == "compositions":
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"compositions must be an integer, got {raw[:20]!r}") from None
    try:
        x = float(raw)
    except ValueError:
        raise ValueError(f"{field} must be a number, got {raw[:20]!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{field} must be a finite number, got {raw[:20]!r}")
    return x


def from_csv(text: str | bytes, *, base: Ledger) -> Imported:
    """Import releases from :meth:`Ledger.to_csv` output into ``base``'s budget (replacing its releases)."""
    s = _decode(text)
    try:
        rows = list(csv.reader(io.StringIO(s, newline=""), strict=True))
    except csv.Error as exc:
        raise ValueError(f"file: not valid CSV ({exc})") from None
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        raise ValueError("file: empty")
    header = [c.strip() for c in rows[0]]
    if header != list(_FIELDS):
        raise ValueError(f"file: the CSV header must be {','.join(_FIELDS)}")
    body = rows[1:]
    if len(body) > MAX_RELEASES:
        raise ValueError(f"releases: at most {MAX_RELEASES} releases, got {len(body)}")
    parsed = []
    for i, row in enumerate(body, start=1):
        if len(row) != len(_FIELDS):
            raise ValueError(f"release {i}: expected {len(_FIELDS)} columns, got {len(row)}")
        try:
            vals = {f: _csv_value(f, c) for f, c in zip(_FIELDS, row, strict=True)}
            parsed.append(Release.from_dict(vals))
        except ValueError as exc:
            raise ValueError(f"release {i}: {exc}") from None
    return _replay(base.clear(), parsed)
