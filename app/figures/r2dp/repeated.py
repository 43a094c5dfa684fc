"""Repeated releases: the running share within ±γ of seeded releases, and composition with a reused secret draw."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures.r2dp.marks import FAMILY_COLORS, _line, _log_thin
from app.figures.style import COLORS, figure
from app.notation import number


def releases(df: pd.DataFrame, exact: float, *, true_answer: float, gamma: float) -> go.Figure:
    """histogram of released values (left) and the running share within ±γ vs the exact U (right)."""
    lo, hi = np.quantile(df["released"], [0.01, 0.99])
    shown = df["released"][df["released"].between(lo, hi)].to_numpy()
    keep = _log_thin(len(df))  # the running share is drawn on a log axis: ~220 points carry its whole shape
    rel = df["release"].to_numpy()[keep]
    share = df["running_share"].to_numpy()[keep]
    band_hi = share + 2 * df["standard_error"].to_numpy()[keep]
    band_lo = share - 2 * df["standard_error"].to_numpy()[keep]
    traces = [
        {
            "type": "histogram",
            "x": shown,
            "nbinsx": 60,
            "name": "released values (1–99 % range)",
            "marker": {"color": FAMILY_COLORS["this law"]},
            "xaxis": "x",
            "yaxis": "y",
        },
        {
            "type": "scatter",
            "x": np.concatenate([rel, rel[::-1]]),
            "y": np.concatenate([band_hi, band_lo[::-1]]),
            "fill": "toself",
            "fillcolor": "rgba(127,127,127,0.2)",
            "line": {"width": 0},
            "name": "±2 standard errors",
            "xaxis": "x2",
            "yaxis": "y2",
            "hoverinfo": "skip",
        },
        _line(rel, share, name="share within ±γ so far", color=FAMILY_COLORS["two_point"], xaxis="x2", yaxis="y2"),
        _line(
            [1, int(df["release"].iloc[-1])],
            [exact, exact],
            name=f"exact U(γ) = {exact:.4f}",
            color="black",
            width=1.5,
            dash="dot",
            xaxis="x2",
            yaxis="y2",
        ),
    ]
    band = {
        "type": "rect",
        "x0": true_answer - gamma,
        "x1": true_answer + gamma,
        "y0": 0,
        "y1": 1,
        "xref": "x",
        "yref": "paper",
        "fillcolor": COLORS["reference"],
        "opacity": 0.15,
        "line": {"width": 0},
    }
    return figure(
        traces,
        title=f"{len(df)} releases of the true answer q(D) = {number(true_answer)}",
        x="released value",
        y="count",
        height=400,
        hovermode="closest",
        shapes=[band],
        xaxis={"title": {"text": "released value"}, "domain": [0, 0.45]},
        xaxis2={"title": {"text": "release number (log)"}, "domain": [0.55, 1], "type": "log", "anchor": "y2"},
        yaxis2={"title": {"text": "P(|error| ≤ γ)"}, "anchor": "x2", "range": [0, 1.02]},
    )


def reuse(df: pd.DataFrame) -> go.Figure:
    """Composition: total ε of n releases with fresh secret draws (n·ε) and with one reused draw of u."""
    traces = [
        _line(df["queries"], df[column], name=name, color=color, dash=dash, mode="lines+markers")
        for column, name, color, dash in (
            ("fresh draws", "a fresh secret u per release (ε adds up)", COLORS["laplace"], None),
            ("one reused draw", "one secret u reused for all releases (exact)", COLORS["r2dp"], "dash"),
        )
    ]
    return figure(
        traces,
        title="Total privacy loss of n releases",
        x="number of releases n",
        y="total ε",
        height=360,
        hovermode="x unified",
        legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0.0},
        margin={"l": 60, "r": 20, "t": 50, "b": 90},
    )
