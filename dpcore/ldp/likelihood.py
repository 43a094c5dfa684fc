"""Likelihood tables and the realized privacy loss (Pan 2023, Sec. 3.3: Def. 3.2, Eq. 10; Sec. 4.1, Eq. 13).

A *likelihood table* has one row per true value ``x`` of the protected object and one column per output ``y``
of the query and stores ``ln Pr[q(x) = y]``.  The realized loss of an output or transcript ``r`` is
``ℓ(r) = ln max_x Λ_r(x) − ln min_x Λ_r(x)``: the paper prints it on the ratio scale ``e^ℓ`` in Examples 2–3 and
on the log scale (ε units) in Sec. 6 and App. E; here it is always stored and compared on the log scale.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import _validate as _v
from dpcore._exact import U

TOLERANCE = 0.0
"""Default extra margin of the filters' budget tests, which only ever refuses more: a query is accepted iff its exact
loss is ≤ ``ε_G − TOLERANCE·max(1, ε_G)``.

The tests are exact without it: a filter decides on the exact value of its sums of log-probabilities (the floats of
the tables, taken as exact numbers), so a loss that lands exactly on the budget (Example 3) is accepted and one an
ulp above it is refused."""

#: Round-off allowed when a query's declared ε is checked against its computed tight level (relative to
#: max(1, |ln Pr|)): a smaller declaration is an error; the decision itself always uses the larger of the two.
DECLARED_ROUNDOFF = 1e-12

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


class QueryRejected(ValueError):
    """Raised by ``submit`` when the filter would reject the query (the caller must dry-run first)."""


#: Round-off of one operation, relative to its (rounded) result, with room to spare: 2U.
_RND = 2.0 * U


def _absmax(a: np.ndarray) -> float:
    """Largest |entry| over the finite entries (0 when there are none)."""
    fin = np.abs(a[np.isfinite(a)])
    return float(fin.max()) if fin.size else 0.0


def _budget_limit(budget: float, tolerance: float) -> float:
    """The exact bound the filters test against: ε_G, less the optional margin (which only refuses more)."""
    return budget - tolerance * max(1.0, budget) if tolerance else budget


def _cap_columns(lp: np.ndarray, epsilon: float) -> np.ndarray:
    """``lp`` with each column's entries above min + ε lowered to the largest float ≤ min + ε (max − min ≤ ε exactly).

    A mechanism built for ε then has a table whose exact loss is at most ε (the logarithms are rounded, and their
    exact difference could otherwise exceed ε by an ulp); the probabilities move by ~1e-16 relative.
    """
    out = np.array(lp, dtype=float)
    for j in range(out.shape[1]):
        col = out[:, j]
        if col.size < 2 or not np.all(np.isfinite(col)):
            continue  # one value, or a zero probability (ℓ = ∞, or an output that never occurs): nothing to cap
        hi, lo = float(col.max()), float(col.min())
        if math.fsum([hi, -lo, -epsilon]) <= 0.0:
            continue
        top = math.fsum([lo, epsilon])  # lo + ε rounded to nearest, then down: the largest float ≤ lo + ε
        if math.fsum([top, -lo, -epsilon]) > 0.0:
            top = math.nextafter(top, -math.inf)
        col[col > top] = top
    return out


# ---------------------------------------------------------------------------------------------
# Likelihood tables and realized loss
# ---------------------------------------------------------------------------------------------


def _margin(tolerance: float, *values: Any) -> float:
    """Round-off margin ``tolerance·max(1, |v|)`` over the finite entries of ``values``.

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
        """Tight LDP level ``ε(q) = max_y ℓ(y)`` (Def. 2.1, Eq. 4: the paper's worst-case loss), rounded to nearest."""
        return float(np.nanmax(self.output_losses))

    @functools.cached_property
    def tight_terms(self) -> tuple[float, float]:
        """``(hi, lo)``: two entries of one column whose exact difference hi − lo is the tight level ε(q) exactly.

        ``(inf, 0)`` when some output is impossible for one value but not for another (ε = ∞).
        """
        lp = self.log_prob
        hi, lo = lp.max(axis=0), lp.min(axis=0)
        with np.errstate(invalid="ignore"):
            d = hi - lo
        if np.any(d == np.inf):
            return math.inf, 0.0
        ok = ~np.isnan(d)
        top = float(np.nanmax(d))
        cand = np.flatnonzero(ok & (d >= top - 4 * U * top))  # each d_j is within U·d_j of its exact value
        best = int(cand[0])
        for j in cand[1:]:  # exact comparison among the columns whose rounded losses tie
            if math.fsum([hi[j], -lo[j], -hi[best], lo[best]]) > 0:
                best = int(j)
        return float(hi[best]), float(lo[best])

    @property
    def epsilon_upper(self) -> float:
        """The smallest float ≥ the exact tight level ε(q) (what a basic-composition total must add)."""
        hi, lo = self.tight_terms
        d = hi - lo
        return math.nextafter(d, math.inf) if math.isfinite(d) and math.fsum([hi, -lo, -d]) > 0 else d

    @functools.cached_property
    def _normalised(self) -> tuple[np.ndarray, float]:
        """Columns shifted so that their largest entry is 0 (a shift common to every x changes no loss), and a bound
        on the round-off of every shifted entry: the filters add these small numbers, not ln Pr ≈ −0.7 per answer."""
        lp = self.log_prob
        top = lp.max(axis=0)
        shift = np.where(np.isfinite(top), top, 0.0)
        out = lp - shift
        out.setflags(write=False)
        return out, _RND * _absmax(out)

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


def likelihood_table(probabilities: Any, *, outputs: Sequence | None = None, name: str = "") -> LikelihoodTable:
    """Validated likelihood table from probabilities ``P[x, y] = Pr[q(x)=y]`` (each row sums to 1).

    Rows are true values, columns outputs.  Raises ValueError for an empty table, entries
    outside [0, 1], or rows that do not sum to 1.
    """
    p = _v.real_array("probabilities", probabilities, low=0.0, high=1.0, allow_inf=False)
    if p.ndim != 2 or p.shape[0] == 0 or p.shape[1] == 0:
        raise ValueError(
            f"probabilities must be a non-empty 2-D table (rows: true value, columns: output), got shape {p.shape}"
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


def fully_utilizes(table: Any, *, epsilon: float | None = None) -> bool:
    """Def. 3.3: an ε-LDP query fully utilizes its budget iff every output it can produce realizes ℓ(y) = ε.

    ``epsilon`` defaults to the query's tight level; the comparison is exact (each output's loss is the exact
    difference of two entries of its column). Randomized response does (Sec. 3.3); a two-point query whose values
    do not reach both ends does not.
    """
    tab = _as_table("table", table)
    lp = tab.log_prob
    hi, lo = lp.max(axis=0), lp.min(axis=0)
    occurs = np.isfinite(hi)
    if epsilon is None:
        t_hi, t_lo = tab.tight_terms
        target = [t_hi, -t_lo]
    else:
        target = [_v.nonnegative("epsilon", epsilon, allow_inf=True)]
    if not all(math.isfinite(t) for t in target):  # ε = ∞: every output must be impossible for some value x
        return bool(np.all(lo[occurs] == -np.inf))
    return all(
        math.isfinite(lo[j]) and math.fsum([hi[j], -lo[j], *(-t for t in target)]) == 0.0
        for j in np.flatnonzero(occurs)
    )


def realized_loss(log_likelihood: Any) -> float | np.ndarray:
    """Realized privacy loss ``ℓ = ln max_x Λ(x) − ln min_x Λ(x)`` (Def. 3.2, Eq. 10, log scale).

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
    """``ln Λ_r(x) = Σ_i ln Pr[q_i(x) = y_i]`` of a transcript (Eq. 13, Eq. 19)."""
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
