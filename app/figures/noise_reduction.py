"""Figures of the "Accuracy first: noise reduction" page (Rogers et al. 2023). Frames in, one ``go.Figure`` out."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures import style
from app.figures.style import COLORS, figure, hline, line, vline
from app.notation import number

NR = "#009E73"  # noise reduction (Brownian)
DB = "#CC79A7"  # doubling baseline
METHOD_COLORS = {"noise_reduction": NR, "doubling": DB}
METHOD_LABELS = {"noise_reduction": "noise reduction (unified filter)", "doubling": "doubling (zCDP filter)"}
PATH_COLORS = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#56B4E9")
MECH_LABELS = {"brownian": "Brownian", "laplace": "Laplace"}


def _noise_band(bands: pd.DataFrame, *, name: str) -> list[dict]:
    """The dashed band y ± 1/ε of the noise's typical size at each level: two edges under one legend entry."""
    eps = bands["epsilon"].to_numpy()
    edge: dict[str, Any] = {"color": COLORS["reference"], "width": 1, "dash": "dash", "legendgroup": "band"}
    return [
        line(eps, bands["band_high"].to_numpy(), name=name, **edge),
        line(eps, bands["band_low"].to_numpy(), name="y − 1/ε", **edge, showlegend=False),
    ]


def _by_path(df: pd.DataFrame, n_paths: int) -> tuple[np.ndarray, np.ndarray]:
    """The levels ε of a long path frame (path, epsilon, release) and its releases, one row per path."""
    eps = df["epsilon"].to_numpy()[: len(df) // n_paths]
    return eps, df["release"].to_numpy().reshape(n_paths, -1)


def paths(df: pd.DataFrame, stops: pd.DataFrame, bands: pd.DataFrame, *, value: float, mechanism: str) -> go.Figure:
    """Coupled paths Y(ε) shrinking onto y, the ±1/ε band, the acceptance region and each path's stop."""
    traces: list[dict] = [
        *_noise_band(bands, name="y ± 1/ε (noise scale)"),
        line(
            bands["epsilon"].to_numpy(),
            bands["boundary"].to_numpy(),
            name="stop once ŷ ≥ (2+α)/(αε)",
            color="#000000",
            width=1.5,
        ),
    ]
    n = len(stops)
    eps, rel = _by_path(df, n)
    shape = "hv" if mechanism == "laplace" else "linear"
    for i in range(n):
        traces.append(
            line(
                eps,
                rel[i],
                name=f"path {i + 1}",
                color=PATH_COLORS[i % len(PATH_COLORS)],
                width=1.5,
                opacity=0.8,
                line_shape=shape,
            )
        )
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "x": stops["epsilon_stop"].to_numpy(),
            "y": stops["release"].to_numpy(),
            "name": "stop (charged here)",
            "marker": {"color": "#000000", "size": 11, "symbol": "x"},
            "text": [
                f"ε_T = {number(e, 3)}, charge {number(c, 3)}"
                for e, c in zip(stops["epsilon_stop"], stops["charge"], strict=True)
            ],
        }
    )
    half = 4.0 * float(bands["band_high"].iloc[0] - value)  # four noise scales at the noisiest level
    return figure(
        traces,
        title=f"{MECH_LABELS[mechanism]} noise reduction: one noise path per colour, revealed left to right",
        x="noise level ε (log scale; right = less noise)",
        y="released value ŷ",
        log_x=True,
        y_range=(value - half, value + half),
        marks=[hline(value, f"true count y = {number(value)}")],
        hovermode="closest",
    )


def stopping(hist: pd.DataFrame, *, worst: float, mechanism: str) -> go.Figure:
    """Where the runs stop: share of runs per stopping charge, against the ex-ante worst-case charge."""
    unit = "ρ_T = ε_T²/2" if mechanism == "brownian" else "ε_T (ex-post ε)"
    bar = {
        "type": "bar",
        "x": hist["charge"].to_numpy(),
        "y": hist["share"].to_numpy(),
        "name": "share of runs stopping here",
        "marker": {"color": NR},
        "hovertemplate": "charge %{x:.4g}: %{y:.1%}<extra></extra>",
    }
    return figure(
        [bar],
        title="What each run actually paid (ex post) vs what it might have paid (ex ante)",
        x=f"charge at the stop, {unit} (log scale)",
        y="share of runs",
        log_x=True,
        marks=[vline(worst, f"ex-ante worst case {number(worst, 3)}", position="top")],
        bargap=0.1,
        hovermode="closest",
    )


def odometer(df: pd.DataFrame, *, budget: float) -> go.Figure:
    """Cumulative ρ after each count of the queue, noise reduction vs doubling, against the budget ρ*."""
    traces = []
    symbols = {"accepted": "circle", "failed (discarded)": "x", "refused": "circle-open"}
    for m in ("noise_reduction", "doubling"):
        part = df[df["method"] == m]
        traces.append(
            line(
                part["count"].to_numpy(),
                part["spent"].to_numpy(),
                name=METHOD_LABELS[m],
                color=METHOD_COLORS[m],
                line_shape="hv",
                mode="lines+markers",
                marker={"symbol": [symbols[s] for s in part["status"]], "size": 9},
                text=[f"y = {number(y)}: {s}" for y, s in zip(part["true_count"], part["status"], strict=True)],
            )
        )
    return figure(
        traces,
        title="Privacy odometer: budget used after each count (● returned, × failed, ○ refused)",
        x="count in the queue (largest first)",
        y="cumulative ρ spent",
        marks=[hline(budget, f"budget ρ* = {number(budget, 4)}")],
        hovermode="closest",
    )


def gauge(*, remaining: float, budget: float) -> go.Figure:
    """Remaining zCDP budget of the live filter as a Plotly gauge."""
    ind = {
        "type": "indicator",
        "mode": "gauge+number",
        "value": remaining,
        "number": {"valueformat": ".4g"},
        "title": {"text": "remaining ρ"},
        "gauge": {
            "axis": {"range": [0, budget]},
            "bar": {"color": NR},
            "threshold": {"line": {"color": "#000000", "width": 3}, "value": budget},
        },
    }
    return go.Figure(
        data=[ind], layout={"height": 230, "margin": {"l": 30, "r": 30, "t": 50, "b": 10}}, _validate=style.VALIDATE
    )


def costs(df: pd.DataFrame, *, value: float) -> go.Figure:
    """Expected ε² spent per count against the true count, noise reduction vs doubling vs the oracle."""
    y = df["value"].to_numpy()
    traces = [
        line(y, df["bm_cost"].to_numpy(), name="noise reduction (pays the last level)", color=NR, mode="lines+markers"),
        line(y, df["doubling_cost"].to_numpy(), name="doubling (pays every attempt)", color=DB, mode="lines+markers"),
        line(y, df["oracle"].to_numpy(), name="oracle ((2+α)/α/y)²", color=COLORS["reference"], dash="dot"),
    ]
    return figure(
        traces,
        title="Privacy cost of one accurate count",
        x="true count y (log scale)",
        y="expected ε² spent (log scale)",
        log_x=True,
        log_y=True,
        marks=[vline(value, f"y = {number(value)}")],
    )


def constants(df: pd.DataFrame, *, epsilon: float, rho_corrected: float, rho_printed: float) -> go.Figure:
    """DP ε certified for a zCDP spend ρ with the constant Thm 6's proof gives and with the printed one."""
    rho = df["rho"].to_numpy()
    traces = [
        line(rho, df["corrected"].to_numpy(), name="proof's constant ρ + 2√(ρ log(1/δ''))", color=NR),
        line(rho, df["as_printed"].to_numpy(), name="as printed ρ + 2√(2ρ log(1/δ''))", color=DB, dash="dash"),
        {
            "type": "scatter",
            "mode": "markers",
            "x": [rho_corrected, rho_printed],
            "y": [epsilon, epsilon],
            "name": "ρ* under each constant",
            "marker": {"color": "#000000", "size": 10, "symbol": "x"},
        },
    ]
    return figure(
        traces,
        title="How much zCDP budget ρ a total ε buys",
        x="zCDP budget ρ",
        y="certified DP ε",
        marks=[hline(epsilon, f"ε = {number(epsilon)}")],
        hovermode="closest",
    )


def composition(df: pd.DataFrame, *, count: int) -> go.Figure:
    """ε after m Brownian noise reductions under Thm 6, Thm 5 with its drift restored and basic ex-post composition."""
    m = df["m"].to_numpy()
    traces = [
        line(m, df["thm6"].to_numpy(), name="Thm 6 filter", color=NR),
        line(m, df["thm5"].to_numpy(), name="Thm 5 bound (drift V/2 restored)", color="#0072B2", dash="dash"),
        line(m, df["basic"].to_numpy(), name="basic ex-post composition (Lemma 5.1)", color=DB, dash="dot"),
    ]
    return figure(
        traces,
        title="Why composition matters: m noise reductions, each stopped at ε² = 0.01",
        x="number of mechanisms m (log scale)",
        y="total ε (log scale)",
        log_x=True,
        log_y=True,
        marks=[vline(count, f"m = {count}")],
    )


def figure3(df: pd.DataFrame, *, column: str, title: str, y: str) -> go.Figure:
    """Figure 3 panel: mean ± sd of ``column`` against n (log axis), noise reduction vs doubling."""
    traces = []
    for m in ("noise_reduction", "doubling"):
        part = df[df["method"] == m].sort_values("n")
        traces.append(
            line(
                part["n"].to_numpy(),
                part[f"{column}_mean"].to_numpy(),
                name=METHOD_LABELS[m],
                color=METHOD_COLORS[m],
                mode="lines+markers",
                error_y={"type": "data", "array": part[f"{column}_sd"].to_numpy(), "visible": True},
            )
        )
    return figure(traces, title=title, x="sample size n (log scale)", y=y, log_x=True, hovermode="closest")


def inversion(df: pd.DataFrame, *, direction: int) -> go.Figure:
    """W(s) = s·(Y − y) and ℒ(s) = s/2 + u·W(s) against s = ε², with the drift s/2 and the ±√s band of W."""
    n = int(df["path"].max())
    s = df["s"].to_numpy()[: len(df) // n]
    w = df["W"].to_numpy().reshape(n, -1)
    loss = df["loss"].to_numpy().reshape(n, -1)
    sq = s**0.5
    traces: list[dict] = [
        line(s, s / 2.0, name="drift s/2 = mean of ℒ", color="#000000", width=1.5, dash="dash"),
        line(s, sq, name="±√s (sd of W)", color=COLORS["reference"], width=1, dash="dot", legendgroup="sd"),
        line(s, -sq, name="−√s", color=COLORS["reference"], width=1, dash="dot", legendgroup="sd", showlegend=False),
    ]
    for i in range(n):
        c = PATH_COLORS[i % len(PATH_COLORS)]
        traces.append(
            line(
                s,
                w[i],
                name="W(s) (faint, one colour per path)",
                color=c,
                width=1,
                opacity=0.45,
                legendgroup="w",
                showlegend=i == 0,
            )
        )
        traces.append(line(s, loss[i], name="ℒ(s) (bold)", color=c, width=2, legendgroup="loss", showlegend=i == 0))
    sign = "+" if direction > 0 else "−"
    return figure(
        traces,
        title=f"Time inversion: the privacy loss ℒ(s) = s/2 {sign} W(s) is a Brownian motion with drift ½ in s = ε²",
        x="precision clock s = ε²",
        y="W(s) (faint) and ℒ(s) (bold)",
        hovermode="closest",
    )


def correlation(eps: np.ndarray, emp: np.ndarray, theory: np.ndarray, *, mechanism: str) -> go.Figure:
    """One heatmap, empirical Corr(Z_i, Z_j) below the diagonal and min ε / max ε above it."""
    k = len(eps)
    low = np.tril(np.ones((k, k), dtype=bool), -1)
    z = np.where(low, emp, theory)
    labels = [number(e, 3) for e in eps]
    text = [
        [
            f"ε_i = {labels[i]}, ε_j = {labels[j]}<br>{'empirical' if low[i, j] else 'theory'}: {z[i, j]:.3f}"
            for j in range(k)
        ]
        for i in range(k)
    ]
    heat = {
        "type": "heatmap",
        "z": z,
        "x": labels,
        "y": labels,
        "zmin": 0,
        "zmax": 1,
        "colorscale": "Viridis",
        "text": text,
        "hoverinfo": "text",
        "colorbar": {"title": {"text": "corr"}},
    }
    return figure(
        [heat],
        title=f"{MECH_LABELS[mechanism]}: empirical (below) vs min ε / max ε (above)",
        x="level ε_j",
        y="level ε_i",
        hovermode="closest",
        height=480,
        xaxis={"type": "category", "title": {"text": "level ε_j"}},
        yaxis={"type": "category", "autorange": "reversed", "title": {"text": "level ε_i"}},
    )


def loss_distribution(hist: pd.DataFrame, curve: pd.DataFrame, *, epsilon: float, rho: float) -> go.Figure:
    """Histogram of the total realised loss of filter runs, the N(ρ, 2ρ) density and the DP ε."""
    traces = [
        {
            "type": "bar",
            "x": hist["loss"].to_numpy(),
            "y": hist["density"].to_numpy(),
            "width": hist["width"].to_numpy(),
            "name": "filter runs (histogram)",
            "marker": {"color": NR, "opacity": 0.7},
        },
        line(
            curve["loss"].to_numpy(),
            curve["density"].to_numpy(),
            name=f"N(ρ*, 2ρ*), ρ* = {number(rho, 3)}",
            color="#000000",
            width=2,
        ),
    ]
    return figure(
        traces,
        title="Total privacy loss of whole filter runs (worst-case neighbour)",
        x="realised privacy loss ℒ of the transcript",
        y="density",
        marks=[vline(epsilon, f"ε = {number(epsilon)}", position="top")],
        hovermode="closest",
    )


def zipf(df: pd.DataFrame, *, a: float, n: int) -> go.Figure:
    """Figure 2: counts of n Zipf(a) draws per item, with the expected n·p_k."""
    traces = [
        {
            "type": "bar",
            "x": df["item"].to_numpy(),
            "y": df["count"].to_numpy(),
            "name": "sampled count",
            "marker": {"color": NR},
        },
        line(df["item"].to_numpy(), df["expected"].to_numpy(), name="expected n·k^(−a)/Σ", color="#000000", width=1.5),
    ]
    return figure(
        traces,
        title=f"Zipf data: n = {n:,} draws, a = {number(a)}, items 1–{len(df)} (Figure 2)",
        x="item k (log scale)",
        y="count (log scale)",
        log_x=True,
        log_y=True,
        bargap=0.0,
        hovermode="closest",
    )


def martingale(
    shown: pd.DataFrame, mean: pd.DataFrame, *, lam: float, stopped: float, stopped_se: float, t_stop: float
) -> go.Figure:
    """Paths of M(t), their mean ± 2 se (≈ 1) against t on a reversed log axis, and E[M] at the stop."""
    n = int(shown["path"].max())
    t = mean["t"].to_numpy()
    m = shown["M"].to_numpy().reshape(n, -1)
    traces: list[dict] = [
        line(
            t,
            m[i],
            name="sample paths of M(t)",
            color="#56B4E9",
            width=1,
            opacity=0.5,
            legendgroup="paths",
            showlegend=i == 0,
        )
        for i in range(n)
    ]
    traces += [
        line(t, mean["high"].to_numpy(), name="mean ± 2 se", color=NR, width=0, legendgroup="band", showlegend=False),
        line(
            t,
            mean["low"].to_numpy(),
            name="mean ± 2 se",
            color=NR,
            width=0,
            legendgroup="band",
            fill="tonexty",
            fillcolor="rgba(0,158,115,0.25)",
        ),
        line(t, mean["mean"].to_numpy(), name="mean over all paths", color=NR, width=2.5),
        {
            "type": "scatter",
            "mode": "markers",
            "x": [t_stop],
            "y": [stopped],
            "name": "mean of M at the stopping time",
            "marker": {"color": "#000000", "size": 11, "symbol": "x"},
            "error_y": {"type": "data", "array": [2 * stopped_se], "visible": True},
        },
    ]
    return figure(
        traces,
        title=f"Backward martingale M(t) = exp(λB(t)/t − λ²/(2t)), λ = {number(lam)}",
        x="time t = 1/ε² (log scale, reversed: released left to right)",
        y="M(t) (log scale)",
        log_y=True,
        marks=[hline(1.0, "1")],
        hovermode="closest",
        xaxis={
            "type": "log",
            "autorange": "reversed",
            "title": {"text": "time t = 1/ε² (log scale, reversed: released left to right)"},
        },
    )


def laplace_process(shown: pd.DataFrame, *, value: float) -> go.Figure:
    """Laplace noise-reduction paths X(b) against b = 1/ε (log axis), flat stretches thick, jumps as dots."""
    traces = []
    for i, (p, g) in enumerate(shown.groupby("path")):
        color = PATH_COLORS[i % len(PATH_COLORS)]
        b, x, flat = g["b"].to_numpy(), g["X"].to_numpy(), g["flat"].to_numpy()
        traces.append(
            line(
                b, x, name=f"path {p}", color=color, width=1, line_shape="hv", mode="lines+markers", marker={"size": 4}
            )
        )
        k = np.flatnonzero(flat[:-1])
        seg_x = np.column_stack([b[k], b[k + 1], np.full(k.size, np.nan)]).ravel()
        seg_y = np.column_stack([x[k], x[k + 1], np.full(k.size, np.nan)]).ravel()
        traces.append(
            line(seg_x, seg_y, name="flat stretches (thick)", color=color, width=5, opacity=0.5, showlegend=i == 0)
        )
    return figure(
        traces,
        title=f"Laplace process X(b), released as y + X(b) with y = {number(value)}",
        x="noise scale b = 1/ε (log scale; noise shrinks to the left)",
        y="noise X(b)",
        log_x=True,
        hovermode="closest",
    )


def idea(df: pd.DataFrame, stops: pd.DataFrame, bands: pd.DataFrame, *, value: float, plain: bool = False) -> go.Figure:
    """The idea in one picture: one noise path shrinking onto y as ε grows, stopping once it is accurate enough.

    ``plain``: labels in words only (the first course has not met y, ŷ or ε_T)."""
    eps, releases = _by_path(df, len(stops))
    rel = releases[0]
    stop = stops.iloc[0]
    k = int(np.searchsorted(eps, float(stop["epsilon_stop"])))
    traces: list[dict] = [
        *_noise_band(bands, name="typical size of the noise" if plain else "typical noise y ± 1/ε"),
        line(eps[: k + 1], rel[: k + 1], name="what the analyst sees", color=NR, width=2.5),
        line(eps[k:], rel[k:], name="never released (stopped)", color=NR, width=1, opacity=0.3, dash="dot"),
        {
            "type": "scatter",
            "mode": "markers+text",
            "x": [stop["epsilon_stop"]],
            "y": [stop["release"]],
            "name": "stop: accurate enough",
            "marker": {"color": "#000000", "size": 13, "symbol": "x"},
            "text": [
                "stop here: accurate enough"
                if plain
                else f"stop here: pay ε<sub>T</sub>²/2 = {number(stop['epsilon_stop'] ** 2 / 2, 3)}"
            ],
            "textposition": "bottom right",
        },
    ]
    half = 3.5 * float(bands["band_high"].iloc[0] - value)  # the noise at the noisiest level, 3.5 times
    return figure(
        traces,
        title="Noise reduction: start very noisy, remove noise step by step, stop when accurate",
        x="noise level ε (log scale)" if plain else "noise level ε (log scale; right = less noise, more privacy spent)",
        y="released value" if plain else "released value ŷ",
        log_x=True,
        y_range=(value - half, value + half),
        marks=[hline(value, f"true count {'' if plain else 'y = '}{number(value)}")],
        hovermode="closest",
    )


def concurrent(df: pd.DataFrame, *, rho_budget: float, expost_budget: float) -> go.Figure:
    """Thm 3: the share of each part's budget used after each count (zCDP part ρ/ρ*, ex-post part ε/ε')."""
    k = df["count"].to_numpy()
    traces = [
        line(
            k,
            df["rho_spent"].to_numpy() / rho_budget,
            name=f"zCDP part: ρ spent / ρ* ({number(rho_budget, 3)})",
            color="#0072B2",
            line_shape="hv",
            mode="lines+markers",
        ),
        line(
            k,
            df["expost_spent"].to_numpy() / expost_budget,
            name=f"ex-post part: ε spent / ε' ({number(expost_budget)})",
            color=COLORS["laplace"],
            line_shape="hv",
            mode="lines+markers",
        ),
    ]
    return figure(
        traces,
        title="Two filters side by side, each with its own budget (Theorem 3)",
        x="count in the queue (odd: Gaussian, even: Laplace noise reduction)",
        y="share of the budget used",
        y_range=(0.0, 1.08),
        marks=[hline(1.0, "budget")],
        hovermode="closest",
    )


def reddit(df: pd.DataFrame) -> go.Figure:
    """Results returned by each method on the Reddit stand-in, next to the paper's printed Reddit means."""
    names = [METHOD_LABELS[m] for m in df["method"]]
    colors = [METHOD_COLORS[m] for m in df["method"]]
    traces = [
        {
            "type": "bar",
            "x": names,
            "y": df["results_mean"].to_numpy(),
            "name": "stand-in data (this app)",
            "marker": {"color": colors},
            "error_y": {"type": "data", "array": df["results_sd"].to_numpy()},
        },
        {
            "type": "bar",
            "x": names,
            "y": df["paper_results"].to_numpy(),
            "name": "paper, real Reddit data",
            "marker": {"color": colors, "opacity": 0.35, "pattern": {"shape": "/"}},
        },
    ]
    return figure(
        traces,
        title="Counts returned at 1 % relative error, ε = 1 (Reddit setting)",
        x="method",
        y="results returned (mean ± sd)",
        barmode="group",
        hovermode="closest",
    )
