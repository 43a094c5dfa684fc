"""The R²DP charts' colours and legend words, and the marks they share: reference lines, markers, log-labelled axes."""

from __future__ import annotations

import math

import numpy as np

from app.catalogue.r2dp import FAMILY
from app.figures import style
from app.figures.style import COLORS, LABELS, line
from app.notation import number

#: Colours of the R²DP families (Okabe–Ito / Tol, distinct from the app-wide Laplace and staircase colours).
FAMILY_COLORS = {
    "this law": COLORS["r2dp"],
    "laplace": COLORS["laplace"],
    "staircase": COLORS["staircase"],
    "two_point": "#009E73",
    "gamma": "#CC79A7",
    "uniform": "#0072B2",
    "truncnorm": "#882255",
    "combo": "#222222",  # dashed (see _family_traces): it overlaps its two parts
    "cap": COLORS["reference"],
}
#: Legend words of the curves: the baselines here, the R²DP families' from their one table (app.catalogue.r2dp).
FAMILY_LABELS = {
    "laplace": LABELS["laplace"],
    "staircase": "optimal staircase",
    **{fam: FAMILY[fam].legend for fam in ("two_point", "gamma", "uniform", "truncnorm", "combo")},
    "cap": "cap γe^(ε−1)/Δ",
}


def _line(x, y, **kw) -> dict:
    """style.line with numpy data (pandas Series cost Plotly a slow conversion per trace)."""
    return line(np.asarray(x), np.asarray(y), **kw)


def hline(y: float, text: str, *, color: str = COLORS["reference"]) -> tuple[dict, dict]:
    """A dotted horizontal line across the plot, labelled at its right end (shape, annotation)."""
    return style.hline(y, text, color=color, side="right")


def _solid(color: str) -> list:
    """A one-colour colorscale (contour lines take their colour from the colorscale)."""
    return [[0, color], [1, color]]


def _log_axis(values: np.ndarray, title: str) -> dict:
    """A linear axis over log10 data labelled like a log axis (1, 2, 5 per decade).

    Contours are drawn on log10 coordinates because Plotly interpolates contour levels linearly in data units, which
    puts a contour visibly off on a coarse geometric grid with a log axis.
    """
    lo, hi = float(np.min(values)), float(np.max(values))
    ticks = [
        m * 10.0**e
        for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
        for m in (1, 2, 5)
        if lo <= m * 10.0**e <= hi
    ]
    return {
        "title": {"text": title},
        "tickvals": [math.log10(t) for t in ticks],
        "ticktext": [number(t) for t in ticks],
    }


def _marker(x: float, y: float, name: str, color: str, symbol: str = "x", **kw) -> dict:
    return {
        "type": "scatter",
        "mode": "markers",
        "x": [x],
        "y": [y],
        "name": name,
        "marker": {"color": color, "size": 12, "symbol": symbol, "line": {"width": 1, "color": "black"}},
        **kw,
    }


def _log_thin(n: int, points: int = 400) -> np.ndarray:
    """Row indices 0…n−1 spaced evenly in log(row + 1), first and last included: all rows when n ≤ points."""
    if n <= points:
        return np.arange(n)
    return np.unique(np.round(np.geomspace(1, n, points)).astype(int) - 1)
