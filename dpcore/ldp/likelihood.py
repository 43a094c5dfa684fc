"""Likelihood tables and the realized privacy loss (Pan 2023, Sec. 3.3: Def. 3.2, Eq. 10; Sec. 4.1, Eq. 13).

A *likelihood table* has one row per true value ``x`` of the protected object and one column per output ``y``
of the query and stores ``ln Pr[q(x) = y]``.  The realized loss of an output or transcript ``r`` is
``ℓ(r) = ln max_x Λ_r(x) − ln min_x Λ_r(x)``: the paper prints it on the ratio scale ``e^ℓ`` in Examples 2–3 and
on the log scale (ε units) in Sec. 6 and App. E; here it is always stored and compared on the log scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import _validate as _v

TOLERANCE = 1e-12
"""Relative tolerance of every budget test (Example 3 lands exactly on its budget, so equality must pass):
``ℓ ≤ ε_G + TOLERANCE·max(1, |values|)``.

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

class QueryRejected(ValueError):
    """Raised by ``submit`` when the filter would reject the query (the caller must dry-run first)."""


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
        """Tight LDP level ``ε(q) = max_y ℓ(y)`` (Def. 2.1, Eq. 4: the paper's worst-case loss)."""
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

    Rows are true values, columns outputs.  Raises ValueError for an empty table, entries
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
