"""The paper's figures re-implemented (Mohammady et al. 2020, Figs. 3–9): usefulness maps and the experiments."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from app.figures.r2dp.marks import _line, hline
from app.figures.style import COLORS, LABELS, figure
from app.notation import number


def fig3(df: pd.DataFrame, *, gamma: float) -> go.Figure:
    """Reproduced Fig. 3: U_Lap, U*_R²DP and their ratio over (ε, Δ) at one γ (three heat maps)."""
    maps = [
        ("laplace_usefulness", "Laplace U", "x", "y", "Blues"),
        ("usefulness", "R²DP U*", "x2", "y2", "Blues"),
        ("ratio", "ratio", "x3", "y3", "Viridis"),
    ]
    traces: list[dict] = []
    layout: dict[str, Any] = {}
    for i, (col, label, xa, ya, scale) in enumerate(maps):
        piv = df.pivot(index="sensitivity", columns="epsilon", values=col)
        bar = {"x": 0.28 + 0.36 * i, "len": 0.9, "thickness": 10, "title": {"text": label}}
        traces.append(
            {
                "type": "heatmap",
                "x": list(piv.columns),
                "y": list(piv.index),
                "z": piv.to_numpy(),
                "colorscale": scale,
                "xaxis": xa,
                "yaxis": ya,
                "colorbar": bar,
                "name": label,
                "zmin": 0 if col != "ratio" else 1,
                "zmax": 1 if col != "ratio" else None,
                "hovertemplate": f"ε %{{x}}, Δ %{{y}}: {label} %{{z:.4f}}<extra></extra>",
            }
        )
        lo, hi = 0.36 * i, 0.36 * i + 0.27
        layout[f"xaxis{'' if i == 0 else i + 1}"] = {"domain": [lo, hi], "title": {"text": "ε"}, "anchor": ya}
        layout[f"yaxis{'' if i == 0 else i + 1}"] = {
            "title": {"text": "Δ (log)" if i == 0 else ""},
            "anchor": xa,
            "type": "log",
            "showticklabels": i == 0,
        }
    return figure(
        traces,
        title=f"Fig. 3 re-implemented at γ = {number(gamma)}: Laplace, R²DP optimum, ratio",
        x="ε",
        y="Δ",
        height=380,
        hovermode="closest",
        **layout,
    )


def fig4(df: pd.DataFrame) -> go.Figure:
    """Reproduced Fig. 4: truncated-normal optimum / Laplace for ε ≤ 2 at four γ/Δ, with the small-γ cap."""
    palette = ("#882255", "#CC79A7", "#0072B2", "#009E73")
    traces = []
    for color, (g, part) in zip(palette, df.groupby("g"), strict=True):
        traces.append(
            _line(part["epsilon"], part["ratio"], name=f"γ/Δ = {number(g)}", color=color, width=2, mode="lines+markers")
        )
    cap = df.drop_duplicates("epsilon")
    cap = cap[cap["epsilon"] >= 1]  # below ε = 1 Laplace itself is optimal; the cap is loose there
    traces.append(
        _line(
            cap["epsilon"],
            cap["cap_ratio_small_g"],
            name="cap e^(ε−1)/ε for any R²DP (γ/Δ → 0)",
            color=COLORS["reference"],
            width=2,
            dash="dot",
        )
    )
    return figure(
        traces,
        title="Fig. 4 re-implemented: truncated normal vs Laplace for strong privacy (ε ≤ 2)",
        x="ε",
        y="U*/U_Laplace",
        marks=[hline(1.4, "paper: 'up to 1.4×'", color="red")],
    )


def fig5(df: pd.DataFrame) -> go.Figure:
    """Reproduced Fig. 5: counting queries (Δ = 1), usefulness of (a) Laplace and (b) the best Gamma R²DP law over
    (ε, γ), as two heat maps on one colour scale."""
    traces: list[dict] = []
    layout: dict[str, Any] = {}
    for i, (col, label) in enumerate((("laplace_usefulness", "(a) Laplace"), ("usefulness", "(b) R²DP (Gamma)"))):
        piv = df.pivot(index="g", columns="epsilon", values=col)
        xa, ya = ("x", "y") if i == 0 else ("x2", "y2")
        traces.append(
            {
                "type": "heatmap",
                "x": list(piv.columns),
                "y": list(piv.index),
                "z": piv.to_numpy(),
                "colorscale": "Blues",
                "zmin": 0,
                "zmax": 1,
                "xaxis": xa,
                "yaxis": ya,
                "name": label,
                "showscale": i == 1,
                "colorbar": {"title": {"text": "U(γ)"}, "thickness": 12},
                "hovertemplate": f"{label}: ε %{{x}}, γ %{{y}} → U %{{z:.4f}}<extra></extra>",
            }
        )
        lo = 0.0 if i == 0 else 0.52
        layout["xaxis" if i == 0 else "xaxis2"] = {
            "domain": [lo, lo + 0.43],
            "title": {"text": f"ε — {label}"},
            "anchor": ya,
        }
        layout["yaxis" if i == 0 else "yaxis2"] = {
            "type": "log",
            "anchor": xa,
            "showticklabels": i == 0,
            "title": {"text": "γ (log; Δ = 1)" if i == 0 else ""},
        }
    return figure(
        traces,
        title="Fig. 5 re-implemented: usefulness of counting queries, Laplace vs R²DP",
        x="ε",
        y="γ",
        height=400,
        hovermode="closest",
        margin={"l": 70, "r": 20, "t": 50, "b": 60},
        **layout,
    )


#: Colours and names of the mechanisms of the experiments (Figs. 6–9).
MECHANISM_STYLE = {
    "none": ("no noise (not private)", COLORS["reference"], "dot"),
    "laplace": (LABELS["laplace"], COLORS["laplace"], None),
    "r2dp": ("R²DP (best two-point law)", COLORS["r2dp"], None),
    "staircase": ("optimal staircase", COLORS["staircase"], "dash"),
}


def experiment(df: pd.DataFrame, *, measures: tuple[str, ...], title: str, y_title: str) -> go.Figure:
    """Figs. 6–9 re-implemented: one panel per (measure, γ) against ε (log), one line per mechanism."""
    gammas = sorted(df["gamma"].unique())
    panels = [(m, g) for m in measures for g in gammas]
    width = 1.0 / len(panels)
    traces: list[dict] = []
    layout: dict[str, Any] = {}
    for i, (measure, g) in enumerate(panels):
        sfx = "" if i == 0 else str(i + 1)
        for mech, (name, color, dash) in MECHANISM_STYLE.items():
            part = df[(df["gamma"] == g) & (df["mechanism"] == mech)]
            if part.empty:
                continue
            traces.append(
                _line(
                    part["epsilon"],
                    part[measure],
                    name=name,
                    color=color,
                    dash=dash,
                    width=2,
                    mode="lines+markers",
                    marker={"size": 5},
                    xaxis=f"x{sfx}",
                    yaxis=f"y{sfx}",
                    legendgroup=mech,
                    showlegend=i == 0,
                )
            )
        layout[f"xaxis{sfx}"] = {
            "domain": [i * width + 0.04, (i + 1) * width - 0.03],
            "type": "log",
            "anchor": f"y{sfx}",
            "title": {"text": f"ε ({measure}, γ = {number(g)})"},
        }
        layout[f"yaxis{sfx}"] = {
            "anchor": f"x{sfx}",
            "range": [0, 1.02],
            "showticklabels": i == 0,
            "title": {"text": y_title if i == 0 else ""},
        }
    return figure(
        traces,
        title=title,
        x="ε",
        y=y_title,
        height=420,
        hovermode="closest",
        legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0.0},
        margin={"l": 60, "r": 20, "t": 50, "b": 100},
        **layout,
    )
