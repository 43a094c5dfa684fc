"""Figures of the class poll: the line from the true share of Yes to the share of Yes reports (and back, for the
estimate), and replays of the same class at two values of ε."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from app.figures.style import COLORS, figure, span
from app.notation import number

TRUTH, COIN, ESTIMATE, REPLAY = "#7F7F7F", "#0072B2", "#D55E00", "#009E73"


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def coin_line(
    epsilon: float,
    p: float,
    *,
    observed: float | None = None,
    band: tuple[float, float] | None = None,
    estimate: float | None = None,
    interval: tuple[float, float] | None = None,
) -> go.Figure:
    """The expected share of Yes reports against the true share of Yes: the line ``(1 − p) + (2p − 1)π`` at ε
    (``p`` the probability that a report is the truth), with the diagonal of truthful answers for comparison. With a
    poll's numbers: its observed share (a horizontal line, with the band of its interval) read back on the line to
    the estimate (a vertical line, with the interval)."""
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": [0, 100],
            "y": [0, 100],
            "name": "no coin: every answer true",
            "line": {"color": TRUTH, "width": 2, "dash": "dot"},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": [0, 100],
            "y": [100 * (1 - p), 100 * p],
            "name": f"through the coin at ε = {number(epsilon)}",
            "line": {"color": COIN, "width": 3.5},
            "hovertemplate": "truly Yes %{x:.0f} % → Yes reports %{y:.0f} %<extra></extra>",
        },
    ]
    shapes: list[dict] = []
    notes: list[dict] = []
    if observed is not None and estimate is not None:
        if band is not None:
            shapes.append(span("y", 100 * band[0], 100 * band[1], color=ESTIMATE, opacity=0.12))
        if interval is not None:
            shapes.append(span("x", 100 * interval[0], 100 * interval[1], color=ESTIMATE, opacity=0.12))
        x = 100 * min(1.0, max(0.0, estimate))
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "x": [0, x, x],
                "y": [100 * observed] * 2 + [0],
                "name": "this poll: Yes reports → estimate",
                "line": {"color": ESTIMATE, "width": 2.5},
                "marker": {"size": [0, 12, 0], "color": ESTIMATE},
                "hovertemplate": "%{y:.0f} % Yes reports<extra></extra>",
            }
        )
        notes.append(
            {
                "x": x,
                "y": 100 * observed,
                "text": f"{_pct(observed)} Yes reports → about {_pct(estimate)} truly Yes",
                "showarrow": True,
                "arrowhead": 0,
                "arrowcolor": ESTIMATE,
                "ax": 40 if x < 55 else -40,
                "ay": -36,
                "xanchor": "left" if x < 55 else "right",
                "font": {"color": ESTIMATE},
            }
        )
    marked: dict[str, Any] = {"shapes": shapes, "annotations": notes} if notes else {}  # Plotly drops empty lists
    return figure(
        traces,
        title="What the coin does to the share of Yes, and how the estimate undoes it",
        x="truly Yes (% of the class)",
        y="Yes reports (%)",
        xaxis={"title": {"text": "truly Yes (% of the class)"}, "range": [0, 100], "ticksuffix": " %"},
        yaxis={"title": {"text": "Yes reports (%)"}, "range": [0, 100], "ticksuffix": " %"},
        height=380,
        hovermode="closest",
        **marked,
    )


def replays(frame: pd.DataFrame, *, share: float) -> go.Figure:
    """Histograms of the estimates of many replays of one class (``frame``: columns ``epsilon``, ``estimate`` in
    [0, 1], one row per replay), one colour per ε, with the share the replays start from."""
    traces = []
    # the bins reach every estimate: the unbiased estimate of a small class can land far outside 0–100 %
    low = min(-150.0, 5.0 * math.floor(20.0 * float(frame["estimate"].min())) - 5.0)
    high = max(250.0, 5.0 * math.ceil(20.0 * float(frame["estimate"].max())) + 5.0)
    for color, (eps, part) in zip((COIN, REPLAY), frame.groupby("epsilon", sort=False), strict=False):
        traces.append(
            {
                "type": "histogram",
                "x": (100 * part["estimate"]).round(1).tolist(),
                "name": f"replayed at ε = {number(float(eps))}",
                "opacity": 0.6,
                "marker": {"color": color},
                "xbins": {"start": low, "end": high, "size": 5},
                "histnorm": "percent",
                "hovertemplate": "estimate %{x} %: %{y:.1f} % of replays<extra></extra>",
            }
        )
    line = {
        "type": "line",
        "x0": 100 * share,
        "x1": 100 * share,
        "yref": "paper",
        "y0": 0,
        "y1": 1,
        "line": {"color": TRUTH, "dash": "dot", "width": 2},
    }
    note = {
        "x": 100 * share,
        "y": 1,
        "yref": "paper",
        "yanchor": "bottom",
        "showarrow": False,
        "text": f"the class: {_pct(share)} truly Yes",
        "font": {"color": COLORS["reference"]},
    }
    return figure(
        traces,
        title="Estimates from the same class, answering again and again",
        x="estimated share of Yes (%)",
        y="% of replays",
        barmode="overlay",
        xaxis={"title": {"text": "estimated share of Yes (%)"}, "ticksuffix": " %"},
        shapes=[line],
        annotations=[note],
        height=380,
    )
