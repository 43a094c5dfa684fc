"""Figures of the "Negotiate a budget" page: ε per mechanism (dots on a log axis) and accuracy against ε."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures.style import COLORS, figure, hline, line, vline

#: Colour of each negotiate row (the app's mechanism colours; the extra rows get distinct Okabe–Ito shades).
ROW_COLORS = {
    "laplace": COLORS["laplace"],
    "gaussian": COLORS["gaussian"],
    "brdp": COLORS["brdp"],
    "brdp_paper": COLORS["brdp_paper"],
    "r2dp": COLORS["r2dp"],
    "r2dp_two_point": "#B07A00",
    "staircase": COLORS["staircase"],
    "noise_reduction": "#000000",
    "svt_exp": "#C9B400",
    "svt_laplace": "#8C7B00",
}


def epsilon_dots(df: pd.DataFrame, *, title: str, stated: Callable[[float], str] | None = None) -> go.Figure:
    """Smallest ε of each applicable mechanism as a dot on a log axis (open: falls short of the confidence;
    ×: not reachable, drawn at the right edge). ``stated`` writes a dot's label as the page states ε (rounded up);
    the hover gives the unrounded value too."""
    rows = df[df["applicable"]]
    finite = rows[np.isfinite(rows["epsilon"].astype(float))]
    top = float(finite["epsilon"].max()) if len(finite) else 1.0
    right = top * 3.0
    traces = []
    for _, r in rows.iterrows():
        eps = float(r["epsilon"])
        reach = math.isfinite(eps)
        x = eps if reach else right
        text = (stated(eps) if stated else f"{eps:.4g}") if reach else "not reachable"
        exact = f" (smallest {eps:.4g})" if reach and stated else ""
        if r["mechanism"] == "brdp_paper" and not r["sound"]:
            text += " ⚠ unsound"
        elif reach and not r["meets"]:
            text += f" (right {100 * float(r['accuracy']):.0f} % of the time)"
        traces.append({
            "type": "scatter", "mode": "markers+text", "x": [x], "y": [r["label"]], "name": r["label"],
            "text": [text], "textposition": "middle right", "showlegend": False, "cliponaxis": False,
            "marker": {"color": ROW_COLORS[r["mechanism"]], "size": 14,
                       "symbol": ("circle" if r["meets"] else "circle-open") if reach else "x-open",
                       "line": {"width": 2, "color": "#C00000" if not r["sound"] else "white"}},
            "hovertemplate": f"{r['label']}<br>ε = {text}{exact}<extra></extra>",
        })
    n = max(len(rows), 1)
    return figure(traces, title=title, x="smallest ε (log scale; left = more private)", y="", log_x=True,
                  height=90 + 42 * n, hovermode="closest",
                  yaxis={"autorange": "reversed", "title": {"text": ""}, "automargin": True},
                  margin={"l": 20, "r": 90, "t": 50, "b": 50})


def accuracy_curves(df: pd.DataFrame, *, epsilon: float, confidence: float, y_title: str) -> go.Figure:
    """Accuracy of each mechanism against ε (log axis), with the slider's ε and the required confidence marked."""
    traces = []
    for mech, part in df.groupby("mechanism", sort=False):
        dash = "dash" if mech == "brdp_paper" else None
        traces.append(line(part["epsilon"], part["accuracy"], name=part["label"].iloc[0], color=ROW_COLORS[mech],
                           dash=dash, width=2.5 if mech != "r2dp_two_point" else 2.0))
    marks = [vline(epsilon, f"ε = {epsilon:g}", position="top"),
             hline(confidence, f"required {confidence:g}", side="right")]  # the ε label sits top left
    return figure(traces, title="What each mechanism delivers at each ε", x="ε (log scale; right = less private)",
                  y=y_title, log_x=True, y_range=(0, 1.02), marks=marks, height=460,
                  margin={"l": 60, "r": 20, "t": 60, "b": 50})


__all__ = ["ROW_COLORS", "epsilon_dots", "accuracy_curves"]
