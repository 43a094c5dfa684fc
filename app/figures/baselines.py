"""Figures of the "Gaussian & Laplace" page. Each builder takes the frame from ``app.compute`` and returns a Figure."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from app.figures.style import COLORS, LABELS, layout

MECHS = ("gaussian", "laplace")


def densities(df: pd.DataFrame, *, theta: float) -> go.Figure:
    """Noise densities with the accuracy band |noise| ≤ θ shaded."""
    fig = go.Figure()
    fig.add_vrect(x0=-theta, x1=theta, fillcolor=COLORS["reference"], opacity=0.12, line_width=0,
                  annotation_text=f"|noise| ≤ θ = {theta:g}", annotation_position="top left")
    for m in MECHS:
        fig.add_trace(go.Scatter(x=df["x"], y=df[m], name=LABELS[m], line={"color": COLORS[m], "width": 2.5}))
    return layout(fig, title="Noise density at the calibrated scale", x="noise added to the true answer",
                  y="probability density")


def accuracy(df: pd.DataFrame, *, epsilon: float, theta: float) -> go.Figure:
    """P(|noise| ≤ θ) against ε (log axis) with the slider's ε marked."""
    fig = go.Figure()
    for m in MECHS:
        fig.add_trace(go.Scatter(x=df["epsilon"], y=df[m], name=LABELS[m], line={"color": COLORS[m], "width": 2.5}))
    fig.add_vline(x=epsilon, line_dash="dot", line_color=COLORS["reference"],
                  annotation_text=f"ε = {epsilon:g}", annotation_position="bottom right")
    fig.update_yaxes(range=[0, 1.02])
    return layout(fig, title=f"Chance the noise stays within ±{theta:g}", x="ε (log scale; right = less private)",
                  y="P(|noise| ≤ θ)", log_x=True)


def profiles(df: pd.DataFrame, *, epsilon: float, delta: float) -> go.Figure:
    """Privacy profiles δ(ε′) on a log axis, with the calibration target (ε, δ) marked."""
    fig = go.Figure()
    for m in MECHS:
        y = df[m].where(df[m] > 0)  # δ = 0 cannot be drawn on a log axis; the line simply stops
        fig.add_trace(go.Scatter(x=df["epsilon"], y=y, name=LABELS[m], line={"color": COLORS[m], "width": 2.5}))
    fig.add_trace(go.Scatter(x=[epsilon], y=[delta], mode="markers", name="target (ε, δ)",
                             marker={"color": "black", "size": 11, "symbol": "x"}))
    return layout(fig, title="Privacy profile δ(ε′): every (ε′, δ) guarantee the mechanism gives at once",
                  x="ε′", y="δ(ε′) (log scale)", log_y=True)


def composition(df: pd.DataFrame, *, compositions: int, delta: float) -> go.Figure:
    """ε after T releases at fixed δ: Gaussian and Laplace exact, and naive T·ε for reference."""
    fig = go.Figure()
    names = {"gaussian": "Gaussian (exact)", "laplace": "Laplace (PLD)", "reference": "basic composition T·ε"}
    for m in ("gaussian", "laplace", "reference"):
        part = df[df["mechanism"] == m]
        fig.add_trace(go.Scatter(x=part["T"], y=part["epsilon"], name=names[m],
                                 line={"color": COLORS[m], "width": 2.5, "dash": "dot" if m == "reference" else None}))
    fig.add_vline(x=compositions, line_dash="dot", line_color=COLORS["reference"],
                  annotation_text=f"T = {compositions}", annotation_position="top left")
    return layout(fig, title=f"Total ε after T releases (reported at δ = {delta:g})", x="T (log scale)",
                  y="total ε", log_x=True, log_y=True)


def histogram(df: pd.DataFrame) -> go.Figure:
    """Sampled noise as a histogram (bars) over the exact density (lines)."""
    fig = go.Figure()
    for m in MECHS:
        part = df[df["mechanism"] == m]
        centers = (part["bin_left"] + part["bin_right"]) / 2
        fig.add_trace(go.Bar(x=centers, y=part["empirical_density"], width=part["bin_right"] - part["bin_left"],
                             name=f"{LABELS[m]} samples", marker_color=COLORS[m], opacity=0.35))
        fig.add_trace(go.Scatter(x=centers, y=part["density"], name=f"{LABELS[m]} density",
                                 line={"color": COLORS[m], "width": 2}))
    fig.update_layout(barmode="overlay", bargap=0)
    return layout(fig, title="100 000 sampled outputs against the density", x="noise", y="density")
