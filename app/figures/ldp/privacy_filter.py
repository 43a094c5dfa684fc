"""The Local DP page's pictures of the filter (Pan 2023): what the answers revealed against what basic composition
charges, the filter's timeline and the queries it accepts, and how many it answers."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures.ldp.palette import (
    BASIC,
    BAYES,
    BUDGET,
    GOOD,
    SIMPLE,
    _col,
    _loss_axis,
    _step,
)
from app.figures.style import figure, hline, line, vline
from app.notation import number


def idea(df: pd.DataFrame, *, budget: float | None, ratio: bool) -> go.Figure:
    """What k answers actually revealed (ℓ after each answer) against what basic composition charges (j·ε); the
    budget ε_G as a dashed line (none when ``budget`` is None: the first course has no budget yet)."""
    traces = [
        _step(
            np.r_[0, df["answers"]],
            np.r_[1.0 if ratio else 0.0, df[_col("basic", ratio)]],
            name="charged by adding up ε (basic composition)",
            color=BASIC,
            dash="dot",
        ),
        _step(
            np.r_[0, df["answers"]],
            np.r_[1.0 if ratio else 0.0, df[_col("realized", ratio)]],
            name="actually revealed: realized loss ℓ",
            color=BAYES,
        ),
    ]
    marks = []
    if budget is not None:
        b = math.exp(budget) if ratio and budget < 700 else budget
        # named at its left end: the lines reach the budget on the right, where the name sat over them
        marks.append(hline(b, "budget ε_G", color=BUDGET, dash="dash", side="left"))
    return figure(
        traces,
        title="The answers usually reveal far less than the worst case charges",
        x="answers given",
        y=f"privacy loss, {'e^ℓ (log axis)' if ratio else 'ℓ (ε units)'}",
        marks=marks,
        hovermode="x unified",
        height=360,
        **_loss_axis(ratio),
    )


def timeline(df: pd.DataFrame, s: Any, *, ratio: bool) -> go.Figure:
    """Odometer (step), look-ahead W_k (dots), budget ε_G, basic composition Σε; rejection markers."""
    acc = df["accepted"]
    steps = np.r_[0, df["step"]]
    loss = np.r_[1.0 if ratio else 0.0, df[_col("loss", ratio)]]
    basic = np.r_[1.0 if ratio else 0.0, df[_col("basic_spent", ratio)].where(df["basic_accepted"])]
    traces = [
        _step(steps, loss, name="Bayesian odometer ℓ(r)", color=BAYES),
        _step(steps, basic, name="basic composition Σε (while it accepts)", color=BASIC, dash="dot"),
        {
            "type": "scatter",
            "mode": "markers",
            "x": df.loc[acc, "step"],
            "y": df.loc[acc, _col("worst_case", ratio)],
            "name": "look-ahead max_y ℓ(r + (q, y)): accepted",
            "marker": {"color": GOOD, "size": 9},
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": df.loc[~acc, "step"],
            "y": df.loc[~acc, _col("worst_case", ratio)],
            "name": "look-ahead: rejected (query not run)",
            "marker": {"color": BUDGET, "size": 10, "symbol": "x"},
        },
    ]
    # named at its left end: refusals (× on the budget line) come late, on the right, where the name sat under them
    marks = [hline(float(df[_col("budget", ratio)].iloc[0]), "budget ε_G", color=BUDGET, dash="dash", side="left")]
    if s.basic_stop is not None:
        marks.append(vline(s.basic_stop - 0.5, "basic composition stops", position="top"))
    if s.first_rejection is not None:
        marks.append(vline(s.first_rejection - 0.5, "first Bayesian rejection"))
    return figure(
        traces,
        title="Filter timeline: the look-ahead decides, the odometer may go down",
        x="query number",
        y=f"privacy loss, {'e^ℓ (log axis)' if ratio else 'ℓ'}",
        marks=marks,
        hovermode="closest",
        height=440,
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        **_loss_axis(ratio),
    )


def accepted_hist(df: pd.DataFrame, *, basic: int) -> go.Figure:
    """Accepted counts over the simulated runs (BPF, Simplified) with basic composition's count."""
    names = {"bayesian": ("Bayesian filter", BAYES), "simplified": ("Simplified filter", SIMPLE)}
    traces = []
    for m, (name, c) in names.items():
        part = df[df["method"] == m]
        traces.append({"type": "bar", "x": part["accepted"], "y": part["runs"], "name": name, "marker": {"color": c}})
    return figure(
        traces,
        title="How many queries get answered? (greedy analyst, seeded runs)",
        x="answered queries",
        y="runs",
        barmode="group",
        marks=[vline(basic, f"basic composition: {basic}", position="top")],
        hovermode="closest",
    )


def rr_curve(df: pd.DataFrame, *, budget: float) -> go.Figure:
    """E[#accepted] on a binary RR stream vs ε_G (closed form) with Monte Carlo means ± 2 SE."""
    mc = df.dropna(subset=["mc_mean"])
    traces = [line(df["budget"], df["closed_form"], name="Bayesian filter, closed form", color=BAYES)]
    if len(mc):  # Monte-Carlo points only when the page's "simulate" toggle is on
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": mc["budget"],
                "y": mc["mc_mean"],
                "name": "Monte Carlo mean ± 2 SE",
                "error_y": {"type": "data", "array": 2 * mc["mc_se"], "visible": True},
                "marker": {"color": "black", "size": 8},
            }
        )
    traces.append(_step(df["budget"], df["basic"], name="basic composition ⌊ε_G/ε⌋", color=BASIC, dash="dot"))
    lo, hi = float(df["budget"].min()), float(df["budget"].max())
    marks = [vline(budget, f"ε_G = {number(budget)}", position="top")] if lo <= budget <= hi else []
    return figure(
        traces,
        title="Expected answered queries for a binary randomized-response stream",
        x="budget ε_G",
        y="expected answered queries",
        marks=marks,
    )


def regions(df: pd.DataFrame, *, remaining: float) -> go.Figure:
    """Which candidate queries (slope, ε_q) each rule accepts from the current state (a category map)."""
    order = ("both reject", "only the full filter", "both accept")
    colors = ("#DDDDDD", BAYES, GOOD)
    piv = df.assign(code=df["region"].map({r: i for i, r in enumerate(order)})).pivot(
        index="epsilon", columns="slope", values="code"
    )
    wc = df.pivot(index="epsilon", columns="slope", values="worst_case")
    scale = [[b, c] for i, c in enumerate(colors) for b in (i / 3, (i + 1) / 3)]
    traces = [
        {
            "type": "heatmap",
            "x": piv.columns,
            "y": piv.index,
            "z": piv.to_numpy(),
            "zmin": -0.5,
            "zmax": 2.5,
            "colorscale": scale,
            "customdata": wc.to_numpy(),
            "xgap": 1,
            "ygap": 1,
            "colorbar": {"tickvals": [0, 1, 2], "ticktext": list(order), "title": {"text": ""}},
            "hovertemplate": "slope %{x:.2f}, ε_q %{y:.3g}<br>look-ahead ℓ %{customdata:.4g}<extra></extra>",
        }
    ]
    shown = float(df["epsilon"].min()) <= remaining <= float(df["epsilon"].max())
    marks = (
        [hline(remaining, "Simplified boundary ε_q = ε_G − ℓ(r)", color=BUDGET, dash="dash", side="right")]
        if shown
        else []
    )
    return figure(
        traces,
        title="Acceptance regions: Simplified (ℓ + ε_q ≤ ε_G) vs full look-ahead",
        x="slope of the candidate query v(x) = slope · x/(|D|−1) (0: it says nothing)",
        y="declared ε_q of the candidate (log axis)",
        log_y=True,
        marks=marks,
        hovermode="closest",
        height=420,
    )
