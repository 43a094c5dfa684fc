"""Figures of the BR-DP page (Jiang et al. 2024). Each builder takes a frame from ``app.compute.brdp`` → go.Figure."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures.style import COLORS, LABEL_BACKGROUND, LABELS, figure, line, vline
from app.notation import number

OUTCOME_COLORS = {"released in-bound": "#009E73", "released out-of-bound": "#E69F00", "recycled": "#BBBBBB"}
#: What a draw's outcome means, as its legend says it (the simulator's outcome names are the paper's terms).
OUTCOME_WORDS = {
    "released in-bound": "released, within ±θ",
    "released out-of-bound": "released, outside ±θ",
    "recycled": "thrown away and redrawn",
}
MECH_COLORS = {
    "Lap-DP": "#D55E00",
    "Gau-DP": "#0072B2",
    "Lap-BRDP": "#E69F00",
    "Gau-BRDP": "#009E73",
    "SMP-Lap-BRDP": "#CC79A7",
    "SMP-Gau-BRDP": "#56B4E9",
}
QUERY_COLORS = {"sum": "#0072B2", "average": "#D55E00", "count": "#009E73"}
ACCOUNTANT_NAMES = {
    "paper": "BR-DP, paper's accountant (Thm. 3)",
    "exact": "BR-DP, exact PLD",
    "dp": "plain DP kernel at the full ε",
}


def hband(y0: float, y1: float, text: str) -> tuple[dict, dict]:
    """A shaded horizontal band and its label (shape, annotation): the acceptable set ±θ."""
    shape = {
        "type": "rect",
        "y0": y0,
        "y1": y1,
        "x0": 0,
        "x1": 1,
        "xref": "paper",
        "fillcolor": COLORS["brdp"],
        "opacity": 0.10,
        "line": {"width": 0},
        "layer": "below",
    }
    note = {
        "y": y1,
        "x": 0.0,
        "xref": "paper",
        "text": text,
        "showarrow": False,
        "xanchor": "left",
        "yanchor": "bottom",
        "bgcolor": LABEL_BACKGROUND["light"],
    }
    return shape, note


def hline(y: float, text: str) -> tuple[dict, dict]:
    """A dotted horizontal reference line and its label."""
    shape = {
        "type": "line",
        "y0": y,
        "y1": y,
        "x0": 0,
        "x1": 1,
        "xref": "paper",
        "line": {"color": COLORS["reference"], "dash": "dot", "width": 1.5},
    }
    note = {
        "y": y,
        "x": 1.0,
        "xref": "paper",
        "text": text,
        "showarrow": False,
        "xanchor": "right",
        "yanchor": "bottom",
        "font": {"color": COLORS["reference"]},
        "bgcolor": LABEL_BACKGROUND["light"],
    }
    return shape, note


def _same(a: pd.Series, b: pd.Series) -> bool:
    """Two curves that would be drawn on top of each other (the kernel at ε_y = ε is plain DP)."""
    return bool(
        np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-9, atol=0.0, equal_nan=True)
    )


def _dp_name(kernel: str) -> str:
    return f"{LABELS[kernel]} DP at the full ε"


def recycler(
    draws: pd.DataFrame,
    *,
    theta: float,
    step: int | None = None,
    title: str | None = None,
    x: str = "kernel draw (in order)",
) -> go.Figure:
    """Fig. 1 as a stream: every kernel draw in order, coloured released in-bound / out-of-bound / recycled.

    ``title`` and ``x`` replace the chart's title and x-axis title (the first course names no kernel).

    ``step``: only the first ``step`` draws are shown (the player), on the axes of the whole run so that
    the picture does not jump while the draws appear; the newest draw is ringed.
    """
    full = draws
    if step is not None:
        draws = full.iloc[: max(int(step), 0)]
    traces = []
    for outcome, color in OUTCOME_COLORS.items():
        part = draws[draws["outcome"] == outcome]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": part["draw"],
                "y": part["noise"],
                "name": OUTCOME_WORDS[outcome],
                "marker": {"color": color, "size": 9, "line": {"width": 0.5, "color": "#444"}},
                "customdata": part["release"],
                "hovertemplate": "draw %{x}, release %{customdata}<br>noise %{y:.3g}<extra></extra>",
            }
        )
    if step is not None and len(draws):
        last = draws.iloc[-1]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": [last["draw"]],
                "y": [last["noise"]],
                "name": "newest draw",
                "hoverinfo": "skip",
                "marker": {"size": 17, "color": "rgba(0,0,0,0)", "line": {"width": 2, "color": "black"}},
            }
        )
    n_rel = int(full["release"].max()) + 1 if len(full) else 0
    span = 1.1 * max(float(full["noise"].abs().max()) if len(full) else 0.0, 1.2 * theta)
    shown = f": draw {len(draws)} of {len(full)}" if step is not None else ""
    return figure(
        traces,
        title=title or f"Kernel draws of {n_rel} release{'' if n_rel == 1 else 's'}{shown}",
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        x=x,
        y="noise n = output − truth",
        y_range=(-span, span),
        # room for the newest draw's ring at either end
        xaxis={"title": {"text": x}, "range": [-1 - 0.02 * len(full), max(len(full), 1) + 0.02 * len(full)]},
        marks=[hband(-theta, theta, f"acceptable: |n| ≤ θ = {number(theta)}")],
        hovermode="closest",
    )


def density(
    curves: pd.DataFrame,
    hist: pd.DataFrame | None,
    *,
    kernel: str,
    theta: float,
    title: str = "Output density around the true answer (Prop. 1)",
    same_traces: bool = False,
) -> go.Figure:
    """f_brdp (Prop. 1) against the kernel at ε_y and DP at the full ε, optionally over a sampled histogram.

    ``same_traces``: the kernel's curve is drawn even where it is plain DP's (ε_y = ε), under its name saying so,
    so the figure has the same traces at every θ (an in-figure slider's frames)."""
    traces = []
    if hist is not None:
        n = int(hist["samples"].iloc[0])
        traces.append(
            {
                "type": "bar",
                "x": (hist["bin_left"] + hist["bin_right"]) / 2,
                "y": hist["empirical_density"],
                "width": hist["bin_right"] - hist["bin_left"],
                "name": f"{n:,} sampled BR-DP outputs",
                "marker": {"color": COLORS["brdp"]},
                "opacity": 0.3,
            }
        )
    if _same(curves["kernel"], curves["dp"]) and same_traces:  # ε_y = ε: the kernel's curve under plain DP's
        traces += [
            line(
                curves["x"],
                curves["kernel"],
                name="kernel alone (here ε_y = ε: plain DP's noise)",
                color=COLORS["reference"],
                dash="dash",
                width=1.8,
            ),
            line(curves["x"], curves["dp"], name=_dp_name(kernel), color=COLORS[kernel]),
        ]
    elif _same(curves["kernel"], curves["dp"]):  # ε_y = ε: one curve, named for both
        traces.append(
            line(
                curves["x"], curves["dp"], name=f"{_dp_name(kernel)} (= the kernel here: ε_y = ε)", color=COLORS[kernel]
            )
        )
    else:
        traces += [
            line(
                curves["x"],
                curves["kernel"],
                name="kernel alone at ε_y",
                color=COLORS["reference"],
                dash="dash",
                width=1.8,
            ),
            line(curves["x"], curves["dp"], name=_dp_name(kernel), color=COLORS[kernel]),
        ]
    traces.append(line(curves["x"], curves["brdp"], name="BR-DP (kernel + recycler)", color=COLORS["brdp"]))
    marks = [vline(-theta, "−θ"), vline(theta, "+θ")]
    return figure(
        traces, title=title, x="output − true answer", y="probability density", marks=marks, barmode="overlay", bargap=0
    )


def landscape(df: pd.DataFrame, *, epsilon: float, delta: float, chosen_eps_y: float) -> go.Figure:
    """Alg. 2's landscape: acceptance (left) and q, q_base, p_θ (right) against ε_y, optimum and DP marked.

    ε_y whose Alg.-1 q is *not* (ε, δ)-DP under the exact accountant are marked with red crosses; the printed
    eq. (10) objective (as 1/O) is in the legend, hidden until clicked.
    """
    best = df.loc[df["acceptance"].idxmax()]
    bad = df[df["exact_delta"] > delta * (1 + 1e-6)]
    right = {"yaxis": "y2"}
    traces = [
        line(df["epsilon_y"], df["acceptance"], name="acceptance 1/O (Alg. 1's q)", color=COLORS["brdp"]),
        line(
            df["epsilon_y"],
            1 / df["objective_as_printed"],
            name="1/O with the printed eq. (10) (a typo)",
            color=COLORS["brdp_paper"],
            dash="dot",
            visible="legendonly",
        ),
        line(df["epsilon_y"], df["q"], name="q from Alg. 1 (right axis)", color="#E69F00", width=1.8, **right),
        line(
            df["epsilon_y"],
            df["q_base"],
            name="baseline q (right axis)",
            color="#E69F00",
            dash="dash",
            width=1.5,
            **right,
        ),
        line(
            df["epsilon_y"],
            df["p_theta"],
            name="p_θ of the kernel (right axis)",
            color=COLORS["reference"],
            dash="dot",
            width=1.5,
            **right,
        ),
        {
            "type": "scatter",
            "mode": "markers",
            "x": [best["epsilon_y"]],
            "y": [best["acceptance"]],
            "name": f"Alg. 2 optimum ε_y = {number(best['epsilon_y'], 3)}",
            "marker": {"size": 13, "color": COLORS["brdp"], "symbol": "star"},
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": [epsilon],
            "y": [df["p_theta"].iloc[-1]],
            "name": "plain DP (ε_y = ε, q = 0)",
            "marker": {"size": 11, "color": "black", "symbol": "diamond"},
        },
    ]
    if len(bad):
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": bad["epsilon_y"],
                "y": bad["acceptance"],
                "name": "exact δ(ε) > target: not (ε, δ)-DP",
                "marker": {"color": "#C00000", "symbol": "x", "size": 7},
            }
        )
    return figure(
        traces,
        title="Budget split: where to put ε (Alg. 2)",
        x="ε_y — kernel's share of ε",
        y="acceptance Pr(|error| ≤ θ)",
        y_range=(0, 1.02),
        marks=[vline(chosen_eps_y, "this page's ε_y")],
        yaxis2={"title": {"text": "q, p_θ"}, "overlaying": "y", "side": "right", "range": [0, 1.02]},
        height=460,
        margin={"l": 60, "r": 60, "t": 60, "b": 50},
    )


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
        {
            "type": "scatter",
            "mode": "markers",
            "x": [epsilon],
            "y": [delta],
            "name": "target (ε, δ)",
            "marker": {"color": "black", "size": 12, "symbol": "x"},
        },
    ]
    low = math.log10(delta) - 4  # log axis, in log10 units: four decades below the target δ up to δ = 1
    return figure(
        traces,
        title="Privacy profile δ(ε′): the exact curve must pass below the target",
        x="ε′",
        y="δ(ε′) (log scale)",
        log_y=True,
        y_range=(low, 0.05),
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


__all__ = [
    "acceptance",
    "composition",
    "density",
    "experiment",
    "experiment_acceptance",
    "fig6",
    "hband",
    "hline",
    "landscape",
    "loss",
    "profile",
    "q_curves",
    "recycler",
    "subsampling_acceptance",
    "subsampling_noise",
]
