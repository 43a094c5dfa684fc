"""Figures of the "Negotiate a budget" page: ε per mechanism (dots on a log axis) and accuracy against ε."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures.style import COLORS, figure, hline, line, vline
from app.notation import number

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


#: Tick values within a decade, from the finest set to the coarsest: a log axis takes the finest that gives it at
#: most :data:`_MOST_TICKS` labels.
_TICK_SETS = ((1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8), (1, 1.5, 2, 3, 4, 5, 6, 8), (1, 2, 3, 5), (1, 2, 5), (1,))
#: Labels on the dot chart's axis at most: spaced wide enough on a phone-wide chart to stay level, never rotated.
_MOST_TICKS = 6


def _ticks(lo: float, hi: float) -> dict:
    """Round tick values (0.06 0.08 0.1 0.12, or 3 4 5 6 8 10) on a log axis from 10^lo to 10^hi; none (the shared
    style's powers of ten) over more decades than :data:`_MOST_TICKS`."""
    for steps in _TICK_SETS:
        ticks = [
            m * 10.0**k
            for k in range(math.floor(lo), math.ceil(hi) + 1)
            for m in steps
            if lo <= math.log10(m * 10.0**k) <= hi
        ]
        if 0 < len(ticks) <= _MOST_TICKS:
            return {"tickmode": "array", "tickvals": ticks, "ticktext": [number(t, 3) for t in ticks]}
    return {}


def epsilon_dots(df: pd.DataFrame, *, title: str, stated: Callable[[float], str] | None = None) -> go.Figure:
    """Smallest ε of each applicable mechanism as a dot on a log axis (open: falls short of the confidence;
    ×: not reachable, drawn at the right edge). ``stated`` writes a dot's label as the page states ε (rounded up);
    the hover gives the unrounded value too. Each mechanism is named above its row, not beside the axis, so the
    dots get the chart's whole width (on a phone the names took half of it)."""
    rows = df[df["applicable"]]
    finite = rows[np.isfinite(rows["epsilon"].astype(float))]
    positive = finite["epsilon"][finite["epsilon"] > 0]  # ε = 0 (a δ near 1) has no place on a log axis
    top = float(positive.max()) if len(positive) else 1.0
    right = top * 3.0
    low = float(positive.min()) if len(positive) else top
    middle = math.sqrt(low * (right if len(finite) < len(rows) else top))  # the axis' middle (log scale)
    traces = []
    for _, r in rows.iterrows():
        eps = float(r["epsilon"])
        reach = math.isfinite(eps)
        x = eps if reach else right
        text = (stated(eps) if stated else number(eps, 4)) if reach else "not reachable"
        exact = f" (smallest {number(eps, 4)})" if reach and stated else ""
        if r["mechanism"] == "brdp_paper" and not r["sound"]:
            text += " ⚠ unsound"
        elif reach and not r["meets"]:
            text += f" (right {100 * float(r['accuracy']):.0f} % of the time)"
        traces.append(
            {
                "type": "scatter",
                "mode": "markers+text",
                "x": [x],
                "y": [r["label"]],
                "name": r["label"],
                "text": [text],
                "showlegend": False,
                "cliponaxis": False,
                "textposition": "middle left" if x > middle else "middle right",  # the label stays inside the chart
                "marker": {
                    "color": ROW_COLORS[r["mechanism"]],
                    "size": 14,
                    "symbol": ("circle" if r["meets"] else "circle-open") if reach else "x-open",
                    "line": {"width": 2, "color": "#C00000" if not r["sound"] else "white"},
                },
                "hovertemplate": f"{r['label']}<br>ε = {text}{exact}<extra></extra>",
            }
        )
    # black: a dark page draws it in its light text colour (app.ui's chart stylesheet), as the tick labels
    names = [
        {
            "x": 0,
            "xref": "paper",
            "y": label,
            "yshift": 9,
            "xanchor": "left",
            "yanchor": "bottom",
            "text": label,
            "showarrow": False,
            "font": {"color": "black"},
        }
        for label in rows["label"]
    ]
    n = max(len(rows), 1)
    lo, hi = math.log10(low), math.log10(right if len(finite) < len(rows) else top)
    pad = max(0.06 * (hi - lo), 0.05)
    xaxis = {
        "type": "log",
        "range": [lo - pad, hi + pad],
        "automargin": True,  # the range the ticks are chosen for
        "title": {"text": "smallest ε (log scale; left = more private)"},
        **_ticks(lo - pad, hi + pad),
    }
    return figure(
        traces,
        title=title,
        x=xaxis["title"]["text"],
        y="",
        log_x=True,
        xaxis=xaxis,
        height=100 + 52 * n,
        hovermode="closest",
        annotations=names,
        # first row on top, with room above it for its name
        yaxis={"range": [n - 0.6, -0.9], "showticklabels": False, "title": {"text": ""}},
        margin={"l": 20, "r": 20, "t": 50, "b": 50},
    )


#: Curves that can lie on one another (at θ = Δ Laplace, the staircase and R²DP's best deliver the same accuracy):
#: Laplace wide and solid underneath, the others broken on top of it, so that every one stays in sight.
_CURVE_DASH = {"brdp_paper": "dash", "staircase": "dash", "r2dp": "dot", "r2dp_two_point": "dashdot"}
_CURVE_WIDTH = {"laplace": 5.0, "r2dp_two_point": 2.0}


#: What a marker's label covers, in the accuracy chart's units: its height as a share of the y axis, and its width in
#: decades of the ε axis (about 90 px of a 3.6-decade plot on a laptop).
_LABEL_HEIGHT, _LABEL_DECADES = 0.08, 0.5


def _span(log_x: np.ndarray, y: np.ndarray, a: float, b: float) -> tuple[float, float]:
    """The lowest and highest point of the curve (``y`` over ``log10`` ε, ascending) between ε = a and ε = b."""
    ends = np.interp(np.log10([a, b]), log_x, y)
    between = y[(log_x >= math.log10(a)) & (log_x <= math.log10(b))]
    every = np.concatenate([ends, between])
    return float(every.min()), float(every.max())


def _free_places(df: pd.DataFrame, epsilon: float, confidence: float) -> tuple[str, str, bool]:
    """Where the labels of the ε line and of the required-confidence line cross fewer curves: the ε label at the
    plot's top or its foot (right of the line), the confidence label at the plot's left or right end, and under its
    line when both labels would meet at the top left (a small ε, a high confidence). The curves rise from 0 to 1
    with ε, so a fixed place met them at some settings (at ε = 3 both labels sat on the curves)."""
    lo_x, hi_x = float(df["epsilon"].min()), float(df["epsilon"].max())
    wide = 10.0**_LABEL_DECADES
    crossed = {"top": 0, "bottom": 0, "left": 0, "right": 0}
    for _, part in df.groupby("mechanism", sort=False):
        part = part.sort_values("epsilon")
        x, y = np.log10(part["epsilon"].to_numpy(float)), part["accuracy"].to_numpy(float)
        low, high = _span(x, y, epsilon, epsilon * wide)
        crossed["top"] += high >= 1.0 - _LABEL_HEIGHT
        crossed["bottom"] += low <= _LABEL_HEIGHT
        for end, (a, b) in (("left", (lo_x, lo_x * wide)), ("right", (hi_x / wide, hi_x))):
            low, high = _span(x, y, a, b)
            crossed[end] += low <= confidence + _LABEL_HEIGHT and high >= confidence
    position = "bottom" if crossed["bottom"] < crossed["top"] else "top"
    side = "left" if crossed["left"] <= crossed["right"] else "right"
    below = position == "top" and side == "left" and confidence >= 1 - 2 * _LABEL_HEIGHT and epsilon <= lo_x * wide**2
    return position, side, below


def accuracy_curves(df: pd.DataFrame, *, epsilon: float, confidence: float, y_title: str) -> go.Figure:
    """Accuracy of each mechanism against ε (log axis), with the slider's ε and the required confidence marked."""
    traces = []
    for mech, part in df.groupby("mechanism", sort=False):
        traces.append(
            line(
                part["epsilon"],
                part["accuracy"],
                name=part["label"].iloc[0],
                color=ROW_COLORS[mech],
                dash=_CURVE_DASH.get(mech),
                width=_CURVE_WIDTH.get(mech, 2.5),
            )
        )
    position, side, below = _free_places(df, epsilon, confidence)
    marks = [
        vline(epsilon, f"ε = {number(epsilon)}", position=position),
        hline(confidence, f"required {number(confidence)}", side=side, below=below),
    ]
    return figure(
        traces,
        title="What each mechanism delivers at each ε",
        x="ε (log scale; right = less private)",
        y=y_title,
        log_x=True,
        y_range=(0, 1.02),
        marks=marks,
        height=460,
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
    )


def released_table(df: pd.DataFrame, *, labels: dict[str, str], title: str) -> go.Figure:
    """The true table (black bars' tops as diamonds) beside each mechanism's noisy release (dots) with its error bar
    ±θ: what a published table looks like. ``df``: name, mechanism, true, noisy, within, probability."""
    names = list(dict.fromkeys(df["name"]))
    mechs = list(dict.fromkeys(df["mechanism"]))
    first = df[df["mechanism"] == mechs[0]]
    traces = [
        {
            "type": "scatter",
            "mode": "markers",
            "x": names,
            "y": list(first["true"]),
            "name": "true value",
            "marker": {"symbol": "diamond", "size": 12, "color": "black"},
            "hovertemplate": "%{x}<br>true value %{y:,.6g}<extra></extra>",
        }
    ]
    for m in mechs:
        part = df[df["mechanism"] == m]
        p = float(part["probability"].iloc[0])
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": names,
                "y": list(part["noisy"]),
                "name": f"{labels.get(m, m)}: within ±{number(float(part['within'].iloc[0]), 4)} in {100 * p:.3g} %",
                "marker": {"size": 10, "color": ROW_COLORS.get(m, "#555555")},
                "error_y": {"type": "data", "array": list(part["within"]), "visible": True, "thickness": 1.5},
                "hovertemplate": f"{labels.get(m, m)}<br>%{{x}}: %{{y:,.6g}}<extra></extra>",
            }
        )
    fig = figure(
        traces,
        title=title,
        x="",
        y="value",
        height=440,
        hovermode="closest",
        margin={"l": 60, "r": 20, "t": 60, "b": 60},
    )
    fig.update_layout(scattermode="group", scattergap=0.4)
    return fig


__all__ = ["ROW_COLORS", "epsilon_dots", "accuracy_curves", "released_table"]
