"""The Local DP page's pictures of the paper's own results (Pan 2023): Example 2, the evaluation of Sec. 6
(Figs. 1–2) and the healthcare case study."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures.ldp.palette import (
    BASIC,
    BAYES,
    BUDGET,
    LIKE,
    _step,
)
from app.figures.style import figure, hline, line
from app.notation import number

#: One series of a chart: its x, its y, its legend name and its colour.
Series = tuple[Any, Any, str, str]


def _against_paper(computed: Series, printed: Series, *, size: int) -> list[dict]:
    """What the app computes, as bars, and the values the paper prints, as diamonds of ``size`` over them."""
    (x, y, name, color), (px, py, paper_name, paper_color) = computed, printed
    return [
        {"type": "bar", "x": x, "y": y, "name": name, "marker": {"color": color}},
        {
            "type": "scatter",
            "mode": "markers",
            "x": px,
            "y": py,
            "name": paper_name,
            "marker": {"color": paper_color, "size": size, "symbol": "diamond"},
        },
    ]


def example2(df: pd.DataFrame) -> go.Figure:
    """Example 2: Λ(x) of outputs (1, 0, 1) with the values the paper prints (x = 2 misprinted)."""
    printed = df.dropna(subset=["paper"])
    traces = _against_paper(
        (df["x"], df["likelihood"], "Λ(x) from the queries of Eq. 11", LIKE),
        (printed["x"], printed["paper"], "paper's table", "black"),
        size=11,
    )
    return figure(
        traces,
        title="Example 2: Λ(x) for outputs (1, 0, 1); max/min = 0.144/0.096 = 1.5",
        x="x",
        y="Λ(x)",
        hovermode="closest",
    )


def evaluation(bands: pd.DataFrame, *, paper: float, title: str) -> go.Figure:
    """Fig. 1(b)/(d): 10th–90th percentile band and median of accepted counts against ε_G, basic composition."""
    x = bands["budget"]
    traces = [
        line(x, bands["p90"], name="90th percentile", color=BAYES, width=0.5),
        line(
            x,
            bands["p10"],
            name="10th–90th percentile",
            color=BAYES,
            width=0.5,
            fill="tonexty",
            fillcolor="rgba(0,114,178,0.2)",
        ),
        line(x, bands["median"], name="median (reproduced)", color=BAYES),
        line(x, bands["basic"], name="basic composition", color=BASIC, dash="dot"),
        {
            "type": "scatter",
            "mode": "markers",
            "x": [10],
            "y": [paper],
            "name": "paper's median at ε_G = 10",
            "marker": {"color": BUDGET, "size": 13, "symbol": "star"},
        },
    ]
    return figure(traces, title=title, x="budget ε_G", y="answered queries")


def loss_paths(df: pd.DataFrame, *, budget: float, title: str) -> go.Figure:
    """Fig. 1(a)/(c): the filter's odometer against the number of answered regressions, one line per run, next to
    basic composition's k·ε."""
    traces = []
    for i, (_run, part) in enumerate(df.groupby("run")):
        tr = _step(
            np.r_[0, part["accepted"]],
            np.r_[0.0, part["loss"]],
            name="realized loss, one run per line",
            color=BAYES,
            width=1.2,
        )
        tr["showlegend"] = i == 0
        tr["legendgroup"] = "runs"
        tr["opacity"] = 0.7
        traces.append(tr)
    top = int(df["accepted"].max()) if len(df) else 1
    eps = float(df["basic"].iloc[0]) if len(df) else 1.0
    traces.append(line([0, top], [0.0, top * eps], name="basic composition k·ε", color=BASIC, dash="dot"))
    return figure(
        traces,
        title=title,
        x="answered queries k",
        y="privacy loss ℓ (ε units)",
        marks=[hline(budget, f"budget ε_G = {number(budget)}", color=BUDGET, dash="dash", side="right")],
        y_range=(0, budget * 1.15),
        hovermode="closest",
    )


def healthcare(df: pd.DataFrame, s: Any) -> go.Figure:
    """App. E: the 16 output patterns sorted by exact loss, paper's values as markers, medians and the budget 4."""
    d = df.sort_values("certified")
    traces = _against_paper(
        (d["pattern"], d["certified"], "exact (certified B&B)", BAYES),
        (d["pattern"], d["paper"], "paper (App. E)", BUDGET),
        size=10,
    )
    marks = [
        hline(s.exact_median, f"exact median {s.exact_median:.4f}", color=BAYES, dash="dot", side="right"),
        hline(4.0, "budget ε_G = 4", color=BUDGET, dash="dash", side="right"),
    ]
    return figure(
        traces,
        title="Healthcare example: realized loss of the 16 answer patterns",
        x="heart·stroke·diabetes / sleep",
        y="ℓ (ε units)",
        marks=marks,
        hovermode="closest",
    )
