"""The top-c experiments of the evaluation (Liu et al. 2024, §5.2–§5.5, Table 3, Figs. 7, 8, 10 and 11).

Each method of Table 3 selects items whose count passes the threshold; precision, recall, F1 and the
normalised cumulative rank (NCR) score the selection against the true ranking.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from dpcore import _validate as _v
from dpcore.svt.calibration import split_budget
from dpcore.svt.mechanism import run_svt
from dpcore.svt.noise import sample_noise

__all__ = ["METHODS", "run_experiment", "run_method", "selection_metrics", "upper_bound_topc"]

#: Table 3 of the paper: method name -> (query noise, correction rule).
METHODS: dict[str, tuple[str, str]] = {
    "SVT-Exp (optimal)": ("exponential", "optimal"),
    "SVT-Exp (mean)": ("exponential", "mean"),
    "SVT-Exp (no)": ("exponential", "none"),
    "SVT-Gumbel": ("gumbel", "mean"),
    "SVT-Lap": ("laplace", "none"),
    "SVT-Gau": ("gaussian", "none"),
    "SVT-Exp upper bound": ("exponential", "upper_bound"),
}


def upper_bound_topc(
    answers, *, epsilon: float, c: int, sensitivity: float = 1.0, monotonic: bool = False, rng=None
) -> np.ndarray:
    """'SVT-Exp upper bound' of Table 3: add Exp(Δ/ε₂) to every score, return the top c (§5.3).

    NOT a DP top-c procedure at budget ε (a one-shot top-c needs noise ∝ c) — an empirical ceiling; the paper does
    not say which ε₂, SVT-Exp's is used."""
    q = _v.real_array("answers", answers)
    if q.ndim != 1 or q.size == 0:
        raise ValueError("answers must be a non-empty one-dimensional array")
    sp = split_budget(epsilon, c=c, noise="exponential", monotonic=monotonic, sensitivity=sensitivity)
    noisy = q + sample_noise("exponential", sp.sensitivity / sp.epsilon2, q.size, rng)
    return np.argsort(-noisy, kind="stable")[: sp.c]


def run_method(
    method: str,
    answers,
    *,
    threshold: float,
    epsilon: float,
    c: int,
    k: int | None = None,
    alpha: float = 0.0,
    append: bool = True,
    traverses: int | None = 1,
    resample: bool = False,
    monotonic: bool = False,
    delta: float = 1e-5,
    rng=None,
) -> np.ndarray:
    """Indices selected by one Table-3 method (Table 4 calibration, same queue/append logic for all)."""
    method = _v.choice("method", method, METHODS)
    noise, corr = METHODS[method]
    if corr == "upper_bound":
        return upper_bound_topc(answers, epsilon=epsilon, c=c, monotonic=monotonic, rng=rng)
    return run_svt(
        answers,
        threshold=threshold,
        epsilon=epsilon,
        c=c,
        noise=noise,
        correction=corr,
        append=append,
        resample=resample,
        rng=rng,
        k=k,
        alpha=alpha,
        traverses=traverses,
        monotonic=monotonic,
        delta=delta,
    ).selected


def selection_metrics(selected, scores, *, threshold: float, c: int) -> dict[str, float]:
    """Precision, recall, F1 and NCR of a top-c selection (§5.2.2).

    True positives: items with score ≥ T. NCR: the true top-1 item scores c, top-2 c−1, …, top-c 1, others
    0, tied true scores share the average; NCR = Σ_selected / (c(c+1)/2). 0/0 is reported as 0. The paper leaves
    ties and F1's ground truth unstated; these are the choices made here."""
    s = _v.real_array("scores", scores)
    if s.ndim != 1 or s.size == 0:
        raise ValueError("scores must be a non-empty one-dimensional array")
    T = _v.real("threshold", threshold)
    c = _v.integer("c", c, low=1)
    idx = _v.real_array("selected", selected, allow_inf=False).ravel()
    if idx.size and (idx.min() < 0 or idx.max() >= s.size or not np.all(idx == np.floor(idx))):
        raise ValueError("selected must hold indices into scores")
    sel = np.unique(idx.astype(int))
    truth = s >= T
    tp = int(truth[sel].sum())
    fp = sel.size - tp
    fn = int(truth.sum()) - tp
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
    order = np.argsort(-s, kind="stable")
    pos_score = np.maximum(c - np.arange(s.size), 0).astype(float)
    sorted_s = s[order]
    _, inv = np.unique(-sorted_s, return_inverse=True)
    avg = np.bincount(inv, weights=pos_score) / np.bincount(inv)
    item_score = np.empty(s.size)
    item_score[order] = avg[inv]
    ncr = float(item_score[sel].sum() / (c * (c + 1) / 2))
    return {"precision": precision, "recall": recall, "f1": f1, "ncr": ncr}


def run_experiment(
    scores,
    *,
    threshold: float,
    epsilons: Sequence[float],
    c: int,
    methods: Sequence[str] | None = None,
    n_runs: int = 100,
    traverses: Sequence[int | None] | int | None = 1,
    append: bool = True,
    alpha: float = 0.0,
    k: int | None = None,
    monotonic: bool = False,
    resample: bool = False,
    delta: float | None = None,
    rng=None,
    progress: Callable[[float], None] | None = None,
) -> pd.DataFrame:
    """Top-c experiment of §5.2: many runs over random queue orders; means with 95 % CIs.

    One row per (method, ε, traverses) with columns <metric>, <metric>_lo, <metric>_hi (Student-t interval)
    for precision, recall, f1, ncr. k defaults to ⌊n_items/c⌋; δ (SVT-Gau) defaults to 1/n_items."""
    s = _v.real_array("scores", scores, allow_inf=False)
    if s.ndim != 1 or s.size == 0:
        raise ValueError("scores must be a non-empty one-dimensional array")
    eps_list = [_v.positive("epsilons", e) for e in np.atleast_1d(epsilons)]
    if not eps_list:
        raise ValueError("epsilons must not be empty")
    c = _v.integer("c", c, low=1)
    methods = (
        list(METHODS)
        if methods is None
        else [_v.choice("methods", m, METHODS) for m in _v.sequence("methods", methods)]
    )
    n_runs = _v.integer("n_runs", n_runs, low=2)
    tv: Any = traverses  # None, one number or a sequence of them
    trav = [tv] if tv is None or np.ndim(tv) == 0 else list(tv)
    delta_ = 1.0 / max(s.size, 2) if delta is None else delta
    g = _v.rng(rng)
    rows = []
    total = len(methods) * len(eps_list) * len(trav)
    done = 0
    tcrit = float(stats.t.ppf(0.975, n_runs - 1))
    for m in methods:
        for e in eps_list:
            for t in trav:
                vals = {key: np.empty(n_runs) for key in ("precision", "recall", "f1", "ncr")}
                for j in range(n_runs):
                    perm = g.permutation(s.size)
                    sel = run_method(
                        m,
                        s[perm],
                        threshold=threshold,
                        epsilon=e,
                        c=c,
                        k=k,
                        alpha=alpha,
                        append=append,
                        traverses=t,
                        resample=resample,
                        monotonic=monotonic,
                        delta=delta_,
                        rng=g,
                    )
                    met = selection_metrics(perm[sel], s, threshold=threshold, c=c)
                    for key in vals:
                        vals[key][j] = met[key]
                row = {"method": m, "epsilon": e, "traverses": t, "n_runs": n_runs}
                for key, x in vals.items():
                    mu, se = float(x.mean()), float(x.std(ddof=1) / math.sqrt(n_runs))
                    row[key], row[f"{key}_lo"], row[f"{key}_hi"] = mu, mu - tcrit * se, mu + tcrit * se
                rows.append(row)
                done += 1
                if progress is not None:
                    progress(done / total)
    return pd.DataFrame(rows)
