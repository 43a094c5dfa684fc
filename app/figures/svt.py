"""Figures of the SVT page (Liu, Wang, Liu, Li and Chen 2024): frames from ``app.compute.svt`` in, Figures out."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures import style
from app.figures.style import COLORS, hline, line, vband, vline
from app.notation import number

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


#: What the learner reads for each quality measure of the top-c experiment.
METRIC_LABELS = {"ncr": "rank score (NCR)", "f1": "F1", "precision": "precision", "recall": "recall"}
#: Comparisons drawn in the page's opening picture.
FIRST_LOOK = 60


def first_look(comp: pd.DataFrame, *, threshold: float) -> go.Figure:
    """The page's opening picture: the first :data:`FIRST_LOOK` comparisons of one run, noisy counts (dots) against
    the noisy threshold (line), true counts as bars."""
    return live_run(comp, step=min(FIRST_LOOK, len(comp)), threshold=threshold, window=FIRST_LOOK,
                    title="Each noisy count against the noisy threshold (log scale)")
#: Legend under the plot, for charts with many curves or narrow columns (a top legend would cover the title).
_BELOW = {
    "legend": {"orientation": "h", "yanchor": "top", "y": -0.25, "x": 0.0},
    "margin": {"l": 60, "r": 20, "t": 40, "b": 130},
}


def noise_zoo(df: pd.DataFrame, *, selected: str) -> go.Figure:
    """Panel 1: threshold noise (grey) and the four query noises at their calibrated scales (bold: chosen)."""
    traces = []
    for curve, part in df.groupby("curve", sort=False):
        if curve.startswith("threshold"):
            family = curve.rpartition("~")[2].strip()
            traces.append(line(part["x"], part["density"], name=f"threshold ρ ~ {NOISE_LABELS.get(family, family)}",
                               color=_GREY, dash="dash"))
        else:
            traces.append(
                line(
                    part["x"],
                    part["density"],
                    name=f"query v ~ {NOISE_LABELS[curve]}",
                    color=NOISE_COLORS[curve],
                    width=4 if curve == selected else 1.5,
                )
            )
    return figure(
        traces,
        title="Threshold noise ρ and query noise v at their calibrated scales",
        x="noise value",
        y="probability density",
    )


def budget_split(curves: pd.DataFrame, opt: pd.DataFrame, *, w: float | None = None) -> go.Figure:
    """Panel 2: V(w)·ε² against the split w (log–log) with the optimum w* of each family (Tables 4/6) and a
    line at the hand-picked split ``w``."""
    traces = [
        line(p["w"], p["V_eps2"], name=NOISE_LABELS[n], color=NOISE_COLORS[n])
        for n, p in curves.groupby("noise", sort=False)
    ]
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "x": opt["w_star"],
            "y": opt["V_eps2_star"],
            "name": "w*",
            "marker": {
                "color": [NOISE_COLORS[n] for n in opt["noise"]],
                "size": 11,
                "symbol": "diamond",
                "line": {"color": "black", "width": 1},
            },
        }
    )
    return figure(
        traces,
        title="Comparison variance against the split ε₂ = w·ε₁ (Eq. 6)",
        x="w = ε₂/ε₁ (log scale)",
        y="V·ε² (log scale)",
        log_x=True,
        log_y=True,
        marks=[vline(w, f"your w = {number(w)}", position="top")] if w is not None else [],
    )


def split_bars(opt: pd.DataFrame, *, epsilon: float) -> go.Figure:
    """Panel 2, small: ε₁ (threshold) and ε₂ (queries) at w* for each family."""
    names = [NOISE_LABELS[n] for n in opt["noise"]]
    traces = [
        {
            "type": "bar",
            "x": names,
            "y": opt["epsilon1"],
            "name": "ε₁ (threshold)",
            "marker": {"color": _GREY},
        },
        {
            "type": "bar",
            "x": names,
            "y": opt["epsilon2"],
            "name": "ε₂ (queries)",
            "marker": {"color": [NOISE_COLORS[n] for n in opt["noise"]]},
        },
    ]
    return figure(
        traces,
        title=f"Budget at w* (ε = {number(epsilon)})",
        x="",  # the bars are named; an axis title would sit under the slanted names, where the legend goes
        y="ε",
        barmode="stack",
        hovermode="closest",
        legend={"orientation": "h", "yanchor": "top", "y": -0.32, "x": 0.0},
        margin={"l": 60, "r": 20, "t": 60, "b": 140},
    )


def query_loss(df: pd.DataFrame, *, per_positive: float) -> go.Figure:
    """Panel 3 left: per-positive privacy loss of each query noise with the allowance ε₂/c."""
    traces = [
        line(
            p["x"],
            p["loss"],
            name=NOISE_LABELS[n],
            color=NOISE_COLORS[n],
            width=3 if n == "exponential" else 2,
        )
        for n, p in df.groupby("noise", sort=False)
    ]
    return figure(
        traces,
        title="Query noise: ln S(x − 2Δ) − ln S(x)",
        x="x (noisy threshold − answer)",
        y="privacy loss per positive",
        y_range=(-0.1 * per_positive, 2.5 * per_positive),
        height=430,
        **_BELOW,
        marks=[hline(per_positive, f"ε₂/c = {number(per_positive, 3)}", side="right")],
    )


def threshold_loss(df: pd.DataFrame, *, epsilon1: float) -> go.Figure:
    """Panel 3 right: threshold loss ln f(u − Δ) − ln f(u), within ±ε₁ (Laplace) or unbounded (Gaussian)."""
    names = {
        "laplace": "Laplace",
        "gaussian": "Gaussian (not pure DP)",
        "exponential": "Exponential (beyond the paper)",
    }
    traces = [
        line(
            p["u"],
            p["loss"],
            name=names[n],
            color=NOISE_COLORS[n],
            dash="dot" if n == "exponential" else None,
        )
        for n, p in df.groupby("noise", sort=False)
    ]
    return figure(
        traces,
        title="Threshold noise: ln f(u − Δ) − ln f(u)",
        x="u (threshold noise value)",
        y="privacy loss",
        y_range=(-2.5 * epsilon1, 2.5 * epsilon1),
        height=430,
        **_BELOW,
        marks=[hline(epsilon1, f"ε₁ = {number(epsilon1, 3)}", side="right"),
               hline(-epsilon1, "−ε₁", side="right")],
    )


def comparison(df: pd.DataFrame, *, mean: float, r_op: float, r: float, d: float = 0.0) -> go.Figure:
    """Panel 4: density of Z = v − ρ, lines at 0, the mean E[v] and r^op; the shaded tail right of r − d is
    P[yes] for a count at τ + d."""
    marks = [
        vline(0.0, "0"),
        vline(mean, "mean", position="top"),
        vline(r_op, "r^op"),
        vband(r - d, max(float(df["z"].max()), r - d),
              f"P[yes] for a count at τ + {number(d)} (r = {number(r, 4)})"),
    ]
    fig = figure(
        [line(df["z"], df["density"], name="density of Z = v − ρ", color=NOISE_COLORS["exponential"])],
        title="The noisy comparison: yes iff Z = v − ρ ≥ r − (count − τ)",
        x="z = v − ρ",
        y="density",
        marks=marks,
    )
    fig.layout.xaxis.range = [float(df["z"].min()), float(df["z"].max())]  # the density's support, not the marks'
    return fig


def success(df: pd.DataFrame, *, r_op: float, mean: float, p_floor: float, log_y: bool = False) -> go.Figure:
    """Panel 5: p(r) of Eq. 8 and exact (shared ρ), lines at 0, the mean and r^op, and k^k/(k+1)^{k+1}."""
    traces = [
        line(
            df["r"],
            df["eq8"],
            name="Eq. 8 (paper: fresh ρ per comparison)",
            color=NOISE_COLORS["exponential"],
        ),
        line(df["r"], df["shared"], name="exact (one shared ρ)", color="black", dash="dash"),
    ]
    marks = [
        vline(0.0, "0"),
        vline(mean, "mean", position="top"),
        vline(r_op, "r^op"),
        hline(p_floor, "k^k/(k+1)^(k+1)", side="right"),
    ]
    top = math.log10(max(float(df["eq8"].max()), float(df["shared"].max()), 1e-300))
    return figure(
        traces,
        title="Success probability p(r): k negatives rejected, then a positive accepted",
        x="correction r",
        y="p(r) (log scale)" if log_y else "p(r)",
        log_y=log_y,
        y_range=(top - 6, top + 0.3) if log_y else None,
        marks=marks,
    )


def rop_vs_k(df: pd.DataFrame) -> go.Figure:
    """Panel 6a: r^op against k (log-x), one line per ε, dotted means."""
    traces = []
    for i, (e, p) in enumerate(df.groupby("epsilon", sort=False)):
        color = ("#009E73", "#56B4E9", "#CC79A7")[i % 3]
        traces.append(line(p["k"], p["r_op"], name=f"r^op, ε = {number(e, 3)}", color=color))
        traces.append(
            line(
                p["k"],
                p["theta"],
                name=f"mean 1/λ, ε = {number(e, 3)}",
                color=color,
                dash="dot",
                width=1.5,
                showlegend=False,
            )
        )
    return figure(
        traces,
        title="r^op grows like ln k (dotted: the mean 1/λ)",
        x="k (log scale)",
        y="r",
        log_x=True,
        height=400,
        **_BELOW,
    )


def rop_vs_epsilon(df: pd.DataFrame, *, epsilon: float) -> go.Figure:
    """Panel 6b: r^op·ε and θ·ε against ε — flat lines mean r^op ∝ 1/ε."""
    traces = [
        line(df["epsilon"], df["r_op_eps"], name="r^op·ε", color="#009E73"),
        line(df["epsilon"], df["theta_eps"], name="ε/λ (mean × ε)", color="#56B4E9", dash="dot"),
    ]
    return figure(
        traces,
        title="Scale invariance: r^op·ε",
        x="ε (log scale)",
        y="r·ε",
        log_x=True,
        height=400,
        **_BELOW,
        marks=[vline(epsilon, f"ε = {number(epsilon)}")],
    )


def rop_vs_alpha(df: pd.DataFrame) -> go.Figure:
    """Panel 6c: r^op against α (V-shaped when θ > b)."""
    traces = [
        line(df["alpha"], df["r_op"], name="r^op", color="#009E73"),
        line(df["alpha"], df["theta"], name="mean 1/λ", color="#56B4E9", dash="dot"),
    ]
    return figure(traces, title="r^op against the tolerance α", x="α", y="r", height=400, **_BELOW)


def alpha_beta(df: pd.DataFrame, *, column: str, title: str, alpha: float | None = None) -> go.Figure:
    """Panel 7 / Fig. 3: β against α (log-y) for the Fig. 3 methods."""
    traces = []
    for m, p in df.groupby("method", sort=False):
        dashed = m in ("SVT-Exp, r = 0", "SVT-Exp, r = mean")
        traces.append(
            line(
                p["alpha"],
                p[column],
                name=m,
                color=METHOD_COLORS[m],
                dash="dash" if dashed else None,
                width=3.5 if m == "SVT-Exp + r^op" else 2,
            )
        )
    marks = [vline(alpha, f"α = {number(alpha)}")] if alpha is not None else []
    return figure(
        traces,
        title=title,
        x="α (error tolerance)",
        y="β = 1 − p (log scale)",
        log_y=True,
        y_range=(-4, 0.05),
        marks=marks,
        height=460,
        **_BELOW,
    )


def live_run(comp: pd.DataFrame, *, step: int, threshold: float, window: int = 400,
             title: str = "Live run: each comparison in queue order (log scale)") -> go.Figure:
    """Panel 8: the first ``step`` comparisons of one run (the last ``window`` of them): true answers as bars
    (orange: q ≥ T), noisy answers q + v as dots (green: ⊤), the noisy threshold T + ρ + r as a line."""
    shown = comp.iloc[max(0, step - window) : step]
    x = shown["step"].to_numpy()
    ans, noisy = shown["answer"].to_numpy(), shown["noisy_answer"].to_numpy()
    tp, top = shown["true_positive"].to_numpy(), shown["positive"].to_numpy()
    traces = [
        {
            "type": "bar",
            "x": x[tp],
            "y": ans[tp],
            "name": "true count ≥ τ",
            "width": 0.9,
            "marker": {"color": "#E69F00"},
            "opacity": 0.6,
        },
        {
            "type": "bar",
            "x": x[~tp],
            "y": ans[~tp],
            "name": "true count < τ",
            "width": 0.9,
            "marker": {"color": "#BBBBBB"},
            "opacity": 0.6,
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": x[top],
            "y": noisy[top],
            "name": "noisy count: yes",
            "marker": {"color": "#009E73", "size": 10},
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": x[~top],
            "y": noisy[~top],
            "name": "noisy count: no",
            "marker": {"color": "#555555", "size": 5},
        },
        line(
            x,
            shown["noisy_threshold"].to_numpy(),
            name="noisy threshold τ + ρ + r",
            color="#CC79A7",
            width=2,
            line_shape="hv",
        ),
    ]
    if len(shown):
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": [x[-1]],
                "y": [noisy[-1]],
                "name": "current comparison",
                "marker": {"color": "rgba(0,0,0,0)", "size": 18, "line": {"color": "black", "width": 2}},
            }
        )
    # figure() logs y
    marks = [hline(threshold, f"τ = {number(threshold)}", color="black", dash="dash", side="right")]
    # the axis always shows τ (the counts may all lie below it) and stops at 0.5: a noisy count below that would
    # otherwise stretch the axis into ticks like 600μ
    seen = np.concatenate([ans, noisy, shown["noisy_threshold"].to_numpy(), [threshold]]).astype(float)
    seen = seen[np.isfinite(seen) & (seen > 0.5)]
    y_range = (math.log10(max(0.5, float(seen.min()) / 1.5)), math.log10(float(seen.max()) * 1.5))
    passes = shown["pass"].to_numpy()
    starts = np.flatnonzero(np.diff(passes) > 0) + 1
    marks += [vline(float(x[j]) - 0.5, f"pass {int(passes[j])}", position="top") for j in starts]
    return figure(
        traces,
        title=title,
        x="comparison number (queue order)",
        y="count (log scale)",
        log_y=True,
        y_range=y_range,
        bargap=0.05,
        barmode="overlay",
        hovermode="closest",
        height=470,
        **_BELOW,
        marks=marks,
    )


def appending(df: pd.DataFrame, *, traverses: int) -> go.Figure:
    """Panel 9: P[selected within t passes] vs d = q − T, exact (solid), and the paper's t·p (dashed)."""
    palette = ("#009E73", "#56B4E9", "#E69F00", "#CC79A7", "#0072B2")
    traces = []
    for i, (t, p) in enumerate(df.groupby("t", sort=True)):
        color = palette[i % len(palette)]
        width = 3.5 if t == traverses else 2
        traces.append(line(p["d"], p["shared"], name=f"t = {t}: exact", color=color, width=width))
        traces.append(
            line(p["d"], p["as_printed"], name=f"t = {t}: paper's t·p", color=color, dash="dash", width=1.5)
        )
    return figure(
        traces,
        title="Appending: chance of being selected within t passes",
        x="d = count − τ",
        y="probability",
        y_range=(0, 1.6),
        marks=[hline(1.0, "probability 1", color="black", side="right")],
        height=470,
        **_BELOW,
    )


def experiment(
    df: pd.DataFrame,
    *,
    metric: str,
    x: str = "epsilon",
    epsilon: float | None = None,
    title: str | None = None,
) -> go.Figure:
    """Panel 10 / Figs. 7, 8, 10, 11: a metric with 95 % CIs against ε (log) or traverses, per method."""
    traces = []
    for m, p in df.groupby("method", sort=False):
        err = {
            "type": "data",
            "symmetric": False,
            "array": p[f"{metric}_hi"] - p[metric],
            "arrayminus": p[metric] - p[f"{metric}_lo"],
            "thickness": 1,
        }
        traces.append(
            line(
                p[x],
                p[metric],
                name=m,
                color=METHOD_COLORS[m],
                mode="lines+markers",
                error_y=err,
                dash="dot" if m == "SVT-Exp upper bound" else None,
            )
        )
    marks = [vline(epsilon, f"ε = {number(epsilon)}")] if epsilon is not None else []
    label = METRIC_LABELS[metric]
    return figure(
        traces,
        title=title or f"Top-c selection: {label} (mean, 95 % CI)",
        x="ε (log scale)" if x == "epsilon" else "passes over the queue t",
        y=label,
        log_x=x == "epsilon",
        y_range=(-0.02, 1.05),
        marks=marks,
        height=460,
        **_BELOW,
    )


def numeric_density(df: pd.DataFrame, *, n_bins: int) -> go.Figure:
    """Panel 11 / Fig. 9: discretised density of Z (steps) against the exact density."""
    traces = [
        line(
            df["z"],
            df["numeric_density"],
            name=f"FFT framework, m = {n_bins}",
            color="#E69F00",
            line_shape="hvh",
        ),
        line(df["z"], df["exact_density"], name="closed form", color="black", dash="dash", width=1.5),
    ]
    return figure(traces, title="Algorithms 3/4: discretise, FFT-convolve", x="z = v − ρ", y="density")


def numeric_accuracy(df: pd.DataFrame) -> go.Figure:
    """Panel 11 / Fig. 17: |r̄^op − r^op|, RMS error of p̄ and runtime against the number of bins m."""
    traces = [
        line(
            df["n_bins"],
            df["abs_error"] / df["abs_error"].max(),
            name="|r̄^op − r^op| (relative to m = 11)",
            color="#009E73",
            mode="lines+markers",
        ),
        line(
            df["n_bins"], df["rms_error_p"], name="RMS error of p̄(r)", color="#CC79A7", mode="lines+markers"
        ),
        line(
            df["n_bins"],
            df["runtime_ms"],
            name="runtime (ms)",
            color="#0072B2",
            mode="lines+markers",
            yaxis="y2",
        ),
    ]
    return figure(
        traces,
        title="Accuracy and runtime against bins",
        x="bins m (log scale)",
        y="error (log scale)",
        log_x=True,
        log_y=True,
        height=430,
        **_BELOW,
        yaxis2={"title": {"text": "runtime (ms)"}, "overlaying": "y", "side": "right", "rangemode": "tozero"},
    )


def variance_vs_epsilon(df: pd.DataFrame) -> go.Figure:
    """Fig. 4: V* against ε (log–log), four query-noise types, c = 50."""
    traces = [
        line(p["epsilon"], p["V"], name=NOISE_LABELS[n], color=NOISE_COLORS[n])
        for n, p in df.groupby("noise", sort=False)
    ]
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
