"""The SVT charts' shared look (Liu, Wang, Liu, Li and Chen 2024): one colour and label per noise family and Table-3
method, the figure helper and the legend placed under a plot."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from app.figures import style
from app.figures.style import COLORS, line

#: One colour per noise family / Table-3 method (Okabe–Ito), shared by every SVT chart.
NOISE_COLORS = {
    "exponential": "#009E73",
    "laplace": COLORS["laplace"],
    "gumbel": "#E69F00",
    "gaussian": COLORS["gaussian"],
}
NOISE_LABELS = {
    "exponential": "Exponential",
    "laplace": "Laplace",
    "gumbel": "Gumbel",
    "gaussian": "Gaussian",
}
METHOD_COLORS = {
    "SVT-Exp (optimal)": "#009E73",
    "SVT-Exp + r^op": "#009E73",
    "SVT-Exp (mean)": "#56B4E9",
    "SVT-Exp, r = mean": "#56B4E9",
    "SVT-Exp (no)": "#CC79A7",
    "SVT-Exp, r = 0": "#CC79A7",
    "SVT-Gumbel": "#E69F00",
    "SVT-Gumbel + mean": "#E69F00",
    "SVT-Lap": COLORS["laplace"],
    "SVT-Gau": COLORS["gaussian"],
    "SVT-Exp upper bound": "#000000",
}
_GREY = COLORS["reference"]


def _numpy(trace: dict) -> dict:
    """The trace with every pandas Series as a numpy array: Plotly validates a Series through narwhals, far slower,
    on every rerun (bench/results-where-time-goes.md)."""
    return {
        k: v.to_numpy() if isinstance(v, pd.Series | pd.Index) else _numpy(v) if isinstance(v, dict) else v
        for k, v in trace.items()
    }


def figure(traces: list[dict], **kw) -> go.Figure:
    """:func:`app.figures.style.figure` with the traces' data as numpy arrays (its axes make room for their titles
    and tick labels, which side-by-side charts need)."""
    return style.figure([_numpy(t) for t in traces], **kw)


def noise_lines(
    df: pd.DataFrame,
    x: str,
    y: str,
    *,
    names: Mapping[str, str] = NOISE_LABELS,
    width: float = 2.5,
    exponential: Mapping[str, Any] | None = None,
) -> list[dict]:
    """One line per noise family of a long frame (column ``noise``), in the family's colour and in the frame's order;
    ``exponential``: line options that single out the exponential noise, the paper's."""
    traces = []
    for n, p in df.groupby("noise", sort=False):
        options: dict[str, Any] = {"width": width, **((exponential or {}) if n == "exponential" else {})}
        traces.append(line(p[x], p[y], name=names[n], color=NOISE_COLORS[n], **options))
    return traces


#: What the learner reads for each quality measure of the top-c experiment.
METRIC_LABELS = {"ncr": "rank score (NCR)", "f1": "F1", "precision": "precision", "recall": "recall"}
#: Legend under the plot, for charts with many curves or narrow columns (a top legend would cover the title).
_BELOW = {
    "legend": {"orientation": "h", "yanchor": "top", "y": -0.25, "x": 0.0},
    "margin": {"l": 60, "r": 20, "t": 40, "b": 130},
}
