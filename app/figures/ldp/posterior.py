"""The Local DP page's pictures of beliefs (Pan 2023): the posterior after the answers, the gain on a statement
(Lemma 1), the loss of every answer pattern and the likelihood landscape."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import sequential

from app.figures.ldp.palette import (
    BASIC,
    BAYES,
    BUDGET,
    LIKE,
    MAXC,
    MINC,
    PRIOR,
    _col,
    _loss_axis,
)
from app.figures.style import MARGIN, figure, hline, line, vline
from app.notation import number

_BLUES = np.array([[int(v) for v in c[4:-1].split(",")] for c in sequential.Blues], dtype=float)  # light → dark


def beliefs(df: pd.DataFrame) -> go.Figure:
    """Prior (grey), likelihood Λ(x) rescaled (orange), posterior (blue) over the domain."""
    traces = [
        {"type": "bar", "x": df["x"], "y": df["prior"], "name": "prior b(x)", "marker": {"color": PRIOR}},
        {
            "type": "bar",
            "x": df["x"],
            "y": df["posterior"],
            "name": "posterior b(x | y)",
            "marker": {"color": BAYES},
        },
        line(
            df["x"],
            df["likelihood_scaled"],
            name="likelihood Λ(x) (rescaled)",
            color=LIKE,
            dash="dot",
            mode="lines+markers",
        ),
    ]
    return figure(
        traces,
        title="Belief before and after the outputs (Bayes' rule, Eq. 2)",
        x="value x of the object",
        y="probability",
        barmode="group",
    )


def statement_band(bands: pd.DataFrame, *, ratio: bool, text: str) -> go.Figure:
    """The gain of one statement and the Lemma 3.2 worst case inside the realized and the LDP bands."""
    lo, hi = bands[_col("low", ratio)].to_numpy(), bands[_col("high", ratio)].to_numpy()
    names = [*bands["item"][:2], f"gain of “{text}”", "Lemma 3.2 construction"]
    bands_ = (0, 1)  # the two bands: one bar trace (fewer traces: each costs the browser a redraw pass)
    points = ((2, LIKE, "diamond"), (3, MAXC, "x"))  # the two gains: one marker trace
    traces: list[dict] = [
        {
            "type": "bar",
            "orientation": "h",
            "y": [names[i] for i in bands_],
            "x": [hi[i] - lo[i] for i in bands_],
            "base": [lo[i] for i in bands_],
            "marker": {"color": [BASIC, BAYES]},
            "opacity": 0.45,
            "customdata": [[number(lo[i], 4), number(hi[i], 4)] for i in bands_],
            "hovertemplate": "%{customdata[0]} … %{customdata[1]}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "y": [names[i] for i, _, _ in points],
            "x": [lo[i] for i, _, _ in points],
            "marker": {"color": [c for _, c, _ in points], "size": 14, "symbol": [m for _, _, m in points]},
            "customdata": [number(lo[i], 4) for i, _, _ in points],
            "hovertemplate": "%{y}: %{customdata}<extra></extra>",
        },
    ]
    x_title = "gain b(φ|y)/b(φ) (log axis)" if ratio else "ln of the gain (ε units)"
    return figure(
        traces,
        title="Knowledge gain b(φ|y)/b(φ) against its bands",
        x=x_title,
        y="",
        showlegend=False,
        hovermode="closest",
        height=300,
        margin=MARGIN | {"b": 60},  # no legend below it: room for the axis title only
        xaxis={"title": {"text": x_title}, **({"type": "log"} if ratio else {})},
    )


def lemma_curve(df: pd.DataFrame, *, ratio: bool, weight: float) -> go.Figure:
    """Gain of the Lemma 3.2 statement and prior against the prior's weight w, approaching e^ℓ from below."""
    y = "lemma_gain" if ratio else "lemma_log_gain"
    traces = [
        line(df["weight"], df[y], name="Lemma 3.2 gain", color=MAXC),
        line(  # a constant: its two ends draw the same line as every weight
            df["weight"].iloc[[0, -1]].to_numpy(),
            df[_col("bound", ratio)].iloc[[0, -1]].to_numpy(),
            name="realized loss (the supremum)",
            color=BAYES,
            dash="dash",
        ),
    ]
    return figure(
        traces,
        title="The adversarial prior (weight w on the most revealing value) reaches the realized loss as w → 0",
        x="weight w (log scale)",
        y="gain (log axis)" if ratio else "ln gain (ε units)",
        xaxis={"title": {"text": "weight w (log scale)"}, "type": "log", "exponentformat": "power"},
        marks=[vline(weight, f"w = {number(weight)}")],
        **_loss_axis(ratio),
    )


def _blues(values: np.ndarray) -> tuple[list[str], float, float]:
    """Colours of ``values`` on the sequential Blues scale between their min and max, as ``#rrggbb`` strings.

    What Plotly draws for ``marker.color=values, colorscale="Blues"``, computed here: fixed colours redraw much
    faster in the browser than a per-point colour mapping (bench/results-where-time-goes.md)."""
    lo, hi = float(np.min(values)), float(np.max(values))
    t = (values - lo) / (hi - lo) if hi > lo else np.zeros(len(values))
    stops = np.linspace(0.0, 1.0, len(_BLUES))
    rgb = np.column_stack([np.interp(t, stops, _BLUES[:, c]) for c in range(3)]).round().astype(int)
    return [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in rgb], lo, hi  # hex: Plotly validates it faster than rgb()


def output_losses(df: pd.DataFrame, *, ratio: bool) -> go.Figure:
    """ℓ of each output pattern (sorted), coloured by its probability under x*, against Σε."""
    labels = (df["pattern"] if len(df) <= 64 else df["rank"]).to_numpy()
    loss = df[_col("loss", ratio)].to_numpy()
    bound = float(df[_col("basic", ratio)].iloc[0])
    colors, p_lo, p_hi = _blues(df["probability"].to_numpy(dtype=float))
    traces = [
        {
            "type": "bar",
            "x": labels,
            "y": loss,
            "name": "realized loss of the pattern",
            # its colours are the probabilities of the colour bar; a legend entry would show one of them, the palest
            "showlegend": False,
            "customdata": np.column_stack([df["pattern"], [number(v, 3) for v in df["probability"]]]),
            "hovertemplate": "pattern %{customdata[0]}<br>loss %{y:.4g}<br>P(pattern | x*) %{customdata[1]}"
            "<extra></extra>",
            "marker": {"color": colors, "line": {"width": 0}},
        },
        {  # carries the colour bar of the bars' probabilities (one invisible point on the first bar)
            "type": "scatter",
            "mode": "markers",
            "x": labels[:1],
            "y": loss[:1],
            "showlegend": False,
            "hoverinfo": "skip",
            "marker": {
                "color": [p_lo],
                "cmin": p_lo,
                "cmax": p_hi if p_hi > p_lo else p_lo + 1e-12,
                "colorscale": "Blues",
                "showscale": True,
                "opacity": 0,
                "size": 1,
                "colorbar": {"title": {"text": "P(· | x*)"}},
            },
        },
    ]
    return figure(
        traces,
        title="Realized loss of every output pattern vs the LDP bound",
        x="output pattern" if len(df) <= 64 else "output pattern (sorted by loss)",
        y=f"loss, {'e^ℓ' if ratio else 'ℓ'}",
        marks=[hline(bound, "LDP bound Σε", color=BUDGET, dash="dash", side="right")],
        hovermode="closest",
        bargap=0.05 if len(df) > 64 else 0.2,
        **_loss_axis(ratio),
    )


def landscape(df: pd.DataFrame, s: Any, *, ratio: bool) -> go.Figure:
    """ln Λ(x) − min ln Λ over the domain (or Λ/min Λ); the tallest bar is the realized loss ℓ."""
    y = df[_col("log_likelihood_rel", ratio)]
    colors = [MAXC if v in s.argmax else MINC if v in s.argmin else LIKE for v in df["x"]]
    ext = [(list(s.argmax), "argmax Λ", MAXC, "triangle-down"), (list(s.argmin), "argmin Λ", MINC, "triangle-up")]
    traces = [
        {
            "type": "bar",
            "x": df["x"],
            "y": y,
            "name": "Λ(x) / min Λ" if ratio else "ln Λ(x) − min ln Λ",
            "marker": {"color": colors},
        }
    ]
    traces += [
        {
            "type": "scatter",
            "mode": "markers",
            "x": xs,
            "y": y[df["x"].isin(xs)],
            "name": name,
            "marker": {"color": c, "symbol": sym, "size": 14},
        }
        for xs, name, c, sym in ext
    ]
    top = float(y.max())
    return figure(
        traces,
        title="Likelihood landscape: the realized loss is the gap between its extremes",
        x="value x of the object",
        y="Λ(x) / min Λ (log axis)" if ratio else "ln Λ(x) − min ln Λ",
        marks=[hline(top, f"realized loss = {number(top, 4)}", color=BAYES, dash="dot", side="right")],
        **_loss_axis(ratio),
    )
