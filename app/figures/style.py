"""One look for every chart: a colour per mechanism used across the whole app, and a shared layout."""

from __future__ import annotations

import plotly.graph_objects as go

#: Colour of each mechanism, the same on every page (Okabe–Ito palette, readable for colour-blind viewers).
COLORS: dict[str, str] = {
    "gaussian": "#0072B2",
    "laplace": "#D55E00",
    "brdp": "#009E73",
    "brdp_paper": "#CC79A7",
    "r2dp": "#E69F00",
    "staircase": "#56B4E9",
    "svt": "#F0E442",
    "reference": "#7F7F7F",
}

LABELS: dict[str, str] = {
    "gaussian": "Gaussian",
    "laplace": "Laplace",
    "brdp": "BR-DP (exact)",
    "brdp_paper": "BR-DP (paper's accountant)",
    "r2dp": "R²DP",
    "staircase": "Staircase",
    "reference": "reference",
}


def layout(fig: go.Figure, *, title: str, x: str, y: str, log_x: bool = False, log_y: bool = False) -> go.Figure:
    """Apply the shared layout: title, axis titles (with units), legend on top, compact margins."""
    fig.update_layout(
        title={"text": title, "x": 0.0, "xanchor": "left"},
        xaxis_title=x,
        yaxis_title=y,
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0.0},
        margin={"l": 60, "r": 20, "t": 70, "b": 50},
        hovermode="x unified",
        template="plotly_white",
        height=380,
    )
    if log_x:
        fig.update_xaxes(type="log")
    if log_y:
        fig.update_yaxes(type="log", exponentformat="power")
    return fig
