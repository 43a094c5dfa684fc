"""Perform a planned release on a table: counts per category, a bounded sum or a bounded mean of one column, with
noise calibrated for an accuracy requirement (:mod:`dpcore.negotiate`), and the accuracy each number carries.

A :class:`Plan` says what is released and how: the statistic, the column, the mechanism and its (ε, δ), the error
bound θ it meets with probability p, and the sensitivity Δ the noise is calibrated for. :func:`perform` applies it
to a :class:`pandas.DataFrame`; :func:`noise` draws the noise alone.

Neighbouring tables differ by one person (added or removed). Counts: one person changes one count by at most Δ
(Δ = 1: one row per person), so every count gets its own noise and the whole table costs one (ε, δ) (parallel
composition). A sum: every value is clipped to [lower, upper], so one person moves it by at most
max(|lower|, |upper|). A mean: that clipped sum divided by a number of rows known without the data (a public
figure; the data's own count is not used, it would have to be protected too).

The randomness: :func:`secure_rng` seeds numpy's PCG64DXSM generator with 256 fresh bits from the operating
system's cryptographic source (``secrets``). PCG64DXSM is a statistical generator, not a cryptographic one; with a
fresh secret seed per release and only noisy aggregates published, predicting its state is not a known practical
attack, but it is not proven impossible either. The samplers compute with floating-point numbers, whose rounding
can leak information the mathematics does not (Mironov 2012, "On significance of the least significant bits for
differential privacy"): the (ε, δ) guarantee is proven for the ideal distributions. Counts are rounded to whole
numbers (post-processing, which removes the low bits that attack reads), which lowers but does not remove that
risk. A release whose guarantee must hold for the implementation itself should use exact discrete samplers
(e.g. OpenDP's discrete Laplace and Gaussian).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from scipy import special

from dpcore import _validate as _v
from dpcore import accounting as _acct
from dpcore import brdp as _brdp
from dpcore.mechanisms import answers as _a
from dpcore.mechanisms.requirement import make_requirement
from dpcore.r2dp.applications import noise_sampler as _r2dp_sampler
from dpcore.r2dp.baselines import sample_staircase, staircase_optimal_r

__all__ = [
    "STATISTICS",
    "NOISES",
    "Plan",
    "plan",
    "noise",
    "guarantee",
    "perform",
    "true_values",
    "secure_rng",
    "example_csv",
    "EXAMPLE_COLUMNS",
]

STATISTICS = ("counts", "sum", "mean")
#: Mechanisms a release can use (ids of :mod:`dpcore.mechanisms`).
NOISES = ("laplace", "gaussian", "staircase", "r2dp", "r2dp_two_point", "brdp")
#: The example table's columns: a category and a number (synthetic households, no real person).
EXAMPLE_COLUMNS = {"counts": "county", "sum": "income", "mean": "income"}
MAX_CATEGORIES = 100_000


@dataclass(frozen=True)
class Plan:
    """One release: what is computed from which column, and the noise that protects it (see the module docstring).

    ``sensitivity`` is Δ of the released number (a count, the sum, the mean); ``bound`` the error θ it meets with
    probability at least ``confidence`` at (``epsilon``, ``delta``).
    """

    statistic: str
    column: str
    mechanism: str
    epsilon: float
    delta: float
    sensitivity: float
    bound: float
    confidence: float
    lower: float | None = None
    upper: float | None = None
    rows: int | None = None
    kernel: str = "gaussian"
    categories: tuple[str, ...] | None = None
    scale: float | None = None  # Laplace b or Gaussian σ when stated exactly (a split computed its total with it)

    def with_bounds(self, lower: float, upper: float) -> Plan:
        """The same plan for other clipping bounds (a sum or a mean): noise and error bound scale with Δ."""
        if self.statistic == "counts":
            raise ValueError("bounds apply to a sum or a mean, not to counts")
        new = plan(
            self.statistic,
            self.column,
            self.mechanism,
            self.epsilon,
            delta=self.delta,
            bound=self.bound,
            confidence=self.confidence,
            lower=lower,
            upper=upper,
            rows=self.rows,
            kernel=self.kernel,
        )
        ratio = new.sensitivity / self.sensitivity
        return replace(new, bound=self.bound * ratio, scale=None if self.scale is None else self.scale * ratio)


def _clip_sensitivity(statistic: str, lower: float, upper: float, rows: int | None) -> float:
    widest = max(abs(lower), abs(upper))
    return widest / rows if statistic == "mean" and rows else widest


def plan(
    statistic: str,
    column: str,
    mechanism: str,
    epsilon: float,
    *,
    delta: float = 0.0,
    bound: float,
    confidence: float,
    sensitivity: float | None = None,
    lower: float | None = None,
    upper: float | None = None,
    rows: int | None = None,
    kernel: str = "gaussian",
    categories: tuple[str, ...] | list[str] | None = None,
    scale: float | None = None,
) -> Plan:
    """A validated :class:`Plan`. Counts take ``sensitivity`` (default 1); a sum or a mean take ``lower`` and
    ``upper`` (and a mean ``rows``), from which Δ follows; a smaller Δ than that is refused. ``scale`` states the
    Laplace b or Gaussian σ exactly; it must be at least what (ε, δ) needs (more noise is never less private)."""
    stat = _v.choice("statistic", statistic, STATISTICS)
    if not isinstance(column, str) or not column:
        raise ValueError(f"column must be a non-empty column name, got {column!r}")
    mech = _v.choice("mechanism", mechanism, NOISES)
    eps = _v.real("epsilon", epsilon, low=0.0, high=1000.0, low_open=True)
    dl = _v.real("delta", delta, low=0.0, high=1.0, high_open=True)
    if mech in ("gaussian", "brdp") and dl <= 0:
        raise ValueError(f"delta must be in (0, 1) for the {mech} mechanism, got {dl:g}")
    theta = _v.scale("bound", bound)
    p = _v.probability("confidence", confidence, low_open=True, high_open=True)
    lo = hi = None
    n = None
    if stat == "counts":
        d = 1.0 if sensitivity is None else _v.scale("sensitivity", sensitivity)
    else:
        if lower is None or upper is None:
            raise ValueError(f"a {stat} needs lower and upper bounds for its values")
        lo, hi = _v.real("lower", lower), _v.real("upper", upper)
        if not lo < hi:
            raise ValueError(f"lower must be below upper, got [{lo:g}, {hi:g}]")
        if stat == "mean":
            if rows is None:
                raise ValueError("a mean needs rows: the number of rows, known without looking at the data")
            n = _v.integer("rows", rows, low=1, high=10**12)
        d = _clip_sensitivity(stat, lo, hi, n)
        if d <= 0:
            raise ValueError("the bounds must not both be 0")
        if sensitivity is not None and _v.scale("sensitivity", sensitivity) < d * (1 - 1e-12):
            raise ValueError(f"sensitivity must be at least {d:g} for bounds [{lo:g}, {hi:g}], got {sensitivity:g}")
        d = _v.scale("sensitivity", max(d, sensitivity or 0.0))  # the bounds' Δ stays a representable scale
    cats = None
    if categories is not None:
        cats = tuple(str(c) for c in _v.sequence("categories", categories))
        if not cats or len(cats) > MAX_CATEGORIES or len(set(cats)) != len(cats):
            raise ValueError(f"categories must be 1 to {MAX_CATEGORIES} distinct names")
    b = None
    if scale is not None:
        if mech not in ("laplace", "gaussian"):
            raise ValueError(f"scale can be stated for Laplace or Gaussian noise, not for {mech}")
        b = _v.scale("scale", scale)
        if b < _scale_for(mech, eps, dl, d) * (1 - 1e-9):
            raise ValueError(
                f"scale must be at least {_scale_for(mech, eps, dl, d):.6g} for epsilon = {eps:g}, got {b:.6g}"
            )
    kern = _v.choice("kernel", kernel, ("gaussian", "laplace"))
    return Plan(stat, column, mech, eps, dl, d, theta, p, lo, hi, n, kern, cats, b)


def _scale_for(mechanism: str, eps: float, delta: float, sensitivity: float) -> float:
    if mechanism == "laplace":
        return sensitivity / eps
    return float(_acct.gaussian_sigma(eps, delta, sensitivity=sensitivity))


def _requirement(p: Plan):
    return make_requirement(
        theta=p.bound,
        confidence=p.confidence,
        sensitivity=p.sensitivity,
        delta=p.delta if p.delta > 0 else 1e-5,
        kernel=p.kernel,
        cap=1000.0,
    )


def noise(p: Plan, n: int, rng: np.random.Generator) -> np.ndarray:
    """n independent draws of the plan's noise (calibrated for its Δ, ε, δ and, where the law depends on it, θ)."""
    k = _v.integer("n", n, low=0, high=10_000_000)
    g = _v.rng(rng)
    eps, d = p.epsilon, p.sensitivity
    if p.mechanism in ("laplace", "gaussian"):
        b = p.scale if p.scale is not None else _scale_for(p.mechanism, eps, p.delta, d)
        return g.laplace(0.0, b, k) if p.mechanism == "laplace" else g.normal(0.0, b, k)
    if p.mechanism == "staircase":
        r = staircase_optimal_r(eps, gamma=p.bound, sensitivity=d)
        return sample_staircase(k, eps, sensitivity=d, r=r, rng=g)
    if p.mechanism in ("r2dp", "r2dp_two_point"):
        families = _a.R2DP_FAMILIES if p.mechanism == "r2dp" else ("two_point",)
        best = _a.r2dp_best(eps, _requirement(p), families)[1]
        if best == "laplace":
            return g.laplace(0.0, d / eps, k)
        return _r2dp_sampler("r2dp", epsilon=eps, gamma=p.bound, sensitivity=d, family=best)(k, g)
    plan_ = _a.brdp_plan(eps, _requirement(p), "exact")  # brdp: the exact accountant's plan, never the paper's
    kernel: Literal["gaussian", "laplace"] = "laplace" if p.kernel == "laplace" else "gaussian"
    return _brdp.sample_outputs(k, kernel=kernel, scale=plan_.scale, theta=p.bound, q=plan_.q, rng=g)


def guarantee(p: Plan) -> float:
    """P(|noise| ≤ θ) at the plan's ε: the share of releases whose every number lands within ±θ of the truth."""
    req = _requirement(p)
    if p.scale is not None:  # P(|Lap(b)| ≤ θ) = 1 − e^(−θ/b); P(|N(0, σ²)| ≤ θ) = erf(θ/(σ√2))
        x = p.bound / p.scale
        return float(-np.expm1(-x)) if p.mechanism == "laplace" else float(special.erf(x / np.sqrt(2.0)))
    acc = {
        "laplace": _a.laplace_accuracy,
        "gaussian": _a.gaussian_accuracy,
        "staircase": _a.staircase_accuracy,
        "r2dp": _a.r2dp_accuracy(_a.R2DP_FAMILIES),
        "r2dp_two_point": _a.r2dp_accuracy(("two_point",)),
        "brdp": _a.brdp_accuracy("exact"),
    }[p.mechanism]
    return float(acc(p.epsilon, req))


def _numbers(frame: pd.DataFrame, column: str) -> np.ndarray:
    values = pd.to_numeric(frame[column], errors="coerce")
    bad = values.isna() & frame[column].notna() & (frame[column].astype(str).str.strip() != "")
    if bad.any():
        first = frame[column][bad].iloc[0]
        raise ValueError(
            f"column {column!r} must hold numbers; row {int(bad.to_numpy().argmax()) + 2} holds {str(first)[:40]!r}"
        )
    return values.dropna().to_numpy(float)


def true_values(p: Plan, frame: pd.DataFrame) -> pd.Series:
    """The exact statistic (never published): counts per category, or the clipped sum / mean, by name."""
    if p.column not in frame.columns:
        raise ValueError(f"column must be one of {', '.join(map(repr, map(str, frame.columns)))}; got {p.column!r}")
    if p.statistic == "counts":
        col = frame[p.column].dropna().astype(str)
        cats = p.categories if p.categories is not None else tuple(sorted(col.unique()))
        return col.value_counts().reindex(list(cats), fill_value=0).astype(float)
    clipped = np.clip(_numbers(frame, p.column), p.lower, p.upper)
    total = float(clipped.sum())
    name = f"{p.statistic} of {p.column}"
    value = total / p.rows if p.statistic == "mean" and p.rows else total  # a plan of a mean always has its rows
    return pd.Series([value], index=[name], dtype=float)


def perform(p: Plan, frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """The release: one row per published number (``name``, ``noisy``, ``within``: ±θ, ``probability``: how often a
    release is that accurate). Counts are rounded to whole numbers (post-processing)."""
    truth = true_values(p, frame)
    noisy = truth.to_numpy() + noise(p, len(truth), rng)
    if p.statistic == "counts":
        noisy = np.round(noisy)
    return pd.DataFrame(
        {"name": truth.index.astype(str), "noisy": noisy, "within": p.bound, "probability": guarantee(p)}
    )


def secure_rng() -> np.random.Generator:
    """A generator seeded with 256 fresh bits from the operating system's cryptographic source (see the module
    docstring for what this does and does not promise)."""
    return np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(secrets.randbits(256))))


def example_csv() -> Path:
    """The small example table shipped with dpcore: 600 synthetic households (county, yearly income)."""
    return Path(str(resources.files("dpcore") / "examples" / "households.csv"))
