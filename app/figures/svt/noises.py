"""The SVT page's pictures of the noises (Liu, Wang, Liu, Li and Chen 2024): their densities, the split of ε
(Eq. 6) and their privacy loss (Eqs. 4–5)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from app.figures.style import hline, line, vline
from app.figures.svt.palette import _BELOW, _GREY, NOISE_COLORS, NOISE_LABELS, figure, noise_lines
from app.notation import number


def noise_zoo(df: pd.DataFrame, *, selected: str) -> go.Figure:
    """Panel 1: threshold noise (grey) and the four query noises at their calibrated scales (bold: chosen)."""
    traces = []
    for curve, part in df.groupby("curve", sort=False):
        if curve.startswith("threshold"):
            family = curve.rpartition("~")[2].strip()
            traces.append(
                line(
                    part["x"],
                    part["density"],
                    name=f"threshold ρ ~ {NOISE_LABELS.get(family, family)}",
                    color=_GREY,
                    dash="dash",
                )
            )
        else:
            traces.append(
                line(
                    part["x"],
                    part["density"],
                    name=f"query v ~ {NOISE_LABELS[curve]}",
                    color=NOISE_COLORS[curve],
                    width=4 if curve == selected else 1.5,
                )
            )
    return figure(
        traces,
        title="Threshold noise ρ and query noise v at their calibrated scales",
        x="noise value",
        y="probability density",
    )


def budget_split(curves: pd.DataFrame, opt: pd.DataFrame, *, w: float | None = None) -> go.Figure:
    """Panel 2: V(w)·ε² against the split w (log–log) with the optimum w* of each family (Tables 4/6) and a
    line at the hand-picked split ``w``."""
    traces = noise_lines(curves, "w", "V_eps2")
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "x": opt["w_star"],
            "y": opt["V_eps2_star"],
            "name": "w*",
            "marker": {
                "color": [NOISE_COLORS[n] for n in opt["noise"]],
                "size": 11,
                "symbol": "diamond",
                "line": {"color": "black", "width": 1},
            },
        }
    )
    return figure(
        traces,
        title="Comparison variance against the split ε₂ = w·ε₁ (Eq. 6)",
        x="w = ε₂/ε₁ (log scale)",
        y="V·ε² (log scale)",
        log_x=True,
        log_y=True,
        marks=[vline(w, f"your w = {number(w)}", position="top")] if w is not None else [],
    )


def split_bars(opt: pd.DataFrame, *, epsilon: float) -> go.Figure:
    """Panel 2, small: ε₁ (threshold) and ε₂ (queries) at w* for each family."""
    names = [NOISE_LABELS[n] for n in opt["noise"]]
    traces = [
        {
            "type": "bar",
            "x": names,
            "y": opt["epsilon1"],
            "name": "ε₁ (threshold)",
            "marker": {"color": _GREY},
        },
        {
            "type": "bar",
            "x": names,
            "y": opt["epsilon2"],
            "name": "ε₂ (queries)",
            "marker": {"color": [NOISE_COLORS[n] for n in opt["noise"]]},
        },
    ]
    return figure(
        traces,
        title=f"Budget at w* (ε = {number(epsilon)})",
        x="",  # the bars are named; an axis title would sit under the slanted names, where the legend goes
        y="ε",
        barmode="stack",
        hovermode="closest",
        legend={"orientation": "h", "yanchor": "top", "y": -0.32, "x": 0.0},
        margin={"l": 60, "r": 20, "t": 60, "b": 140},
    )


def query_loss(df: pd.DataFrame, *, per_positive: float) -> go.Figure:
    """Panel 3 left: per-positive privacy loss of each query noise with the allowance ε₂/c."""
    traces = noise_lines(df, "x", "loss", width=2, exponential={"width": 3})
    return figure(
        traces,
        title="Query noise: ln S(x − 2Δ) − ln S(x)",
        x="x (noisy threshold − answer)",
        y="privacy loss per positive",
        y_range=(-0.1 * per_positive, 2.5 * per_positive),
        height=430,
        **_BELOW,
        marks=[hline(per_positive, f"ε₂/c = {number(per_positive, 3)}", side="right")],
    )


def threshold_loss(df: pd.DataFrame, *, epsilon1: float) -> go.Figure:
    """Panel 3 right: threshold loss ln f(u − Δ) − ln f(u), within ±ε₁ (Laplace) or unbounded (Gaussian)."""
    names = {
        "laplace": "Laplace",
        "gaussian": "Gaussian (not pure DP)",
        "exponential": "Exponential (beyond the paper)",
    }
    traces = noise_lines(df, "u", "loss", names=names, exponential={"dash": "dot"})
    return figure(
        traces,
        title="Threshold noise: ln f(u − Δ) − ln f(u)",
        x="u (threshold noise value)",
        y="privacy loss",
        y_range=(-2.5 * epsilon1, 2.5 * epsilon1),
        height=430,
        **_BELOW,
        marks=[hline(epsilon1, f"ε₁ = {number(epsilon1, 3)}", side="right"), hline(-epsilon1, "−ε₁", side="right")],
    )
