"""Figures of the Local DP page and lesson (Pan 2023). Pure builders: results of ``app.compute.ldp`` in, Figures out.

Losses are plotted on the display scale the reader picked (``ratio=False``: ℓ in ε units; ``ratio=True``: e^ℓ on a
log axis, so the picture keeps its shape and only the tick labels change).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import sequential

from app.figures.style import COLORS, figure, hline, line, vline
from app.notation import number

BAYES = "#0072B2"  # Bayesian privacy filter / posterior
SIMPLE = "#56B4E9"  # Simplified filter
BASIC = COLORS["reference"]  # basic composition
PRIOR = "#9E9E9E"
LIKE = "#E69F00"  # likelihood
BUDGET = "#D55E00"  # ε_G
GOOD = "#009E73"
MAXC, MINC = "#CC79A7", "#009E73"  # argmax / argmin of Λ
_BLUES = np.array([[int(v) for v in c[4:-1].split(",")] for c in sequential.Blues], dtype=float)  # light → dark


def _col(name: str, ratio: bool) -> str:
    return f"{name}_ratio" if ratio else name


def _loss_axis(ratio: bool) -> dict[str, Any]:
    return {"log_y": True} if ratio else {}


def _step(x: Any, y: Any, **kw: Any) -> dict:
    """A step line (value holds until the next query)."""
    tr = line(x, y, **kw)
    tr["line"]["shape"] = "hv"
    return tr


def _corners(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """The corners of an "hv" step line: the first and last points and every point whose y differs from the one
    before (a point that repeats its predecessor's y draws nothing new), so long flat runs cost the browser nothing."""
    x, y = np.asarray(x), np.asarray(y, dtype=float)
    if y.size <= 2:
        return x, y
    keep = np.r_[True, ~((y[1:] == y[:-1]) | (np.isnan(y[1:]) & np.isnan(y[:-1])))]
    keep[-1] = True
    return x[keep], y[keep]


# --- the picture of the idea ---------------------------------------------------------------------------


def idea(df: pd.DataFrame, *, budget: float | None, ratio: bool) -> go.Figure:
    """What k answers actually revealed (ℓ after each answer) against what basic composition charges (j·ε); the
    budget ε_G as a dashed line (none when ``budget`` is None: the first course has no budget yet)."""
    traces = [
        _step(np.r_[0, df["answers"]], np.r_[1.0 if ratio else 0.0, df[_col("basic", ratio)]],
              name="charged by adding up ε (basic composition)", color=BASIC, dash="dot"),
        _step(np.r_[0, df["answers"]], np.r_[1.0 if ratio else 0.0, df[_col("realized", ratio)]],
              name="actually revealed: realized loss ℓ", color=BAYES),
    ]
    marks = []
    if budget is not None:
        b = math.exp(budget) if ratio and budget < 700 else budget
        marks.append(hline(b, "budget ε_G", color=BUDGET, dash="dash", side="right"))
    return figure(
        traces,
        title="The answers usually reveal far less than the worst case charges",
        x="answers given",
        y=f"privacy loss, {'e^ℓ (log axis)' if ratio else 'ℓ (ε units)'}",
        marks=marks,
        hovermode="x unified",
        height=360,
        **_loss_axis(ratio),
    )


# --- beliefs ---------------------------------------------------------------------------------------


def beliefs(df: pd.DataFrame) -> go.Figure:
    """Prior (grey), likelihood Λ(x) rescaled (orange), posterior (blue) over the domain."""
    traces = [
        {"type": "bar", "x": df["x"], "y": df["prior"], "name": "prior b(x)", "marker": {"color": PRIOR}},
        {
            "type": "bar",
            "x": df["x"],
            "y": df["posterior"],
            "name": "posterior b(x | y)",
            "marker": {"color": BAYES},
        },
        line(
            df["x"],
            df["likelihood_scaled"],
            name="likelihood Λ(x) (rescaled)",
            color=LIKE,
            dash="dot",
            mode="lines+markers",
        ),
    ]
    return figure(
        traces,
        title="Belief before and after the outputs (Bayes' rule, Eq. 2)",
        x="value x of the object",
        y="probability",
        barmode="group",
    )


def statement_band(bands: pd.DataFrame, *, ratio: bool, text: str) -> go.Figure:
    """The gain of one statement and the Lemma 3.2 worst case inside the realized and the LDP bands."""
    lo, hi = bands[_col("low", ratio)].to_numpy(), bands[_col("high", ratio)].to_numpy()
    names = [*bands["item"][:2], f"gain of “{text}”", "Lemma 3.2 construction"]
    bands_ = (0, 1)  # the two bands: one bar trace (fewer traces: each costs the browser a redraw pass)
    points = ((2, LIKE, "diamond"), (3, MAXC, "x"))  # the two gains: one marker trace
    traces: list[dict] = [
        {
            "type": "bar",
            "orientation": "h",
            "y": [names[i] for i in bands_],
            "x": [hi[i] - lo[i] for i in bands_],
            "base": [lo[i] for i in bands_],
            "marker": {"color": [BASIC, BAYES]},
            "opacity": 0.45,
            "customdata": [[number(lo[i], 4), number(hi[i], 4)] for i in bands_],
            "hovertemplate": "%{customdata[0]} … %{customdata[1]}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "y": [names[i] for i, _, _ in points],
            "x": [lo[i] for i, _, _ in points],
            "marker": {"color": [c for _, c, _ in points], "size": 14, "symbol": [m for _, _, m in points]},
            "customdata": [number(lo[i], 4) for i, _, _ in points],
            "hovertemplate": "%{y}: %{customdata}<extra></extra>",
        },
    ]
    x_title = "gain b(φ|y)/b(φ) (log axis)" if ratio else "ln of the gain (ε units)"
    return figure(
        traces,
        title="Knowledge gain b(φ|y)/b(φ) against its bands",
        x=x_title,
        y="",
        showlegend=False,
        hovermode="closest",
        height=300,
        xaxis={"title": {"text": x_title}, **({"type": "log"} if ratio else {})},
    )


def lemma_curve(df: pd.DataFrame, *, ratio: bool, weight: float) -> go.Figure:
    """Gain of the Lemma 3.2 statement and prior against the prior's weight w, approaching e^ℓ from below."""
    y = "lemma_gain" if ratio else "lemma_log_gain"
    traces = [
        line(df["weight"], df[y], name="Lemma 3.2 gain", color=MAXC),
        line(  # a constant: its two ends draw the same line as every weight
            df["weight"].iloc[[0, -1]].to_numpy(),
            df[_col("bound", ratio)].iloc[[0, -1]].to_numpy(),
            name="realized loss (the supremum)",
            color=BAYES,
            dash="dash",
        ),
    ]
    return figure(
        traces,
        title="The adversarial prior (weight w on the most revealing value) reaches the realized loss as w → 0",
        x="weight w (log scale)",
        y="gain (log axis)" if ratio else "ln gain (ε units)",
        xaxis={"title": {"text": "weight w (log scale)"}, "type": "log", "exponentformat": "power"},
        marks=[vline(weight, f"w = {number(weight)}")],
        **_loss_axis(ratio),
    )


def _blues(values: np.ndarray) -> tuple[list[str], float, float]:
    """Colours of ``values`` on the sequential Blues scale between their min and max, as ``#rrggbb`` strings.

    What Plotly draws for ``marker.color=values, colorscale="Blues"``, computed here: fixed colours redraw much
    faster in the browser than a per-point colour mapping (bench/results-where-time-goes.md)."""
    lo, hi = float(np.min(values)), float(np.max(values))
    t = (values - lo) / (hi - lo) if hi > lo else np.zeros(len(values))
    stops = np.linspace(0.0, 1.0, len(_BLUES))
    rgb = np.column_stack([np.interp(t, stops, _BLUES[:, c]) for c in range(3)]).round().astype(int)
    return [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in rgb], lo, hi  # hex: Plotly validates it faster than rgb()


def output_losses(df: pd.DataFrame, *, ratio: bool) -> go.Figure:
    """ℓ of each output pattern (sorted), coloured by its probability under x*, against Σε."""
    labels = (df["pattern"] if len(df) <= 64 else df["rank"]).to_numpy()
    loss = df[_col("loss", ratio)].to_numpy()
    bound = float(df[_col("basic", ratio)].iloc[0])
    colors, p_lo, p_hi = _blues(df["probability"].to_numpy(dtype=float))
    traces = [
        {
            "type": "bar",
            "x": labels,
            "y": loss,
            "name": "realized loss of the pattern",
            "customdata": np.column_stack([df["pattern"], [number(v, 3) for v in df["probability"]]]),
            "hovertemplate": "pattern %{customdata[0]}<br>loss %{y:.4g}<br>P(pattern | x*) %{customdata[1]}"
                             "<extra></extra>",
            "marker": {"color": colors, "line": {"width": 0}},
        },
        {  # carries the colour bar of the bars' probabilities (one invisible point on the first bar)
            "type": "scatter",
            "mode": "markers",
            "x": labels[:1],
            "y": loss[:1],
            "showlegend": False,
            "hoverinfo": "skip",
            "marker": {
                "color": [p_lo],
                "cmin": p_lo,
                "cmax": p_hi if p_hi > p_lo else p_lo + 1e-12,
                "colorscale": "Blues",
                "showscale": True,
                "opacity": 0,
                "size": 1,
                "colorbar": {"title": {"text": "P(· | x*)"}},
            },
        },
    ]
    return figure(
        traces,
        title="Realized loss of every output pattern vs the LDP bound",
        x="output pattern" if len(df) <= 64 else "output pattern (sorted by loss)",
        y=f"loss, {'e^ℓ' if ratio else 'ℓ'}",
        marks=[hline(bound, "LDP bound Σε", color=BUDGET, dash="dash", side="right")],
        hovermode="closest",
        bargap=0.05 if len(df) > 64 else 0.2,
        **_loss_axis(ratio),
    )


def landscape(df: pd.DataFrame, s: Any, *, ratio: bool) -> go.Figure:
    """ln Λ(x) − min ln Λ over the domain (or Λ/min Λ); the tallest bar is the realized loss ℓ."""
    y = df[_col("log_likelihood_rel", ratio)]
    colors = [MAXC if v in s.argmax else MINC if v in s.argmin else LIKE for v in df["x"]]
    ext = [(list(s.argmax), "argmax Λ", MAXC, "triangle-down"), (list(s.argmin), "argmin Λ", MINC, "triangle-up")]
    traces = [
        {
            "type": "bar",
            "x": df["x"],
            "y": y,
            "name": "Λ(x) / min Λ" if ratio else "ln Λ(x) − min ln Λ",
            "marker": {"color": colors},
        }
    ]
    traces += [
        {
            "type": "scatter",
            "mode": "markers",
            "x": xs,
            "y": y[df["x"].isin(xs)],
            "name": name,
            "marker": {"color": c, "symbol": sym, "size": 14},
        }
        for xs, name, c, sym in ext
    ]
    top = float(y.max())
    return figure(
        traces,
        title="Likelihood landscape: the realized loss is the gap between its extremes",
        x="value x of the object",
        y="Λ(x) / min Λ (log axis)" if ratio else "ln Λ(x) − min ln Λ",
        marks=[hline(top, f"realized loss = {number(top, 4)}", color=BAYES, dash="dot", side="right")],
        **_loss_axis(ratio),
    )


def landscape_2d(grid: pd.DataFrame, b: Any) -> go.Figure:
    """Heatmap of ln Λ(x₁, x₂) for 2-D regression answers with the certified argmax/argmin and x*."""
    g = np.sort(grid["x1"].unique())
    z = grid["log_likelihood"].to_numpy().reshape(len(g), len(g))
    pts = [
        (b.argmax, "argmax (branch-and-bound)", MAXC, "triangle-up"),
        (b.argmin, "argmin (branch-and-bound)", MINC, "triangle-down"),
        (b.x_star, "x* (answers drawn here)", "black", "x"),
    ]
    traces = [
        {
            "type": "heatmap",
            "x": g,
            "y": g,
            "z": z,
            "colorscale": "Viridis",
            "colorbar": {"title": {"text": "ln Λ"}},
            "name": "ln Λ",
        }
    ]
    traces += [
        {
            "type": "scatter",
            "mode": "markers",
            "x": [p[0]],
            "y": [p[1]],
            "name": name,
            "marker": {"color": c, "size": 14, "symbol": sym, "line": {"color": "white", "width": 1.5}},
        }
        for p, name, c, sym in pts
    ]
    return figure(
        traces,
        title=f"ln Λ over the box [−1, 1]² for {b.k} {b.kind} regression answers",
        x="x₁",
        y="x₂",
        hovermode="closest",
        height=420,
    )


# --- the filter ----------------------------------------------------------------------------------


def timeline(df: pd.DataFrame, s: Any, *, ratio: bool) -> go.Figure:
    """Odometer (step), look-ahead W_k (dots), budget ε_G, basic composition Σε; rejection markers."""
    acc = df["accepted"]
    steps = np.r_[0, df["step"]]
    loss = np.r_[1.0 if ratio else 0.0, df[_col("loss", ratio)]]
    basic = np.r_[1.0 if ratio else 0.0, df[_col("basic_spent", ratio)].where(df["basic_accepted"])]
    traces = [
        _step(steps, loss, name="Bayesian odometer ℓ(r)", color=BAYES),
        _step(steps, basic, name="basic composition Σε (while it accepts)", color=BASIC, dash="dot"),
        {
            "type": "scatter",
            "mode": "markers",
            "x": df.loc[acc, "step"],
            "y": df.loc[acc, _col("worst_case", ratio)],
            "name": "look-ahead max_y ℓ(r + (q, y)): accepted",
            "marker": {"color": GOOD, "size": 9},
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": df.loc[~acc, "step"],
            "y": df.loc[~acc, _col("worst_case", ratio)],
            "name": "look-ahead: rejected (query not run)",
            "marker": {"color": BUDGET, "size": 10, "symbol": "x"},
        },
    ]
    marks = [hline(float(df[_col("budget", ratio)].iloc[0]), "budget ε_G", color=BUDGET, dash="dash", side="right")]
    if s.basic_stop is not None:
        marks.append(vline(s.basic_stop - 0.5, "basic composition stops", position="top"))
    if s.first_rejection is not None:
        marks.append(vline(s.first_rejection - 0.5, "first Bayesian rejection"))
    return figure(
        traces,
        title="Filter timeline: the look-ahead decides, the odometer may go down",
        x="query number",
        y=f"privacy loss, {'e^ℓ (log axis)' if ratio else 'ℓ'}",
        marks=marks,
        hovermode="closest",
        height=440,
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        **_loss_axis(ratio),
    )


def accepted_hist(df: pd.DataFrame, *, basic: int) -> go.Figure:
    """Accepted counts over the simulated runs (BPF, Simplified) with basic composition's count."""
    names = {"bayesian": ("Bayesian filter", BAYES), "simplified": ("Simplified filter", SIMPLE)}
    traces = []
    for m, (name, c) in names.items():
        part = df[df["method"] == m]
        traces.append(
            {"type": "bar", "x": part["accepted"], "y": part["runs"], "name": name, "marker": {"color": c}}
        )
    return figure(
        traces,
        title="How many queries get answered? (greedy analyst, seeded runs)",
        x="answered queries",
        y="runs",
        barmode="group",
        marks=[vline(basic, f"basic composition: {basic}", position="top")],
        hovermode="closest",
    )


def rr_curve(df: pd.DataFrame, *, budget: float) -> go.Figure:
    """E[#accepted] on a binary RR stream vs ε_G (closed form) with Monte Carlo means ± 2 SE."""
    mc = df.dropna(subset=["mc_mean"])
    traces = [line(df["budget"], df["closed_form"], name="Bayesian filter, closed form", color=BAYES)]
    if len(mc):  # Monte-Carlo points only when the page's "simulate" toggle is on
        traces.append({
            "type": "scatter",
            "mode": "markers",
            "x": mc["budget"],
            "y": mc["mc_mean"],
            "name": "Monte Carlo mean ± 2 SE",
            "error_y": {"type": "data", "array": 2 * mc["mc_se"], "visible": True},
            "marker": {"color": "black", "size": 8},
        })
    traces.append(_step(df["budget"], df["basic"], name="basic composition ⌊ε_G/ε⌋", color=BASIC, dash="dot"))
    lo, hi = float(df["budget"].min()), float(df["budget"].max())
    marks = [vline(budget, f"ε_G = {number(budget)}", position="top")] if lo <= budget <= hi else []
    return figure(
        traces,
        title="Expected answered queries for a binary randomized-response stream",
        x="budget ε_G",
        y="expected answered queries",
        marks=marks,
    )


def regions(df: pd.DataFrame, *, remaining: float) -> go.Figure:
    """Which candidate queries (slope, ε_q) each rule accepts from the current state (a category map)."""
    order = ("both reject", "only the full filter", "both accept")
    colors = ("#DDDDDD", BAYES, GOOD)
    piv = df.assign(code=df["region"].map({r: i for i, r in enumerate(order)})).pivot(
        index="epsilon", columns="slope", values="code"
    )
    wc = df.pivot(index="epsilon", columns="slope", values="worst_case")
    scale = [[b, c] for i, c in enumerate(colors) for b in (i / 3, (i + 1) / 3)]
    traces = [
        {
            "type": "heatmap",
            "x": piv.columns,
            "y": piv.index,
            "z": piv.to_numpy(),
            "zmin": -0.5,
            "zmax": 2.5,
            "colorscale": scale,
            "customdata": wc.to_numpy(),
            "xgap": 1,
            "ygap": 1,
            "colorbar": {"tickvals": [0, 1, 2], "ticktext": list(order), "title": {"text": ""}},
            "hovertemplate": "slope %{x:.2f}, ε_q %{y:.3g}<br>look-ahead ℓ %{customdata:.4g}<extra></extra>",
        }
    ]
    shown = float(df["epsilon"].min()) <= remaining <= float(df["epsilon"].max())
    marks = (
        [hline(remaining, "Simplified boundary ε_q = ε_G − ℓ(r)", color=BUDGET, dash="dash", side="right")]
        if shown
        else []
    )
    return figure(
        traces,
        title="Acceptance regions: Simplified (ℓ + ε_q ≤ ε_G) vs full look-ahead",
        x="slope of the candidate query v(x) = slope · x/(|D|−1) (0: it says nothing)",
        y="declared ε_q of the candidate (log axis)",
        log_y=True,
        marks=marks,
        hovermode="closest",
        height=420,
    )


# --- branch-and-bound -----------------------------------------------------------------------------


def bnb_trace(trace: pd.DataFrame, *, loose_gap: float) -> go.Figure:
    """Certified lower and attained upper bounds of both extremes of ln Λ against explored nodes."""
    traces = []
    for search, c in (("min ln Λ", MINC), ("max ln Λ", MAXC)):
        part = trace[trace["search"] == search]
        traces.append(_step(*_corners(part["nodes"], part["upper_bound"]), name=f"{search}: upper bound", color=c))
        traces.append(
            _step(*_corners(part["nodes"], part["lower_bound"]), name=f"{search}: lower bound", color=c, dash="dot")
        )
    return figure(
        traces,
        title=f"Branch-and-bound converges from both sides (a stop at gap {number(loose_gap)} explains App. E)",
        x="pieces of the box explored",
        y="ln Λ bound",
        hovermode="x unified",
    )


def secant(df: pd.DataFrame, *, z_range: tuple[float, float], kind: str = "logistic") -> go.Figure:
    """DC split f = C − V of one regression term and the secant V̂ ≥ V that makes C − V̂ convex and ≤ f."""
    v_name = "V(z) = softplus(z) (convex)" if kind == "logistic" else "V(z), the convex part subtracted"
    traces = [
        line(df["z"], df["f"], name="f(z) = ln Pr[y | z]", color="black"),
        line(df["z"], df["V"], name=v_name, color=MAXC),
        line(df["z"], df["V_secant"], name="secant V̂ ≥ V", color=MAXC, dash="dash"),
        line(df["z"], df["relaxed"], name="relaxation C − V̂ ≤ f (convex)", color=MINC, dash="dot"),
    ]
    return figure(
        traces,
        title=f"Secant relaxation of one term on z ∈ [{z_range[0]:.2f}, {z_range[1]:.2f}]",
        x="score z = θ·x̃" if kind == "logistic" else "z = Pr[y | x] before clipping (affine in x)",
        y="value",
    )


# --- the "Reproduce the paper" view ----------------------------------------------------------------


def example2(df: pd.DataFrame) -> go.Figure:
    """Example 2: Λ(x) of outputs (1, 0, 1) with the values the paper prints (x = 2 misprinted)."""
    printed = df.dropna(subset=["paper"])
    traces = [
        {
            "type": "bar",
            "x": df["x"],
            "y": df["likelihood"],
            "name": "Λ(x) from the queries of Eq. 11",
            "marker": {"color": LIKE},
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": printed["x"],
            "y": printed["paper"],
            "name": "paper's table",
            "marker": {"color": "black", "size": 11, "symbol": "diamond"},
        },
    ]
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
        tr = _step(np.r_[0, part["accepted"]], np.r_[0.0, part["loss"]], name="realized loss, one run per line",
                   color=BAYES, width=1.2)
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
    traces = [
        {
            "type": "bar",
            "x": d["pattern"],
            "y": d["certified"],
            "name": "exact (certified B&B)",
            "marker": {"color": BAYES},
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": d["pattern"],
            "y": d["paper"],
            "name": "paper (App. E)",
            "marker": {"color": BUDGET, "size": 10, "symbol": "diamond"},
        },
    ]
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


__all__ = [
    "accepted_hist",
    "idea",
    "loss_paths",
    "beliefs",
    "bnb_trace",
    "evaluation",
    "example2",
    "healthcare",
    "landscape",
    "landscape_2d",
    "lemma_curve",
    "output_losses",
    "regions",
    "rr_curve",
    "secant",
    "statement_band",
    "timeline",
]
