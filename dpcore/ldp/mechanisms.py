"""LDP mechanisms as likelihood tables (Pan 2023, Sec. 2.5 and Def. 3.3).

k-ary and generalized randomized response (they fully utilise their budget, Def. 3.3), the two-point mechanism
of a bounded value (Eq. 5) with its unbiased mean estimate, and the running example's queries ``X^i`` (Eq. 11).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from dpcore import _validate as _v
from dpcore.ldp.likelihood import (
    MAX_DOMAIN_SIZE,
    MAX_RR_DOMAIN,
    MAX_TABLE_CELLS,
    LikelihoodTable,
    _cap_columns,
    _make_table,
)


def randomized_response(epsilon: float, *, domain_size: int = 2) -> LikelihoodTable:
    """k-ary randomized response: keep x w.p. e^ε/(e^ε+k−1), else each other value w.p. 1/(e^ε+k−1).

    Def. 3.3; binary RR for ``domain_size=2``.  Fully utilises its budget: ℓ(y) = ε for every y.
    """
    eps = _v.positive("epsilon", epsilon)
    k = _v.integer("domain_size", domain_size, low=2, high=MAX_RR_DOMAIN)
    return generalized_randomized_response(eps, categories=np.arange(k), name=f"RR(ε={eps:g}, k={k})")


def generalized_randomized_response(
    epsilon: float, *, categories: Any, n_categories: int | None = None, name: str = ""
) -> LikelihoodTable:
    """Randomized response on a category c(x): report c(x) w.p. e^ε/(e^ε+K−1), another w.p. 1/(e^ε+K−1).

    Def. 3.3 (generalized RR); ``categories[x]`` is the category (0..K−1) of value x, so the table
    has |D| rows and K columns.  ε-LDP; ℓ(y) = ε for outputs whose category is hit by some x and
    missed by another.
    """
    eps = _v.positive("epsilon", epsilon)
    cat = _v.real_array("categories", categories, low=0, high=MAX_TABLE_CELLS, allow_inf=False)
    if cat.ndim != 1 or cat.size == 0 or np.any(cat != np.round(cat)):
        raise ValueError("categories must be a non-empty 1-D array of category indices 0..K-1")
    cat = cat.astype(int)
    kk = int(cat.max()) + 1 if n_categories is None else _v.integer("n_categories", n_categories, low=2)
    if kk < 2 or cat.max() >= kk:
        raise ValueError(f"n_categories must be ≥ 2 and exceed every category index, got {kk}")
    if cat.size * kk > MAX_TABLE_CELLS:
        raise ValueError(
            f"n_categories times len(categories) must be at most {MAX_TABLE_CELLS} table cells, got {kk}·{cat.size}"
        )
    log_den = np.logaddexp(eps, math.log(kk - 1))
    lp = np.full((cat.size, kk), -log_den)
    lp[np.arange(cat.size), cat] = eps - log_den
    return _make_table(_cap_columns(lp, eps), range(kk), name or f"GRR(ε={eps:g}, K={kk})")


def _interval(low: Any, high: Any, lo_name: str = "low", hi_name: str = "high") -> tuple[float, float]:
    """``low < high``, both finite with |·| ≤ 1e100 (so ``high − low`` is finite); errors name both ends."""
    lo = _v.bounded(lo_name, low)
    hi = _v.bounded(hi_name, high)
    if not hi > lo:
        raise ValueError(f"{hi_name} must be > {lo_name}, got {lo_name}={low!r}, {hi_name}={high!r}")
    return lo, hi


def _values_in(values: Any, lo: float, hi: float) -> np.ndarray:
    v = _v.real_array("values", values, allow_inf=False)
    if v.size and (v.min() < lo or v.max() > hi):
        raise ValueError(f"values must lie in [low, high] = [{lo:g}, {hi:g}], got [{v.min():g}, {v.max():g}]")
    return v


def _two_point_high(values: np.ndarray, low: float, high: float, eps: float) -> np.ndarray:
    t = (values - low) / (high - low)
    return special.expit(-eps) + t * math.tanh(eps / 2)  # 1/(e^ε+1) + t (e^ε−1)/(e^ε+1)


def _two_point_log_prob(t: np.ndarray, u: np.ndarray, eps: float) -> np.ndarray:
    """``ln Pr[high | x]`` of Eq. 5 at position t = (v−low)/(high−low), u = 1 − t, without cancellation.

    ``Pr[high] = (t + u e^{−ε})/(1 + e^{−ε})`` and ``t + u e^{−ε} = 1 + u·expm1(−ε)``: log1p where that
    argument is ≥ −1/2, else ``logaddexp(ln t, ln u − ε)`` (no 1 − p_high: exact for ε up to float range).
    """
    x = u * math.expm1(-eps)
    near_one = x >= -0.5
    with np.errstate(divide="ignore"):
        small = np.logaddexp(np.log(t), np.log(u) - eps)
    head = np.where(near_one, np.log1p(np.where(near_one, x, 0.0)), small)
    return head - math.log1p(math.exp(-eps))


def two_point(epsilon: float, values: Any, *, low: float = 0.0, high: float = 1.0, name: str = "") -> LikelihoodTable:
    """Two-point perturbation of a bounded value (Sec. 2.5, Eq. 5) as a table over the domain.

    ``values[x]`` is the query value v(x) ∈ [low, high]; outputs are ``(low, high)`` with
    ``Pr[high | x] = 1/(e^ε+1) + (v(x)−low)/(high−low)·(e^ε−1)/(e^ε+1)``.
    """
    eps = _v.positive("epsilon", epsilon)
    lo, hi = _interval(low, high)
    v = _values_in(values, lo, hi)
    if v.ndim != 1 or v.size == 0:
        raise ValueError("values must be a non-empty 1-D array of v(x) over the domain")
    t = (v - lo) / (hi - lo)
    u = (hi - v) / (hi - lo)
    lp = np.column_stack([_two_point_log_prob(u, t, eps), _two_point_log_prob(t, u, eps)])
    return _make_table(_cap_columns(lp, eps), (lo, hi), name or f"two-point(ε={eps:g})")


def two_point_sample(
    values: Any,
    *,
    epsilon: float,
    low: float = 0.0,
    high: float = 1.0,
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """Draw one Eq.-5 output (``low`` or ``high``) for each value."""
    eps = _v.positive("epsilon", epsilon)
    lo, hi = _interval(low, high)
    v = _values_in(values, lo, hi)
    gen = _v.rng(rng)
    return np.where(gen.random(v.shape) < _two_point_high(v, lo, hi, eps), hi, lo)


def mean_estimate(outputs: Any, *, epsilon: float, low: float = 0.0, high: float = 1.0) -> float:
    """Unbiased mean from Eq.-5 outputs: ``low + (high−low)((e^ε+1) f̂ − 1)/(e^ε−1)`` (Sec. 2.5)."""
    eps = _v.positive("epsilon", epsilon)
    lo, hi = _interval(low, high)
    y = _v.real_array("outputs", outputs, allow_inf=False)
    if y.size == 0:
        raise ValueError("outputs must be non-empty")
    f = float(np.mean(y == hi))
    if eps < 700.0:
        return lo + (hi - lo) * ((math.exp(eps) + 1) * f - 1) / math.expm1(eps)
    # the same ratio as f + (2f − 1)/(e^ε − 1), with 1/(e^ε − 1) = e^{−ε} to double precision (no overflow)
    return lo + (hi - lo) * (f + (2 * f - 1) * math.exp(-eps))


def running_example_query(power: int, *, epsilon: float = math.log(1.5), domain_size: int = 11) -> LikelihoodTable:
    """Query i of the running example: release ``t_i(x) = (x/(|D|−1))^i`` through Eq. 5 on [0, 1].

    Eq. 11 (the printed formula is garbled; this family reproduces every number of Examples 2
    and 3): with e^ε = 1.5, ``Pr[Y_i = 1 | x] = (2 + (x/10)^i)/5``.
    Outputs (0, 1).
    """
    i = _v.integer("power", power, low=1)
    n = _v.integer("domain_size", domain_size, low=2, high=MAX_DOMAIN_SIZE)
    t = (np.arange(n) / (n - 1)) ** i
    tab = two_point(epsilon, t, low=0.0, high=1.0)
    return _make_table(tab.log_prob, (0, 1), f"X^{i}")
