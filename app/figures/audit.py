"""Figures of the Audit page: output laws on D and D′ with the chosen event, per-bin likelihood ratios, ε_lb vs n."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures import style
from app.notation import number

#: Colour of each audited mechanism (the app-wide mechanism colours where one exists).
MECH_COLORS = {
    "laplace": style.COLORS["laplace"],
    "gaussian": style.COLORS["gaussian"],
    "brdp": style.COLORS["brdp"],
    "brdp_paper": style.COLORS["brdp_paper"],
    "svt_exp": "#B8A900",  # the app's SVT yellow, darkened to read on white
    "r2dp": style.COLORS["r2dp"],
    "rr": "#332288",
}
OTHER = style.COLORS["reference"]  # D′ is always grey


def _x(hist: pd.DataFrame, discrete: bool) -> np.ndarray:
    if discrete:
        return np.arange(len(hist), dtype=float)
    return ((hist["bin_left"] + hist["bin_right"]) / 2).to_numpy()


def _category_axis(hist: pd.DataFrame) -> dict:
    return {
        "xaxis": {
            "title": {"text": "output"},
            "tickmode": "array",
            "tickvals": list(range(len(hist))),
            "ticktext": list(hist["label"]),
        }
    }


def outputs(hist: pd.DataFrame, event: pd.DataFrame, *, mechanism: str, discrete: bool) -> go.Figure:
    """Histograms of the outputs on D and on D′, with the event S that gives ε_lb shaded."""
    color = MECH_COLORS.get(mechanism, style.COLORS["reference"])
    if discrete:
        x = _x(hist, True)
        traces = [
            {"type": "bar", "x": x, "y": hist["p_d"], "name": "on D", "marker": {"color": color}},
            {"type": "bar", "x": x, "y": hist["p_dprime"], "name": "on D′ (neighbour)", "marker": {"color": OTHER}},
        ]
        idx = {o: i for i, o in enumerate(hist["outcome"])}
        marks = [style.vband(idx[o] - 0.45, idx[o] + 0.45, "S") for o in event["outcome"] if o in idx]
        return style.figure(
            traces,
            title="How often each output occurs",
            x="output",
            y="probability",
            marks=marks,
            barmode="group",
            **_category_axis(hist),
        )
    width = (hist["bin_right"] - hist["bin_left"]).to_numpy()
    x = _x(hist, False)
    traces = [
        {
            "type": "bar",
            "x": x,
            "width": width,
            "y": hist["density_d"],
            "name": "on D",
            "marker": {"color": color, "line": {"width": 0}},
            "opacity": 0.6,
        },
        {
            "type": "bar",
            "x": x,
            "width": width,
            "y": hist["density_dprime"],
            "name": "on D′ (neighbour)",
            "marker": {"color": OTHER, "line": {"width": 0}},
            "opacity": 0.6,
        },
    ]
    marks = [style.vband(float(r.lo), float(r.hi), "S" if i == 0 else "") for i, r in enumerate(event.itertuples())]
    return style.figure(
        traces,
        title="The output laws on two neighbouring inputs",
        x="output x",
        y="density (per unit of x)",
        marks=marks,
        barmode="overlay",
        bargap=0,
    )


def ratios(hist: pd.DataFrame, *, epsilon: float, discrete: bool) -> go.Figure:
    """Per-bin ln(P/P′) with Clopper–Pearson whiskers against the band ±ε the claim allows.

    A bin seen under one input only has an infinite empirical ratio; it is drawn as a triangle at the finite end of
    its confidence interval (the ratio is at least / at most that).
    """
    x = _x(hist, discrete)
    llr_all = hist["llr"].to_numpy()
    lo_all, hi_all = hist["llr_lo"].to_numpy(), hist["llr_hi"].to_numpy()
    keep = np.isfinite(llr_all)
    up = (llr_all == np.inf) & np.isfinite(lo_all)
    down = (llr_all == -np.inf) & np.isfinite(hi_all)
    seen = np.concatenate([np.abs(llr_all[keep]), np.abs(lo_all[up]), np.abs(hi_all[down])])
    cap = max(2.0 * epsilon + 1.0, float(seen.max()) + 1.0 if seen.size else 1.0)
    llr = llr_all[keep]
    lo, hi = np.clip(lo_all[keep], -cap, cap), np.clip(hi_all[keep], -cap, cap)
    traces = [
        {
            "type": "scatter",
            "mode": "markers",
            "x": x[keep],
            "y": llr,
            "name": "ln(P/P′) per bin",
            "marker": {"color": "#000000", "size": 7},
            "error_y": {
                "type": "data",
                "symmetric": False,
                "array": hi - llr,
                "arrayminus": llr - lo,
                "color": "#555555",
                "thickness": 1.2,
            },
        }
    ]
    if up.any() or down.any():
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": np.concatenate([x[up], x[down]]),
                "y": np.concatenate([lo_all[up], hi_all[down]]),
                "name": "seen under one input only: CI end",
                "marker": {
                    "color": "#000000",
                    "size": 10,
                    "symbol": ["triangle-up"] * int(up.sum()) + ["triangle-down"] * int(down.sum()),
                },
            }
        )
    band = {
        "type": "rect",
        "xref": "paper",
        "x0": 0,
        "x1": 1,
        "y0": -epsilon,
        "y1": epsilon,
        "fillcolor": style.COLORS["brdp"],
        "opacity": 0.12,
        "line": {"width": 0},
        "layer": "below",
    }
    note = {
        "xref": "paper",
        "x": 0.0,
        "y": epsilon,
        "text": f"±ε = ±{number(epsilon, 3)}: what the claim allows",
        "showarrow": False,
        "xanchor": "left",
        "yanchor": "bottom",
    }
    extra = _category_axis(hist) if discrete else {}
    return style.figure(
        traces,
        title="Empirical privacy loss of each output bin",
        x="output" if discrete else "output x (bin centre)",
        y="ln P(bin | D) − ln P(bin | D′)",
        marks=[(band, note)],
        y_range=(-cap, cap),
        hovermode="closest",
        **extra,
    )


def curve(df: pd.DataFrame, *, epsilon: float) -> go.Figure:
    """ε lower bound against the number of samples per input, under the claimed ε."""
    traces = [style.line(df["n"], df["epsilon_lb"], name="ε lower bound", color="#000000", mode="lines+markers")]
    marks = [style.hline(epsilon, f"claimed ε = {number(epsilon, 3)}", color=style.COLORS["laplace"], dash="dash")]
    top = max(epsilon, float(df["epsilon_lb"].max())) * 1.15 + 1e-9
    return style.figure(
        traces,
        title="The bound tightens with more samples",
        x="samples per input (n)",
        y="ε lower bound",
        log_x=True,
        marks=marks,
        y_range=(0, top),
    )
