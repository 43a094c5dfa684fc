"""Cached Monte-Carlo audits for the Audit page: scalar arguments (incl. the seed) in, small frames out.

The raw samples (up to 2·10⁶ floats) never enter the cache: each entry holds the audit result, the binned output
laws, the per-bin likelihood ratios and the bound-vs-n curve, so a warm rerun is a dictionary look-up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from app.compute._cache import cached
from dpcore import audit as A
from dpcore import mechanisms as _mechanisms

MECHANISMS = A.MECHANISMS
#: What users see for each mechanism id (the registry's display names; older ids included).
NAMES = _mechanisms.display_names()
SAMPLE_OPTIONS = (10_000, 30_000, 100_000, 300_000, 1_000_000)
CONFIDENCE_OPTIONS = (0.9, 0.95, 0.99, 0.999)
RATIO_OPTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
AUDIT_BINS = 100  # quantile bins of the event search (dpcore.audit)
SHOW_BINS = 40  # bins of the histogram and likelihood-ratio panels


@dataclass(frozen=True)
class AuditView:
    """Everything the page shows for one audit."""

    result: A.AuditResult
    histogram: pd.DataFrame  # equal-width histogram of both inputs (per-outcome frequencies when discrete)
    ratios: pd.DataFrame  # per quantile bin (or outcome): frequencies of both inputs + log ratio with CI
    event: pd.DataFrame  # the ε event as intervals (lo, hi) or outcomes, for highlighting
    curve: pd.DataFrame | None  # ε_lb and δ_lb against n (None unless asked for: it is half of the cost)
    discrete: bool
    labels: tuple[str, ...] | None


def _event_frame(bound: A.EventBound, lo: float, hi: float) -> pd.DataFrame:
    """The chosen event as merged intervals (continuous) or a list of outcomes (discrete)."""
    if bound.edges is None:
        return pd.DataFrame({"outcome": list(bound.outcomes)})
    edges = np.asarray(bound.edges)
    rows: list[tuple[int, int]] = []
    start: Any = None  # the first and the last outcome of the run of consecutive outcomes being read
    prev: Any = None
    for b in bound.outcomes:
        if start is None:
            start = prev = b
        elif b == prev + 1:
            prev = b
        else:
            rows.append((start, prev))
            start = prev = b
    if start is not None:
        rows.append((start, prev))
    frame = pd.DataFrame({"lo": [max(edges[a], lo) for a, _ in rows], "hi": [min(edges[b + 1], hi) for _, b in rows]})
    return frame[frame["lo"] < frame["hi"]].reset_index(drop=True)  # parts outside the drawn range are dropped


def curve_sizes(n: int) -> list[int]:
    """Sample sizes of the bound-vs-n panel: 1000 … n, log-spaced."""
    return sorted({int(v) for v in np.geomspace(1000, n, 8).round()})


@cached(show_spinner="Sampling the mechanism on both neighbouring inputs …")
def run(
    mechanism: str,
    epsilon: float,
    delta: float,
    sensitivity: float,
    n: int,
    seed: int,
    confidence: float,
    theta: float,
    ratio: float,
    with_curve: bool = True,
) -> AuditView:
    """Sample n outputs per input, audit them (ε_lb, δ_lb at level 1 − confidence overall) and bin them; with
    ``with_curve`` also re-audit growing prefixes of the samples (ε_lb and δ_lb against n)."""
    alpha = 1.0 - confidence
    pair = A.sample_pair(
        mechanism,
        epsilon=epsilon,
        delta=delta,
        sensitivity=sensitivity,
        n=n,
        rng=seed,
        theta=theta,
        epsilon_y_ratio=ratio,
    )
    res = A.audit_pair(pair, alpha=alpha, bins=AUDIT_BINS)
    ratios = A.likelihood_ratios(
        pair.out_d, pair.out_dprime, alpha=alpha, bins=SHOW_BINS, discrete=pair.discrete, labels=pair.labels
    )
    if not pair.discrete:
        hist = A.histogram(pair.out_d, pair.out_dprime, bins=2 * SHOW_BINS)
        lo, hi = float(hist["bin_left"].iloc[0]), float(hist["bin_right"].iloc[-1])
    else:
        hist = ratios
        lo = hi = math.nan
    curve = None
    if with_curve:
        common: dict[str, Any] = dict(alpha=alpha / 2, bins=AUDIT_BINS, discrete=pair.discrete)
        sizes = curve_sizes(n)
        eps_curve = A.bound_vs_n(pair.out_d, pair.out_dprime, sizes=sizes, delta=pair.claimed_delta, **common)
        dl_curve = A.bound_vs_n(
            pair.out_d, pair.out_dprime, sizes=sizes, target="delta", epsilon=pair.claimed_epsilon, **common
        )
        curve = pd.DataFrame(
            {"n": eps_curve["n"], "epsilon_lb": eps_curve["epsilon_lb"], "delta_lb": dl_curve["delta_lb"]}
        )
    return AuditView(res, hist, ratios, _event_frame(res.epsilon_bound, lo, hi), curve, pair.discrete, pair.labels)


@cached(show_spinner="Auditing every mechanism …")
def table(
    epsilon: float, delta: float, sensitivity: float, n: int, seed: int, confidence: float, theta: float, ratio: float
) -> pd.DataFrame:
    """dpcore.audit.audit_table at the page's settings (+ BR-DP calibrated by the paper's accountant where it fails)."""
    df = A.audit_table(
        epsilon=epsilon,
        delta=delta,
        sensitivity=sensitivity,
        n=n,
        rng=seed,
        alpha=1 - confidence,
        bins=AUDIT_BINS,
        theta=theta,
        epsilon_y_ratio=ratio,
    )
    return df
