"""Usefulness U = P(|W| ≤ γ) (Mohammady et al. 2020, Def. 2.2) of the optimised R²DP families against Laplace:
curves, regions of improvement, landscapes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures.r2dp.marks import FAMILY_COLORS, FAMILY_LABELS, _line, _log_axis, _marker, _solid
from app.figures.style import figure, vline
from app.notation import number


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


def _level(x: Any, y: Any, z: Any, level: float, name: str, line: dict) -> dict:
    """The contour line z = ``level`` alone, in the legend as ``name`` (a one-colour line, not hovered)."""
    return {
        "type": "contour",
        "x": x,
        "y": y,
        "z": z,
        "showscale": False,
        "contours": {"start": level, "end": level, "size": 1, "coloring": "lines"},
        "colorscale": _solid(line["color"]),
        "line": line,
        "name": name,
        "showlegend": True,
        "hoverinfo": "skip",
    }


def _shaded(x: Any, y: Any, z: Any, colorscale: str, name: str, hovertemplate: str) -> dict:
    """z over (x, y) as filled contours, with a colour bar for U(γ)."""
    return {
        "type": "contour",
        "x": x,
        "y": y,
        "z": z,
        "colorscale": colorscale,
        "contours": {"coloring": "heatmap"},
        "colorbar": {"title": {"text": "U(γ)"}},
        "name": name,
        "hovertemplate": hovertemplate,
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
        _level(
            list(tp.columns),
            list(tp.index),
            tp.to_numpy(),
            1.001,
            "two-point beats Laplace (boundary)",
            {"color": "white", "width": 2, "dash": "dash"},
        ),
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
        _shaded(k, th, useful, "Blues", "usefulness", "log10 ν %{x:.2f}, log10 s %{y:.2f}: U %{z:.3f}<extra></extra>"),
        _level(k, th, eps, epsilon, f"exact ε = {number(epsilon)}", {"color": "black", "width": 3}),
        _level(k, th, gap, 0, "ε = ln M(Δ) (Thm 4.2 boundary)", {"color": "red", "width": 2, "dash": "dash"}),
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
        _shaded(
            x, y, piv.to_numpy(), "Greens", "U", "log10 u₀/u* %{x:.2f}, log10 u₁/u* %{y:.2f}: U %{z:.4f}<extra></extra>"
        ),
        _level(x, y, piv.to_numpy(), laplace, "= Laplace usefulness", {"color": FAMILY_COLORS["laplace"], "width": 2}),
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
