"""The SVT page's pictures of runs (Liu, Wang, Liu, Li and Chen 2024): the opening picture and the live run of
Algorithm 2, APPEND's chance of selection, and the top-c experiments (Figs. 7, 8, 10, 11)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures.style import hline, line, vline
from app.figures.svt.palette import _BELOW, METHOD_COLORS, METRIC_LABELS, figure
from app.notation import number

#: Comparisons drawn in the page's opening picture.
FIRST_LOOK = 60


def first_look(comp: pd.DataFrame, *, threshold: float) -> go.Figure:
    """The page's opening picture: the first :data:`FIRST_LOOK` comparisons of one run, noisy counts (dots) against
    the noisy threshold (line), true counts as bars."""
    return live_run(
        comp,
        step=min(FIRST_LOOK, len(comp)),
        threshold=threshold,
        window=FIRST_LOOK,
        title="Each noisy count against the noisy threshold (log scale)",
    )


def live_run(
    comp: pd.DataFrame,
    *,
    step: int,
    threshold: float,
    window: int = 400,
    title: str = "Live run: each comparison in queue order (log scale)",
) -> go.Figure:
    """Panel 8: the first ``step`` comparisons of one run (the last ``window`` of them): true answers as bars
    (orange: q ≥ T), noisy answers q + v as dots (green: ⊤), the noisy threshold T + ρ + r as a line."""
    shown = comp.iloc[max(0, step - window) : step]
    x = shown["step"].to_numpy()
    ans, noisy = shown["answer"].to_numpy(), shown["noisy_answer"].to_numpy()
    tp, top = shown["true_positive"].to_numpy(), shown["positive"].to_numpy()
    traces = [
        {
            "type": "bar",
            "x": x[tp],
            "y": ans[tp],
            "name": "true count ≥ τ",
            "width": 0.9,
            "marker": {"color": "#E69F00"},
            "opacity": 0.6,
        },
        {
            "type": "bar",
            "x": x[~tp],
            "y": ans[~tp],
            "name": "true count < τ",
            "width": 0.9,
            "marker": {"color": "#BBBBBB"},
            "opacity": 0.6,
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": x[top],
            "y": noisy[top],
            "name": "noisy count: yes",
            "marker": {"color": "#009E73", "size": 10},
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": x[~top],
            "y": noisy[~top],
            "name": "noisy count: no",
            "marker": {"color": "#555555", "size": 5},
        },
        line(
            x,
            shown["noisy_threshold"].to_numpy(),
            name="noisy threshold τ + ρ + r",
            color="#CC79A7",
            width=2,
            line_shape="hv",
        ),
    ]
    if len(shown):
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": [x[-1]],
                "y": [noisy[-1]],
                "name": "current comparison",
                "marker": {"color": "rgba(0,0,0,0)", "size": 18, "line": {"color": "black", "width": 2}},
            }
        )
    # figure() logs y
    marks = [hline(threshold, f"τ = {number(threshold)}", color="black", dash="dash", side="right")]
    # the axis always shows τ (the counts may all lie below it) and stops at 0.5: a noisy count below that would
    # otherwise stretch the axis into ticks like 600μ
    seen = np.concatenate([ans, noisy, shown["noisy_threshold"].to_numpy(), [threshold]]).astype(float)
    seen = seen[np.isfinite(seen) & (seen > 0.5)]
    y_range = (math.log10(max(0.5, float(seen.min()) / 1.5)), math.log10(float(seen.max()) * 1.5))
    passes = shown["pass"].to_numpy()
    starts = np.flatnonzero(np.diff(passes) > 0) + 1
    marks += [vline(float(x[j]) - 0.5, f"pass {int(passes[j])}", position="top") for j in starts]
    return figure(
        traces,
        title=title,
        x="comparison number (queue order)",
        y="count (log scale)",
        log_y=True,
        y_range=y_range,
        bargap=0.05,
        barmode="overlay",
        hovermode="closest",
        height=470,
        **_BELOW,
        marks=marks,
    )


def appending(df: pd.DataFrame, *, traverses: int) -> go.Figure:
    """Panel 9: P[selected within t passes] vs d = q − T, exact (solid), and the paper's t·p (dashed)."""
    palette = ("#009E73", "#56B4E9", "#E69F00", "#CC79A7", "#0072B2")
    traces = []
    for i, (t, p) in enumerate(df.groupby("t", sort=True)):
        color = palette[i % len(palette)]
        width = 3.5 if t == traverses else 2
        traces.append(line(p["d"], p["shared"], name=f"t = {t}: exact", color=color, width=width))
        traces.append(line(p["d"], p["as_printed"], name=f"t = {t}: paper's t·p", color=color, dash="dash", width=1.5))
    return figure(
        traces,
        title="Appending: chance of being selected within t passes",
        x="d = count − τ",
        y="probability",
        y_range=(0, 1.6),
        marks=[hline(1.0, "probability 1", color="black", side="right")],
        height=470,
        **_BELOW,
    )


def experiment(
    df: pd.DataFrame,
    *,
    metric: str,
    x: str = "epsilon",
    epsilon: float | None = None,
    title: str | None = None,
) -> go.Figure:
    """Panel 10 / Figs. 7, 8, 10, 11: a metric with 95 % CIs against ε (log) or traverses, per method."""
    traces = []
    for m, p in df.groupby("method", sort=False):
        err = {
            "type": "data",
            "symmetric": False,
            "array": p[f"{metric}_hi"] - p[metric],
            "arrayminus": p[metric] - p[f"{metric}_lo"],
            "thickness": 1,
        }
        traces.append(
            line(
                p[x],
                p[metric],
                name=m,
                color=METHOD_COLORS[m],
                mode="lines+markers",
                error_y=err,
                dash="dot" if m == "SVT-Exp upper bound" else None,
            )
        )
    marks = [vline(epsilon, f"ε = {number(epsilon)}")] if epsilon is not None else []
    label = METRIC_LABELS[metric]
    return figure(
        traces,
        title=title or f"Top-c selection: {label} (mean, 95 % CI)",
        x="ε (log scale)" if x == "epsilon" else "passes over the queue t",
        y=label,
        log_x=x == "epsilon",
        y_range=(-0.02, 1.05),
        marks=marks,
        height=460,
        **_BELOW,
    )
