"""The law of u = 1/b and the noise it mixes (Mohammady et al. 2020, Def. 3.1): its density, privacy-loss profile and
the MGF that gives both ε and usefulness (Eqs. 3–4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures.r2dp.marks import FAMILY_COLORS, _line, hline
from app.figures.style import figure, vband, vline
from app.notation import number


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
        hline(-eps_law, f"−ε = −{number(eps_law, 4)}"),
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
