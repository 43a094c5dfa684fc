"""Local DP accounting by realized privacy loss: Bayesian privacy filter, odometer, regressions (paper 003).

Mingen Pan, *Actual Knowledge Gain as Privacy Loss in Local Privacy Accounting* (arXiv 2307.08159 v3).
Spec: ``specs/ldp_bayesian_filter.md``.  Every loss is stored and compared on the **log scale**
(ε units): ``ℓ = ln max_x Λ(x) − ln min_x Λ(x)`` (spec §0); ``exp(ℓ)`` is for display only.

Conventions
-----------
* A *likelihood table* has one row per true value ``x`` of the protected object and one column per
  output ``y`` of the query; it stores ``ln Pr[q(x) = y]`` (:class:`LikelihoodTable`).
* A *log-likelihood* is an array of ``ln Λ(x)`` over the domain.
* Budget tests accept equality within a tolerance (spec §0.3) and look ahead over **every** possible
  output of the query before it runs (spec §0.4).
"""

from __future__ import annotations

import abc
import heapq
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import linalg, optimize, special

from dpcore import _validate as _v

__all__ = [
    "TOLERANCE",
    "LikelihoodTable",
    "QueryRejected",
    "likelihood_table",
    "realized_loss",
    "transcript_log_likelihood",
    "randomized_response",
    "generalized_randomized_response",
    "two_point",
    "two_point_sample",
    "mean_estimate",
    "running_example_query",
    "posterior",
    "knowledge_gain",
    "Lemma32",
    "lemma32_construction",
    "GLeakage",
    "g_leakage",
    "BayesianPrivacyFilter",
    "SimplifiedBayesianFilter",
    "ApproximateBayesianFilter",
    "TranscriptTree",
    "enumerate_interaction",
    "composition_output_losses",
    "acceptance_regions",
    "simulate_accepted_counts",
    "filter_timeline",
    "rr_expected_accepted",
    "rr_accepted_pmf",
    "Example1",
    "example1",
    "Example2",
    "example2",
    "example3",
    "example3_transcripts",
    "RegressionTerm",
    "RegressionQuery",
    "linear_regression_query",
    "truncated_regression_query",
    "logistic_regression_query",
    "DCMinimum",
    "minimize_dc",
    "LikelihoodBounds",
    "log_likelihood_bounds",
    "single_term_loss",
    "secant_relaxation",
    "grouped_loss_bound",
    "grouped_realized_loss",
    "RegressionFilter",
    "regression_experiment",
    "PaperComparison",
    "logistic_median_reproduction",
    "linear_median_mismatch",
    "healthcare_queries",
    "healthcare_losses",
]

TOLERANCE = 1e-12
"""Relative tolerance of every budget test (spec §0.3, §3): ``ℓ ≤ ε_G + TOLERANCE·max(1, |values|)``.

``|values|`` are the magnitudes of the finite operands (budget, ln Λ, ln Pr, ε): a difference of
ln-likelihoods of size M carries round-off of a few ulp(M), so a fixed absolute margin can wrongly
reject equality when the operands are large (see :func:`_margin`)."""

_ROW_SUM_TOL = 1e-9
#: Size limits (hostile input: a huge count is a ValueError, not a MemoryError or a hang; the app stays far below).
#: Most cells of a likelihood table (|D|·|Y| floats, 80 MB); k-ary RR has k² cells: k ≤ 3162 (the app: k ≤ 101).
MAX_TABLE_CELLS = 10_000_000
MAX_RR_DOMAIN = math.isqrt(MAX_TABLE_CELLS)
#: Most domain values of a filter or a running-example query (the app: |D| ≤ 101).
MAX_DOMAIN_SIZE = 1_000_000
#: Most grid points / simulated runs / queries per run / pmf cells (app: ≤ 4000 runs, 200 queries, 5000 cells).
MAX_GRID = 1_000_000
MAX_RUNS = 1_000_000
MAX_QUERIES = 1_000_000
#: Largest RR-stream threshold m = ⌊ε_G/ε⌋: the chain has 2m + 1 states (the app: m ≤ 300).
MAX_RR_THRESHOLD = 100_000
#: Longest worked example: Example 1's 2n outputs, Example 3's n_queries (the paper: n = 3, 6 queries).
MAX_EXAMPLE_LENGTH = 10_000
_SUBSOLVER = "TNC"  # robust to OpenBLAS thread contention on small problems (L-BFGS-B is not)

try:  # the C core behind optimize.minimize(method="TNC"); see _tnc_box
    from scipy.optimize import _moduleTNC as _TNC_CORE
except ImportError:  # pragma: no cover - a SciPy without it falls back to optimize.minimize
    _TNC_CORE = None
_NO_SCALING = np.array([])


class QueryRejected(ValueError):
    """Raised by ``submit`` when the filter would reject the query (the caller must dry-run first)."""


# ---------------------------------------------------------------------------------------------
# Likelihood tables and realized loss
# ---------------------------------------------------------------------------------------------


def _margin(tolerance: float, *values: Any) -> float:
    """Round-off margin ``tolerance·max(1, |v|)`` over the finite entries of ``values`` (spec §0.3).

    Infinite and nan entries are ignored, so an infinite loss never fits a finite budget.
    """
    scale = 1.0
    for v in values:
        a = np.abs(np.asarray(v, dtype=float))
        a = a[np.isfinite(a)]
        if a.size:
            scale = max(scale, float(a.max()))
    return tolerance * scale


def _ratio(log_value: float) -> float:
    """``e^x`` for display: +inf beyond the float range (never OverflowError), 0 below it."""
    with np.errstate(over="ignore", under="ignore"):
        return float(np.exp(log_value))


def _safe_log(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(p)


def _column_losses(log_prob: np.ndarray) -> np.ndarray:
    """ℓ of every column of a (|D|, |Y|) log-probability array; nan for columns that cannot occur."""
    hi = log_prob.max(axis=0)
    lo = log_prob.min(axis=0)
    with np.errstate(invalid="ignore"):
        out = hi - lo  # -inf - -inf = nan (impossible output); finite - -inf = inf
    return out


@dataclass(frozen=True, eq=False)
class LikelihoodTable:
    """A discrete LDP query: ``log_prob[x, j] = ln Pr[q(x) = outputs[j]]`` (rows: x, columns: output).

    Build it with :func:`likelihood_table` or one of the mechanism functions; they validate it.
    """

    log_prob: np.ndarray
    outputs: tuple
    name: str = ""

    @property
    def probabilities(self) -> np.ndarray:
        """``Pr[q(x) = y]`` (ratio scale), rows x, columns y."""
        return np.exp(self.log_prob)

    @property
    def domain_size(self) -> int:
        return int(self.log_prob.shape[0])

    @property
    def n_outputs(self) -> int:
        return int(self.log_prob.shape[1])

    @property
    def output_losses(self) -> np.ndarray:
        """Single-query realized loss ℓ(y) of every output (Eq. 10, log scale); nan if y never occurs."""
        return _column_losses(self.log_prob)

    @property
    def epsilon(self) -> float:
        """Tight LDP level ``ε(q) = max_y ℓ(y)`` (spec §2.5)."""
        return float(np.nanmax(self.output_losses))

    def output_index(self, output: Any) -> int:
        """Column index of an output label (exact type match first, then equality, e.g. 1 == 1.0)."""
        for j, lab in enumerate(self.outputs):
            if lab is output or (type(lab) is type(output) and lab == output):
                return j
        for j, lab in enumerate(self.outputs):
            try:
                if lab == output:
                    return j
            except Exception:  # noqa: BLE001 - incomparable labels
                pass
        raise ValueError(f"output must be one of {list(self.outputs)}, got {output!r}")

    def column(self, output: Any) -> np.ndarray:
        """``ln Pr[q(x) = output]`` for every x."""
        return self.log_prob[:, self.output_index(output)]

    def sample(self, true_value: int, rng: np.random.Generator | int | None = None) -> Any:
        """Run the query on the object with value index ``true_value`` and return the output label."""
        x = _v.integer("true_value", true_value, low=0, high=self.domain_size - 1)
        gen = _v.rng(rng)
        p = np.exp(self.log_prob[x])
        j = int(gen.choice(self.n_outputs, p=p / p.sum()))
        return self.outputs[j]


def _make_table(log_prob: np.ndarray, outputs: Sequence | None, name: str) -> LikelihoodTable:
    lp = np.array(log_prob, dtype=float)
    lp.setflags(write=False)
    outs = tuple(range(lp.shape[1])) if outputs is None else tuple(outputs)
    return LikelihoodTable(lp, outs, name)


def likelihood_table(
    probabilities: Any, *, outputs: Sequence | None = None, name: str = ""
) -> LikelihoodTable:
    """Validated likelihood table from probabilities ``P[x, y] = Pr[q(x)=y]`` (each row sums to 1).

    Rows are true values, columns outputs (spec §1).  Raises ValueError for an empty table, entries
    outside [0, 1], or rows that do not sum to 1.
    """
    p = _v.real_array("probabilities", probabilities, low=0.0, high=1.0, allow_inf=False)
    if p.ndim != 2 or p.shape[0] == 0 or p.shape[1] == 0:
        raise ValueError(
            f"probabilities must be a non-empty 2-D table (rows: true value, columns: output), "
            f"got shape {p.shape}"
        )
    sums = p.sum(axis=1)
    if np.any(np.abs(sums - 1.0) > _ROW_SUM_TOL):
        raise ValueError(
            "probabilities: every row must sum to 1 (within 1e-9); got row sums "
            f"in [{sums.min():.6g}, {sums.max():.6g}]"
        )
    if outputs is not None:
        outputs = _v.sequence("outputs", outputs)
    if outputs is not None and len(outputs) != p.shape[1]:
        raise ValueError(f"outputs must have one label per column ({p.shape[1]}), got {len(outputs)}")
    return _make_table(_safe_log(p), outputs, name)


def _as_table(name: str, table: Any) -> LikelihoodTable:
    if isinstance(table, LikelihoodTable):
        return table
    try:
        return likelihood_table(table)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def realized_loss(log_likelihood: Any) -> float | np.ndarray:
    """Realized privacy loss ``ℓ = ln max_x Λ(x) − ln min_x Λ(x)`` (Def. 3.2, Eq. 10, log scale; spec §3.2).

    ``log_likelihood`` holds ln Λ(x) over the domain on its last axis (−inf allowed: gives +inf unless
    every entry is −inf, which is an impossible transcript and raises ValueError).  Returns a float for
    1-D input, else an array over the leading axes.
    """
    arr = _v.real_array("log_likelihood", log_likelihood, high=math.inf)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError("log_likelihood must be a non-empty array of ln Λ(x) over the domain")
    if np.any(arr == np.inf):
        raise ValueError("log_likelihood must not contain +inf")
    out = _column_losses(np.moveaxis(arr, -1, 0).reshape(arr.shape[-1], -1))
    if np.any(np.isnan(out)):
        raise ValueError("log_likelihood: every entry is -inf, the transcript is impossible")
    out = out.reshape(arr.shape[:-1])
    return float(out) if out.ndim == 0 else out


def transcript_log_likelihood(tables: Sequence[LikelihoodTable], outputs: Sequence[Any]) -> np.ndarray:
    """``ln Λ_r(x) = Σ_i ln Pr[q_i(x) = y_i]`` of a transcript (spec §1, Eq. 13, Eq. 19)."""
    tables, outputs = _v.sequence("tables", tables), _v.sequence("outputs", outputs)
    if len(tables) != len(outputs):
        raise ValueError(f"outputs must have one entry per table ({len(tables)}), got {len(outputs)}")
    if len(tables) == 0:
        raise ValueError("tables must contain at least one query")
    tabs = [_as_table("tables", t) for t in tables]
    n = tabs[0].domain_size
    if any(t.domain_size != n for t in tabs):
        raise ValueError("tables must all have the same domain size")
    return np.sum([t.column(y) for t, y in zip(tabs, outputs, strict=True)], axis=0)


# ---------------------------------------------------------------------------------------------
# Mechanisms
# ---------------------------------------------------------------------------------------------


def randomized_response(epsilon: float, *, domain_size: int = 2) -> LikelihoodTable:
    """k-ary randomized response: keep x w.p. e^ε/(e^ε+k−1), else each other value w.p. 1/(e^ε+k−1).

    Spec §2.13, §3.1; binary RR for ``domain_size=2``.  Fully utilises its budget: ℓ(y) = ε for every y.
    """
    eps = _v.positive("epsilon", epsilon)
    k = _v.integer("domain_size", domain_size, low=2, high=MAX_RR_DOMAIN)
    return generalized_randomized_response(eps, categories=np.arange(k), name=f"RR(ε={eps:g}, k={k})")


def generalized_randomized_response(
    epsilon: float, *, categories: Any, n_categories: int | None = None, name: str = ""
) -> LikelihoodTable:
    """Randomized response on a category c(x): report c(x) w.p. e^ε/(e^ε+K−1), another w.p. 1/(e^ε+K−1).

    Spec §2.13 (generalized RR); ``categories[x]`` is the category (0..K−1) of value x, so the table
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
        raise ValueError(f"n_categories times len(categories) must be at most {MAX_TABLE_CELLS} table cells, "
                         f"got {kk}·{cat.size}")
    log_den = np.logaddexp(eps, math.log(kk - 1))
    lp = np.full((cat.size, kk), -log_den)
    lp[np.arange(cat.size), cat] = eps - log_den
    return _make_table(lp, range(kk), name or f"GRR(ε={eps:g}, K={kk})")


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


def two_point(
    epsilon: float, values: Any, *, low: float = 0.0, high: float = 1.0, name: str = ""
) -> LikelihoodTable:
    """Two-point perturbation of a bounded value (Eq. 5; spec §2.6) as a table over the domain.

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
    return _make_table(lp, (lo, hi), name or f"two-point(ε={eps:g})")


def two_point_sample(
    values: Any,
    *,
    epsilon: float,
    low: float = 0.0,
    high: float = 1.0,
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """Draw one Eq.-5 output (``low`` or ``high``) for each value (spec §3.1)."""
    eps = _v.positive("epsilon", epsilon)
    lo, hi = _interval(low, high)
    v = _values_in(values, lo, hi)
    gen = _v.rng(rng)
    return np.where(gen.random(v.shape) < _two_point_high(v, lo, hi, eps), hi, lo)


def mean_estimate(outputs: Any, *, epsilon: float, low: float = 0.0, high: float = 1.0) -> float:
    """Unbiased mean from Eq.-5 outputs: ``low + (high−low)((e^ε+1) f̂ − 1)/(e^ε−1)`` (spec §2.6)."""
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


def running_example_query(
    power: int, *, epsilon: float = math.log(1.5), domain_size: int = 11
) -> LikelihoodTable:
    """Query i of the running example: release ``t_i(x) = (x/(|D|−1))^i`` through Eq. 5 on [0, 1].

    Eq. 11 (reconstructed, spec §4.2): with e^ε = 1.5, ``Pr[Y_i = 1 | x] = (2 + (x/10)^i)/5``.
    Outputs (0, 1).
    """
    i = _v.integer("power", power, low=1)
    n = _v.integer("domain_size", domain_size, low=2, high=MAX_DOMAIN_SIZE)
    t = (np.arange(n) / (n - 1)) ** i
    tab = two_point(epsilon, t, low=0.0, high=1.0)
    return _make_table(tab.log_prob, (0, 1), f"X^{i}")


# ---------------------------------------------------------------------------------------------
# Beliefs, knowledge gain, Lemma 3.2, g-leakage
# ---------------------------------------------------------------------------------------------


def _prior(prior: Any, n: int | None = None) -> np.ndarray:
    b = _v.real_array("prior", prior, low=0.0, high=1.0, allow_inf=False)
    if b.ndim != 1 or b.size == 0:
        raise ValueError("prior must be a non-empty 1-D array of probabilities over the domain")
    if abs(b.sum() - 1.0) > _ROW_SUM_TOL:
        raise ValueError(f"prior must sum to 1, got {b.sum():.6g}")
    if n is not None and b.size != n:
        raise ValueError(f"prior must have one entry per domain value ({n}), got {b.size}")
    return b


def _loglik(log_likelihood: Any) -> np.ndarray:
    ll = _v.real_array("log_likelihood", log_likelihood)
    if ll.ndim != 1 or ll.size == 0:
        raise ValueError("log_likelihood must be a non-empty 1-D array of ln Λ(x)")
    if np.any(ll == np.inf):
        raise ValueError("log_likelihood must not contain +inf")
    return ll


def posterior(prior: Any, log_likelihood: Any) -> np.ndarray:
    """Bayes update ``b(x|y) ∝ Λ(x) b(x)`` (Eq. 2; spec §2.2), computed in log space."""
    ll = _loglik(log_likelihood)
    b = _prior(prior, ll.size)
    w = _safe_log(b) + ll
    if np.all(w == -np.inf):
        raise ValueError("log_likelihood: the output has zero probability under the prior (b(y) = 0)")
    return np.exp(w - special.logsumexp(w))


def knowledge_gain(statement: Any, prior: Any, log_likelihood: Any) -> float:
    """Knowledge gain ``b(φ|y)/b(φ)`` of a statement φ: D → [0, 1] (Sec. 2.2, Eq. 3; spec §2.3, ratio)."""
    ll = _loglik(log_likelihood)
    b = _prior(prior, ll.size)
    phi = _v.real_array("statement", statement, low=0.0, high=1.0, allow_inf=False)
    if phi.shape != b.shape:
        raise ValueError(f"statement must have one entry per domain value ({b.size}), got shape {phi.shape}")
    prior_conf = float(phi @ b)
    if prior_conf <= 0:
        raise ValueError("statement must have positive prior confidence b(φ) > 0 (spec §8.13)")
    return float(phi @ posterior(b, ll)) / prior_conf


@dataclass(frozen=True)
class Lemma32:
    """Adversarial statement and prior of Lemma 3.2 (App. A.3) and the gain they achieve."""

    statement: np.ndarray
    prior: np.ndarray
    gain: float  # ratio scale, display only (+inf / 0 where e^log_gain leaves the float range)
    bound: float  # L(y) = e^ℓ for "sup", 1/L(y) for "inf" (ratio scale, display only; +inf / 0 likewise)
    x_a: int
    x_b: int
    log_gain: float  # ln of the gain, exact for any ℓ
    log_bound: float  # ℓ for "sup", −ℓ for "inf" (log scale)


def lemma32_construction(log_likelihood: Any, *, alpha: float = 1e-6, direction: str = "sup") -> Lemma32:
    """Statement ``φ = 1[x = x_a]`` and prior ``α δ_{x_a} + (1−α) δ_{x_b}`` whose gain → L(y) as α → 0.

    Lemma 3.2, Eq. 8/23, App. A.3 (spec §2.10).  ``direction="inf"`` swaps x_a and x_b, giving gain → 1/L.
    Computed in log space: ``ln gain = ln p_a − ln(α p_a + (1−α) p_b)``; ``log_gain``/``log_bound`` are
    exact for any ℓ, the ratio fields ``gain``/``bound`` saturate to +inf (or 0) outside the float range.
    """
    ll = _loglik(log_likelihood)
    if np.all(ll == -np.inf):
        raise ValueError("log_likelihood: impossible output (every entry is -inf)")
    a = _v.probability("alpha", alpha, low_open=True, high_open=True)
    d = _v.choice("direction", direction, ("sup", "inf"))
    i_max, i_min = int(np.argmax(ll)), int(np.argmin(ll))
    x_a, x_b = (i_max, i_min) if d == "sup" else (i_min, i_max)
    phi = np.zeros(ll.size)
    phi[x_a] = 1.0
    prior = np.zeros(ll.size)
    prior[x_a] += a
    prior[x_b] += 1.0 - a
    if x_a == x_b:
        return Lemma32(phi, prior, 1.0, 1.0, x_a, x_b, 0.0, 0.0)
    loss = realized_loss(ll)
    log_bound = loss if d == "sup" else -loss
    # ll[x_a] and ll[x_b] are not both -inf (checked above), so no -inf - -inf
    log_gain = float(ll[x_a] - np.logaddexp(math.log(a) + ll[x_a], math.log1p(-a) + ll[x_b]))
    return Lemma32(phi, prior, _ratio(log_gain), _ratio(log_bound), x_a, x_b, log_gain, log_bound)


@dataclass(frozen=True)
class GLeakage:
    """Realized g-leakage of one output and its bound (Thm 3.3; spec §2.4, §2.14)."""

    prior_vulnerability: float
    posterior_vulnerability: float
    leakage: float  # ln(V_g(b,y)/V_g(b)), natural log
    bound: float  # realized loss ℓ(y) ≥ |leakage|


def g_leakage(gain: Any, prior: Any, log_likelihood: Any) -> GLeakage:
    """Realized g-leakage ``ln(V_g(b,y)/V_g(b))`` for a gain matrix ``gain[w, x] ≥ 0`` (Thm 3.3, Cor. 3.1).

    The bound ``−ℓ(y) ≤ leakage ≤ ℓ(y)`` needs g ≥ 0 (spec §8.14).
    """
    ll = _loglik(log_likelihood)
    b = _prior(prior, ll.size)
    g = _v.real_array("gain", gain, low=0.0, allow_inf=False)
    if g.ndim != 2 or g.shape[1] != ll.size or g.shape[0] == 0:
        raise ValueError(
            f"gain must be a (|W|, |D|={ll.size}) matrix of non-negative gains, got shape {g.shape}"
        )
    v0 = float(np.max(g @ b))
    if v0 <= 0:
        raise ValueError("gain must give positive prior vulnerability V_g(b) > 0")
    v1 = float(np.max(g @ posterior(b, ll)))
    leak = math.log(v1 / v0) if v1 > 0 else -math.inf
    return GLeakage(v0, v1, leak, realized_loss(ll))


# ---------------------------------------------------------------------------------------------
# Filters and odometer
# ---------------------------------------------------------------------------------------------


class _FilterBase(abc.ABC):
    """Shared state: ``ln Λ_r`` over the domain, the history, and the odometer (Def. 4.5)."""

    def __init__(
        self,
        budget: float,
        *,
        domain_size: int,
        tolerance: float = TOLERANCE,
        log_likelihood: Any | None = None,
    ) -> None:
        self.budget = _v.positive("budget", budget)
        n = _v.integer("domain_size", domain_size, low=1, high=MAX_DOMAIN_SIZE)
        self.tolerance = _v.nonnegative("tolerance", tolerance)
        if log_likelihood is None:
            self._ll = np.zeros(n)
        else:
            ll = _v.real_array("log_likelihood", log_likelihood, allow_inf=False)
            if ll.shape != (n,):
                raise ValueError(f"log_likelihood must have shape ({n},), got {ll.shape}")
            self._ll = ll.copy()
        self.domain_size = n
        self.history: list[tuple[LikelihoodTable, Any]] = []

    # --- odometer ---------------------------------------------------------------------------
    @property
    def log_likelihood(self) -> np.ndarray:
        """``ln Λ_r(x)`` of the accepted transcript (a copy)."""
        return self._ll.copy()

    @property
    def loss(self) -> float:
        """Privacy odometer ``O(r) = ℓ(r)`` (Def. 4.5, log scale); 0 when empty; can decrease."""
        return float(self._ll.max() - self._ll.min())

    @property
    def remaining(self) -> float:
        """Remaining budget ``ε_G − O(r)`` (can grow back)."""
        return self.budget - self.loss

    def _limit(self, *scales: Any) -> float:
        """Budget plus the round-off margin of the operands (budget, ln Λ_r, and ``scales``; spec §0.3)."""
        return self.budget + _margin(self.tolerance, self.budget, self._ll, *scales)

    def _fits(self, losses: np.ndarray, tab: LikelihoodTable) -> bool:
        """Look-ahead test: every possible output's ℓ within the budget (nan = impossible output)."""
        la = losses[~np.isnan(losses)]
        return bool(la.size == 0 or la.max() <= self._limit(tab.log_prob))

    def _check(self, table: Any) -> LikelihoodTable:
        tab = _as_table("table", table)
        if tab.domain_size != self.domain_size:
            raise ValueError(f"table must have {self.domain_size} rows (domain_size), got {tab.domain_size}")
        return tab

    def look_ahead(self, table: Any) -> np.ndarray:
        """ℓ(r + (q, y)) for every output y of the query (nan for outputs that cannot occur; Eq. 15)."""
        tab = self._check(table)
        return _column_losses(self._ll[:, None] + tab.log_prob)

    def worst_case(self, table: Any) -> float:
        """``W = max_y ℓ(r + (q, y))`` over the outputs that can occur (spec §7 panel 5)."""
        return float(np.nanmax(self.look_ahead(table)))

    @abc.abstractmethod
    def would_accept(self, table: Any) -> bool:
        """Whether the filter admits the query (each filter's own rule)."""

    def submit(self, table: Any, output: Any) -> float:
        """Commit an accepted query and its output; returns the new odometer value ℓ(r).

        Raises :class:`QueryRejected` (a ValueError) if the filter rejects the query: the accept/reject
        decision never looks at ``output`` (spec §0.4, §8.17).
        """
        tab = self._check(table)
        if not self.would_accept(tab):
            raise QueryRejected(
                "table: the filter rejects this query (budget would be exceeded for some output)"
            )
        col = tab.column(output)
        if np.all(col == -np.inf):
            raise ValueError(f"output {output!r} cannot occur for any true value")
        self._ll = self._ll + col
        self._on_commit(tab)
        self.history.append((tab, output))
        return self.loss

    def _on_commit(self, tab: LikelihoodTable) -> None:
        pass

    def copy(self):  # noqa: ANN201
        """An independent copy (for dry-running transcript trees)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._ll = self._ll.copy()
        new.history = list(self.history)
        return new


class BayesianPrivacyFilter(_FilterBase):
    """Bayesian Privacy Filter (Def. 4.3, Algorithm 2, Cor. 4.1/Eq. 15): exact, discrete, fully adaptive.

    Accepts a query iff ``ℓ(r + (q, y)) ≤ ε_G`` (within ``tolerance``) for **every** output y the query
    can produce.  An output with zero probability for some x but not all gives ℓ = ∞ and a rejection
    (spec §8.13).  ``loss`` is the odometer (can decrease, spec §2.18).
    """

    def would_accept(self, table: Any) -> bool:
        """Look-ahead over every possible output of the query (decision uses public data only)."""
        tab = self._check(table)
        return self._fits(self.look_ahead(tab), tab)


class SimplifiedBayesianFilter(_FilterBase):
    """Simplified Bayesian Privacy Filter (Def. 4.4, Thm 4.2, Algorithm 3): accept iff ``ℓ(r) + ε_q ≤ ε_G``.

    ``ε_q`` is the declared LDP level of the query (defaults to its tight level ``table.epsilon``); a
    declared value below the tight level by more than round-off (``TOLERANCE·max(1, |ln Pr|)``) is
    invalid.  The test uses ``max(ε_q, tight)``, so a declaration within round-off below the computed
    tight level never buys budget.  Whenever this filter accepts, the full BPF accepts.
    """

    def would_accept(self, table: Any, *, epsilon: float | None = None) -> bool:
        tab = self._check(table)
        tight = tab.epsilon
        if epsilon is None:
            eps_q = tight
        else:
            eps_q = _v.nonnegative("epsilon", epsilon, allow_inf=True)
            if eps_q < tight - _margin(TOLERANCE, tight, tab.log_prob):
                raise ValueError(
                    f"epsilon must be ≥ the query's tight LDP level {tight!r}, got {eps_q!r}"
                )
        eff = max(eps_q, tight)
        return bool(self.loss + eff <= self._limit(tab.log_prob, eff))


class ApproximateBayesianFilter(_FilterBase):
    """EXPERIMENTAL (ε_G, δ_G)-Bayesian Privacy Filter (Sec. 4.3, Algorithm 4; spec §2.19, §3.7, §8.9).

    The paper gives no proof; the rigorous (ε, δ) guarantee of the combined procedure is not
    established.  The output-independent part is basic composition (Σ ε_i ≤ ε_G, Σ δ_i ≤ δ_G); when it
    wants to halt the filter switches to Bayesian mode if ℓ(r) ≤ ε_G, else halts.
    """

    experimental = True

    def __init__(
        self, budget: float, delta: float, *, domain_size: int, tolerance: float = TOLERANCE
    ) -> None:
        super().__init__(budget, domain_size=domain_size, tolerance=tolerance)
        self.delta = _v.probability("delta", delta, high_open=True)
        self.mode = "OI"
        self._eps_spent = 0.0
        self._delta_spent = 0.0
        self._pending: tuple[float, float] = (0.0, 0.0)

    def would_accept(self, table: Any, *, delta: float = 0.0) -> bool:
        tab = self._check(table)
        dq = _v.probability("delta", delta)
        eps_q = tab.epsilon
        if self.mode == "OI":
            if (
                self._eps_spent + eps_q
                <= self.budget + _margin(self.tolerance, self.budget, tab.log_prob, self._eps_spent + eps_q)
                and self._delta_spent + dq <= self.delta + _margin(self.tolerance, self.delta)
            ):
                self._pending = (eps_q, dq)
                return True
            self.mode = "BAYES" if self.loss <= self._limit() else "HALT"
        if self.mode == "BAYES":
            self._pending = (0.0, 0.0)
            return self._fits(self.look_ahead(tab), tab)
        return False

    def _on_commit(self, tab: LikelihoodTable) -> None:
        if self.mode == "OI":
            self._eps_spent += self._pending[0]
            self._delta_spent += self._pending[1]


# ---------------------------------------------------------------------------------------------
# Interactions, transcripts, simulations
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TranscriptTree:
    """All transcripts of an interaction (Algorithm 1) with ``ln Pr[I(x) = r]`` per true value x."""

    outputs: tuple  # one tuple of output labels per transcript
    log_prob: np.ndarray  # (n_transcripts, |D|)

    @property
    def lengths(self) -> np.ndarray:
        return np.array([len(o) for o in self.outputs])

    @property
    def total_probability(self) -> np.ndarray:
        """Σ_r Pr[I(x) = r] for every x (must be 1)."""
        return np.exp(special.logsumexp(self.log_prob, axis=0))

    @property
    def max_loss(self) -> float:
        """``max_r max_{x,x'} ln(Pr[I(x)=r]/Pr[I(x')=r])`` (Def. 4.1/Eq. 12), log scale."""
        return float(np.max(realized_loss(self.log_prob)))

    def expected_length(self, true_value: int) -> float:
        """Expected number of accepted queries when X = true_value."""
        x = _v.integer("true_value", true_value, low=0, high=self.log_prob.shape[1] - 1)
        return float(np.sum(np.exp(self.log_prob[:, x]) * self.lengths))


def enumerate_interaction(
    choose: Callable[[tuple], Any],
    filter: _FilterBase,  # noqa: A002
    *,
    max_depth: int = 60,
    max_transcripts: int = 200_000,
) -> TranscriptTree:
    """Enumerate the transcript tree of Algorithm 1 for a (possibly adaptive) deterministic adversary.

    ``choose(history)`` gets the tuple of (table, output) pairs accepted so far and returns the next
    table or None (stop).  The adversary stops at the first rejection (Algorithm 5).  ``filter`` is
    copied, never mutated.  Used to verify Thm 4.1 exhaustively (RC11).
    """
    depth_max = _v.integer("max_depth", max_depth, low=1)
    cap = _v.integer("max_transcripts", max_transcripts, low=1)
    outs: list[tuple] = []
    lps: list[np.ndarray] = []

    def rec(filt: _FilterBase, hist: tuple, lp: np.ndarray) -> None:
        if len(outs) > cap:
            raise ValueError(f"max_transcripts: the tree has more than {cap} transcripts")
        q = choose(hist) if len(hist) < depth_max else None
        if q is None or not filt.would_accept(q):
            outs.append(tuple(y for _, y in hist))
            lps.append(lp)
            return
        tab = _as_table("choose", q)
        for j, y in enumerate(tab.outputs):
            col = tab.log_prob[:, j]
            if np.all(col == -np.inf):
                continue
            child = filt.copy()
            child.submit(tab, y)
            rec(child, hist + ((tab, y),), lp + col)

    rec(filter.copy(), (), np.zeros(filter.domain_size))
    return TranscriptTree(tuple(outs), np.array(lps))


def composition_output_losses(
    tables: Sequence[Any], *, true_value: int | None = None, max_patterns: int = 4096
) -> pd.DataFrame:
    """ℓ(y) of every output pattern of a fixed composition (spec §7 panel 3), with its probability under x*.

    Columns: ``pattern`` (tuple of labels), ``loss`` (log scale), ``ratio`` (e^ℓ), ``basic`` (Σ ε_i),
    ``probability`` (under ``true_value``; nan if None).
    """
    tabs = [_as_table("tables", t) for t in tables]
    if not tabs:
        raise ValueError("tables must contain at least one query")
    n = tabs[0].domain_size
    if any(t.domain_size != n for t in tabs):
        raise ValueError("tables must all have the same domain size")
    n_pat = math.prod(t.n_outputs for t in tabs)
    if n_pat > _v.integer("max_patterns", max_patterns, low=1):
        raise ValueError(f"max_patterns: the composition has {n_pat} output patterns (> {max_patterns})")
    x = None if true_value is None else _v.integer("true_value", true_value, low=0, high=n - 1)
    basic = float(sum(t.epsilon for t in tabs))
    # ln Λ of every pattern in itertools.product order (the first query varies slowest), added query by query in
    # order as np.sum over the stacked columns does: shape (n_patterns, |D|)
    ll = tabs[0].log_prob.T
    for t in tabs[1:]:
        ll = (ll[:, None, :] + t.log_prob.T[None, :, :]).reshape(-1, n)
    idx = np.flatnonzero(~np.all(ll == -np.inf, axis=1))  # patterns that can occur
    if idx.size == 0:
        return pd.DataFrame([])
    ll = ll[idx]
    loss = _column_losses(ll.T)  # realized_loss of each pattern (Eq. 10)
    combos = list(itertools.product(*[t.outputs for t in tabs]))
    return pd.DataFrame(
        {
            "pattern": pd.Series([combos[i] for i in idx], dtype=object),
            "loss": loss,
            "ratio": [math.exp(v) if v < 700 else math.inf for v in loss],
            "basic": basic,
            "probability": math.nan if x is None else [float(np.exp(v)) for v in ll[:, x]],
        }
    )


def acceptance_regions(
    log_likelihood: Any,
    budget: float,
    *,
    epsilons: Any,
    slopes: Any,
    intercept: float = 0.0,
    tolerance: float = TOLERANCE,
) -> pd.DataFrame:
    """Acceptance of candidate queries by the Simplified and the full BPF from a state (spec §7 panel 8).

    Candidate (ε, slope): Eq.-5 query on [0, 1] of ``v(x) = clip(intercept + slope·x/(|D|−1), 0, 1)``.
    The Simplified filter uses the declared ε (Algorithm 3).  Columns: epsilon, slope, query_loss
    (tight ε of the candidate), worst_case, bayesian, simplified.  Vectorised over the slopes: the same
    numbers as ``two_point`` + ``BayesianPrivacyFilter.would_accept`` / ``SimplifiedBayesianFilter.would_accept``
    candidate by candidate (tests/dpcore/test_ldp_fastpaths.py).
    """
    ll = _loglik(log_likelihood)
    if np.any(~np.isfinite(ll)):
        raise ValueError("log_likelihood must be finite")
    b = _v.positive("budget", budget)
    eps_arr = _v.real_array("epsilons", epsilons, low=0.0, allow_inf=False).ravel()
    if np.any(eps_arr <= 0) or eps_arr.size == 0:
        raise ValueError("epsilons must be a non-empty array of values > 0")
    sl = _v.real_array("slopes", slopes, allow_inf=False).ravel()
    c0 = _v.real("intercept", intercept)
    tol = _v.nonnegative("tolerance", tolerance)
    n = ll.size
    if sl.size == 0:
        return pd.DataFrame([])
    t = np.arange(n) / max(n - 1, 1)
    v = np.clip(c0 + sl[:, None] * t, 0.0, 1.0)  # (S, n): the candidates' query values on [0, 1]
    u = 1.0 - v
    with np.errstate(divide="ignore"):
        log_v, log_u = np.log(v), np.log(u)
    loss = float(ll.max() - ll.min())  # the odometer of the state
    ll_scale = max(1.0, b, float(np.abs(ll).max()))  # _margin's operands that do not depend on the candidate
    frames = []
    for e in eps_arr:
        e = float(e)
        em1, norm = math.expm1(-e), math.log1p(math.exp(-e))
        cols = []
        for q, log_p, log_q in ((v, log_u, log_v), (u, log_v, log_u)):  # _two_point_log_prob(p, q, e)
            x = q * em1
            near_one = x >= -0.5
            small = np.logaddexp(log_p, log_q - e)
            cols.append(np.where(near_one, np.log1p(np.where(near_one, x, 0.0)), small) - norm)
        lp = np.stack(cols, axis=-1)  # (S, n, 2): ln Pr[low | x], ln Pr[high | x]
        with np.errstate(invalid="ignore"):
            tight = np.fmax(*np.moveaxis(lp.max(axis=1) - lp.min(axis=1), -1, 0))
            joint = ll[None, :, None] + lp
            worst = np.fmax(*np.moveaxis(joint.max(axis=1) - joint.min(axis=1), -1, 0))
        a_lp = np.abs(lp)
        lp_scale = np.where(np.isfinite(a_lp), a_lp, 0.0).max(axis=(1, 2))
        bayes = np.isnan(worst) | (worst <= b + tol * np.maximum(ll_scale, lp_scale))
        fin_tight = np.where(np.isfinite(tight), np.abs(tight), 0.0)
        below = e < tight - TOLERANCE * np.maximum(np.maximum(1.0, fin_tight), lp_scale)  # Simplified's check
        if np.any(below):
            bad = float(tight[np.argmax(below)])
            raise ValueError(f"epsilon must be ≥ the query's tight LDP level {bad!r}, got {e!r}")
        eff = np.where(tight > e, tight, e)
        fin_eff = np.where(np.isfinite(eff), np.abs(eff), 0.0)
        simple = loss + eff <= b + tol * np.maximum(np.maximum(ll_scale, lp_scale), fin_eff)
        frames.append((np.full(sl.size, e), sl, tight, worst, bayes, simple))
    cols_out = [np.concatenate(c) for c in zip(*frames, strict=True)]
    names = ("epsilon", "slope", "query_loss", "worst_case", "bayesian", "simplified")
    return pd.DataFrame(dict(zip(names, cols_out, strict=True)))


def simulate_accepted_counts(
    tables: Any,
    budget: float,
    *,
    true_value: int,
    n_runs: int = 200,
    method: str = "bayesian",
    max_queries: int = 10_000,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Accepted-query counts of a greedy adversary over many runs (Algorithm 5; spec §7 panel 7).

    ``tables`` is one table (repeated) or a list cycled in order; the adversary stops at the first
    rejection.  ``method``: "bayesian", "simplified" or "basic" (Σ ε_i ≤ ε_G).  Columns: run, method,
    accepted, final_loss, basic_composition (⌊ε_G/ε⌋-style count of the same stream).
    """
    tabs = [tables] if isinstance(tables, LikelihoodTable) else list(tables)
    tabs = [_as_table("tables", t) for t in tabs]
    if not tabs:
        raise ValueError("tables must contain at least one query")
    b = _v.positive("budget", budget)
    m = _v.choice("method", method, ("bayesian", "simplified", "basic"))
    runs = _v.integer("n_runs", n_runs, low=1, high=MAX_RUNS)
    cap = _v.integer("max_queries", max_queries, low=1, high=MAX_QUERIES)
    n = tabs[0].domain_size
    x = _v.integer("true_value", true_value, low=0, high=n - 1)
    gen = _v.rng(rng)
    eps = np.array([t.epsilon for t in tabs])
    cum = np.cumsum(np.resize(eps, cap))
    basic_count = int(np.searchsorted(cum, b + TOLERANCE * max(1.0, b), side="right"))
    probs = [np.exp(t.log_prob[x]) for t in tabs]
    rows = []
    for run in range(runs):
        if m == "basic":
            rows.append(
                {
                    "run": run,
                    "method": m,
                    "accepted": basic_count,
                    "final_loss": math.nan,
                    "basic_composition": basic_count,
                }
            )
            continue
        filt: _FilterBase = (BayesianPrivacyFilter if m == "bayesian" else SimplifiedBayesianFilter)(
            b, domain_size=n
        )
        k = 0
        while k < cap:
            tab = tabs[k % len(tabs)]
            if not filt.would_accept(tab):
                break
            p = probs[k % len(tabs)]
            j = int(np.searchsorted(np.cumsum(p), gen.random() * p.sum(), side="right"))
            filt.submit(tab, tab.outputs[min(j, tab.n_outputs - 1)])
            k += 1
        rows.append(
            {
                "run": run,
                "method": m,
                "accepted": k,
                "final_loss": filt.loss,
                "basic_composition": basic_count,
            }
        )
    return pd.DataFrame(rows)


def filter_timeline(
    tables: Sequence[Any],
    budget: float,
    *,
    true_value: int,
    outputs: Sequence[Any] | None = None,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Query-by-query trace of the BPF next to basic composition (spec §7 panel 5, Example-3 style).

    Each query is checked with the look-ahead; accepted ones are run on ``true_value`` (or take the
    next entry of ``outputs``), rejected ones are probes and not run.  Columns: step, epsilon (tight
    ε of the query), worst_case (max_y ℓ(r + (q, y))), accepted, output, loss (odometer after),
    basic_spent (Σ ε of queries basic composition accepts), basic_accepted.
    """
    tabs = [_as_table("tables", t) for t in tables]
    if not tabs:
        raise ValueError("tables must contain at least one query")
    b = _v.positive("budget", budget)
    n = tabs[0].domain_size
    if any(t.domain_size != n for t in tabs):
        raise ValueError("tables must all have the same domain size")
    x = _v.integer("true_value", true_value, low=0, high=n - 1)
    gen = _v.rng(rng)
    outs = None if outputs is None else _v.sequence("outputs", outputs)
    filt = BayesianPrivacyFilter(b, domain_size=n)
    spent = 0.0
    basic_open = True
    rows = []
    k = 0
    for i, t in enumerate(tabs, start=1):
        w = filt.worst_case(t)
        acc = filt.would_accept(t)
        y: Any = None
        if acc:
            if outs is not None:
                if k >= len(outs):
                    raise ValueError("outputs must have one entry per accepted query")
                y = outs[k]
            else:
                y = t.sample(x, gen)
            filt.submit(t, y)
            k += 1
        basic_ok = basic_open and spent + t.epsilon <= b + TOLERANCE * max(1.0, b)
        if basic_ok:
            spent += t.epsilon
        else:
            basic_open = False
        rows.append(
            {
                "step": i,
                "epsilon": t.epsilon,
                "worst_case": w,
                "accepted": acc,
                "output": y,
                "loss": filt.loss,
                "basic_spent": spent,
                "basic_accepted": basic_ok,
            }
        )
    return pd.DataFrame(rows)


def _rr_threshold(epsilon: float, budget: float) -> int:
    """m = ⌊ε_G/ε⌋ (≤ MAX_RR_THRESHOLD, else ValueError naming both: the chain has 2m + 1 states)."""
    ratio = budget / epsilon + 1e-9  # inf when ε is subnormal: rejected below
    if not ratio < MAX_RR_THRESHOLD + 1:
        raise ValueError(f"budget/epsilon must be below {MAX_RR_THRESHOLD + 1} (the threshold ⌊ε_G/ε⌋), "
                         f"got budget={budget!r}, epsilon={epsilon!r}")
    return int(math.floor(ratio))


def rr_expected_accepted(epsilon: float, budget: float) -> float:
    """Closed-form E[#accepted] of the BPF on a stream of binary RR queries (spec §5.5, RC13).

    ℓ = ε|n₁ − n₀|; the next query is accepted iff ε(|n₁−n₀|+1) ≤ ε_G, so the count is the hitting time
    of |d| = m = ⌊ε_G/ε⌋ by a ±1 walk with up-probability e^ε/(1+e^ε); solved as a linear system.
    """
    eps = _v.positive("epsilon", epsilon)
    b = _v.positive("budget", budget)
    m = _rr_threshold(eps, b)
    if m == 0:
        return 0.0
    p = special.expit(eps)
    # states d = -(m-1)..(m-1); T(d) = 1 + p T(d+1) + (1-p) T(d-1), T(±m) = 0: a tridiagonal system
    size = 2 * m - 1
    ab = np.empty((3, size))
    ab[0], ab[1], ab[2] = -p, 1.0, -(1 - p)  # super-, main and sub-diagonal (banded storage)
    t = linalg.solve_banded((1, 1), ab, np.ones(size))
    return float(t[m - 1])


def rr_accepted_pmf(epsilon: float, budget: float, *, max_count: int = 2000) -> pd.DataFrame:
    """Distribution of the accepted count for the RR stream of :func:`rr_expected_accepted` (absorbing chain).

    Columns: accepted, probability (mass beyond ``max_count`` is dropped).
    """
    eps = _v.positive("epsilon", epsilon)
    b = _v.positive("budget", budget)
    cap = _v.integer("max_count", max_count, low=1, high=MAX_GRID)
    m = _rr_threshold(eps, b)
    if m == 0:
        return pd.DataFrame({"accepted": [0], "probability": [1.0]})
    p = special.expit(eps)
    dist = np.zeros(2 * m + 1)  # d = -m..m
    dist[m] = 1.0
    pmf = np.zeros(cap + 1)
    for k in range(1, cap + 1):
        new = np.zeros_like(dist)
        new[1:] += p * dist[:-1]
        new[:-1] += (1 - p) * dist[1:]
        pmf[k] = new[0] + new[-1]
        new[0] = new[-1] = 0.0
        dist = new
        if dist.sum() < 1e-15:
            break
    return pd.DataFrame({"accepted": np.arange(cap + 1), "probability": pmf})


# ---------------------------------------------------------------------------------------------
# The paper's examples
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Example1:
    """Example 1 (Eq. 9): 2n RR outputs, n ones and n zeros, leak nothing."""

    epsilon: float
    n: int
    likelihood_0: float
    likelihood_1: float
    closed_form: float  # e^{nε}/(1+e^ε)^{2n}
    loss_balanced: float
    loss_all_ones: float
    basic_composition: float  # 2nε


def example1(epsilon: float = 0.7, n: int = 3) -> Example1:
    """Example 1 / Eq. 9 (spec §4.1): balanced binary RR outputs give Λ(0) = Λ(1), ℓ = 0."""
    eps = _v.positive("epsilon", epsilon)
    nn = _v.integer("n", n, low=1, high=MAX_EXAMPLE_LENGTH // 2)
    rr = randomized_response(eps)
    bal = transcript_log_likelihood([rr] * (2 * nn), [0, 1] * nn)
    ones = transcript_log_likelihood([rr] * (2 * nn), [1] * (2 * nn))
    softplus = math.log1p(math.exp(eps)) if eps < 700.0 else eps + math.log1p(math.exp(-eps))  # ln(1 + e^ε)
    closed = _ratio(nn * eps - 2 * nn * softplus)
    return Example1(
        eps,
        nn,
        float(np.exp(bal[0])),
        float(np.exp(bal[1])),
        closed,
        realized_loss(bal),
        realized_loss(ones),
        2 * nn * eps,
    )


@dataclass(frozen=True)
class Example2:
    """Example 2: running example with outputs (1, 0, 1)."""

    table: pd.DataFrame  # x, likelihood, paper, posterior_uniform
    loss: float
    ratio: float
    basic_composition: float
    note: str


_EX2_PAPER = {0: 0.096, 1: 0.101, 2: 0.109, 10: 0.144}


def example2(outputs: Sequence[int] = (1, 0, 1), *, epsilon: float = math.log(1.5)) -> Example2:
    """Example 2 (Eq. 11; spec §4.2): Λ(x) over D = {0..10}, ratio 0.144/0.096 = 1.5 (ℓ = ln 1.5).

    Erratum: the paper prints 0.109 at x = 2; the model gives 0.1046 (0.109 is the x = 3 value, spec §8.3).
    """
    outs = [_v.integer("outputs", y, low=0, high=1) for y in _v.sequence("outputs", outputs)]
    if not outs:
        raise ValueError("outputs must contain at least one output")
    tabs = [running_example_query(i + 1, epsilon=epsilon) for i in range(len(outs))]
    ll = transcript_log_likelihood(tabs, outs)
    lik = np.exp(ll)
    post = posterior(np.full(11, 1 / 11), ll)
    df = pd.DataFrame(
        {
            "x": np.arange(11),
            "likelihood": lik,
            "paper": [_EX2_PAPER.get(i, math.nan) for i in range(11)],
            "posterior_uniform": post,
        }
    )
    loss = realized_loss(ll)
    note = (
        "The paper prints Λ(2) = 0.109; the reconstructed queries give 0.1046 (0.109 ≈ Λ(3) = 0.1085), "
        "a misprint with no effect on the max, min or the 1.5 result."
    )
    return Example2(df, loss, _ratio(loss), float(sum(t.epsilon for t in tabs)), note)


def example3(
    outputs: Sequence[int] = (1, 0, 1, 1),
    *,
    n_queries: int = 6,
    budget: float = math.log(2.25),
    epsilon: float = math.log(1.5),
) -> pd.DataFrame:
    """Example 3 (spec §4.3): the BPF trace on q_i = X^i with ε_G = ln 2.25; later queries are probes.

    Columns: step, loss_if_0, loss_if_1, ratio_if_0, ratio_if_1, accepted, observed, loss_after,
    ratio_after, argmax, argmin (tuples of maximisers/minimisers of Λ).
    """
    outs = [_v.integer("outputs", y, low=0, high=1) for y in _v.sequence("outputs", outputs)]
    nq = _v.integer("n_queries", n_queries, low=1, high=MAX_EXAMPLE_LENGTH)
    filt = BayesianPrivacyFilter(budget, domain_size=11)
    rows = []
    k = 0
    for i in range(1, nq + 1):
        tab = running_example_query(i, epsilon=epsilon)
        la = filt.look_ahead(tab)
        acc = filt.would_accept(tab) and k < len(outs)
        row = {
            "step": i,
            "loss_if_0": la[0],
            "loss_if_1": la[1],
            "ratio_if_0": _ratio(la[0]),
            "ratio_if_1": _ratio(la[1]),
            "accepted": bool(filt.would_accept(tab)),
            "observed": math.nan,
            "loss_after": math.nan,
            "ratio_after": math.nan,
            "argmax": (),
            "argmin": (),
        }
        if acc:
            filt.submit(tab, outs[k])
            ll = filt.log_likelihood
            row.update(
                observed=outs[k],
                loss_after=filt.loss,
                ratio_after=_ratio(filt.loss),
                argmax=tuple(np.flatnonzero(np.isclose(ll, ll.max(), rtol=0, atol=1e-12))),
                argmin=tuple(np.flatnonzero(np.isclose(ll, ll.min(), rtol=0, atol=1e-12))),
            )
            k += 1
        rows.append(row)
    return pd.DataFrame(rows)


def example3_transcripts(
    *, budget: float = math.log(2.25), epsilon: float = math.log(1.5), filter: str = "bayesian"
) -> TranscriptTree:  # noqa: A002
    """Every transcript of the Example-3 interaction (send q1, q2, …, stop at the first rejection; RC11)."""
    kind = _v.choice("filter", filter, ("bayesian", "simplified"))
    cls = BayesianPrivacyFilter if kind == "bayesian" else SimplifiedBayesianFilter
    return enumerate_interaction(
        lambda h: running_example_query(len(h) + 1, epsilon=epsilon), cls(budget, domain_size=11)
    )


# ---------------------------------------------------------------------------------------------
# Continuous domains: regression queries, DC decompositions, branch-and-bound
# ---------------------------------------------------------------------------------------------

_KINDS = ("linear", "truncated", "logistic")


def _softplus(u: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, u)


@dataclass(frozen=True, eq=False)
class RegressionTerm:
    """One accepted regression output as a function of x: ``ln Pr[y|x] = f(z)``, ``z = a·x + c`` (§2.22).

    * linear: z = Pr[y|x] (affine in x), f = ln z; DC: g = 0, h = −ln z.
    * truncated: z as linear, f = ln clip(z, c1, c2); DC: g = max(0, z/c1 − 1), h = g − f.
    * logistic: z = θ·x̃, f = sp(z + c_y) − sp(z) + d_y; DC: g = sp(z + c_y) + d_y, h = sp(z).
    """

    kind: str
    a: np.ndarray
    c: float
    epsilon: float
    output: int  # 0 = low output, 1 = high output

    @property
    def c1(self) -> float:
        return float(special.expit(-self.epsilon))

    @property
    def c2(self) -> float:
        return float(special.expit(self.epsilon))

    @property
    def cy(self) -> float:
        return self.epsilon if self.output == 1 else -self.epsilon

    @property
    def dy(self) -> float:
        base = -float(np.logaddexp(0.0, self.epsilon))
        return base if self.output == 1 else self.epsilon + base

    def z(self, x: Any) -> np.ndarray:
        return np.asarray(x, dtype=float) @ self.a + self.c

    def log_prob_z(self, z: Any) -> np.ndarray:
        z = np.asarray(z, dtype=float)
        if self.kind == "logistic":
            return _softplus(z + self.cy) - _softplus(z) + self.dy
        if self.kind == "truncated":
            return np.log(np.clip(z, self.c1, self.c2))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(z > 0, np.log(np.where(z > 0, z, 1.0)), -np.inf)

    def log_prob(self, x: Any) -> np.ndarray:
        """``ln Pr[y | x]`` at points x (shape (..., d))."""
        return self.log_prob_z(self.z(x))

    def dc_g(self, z: Any) -> np.ndarray:
        """Convex g of the DC split f = g − h (spec §2.22)."""
        z = np.asarray(z, dtype=float)
        if self.kind == "logistic":
            return _softplus(z + self.cy) + self.dy
        if self.kind == "truncated":
            return np.maximum(0.0, z / self.c1 - 1.0)
        return np.zeros_like(z)

    def dc_h(self, z: Any) -> np.ndarray:
        """Convex h of the DC split f = g − h (spec §2.22)."""
        z = np.asarray(z, dtype=float)
        if self.kind == "logistic":
            return _softplus(z)
        return self.dc_g(z) - self.log_prob_z(z)


@dataclass(frozen=True, eq=False)
class RegressionQuery:
    """A regression released through Eq. 5: v(x) = θ₀ + θ_{1:}·x (linear), clipped (truncated) or σ(·)."""

    kind: str
    theta: np.ndarray
    epsilon: float
    low: float
    high: float

    @property
    def outputs(self) -> tuple[float, float]:
        return (self.low, self.high)

    @property
    def dimension(self) -> int:
        return int(self.theta.size - 1)

    def value(self, x: Any) -> np.ndarray:
        t = np.asarray(x, dtype=float) @ self.theta[1:] + self.theta[0]
        if self.kind == "logistic":
            return special.expit(t)
        if self.kind == "truncated":
            return np.clip(t, self.low, self.high)
        return t

    def term(self, output: Any) -> RegressionTerm:
        """The log-likelihood term of one output (0/``low`` or 1/``high``)."""
        if output == self.high:
            j = 1
        elif output == self.low:
            j = 0
        elif output in (0, 1):
            j = int(output)
        else:
            raise ValueError(f"output must be 0, 1, {self.low} or {self.high}, got {output!r}")
        if self.kind == "logistic":
            return RegressionTerm("logistic", self.theta[1:].copy(), float(self.theta[0]), self.epsilon, j)
        kappa = math.tanh(self.epsilon / 2) / (self.high - self.low)
        c1 = float(special.expit(-self.epsilon))
        if j == 1:
            a, c = kappa * self.theta[1:], c1 + kappa * (self.theta[0] - self.low)
        else:
            a, c = -kappa * self.theta[1:], (1 - c1) - kappa * (self.theta[0] - self.low)
        return RegressionTerm(self.kind, np.asarray(a, dtype=float), float(c), self.epsilon, j)

    def sample(self, x: Any, rng: np.random.Generator | int | None = None) -> int:
        """Run the query on x; returns the output index (0 = low, 1 = high)."""
        gen = _v.rng(rng)
        v = float(self.value(np.asarray(x, dtype=float)))
        return int(gen.random() < _two_point_high(np.asarray(v), self.low, self.high, self.epsilon))


def _regression_query(kind: str, theta: Any, epsilon: float, low: float, high: float) -> RegressionQuery:
    th = _v.real_array("theta", theta, allow_inf=False)
    if th.ndim != 1 or th.size < 2:
        raise ValueError("theta must be a 1-D array (intercept, weights…) with at least 2 entries")
    eps = _v.positive("epsilon", epsilon)
    lo, hi = _interval(low, high)
    th = th.copy()
    th.setflags(write=False)
    return RegressionQuery(kind, th, eps, lo, hi)


def linear_regression_query(
    theta: Any, *, epsilon: float, low: float = -1.0, high: float = 1.0
) -> RegressionQuery:
    """Linear regression ``v = θ₀ + θ_{1:}·x`` through Eq. 5 on [low, high] (Sec. 5.3 (a))."""
    return _regression_query("linear", theta, epsilon, low, high)


def truncated_regression_query(theta: Any, *, epsilon: float, low: float, high: float) -> RegressionQuery:
    """Truncated linear regression ``v = clip(θ·x̃, low, high)`` through Eq. 5 (Sec. 5.3 (b), Eq. 20)."""
    return _regression_query("truncated", theta, epsilon, low, high)


def logistic_regression_query(theta: Any, *, epsilon: float) -> RegressionQuery:
    """Logistic regression ``v = σ(θ·x̃)`` through Eq. 5 on [0, 1] (Sec. 5.3 (c))."""
    return _regression_query("logistic", theta, epsilon, 0.0, 1.0)


class _Stack:
    """Vectorised evaluation of k regression terms (internal)."""

    def __init__(self, terms: Sequence[RegressionTerm]) -> None:
        self.A = np.array([t.a for t in terms], dtype=float)
        self.c = np.array([t.c for t in terms], dtype=float)
        kinds = np.array([_KINDS.index(t.kind) for t in terms])
        self.lin = kinds == 0
        self.tru = kinds == 1
        self.log = kinds == 2
        eps = np.array([t.epsilon for t in terms])
        self.c1 = special.expit(-eps)
        self.c2 = special.expit(eps)
        out = np.array([t.output for t in terms])
        self.cy = np.where(out == 1, eps, -eps)
        self.dy = -np.logaddexp(0.0, eps) + np.where(out == 1, 0.0, eps)
        self.eps = eps
        self.any_lin, self.any_tru, self.any_log = (
            bool(self.lin.any()),
            bool(self.tru.any()),
            bool(self.log.any()),
        )
        self.only_logistic = bool(self.log.all())

    def f(self, z: np.ndarray) -> np.ndarray:
        """ln Pr per term, z shape (..., k)."""
        if self.only_logistic:  # fast path: the logistic branch below on every column
            return _softplus(z + self.cy) - _softplus(z) + self.dy
        out = np.empty_like(z)
        zl = z[..., self.lin]
        with np.errstate(divide="ignore", invalid="ignore"):
            out[..., self.lin] = np.where(zl > 0, np.log(np.where(zl > 0, zl, 1.0)), -np.inf)
        out[..., self.tru] = np.log(np.clip(z[..., self.tru], self.c1[self.tru], self.c2[self.tru]))
        zg = z[..., self.log]
        out[..., self.log] = _softplus(zg + self.cy[self.log]) - _softplus(zg) + self.dy[self.log]
        return out

    def concave_part(self, z: np.ndarray, sign: int) -> np.ndarray:
        """V of :meth:`parts` alone (the same values; branching needs only V)."""
        if self.only_logistic:
            return np.logaddexp(0.0, z) if sign > 0 else np.logaddexp(0.0, z + self.cy) + self.dy
        return self.parts(z, sign)[2]

    def convex(self, z: np.ndarray, sign: int) -> tuple[np.ndarray, np.ndarray]:
        """(C, C') of :meth:`parts` without V (the same values; the B&B subproblem needs only these)."""
        if self.only_logistic:
            if sign > 0:
                u = z + self.cy
                return np.logaddexp(0.0, u) + self.dy, special.expit(u)
            return np.logaddexp(0.0, z), special.expit(z)
        cc, dc, _ = self.parts(z, sign)
        return cc, dc

    def parts(self, z: np.ndarray, sign: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(C, C', V) of ``sign·f = C − V`` with C, V convex (spec §3.8 table); z shape (k,) or (n, k)."""
        if self.only_logistic:  # fast path: g = sp(z + c_y) + d_y, h = sp(z)
            u = z + self.cy
            g = np.logaddexp(0.0, u) + self.dy
            dg = special.expit(u)
            h = np.logaddexp(0.0, z)
            if sign > 0:
                return g, dg, h
            return h, special.expit(z), g
        g = np.zeros_like(z)
        dg = np.zeros_like(z)
        h = np.zeros_like(z)
        dh = np.zeros_like(z)
        if self.any_lin:  # linear: g = 0, h = -ln z (z > 0 is checked by the caller)
            zl = z[..., self.lin]
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # subnormal z: −1/z = −inf
                h[..., self.lin] = -np.log(zl)
                dh[..., self.lin] = -1.0 / zl
        if self.any_tru:  # truncated: g = max(0, z/c1 - 1), h = g - ln clip(z, c1, c2)
            zt = z[..., self.tru]
            c1, c2 = self.c1[self.tru], self.c2[self.tru]
            gt = np.maximum(0.0, zt / c1 - 1.0)
            g[..., self.tru] = gt
            dgt = (zt > c1) / c1
            dg[..., self.tru] = dgt
            h[..., self.tru] = gt - np.log(np.clip(zt, c1, c2))
            inside = (zt > c1) & (zt < c2)
            dh[..., self.tru] = dgt - np.where(inside, 1.0 / np.where(inside, zt, 1.0), 0.0)
        if self.any_log:  # logistic
            zg = z[..., self.log]
            cy = self.cy[self.log]
            g[..., self.log] = _softplus(zg + cy) + self.dy[self.log]
            dg[..., self.log] = special.expit(zg + cy)
            h[..., self.log] = _softplus(zg)
            dh[..., self.log] = special.expit(zg)
        if sign > 0:
            return g, dg, h
        return h, dh, g


@dataclass(frozen=True)
class DCMinimum:
    """Certified bounds on ``min_{x ∈ box} sign·ln Λ(x)`` from :func:`minimize_dc` (Algorithm 6)."""

    lower: float
    upper: float  # value at ``argmin`` (attained)
    argmin: np.ndarray
    n_nodes: int
    converged: bool
    trace: pd.DataFrame  # iteration, lower, upper


def _z_range(A: np.ndarray, c: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    zl = c + np.minimum(A * lo, A * hi).sum(axis=1)
    zu = c + np.maximum(A * lo, A * hi).sum(axis=1)
    return zl, zu


def _box(lower: Any, upper: Any) -> tuple[np.ndarray, np.ndarray]:
    lo = _v.real_array("lower", lower, allow_inf=False)
    hi = _v.real_array("upper", upper, allow_inf=False)
    if lo.ndim != 1 or lo.size == 0 or lo.shape != hi.shape:
        raise ValueError("lower and upper must be non-empty 1-D arrays of the same length (the box)")
    if np.any(hi < lo):
        raise ValueError("upper must be ≥ lower in every coordinate")
    return lo, hi


def _terms(terms: Sequence[RegressionTerm], d: int) -> list[RegressionTerm]:
    ts = list(terms)
    if not ts:
        raise ValueError("terms must contain at least one regression term")
    for t in ts:
        if not isinstance(t, RegressionTerm):
            raise ValueError("terms must be RegressionTerm objects (use RegressionQuery.term(output))")
        if t.a.shape != (d,):
            raise ValueError(f"terms must have {d} weights to match the box, got {t.a.shape}")
    return ts


def secant_relaxation(
    term: RegressionTerm, z_low: float, z_high: float, *, sign: int = 1, n: int = 101
) -> pd.DataFrame:
    """The DC relaxation of one term on ``[z_low, z_high]`` (Sec. 5.2, App. D; spec §7 panel 9).

    ``sign·f = C − V`` with C, V convex; V is replaced by its secant ``V̂ ≥ V`` so ``C − V̂ ≤ sign·f``.
    Columns: z, f (= ln Pr[y|z]), C, V, V_secant, relaxed (= C − V_secant).
    """
    if not isinstance(term, RegressionTerm):
        raise ValueError("term must be a RegressionTerm")
    zl, zu = _interval(z_low, z_high, "z_low", "z_high")
    sg = _v.integer("sign", sign, low=-1, high=1)
    if sg == 0:
        raise ValueError("sign must be +1 or -1")
    m = _v.integer("n", n, low=2, high=MAX_GRID)
    if term.kind == "linear" and zl <= 0:
        raise ValueError("z_low must be > 0 for a linear term (z is a probability)")
    st = _Stack([term])
    z = np.linspace(zl, zu, m)
    cc, _, vv = st.parts(z[:, None], sg)
    _, _, ve = st.parts(np.array([[zl], [zu]]), sg)
    sec = ve[0, 0] + (ve[1, 0] - ve[0, 0]) * (z - zl) / (zu - zl)
    return pd.DataFrame(
        {
            "z": z,
            "f": term.log_prob_z(z),
            "C": cc[:, 0],
            "V": vv[:, 0],
            "V_secant": sec,
            "relaxed": cc[:, 0] - sec,
        }
    )


def _branch_coordinate(
    st: _Stack, sg: int, lo: np.ndarray, hi: np.ndarray, xh: np.ndarray, weight: np.ndarray
) -> int:
    """Coordinate to bisect: the widest (weighted) edge for the term with the largest secant gap at x̂."""
    zl, zu = _z_range(st.A, st.c, lo, hi)
    z = st.A @ xh + st.c
    vl = st.concave_part(zl, sg)
    vu = st.concave_part(zu, sg)
    vz = st.concave_part(z, sg)
    dz = zu - zl
    with np.errstate(divide="ignore", invalid="ignore"):
        sec = np.where(dz > 1e-14, vl + (vu - vl) * (z - zl) / np.where(dz > 1e-14, dz, 1.0), vz)
    gap = sec - vz
    width = hi - lo
    if np.max(gap) > 0:
        i = int(np.argmax(gap))
        score = np.abs(st.A[i]) * width
        if np.max(score) > 0:
            return int(np.argmax(score))
    return int(np.argmax(width * weight))


def single_term_loss(term: RegressionTerm, lower: Any, upper: Any) -> float:
    """Exact realized loss of one regression output over a box: f is monotone in z, z affine (Sec. 5.3)."""
    lo, hi = _box(lower, upper)
    (t,) = _terms([term], lo.size)
    zl, zu = _z_range(t.a[None, :], np.array([t.c]), lo, hi)
    vals = t.log_prob_z(np.array([zl[0], zu[0]]))
    return float(abs(vals[1] - vals[0]))


def _tnc_box(
    fun: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x0: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    *,
    maxfun: int,
    ftol: float,
    gtol: float,
) -> np.ndarray:
    """``optimize.minimize(fun, x0, jac=True, method="TNC", bounds=Bounds(lo, hi), options=…).x``, same iterates.

    Calls SciPy's TNC core with the arguments ``optimize.minimize`` passes it, without the per-call wrapping
    (bounds standardisation, ScalarFunction, MemoizeJac: ≈ 0.2 ms a call, most of a B&B node's cost).
    Falls back to ``optimize.minimize`` when a variable is fixed (lo = hi: minimize then removes it) or the core
    is unavailable.  Equivalence: tests/dpcore/test_ldp_fastpaths.py.
    """
    if _TNC_CORE is None or np.any(lo >= hi):
        res = optimize.minimize(
            fun, x0, jac=True, method=_SUBSOLVER, bounds=optimize.Bounds(lo, hi),
            options={"maxfun": maxfun, "ftol": ftol, "gtol": gtol},
        )
        return res.x

    def fg(x: np.ndarray) -> tuple[float, np.ndarray]:
        f, g = fun(x.copy())
        return float(f), np.asarray(g, dtype=float)

    # (func_and_grad, x0, low, up, scale, offset, messages=MSG_NONE, maxCGit, maxfun, eta, stepmx, accuracy,
    #  fmin, ftol, xtol, pgtol, rescale, callback): minimize's defaults for everything but maxfun/ftol/gtol
    out = _TNC_CORE.tnc_minimize(
        fg, np.array(x0, dtype=float), np.array(lo, dtype=float), np.array(hi, dtype=float),
        _NO_SCALING, _NO_SCALING, 0, -1, maxfun, -1, 0, 0, 0, ftol, -1, gtol, -1, None,
    )
    return out[3]


def minimize_dc(
    terms: Sequence[RegressionTerm],
    lower: Any,
    upper: Any,
    *,
    sign: int = 1,
    tol: float = 1e-6,
    max_nodes: int = 20_000,
) -> DCMinimum:
    """Certified branch-and-bound for ``min_{x∈box} sign·Σ_i ln Pr[y_i|x]`` (Sec. 5.2, App. D, Algorithm 6).

    Each node is an x-sub-box; on it every convex V_i is replaced by its secant over the node's z-range
    (an affine overestimator, spec §8.15), the convex relaxation is minimised with L-BFGS-B, and the
    node's lower bound is certified by the Frank–Wolfe linearisation ``R(x̂) + min_box ∇R(x̂)·(x−x̂)``
    (spec §8.16), so solver inaccuracy never overstates it.  Deviation from the paper: branching is on x
    (longest weighted edge), not z; sound for any dimension, efficient for small d.
    """
    lo0, hi0 = _box(lower, upper)
    ts = _terms(terms, lo0.size)
    sg = _v.integer("sign", sign, low=-1, high=1)
    if sg == 0:
        raise ValueError("sign must be +1 (minimise ln Λ) or -1 (maximise ln Λ)")
    tl = _v.positive("tol", tol)
    cap = _v.integer("max_nodes", max_nodes, low=1)
    st = _Stack(ts)
    zl0, zu0 = _z_range(st.A, st.c, lo0, hi0)
    if np.any(zl0[st.lin] <= 0):
        raise ValueError("terms: a linear term's probability leaves (0, 1] on the box; use a truncated query")
    # work in unit coordinates u ∈ [0,1]^d (x = lo + (hi − lo) u) for a well-conditioned subproblem
    scale = hi0 - lo0
    st.c = st.c + st.A @ lo0
    st.A = st.A * scale
    orig_lo = lo0
    lo0, hi0 = np.zeros_like(lo0), (scale > 0).astype(float)
    weight = np.abs(st.A).sum(axis=0)

    def phi(x: np.ndarray) -> float:
        return float(sg * st.f(st.A @ x + st.c).sum())

    def solve(lo: np.ndarray, hi: np.ndarray, x0: np.ndarray) -> tuple[float, float, np.ndarray]:
        zl, zu = _z_range(st.A, st.c, lo, hi)
        vl = st.concave_part(zl, sg)
        vu = st.concave_part(zu, sg)
        dz = zu - zl
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(dz > 1e-14, (vu - vl) / np.where(dz > 1e-14, dz, 1.0), 0.0)

        def rfun(x: np.ndarray) -> tuple[float, np.ndarray]:
            z = st.A @ x + st.c
            cc, dc = st.convex(z, sg)
            sec = vl + slope * (z - zl)
            return float((cc - sec).sum()), st.A.T @ (dc - slope)

        free = hi > lo
        if np.any(free):
            xh = np.clip(_tnc_box(rfun, np.clip(x0, lo, hi), lo, hi, maxfun=100, ftol=1e-13, gtol=1e-10), lo, hi)
        else:
            xh = lo.copy()
        rv, gr = rfun(xh)
        lb = rv + float(np.sum(np.minimum(gr * (lo - xh), gr * (hi - xh))))
        ub = phi(xh)
        return lb, ub, xh

    x_c = (lo0 + hi0) / 2
    lb, ub, xh = solve(lo0, hi0, x_c)
    best_ub, best_x = ub, xh
    uc = phi(x_c)
    if uc < best_ub:
        best_ub, best_x = uc, x_c
    heap: list[tuple[float, int, np.ndarray, np.ndarray, np.ndarray]] = [(lb, 0, lo0, hi0, xh)]
    counter = 1
    trace = [(1, min(lb, best_ub), best_ub)]
    converged = False
    pruned_lb = math.inf  # smallest lower bound among discarded nodes (each ≥ UB − tol when discarded)
    idx = np.arange(lo0.size)
    while True:
        global_lb = min(heap[0][0] if heap else math.inf, pruned_lb, best_ub)
        if best_ub - global_lb <= tl:
            converged = True
            break
        if counter >= cap:
            break
        nlb, _, lo, hi, xh = heapq.heappop(heap)
        if nlb >= best_ub - tl:
            pruned_lb = min(pruned_lb, nlb)
            continue
        j = _branch_coordinate(st, sg, lo, hi, xh, weight)
        mid = 0.5 * (lo[j] + hi[j])
        for clo, chi in ((lo, np.where(idx == j, mid, hi)), (np.where(idx == j, mid, lo), hi)):
            clb, cub, cx = solve(clo, chi, xh)
            counter += 1
            if cub < best_ub:
                best_ub, best_x = cub, cx
            if clb < best_ub - tl:
                heapq.heappush(heap, (clb, counter, clo, chi, cx))
            else:
                pruned_lb = min(pruned_lb, clb)
        trace.append((counter, min(heap[0][0] if heap else math.inf, pruned_lb, best_ub), best_ub))
    lower_bound = global_lb
    tr = pd.DataFrame(trace, columns=["nodes", "lower", "upper"])
    return DCMinimum(float(lower_bound), float(best_ub), orig_lo + scale * best_x, counter, converged, tr)


@dataclass(frozen=True)
class LikelihoodBounds:
    """Certified bounds of the extreme log-likelihoods over a box (Eq. 17; spec §3.8)."""

    min_lower: float  # ≤ min ln Λ
    min_upper: float  # ≥ min ln Λ (attained at argmin)
    max_lower: float  # ≤ max ln Λ (attained at argmax)
    max_upper: float  # ≥ max ln Λ
    argmin: np.ndarray
    argmax: np.ndarray
    n_nodes: int
    converged: bool

    @property
    def certified_loss(self) -> float:
        """``U − Lo ≥ ℓ`` (Eq. 17): use this in filters and odometers."""
        return self.max_upper - self.min_lower

    @property
    def attained_loss(self) -> float:
        """Loss between two concrete points (≤ the true ℓ)."""
        return self.max_lower - self.min_upper


def log_likelihood_bounds(
    terms: Sequence[RegressionTerm],
    lower: Any,
    upper: Any,
    *,
    tol: float = 1e-6,
    binary: Sequence[int] = (),
    max_nodes: int = 20_000,
) -> LikelihoodBounds:
    """Certified lower/upper bounds of ``min_x ln Λ(x)`` and ``max_x ln Λ(x)`` over a box (Algorithm 6).

    ``binary`` lists coordinates taking only the values lower/upper (enumerated; relaxing them to the
    interval is also valid but looser).  ``certified_loss`` is U − Lo (Eq. 17).  Each extreme is solved
    to ``tol/2``, so on convergence ``certified_loss − attained_loss ≤ tol`` (RC18).
    """
    lo, hi = _box(lower, upper)
    _terms(terms, lo.size)
    tol = _v.positive("tol", tol)
    bins = sorted({_v.integer("binary", b, low=0, high=lo.size - 1) for b in _v.sequence("binary", binary)})
    best = None
    n_nodes = 0
    conv = True
    for combo in itertools.product(*[(lo[b], hi[b]) for b in bins]):
        l2, h2 = lo.copy(), hi.copy()
        for b, val in zip(bins, combo, strict=True):
            l2[b] = h2[b] = val
        mn = minimize_dc(terms, l2, h2, sign=1, tol=tol / 2, max_nodes=max_nodes)
        mx = minimize_dc(terms, l2, h2, sign=-1, tol=tol / 2, max_nodes=max_nodes)
        n_nodes += mn.n_nodes + mx.n_nodes
        conv = conv and mn.converged and mx.converged
        cand = (mn.lower, mn.upper, -mx.upper, -mx.lower, mn.argmin, mx.argmin)
        if best is None:
            best = list(cand)
        else:
            if cand[0] < best[0]:
                best[0] = cand[0]
            if cand[1] < best[1]:
                best[1], best[4] = cand[1], cand[4]
            if cand[2] > best[2]:
                best[2], best[5] = cand[2], cand[5]
            if cand[3] > best[3]:
                best[3] = cand[3]
    assert best is not None
    return LikelihoodBounds(best[0], best[1], best[2], best[3], best[4], best[5], n_nodes, conv)


def grouped_realized_loss(log_likelihoods: Any, *, group_size: int) -> float:
    """App. C / Eq. 26 bound ``Σ_j ℓ(r_{G_j})`` for a discrete transcript, rows = per-query ln Pr[y_i|x]."""
    arr = _v.real_array("log_likelihoods", log_likelihoods)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError("log_likelihoods must be a non-empty (k, |D|) array (one row per query)")
    m = _v.integer("group_size", group_size, low=1)
    k = arr.shape[0]
    return float(sum(realized_loss(arr[s : s + m].sum(axis=0)) for s in range(0, k, m)))


def grouped_loss_bound(
    terms: Sequence[RegressionTerm],
    lower: Any,
    upper: Any,
    *,
    group_size: int,
    tol: float = 1e-6,
    binary: Sequence[int] = (),
) -> float:
    """Certified App.-C bound ``Σ_j min(U_j − Lo_j, Σ_{i∈G_j} ε_i)`` over consecutive groups (Eq. 26)."""
    lo, hi = _box(lower, upper)
    ts = _terms(terms, lo.size)
    m = _v.integer("group_size", group_size, low=1)
    total = 0.0
    for s in range(0, len(ts), m):
        grp = ts[s : s + m]
        b = log_likelihood_bounds(grp, lo, hi, tol=tol, binary=binary)
        total += min(b.certified_loss, float(sum(t.epsilon for t in grp)))
    return total


def _vertices(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    d = lo.size
    bits = ((np.arange(2**d)[:, None] >> np.arange(d)) & 1).astype(bool)
    return np.where(bits, hi, lo)


def _group_loss_exact_linear(st: _Stack, lo: np.ndarray, hi: np.ndarray, verts: np.ndarray) -> float:
    """Exact ℓ of a group of linear terms: min at a vertex, max a concave maximisation (spec §2.22 (a))."""
    vals = st.f(verts @ st.A.T + st.c).sum(axis=1)
    mn = float(vals.min())

    def neg(x: np.ndarray) -> tuple[float, np.ndarray]:
        z = st.A @ x + st.c
        return float(-np.log(z).sum()), -(st.A.T @ (1.0 / z))

    x0 = verts[int(np.argmax(vals))]
    res = optimize.minimize(
        neg,
        (x0 + (lo + hi) / 2) / 2,
        jac=True,
        method=_SUBSOLVER,
        bounds=list(zip(lo, hi, strict=True)),
        options={"ftol": 1e-14, "gtol": 1e-10},
    )
    mx = max(-float(res.fun), float(vals.max()))
    return mx - mn


def _group_loss_multistart(
    st: _Stack, lo: np.ndarray, hi: np.ndarray, gen: np.random.Generator, n_probe: int = 400, n_start: int = 4
) -> float:
    """Heuristic (not certified) ℓ of a group by random probes + multi-start L-BFGS-B (spec §5.3)."""
    probes = lo + (hi - lo) * gen.random((n_probe, lo.size))
    vals = st.f(probes @ st.A.T + st.c).sum(axis=1)
    out = []
    for sg in (1, -1):

        def fun(x: np.ndarray, sg: int = sg) -> tuple[float, np.ndarray]:
            z = st.A @ x + st.c
            cc, dc, vv = st.parts(z, sg)
            # d/dz of V for logistic/linear/truncated: recompute via parts of opposite sign
            _, dv, _ = st.parts(z, -sg)
            return float(np.sum(cc - vv)), st.A.T @ (dc - dv)

        order = np.argsort(sg * vals)[:n_start]
        best = float(np.min(sg * vals))
        for i in order:
            res = optimize.minimize(
                fun, probes[i], jac=True, method=_SUBSOLVER, bounds=list(zip(lo, hi, strict=True))
            )
            best = min(best, float(res.fun))
        out.append(best)
    return -out[1] - out[0]


class RegressionFilter:
    """Bayesian Privacy Filter for regressions on a continuous box, with query grouping (spec §3.9, App. C).

    Closed groups of ``group_size`` queries contribute fixed (certified) losses; the open group is
    recomputed for both outputs of each candidate query and capped by Σ ε (spec §2.20).  ``method``:
    "bnb" (certified branch-and-bound), "exact_linear" (linear queries only: vertex enumeration + concave
    maximisation), "multistart" (heuristic, NOT certified: the spec's evaluation shortcut for 9-D logistic).
    """

    def __init__(
        self,
        budget: float,
        *,
        lower: Any,
        upper: Any,
        group_size: int = 10,
        tol: float = 1e-4,
        method: str = "bnb",
        tolerance: float = TOLERANCE,
        rng: np.random.Generator | int | None = None,
    ) -> None:
        self.budget = _v.positive("budget", budget)
        self.lower, self.upper = _box(lower, upper)
        self.group_size = _v.integer("group_size", group_size, low=1)
        self.tol = _v.positive("tol", tol)
        self.method = _v.choice("method", method, ("bnb", "exact_linear", "multistart"))
        self.tolerance = _v.nonnegative("tolerance", tolerance)
        self._rng = _v.rng(rng)
        self.closed_loss = 0.0
        self.open_terms: list[RegressionTerm] = []
        self.open_loss = 0.0
        self.history: list[tuple[RegressionQuery, int]] = []
        self._verts = _vertices(self.lower, self.upper) if self.method == "exact_linear" else None
        self._cache: tuple[RegressionQuery, np.ndarray] | None = None

    @property
    def loss(self) -> float:
        """Odometer: certified upper bound Σ closed groups + open group (Eq. 17, Eq. 26)."""
        return self.closed_loss + self.open_loss

    @property
    def remaining(self) -> float:
        return self.budget - self.loss

    def _group_loss(self, terms: list[RegressionTerm]) -> float:
        cap = float(sum(t.epsilon for t in terms))
        st = _Stack(terms)
        if self.method == "exact_linear":
            if not (st.lin.all()):
                raise ValueError("method 'exact_linear' needs linear regression queries only")
            val = _group_loss_exact_linear(st, self.lower, self.upper, self._verts)
        elif self.method == "multistart":
            val = _group_loss_multistart(st, self.lower, self.upper, self._rng)
        else:
            val = log_likelihood_bounds(terms, self.lower, self.upper, tol=self.tol).certified_loss
        return min(val, cap)

    def look_ahead(self, query: RegressionQuery) -> np.ndarray:
        """Loss bound after accepting ``query`` for each of its two outputs (low, high)."""
        if not isinstance(query, RegressionQuery) or query.dimension != self.lower.size:
            raise ValueError(f"query must be a RegressionQuery of dimension {self.lower.size}")
        if self._cache is not None and self._cache[0] is query:
            return self._cache[1]
        out = np.array(
            [self.closed_loss + self._group_loss(self.open_terms + [query.term(j)]) for j in (0, 1)]
        )
        self._cache = (query, out)  # holds the query, so identity cannot be reused by a new object
        return out

    def worst_case(self, query: RegressionQuery) -> float:
        return float(self.look_ahead(query).max())

    def would_accept(self, query: RegressionQuery) -> bool:
        return bool(self.worst_case(query) <= self.budget + self.tolerance * max(1.0, self.budget))

    def submit(self, query: RegressionQuery, output: Any) -> float:
        """Commit an accepted query and its output (0/low or 1/high); returns the odometer."""
        if not self.would_accept(query):
            raise QueryRejected(
                "query: the filter rejects this query (budget would be exceeded for some output)"
            )
        term = query.term(output)
        la = self.look_ahead(query)
        self.open_terms.append(term)
        self.open_loss = float(la[term.output]) - self.closed_loss
        self.history.append((query, term.output))
        self._cache = None
        if len(self.open_terms) == self.group_size:
            self.closed_loss += self.open_loss
            self.open_terms, self.open_loss = [], 0.0
        return self.loss


def regression_experiment(
    kind: str,
    *,
    budgets: Any = tuple(range(1, 11)),
    n_runs: int = 50,
    dimension: int = 9,
    epsilon: float = 1.0,
    group_size: int = 10,
    true_value: float = 0.0,
    method: str | None = None,
    max_queries: int = 400,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Evaluation of Sec. 6 (Algorithm 5): accepted counts of a greedy adversary for every budget (spec §5).

    Domain [−1, 1]^d, x* = true_value in every coordinate.  Linear: θ ~ U[−1,1]^{d+1} normalised to
    ‖θ‖₁ = 1, Eq. 5 on [−1, 1].  Logistic: θ ~ U[−1,1]^{d+1}, Eq. 5 on [0, 1].  One stream per run gives
    all budgets: K(ε_G) = min{k : W_k > ε_G} − 1 (spec §3.10).  Columns: run, budget, accepted, basic.
    """
    kd = _v.choice("kind", kind, ("linear", "logistic"))
    bud = _v.real_array("budgets", budgets, low=0.0, allow_inf=False).ravel()
    if bud.size == 0 or np.any(bud <= 0):
        raise ValueError("budgets must be a non-empty array of values > 0")
    runs = _v.integer("n_runs", n_runs, low=1)
    d = _v.integer("dimension", dimension, low=1, high=14)
    eps = _v.positive("epsilon", epsilon)
    m = _v.integer("group_size", group_size, low=1)
    xs = _v.real("true_value", true_value, low=-1.0, high=1.0)
    meth = method or ("exact_linear" if kd == "linear" else "multistart")
    meth = _v.choice("method", meth, ("bnb", "exact_linear", "multistart"))
    cap = _v.integer("max_queries", max_queries, low=1)
    gen = _v.rng(rng)
    top = float(bud.max())
    lo, hi = -np.ones(d), np.ones(d)
    x_star = np.full(d, xs)
    rows = []
    for run in range(runs):
        filt = RegressionFilter(top, lower=lo, upper=hi, group_size=m, method=meth, rng=gen)
        worst: list[float] = []
        for _ in range(cap):
            theta = gen.uniform(-1.0, 1.0, d + 1)
            if kd == "linear":
                theta = theta / np.abs(theta).sum()
                q = linear_regression_query(theta, epsilon=eps, low=-1.0, high=1.0)
            else:
                q = logistic_regression_query(theta, epsilon=eps)
            w = filt.worst_case(q)
            worst.append(w)
            if not filt.would_accept(q):
                break
            filt.submit(q, q.sample(x_star, gen))
        wk = np.array(worst)
        for b in bud:
            over = np.flatnonzero(wk > b + TOLERANCE * max(1.0, b))
            k = int(over[0]) if over.size else len(wk)
            rows.append(
                {"run": run, "budget": float(b), "accepted": k, "basic": int(math.floor(b / eps + 1e-9))}
            )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class PaperComparison:
    """A reproduced number next to the paper's, with the reason when they differ."""

    reproduced: float
    paper: float
    matches: bool
    reason: str
    data: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)


def logistic_median_reproduction(
    *, n_runs: int = 50, budget: float = 10.0, rng: np.random.Generator | int | None = 0
) -> PaperComparison:
    """Median accepted logistic regressions at ε_G = 10 (Sec. 6.2, Fig. 1(d)): paper 21 (spec §5.3, RC19).

    Uses the spec's evaluation shortcut (multi-start extremes per group of 10, not certified).
    """
    b = _v.positive("budget", budget)
    df = regression_experiment("logistic", budgets=[b], n_runs=n_runs, rng=rng)
    med = float(df["accepted"].median())
    return PaperComparison(
        med,
        21.0,
        abs(med - 21.0) <= 2.0,
        "Reproduces the paper (21 ± 2) under the reconstructed setup of spec §5.1/5.3.",
        df,
    )


def linear_median_mismatch(
    *, n_runs: int = 50, budget: float = 10.0, group_size: int = 10, rng: np.random.Generator | int | None = 0
) -> PaperComparison:
    """Median accepted linear regressions at ε_G = 10 (Sec. 6.1): paper 47; the literal setup gives ≈ 34.5.

    Spec §5.2 / §8.10: with groups of 10 (as the paper states) and exact per-group losses the median is
    ≈ 34.5; groups of 20 give ≈ 48.5 and no grouping ≈ 181.  The paper's θ normalisation, mechanism
    range, domain or group size probably differ from the reconstruction; none survived the text dump.
    """
    b = _v.positive("budget", budget)
    df = regression_experiment("linear", budgets=[b], n_runs=n_runs, group_size=group_size, rng=rng)
    med = float(df["accepted"].median())
    reason = (
        "Not reproducible under the literal reading (groups of 10, L1-normalised θ, domain [−1,1]^9, "
        "Eq. 5 on [−1,1], ε = 1): exact per-group losses give a median of about 34.5. Groups of 20 give "
        "about 48.5, so the paper probably used a different group size or normalisation (spec §8.10)."
    )
    return PaperComparison(med, 47.0, abs(med - 47.0) <= 3.0, reason, df)


# --- healthcare example (Sec. 6.3, Table I, App. E) -----------------------------------------

_HEALTH_THETA = {
    # intercept, age, sex, bp, BMI  (Table I reconstructed, spec §4.4)
    "heart": (6.177, -0.059, -1.456, -0.0134, 0.0),
    "stroke": (-7.989, 0.0761, 0.0952, 0.0, 0.0163),
    "diabetes": (-5.07, 0.0491, 0.0, -0.0091, 0.1039),
    "sleep": (12.323, 0.0855, 0.4617, -0.07, 0.0),
}
_HEALTH_PAPER = [
    2.4639,
    2.4084,
    1.8036,
    2.7253,
    2.6865,
    3.1550,
    2.4642,
    3.7449,
    3.4761,
    2.2610,
    2.7511,
    2.1975,
    2.3362,
    1.6863,
    1.9062,
    2.4959,
]


def healthcare_queries(epsilon: float = 1.0) -> tuple[dict[str, RegressionQuery], np.ndarray, np.ndarray]:
    """The four regressions of Table I (Sec. 6.3) and the domain box (age, sex, bp, BMI); sex is binary."""
    eps = _v.positive("epsilon", epsilon)
    qs = {
        name: logistic_regression_query(th, epsilon=eps)
        for name, th in _HEALTH_THETA.items()
        if name != "sleep"
    }
    qs["sleep"] = truncated_regression_query(_HEALTH_THETA["sleep"], epsilon=eps, low=0.0, high=12.0)
    return qs, np.array([10.0, 0.0, 50.0, 10.0]), np.array([100.0, 1.0, 200.0, 50.0])


def healthcare_losses(*, tol: float = 1e-5, epsilon: float = 1.0) -> pd.DataFrame:
    """Realized losses of all 16 output patterns of the healthcare queries (App. E; spec §4.4).

    Columns: heart, stroke, diabetes, sleep (outputs), paper, certified (U − Lo), attained, single_sum.
    Erratum (spec §8.4): the paper's values are 0.100–0.149 above the certified optimum.
    """
    t = _v.positive("tol", tol)
    qs, lo, hi = healthcare_queries(epsilon)
    rows = []
    for i, (h, s, sl, dbt) in enumerate(itertools.product((0, 1), (0, 1), (0, 1), (0, 1))):
        terms = [qs["heart"].term(h), qs["stroke"].term(s), qs["diabetes"].term(dbt), qs["sleep"].term(sl)]
        b = log_likelihood_bounds(terms, lo, hi, tol=t, binary=[1])
        singles = sum(single_term_loss(tm, lo, hi) for tm in terms)
        rows.append(
            {
                "heart": h,
                "stroke": s,
                "diabetes": dbt,
                "sleep": 12 * sl,
                "paper": _HEALTH_PAPER[i],
                "certified": b.certified_loss,
                "attained": b.attained_loss,
                "single_sum": singles,
            }
        )
    return pd.DataFrame(rows)
