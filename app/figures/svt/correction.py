"""The SVT page's pictures of the correction (Liu, Wang, Liu, Li and Chen 2024): the comparison Z = v − ρ, p(r)
(Eq. 8) against the exact one, r^op (Eq. 9) against k, ε and α, and the (α, β) curves."""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

from app.figures.style import hline, line, vband, vline
from app.figures.svt.palette import _BELOW, METHOD_COLORS, NOISE_COLORS, figure
from app.notation import number


def comparison(df: pd.DataFrame, *, mean: float, r_op: float, r: float, d: float = 0.0) -> go.Figure:
    """Panel 4: density of Z = v − ρ, lines at 0, the mean E[v] and r^op; the shaded tail right of r − d is
    P[yes] for a count at τ + d."""
    marks = [
        vline(0.0, "0"),
        vline(mean, "mean", position="top"),
        vline(r_op, "r^op"),
        vband(r - d, max(float(df["z"].max()), r - d), f"P[yes] for a count at τ + {number(d)} (r = {number(r, 4)})"),
    ]
    fig = figure(
        [line(df["z"], df["density"], name="density of Z = v − ρ", color=NOISE_COLORS["exponential"])],
        title="The noisy comparison: yes iff Z = v − ρ ≥ r − (count − τ)",
        x="z = v − ρ",
        y="density",
        marks=marks,
    )
    fig.layout.xaxis.range = [float(df["z"].min()), float(df["z"].max())]  # the density's support, not the marks'
    return fig


def success(df: pd.DataFrame, *, r_op: float, mean: float, p_floor: float, log_y: bool = False) -> go.Figure:
    """Panel 5: p(r) of Eq. 8 and exact (shared ρ), lines at 0, the mean and r^op, and k^k/(k+1)^{k+1}."""
    traces = [
        line(
            df["r"],
            df["eq8"],
            name="Eq. 8 (paper: fresh ρ per comparison)",
            color=NOISE_COLORS["exponential"],
        ),
        line(df["r"], df["shared"], name="exact (one shared ρ)", color="black", dash="dash"),
    ]
    marks = [
        vline(0.0, "0"),
        vline(mean, "mean", position="top"),
        vline(r_op, "r^op"),
        hline(p_floor, "k^k/(k+1)^(k+1)", side="right"),
    ]
    top = math.log10(max(float(df["eq8"].max()), float(df["shared"].max()), 1e-300))
    return figure(
        traces,
        title="Success probability p(r): k negatives rejected, then a positive accepted",
        x="correction r",
        y="p(r) (log scale)" if log_y else "p(r)",
        log_y=log_y,
        y_range=(top - 6, top + 0.3) if log_y else None,
        marks=marks,
    )


def rop_vs_k(df: pd.DataFrame) -> go.Figure:
    """Panel 6a: r^op against k (log-x), one line per ε, dotted means."""
    traces = []
    for i, (e, p) in enumerate(df.groupby("epsilon", sort=False)):
        color = ("#009E73", "#56B4E9", "#CC79A7")[i % 3]
        traces.append(line(p["k"], p["r_op"], name=f"r^op, ε = {number(e, 3)}", color=color))
        traces.append(
            line(
                p["k"],
                p["theta"],
                name=f"mean 1/λ, ε = {number(e, 3)}",
                color=color,
                dash="dot",
                width=1.5,
                showlegend=False,
            )
        )
    return figure(
        traces,
        title="r^op grows like ln k (dotted: the mean 1/λ)",
        x="k (log scale)",
        y="r",
        log_x=True,
        height=400,
        **_BELOW,
    )


def rop_vs_epsilon(df: pd.DataFrame, *, epsilon: float) -> go.Figure:
    """Panel 6b: r^op·ε and θ·ε against ε — flat lines mean r^op ∝ 1/ε."""
    traces = [
        line(df["epsilon"], df["r_op_eps"], name="r^op·ε", color="#009E73"),
        line(df["epsilon"], df["theta_eps"], name="ε/λ (mean × ε)", color="#56B4E9", dash="dot"),
    ]
    return figure(
        traces,
        title="Scale invariance: r^op·ε",
        x="ε (log scale)",
        y="r·ε",
        log_x=True,
        height=400,
        **_BELOW,
        marks=[vline(epsilon, f"ε = {number(epsilon)}")],
    )


def rop_vs_alpha(df: pd.DataFrame) -> go.Figure:
    """Panel 6c: r^op against α (V-shaped when θ > b)."""
    traces = [
        line(df["alpha"], df["r_op"], name="r^op", color="#009E73"),
        line(df["alpha"], df["theta"], name="mean 1/λ", color="#56B4E9", dash="dot"),
    ]
    return figure(traces, title="r^op against the tolerance α", x="α", y="r", height=400, **_BELOW)


def alpha_beta(df: pd.DataFrame, *, column: str, title: str, alpha: float | None = None) -> go.Figure:
    """Panel 7 / Fig. 3: β against α (log-y) for the Fig. 3 methods."""
    traces = []
    for m, p in df.groupby("method", sort=False):
        dashed = m in ("SVT-Exp, r = 0", "SVT-Exp, r = mean")
        traces.append(
            line(
                p["alpha"],
                p[column],
                name=m,
                color=METHOD_COLORS[m],
                dash="dash" if dashed else None,
                width=3.5 if m == "SVT-Exp + r^op" else 2,
            )
        )
    marks = [vline(alpha, f"α = {number(alpha)}")] if alpha is not None else []
    return figure(
        traces,
        title=title,
        x="α (error tolerance)",
        y="β = 1 − p (log scale)",
        log_y=True,
        y_range=(-4, 0.05),
        marks=marks,
        height=460,
        **_BELOW,
    )
