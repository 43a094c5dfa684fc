"""Figures of the "Gaussian & Laplace" page. Each builder takes the frame from ``app.compute`` and returns a Figure."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from app.figures.style import COLORS, LABELS, figure, line, privacy_profile, value_note, vband, vline
from app.notation import number

MECHS = ("gaussian", "laplace")


def densities(df: pd.DataFrame, *, theta: float) -> go.Figure:
    """Noise densities with the accuracy band |noise| ≤ θ shaded."""
    # every second point of the grid: still more than a chart's width in pixels can show, half the points to send and
    # draw at each stop of an in-figure slider; the middle point (the Laplace density's peak at 0) is kept
    df = df.iloc[:: 2 if len(df) % 2 else 1]
    traces = [line(df["x"], df[m], name=LABELS[m], color=COLORS[m]) for m in MECHS]
    return figure(
        traces,
        title="Noise density at the calibrated scale",
        x="noise added to the true answer",
        y="probability density",
        marks=[vband(-theta, theta, f"|noise| ≤ θ = {number(theta)}")],
    )


def accuracy(df: pd.DataFrame, *, epsilon: float, theta: float) -> go.Figure:
    """P(|noise| ≤ θ) against ε (log axis) with the slider's ε marked."""
    traces = [line(df["epsilon"], df[m], name=LABELS[m], color=COLORS[m]) for m in MECHS]
    return figure(
        traces,
        title=f"Chance the noise stays within ±{number(theta)}",
        x="ε (log scale; right = less private)",
        y="P(|noise| ≤ θ)",
        log_x=True,
        y_range=(0, 1.02),
        marks=[vline(epsilon, f"ε = {number(epsilon)}")],
    )


def profiles(df: pd.DataFrame, *, epsilon: float, delta: float) -> go.Figure:
    """Privacy profiles δ(ε′) on a log axis, with the calibration target (ε, δ) marked."""
    # δ = 0 cannot be drawn on a log axis; the line simply stops there
    traces = [line(df["epsilon"], df[m].where(df[m] > 0), name=LABELS[m], color=COLORS[m]) for m in MECHS]
    return privacy_profile(
        traces,
        epsilon=epsilon,
        delta=delta,
        title="Privacy profile δ(ε′): every (ε′, δ) guarantee the mechanism gives at once",
    )


def composition(df: pd.DataFrame, *, compositions: int, delta: float) -> go.Figure:
    """ε after T releases at fixed δ: Gaussian and Laplace exact, and naive T·ε for reference."""
    names = {"gaussian": "Gaussian (exact)", "laplace": "Laplace (PLD)", "reference": "basic composition T·ε"}
    traces = []
    for m in ("gaussian", "laplace", "reference"):
        part = df[df["mechanism"] == m]
        traces.append(
            line(part["T"], part["epsilon"], name=names[m], color=COLORS[m], dash="dot" if m == "reference" else None)
        )
    return figure(
        traces,
        title=f"Total ε after T releases (reported at δ = {number(delta)})",
        x="T (log scale)",
        y="total ε",
        log_x=True,
        log_y=True,
        marks=[vline(compositions, f"T = {compositions}", position="top")],
    )


def histogram(df: pd.DataFrame, *, total: int | None = None) -> go.Figure:
    """Sampled noise as a histogram (bars) over the exact density (lines); ``total`` draws per mechanism, of which
    those beyond the plotted range are counted in the title (so the title and the table agree)."""
    traces = []
    for m in MECHS:
        part = df[df["mechanism"] == m]
        centers = (part["bin_left"] + part["bin_right"]) / 2
        traces.append(
            {
                "type": "bar",
                "x": centers,
                "y": part["empirical_density"],
                "width": part["bin_right"] - part["bin_left"],
                "name": f"{LABELS[m]} samples",
                "marker": {"color": COLORS[m]},
                "opacity": 0.35,
            }
        )
        traces.append(line(centers, part["density"], name=f"{LABELS[m]} density", color=COLORS[m], width=2))
    drawn = {m: int(df.loc[df["mechanism"] == m, "count"].sum()) for m in MECHS}
    n = total if total is not None else drawn[MECHS[0]]
    title = "sampled outputs against the density"
    if n:
        title = f"{n:,} {title}".replace(",", " ")
    outside = {LABELS[m]: n - k for m, k in drawn.items() if n - k > 0}
    if outside:
        title += "<br>(beyond the plotted range: " + ", ".join(f"{k} {name}" for name, k in outside.items()) + ")"
    return figure(traces, title=title, x="noise", y="density", barmode="overlay", bargap=0)


__all__ = ["densities", "accuracy", "profiles", "composition", "histogram"]


def belief(df: pd.DataFrame, *, epsilon: float) -> go.Figure:
    """What ε promises: the band within which one answer can move an observer's belief, for every prior belief."""
    traces = [
        line(df["prior"], df["lowest"], name="lowest after", color=COLORS["gaussian"]),
        line(
            df["prior"],
            df["highest"],
            name="highest after",
            color=COLORS["laplace"],
            fill="tonexty",
            fillcolor="rgba(213, 94, 0, 0.15)",
        ),
        line(df["prior"], df["prior"], name="no change (ε = 0)", color=COLORS["reference"], dash="dot", width=1.5),
    ]
    return figure(
        traces,
        title="One answer moves a belief only inside the band",
        notes=[value_note(f"at ε = {number(epsilon)}")],
        x="belief before the answer (that Alice is in the data)",
        y="belief after the answer",
        y_range=(0, 1.0),
        xaxis={
            "title": {"text": "belief before the answer (that Alice is in the data)"},
            "range": [0, 1],
            "tickformat": ".0%",
        },
        yaxis={"title": {"text": "after the answer"}, "range": [0, 1.0], "tickformat": ".0%"},
    )
