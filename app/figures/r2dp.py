"""Figures of the R²DP page and lesson (Mohammady et al. 2020) and its re-implemented Figs. 3–9: frames in,
``go.Figure`` out."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.catalogue.r2dp import FAMILY
from app.figures.style import COLORS, LABELS, figure, line, vband, vline
from app.notation import number

#: Colours of the R²DP families (Okabe–Ito / Tol, distinct from the app-wide Laplace and staircase colours).
FAMILY_COLORS = {
    "this law": COLORS["r2dp"],
    "laplace": COLORS["laplace"],
    "staircase": COLORS["staircase"],
    "two_point": "#009E73",
    "gamma": "#CC79A7",
    "uniform": "#0072B2",
    "truncnorm": "#882255",
    "combo": "#222222",  # dashed (see _family_traces): it overlaps its two parts
    "cap": COLORS["reference"],
}
#: Legend words of the curves: the baselines here, the R²DP families' from their one table (app.catalogue.r2dp).
FAMILY_LABELS = {
    "laplace": LABELS["laplace"],
    "staircase": "optimal staircase",
    **{fam: FAMILY[fam].legend for fam in ("two_point", "gamma", "uniform", "truncnorm", "combo")},
    "cap": "cap γe^(ε−1)/Δ",
}


def _line(x, y, **kw) -> dict:
    """style.line with numpy data (pandas Series cost Plotly a slow conversion per trace)."""
    return line(np.asarray(x), np.asarray(y), **kw)


def hline(y: float, text: str, *, color: str = COLORS["reference"], yref: str = "y") -> tuple[dict, dict]:
    """A dotted horizontal line across the plot and its label (shape, annotation)."""
    shape = {
        "type": "line",
        "x0": 0,
        "x1": 1,
        "xref": "paper",
        "y0": y,
        "y1": y,
        "yref": yref,
        "line": {"color": color, "dash": "dot", "width": 1.5},
    }
    note = {
        "x": 1,
        "xref": "paper",
        "y": y,
        "yref": yref,
        "text": text,
        "showarrow": False,
        "xanchor": "right",
        "yanchor": "bottom",
        "font": {"color": color},
    }
    return shape, note


def _solid(color: str) -> list:
    """A one-colour colorscale (contour lines take their colour from the colorscale)."""
    return [[0, color], [1, color]]


def _log_axis(values: np.ndarray, title: str) -> dict:
    """A linear axis over log10 data labelled like a log axis (1, 2, 5 per decade).

    Contours are drawn on log10 coordinates because Plotly interpolates contour levels linearly in data units, which
    puts a contour visibly off on a coarse geometric grid with a log axis.
    """
    lo, hi = float(np.min(values)), float(np.max(values))
    ticks = [
        m * 10.0**e
        for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
        for m in (1, 2, 5)
        if lo <= m * 10.0**e <= hi
    ]
    return {
        "title": {"text": title},
        "tickvals": [math.log10(t) for t in ticks],
        "ticktext": [number(t) for t in ticks],
    }


def _marker(x: float, y: float, name: str, color: str, symbol: str = "x", **kw) -> dict:
    return {
        "type": "scatter",
        "mode": "markers",
        "x": [x],
        "y": [y],
        "name": name,
        "marker": {"color": color, "size": 12, "symbol": symbol, "line": {"width": 1, "color": "black"}},
        **kw,
    }


def mixing_law(df: pd.DataFrame, *, epsilon: float, sensitivity: float, as_scale: bool = False) -> go.Figure:
    """density / pmf of u = 1/b with the Laplace value u* = ε/Δ marked — or, with ``as_scale``, of the
    Laplace scale b = 1/u with b* = Δ/ε."""
    kind = df["kind"].iloc[0]
    color = FAMILY_COLORS["this law"]
    var = "b" if as_scale else "u"
    if kind == "pdf":
        trace = _line(df["x"], df["density"], name=f"density of {var}", color=color, fill="tozeroy")
    else:
        width = (df["x"].max() * 0.01 + 1e-12) if kind == "pmf" else float(np.diff(df["x"]).mean())
        trace = {
            "type": "bar",
            "x": df["x"].to_numpy(),
            "y": df["density"].to_numpy(),
            "width": width,
            "marker": {"color": color},
            "name": f"P({var} = atom)" if kind == "pmf" else f"density of {var} (sampled)",
        }
    if as_scale:
        star, axis, mark = sensitivity / epsilon, "b = 1/u (Laplace scale)", "Laplace b* = Δ/ε"
        title = "Mixing law seen as the Laplace scale b = 1/u: more spread than one fixed b"
    else:
        star, axis, mark = epsilon / sensitivity, "u = 1/b (inverse Laplace scale)", "Laplace u* = ε/Δ"
        title = "Mixing law: how the inverse scale u = 1/b is drawn"
    top = 1.1 * max(float(df["x"].max()), star)
    return figure(
        [trace],
        title=title,
        x=axis,
        y="probability" if kind == "pmf" else "density",
        xaxis={"title": {"text": axis}, "range": [0, top]},
        marks=[vline(star, f"{mark} = {number(star, 3)}", position="top")],
    )


def noise(
    dens: pd.DataFrame, hist: pd.DataFrame, sampled: float, *, gamma: float, mass: float, log_y: bool, draws: int
) -> go.Figure:
    """R²DP noise density with a histogram of ``draws`` seeded draws (whose share within ±γ is
    ``sampled``), Laplace(Δ/ε), the optimal staircase and |w| ≤ γ."""
    centers = ((hist["bin_left"] + hist["bin_right"]) / 2).to_numpy()
    traces = [
        {
            "type": "bar",
            "x": centers,
            "y": hist["empirical_density"].to_numpy(),
            "width": (hist["bin_right"] - hist["bin_left"]).to_numpy(),
            "name": f"{draws:,} sampled draws (this law)",
            "marker": {"color": FAMILY_COLORS["this law"]},
            "opacity": 0.3,
        },
        _line(dens["w"], dens["r2dp"], name="R²DP (this law)", color=FAMILY_COLORS["this law"]),
        _line(dens["w"], dens["laplace"], name="Laplace(Δ/ε)", color=FAMILY_COLORS["laplace"], width=2),
        _line(
            dens["w"],
            dens["staircase"],
            name="optimal staircase",
            color=FAMILY_COLORS["staircase"],
            width=2,
            dash="dash",
        ),
    ]
    return figure(
        traces,
        title=f"Noise density — mass within |w| ≤ γ: {mass:.4f} (sampled: {sampled:.4f})",
        x="noise w",
        y="density" + (" (log scale)" if log_y else ""),
        log_y=log_y,
        marks=[vband(-gamma, gamma, f"|w| ≤ γ = {number(gamma)}")],
        barmode="overlay",
        bargap=0,
    )


def loss_profile(df: pd.DataFrame, *, eps_law: float, epsilon: float, sensitivity: float) -> go.Figure:
    """L(y) = ln f(y) − ln f(y − Δ) for the law and Laplace, with ±ε of the law."""
    traces = [
        _line(df["y"], df["r2dp"], name="R²DP (this law)", color=FAMILY_COLORS["this law"]),
        _line(
            df["y"], df["laplace"], name=f"Laplace at ε = {number(epsilon)}", color=FAMILY_COLORS["laplace"], width=2
        ),
    ]
    marks = [
        hline(eps_law, f"+ε of this law = {number(eps_law, 4)}"),
        hline(-eps_law, f"−ε = {number(-eps_law, 4)}"),
        vline(0.0, "q(d)"),
        vline(sensitivity, "q(d′)"),
    ]
    return figure(
        traces,
        title="Privacy-loss profile (true answers q(d) = 0, q(d′) = Δ)",
        x="output y",
        y="L(y) = ln f(y) − ln f(y − Δ)",
        marks=marks,
    )


def mgf(df: pd.DataFrame, *, gamma: float, sensitivity: float) -> go.Figure:
    """M(t) and M′(t) with the points that give usefulness, ε and the necessary condition."""
    traces = [
        _line(df["t"], df["M"], name="M(t) = E[exp(t·u)]", color=FAMILY_COLORS["this law"]),
        _line(df["t"], df["M_prime"], name="M′(t) = E[u·exp(t·u)]", color=FAMILY_COLORS["uniform"], width=2),
    ]
    marks = [
        vline(-gamma, "−γ: U = 1 − M(−γ)"),
        vline(-sensitivity, "−Δ", position="top"),
        vline(0.0, "0: ε = ln M′(0)/M′(−Δ)", position="top"),
        vline(sensitivity, "+Δ: ln M(Δ)"),
    ]
    return figure(
        traces,
        title="One curve, privacy and utility: the MGF of u",
        x="t",
        y="value (log scale)",
        log_y=True,
        marks=marks,
    )


def _family_traces(df: pd.DataFrame, x: str, y: str, yaxis: str, show_legend: bool) -> list[dict]:
    traces = []
    for fam in ("laplace", "staircase", "cap", "two_point", "gamma", "uniform", "truncnorm", "combo"):
        part = df[df["family"] == fam]
        if part.empty:
            continue
        dash = {"cap": "dot", "combo": "dash"}.get(fam)
        t = _line(
            part[x],
            part[y],
            name=FAMILY_LABELS[fam],
            color=FAMILY_COLORS[fam],
            width=2,
            dash=dash,
            yaxis=yaxis,
            legendgroup=fam,
            showlegend=show_legend,
        )
        if fam in ("two_point", "gamma", "uniform", "truncnorm", "combo"):
            t["mode"] = "lines+markers"
            t["marker"] = {"size": 5}
        traces.append(t)
    return traces


def _two_rows(traces: list[dict], *, title: str, x: str, log_x: bool, marks: list) -> go.Figure:
    fig = figure(
        traces,
        title=title,
        x=x,
        y="",
        log_x=log_x,
        marks=marks,
        height=580,
        hovermode="closest",
        margin={"l": 60, "r": 20, "t": 50, "b": 110},
        legend={"orientation": "h", "yanchor": "top", "y": -0.12, "x": 0.0},
        yaxis={"title": {"text": "usefulness U = P(|W| ≤ γ)"}, "domain": [0.42, 1.0], "range": [0, 1.02]},
        yaxis2={"title": {"text": "U / U_Laplace"}, "domain": [0.0, 0.33], "anchor": "x"},
        xaxis={"title": {"text": x}, **({"type": "log"} if log_x else {}), "anchor": "y2"},
    )
    return fig


def usefulness_vs_epsilon(df: pd.DataFrame, *, epsilon: float) -> go.Figure:
    """U against ε for each optimised family, the staircase, Laplace and the cap; ratio to Laplace below."""
    top = df[df["family"] != "cap"]
    traces = _family_traces(df, "epsilon", "usefulness", "y", True) + _family_traces(
        top, "epsilon", "ratio", "y2", False
    )
    return _two_rows(
        traces,
        title="Best usefulness of each family at every ε (γ/Δ fixed)",
        x="ε (log scale)",
        log_x=True,
        marks=[vline(epsilon, f"ε = {number(epsilon)}", position="top")],
    )


def usefulness_vs_g(df: pd.DataFrame, *, g: float) -> go.Figure:
    """U against γ/Δ at fixed ε; ratio to Laplace below."""
    traces = _family_traces(df, "g", "usefulness", "y", True) + _family_traces(df, "g", "ratio", "y2", False)
    marks = [vline(g, f"γ/Δ = {number(g, 3)}", position="top")] if g <= 3 else []
    return _two_rows(
        traces,
        title="Best usefulness of each family against the tolerance γ/Δ (ε fixed)",
        x="γ/Δ",
        log_x=False,
        marks=marks,
    )


def _log_ratio_ticks(zmax: float) -> dict:
    vals = [v for v in (1, 1.01, 1.1, 1.5, 2, 3, 5, 10) if math.log10(v) <= zmax + 1e-9]
    return {
        "tickvals": [math.log10(v) for v in vals],
        "ticktext": [f"{number(v)}×" for v in vals],
        "title": {"text": "U*/U_Lap"},
    }


def improvement_map(df: pd.DataFrame, two_point: pd.DataFrame, *, family: str, epsilon: float, g: float) -> go.Figure:
    """log-coloured ratio U*_family/U_Lap over (ε, γ/Δ), threshold 2/(1 − g), two-point boundary."""
    piv = df.pivot(index="g", columns="epsilon", values="ratio")
    z = np.log10(piv.to_numpy())
    zmax = max(float(np.nanmax(z)), 0.01)
    tp = two_point.pivot(index="g", columns="epsilon", values="ratio")
    thr = df.drop_duplicates("g").sort_values("g")
    thr = thr[thr["threshold_epsilon"] <= piv.columns.max()]
    traces = [
        {
            "type": "heatmap",
            "x": list(piv.columns),
            "y": list(piv.index),
            "z": z,
            "zmin": 0,
            "zmax": zmax,
            "colorscale": "Viridis",
            "colorbar": _log_ratio_ticks(zmax),
            "name": FAMILY_LABELS.get(family, family),
            "hovertemplate": "ε %{x}, γ/Δ %{y}: log10 ratio %{z:.3f}<extra></extra>",
        },
        {
            "type": "contour",
            "x": list(tp.columns),
            "y": list(tp.index),
            "z": tp.to_numpy(),
            "showscale": False,
            "contours": {"start": 1.001, "end": 1.001, "size": 1, "coloring": "lines"},
            "colorscale": _solid("white"),
            "line": {"color": "white", "width": 2, "dash": "dash"},
            "name": "two-point beats Laplace (boundary)",
            "showlegend": True,
            "hoverinfo": "skip",
        },
        _line(thr["threshold_epsilon"], thr["g"], name="local threshold ε = 2/(1 − γ/Δ)", color="red", width=2),
        _marker(epsilon, g, "you are here", "white"),
    ]
    return figure(
        traces,
        title=f"Region of improvement of {FAMILY_LABELS.get(family, family)} over Laplace",
        x="ε (log scale)",
        y="γ/Δ (log scale)",
        log_x=True,
        log_y=True,
        height=460,
        hovermode="closest",
    )


def landscape(df: pd.DataFrame, best: Any, *, current: Any, epsilon: float) -> go.Figure:
    """Gamma (ν, s) landscape — usefulness, the exact-ε contour, the necessary-condition boundary, optimum."""
    k_values, th_values = np.unique(df["k"]), np.unique(df["theta"])
    k, th = np.log10(k_values), np.log10(th_values)
    shape = (k.size, th.size)
    useful = df["usefulness"].to_numpy().reshape(shape).T
    eps = df["epsilon"].to_numpy().reshape(shape).T
    gap = np.clip(eps - np.minimum(df["necessary_condition"].to_numpy().reshape(shape).T, 1e6), -50, 50)
    traces = [
        {
            "type": "contour",
            "x": k,
            "y": th,
            "z": useful,
            "colorscale": "Blues",
            "contours": {"coloring": "heatmap"},
            "colorbar": {"title": {"text": "U(γ)"}},
            "name": "usefulness",
            "hovertemplate": "log10 ν %{x:.2f}, log10 s %{y:.2f}: U %{z:.3f}<extra></extra>",
        },
        {
            "type": "contour",
            "x": k,
            "y": th,
            "z": eps,
            "showscale": False,
            "name": f"exact ε = {number(epsilon)}",
            "contours": {"start": epsilon, "end": epsilon, "size": 1, "coloring": "lines"},
            "colorscale": _solid("black"),
            "line": {"color": "black", "width": 3},
            "showlegend": True,
            "hoverinfo": "skip",
        },
        {
            "type": "contour",
            "x": k,
            "y": th,
            "z": gap,
            "showscale": False,
            "name": "ε = ln M(Δ) (Thm 4.2 boundary)",
            "contours": {"start": 0, "end": 0, "size": 1, "coloring": "lines"},
            "colorscale": _solid("red"),
            "line": {"color": "red", "width": 2, "dash": "dash"},
            "showlegend": True,
            "hoverinfo": "skip",
        },
        _marker(math.log10(best.k), math.log10(best.theta), "constrained optimum", "gold", "star"),
    ]
    if current is not None:
        traces.append(_marker(math.log10(current.k), math.log10(current.theta), "this law", FAMILY_COLORS["this law"]))
    return figure(
        traces,
        title="Gamma law: usefulness over its shape ν and scale s, and the ε constraint",
        x="",
        y="",
        height=460,
        hovermode="closest",
        xaxis=_log_axis(k_values, "shape ν (log scale)"),
        yaxis=_log_axis(th_values, "scale s (log scale)"),
    )


def two_point_map(
    df: pd.DataFrame, *, current: tuple[float, float] | None, best: tuple[float, float] | None, laplace: float
) -> go.Figure:
    """usefulness of the ε-exact two-point law over (u0/u*, u1/u*), with the Laplace level as a contour."""
    piv = df.pivot(index="u1_over_ustar", columns="u0_over_ustar", values="usefulness")
    x, y = np.log10(piv.columns.to_numpy()), np.log10(piv.index.to_numpy())
    traces = [
        {
            "type": "contour",
            "x": x,
            "y": y,
            "z": piv.to_numpy(),
            "colorscale": "Greens",
            "contours": {"coloring": "heatmap"},
            "colorbar": {"title": {"text": "U(γ)"}},
            "name": "U",
            "hovertemplate": "log10 u₀/u* %{x:.2f}, log10 u₁/u* %{y:.2f}: U %{z:.4f}<extra></extra>",
        },
        {
            "type": "contour",
            "x": x,
            "y": y,
            "z": piv.to_numpy(),
            "showscale": False,
            "contours": {"start": laplace, "end": laplace, "size": 1, "coloring": "lines"},
            "colorscale": _solid(FAMILY_COLORS["laplace"]),
            "line": {"color": FAMILY_COLORS["laplace"], "width": 2},
            "name": "= Laplace usefulness",
            "showlegend": True,
            "hoverinfo": "skip",
        },
    ]
    for point, name, color, symbol in (
        (best, "global optimum", "gold", "star"),
        (current, "your u₀, u₁", FAMILY_COLORS["this law"], "x"),
    ):
        if point is not None and min(point) > 0:
            traces.append(_marker(math.log10(point[0]), math.log10(point[1]), name, color, symbol))
    return figure(
        traces,
        title="Two-point laws with exact ε: mix a too-private and a not-private-enough Laplace",
        x="",
        y="",
        height=460,
        hovermode="closest",
        xaxis=_log_axis(piv.columns.to_numpy(), "u₀/u* (the more private value, log scale)"),
        yaxis=_log_axis(piv.index.to_numpy(), "u₁/u* (the less private value, log scale)"),
    )


def _log_thin(n: int, points: int = 400) -> np.ndarray:
    """Row indices 0…n−1 spaced evenly in log(row + 1), first and last included: all rows when n ≤ points."""
    if n <= points:
        return np.arange(n)
    return np.unique(np.round(np.geomspace(1, n, points)).astype(int) - 1)


def releases(df: pd.DataFrame, exact: float, *, true_answer: float, gamma: float) -> go.Figure:
    """histogram of released values (left) and the running share within ±γ vs the exact U (right)."""
    lo, hi = np.quantile(df["released"], [0.01, 0.99])
    shown = df["released"][df["released"].between(lo, hi)].to_numpy()
    keep = _log_thin(len(df))  # the running share is drawn on a log axis: ~220 points carry its whole shape
    rel = df["release"].to_numpy()[keep]
    share = df["running_share"].to_numpy()[keep]
    band_hi = share + 2 * df["standard_error"].to_numpy()[keep]
    band_lo = share - 2 * df["standard_error"].to_numpy()[keep]
    traces = [
        {
            "type": "histogram",
            "x": shown,
            "nbinsx": 60,
            "name": "released values (1–99 % range)",
            "marker": {"color": FAMILY_COLORS["this law"]},
            "xaxis": "x",
            "yaxis": "y",
        },
        {
            "type": "scatter",
            "x": np.concatenate([rel, rel[::-1]]),
            "y": np.concatenate([band_hi, band_lo[::-1]]),
            "fill": "toself",
            "fillcolor": "rgba(127,127,127,0.2)",
            "line": {"width": 0},
            "name": "±2 standard errors",
            "xaxis": "x2",
            "yaxis": "y2",
            "hoverinfo": "skip",
        },
        _line(rel, share, name="share within ±γ so far", color=FAMILY_COLORS["two_point"], xaxis="x2", yaxis="y2"),
        _line(
            [1, int(df["release"].iloc[-1])],
            [exact, exact],
            name=f"exact U(γ) = {exact:.4f}",
            color="black",
            width=1.5,
            dash="dot",
            xaxis="x2",
            yaxis="y2",
        ),
    ]
    band = {
        "type": "rect",
        "x0": true_answer - gamma,
        "x1": true_answer + gamma,
        "y0": 0,
        "y1": 1,
        "xref": "x",
        "yref": "paper",
        "fillcolor": COLORS["reference"],
        "opacity": 0.15,
        "line": {"width": 0},
    }
    return figure(
        traces,
        title=f"{len(df)} releases of the true answer q(D) = {number(true_answer)}",
        x="released value",
        y="count",
        height=400,
        hovermode="closest",
        shapes=[band],
        xaxis={"title": {"text": "released value"}, "domain": [0, 0.45]},
        xaxis2={"title": {"text": "release number (log)"}, "domain": [0.55, 1], "type": "log", "anchor": "y2"},
        yaxis2={"title": {"text": "P(|error| ≤ γ)"}, "anchor": "x2", "range": [0, 1.02]},
    )


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


def reuse(df: pd.DataFrame) -> go.Figure:
    """Composition: total ε of n releases with fresh secret draws (n·ε) and with one reused draw of u."""
    traces = [
        _line(
            df["queries"],
            df["fresh draws"],
            name="a fresh secret u per release (ε adds up)",
            color=COLORS["laplace"],
            mode="lines+markers",
        ),
        _line(
            df["queries"],
            df["one reused draw"],
            name="one secret u reused for all releases (exact)",
            color=COLORS["r2dp"],
            dash="dash",
            mode="lines+markers",
        ),
    ]
    return figure(
        traces,
        title="Total privacy loss of n releases",
        x="number of releases n",
        y="total ε",
        height=360,
        hovermode="x unified",
        legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0.0},
        margin={"l": 60, "r": 20, "t": 50, "b": 90},
    )


__all__ = [
    "mixing_law",
    "noise",
    "loss_profile",
    "mgf",
    "usefulness_vs_epsilon",
    "usefulness_vs_g",
    "improvement_map",
    "landscape",
    "two_point_map",
    "releases",
    "fig3",
    "fig4",
    "fig5",
    "experiment",
    "reuse",
    "hline",
    "FAMILY_COLORS",
    "MECHANISM_STYLE",
]
