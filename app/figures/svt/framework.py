"""The SVT page's pictures of the numerical framework (Liu, Wang, Liu, Li and Chen 2024, Algorithms 3 and 4):
the discretised density of Z and its accuracy against the number of bins."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from app.figures.style import line
from app.figures.svt.palette import _BELOW, figure


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
        line(df["n_bins"], df["rms_error_p"], name="RMS error of p̄(r)", color="#CC79A7", mode="lines+markers"),
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
