"""The Local DP page's pictures of the continuous part (Pan 2023, Sec. 5.3): the 2-D likelihood landscape and the
branch-and-bound that certifies its extremes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures.ldp.palette import (
    MAXC,
    MINC,
    _corners,
    _step,
)
from app.figures.style import figure, line
from app.notation import number


def landscape_2d(grid: pd.DataFrame, b: Any) -> go.Figure:
    """Heatmap of ln Λ(x₁, x₂) for 2-D regression answers with the certified argmax/argmin and x*."""
    g = np.sort(grid["x1"].unique())
    z = grid["log_likelihood"].to_numpy().reshape(len(g), len(g))
    pts = [
        (b.argmax, "argmax (branch-and-bound)", MAXC, "triangle-up"),
        (b.argmin, "argmin (branch-and-bound)", MINC, "triangle-down"),
        (b.x_star, "x* (answers drawn here)", "black", "x"),
    ]
    traces = [
        {
            "type": "heatmap",
            "x": g,
            "y": g,
            "z": z,
            "colorscale": "Viridis",
            "colorbar": {"title": {"text": "ln Λ"}},
            "name": "ln Λ",
        }
    ]
    traces += [
        {
            "type": "scatter",
            "mode": "markers",
            "x": [p[0]],
            "y": [p[1]],
            "name": name,
            "marker": {"color": c, "size": 14, "symbol": sym, "line": {"color": "white", "width": 1.5}},
        }
        for p, name, c, sym in pts
    ]
    return figure(
        traces,
        title=f"ln Λ over the box [−1, 1]² for {b.k} {b.kind} regression answers",
        x="x₁",
        y="x₂",
        hovermode="closest",
        height=420,
    )


def bnb_trace(trace: pd.DataFrame, *, loose_gap: float) -> go.Figure:
    """Certified lower and attained upper bounds of both extremes of ln Λ against explored nodes."""
    traces = []
    for search, c in (("min ln Λ", MINC), ("max ln Λ", MAXC)):
        part = trace[trace["search"] == search]
        traces.append(_step(*_corners(part["nodes"], part["upper_bound"]), name=f"{search}: upper bound", color=c))
        traces.append(
            _step(*_corners(part["nodes"], part["lower_bound"]), name=f"{search}: lower bound", color=c, dash="dot")
        )
    return figure(
        traces,
        title=f"Branch-and-bound converges from both sides (a stop at gap {number(loose_gap)} explains App. E)",
        x="pieces of the box explored",
        y="ln Λ bound",
        hovermode="x unified",
    )


def secant(df: pd.DataFrame, *, z_range: tuple[float, float], kind: str = "logistic") -> go.Figure:
    """DC split f = C − V of one regression term and the secant V̂ ≥ V that makes C − V̂ convex and ≤ f."""
    v_name = "V(z) = softplus(z) (convex)" if kind == "logistic" else "V(z), the convex part subtracted"
    traces = [
        line(df["z"], df["f"], name="f(z) = ln Pr[y | z]", color="black"),
        line(df["z"], df["V"], name=v_name, color=MAXC),
        line(df["z"], df["V_secant"], name="secant V̂ ≥ V", color=MAXC, dash="dash"),
        line(df["z"], df["relaxed"], name="relaxation C − V̂ ≤ f (convex)", color=MINC, dash="dot"),
    ]
    return figure(
        traces,
        title=f"Secant relaxation of one term on z ∈ [{z_range[0]:.2f}, {z_range[1]:.2f}]",
        x="score z = θ·x̃" if kind == "logistic" else "z = Pr[y | x] before clipping (affine in x)",
        y="value",
    )
