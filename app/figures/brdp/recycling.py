"""Recycling (Jiang et al. 2024, Algs. 1–2): the stream of kernel draws, output density (Prop. 1), the ε_y landscape."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures.brdp.marks import (
    OUTCOME_COLORS,
    OUTCOME_WORDS,
    _dp_name,
    _same,
    hband,
)
from app.figures.style import COLORS, figure, line, vline
from app.notation import number


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
        widths = (hist["bin_right"] - hist["bin_left"]).to_numpy()
        traces.append(
            {
                "type": "bar",
                "x": (hist["bin_left"] + hist["bin_right"]) / 2,
                "y": hist["empirical_density"],
                # equal bins: one width, not one per bar (an in-figure slider sends every stop's bars)
                "width": float(widths[0]) if np.allclose(widths, widths[0]) else widths,
                "name": f"{n:,} sampled BR-DP outputs",
                "marker": {"color": COLORS["brdp"]},
                "opacity": 0.3,
            }
        )
    same = _same(curves["kernel"], curves["dp"])
    if same and not same_traces:  # ε_y = ε: one curve, named for both
        traces.append(
            line(
                curves["x"], curves["dp"], name=f"{_dp_name(kernel)} (= the kernel here: ε_y = ε)", color=COLORS[kernel]
            )
        )
    else:  # with same_traces at ε_y = ε, the kernel's curve under plain DP's
        traces += [
            line(
                curves["x"],
                curves["kernel"],
                # one name at every θ when the figure's traces stay the same (an in-figure slider's frames then
                # change data only, and switch without a redraw)
                name="kernel alone at ε_y (plain DP's noise where ε_y = ε)"
                if same_traces
                else "kernel alone (here ε_y = ε: plain DP's noise)"
                if same
                else "kernel alone at ε_y",
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
