"""Panels 8–9 of the SVT page's explore view (Liu, Wang, Liu, Li and Chen 2024): one seeded run of Algorithm 2 with
every comparison recorded, and APPEND's chance of selecting an item within t passes (§4.4) against the paper's t·p."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.svt.method import _GAUSS_DELTA, _correction_r, calibration
from dpcore import data as dpdata
from dpcore import svt

__all__ = [
    "LIVE_MAX_ITEMS",
    "Appending",
    "AppendingGap",
    "LiveRun",
    "LiveTrace",
    "appending",
    "live_queue_size",
    "live_run",
]

LIVE_MAX_ITEMS = 500


def live_queue_size(c: int, k: int) -> int:
    """Items in the live-run queue: c·k (so k = ⌊n/c⌋ as in the paper), at least 20, at most 500."""
    return int(min(max(c * k, 20), LIVE_MAX_ITEMS))


@dataclass(frozen=True)
class LiveRun:
    """What one seeded SVT run did (its comparisons are the frame returned beside it)."""

    n_items: int
    n_comparisons: int
    n_positive: int
    halted: str  # "cutoff" | "k_max" | "exhausted"
    correction: float
    epsilon_spent: float
    threshold_draws: int
    passes: int
    true_positives_selected: int


class LiveTrace(NamedTuple):
    """One seeded run: every comparison, and what the run did."""

    comparisons: pd.DataFrame  # one row per comparison, with the counters after it
    info: LiveRun


@cached
def live_run(
    epsilon: float,
    c: int,
    k: int,
    alpha: float,
    threshold: float,
    noise: str,
    monotonic: bool,
    append: bool,
    traverses: int,
    resample: bool,
    rule: str,
    seed: int,
    k_max: int = 10_000,
) -> LiveTrace:
    """Panel 8: one seeded run of SVT on a shuffled Zipf queue s_i = T·c/i (exactly c items ≥ T; the paper's
    Zipf set when c = 50, T = 200), every comparison recorded, stopped after at most ``k_max`` comparisons
    (Algorithm 2's k_max). Returns (comparisons, summary)."""
    n = live_queue_size(c, k)
    rng = np.random.default_rng(seed)
    scores = dpdata.zipf_scores(n, scale=threshold * c)[rng.permutation(n)]
    sp = calibration(epsilon, c, noise, monotonic)
    run = svt.run_svt(
        scores,
        threshold=threshold,
        epsilon=epsilon,
        c=c,
        noise=noise,
        correction=_correction_r(sp, k, alpha, rule),
        append=append,
        traverses=traverses if append else None,
        resample=resample,
        rng=rng,
        k=k,
        alpha=alpha,
        monotonic=monotonic,
        k_max=k_max,
        delta=_GAUSS_DELTA,
    )
    comp = run.comparisons.drop(columns=["threshold"])
    comp["true_positive"] = comp["answer"] >= threshold
    comp["n_positive"] = comp["positive"].cumsum()  # counters after each comparison: a step is a lookup
    comp["n_true_selected"] = (comp["positive"] & comp["true_positive"]).cumsum()
    info = LiveRun(
        n_items=n,
        n_comparisons=run.n_comparisons,
        n_positive=run.n_positive,
        halted=run.halted,
        correction=run.correction,
        epsilon_spent=run.epsilon_spent,
        threshold_draws=run.n_threshold_draws,
        passes=int(comp["pass"].max()) if len(comp) else 0,
        true_positives_selected=int(comp.loc[comp["positive"], "true_positive"].sum()),
    )
    return LiveTrace(comp, info)


@dataclass(frozen=True)
class AppendingGap:
    """Where the paper's t·p is furthest from the exact chance of being selected within t passes."""

    d: float  # q − τ
    paper: float  # t·p
    exact: float  # E_ρ[1 − F(ρ + r − d)^t], one shared ρ
    independent: float  # 1 − (1 − p)^t, fresh ρ per pass
    r: float


class Appending(NamedTuple):
    """Panel 9: the chance of selection within t passes, and where t·p is furthest from it."""

    curves: pd.DataFrame  # d, t, shared, independent, as_printed
    worst: AppendingGap


@cached
def appending(epsilon: float, c: int, k: int, alpha: float, monotonic: bool, traverses: int) -> Appending:
    """Panel 9 (§4.4): P[selected within t passes] vs d = q − T, t ∈ {1, 2, 5, 10, slider}:
    exact shared ρ, fresh-ρ 1 − (1 − p)^t and the paper's t·p; and the worst gap of t·p at the slider's t."""
    sp = calibration(epsilon, c, "exponential", monotonic)
    r = _correction_r(sp, k, alpha, "optimal")
    kw = dict(r=r, threshold_scale=sp.threshold_scale, query_scale=sp.query_scale)
    d = np.linspace(r - 4 * sp.query_scale, r + 3 * sp.query_scale, 71)
    rows = []
    for t in sorted({1, 2, 5, 10, traverses}):
        frame = {"d": d, "t": t}
        for v in ("shared", "independent", "as_printed"):
            frame[v] = svt.appending_probability(d, traverses=t, variant=v, **kw)
        rows.append(pd.DataFrame(frame))
    df = pd.concat(rows, ignore_index=True)
    at = df[df["t"] == traverses].reset_index(drop=True)
    reach = np.flatnonzero(at["as_printed"].to_numpy() >= 1.0)  # where t·p first claims certain selection
    if traverses == 1:  # t·p is exact for one pass: report the query at the threshold
        i = int(np.argmin(np.abs(at["d"].to_numpy())))
    else:
        i = int(reach[0]) if reach.size else int(np.argmax((at["as_printed"] - at["shared"]).to_numpy()))
    row = at.iloc[i]
    return Appending(
        df,
        AppendingGap(
            d=float(row["d"]),
            paper=float(row["as_printed"]),
            exact=float(row["shared"]),
            independent=float(row["independent"]),
            r=r,
        ),
    )
