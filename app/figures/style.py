"""One look for every chart: a colour per mechanism used across the whole app, and a shared layout.

Figures are built in one ``go.Figure(data=…, layout=…)`` call from plain dicts: Plotly validates once, many times
faster than ``add_vline``/``update_*`` chains (page reruns must stay under 100 ms). The layout says
``template="none"``: without it Plotly deep-copies its default template into every figure and Streamlit replaces it
with its own theme anyway.

Plotly checks every property of a figure as it builds it, a large part of a page rerun (the costs are in
bench/results-where-time-goes.md). The app skips that check (``VALIDATE`` is off); the test suite switches it on with
``DPX_VALIDATE_FIGURES=1``, so a misspelt property still fails there, and ``tests/app/test_figures.py`` checks that a
figure built either way is the same JSON.
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from _plotly_utils.basevalidators import ColorscaleValidator

from app import notation
from app.figures.log_ticks import decades as _decades  # app.figures.frames labels its axes with it too
from app.figures.typed_arrays import typed_array
from dpcore.mechanisms.names import short_names

#: Validate figures as they are built (tests only: see the module docstring).
VALIDATE: bool = os.environ.get("DPX_VALIDATE_FIGURES", "") == "1"

#: Colour of each mechanism, the same on every page (Okabe–Ito palette, readable for colour-blind viewers).
COLORS: dict[str, str] = {
    "gaussian": "#0072B2",
    "laplace": "#D55E00",
    "brdp": "#009E73",
    "brdp_paper": "#CC79A7",
    "r2dp": "#E69F00",
    "staircase": "#56B4E9",
    "svt": "#F0E442",
    "reference": "#7F7F7F",
}

#: A mechanism's name in a chart's legend, from the mechanism registry's table of names (one name everywhere).
LABELS: dict[str, str] = short_names()


#: The outline of an in-figure slider's rail and grip and of its play button: 3.2 : 1 on white and 5.6 : 1 on the dark
#: theme's page (WCAG's 3 : 1 for a control's edges; Plotly's own light grey is 1.7 : 1 on white).
CONTROL_EDGE = "#8a8f99"
#: The rail and the button's face on the dark theme (``app.ui``'s stylesheet): Plotly's near-white, made for a
#: white page, is a bright bar across a dark chart; the grip a shade lighter than the rail.
DARK_CONTROL = {"face": "#3a3c44", "grip": "#5d616b"}

#: Behind a marker line's label: the page's background, slightly see-through, so a curve passing under the label
#: never crosses its text (the dark theme's is swapped in by :func:`app.figures.screen.for_screen`).
LABEL_BACKGROUND: dict[str, str] = {"light": "rgba(255,255,255,0.85)", "dark": "rgba(23,22,20,0.85)"}


def line(x: Any, y: Any, *, name: str, color: str, width: float = 2.5, dash: str | None = None, **kw: Any) -> dict:
    """A line trace as a dict."""
    return {
        "type": "scatter",
        "mode": "lines",
        "x": x,
        "y": y,
        "name": name,
        "line": {"color": color, "width": width, "dash": dash},
        **kw,
    }


def vline(x: float, text: str, *, position: str = "bottom") -> tuple[dict, dict]:
    """A dotted vertical marker line across the plot and its label (shape, annotation)."""
    shape = {
        "type": "line",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "yref": "paper",
        "line": {"color": COLORS["reference"], "dash": "dot", "width": 1.5},
    }
    note = {
        "x": x,
        "y": 0.02 if position == "bottom" else 0.98,
        "yref": "paper",
        "text": text,
        "showarrow": False,
        "xanchor": "left",
        "font": {"color": COLORS["reference"]},
        "bgcolor": LABEL_BACKGROUND["light"],
    }
    return shape, note


def hline(
    y: float,
    text: str,
    *,
    color: str = COLORS["reference"],
    dash: str = "dot",
    side: str = "left",
    backdrop: bool = True,
    below: bool = False,
) -> tuple[dict, dict]:
    """A horizontal marker line across the plot and its label at the left or right end (shape, annotation);
    ``backdrop``: the label on a box of the page's colour (False: written straight on the plot); ``below``: the label
    under the line instead of over it."""
    shape = {
        "type": "line",
        "x0": 0,
        "x1": 1,
        "xref": "paper",
        "y0": y,
        "y1": y,
        "line": {"color": color, "dash": dash, "width": 1.5},
    }
    note = {
        "x": 0.0 if side == "left" else 1.0,
        "xref": "paper",
        "y": y,
        "text": text,
        "showarrow": False,
        "xanchor": side,
        "yanchor": "top" if below else "bottom",
        "font": {"color": color},
        **({"bgcolor": LABEL_BACKGROUND["light"]} if backdrop else {}),
    }
    return shape, note


def value_note(text: str) -> dict:
    """The value a picture is drawn at ("at ε = 2"), written above the plot's left end, under the title: a title
    that says the value would make every stop of an in-figure slider redraw the whole chart, a note is drawn as a
    trace there (``app.figures.overlay``)."""
    return {
        "x": 0.0,
        "xref": "paper",
        "y": 1.0,
        "yref": "paper",
        "text": f"<b>{text}</b>",
        "showarrow": False,
        "xanchor": "left",
        "yanchor": "bottom",
        "font": {"size": 15},
    }


def curve_label(
    x: Any,
    y: Any,
    *,
    at_y: float | None = None,
    at_x: float | None = None,
    text: str,
    color: str,
    side: str,
    above: bool = True,
    log_x: bool = False,
) -> dict:
    """A line's name written beside the line itself, where a reader looks (a legend at the chart's foot is out of
    sight under a tall control or a projected page). The point is on the line: at the x where it reaches ``at_y``
    (the line rising from left to right) or at ``at_x``; the text sits on ``side`` ("left"/"right") of it, above or
    below. Text only, no arrow or shift, so an in-figure slider's deck draws it as a trace (:mod:`app.figures.overlay`).
    On a log x axis the point's x is given in log10, as Plotly places annotations there."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(xs) & np.isfinite(ys)
    xs, ys = xs[keep], ys[keep]
    if at_y is not None:
        rising = np.maximum.accumulate(ys)  # np.interp needs increasing values; a flat stretch keeps its first x
        px, py = float(np.interp(at_y, rising, xs)), float(at_y)
    elif at_x is not None:
        order = np.argsort(xs)
        px, py = float(at_x), float(np.interp(at_x, xs[order], ys[order]))
    else:
        raise ValueError("curve_label needs at_y or at_x")
    return {
        "x": math.log10(px) if log_x else px,
        "y": py,
        "text": text,
        "showarrow": False,
        "xanchor": "right" if side == "left" else "left",
        "yanchor": "bottom" if above else "top",
        "font": {"color": color},
    }


def span(axis: str, lo: float, hi: float, *, color: str, opacity: float) -> dict:
    """A shaded rectangle across the whole plot from ``lo`` to ``hi`` on ``axis`` ("x": upright, "y": level), drawn
    below the traces."""
    across = "y" if axis == "x" else "x"
    return {
        "type": "rect",
        f"{axis}0": lo,
        f"{axis}1": hi,
        f"{across}0": 0,
        f"{across}1": 1,
        f"{across}ref": "paper",
        "fillcolor": color,
        "opacity": opacity,
        "line": {"width": 0},
        "layer": "below",
    }


def band(axis: str, lo: float, hi: float, text: str, *, color: str, opacity: float) -> tuple[dict, dict]:
    """A shaded band across the plot (:func:`span`) and its label at the band's top left (shape, annotation)."""
    where = {"x": lo, "y": 0.98, "yref": "paper"} if axis == "x" else {"x": 0.0, "xref": "paper", "y": hi}
    note = {**where, "text": text, "showarrow": False, "xanchor": "left", "bgcolor": LABEL_BACKGROUND["light"]}
    if axis == "y":
        note["yanchor"] = "bottom"
    return span(axis, lo, hi, color=color, opacity=opacity), note


def vband(x0: float, x1: float, text: str) -> tuple[dict, dict]:
    """A shaded vertical band and its label (shape, annotation)."""
    return band("x", x0, x1, text, color=COLORS["reference"], opacity=0.12)


def _on_axis(note: dict, log_x: bool, log_y: bool) -> dict:
    """Annotations in data coordinates on a log axis take log10 of the value (shapes take data values)."""
    out = dict(note)
    if log_x and note.get("xref", "x") != "paper":
        out["x"] = math.log10(note["x"])
    if log_y and note.get("yref", "y") != "paper":
        out["y"] = math.log10(note["y"])
    return out


def _named_scale(name: str) -> tuple[tuple[float, str], ...]:
    """A named colour scale ("Blues") as the stops Plotly's checked constructor puts in the figure.

    Plotly.js knows a few scales by the same names but with other colours, so the name alone would change the chart.
    """
    return tuple(map(tuple, ColorscaleValidator("colorscale", "figure").validate_coerce(name)))


def _as_checked(node: Any, typed: bool = True) -> Any:
    """Copy of a trace or layout dict as Plotly's checked constructor would store it: no ``None`` values, named
    colour scales spelled out (the app builds figures unchecked, see the module docstring). Text shown on the chart
    (titles, names, annotations) has its maths typeset (``r^op`` → r<sup>op</sup>, ``app.notation.html``).

    Unchecked, numeric arrays are stored already in the typed-array form Plotly sends them in (:func:`typed_array`):
    Plotly would convert every array of the figure again on every page run, when Streamlit asks for its JSON."""
    if isinstance(node, dict):
        return {
            k: (
                [list(s) for s in _named_scale(v)]
                if k == "colorscale" and isinstance(v, str)
                else notation.html(v)
                if k in _SHOWN and isinstance(v, str)
                else _as_checked(v, typed and k not in _NOT_TYPED)
            )
            for k, v in node.items()
            if v is not None
        }
    if isinstance(node, list):
        return [_as_checked(v, typed) for v in node]
    if typed and not VALIDATE:
        spec = typed_array(node)
        if spec is not None:
            return spec
    return node


#: Keys under which Plotly leaves arrays as they are, however deep (``_plotly_utils.utils.is_skipped_key``).
_NOT_TYPED = frozenset({"geojson", "layer", "layers", "range"})


#: Keys whose string values are shown on the chart as text.
_SHOWN = frozenset({"text", "name", "title"})

#: Default chart margins (px); the legend sits below the plot, hence the large bottom margin.
MARGIN: dict[str, int] = {"l": 60, "r": 20, "t": 60, "b": 120}

#: Room above the plot (px) for a one-line chart title, and for each further line of a wrapped one.
_TITLE_ROOM, _TITLE_LINE = 36, 22
#: Extra room above the plot (px) for a row of labels placed just above it (the box chart's acceptance figures).
_LABEL_ROW = 30


def _above_plot(note: dict) -> bool:
    """An annotation drawn above the plot area (paper coordinates at or beyond its top edge)."""
    y = note.get("y")
    return (
        note.get("yref") == "paper"
        and isinstance(y, int | float)
        and (y > 1 or (y >= 1 and note.get("yanchor") == "bottom"))
    )


def _top_margin(asked: int, lines: int, notes: list[dict]) -> int:
    """The top margin: room for the title's lines (and a row of labels above the plot), and no more. The legend
    sits at the chart's foot, so a larger margin asked for would only leave an empty band under the title; a wrapped
    title gets at least its lines' room, or its first lines are cut off at the chart's top."""
    need = _TITLE_ROOM + _TITLE_LINE * lines
    most = max(MARGIN["t"], need) + (_LABEL_ROW if any(_above_plot(n) for n in notes) else 0)
    return min(max(asked, need if lines > 1 else 0), most)


#: Every axis makes room for all its tick labels: Plotly would hide a label reaching past the chart's edge (the
#: "100%" at the right end of an axis) before widening the margin for it.
_ROOMY: dict[str, Any] = {"automargin": True, "ticklabeloverflow": "allow"}

#: Plotly's empty template "none", spelled out as the checked constructor expands it (the JSON is then the same).
_NO_TEMPLATE: dict[str, Any] = {"data": {"scatter": [{"type": "scatter"}]}}


def figure(
    traces: list[dict],
    *,
    title: str,
    x: str,
    y: str,
    log_x: bool = False,
    log_y: bool = False,
    marks: Sequence[tuple[dict, dict]] = (),
    y_range: tuple[float, float] | None = None,
    notes: Sequence[dict] = (),
    **layout: Any,
) -> go.Figure:
    """Build a figure with the shared layout: title, axis titles (with units), legend at the foot, compact margins.
    ``notes``: annotations of their own (:func:`value_note`), after the marks' labels."""
    # the axis spans the marker lines too (a vline at the ex-ante worst case can widen it by decades)
    spans = traces + [
        {
            "x": [m[0][k] for k in ("x0", "x1") if m[0].get("xref", "x") != "paper" and k in m[0]],
            "y": [m[0][k] for k in ("y0", "y1") if m[0].get("yref", "y") != "paper" and k in m[0]],
        }
        for m in marks
    ]
    spelled = {
        key: isinstance(layout.get(axis), dict) and layout[axis].get("type") == "log"
        for axis, key in (("xaxis", "x"), ("yaxis", "y"))
    }
    # a marker's label is placed in log10 on a log axis, whether made so here or by the caller
    on_log_x, on_log_y = log_x or spelled["x"], log_y or spelled["y"]
    for axis, key in (("xaxis", "x"), ("yaxis", "y")):  # a log axis the caller spelled out gets full labels too
        if spelled[key]:
            layout[axis] = _decades(spans, key) | layout[axis]
        if isinstance(layout.get(axis), dict):  # an axis the caller spelled out makes room for its labels too
            layout[axis] = _ROOMY | layout[axis]
    title = wrap_title(title)  # Plotly does not wrap a title: a long one ran off a phone-wide chart
    lines = title.count("<br>") + 1
    margin = dict(layout.get("margin") or MARGIN)
    above = [*layout.get("annotations", ()), *(m[1] for m in marks), *notes]
    layout["margin"] = margin | {"t": _top_margin(int(margin.get("t", MARGIN["t"])), lines, above)}
    yaxis: dict[str, Any] = {"title": {"text": y}}
    if log_y:
        shown = [{"y": [10.0 ** y_range[0], 10.0 ** y_range[1]]}] if y_range is not None else spans  # log10 units
        yaxis |= {"type": "log", "exponentformat": "power", **_decades(shown, "y")}
    if y_range is not None:
        yaxis["range"] = list(y_range)
    return go.Figure(
        data=_as_checked(traces),
        layout=_as_checked(
            {
                "title": {
                    "text": title,
                    "x": 0.0,
                    "xanchor": "left",
                    "automargin": True,
                    # a wrapped title hangs from the chart's top edge (Plotly would centre it on the edge)
                    **({"yref": "container", "y": 1.0, "yanchor": "top", "pad": {"t": 16}} if lines > 1 else {}),
                },
                "xaxis": {"title": {"text": x}, **_ROOMY, **({"type": "log", **_decades(spans, "x")} if log_x else {})},
                "yaxis": {**_ROOMY, **yaxis},
                # at the chart's foot, below the axis title however short the plot (a phone) or long the legend
                "legend": {"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0.0, "x": 0.0},
                "margin": MARGIN,
                "hovermode": "x unified",
                "height": 430,
                "template": _NO_TEMPLATE,
                **({"shapes": [m[0] for m in marks]} if marks else {}),
                **(
                    {"annotations": [*(_on_axis(m[1], on_log_x, on_log_y) for m in marks), *notes]}
                    if marks or notes
                    else {}
                ),
                **layout,
            }
        ),
        _validate=VALIDATE,
    )


#: Longest line of a chart title (characters): about what a chart as wide as a phone
#: screen shows at the phone's smaller title size (13 px, the app's stylesheet), or a chart half a laptop page wide
#: at the full size; a chart across a laptop page would show some 120.
TITLE_CHARS = 62


def privacy_profile(traces: list[dict], *, epsilon: float, delta: float, title: str, size: int = 11) -> go.Figure:
    """Privacy profiles δ(ε′) (``traces``) on a log axis from four decades below the target δ up to δ = 1, the target
    (ε, δ) the mechanisms are calibrated to marked with a cross of ``size``."""
    target = {
        "type": "scatter",
        "mode": "markers",
        "x": [epsilon],
        "y": [delta],
        "name": "target (ε, δ)",
        "marker": {"color": "black", "size": size, "symbol": "x"},
    }
    low = math.log10(delta) - 4  # log axis, in log10 units
    return figure([*traces, target], title=title, x="ε′", y="δ(ε′) (log scale)", log_y=True, y_range=(low, 0.05))


def wrap_title(title: str, chars: int = TITLE_CHARS) -> str:
    """Break each line of a title longer than ``chars`` at word boundaries into as few lines, of about equal
    length, as fit (Plotly does not wrap a title; it runs off the chart). Lines already broken with ``<br>`` stay
    broken there, so wrapping a wrapped title changes nothing."""
    out = []
    for part in title.split("<br>"):
        lines = textwrap.wrap(part, chars, break_long_words=False) or [part]
        for width in range(math.ceil(len(part) / len(lines)), chars):  # the narrowest width as few lines allow
            even = textwrap.wrap(part, width, break_long_words=False)
            if len(even) == len(lines):
                lines = even
                break
        out += lines
    return "<br>".join(out)


#: An in-figure slider (``app.figures.frames``) hangs under the x axis: room (px) for the axis's tick labels and
#: title above it, at the normal and the presentation size.
AXIS_ROOM, PRESENT_AXIS_ROOM = 58, 82
#: Room (px) the slider itself takes: its current value, the rail, its ticks and (not in presentation mode, where
#: the current value alone is written, large) the stops' labels.
SLIDER_ROOM, PRESENT_SLIDER_ROOM = 80, 50
#: Room (px) left of the slider's rail for the play button ("▶ Play", about 58 px at the chart's text size and 90 px
#: at the presentation legend's), with a gap.
PLAY_ROOM, PRESENT_PLAY_ROOM = 72, 106
#: Room (px) under the slider for a legend of one or two rows (in presentation mode the legend sits beside the plot).
LEGEND_ROOM = 64
