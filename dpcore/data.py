"""Synthetic data sets for the DP Explorer experiments (pure functions of parameters and an rng).

SVT (Liu, Wang, Liu, Li and Chen 2024, §5.1 Table 2): the Zipf and Binary score sets exactly as the paper
defines them, and *transaction-style* stand-ins for T40I10D100K, BMS-POS, Kosarak and Adult. The real data
sets cannot be downloaded here; the stand-ins reproduce Table 2's record count, item count and threshold,
an assumed average transaction length and top-item support, with a power-law item popularity — they are
NOT the real data, and results on them are not the paper's numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize

from dpcore import _validate as _v

__all__ = [
    "SVT_DATASETS",
    "TABLE2",
    "Dataset",
    "TransactionSpec",
    "binary_scores",
    "item_supports",
    "svt_dataset",
    "transaction_scores",
    "zipf_scores",
]

#: Most items in a generated score set (one float per item; Table 2's largest, Kosarak, has 41 270).
MAX_ITEMS = 10_000_000


def zipf_scores(n_items: int = 10_000, *, scale: float = 10_000.0, exponent: float = 1.0) -> np.ndarray:
    """Zipf score set of Table 2: s_i = scale / i^exponent, i = 1..n (paper: 10 000/i, 50 items ≥ 200)."""
    n = _v.integer("n_items", n_items, low=1, high=MAX_ITEMS)
    sc = _v.positive("scale", scale)
    ex = _v.nonnegative("exponent", exponent)
    with np.errstate(over="ignore"):  # i^exponent beyond the float range: the score's limit 0
        return sc / np.arange(1, n + 1, dtype=float) ** ex


def binary_scores(
    n_items: int = 10_000, *, n_positive: int = 50, high: float = 1_000.0, low: float = 0.0
) -> np.ndarray:
    """Binary score set of Table 2: n_positive items score ``high`` (1000), the rest ``low`` (0).

    The paper does not state the number of positives; 50 (= c) is assumed."""
    n = _v.integer("n_items", n_items, low=1, high=MAX_ITEMS)
    npos = _v.integer("n_positive", n_positive, low=0, high=n)
    hi = _v.real("high", high)
    lo = _v.real("low", low, high=hi)
    out = np.full(n, lo)
    out[:npos] = hi
    return out


@dataclass(frozen=True)
class TransactionSpec:
    """Statistics of one Table-2 transaction data set (+ assumed shape parameters, marked)."""

    name: str
    n_records: int  # Table 2
    n_items: int  # Table 2
    threshold: float  # Table 2
    c: int  # Fig. 7: 5 for Adult, 50 otherwise
    avg_length: float  # assumed: mean number of items per record (public descriptions of the data sets)
    top_support: float  # assumed: fraction of records containing the most frequent item
    n_above: int  # assumed: number of items whose support reaches the threshold
    real: bool  # real-world data set in the paper (we only generate a stand-in)

    @property
    def generator(self) -> dict[str, Any]:
        """The settings of the synthetic stand-in: the keywords of :func:`item_supports` and
        :func:`transaction_scores` (all but ``rng``)."""
        names = ("n_records", "n_items", "threshold", "avg_length", "top_support", "n_above")
        return {k: getattr(self, k) for k in names}


#: Table 2 rows (records, items, threshold) with assumed average length, top-item support and n_above.
#: Adult: a power law anchored at 95 % top support and 85 items ≥ 200 cannot reach 14 items per record;
#: :func:`item_supports` then uses the flat tail (mean length ≈ 3.4) — the threshold statistics win.
TABLE2: dict[str, TransactionSpec] = {
    "T40I10D100K": TransactionSpec("T40I10D100K", 100_000, 942, 11_850, 50, 40.0, 0.25, 50, False),
    "BMS-POS": TransactionSpec("BMS-POS", 515_597, 1_657, 13_600, 50, 6.5, 0.6, 50, True),
    "Kosarak": TransactionSpec("Kosarak", 990_002, 41_270, 10_500, 50, 8.1, 0.61, 50, True),
    "Adult": TransactionSpec("Adult", 48_843, 123, 200, 5, 14.0, 0.95, 85, True),
}


def item_supports(
    *, n_records: int, n_items: int, threshold: float, avg_length: float, top_support: float, n_above: int
) -> np.ndarray:
    """Per-record inclusion probability p_i of the rank-i item: a two-segment power law.

    Anchored at p_1 = top_support and p at rank n_above + 1/2 equal to threshold/n_records (so about
    ``n_above`` items reach the threshold); the tail exponent is solved (brentq) so that sum p_i = avg_length
    when that is reachable (otherwise the closest reachable tail: flat or steepest)."""
    nr = _v.integer("n_records", n_records, low=1)
    ni = _v.integer("n_items", n_items, low=2, high=MAX_ITEMS)
    thr = _v.real("threshold", threshold, low=_v.MIN_SCALE, high=float(nr))
    L = _v.real("avg_length", avg_length, low=0.0, high=float(ni), low_open=True)
    ts = _v.probability("top_support", top_support, low_open=True)
    na = _v.integer("n_above", n_above, low=1, high=ni - 1)
    p_t = thr / nr
    if ts < p_t:
        raise ValueError("top_support must be at least threshold / n_records")
    i = np.arange(1, ni + 1, dtype=float)
    x = i / (na + 0.5)
    a1 = math.log(ts / p_t) / math.log(na + 0.5)
    head = x <= 1
    p = np.empty(ni)
    p[head] = p_t * x[head] ** (-a1)

    def tail(a2: float) -> np.ndarray:
        return p_t * x[~head] ** (-a2)

    def excess(a2: float) -> float:
        return float(p[head].sum() + tail(a2).sum() - L)

    if excess(0.0) <= 0:
        a2 = 0.0
    elif excess(50.0) >= 0:
        a2 = 50.0
    else:
        a2 = float(optimize.brentq(excess, 0.0, 50.0, xtol=1e-12))
    p[~head] = tail(a2)
    return np.minimum(p, 1.0)


def transaction_scores(
    *,
    n_records: int,
    n_items: int,
    threshold: float,
    avg_length: float,
    top_support: float,
    n_above: int,
    rng=None,
) -> np.ndarray:
    """Item frequencies of a synthetic transaction set, sorted in decreasing order.

    Each record contains item i independently with probability p_i of :func:`item_supports`, so the
    item's score (the paper's s_i = sum_j 1(R_j contains I_i)) is Binomial(n_records, p_i)."""
    p = item_supports(
        n_records=n_records,
        n_items=n_items,
        threshold=threshold,
        avg_length=avg_length,
        top_support=top_support,
        n_above=n_above,
    )
    g = _v.rng(rng)
    return np.sort(g.binomial(int(n_records), p).astype(float))[::-1]


@dataclass(frozen=True)
class Dataset:
    """A score set ready for the top-c experiment: scores, threshold T, cutoff c and k = ⌊n_items/c⌋."""

    name: str
    scores: np.ndarray = field(repr=False)
    threshold: float
    c: int
    synthetic_stand_in: bool  # True when it only imitates a data set we cannot download

    @property
    def n_items(self) -> int:
        return int(self.scores.size)

    @property
    def k(self) -> int:
        return self.n_items // self.c

    @property
    def n_above(self) -> int:
        """Number of items with score ≥ T (the true positives)."""
        return int((self.scores >= self.threshold).sum())


SVT_DATASETS = ("Binary", "Zipf", "T40I10D100K", "BMS-POS", "Kosarak", "Adult")


def svt_dataset(name: str, rng=None) -> Dataset:
    """One of the six data sets of Table 2 (Binary and Zipf exact; the other four synthetic stand-ins)."""
    name = _v.choice("name", name, SVT_DATASETS)
    if name == "Binary":
        return Dataset(name, binary_scores(), 500.0, 50, False)
    if name == "Zipf":
        return Dataset(name, zipf_scores(), 200.0, 50, False)
    row = TABLE2[name]
    scores = transaction_scores(**row.generator, rng=rng)
    return Dataset(name, scores, float(row.threshold), row.c, True)
