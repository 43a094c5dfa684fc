"""Figure of the privacy-ledger page: cumulative ε of every accountant over the releases, with the session budget."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from app.figures.style import COLORS, figure, hline
from app.notation import number

#: Accountant → (legend name, colour, dash): the enforcing filter solid black, the comparisons in Okabe–Ito colours.
ACCOUNTANTS: dict[str, tuple[str, str, str | None]] = {  # drawn in this order: basic's dashes over advanced
    "advanced": ("advanced composition", "#CC79A7", None),
    "basic": ("basic composition", COLORS["reference"], "dash"),
    "zcdp": ("zCDP", "#0072B2", None),
    "pld": ("PLD (exact)", "#009E73", None),
    "filter": ("privacy filter", "#6A3D9A", None),
}


def cumulative(df: pd.DataFrame, *, epsilon: float, delta: float) -> go.Figure:
    """ε at the session δ after the first n releases, one line per accountant, and the budget ε as a red line."""
    traces = []
    for name, (label, color, dash) in ACCOUNTANTS.items():
        part = df[df["accountant"] == name]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "x": part["releases"].tolist(),
                "y": part["epsilon"].tolist(),
                "name": label,
                "line": {"color": color, "width": 2.5, "dash": dash},
                "marker": {"size": 7},
            }
        )
    n = int(df["releases"].max()) if len(df) else 0
    return figure(
        traces,
        title=f"Total ε at δ = {number(delta)} after each release",
        x="releases in the ledger",
        y="total ε",
        marks=[hline(epsilon, f"budget ε = {number(epsilon)}", color="#D55E00", dash="solid")],
        xaxis={"title": {"text": "releases in the ledger"}, "dtick": 1, "range": [-0.2, max(n, 1) + 0.2]},
    )
