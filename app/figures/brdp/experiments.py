"""Subsampled BR-DP and the experiments (Jiang et al. 2024, Sec. 7, Figs. 6–8): sampling trade-off, error boxes."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures.brdp.marks import (
    MECH_COLORS,
    QUERY_COLORS,
    hband,
)
from app.figures.style import COLORS, figure, line, vline
from app.notation import number


def subsampling_noise(df: pd.DataFrame, *, rate: float, query: str) -> go.Figure:
    """Sec. 7 trade-off: sampling error σ_E(p) against the kernel σ_y(p) of the amplified budget (both modes)."""
    paper, corr = df[df["mode"] == "paper"], df[df["mode"] == "corrected"]
    traces = [
        line(paper["rate"], paper["sigma_e"], name=f"sampling error σ_E ({query})", color="#D55E00"),
        line(paper["rate"], paper["sigma_y"], name="kernel σ_y, paper (sensitivity Δ)", color=COLORS["brdp_paper"]),
        line(corr["rate"], corr["sigma_y"], name="kernel σ_y, corrected (sensitivity Δ / p)", color=COLORS["brdp"]),
        line(
            paper["rate"],
            paper["total"],
            name="total √(σ_E² + σ_y²), paper",
            color=COLORS["brdp_paper"],
            dash="dot",
            width=1.8,
        ),
        line(corr["rate"], corr["total"], name="total, corrected", color=COLORS["brdp"], dash="dot", width=1.8),
    ]
    return figure(
        traces,
        title="Sampling noise against perturbation noise",
        x="sampling rate p (log scale)",
        y="standard deviation (log scale)",
        log_x=True,
        log_y=True,
        marks=[vline(rate, f"p = {number(rate)}")],
    )


def subsampling_acceptance(df: pd.DataFrame, *, rate: float, optima: dict[str, float]) -> go.Figure:
    """Acceptance against p: as the paper computes it (eq. 13 corrected, Δ_f) and truly (Δ_f / p), p* marked."""
    paper, corr = df[df["mode"] == "paper"], df[df["mode"] == "corrected"]
    traces = [
        line(
            paper["rate"],
            paper["acceptance"],
            name="paper mode: eq. (13) corrected, sensitivity Δ",
            color=COLORS["brdp_paper"],
        ),
        line(
            corr["rate"], corr["acceptance"], name="corrected: true acceptance, sensitivity Δ / p", color=COLORS["brdp"]
        ),
    ]
    marks = [vline(rate, f"p = {number(rate)}")]
    marks += [vline(p, f"p* {m}", position="top") for m, p in optima.items()]
    return figure(
        traces,
        title="Acceptance of subsampled Gaussian BR-DP against the sampling rate",
        x="sampling rate p (log scale)",
        y="acceptance",
        log_x=True,
        y_range=(0, 1.02),
        marks=marks,
    )


def experiment(stats: pd.DataFrame, *, theta: float, title: str | None = None) -> go.Figure:
    """Figs. 7/8 left column: box per mechanism (IQR box, whiskers 2.5–97.5 %), ±θ band, acceptance printed.

    The y axis spans the non-subsampled mechanisms; a subsampled box that reaches beyond it is cut off (its
    numbers are in the table).
    """
    traces = [
        {
            "type": "box",
            "name": m,
            "x": [m],
            "q1": [r.q25],
            "median": [r.median],
            "q3": [r.q75],
            "lowerfence": [r.q025],
            "upperfence": [r.q975],
            "mean": [r.mean],
            "marker": {"color": MECH_COLORS.get(m, COLORS["reference"])},
            "line": {"width": 1.5},
            "showlegend": False,
        }
        for r in stats.itertuples()
        for m in [r.mechanism]
    ]
    plain = stats[~stats["mechanism"].str.startswith("SMP")]
    span = max(1.5 * theta, 1.15 * float(np.nanmax(np.abs(plain[["q025", "q975"]].to_numpy())))) if len(plain) else None
    notes = [
        {
            "x": r.mechanism,
            "y": 1.0,
            "yref": "paper",
            "yanchor": "bottom",
            "showarrow": False,
            "text": f"acc {r.acceptance:.3f}",
        }
        for r in stats.itertuples()
    ]
    shape, _note = hband(-theta, theta, "")
    return figure(
        traces,
        title=title or "1 000 centred releases per mechanism",
        x="mechanism",
        y="release − true answer",
        y_range=(-span, span) if span and math.isfinite(span) else None,
        marks=[],
        shapes=[shape],
        annotations=notes,
        hovermode="closest",
        margin={"l": 60, "r": 20, "t": 90, "b": 50},
    )


def fig6(df: pd.DataFrame, *, column: str, title: str, y: str, n_records: int | None = None) -> go.Figure:
    """Fig. 6: Alg. 4's p* (or its acceptance) against |X| per query, paper mode solid, corrected dashed;
    ``n_records`` marks the sidebar's |X|."""
    traces = []
    for (query, mode), part in df.groupby(["query", "mode"], sort=False):
        traces.append(
            line(
                part["n_records"],
                part[column],
                name=f"{query}, {mode}",
                color=QUERY_COLORS[query],
                dash=None if mode == "paper" else "dash",
                mode="lines+markers",
            )
        )
    marks = [vline(n_records, f"|X| = {n_records:,}", position="top")] if n_records else []
    return figure(
        traces, title=title, x="data-set size |X| (log scale)", y=y, log_x=True, y_range=(0, 1.05), marks=marks
    )


def experiment_acceptance(df: pd.DataFrame, *, epsilon: float, title: str | None = None) -> go.Figure:
    """Panel 10, right column: Monte-Carlo acceptance within ±θ against ε, one line per sandbox mechanism."""
    traces = [
        line(
            part["epsilon"],
            part["acceptance"],
            name=m,
            color=MECH_COLORS.get(m, COLORS["reference"]),
            mode="lines+markers",
            dash="dot" if m.startswith("SMP") else None,
        )
        for m, part in df.groupby("mechanism", sort=False)
    ]
    ticks = sorted(float(e) for e in df["epsilon"].unique())
    return figure(
        traces,
        title=title or "Acceptance against ε per mechanism",
        x="total ε (log scale)",
        y="share of releases within ±θ",
        log_x=True,
        y_range=(0, 1.02),
        xaxis={
            "title": {"text": "total ε (log scale)"},
            "type": "log",
            "tickvals": ticks,
            "ticktext": [number(e) for e in ticks],
        },
        marks=[vline(epsilon, f"ε = {number(epsilon)}")],
        height=420,
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
    )
