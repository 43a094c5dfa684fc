"""Helpers shared by the R²DP view's parts: number formatting and memoised charts."""

from __future__ import annotations

import math
from typing import Any

import plotly.graph_objects as go

from app import ui
from app.compute import r2dp as compute
from app.figures import r2dp as figs

#: How the page names a family in its own words (lower-case where existing links and exercises quote them).
FAMILY_WORDS = {"laplace": "Laplace", "two_point": "two-point", "gamma": "gamma", "uniform": "uniform",
                "truncnorm": "truncated-normal", "combo": "Gamma + truncated normal"}


def fmt(x: float, digits: int = 4) -> str:
    """A number as shown on the page ("∞" for an infinite ε or moment)."""
    return "∞" if math.isinf(x) else f"{x:.{digits}f}"


def _built(data_name: str, data_args: tuple, figure: str, fig_kwargs: tuple) -> tuple[go.Figure, Any]:
    """compute.<data_name>(*data_args) and its figure (remembered by ui.memo_figure, data included: callers only read
    it)."""
    data = getattr(compute, data_name)(*data_args)
    parts = data if isinstance(data, tuple) else (data,)
    return getattr(figs, figure)(*parts, **dict(fig_kwargs)), data


def show(data_name: str, data_args: tuple, *, name: str, alt: str, figure: str | None = None, **fig_kwargs: Any) -> Any:
    """Chart of compute.<data_name> drawn by figs.<figure> (default: same name) with its CSV; returns the data."""
    fig, data = ui.memo_figure(_built, data_name, data_args, figure or data_name, tuple(sorted(fig_kwargs.items())))
    ui.chart(fig, data[0] if isinstance(data, tuple) else data, name=name, alt=alt)
    return data
