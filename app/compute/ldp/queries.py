"""The Local DP page's queries (Pan 2023): the running example's X^i (Eq. 11) or k-ary randomized response, the
prior presets, the statements about x*, and a log-scale loss shown as ℓ or e^ℓ."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached_resource
from dpcore import ldp

FAMILIES = ("powers", "rr")  # running-example queries X^i (Eq. 11) or k-ary randomized response on the domain
PRIORS = ("uniform", "skewed", "peaked", "bimodal")
STATEMENTS = ("equal", "above", "even")
STATEMENT_TEXT = {"equal": "X = x*", "above": "X ≥ x*", "even": "X is even"}


def show_loss(value: float | None, ratio: bool, digits: int = 4) -> str:
    """Format a log-scale loss for display: ``ℓ`` or ``e^ℓ`` (display only; comparisons stay on the log scale)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if value == math.inf:
        return "∞"
    v = math.exp(value) if ratio and value < 700 else (math.inf if ratio else value)
    return f"{v:.{digits}g}" if ratio else f"{v:.{digits}f}"


def add_ratio(df: pd.DataFrame, cols: tuple[str, ...]) -> pd.DataFrame:
    """Append ``<col>_ratio = e^<col>`` for each log-scale loss column (overflow → inf)."""
    with np.errstate(over="ignore"):
        for c in cols:
            df[f"{c}_ratio"] = np.exp(df[c].astype(float))
    return df


def prior(preset: str, n: int) -> np.ndarray:
    """Prior presets over D = {0..n−1}: uniform, skewed (linearly decreasing), peaked (middle), bimodal (ends)."""
    x = np.arange(n, dtype=float)
    if preset == "uniform":
        w = np.ones(n)
    elif preset == "skewed":
        w = n - x
    elif preset == "peaked":
        w = np.exp(-0.5 * ((x - (n - 1) / 2) / max(0.12 * n, 0.5)) ** 2) + 1e-3
    elif preset == "bimodal":
        s = max(0.1 * n, 0.5)
        w = np.exp(-0.5 * (x / s) ** 2) + np.exp(-0.5 * ((x - n + 1) / s) ** 2) + 1e-3
    else:
        raise ValueError(f"prior must be one of {', '.join(PRIORS)}, got {preset!r}")
    return w / w.sum()


def _statement(kind: str, n: int, x: int) -> np.ndarray:
    v = np.arange(n)
    if kind == "equal":
        return (v == x).astype(float)
    if kind == "above":
        return (v >= x).astype(float)
    if kind == "even":
        return (v % 2 == 0).astype(float)
    raise ValueError(f"statement must be one of {', '.join(STATEMENTS)}, got {kind!r}")


@cached_resource(max_entries=4096)
def _query(family: str, epsilon: float, n: int, i: int) -> ldp.LikelihoodTable:
    """Query i (1-based) of a family: X^i through Eq. 5 (the running example, Eq. 11) or k-ary RR on the domain.

    Memoised (the tables are frozen): the panels of one rerun ask for the same k tables several times."""
    if family == "powers":
        return ldp.running_example_query(i, epsilon=epsilon, domain_size=n)
    if family == "rr":
        return ldp.randomized_response(epsilon, domain_size=n)
    raise ValueError(f"query family must be one of {', '.join(FAMILIES)}, got {family!r}")


def _tables(family: str, epsilon: float, n: int, k: int) -> list[ldp.LikelihoodTable]:
    return [_query(family, epsilon, n, i) for i in range(1, k + 1)]


class _Transcript(NamedTuple):
    """k queries run on x*: their tables, the seeded outputs and the log-likelihood ln Λ of every x."""

    tables: list[ldp.LikelihoodTable]
    outputs: list[Any]  # the output labels
    log_likelihood: np.ndarray


def _sampled(family: str, epsilon: float, n: int, k: int, x: int, seed: int) -> _Transcript:
    """k queries run on x* (no filter) with seeded outputs."""
    tabs = _tables(family, epsilon, n, k)
    gen = np.random.default_rng(seed)
    outs = [t.sample(x, gen) for t in tabs]
    return _Transcript(tabs, outs, ldp.transcript_log_likelihood(tabs, outs))


def _extremes(ll: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    top = tuple(int(v) for v in np.flatnonzero(np.isclose(ll, ll.max(), rtol=0, atol=1e-12)))
    bottom = tuple(int(v) for v in np.flatnonzero(np.isclose(ll, ll.min(), rtol=0, atol=1e-12)))
    return top, bottom
