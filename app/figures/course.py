"""Figures of the first course that no page draws (the other chapters use the pages' own builders)."""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

from app.figures.style import COLORS, LABELS, curve_label, figure, hline, line, value_note, vband, vline
from app.notation import number, percent

#: The two noises the course compares, in the order drawn.
NOISES = ("gaussian", "laplace")


def laplace_noise(df: pd.DataFrame, *, epsilon: float, theta: float) -> go.Figure:
    """The Laplace noise added to a count at ε, with the answers within ±θ of the truth shaded."""
    return figure(
        [
            line(
                df["x"],
                df["density"],
                name="Laplace noise",
                color=COLORS["laplace"],
                fill="tozeroy",
                fillcolor="rgba(213, 94, 0, 0.12)",
            )
        ],
        title="The noise added to a count",
        x="noise added to the true count",
        y="how likely (density)",
        marks=[vband(-theta, theta, f"within ±{number(theta)}")],
        notes=[value_note(f"at ε = {number(epsilon)}")],
        showlegend=False,  # one curve, named by the title (its marks, drawn as traces, would bring a legend)
    )


def random_scale_gain(df: pd.DataFrame, *, epsilon: float, theta: float) -> go.Figure:
    """How often a release lands within ±θ against ε: Laplace noise and the best random noise scale (R²DP)."""
    names = {"laplace": "Laplace (one fixed scale)", "two_point": "best random scale (R²DP)"}
    # each curve also named on itself where the two have parted: Laplace below its own line, the random scale above
    on_line = {"laplace": ("Laplace", 0.4, "right", False), "two_point": ("best random scale", 0.6, "left", True)}
    traces, labels = [], []
    for family, name in names.items():
        part = df[df["family"] == family].sort_values("epsilon")
        x, y, color = part["epsilon"], part["usefulness"], COLORS["laplace" if family == "laplace" else "r2dp"]
        traces.append(line(x, y, name=name, color=color, dash=None if family == "laplace" else "dash"))
        text, height, side, above = on_line[family]
        labels.append(curve_label(x, y, at_y=height, text=text, color=color, side=side, above=above, log_x=True))
    lowest = float(df["epsilon"].min())
    # an ε left of the curves (they start where the random scale can first gain) is said, not marked: a mark there
    # would stretch the axis and leave the picture's left third empty
    shown = epsilon >= lowest * (1 - 1e-9)
    return figure(
        traces,
        title=f"How often a release lands within ±{number(theta)}",
        x="ε (log scale)",
        y="chance within ±" + number(theta),
        log_x=True,
        y_range=(0, 1.02),
        marks=[vline(epsilon, f"ε = {number(epsilon)}")] if shown else [],
        notes=labels
        + (
            []
            if shown
            else [value_note(f"ε = {number(epsilon)} is left of the picture, which starts at {number(lowest)}")]
        ),
    )


def accuracy_needed(df: pd.DataFrame, *, theta: float, confidence: float, epsilon: float) -> go.Figure:
    """How often each noise lands within ±θ against ε (log axis), the confidence asked for as a dotted line and the ε
    Laplace noise needs marked."""
    traces = [line(df["epsilon"], df[m], name=LABELS[m], color=COLORS[m]) for m in ("gaussian", "laplace")]
    line_, label = hline(confidence, f"{percent(confidence, 0)} of releases", backdrop=False)
    # its name under the line: above it, at the plot's top left, it ran into the "θ = …" note when projected
    target = (line_, label | {"yanchor": "top"})
    # each curve named on itself: the left one where it crosses one half, on its left; the other high up on its
    # right (at one half it meets the line marking the ε Laplace needs, which moves with it)
    first = max(NOISES, key=lambda m: float(df[m].mean()))  # over one ε grid, the curve that rises first is higher
    labels = [
        curve_label(
            df["epsilon"],
            df[m],
            at_y=0.5 if m == first else 0.8,
            text=LABELS[m],
            color=COLORS[m],
            side="left" if m == first else "right",
            above=m == first,
            log_x=True,
        )
        for m in NOISES
    ]
    return figure(
        traces,
        title="How often the noise stays within ±θ",
        x="ε (log scale; right = less private)",
        y="share within ±θ",
        log_x=True,
        y_range=(0, 1.02),
        marks=[target, vline(epsilon, f"Laplace needs ε = {number(epsilon, 3)}")],
        notes=[value_note(f"θ = {number(theta)}"), *labels],
    )


def two_noises(df: pd.DataFrame, *, epsilon: float, theta: float) -> go.Figure:
    """The Gaussian and the Laplace noise that keep the promise at ε (δ for the Gaussian), answers within ±θ shaded."""
    traces = [line(df["x"], df[m], name=f"{LABELS[m]} noise", color=COLORS[m]) for m in NOISES]
    # each curve named on itself: the Gaussian on its left flank at half its height, Laplace just right of its peak
    gauss = df[df["x"] <= 0]
    labels = [
        curve_label(
            gauss["x"],
            gauss["gaussian"],
            at_y=float(df["gaussian"].max()) / 2,
            text="Gaussian",
            color=COLORS["gaussian"],
            side="left",
        ),
        curve_label(
            df["x"], df["laplace"], at_x=0.5 * theta + 0.5, text="Laplace", color=COLORS["laplace"], side="right"
        ),
    ]
    return figure(
        traces,
        title=f"The noise each mechanism adds at ε = {number(epsilon)}",
        x="noise added to the true count",
        y="how likely (density)",
        marks=[vband(-theta, theta, f"within ±{number(theta)}")],
        notes=labels,
    )


def composition(df: pd.DataFrame, *, compositions: int) -> go.Figure:
    """Total ε after T releases: the simple sum T·ε and the exact totals of Gaussian and Laplace noise."""
    names = {
        "reference": "simple sum, T × ε",
        "laplace": "Laplace noise, counted exactly",
        "gaussian": "Gaussian noise, counted exactly",
    }
    short = {"reference": "simple sum", "laplace": "Laplace, exactly", "gaussian": "Gaussian, exactly"}
    traces, ends = [], []
    for m, name in names.items():
        part = df[df["mechanism"] == m].sort_values("T")
        traces.append(
            line(part["T"], part["epsilon"], name=name, color=COLORS[m], dash="dot" if m == "reference" else None)
        )
        # each line named at its right end, where a newcomer looks, not only in the legend under the slider
        last = part.iloc[-1]
        ends.append(
            {
                # at the plot's right edge; on a log axis an annotation takes log10 of the value, a hair inside the
                # axis's range (Plotly hides one even a rounding error outside it)
                "xref": "x domain",
                "x": 1.0,
                "y": math.log10(float(last["epsilon"])) - 1e-6,
                "xanchor": "right",
                "yanchor": "top" if m == "laplace" else "bottom",
                "text": short[m],
                "showarrow": False,
                "font": {"color": COLORS[m]},
                "bgcolor": "rgba(255, 255, 255, 0.8)",
            }
        )
    return figure(
        traces,
        title="Total ε spent by T releases at ε = 1 each",
        x="T, the number of releases (log scale)",
        y="total ε (log scale)",
        log_x=True,
        log_y=True,
        marks=[vline(compositions, f"T = {compositions}", position="top")],
        notes=ends,
    )


def screening(comp: pd.DataFrame, *, shown: int, threshold: float) -> go.Figure:
    """The first ``shown`` counts one SVT run screens: each noisy count (a dot, green when answered “above”) against
    the one noisy threshold (a line), the true threshold dashed; log scale, as counts span decades."""
    part = comp.head(shown)
    above = part[part["positive"]]
    below = part[~part["positive"]]
    dots = {"type": "scatter", "mode": "markers"}
    traces = [
        dots
        | {
            "x": below["step"].to_numpy(),
            "y": below["noisy_answer"].to_numpy(),
            "name": "“below” (free)",
            "marker": {"color": COLORS["reference"], "size": 7},
        },
        dots
        | {
            "x": above["step"].to_numpy(),
            "y": above["noisy_answer"].to_numpy(),
            "name": "“above”",
            "marker": {"color": COLORS["brdp"], "size": 12, "symbol": "diamond"},
        },
        line(
            part["step"].to_numpy(),
            part["noisy_threshold"].to_numpy(),
            name="noisy threshold",
            color=COLORS["brdp_paper"],
        ),
    ]
    limit = hline(threshold, f"threshold {number(threshold)}", dash="dash", side="right", backdrop=False)
    # the noisy threshold and the first "above" named on the picture (the legend sits under the chart, out of sight
    # beside the chapter's control); on the log y axis a note's y is given in log10
    labels = []
    if len(part):
        # both notes at every stop of the slider, with no text where there is nothing to name (an in-figure slider
        # switches stops in place only while every stop has the same notes); a value a log axis cannot show (≤ 0)
        # gets no text either
        def note(x: float, y: float, text: str, color: str, xanchor: str, yanchor: str) -> dict:
            shown = y > 0
            return {
                "x": x,
                "y": math.log10(y if shown else threshold),
                "text": text if shown else "",
                "showarrow": False,
                "xanchor": xanchor,
                "yanchor": yanchor,
                "font": {"color": color},
            }

        start = part.iloc[0]  # at the line's left end: the true threshold's label sits at the right end
        labels.append(
            note(
                float(start["step"]),
                float(start["noisy_threshold"]),
                "noisy threshold",
                COLORS["brdp_paper"],
                "left",
                "bottom",
            )
        )
        first = above.iloc[0] if len(above) else part.iloc[0]
        labels.append(
            note(
                float(first["step"]),
                float(first["noisy_answer"]) if len(above) else 0.0,
                "   “above”",
                COLORS["brdp"],
                "left",
                "middle",
            )
        )
    return figure(
        traces,
        title=f"{len(part)} counts against one noisy threshold",
        x="count number (in the order screened)",
        y="noisy count (log scale)",
        marks=[limit],
        notes=labels,
        log_y=True,
        hovermode="closest",
    )
