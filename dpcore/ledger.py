"""A cross-page privacy ledger: releases from every page accounted for side by side, and enforced by a filter.

A :class:`Release` is one (possibly T-fold) DP release described by its mechanism and scalars. A :class:`Ledger`
holds a session budget (ε, δ), the releases accepted so far, and an *enforcing* accountant that refuses a release
that would overspend (raising :class:`dpcore.filters.BudgetExceeded` with the numbers in the message):

* ``"filter"`` (default) — the unified privacy filter of paper 001 (:class:`dpcore.filters.PrivacyFilter`,
  Rogers, Samorodnitsky, Wu & Ramdas 2023, Lemma 6.2 / Thm 6 with the corrected constant; Whitehouse et al. 2023
  for approximate zCDP). It stays valid when each release is chosen *adaptively* after seeing earlier results,
  and it charges a Brownian noise reduction only its ex-post level ε_T²/2.
* ``"basic"`` — basic composition Σε_i ≤ ε, Σδ_i ≤ δ, also a valid filter (Rogers, Roth, Ullman & Vadhan 2016).

Accountants (each a pure function of the releases and the session δ, see :func:`accountants`):

* basic: Σ T_i ε_i at Σ T_i δ_i (Dwork & Roth 2014, Thm 3.16);
* advanced: heterogeneous composition of Kairouz, Oh & Viswanath 2015 (ICML; IEEE TIT 2017), Thm 3.5:
  for δ̃ ∈ (0, 1] the k-fold composition is (ε̃, 1 − (1 − δ̃) Π (1 − δ_i))-DP with
  ε̃ = min{ Σε_i, Σ ε_i(e^{ε_i} − 1)/(e^{ε_i} + 1) + √(2 Σε_i² ln(e + √(Σε_i²)/δ̃)),
  Σ ε_i(e^{ε_i} − 1)/(e^{ε_i} + 1) + √(2 Σε_i² ln(1/δ̃)) }; δ̃ is the slack 1 − (1 − δ)/Π(1 − δ_i);
* zCDP: Gaussian ρ = TΔ²/(2σ²) (Bun & Steinke 2016, Prop 1.6), ε-DP → ε²/2 (Prop 1.4), (ε, δ)-DP →
  δ-approximate ε²/2-zCDP (Bun & Steinke 2016 §8, approximate zCDP; by the (ε, δ) decomposition into an ε-DP pair
  plus δ mass), noise reduction → ε_max²/2 (a data-independent accountant cannot use ε_T); total
  ε = ρ + 2√(ρ ln(1/δ')) at δ' = δ − Σδ_i (Prop 1.3; the δ_i of δ-approximate zCDP add up under composition, §8);
* PLD: ``dp_accounting`` privacy-loss distributions composed (Laplace self-composed T times, pure and approximate
  releases through their worst-case (ε, δ) PLD; every Gaussian and noise reduction, a Gaussian with μ = ε_max,
  merged exactly into one Gaussian with μ = √(Σ T_i Δ_i²/σ_i²)); beyond a loss range of :data:`PLD_MAX_LOSS` the
  PLD is not built and the smaller of basic and zCDP is shown;
* filter: the enforcing filter above, replayed over the releases.

Basic and advanced composition need each release's (ε_i, δ_i): a Gaussian is quoted at the δ its page used (exact
ε at that δ), a noise reduction likewise for its ex-ante Gaussian. The advanced, zCDP and PLD totals assume the sequence of releases was fixed in advance (non-adaptive choice of the
mechanisms); they are comparisons, not filters. The session δ of the paper-001 filter is split in advance:
``delta_share`` · δ for the releases' own δ_i (approximate releases) and the rest as the zCDP → DP conversion slack δ''.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import io
import json
import math
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from dp_accounting.pld import common as _pld_common
from dp_accounting.pld import privacy_loss_distribution as _pld

from dpcore import _validate as _v
from dpcore import accounting as _acc
from dpcore.filters import BudgetExceeded, PrivacyFilter

__all__ = [
    "KINDS",
    "ENFORCERS",
    "ACCOUNTANTS",
    "MAX_BYTES",
    "MAX_RELEASES",
    "MAX_LABEL",
    "MAX_EPSILON",
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
]

KINDS = ("gaussian", "laplace", "pure", "approx", "noise_reduction")
ENFORCERS = ("filter", "basic")
ACCOUNTANTS = ("basic", "advanced", "zcdp", "pld", "filter")
MAX_BYTES = 64 * 1024  # an imported file larger than this is refused before parsing
MAX_RELEASES = 200
MAX_LABEL = 80
MAX_COMPOSITIONS = 100_000
MAX_EPSILON = 1000.0  # per run (pure/approx ε, ε_max, Laplace Δ/b, Gaussian Δ/σ); the app's sliders stop at 20
_TOL = 1e-9
_FIELDS = ("label", "source", "kind", "epsilon", "delta", "sensitivity", "scale", "compositions", "epsilon_max")
_FORMAT = "dp-explorer-ledger"
_FORMULA_START = ("=", "+", "-", "@")  # spreadsheet formula injection in an exported CSV


# ---------------------------------------------------------------------------------------------------------------
# releases
# ---------------------------------------------------------------------------------------------------------------


def _text(name: str, value: Any, *, allow_empty: bool = False, max_len: int = MAX_LABEL) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be text, got {type(value).__name__}")
    s = value.strip()
    if not s and not allow_empty:
        raise ValueError(f"{name} must not be empty")
    if len(s) > max_len:
        raise ValueError(f"{name} must be at most {max_len} characters, got {len(s)}")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in s):
        raise ValueError(f"{name} must not contain control or invisible characters")
    if s.startswith(_FORMULA_START):
        raise ValueError(f"{name} must not start with {', '.join(_FORMULA_START)} (spreadsheet formulas)")
    return s


def _source(value: Any) -> str:
    s = _text("source", value, allow_empty=True, max_len=40)
    if s and not all(ch.isascii() and (ch.isalnum() or ch in "_-") for ch in s):
        raise ValueError(f"source must be a page name (letters, digits, _ or -), got {s!r}")
    return s


@dataclass(frozen=True)
class Release:
    """One DP release (possibly T-fold): what a page adds to the ledger.

    ``epsilon``/``delta`` are the guarantee of ONE run (T runs compose); for ``noise_reduction`` ``epsilon`` is the
    ex-post stopping level ε_T, ``epsilon_max`` the declared top level, and ``delta`` only the δ at which its ex-ante
    ε is quoted for basic/advanced composition. ``scale`` is σ (gaussian) or b (laplace), else None.
    """

    label: str
    source: str
    kind: str
    epsilon: float
    delta: float
    sensitivity: float
    scale: float | None
    compositions: int
    epsilon_max: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", _text("label", self.label))
        object.__setattr__(self, "source", _source(self.source))
        kind = _v.choice("kind", self.kind, KINDS)
        object.__setattr__(self, "epsilon", _v.real("epsilon", self.epsilon, low=0.0, high=MAX_EPSILON))
        object.__setattr__(self, "delta", _v.probability("delta", self.delta, high_open=True))
        object.__setattr__(self, "sensitivity", _v.positive("sensitivity", self.sensitivity))
        object.__setattr__(self, "compositions",
                           _v.integer("compositions", self.compositions, low=1, high=MAX_COMPOSITIONS))
        if kind in ("gaussian", "laplace"):
            if self.scale is None:
                raise ValueError(f"scale must be given for a {kind} release")
            object.__setattr__(self, "scale", _v.positive("scale", self.scale))
            if self.sensitivity / self.scale > MAX_EPSILON:
                raise ValueError(f"scale must be at least sensitivity/{MAX_EPSILON:g} (Δ/scale ≤ {MAX_EPSILON:g}), "
                                 f"got {self.scale!r}")
        elif self.scale is not None:
            raise ValueError(f"scale must be empty for a {kind} release, got {self.scale!r}")
        if kind == "noise_reduction":
            if self.epsilon_max is None:
                raise ValueError("epsilon_max must be given for a noise_reduction release")
            em = _v.real("epsilon_max", self.epsilon_max, low=0.0, high=MAX_EPSILON, low_open=True)
            object.__setattr__(self, "epsilon_max", em)
            if self.epsilon <= 0 or self.epsilon > em * (1 + 1e-12):
                raise ValueError(f"epsilon (the stopping level) must be in (0, epsilon_max = {em:g}], "
                                 f"got {self.epsilon:g}")
            if self.compositions != 1:
                raise ValueError("compositions must be 1 for a noise_reduction release")
        elif self.epsilon_max is not None:
            raise ValueError(f"epsilon_max must be empty for a {kind} release, got {self.epsilon_max!r}")
        if kind in ("gaussian", "noise_reduction") and self.delta <= 0:
            raise ValueError(f"delta must be in (0, 1) for a {kind} release (it has no pure ε)")
        if kind in ("laplace", "pure") and self.delta != 0:
            raise ValueError(f"delta must be 0 for a {kind} release, got {self.delta:g}")
        if kind in ("pure", "approx") and self.epsilon <= 0:
            raise ValueError("epsilon must be in (0, inf) for a pure or approx release")
        if kind == "gaussian":  # epsilon is derived from σ, Δ, δ: it must agree (no tampering on import)
            want = self.dp_epsilon
            if not math.isclose(self.epsilon, want, rel_tol=1e-6, abs_tol=1e-9):
                raise ValueError(f"epsilon = {self.epsilon:g} does not match σ, Δ and δ of the gaussian release "
                                 f"(exact ε = {want:.6g})")
        if kind == "laplace" and not math.isclose(self.epsilon, self.sensitivity / self.scale, rel_tol=1e-9):
            raise ValueError(f"epsilon = {self.epsilon:g} does not match Δ/b = {self.sensitivity / self.scale:.6g}")

    # ---- derived -------------------------------------------------------------------------------------------
    @property
    def dp_epsilon(self) -> float:
        """ε of one run at ``delta`` (ex-ante; for noise reduction the Gaussian with μ = ε_max)."""
        if self.kind == "gaussian":
            return _gauss_eps(self.delta, self.scale, self.sensitivity)
        if self.kind == "noise_reduction":
            return _gauss_eps(self.delta, 1.0 / self.epsilon_max, 1.0)
        return self.epsilon

    @property
    def rho(self) -> float:
        """zCDP ρ of the whole (T-fold) release as a data-independent accountant sees it (see :func:`zcdp_cost`)."""
        return zcdp_cost(self)[0]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-friendly dict of the fields."""
        return {f: getattr(self, f) for f in _FIELDS}

    @classmethod
    def from_dict(cls, data: Any) -> Release:
        """Strictly validated inverse of :meth:`to_dict` (unknown or missing fields, wrong types → ValueError)."""
        if not isinstance(data, dict):
            raise ValueError(f"a release must be an object with fields {', '.join(_FIELDS)}")
        extra = set(data) - set(_FIELDS)
        if extra:
            raise ValueError(f"unknown release field(s): {', '.join(sorted(map(str, extra)))[:200]}")
        missing = [f for f in _FIELDS if f not in data and f != "epsilon_max"]
        if missing:
            raise ValueError(f"missing release field(s): {', '.join(missing)}")
        vals = dict(data)
        for f in ("epsilon", "delta", "sensitivity", "scale", "epsilon_max"):
            x = vals.get(f)
            if x is not None and (isinstance(x, bool) or not isinstance(x, int | float)):
                raise ValueError(f"{f} must be a number, got {type(x).__name__}")
        c = vals["compositions"]
        if isinstance(c, bool) or not isinstance(c, int | float):
            raise ValueError(f"compositions must be an integer, got {type(c).__name__}")
        if not isinstance(vals["kind"], str):
            raise ValueError(f"kind must be one of {', '.join(KINDS)}")
        return cls(**{f: vals.get(f) for f in _FIELDS})


def gaussian_release(
    sigma: float, *, sensitivity: float = 1.0, delta: float, compositions: int = 1, label: str, source: str = ""
) -> Release:
    """A Gaussian N(0, σ²) release of a query with L2 sensitivity Δ, run T times; ε quoted per run at ``delta``."""
    s = _v.positive("sigma", sigma)
    d = _v.positive("sensitivity", sensitivity)
    dl = _v.probability("delta", delta, low_open=True, high_open=True)
    return Release(label, source, "gaussian", _gauss_eps(dl, s, d), dl, d, s, compositions)


def laplace_release(
    scale: float, *, sensitivity: float = 1.0, compositions: int = 1, label: str, source: str = ""
) -> Release:
    """A Laplace Lap(b) release of a query with L1 sensitivity Δ, run T times: pure ε = Δ/b per run."""
    b = _v.positive("scale", scale)
    d = _v.positive("sensitivity", sensitivity)
    return Release(label, source, "laplace", d / b, 0.0, d, b, compositions)


def pure_release(epsilon: float, *, compositions: int = 1, label: str, source: str = "") -> Release:
    """An ε-DP release (any mechanism), run T times."""
    return Release(label, source, "pure", _v.positive("epsilon", epsilon), 0.0, 1.0, None, compositions)


def approx_release(epsilon: float, delta: float, *, compositions: int = 1, label: str, source: str = "") -> Release:
    """An (ε, δ)-DP release (any mechanism), run T times; δ = 0 gives a pure release."""
    e = _v.positive("epsilon", epsilon)
    dl = _v.probability("delta", delta, high_open=True)
    kind = "approx" if dl > 0 else "pure"
    return Release(label, source, kind, e, dl, 1.0, None, compositions)


def noise_reduction_release(
    epsilon_stop: float, *, epsilon_max: float, delta: float = 1e-6, label: str, source: str = ""
) -> Release:
    """A Brownian noise reduction (paper 001) declared up to ε_max that stopped at ε_T = ``epsilon_stop``.

    ``delta`` is only the δ at which its ex-ante ε (Gaussian, μ = ε_max) is quoted for basic/advanced composition.
    """
    return Release(label, source, "noise_reduction", _v.positive("epsilon_stop", epsilon_stop),
                   _v.probability("delta", delta, low_open=True, high_open=True), 1.0, None, 1,
                   _v.positive("epsilon_max", epsilon_max))


def zcdp_cost(release: Release) -> tuple[float, float, str]:
    """(ρ, δ_i, how) of a release for a data-independent zCDP accountant (see the module docstring)."""
    r, t = release, release.compositions
    if r.kind == "gaussian":
        return t * r.sensitivity**2 / (2.0 * r.scale**2), 0.0, "TΔ²/(2σ²)"
    if r.kind == "laplace":
        e0 = r.sensitivity / r.scale
        return t * e0 * e0 / 2.0, 0.0, "T(Δ/b)²/2"
    if r.kind == "pure":
        return t * r.epsilon**2 / 2.0, 0.0, "Tε²/2"
    if r.kind == "approx":
        return t * r.epsilon**2 / 2.0, t * r.delta, "Tε²/2, δ-approximate"
    return r.epsilon_max**2 / 2.0, 0.0, "ε_max²/2"


# ---------------------------------------------------------------------------------------------------------------
# accountants
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AccountantResult:
    """One accountant's total: ε at the δ it used, whether it fits the session budget, and how it was computed."""

    name: str
    epsilon: float
    delta: float
    within: bool
    note: str


def _check(releases: Any, budget_epsilon: Any, budget_delta: Any) -> tuple[tuple[Release, ...], float, float]:
    """Validate an accountant's arguments: a sequence of Release, ε > 0, δ ∈ (0, 1)."""
    if isinstance(releases, str | bytes | dict) or not isinstance(releases, Iterable):
        raise ValueError("releases must be a sequence of Release")
    rel = tuple(releases)
    if not all(isinstance(r, Release) for r in rel):
        raise ValueError("releases must be a sequence of Release")
    e = _v.positive("budget_epsilon", budget_epsilon)
    d = _v.probability("budget_delta", budget_delta, low_open=True, high_open=True)
    return rel, e, d


def _within(eps: float, delta: float, budget_eps: float, budget_delta: float) -> bool:
    return eps <= budget_eps * (1 + _TOL) + _TOL and delta <= budget_delta * (1 + _TOL) + 1e-300


def _runs(releases: Sequence[Release]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-run (ε_i, δ_i) and the multiplicity T_i of every release."""
    eps = np.array([r.dp_epsilon for r in releases], dtype=float)
    dl = np.array([r.delta for r in releases], dtype=float)
    t = np.array([r.compositions for r in releases], dtype=float)
    return eps, dl, t


def basic(releases: Sequence[Release], budget_epsilon: float, budget_delta: float) -> AccountantResult:
    """Basic composition: Σ T_i ε_i at Σ T_i δ_i (Dwork & Roth 2014, Thm 3.16)."""
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    eps, dl, t = _runs(releases)
    e, d = float(np.dot(t, eps)), float(np.dot(t, dl))
    return AccountantResult("basic", e, d, _within(e, d, budget_epsilon, budget_delta), "Σ T·ε at Σ T·δ")


@functools.lru_cache(maxsize=1024)
def _gauss_eps(delta: float, sigma: float, sensitivity: float) -> float:
    """ε of one Gaussian run at δ (exact, Balle & Wang), cached: pages build their releases on every rerun."""
    return float(_acc.gaussian_epsilon(delta, sigma=sigma, sensitivity=sensitivity))


def _kov(eps: np.ndarray, t: np.ndarray, slack: float) -> float:
    """KOV 2015 Thm 3.5 ε̃ for runs ε_i with multiplicity T_i at slack δ̃ (min of its three bounds)."""
    total = float(np.dot(t, eps))
    if slack <= 0 or total == 0:
        return total
    s2 = float(np.dot(t, eps**2))
    first = float(np.dot(t, eps * np.tanh(eps / 2.0)))  # ε(e^ε − 1)/(e^ε + 1) = ε tanh(ε/2)
    b2 = first + math.sqrt(2.0 * s2 * math.log(math.e + math.sqrt(s2) / slack))
    b3 = first + math.sqrt(2.0 * s2 * math.log(1.0 / slack))
    return min(total, b2, b3)


def advanced(releases: Sequence[Release], budget_epsilon: float, budget_delta: float) -> AccountantResult:
    """Heterogeneous advanced composition (Kairouz, Oh & Viswanath 2015, Thm 3.5) at the session δ, min with basic.

    δ_total = 1 − (1 − δ̃) Π (1 − δ_i)^{T_i} = session δ fixes the slack δ̃ = 1 − (1 − δ)/Π(1 − δ_i)^{T_i}.
    """
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    eps, dl, t = _runs(releases)
    dl_s = _v.probability("budget_delta", budget_delta, low_open=True, high_open=True)
    log_keep = float(np.dot(t, np.log1p(-dl)))  # ln Π(1 − δ_i)^{T_i}
    slack = -math.expm1(math.log1p(-dl_s) - log_keep)
    if slack <= 0:
        b = basic(releases, budget_epsilon, budget_delta)
        return AccountantResult("advanced", b.epsilon, -math.expm1(log_keep), False,
                                "no δ slack left after the releases' own δ: basic composition only")
    e = _kov(eps, t, slack)
    return AccountantResult("advanced", e, dl_s, _within(e, dl_s, budget_epsilon, budget_delta),
                            f"KOV 2015 Thm 3.5, slack δ̃ = {slack:.3g}")


def zcdp(releases: Sequence[Release], budget_epsilon: float, budget_delta: float) -> AccountantResult:
    """zCDP: ρ = Σρ_i (ρ per release from :func:`zcdp_cost`), ε = ρ + 2√(ρ ln(1/δ')) at δ' = δ − Σδ_i."""
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    dl_s = _v.probability("budget_delta", budget_delta, low_open=True, high_open=True)
    costs = [zcdp_cost(r) for r in releases]
    rho = float(sum(c[0] for c in costs))
    d_own = float(sum(c[1] for c in costs))
    slack = dl_s - d_own
    if slack <= 0:
        return AccountantResult("zcdp", math.inf, d_own, False,
                                f"ρ = {rho:.4g}, but the releases' own δ {d_own:.3g} uses the whole session δ")
    e = float(_acc.zcdp_to_dp(rho, slack)) if rho > 0 else 0.0
    return AccountantResult("zcdp", e, dl_s, _within(e, dl_s, budget_epsilon, budget_delta),
                            f"ρ = {rho:.4g} → ε at δ' = {slack:.3g}")


PLD_MAX_LOSS = 100.0  # PLDs whose privacy loss may exceed this are not built (grid ≥ 1e5 points): fall back


@functools.lru_cache(maxsize=64)
def _pld_single(kind: str, a: float, b: float, t: int) -> _pld.PrivacyLossDistribution:
    """PLD of one (T-fold) release from scalars: gaussian (σ/Δ), laplace (b/Δ), dp (ε, δ)."""
    h = _acc.PLD_DISCRETIZATION
    if kind == "gaussian":
        one = _pld.from_gaussian_mechanism(a, sensitivity=1.0, value_discretization_interval=h)
    elif kind == "laplace":
        one = _pld.from_laplace_mechanism(a, sensitivity=1.0, value_discretization_interval=h)
    else:
        one = _pld.from_privacy_parameters(_pld_common.DifferentialPrivacyParameters(a, b),
                                           value_discretization_interval=h)
    return one.self_compose(t) if t > 1 else one


def _gaussian_mu2(r: Release) -> float:
    """μ² = TΔ²/σ² of a Gaussian-like release (noise reduction: μ = ε_max), 0 for the others."""
    if r.kind == "gaussian":
        return r.compositions * (r.sensitivity / r.scale) ** 2
    if r.kind == "noise_reduction":
        return r.epsilon_max**2
    return 0.0


def _pld_other(r: Release) -> _pld.PrivacyLossDistribution:
    if r.kind == "laplace":
        return _pld_single("laplace", r.scale / r.sensitivity, 0.0, r.compositions)
    return _pld_single("dp", r.epsilon, r.delta, r.compositions)


def _max_loss(mu2: float, others: float) -> float:
    """Upper end of the loss grid: Gaussian part μ²/2 + 12μ (beyond: < e^-50 mass) plus Σ T·ε of the others."""
    return mu2 / 2.0 + 12.0 * math.sqrt(mu2) + others


@functools.lru_cache(maxsize=16)
def _pld_prefixes(releases: tuple[Release, ...]) -> tuple[_pld.PrivacyLossDistribution | None, ...]:
    """Composed PLD after each prefix of the releases (None where the loss range exceeds :data:`PLD_MAX_LOSS`).

    All Gaussian-like releases (Gaussian, noise reduction at ε_max) compose exactly into one Gaussian with
    μ = √(Σ T_i Δ_i²/σ_i²), built once per prefix; Laplace and (ε, δ) releases are composed as PLDs. Cached by the
    (hashable, frozen) releases, so a change of the session δ or ε only re-reads ε(δ).
    """
    out: list[_pld.PrivacyLossDistribution | None] = []
    mu2, others, acc = 0.0, 0.0, None
    for r in releases:
        mu2 += _gaussian_mu2(r)
        if r.kind in ("laplace", "pure", "approx"):
            others += r.compositions * r.dp_epsilon
            if _max_loss(mu2, others) <= PLD_MAX_LOSS:
                p = _pld_other(r)
                acc = p if acc is None else acc.compose(p)
        if _max_loss(mu2, others) > PLD_MAX_LOSS:
            out.append(None)
            continue
        total = acc
        if mu2 > 0:
            g = _pld_single("gaussian", 1.0 / math.sqrt(mu2), 0.0, 1)
            total = g if total is None else total.compose(g)
        out.append(total)
    return tuple(out)


def _pld_prefix_epsilons(releases: Sequence[Release], delta: float) -> list[float]:
    """PLD ε at δ after each prefix of the releases (NaN where the PLD is not built)."""
    return [math.nan if p is None else max(float(p.get_epsilon_for_delta(delta)), 0.0)
            for p in _pld_prefixes(tuple(releases))]


def pld(releases: Sequence[Release], budget_epsilon: float, budget_delta: float) -> AccountantResult:
    """Privacy-loss distributions (``dp_accounting``) of every release composed; ε at the session δ.

    When the composed loss could exceed :data:`PLD_MAX_LOSS` the PLD is not built (it would need ≥ 1e5 grid points
    per unit of loss) and the smaller of the basic and zCDP totals, both sound upper bounds, is reported instead.
    """
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    dl_s = _v.probability("budget_delta", budget_delta, low_open=True, high_open=True)
    if not releases:
        return AccountantResult("pld", 0.0, dl_s, True, "no releases")
    e = _pld_prefix_epsilons(releases, dl_s)[-1]
    if math.isnan(e):
        fb = [x for x in (basic(releases, budget_epsilon, budget_delta), zcdp(releases, budget_epsilon, budget_delta))
              if x.delta <= dl_s * (1 + _TOL)]
        e = min((x.epsilon for x in fb), default=math.inf)
        return AccountantResult("pld", e, dl_s, _within(e, dl_s, budget_epsilon, budget_delta),
                                f"loss range beyond {PLD_MAX_LOSS:g}: PLD not built, min of basic and zCDP")
    return AccountantResult("pld", e, dl_s, _within(e, dl_s, budget_epsilon, budget_delta),
                            f"dp_accounting PLD, grid {_acc.PLD_DISCRETIZATION:g}")


def _split(budget_delta: float, delta_share: float) -> tuple[float, float]:
    """(δ'' conversion slack, δ_mech for the releases' own δ) of the paper-001 filter."""
    return budget_delta * (1.0 - delta_share), budget_delta * delta_share


def _new_filter(budget_epsilon: float, budget_delta: float, delta_share: float) -> PrivacyFilter:
    delta_share = _v.real("delta_share", delta_share, low=0.0, high=1.0, high_open=True)
    slack, mech = _split(budget_delta, delta_share)
    return PrivacyFilter(budget_epsilon, slack, delta_mechanisms=mech, record=False)


def _charge(flt: PrivacyFilter, r: Release) -> None:
    """Charge one release to the paper-001 filter; BudgetExceeded names the numbers."""
    left = flt.remaining_rho
    if r.kind == "noise_reduction":
        need = r.epsilon_max**2 / 2.0
        if not flt.can_start(epsilon_max=r.epsilon_max):
            raise BudgetExceeded(
                f"the filter has ρ = {left:.4g} left; this noise reduction may only start if its worst case "
                f"ρ = {need:.4g} (ε_max = {r.epsilon_max:.4g} as ε_max²/2) fits — it would be charged only "
                f"ε_T²/2 = {r.epsilon**2 / 2:.4g} once stopped")
        flt.start_noise_reduction(r.epsilon_max, label=r.label)
        flt.charge_noise_reduction(r.epsilon)
        return
    rho, d, how = zcdp_cost(r)
    if not flt.can_start(rho=rho, delta=d):
        if flt.rho_spent + rho > flt.rho_budget + flt.tol * max(1.0, flt.rho_budget):
            raise BudgetExceeded(f"the filter has ρ = {left:.4g} left; this release needs ρ = {rho:.4g} "
                                 f"({_how_text(r, how)})")
        raise BudgetExceeded(f"the filter has δ = {flt.remaining_delta:.3g} left for the releases' own δ; this "
                             f"release needs δ = {d:.3g} (T·δ)")
    flt.charge_zcdp(rho, delta=d, label=r.label)


def _how_text(r: Release, how: str) -> str:
    t = f"T = {r.compositions} × " if r.compositions > 1 else ""
    if r.kind == "gaussian":
        return f"{how} with σ = {r.scale:.4g}, Δ = {r.sensitivity:.4g}" + (f", T = {r.compositions}"
                                                                           if r.compositions > 1 else "")
    if r.kind == "laplace":
        return f"{t}ε = {r.sensitivity / r.scale:.4g} as ε²/2"
    return f"{t}ε = {r.epsilon:.4g} as ε²/2"


def filter_replay(
    releases: Sequence[Release], budget_epsilon: float, budget_delta: float, *, delta_share: float = 0.5
) -> tuple[PrivacyFilter, list[tuple[int, str]]]:
    """Replay the releases through the paper-001 filter; refused ones are skipped and reported (index, reason)."""
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    flt = _new_filter(budget_epsilon, budget_delta, delta_share)
    refused = []
    for i, r in enumerate(releases):
        try:
            _charge(flt, r)
        except BudgetExceeded as exc:
            refused.append((i, str(exc)))
    return flt, refused


def _filter_result(releases: Sequence[Release], budget_epsilon: float, budget_delta: float,
                   delta_share: float) -> AccountantResult:
    flt, refused = filter_replay(releases, budget_epsilon, budget_delta, delta_share=delta_share)
    slack, _ = _split(budget_delta, delta_share)
    e = float(_acc.zcdp_to_dp(flt.rho_spent, slack))
    d = slack + flt.delta_spent
    note = (f"ρ spent {flt.rho_spent:.4g} of {flt.rho_budget:.4g}; noise reduction charged ex-post ε_T²/2")
    if refused:
        note = f"would refuse release {refused[0][0] + 1}: {refused[0][1]}"
    return AccountantResult("filter", e, d, not refused and _within(e, d, budget_epsilon, budget_delta), note)


def accountants(
    releases: Sequence[Release], budget_epsilon: float, budget_delta: float, *, delta_share: float = 0.5
) -> list[AccountantResult]:
    """All five accountants (basic, advanced, zCDP, PLD, filter) for the releases at the session budget."""
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    return [
        basic(releases, budget_epsilon, budget_delta),
        advanced(releases, budget_epsilon, budget_delta),
        zcdp(releases, budget_epsilon, budget_delta),
        pld(releases, budget_epsilon, budget_delta),
        _filter_result(releases, budget_epsilon, budget_delta, delta_share),
    ]


def cumulative(
    releases: Sequence[Release], budget_epsilon: float, budget_delta: float, *, delta_share: float = 0.5
) -> pd.DataFrame:
    """ε of every accountant after the first n releases, n = 0 … N, long form (releases, accountant, epsilon)."""
    releases, budget_epsilon, budget_delta = _check(releases, budget_epsilon, budget_delta)
    rows = [{"releases": 0, "accountant": a, "epsilon": 0.0} for a in ACCOUNTANTS]
    plds = _pld_prefix_epsilons(releases, budget_delta)
    for n in range(1, len(releases) + 1):
        pre = releases[:n]
        for res in (basic(pre, budget_epsilon, budget_delta), advanced(pre, budget_epsilon, budget_delta),
                    zcdp(pre, budget_epsilon, budget_delta),
                    _filter_result(pre, budget_epsilon, budget_delta, delta_share)):
            rows.append({"releases": n, "accountant": res.name, "epsilon": res.epsilon})
        rows.append({"releases": n, "accountant": "pld", "epsilon": plds[n - 1]})
    df = pd.DataFrame(rows)
    df["epsilon"] = df["epsilon"].replace([np.inf, -np.inf], np.nan)
    return df.sort_values(["accountant", "releases"], kind="stable", ignore_index=True)


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
        object.__setattr__(self, "epsilon", _v.real("epsilon", self.epsilon, low=0.0, high=1e6, low_open=True))
        object.__setattr__(self, "delta", _v.probability("delta", self.delta, low_open=True, high_open=True))
        _v.choice("enforce", self.enforce, ENFORCERS)
        object.__setattr__(self, "delta_share",
                           _v.real("delta_share", self.delta_share, low=0.0, high=1.0, high_open=True))
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
        out, e_sum, d_sum = [], 0.0, 0.0
        for i, r in enumerate(self.releases):
            e, d = r.compositions * r.dp_epsilon, r.compositions * r.delta
            reason = self._basic_reason(e_sum, d_sum, e, d)
            if reason:
                out.append((i, reason))
            else:
                e_sum, d_sum = e_sum + e, d_sum + d
        return out

    def _basic_reason(self, e_sum: float, d_sum: float, e: float, d: float) -> str:
        if e_sum + e > self.epsilon * (1 + _TOL) + _TOL:
            return (f"basic composition has ε = {max(self.epsilon - e_sum, 0.0):.4g} left; this release needs "
                    f"ε = {e:.4g}")
        if d_sum + d > self.delta * (1 + _TOL):
            return f"basic composition has δ = {max(self.delta - d_sum, 0.0):.3g} left; this release needs δ = {d:.3g}"
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
            raise BudgetExceeded(f"the ledger is already over this budget (release {before[0][0] + 1}: "
                                 f"{before[0][1]}); raise the budget or remove releases first")
        new = dataclasses.replace(self, releases=(*self.releases, release))
        after = new.refusals()
        if after:
            raise BudgetExceeded(after[0][1])
        return new

    def with_budget(self, epsilon: float, delta: float, enforce: str | None = None) -> Ledger:
        """Same releases under another budget/enforcer (check :attr:`over_budget` afterwards)."""
        return dataclasses.replace(self, epsilon=epsilon, delta=delta,
                                   enforce=self.enforce if enforce is None else enforce)

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
        return pd.DataFrame([dataclasses.asdict(r) for r in res],
                            columns=["name", "epsilon", "delta", "within", "note"])

    def spent(self) -> float:
        """ε spent by the enforcing accountant (filter: ρ_spent as ε at δ''; basic: Σ T·ε); cheap (no PLD)."""
        if self.enforce == "filter":
            flt, _ = filter_replay(self.releases, self.epsilon, self.delta, delta_share=self.delta_share)
            return float(_acc.zcdp_to_dp(flt.rho_spent, _split(self.delta, self.delta_share)[0]))
        return basic(self.releases, self.epsilon, self.delta).epsilon

    # ---- export / import -----------------------------------------------------------------------------------
    def to_json(self) -> str:
        """The ledger (budget + releases) as JSON."""
        return json.dumps({
            "format": _FORMAT, "version": 1,
            "budget": {"epsilon": self.epsilon, "delta": self.delta, "enforce": self.enforce,
                       "delta_share": self.delta_share},
            "releases": [r.to_dict() for r in self.releases],
        }, indent=1, allow_nan=False, ensure_ascii=False)

    def to_csv(self) -> str:
        """The releases as CSV (one row each, the fields of :class:`Release`); the budget is not part of it."""
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(_FIELDS), lineterminator="\n")
        w.writeheader()
        for r in self.releases:
            w.writerow({k: ("" if v is None else repr(v) if isinstance(v, float) else v)
                        for k, v in r.to_dict().items()})
        return buf.getvalue()


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


def from_json(text: str | bytes) -> Imported:
    """Import a ledger exported by :meth:`Ledger.to_json` (size-limited, strictly validated, replayed).

    Releases the file's enforcing accountant refuses are returned in :attr:`Imported.refused`, not dropped silently.
    """
    s = _decode(text)
    try:
        data = json.loads(s, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("file: nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"file: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise ValueError(f"file: not a DP Explorer ledger (expected an object with \"format\": \"{_FORMAT}\")")
    if data.get("version") != 1:
        raise ValueError(f"version: unsupported ledger version {str(data.get('version'))[:20]}")
    extra = set(data) - {"format", "version", "budget", "releases"}
    if extra:
        raise ValueError(f"file: unknown field(s) {', '.join(sorted(map(str, extra)))[:200]}")
    budget = data.get("budget")
    if not isinstance(budget, dict) or not {"epsilon", "delta", "enforce"} <= set(budget) or \
            set(budget) - {"epsilon", "delta", "enforce", "delta_share"}:
        raise ValueError("budget: must be an object with epsilon, delta, enforce (and optionally delta_share)")
    for k in ("epsilon", "delta", "delta_share"):
        if k in budget and (isinstance(budget[k], bool) or not isinstance(budget[k], int | float)):
            raise ValueError(f"budget.{k} must be a number")
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
