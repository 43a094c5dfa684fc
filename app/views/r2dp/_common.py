"""Helpers shared by the R²DP view's parts: number formatting and the law's picture (drawn in both views)."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from app.compute import r2dp as compute
from app.figures import r2dp as figs


def fmt(x: float, digits: int = 4) -> str:
    """A number as shown on the page ("∞" for an infinite ε or moment)."""
    return "∞" if math.isinf(x) else f"{x:.{digits}f}"


def mixing_law_figure(key: compute.LawKey, eps: float, sens: float, seed: int, as_scale: bool) -> go.Figure:
    """The law of u (or of the scale b = 1/u), memoised by the settings it depends on (ui.memo_figure)."""
    return figs.mixing_law(
        compute.mixing_law(key, eps, sens, seed, as_scale), epsilon=eps, sensitivity=sens, as_scale=as_scale
    )
