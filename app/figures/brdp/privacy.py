"""What recycling costs in privacy and gains in acceptance (Jiang et al. 2024, Thm. 1, Prop. 2, Thm. 3; Figs. 3–5)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from app.figures.brdp.marks import (
    ACCOUNTANT_NAMES,
    _dp_name,
    _same,
    hline,
)
from app.figures.style import COLORS, LABELS, figure, line, privacy_profile, vline
from app.notation import number


def q_curves(df: pd.DataFrame, *, epsilon: float, title: str | None = None) -> go.Figure:
    """q against ε_y (Fig. 3): baseline 1 − e^{−(ε − ε_y)} and Alg. 1 for each δ."""
    palette = ("#0072B2", "#009E73", "#CC79A7", "#D55E00", "#E69F00")
    traces = []
    for i, (name, part) in enumerate(df.groupby("curve", sort=False)):
        base = name == "baseline"
        traces.append(
            line(
                part["epsilon_y"],
                part["q"],
                name=name if not base else "baseline (Remark 1)",
                color="black" if base else palette[i % len(palette)],
                dash="dash" if base else None,
                width=2 if base else 2.5,
            )
        )
    return figure(
        traces,
        title=title or f"Recycling probability q against ε_y (total ε = {number(epsilon)})",
        x="ε_y — kernel's share of ε",
        y="q",
        y_range=(0, 1.02),
    )


def acceptance(
    df: pd.DataFrame, *, kernel: str, epsilon: float | None = None, rho: float = 0.9, title: str | None = None
) -> go.Figure:
    """Acceptance against total ε (Fig. 4): DP, BR-DP with the paper's plan, BR-DP with the exact optimum."""
    traces = [
        line(df["epsilon"], df["dp"], name=_dp_name(kernel), color=COLORS[kernel]),
        line(df["epsilon"], df["brdp_paper"], name=LABELS["brdp_paper"] + " (Alg. 2)", color=COLORS["brdp_paper"]),
    ]
    ex = df.dropna(subset=["brdp_exact"])
    if len(ex):
        traces.append(
            line(
                ex["epsilon"],
                ex["brdp_exact"],
                name=LABELS["brdp"] + " optimum",
                color=COLORS["brdp"],
                mode="lines+markers",
            )
        )
    marks = [hline(rho, f"target ρ = {number(rho)}")]
    if epsilon is not None:
        marks.append(vline(epsilon, f"ε = {number(epsilon)}"))
    return figure(
        traces,
        title=title or "Utility against privacy: acceptance for each total ε",
        x="total ε (right = less private)",
        y="acceptance Pr(|error| ≤ θ)",
        y_range=(0, 1.02),
        marks=marks,
    )


def loss(df: pd.DataFrame, *, epsilon: float, inf_mass: float) -> go.Figure:
    """Privacy-loss picture (Thm. 1): densities of the kernel loss Z, the paper's mixture and the exact loss Γ."""
    mid = (df["loss_left"] + df["loss_right"]) / 2
    traces = [
        line(mid, df["kernel"], name="kernel loss Z", color=COLORS["reference"], dash="dash", width=1.8),
        line(mid, df["paper"], name="paper: (1 − W)·Z + W·(Z + L)", color=COLORS["brdp_paper"]),
        line(mid, df["exact"], name="exact BR-DP loss Γ", color=COLORS["brdp"]),
    ]
    title = "Privacy-loss distributions (mass right of ε feeds δ)"
    if inf_mass > 0:
        title += f" — exact loss is +∞ with probability {number(inf_mass, 3)}"
    return figure(
        traces,
        title=title,
        x="privacy loss ln(P/Q) at the output",
        y="density",
        marks=[vline(epsilon, f"ε = {number(epsilon)}", position="top")],
    )


def profile(df: pd.DataFrame, *, epsilon: float, delta: float, kernel: str) -> go.Figure:
    """Privacy profiles δ(ε′): kernel, paper (Prop. 2), exact BR-DP and plain DP, with the target (ε, δ)."""

    def pos(s: pd.Series) -> pd.Series:
        return s.where(s > 0)

    if _same(df["kernel"], df["dp"]):  # ε_y = ε: one curve, named for both
        traces = [
            line(
                df["epsilon"],
                pos(df["dp"]),
                name=f"{_dp_name(kernel)} (= the kernel here: ε_y = ε)",
                color=COLORS[kernel],
                width=1.8,
            )
        ]
    else:
        traces = [
            line(
                df["epsilon"],
                pos(df["kernel"]),
                name="kernel alone at ε_y",
                color=COLORS["reference"],
                dash="dash",
                width=1.8,
            ),
            line(df["epsilon"], pos(df["dp"]), name=_dp_name(kernel), color=COLORS[kernel], width=1.8),
        ]
    traces += [
        line(df["epsilon"], pos(df["paper"]), name="BR-DP, the paper's δ (Prop. 2)", color=COLORS["brdp_paper"]),
        line(df["epsilon"], pos(df["exact"]), name="BR-DP, exact δ", color=COLORS["brdp"]),
    ]
    return privacy_profile(
        traces,
        epsilon=epsilon,
        delta=delta,
        title="Privacy profile δ(ε′): the exact curve must pass below the target",
        size=12,
    )


def composition(
    df: pd.DataFrame, *, delta: float, compositions: int | None = None, title: str | None = None
) -> go.Figure:
    """ε_T after T releases (Fig. 5): BR-DP under Thm. 3, BR-DP exact PLD, plain DP."""
    colors = {"paper": COLORS["brdp_paper"], "exact": COLORS["brdp"], "dp": COLORS["reference"]}
    traces = [
        line(
            df["compositions"],
            df[c],
            name=ACCOUNTANT_NAMES[c],
            color=colors[c],
            mode="lines+markers",
            marker={"size": 5},
            dash="dot" if c == "dp" else None,
        )
        for c in ("paper", "exact", "dp")
        if df[c].notna().any()
    ]
    marks = [vline(compositions, f"T = {compositions}", position="top")] if compositions else []
    return figure(
        traces,
        title=title or f"Total ε after T releases (at δ = {number(delta)})",
        x="T (log scale)",
        y="total ε_T",
        log_x=True,
        log_y=True,
        marks=marks,
    )
