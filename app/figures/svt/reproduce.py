"""The SVT page's pictures of the paper's own figures (Liu, Wang, Liu, Li and Chen 2024): Figs. 4, 5, 6, 9
and 16."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from app.figures.style import line
from app.figures.svt.palette import _BELOW, NOISE_COLORS, figure, noise_lines
from app.notation import number


def variance_vs_epsilon(df: pd.DataFrame) -> go.Figure:
    """Fig. 4: V* against ε (log–log), four query-noise types, c = 50."""
    traces = noise_lines(df, "epsilon", "V")
    return figure(
        traces,
        title="Fig. 4 · minimal comparison variance V* (c = 50)",
        x="ε (log scale)",
        y="V* (log scale)",
        log_x=True,
        log_y=True,
    )


def fig5_density(df: pd.DataFrame) -> go.Figure:
    """Fig. 5(a): density of Z (ε = 0.1, monotonic, c = 1)."""
    return figure(
        [line(df["z"], df["density"], name="density of Z", color=NOISE_COLORS["exponential"])],
        title="Fig. 5(a) · density of Z = v − ρ",
        x="z",
        y="density",
        height=330,
    )


def fig5_curves(df: pd.DataFrame, *, param: str, title: str) -> go.Figure:
    """Fig. 5(b)–(d): p(r) for several values of one parameter, dashed verticals at each mean θ."""
    palette = ("#009E73", "#56B4E9", "#E69F00", "#CC79A7", "#0072B2", "#D55E00")
    traces, marks = [], []
    for i, (v, p) in enumerate(df.groupby(param, sort=False)):
        color = palette[i % len(palette)]
        traces.append(line(p["r"], p["p"], name=f"{param} = {number(v)}", color=color))
        marks.append(
            (
                {
                    "type": "line",
                    "x0": float(p["theta"].iloc[0]),
                    "x1": float(p["theta"].iloc[0]),
                    "y0": 0,
                    "y1": 1,
                    "yref": "paper",
                    "line": {"color": color, "dash": "dash", "width": 1},
                },
                {"x": 0, "xref": "paper", "y": 0, "yref": "paper", "text": "", "showarrow": False},
            )
        )
    return figure(traces, title=title, x="r", y="p(r)", height=420, marks=marks, **_BELOW)


def fig9(df: pd.DataFrame) -> go.Figure:
    """Fig. 9: p̄(r) of the FFT framework (m = 20 001) against the closed form."""
    traces = [
        line(df["r"], df["analytic"], name="closed form (Eq. 40)", color="black", width=4),
        line(df["r"], df["numeric"], name="FFT framework, m = 20 001", color="#E69F00", dash="dash"),
    ]
    return figure(traces, title="Fig. 9 · numerical vs analytic p(r) (ε = 0.03, k = 10)", x="r", y="p(r)")


def scores(df: pd.DataFrame, info: pd.DataFrame) -> go.Figure:
    """Fig. 6: sorted item scores of the six data sets (log–log) with dashed thresholds."""
    palette = ("#009E73", "#56B4E9", "#E69F00", "#CC79A7", "#0072B2", "#D55E00")
    traces, marks = [], []
    for i, (name, p) in enumerate(df.groupby("data", sort=False)):
        color = palette[i % len(palette)]
        traces.append(line(p["rank"], p["score"], name=name, color=color))
        t = float(info.loc[info["data set"] == name, "threshold τ"].iloc[0])
        marks.append(
            (
                {
                    "type": "line",
                    "x0": 0,
                    "x1": 1,
                    "xref": "paper",
                    "y0": t,
                    "y1": t,
                    "line": {"color": color, "dash": "dash", "width": 1},
                },
                {"x": 0, "xref": "paper", "y": 0, "yref": "paper", "text": "", "showarrow": False},
            )
        )
    return figure(
        traces,
        title="Fig. 6 · item scores, sorted (dashed: thresholds)",
        x="rank (log scale)",
        y="count (log scale)",
        log_x=True,
        log_y=True,
        marks=marks,
    )


def fig16(df: pd.DataFrame) -> go.Figure:
    """Fig. 16: NCR of Algorithm 2 against ε on Binary, one line per α (mean, 95 % CI)."""
    palette = ("#CC79A7", "#56B4E9", "#E69F00", "#009E73", "#0072B2", "#D55E00")
    traces = []
    for i, (a, p) in enumerate(df.groupby("alpha", sort=True)):
        err = {
            "type": "data",
            "symmetric": False,
            "array": p["ncr_hi"] - p["ncr"],
            "arrayminus": p["ncr"] - p["ncr_lo"],
            "thickness": 1,
        }
        traces.append(
            line(
                p["epsilon"],
                p["ncr"],
                name=f"α = {number(a)}",
                color=palette[i % len(palette)],
                width=3.5 if a == 500 else 2,
                mode="lines+markers",
                error_y=err,
            )
        )
    return figure(
        traces,
        title="Fig. 16 · rank score of Algorithm 2 against ε, several α (Binary)",
        x="ε",
        y="rank score (NCR)",
        y_range=(-0.02, 1.05),
        height=440,
        **_BELOW,
    )
