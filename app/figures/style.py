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

import contextlib
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
#: never crosses its text (the dark theme's is swapped in by :func:`for_screen`).
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
_MARGIN: dict[str, int] = {"l": 60, "r": 20, "t": 60, "b": 120}

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
    most = max(_MARGIN["t"], need) + (_LABEL_ROW if any(_above_plot(n) for n in notes) else 0)
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
    margin = dict(layout.get("margin") or _MARGIN)
    above = [*layout.get("annotations", ()), *(m[1] for m in marks), *notes]
    layout["margin"] = margin | {"t": _top_margin(int(margin.get("t", _MARGIN["t"])), lines, above)}
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
                "margin": _MARGIN,
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


#: Text colour of chart ticks, axis titles and legends in each Streamlit theme (its body text; ≥ 4.5:1 on the
#: theme's background — Streamlit's own light-theme tick grey #808495 is 3.7:1 on white).
INK: dict[str, str] = {"light": "#31333F", "dark": "#E6EAF1"}
#: Chart text size in presentation mode (px): readable from the back of a classroom on a 1280×720 projector.
#: Longest chart title line in presentation mode (characters): about 650 px at its 28 px size.
PRESENT_TITLE_CHARS = 44
PRESENT_FONT = 24  # a log axis draws its in-between labels at 75 %: 18 px, still readable on a projector
#: Legend text size in presentation mode (px): at 24 px a legend of eight long names took four rows, a third of the
#: chart's height; at 20 px three names fit a row.
PRESENT_LEGEND_FONT = 20
#: Chart height in presentation mode (px): on a 1280×720 projector a page's title, its one sentence and its first
#: chart fit the first screen, and so do a panel's title, what to notice and its chart (a lesson step's view).
PRESENT_HEIGHT = 400
_BLACK = frozenset({"black", "#000", "#000000", "rgb(0,0,0)", "rgb(0, 0, 0)"})


#: Longest line of a y-axis title in presentation mode (characters): a title drawn along a plot some 150–250 px
#: high at 24 px; a longer one ran over the chart's title.
PRESENT_YTITLE_CHARS = 16
#: Most decade labels a log y axis shows in presentation mode: 24 px labels on a plot some 150–250 px high.
PRESENT_LOG_LABELS = 4


def _fit_short_axis(fig: go.Figure, ax: str) -> dict[str, Any]:
    """Presentation mode's shorter plot for the y axis ``ax``: a long title in two lines, a log axis labelled
    every few decades so its labels do not overlap."""
    axis = fig.layout[ax]
    out: dict[str, Any] = {}
    title = str(axis.title.text or "")
    if "<br>" not in title and len(title) > PRESENT_YTITLE_CHARS:
        out["title"] = {"text": wrap_title(title, max(PRESENT_YTITLE_CHARS, math.ceil(len(title) / 2) + 4))}
    if axis.type != "log":
        return out
    if axis.tickvals is not None:  # labels the figure chose (10⁻⁵ written out): keep every few, the top one too
        vals = list(axis.tickvals)
        step = math.ceil(len(vals) / PRESENT_LOG_LABELS)
        if step > 1:
            keep = sorted(range(len(vals) - 1, -1, -step))
            out["tickvals"] = [vals[i] for i in keep]
            if axis.ticktext is not None and len(axis.ticktext) == len(vals):
                out["ticktext"] = [axis.ticktext[i] for i in keep]
    elif axis.dtick in (None, 1):  # every decade (the shared layout's choice) or Plotly's own
        lo, hi = _log_span(fig, ax)
        if hi - lo > PRESENT_LOG_LABELS:
            out["dtick"] = math.ceil((hi - lo) / PRESENT_LOG_LABELS)
    return out


def _log_span(fig: go.Figure, ax: str) -> tuple[float, float]:
    """The decades a log y axis shows: its range if set, else those of the positive values plotted on it."""
    rng = fig.layout[ax].range
    if rng is not None and None not in rng:
        return float(min(rng)), float(max(rng))
    ref = "y" + ax.removeprefix("yaxis")
    values = []
    for t in fig.data:
        if getattr(t, "y", None) is not None and (getattr(t, "yaxis", None) or "y") == ref:
            with contextlib.suppress(TypeError, ValueError):  # a text-valued trace has no decades to show
                values.append(np.asarray(t.y, dtype=float).ravel())
    pos = np.concatenate([v[np.isfinite(v) & (v > 0)] for v in values]) if values else np.empty(0)
    if pos.size == 0:
        return 0.0, 0.0
    return float(np.log10(pos.min())), float(np.log10(pos.max()))


def _recolour(node: Any, ink: str) -> Any:
    """Copy of a figure dict with every black colour (marker, line, outline, contour) replaced by ``ink``."""
    if isinstance(node, dict):
        return {
            k: (
                ink
                if k == "color" and isinstance(v, str) and v.replace(" ", "").lower() in _BLACK
                else _recolour(v, ink)
            )
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_recolour(v, ink) for v in node]
    return node


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


def _present_slider(fig: go.Figure, update: dict[str, Any]) -> None:
    """Presentation mode for a figure with an in-figure slider: the current value large, the stops' labels left out
    (the ticks stay), the slider under the larger axis text, and each frame's title wrapped like the figure's."""
    slider = fig.layout.sliders[0]
    update["sliders"] = [
        {
            "pad": {"t": PRESENT_AXIS_ROOM} | ({"l": PRESENT_PLAY_ROOM} if fig.layout.updatemenus else {}),
            "font": {"size": 1, "color": "rgba(0,0,0,0)"},
            "currentvalue": {"font": {"size": PRESENT_FONT, "color": INK["light"]}, "offset": 4},
        }
    ]
    if fig.layout.updatemenus:
        update["updatemenus"] = [{"pad": {"t": PRESENT_AXIS_ROOM + 2}, "font": {"size": PRESENT_LEGEND_FONT}}]
    # the legend beside the plot instead of under it: the slider takes its place, and the plot keeps its height
    update["legend"] = dict(update.get("legend") or {}) | {
        "orientation": "v",
        "yref": "paper",
        "y": 1.0,
        "yanchor": "top",
        "x": 1.02,
        "xanchor": "left",
    }
    bottom = PRESENT_AXIS_ROOM + PRESENT_SLIDER_ROOM
    update["margin"] = dict(update.get("margin") or {}) | {"b": bottom}
    top = update.get("margin", {}).get("t")
    frames = []
    for frame in fig.frames:
        layout = frame.layout.to_plotly_json() if frame.layout else {}
        title = (layout.get("title") or {}).get("text")
        if isinstance(title, str) and max(map(len, title.split("<br>"))) > PRESENT_TITLE_CHARS:
            layout["title"] = layout["title"] | {"text": wrap_title(title, PRESENT_TITLE_CHARS)}
        if "margin" in layout:
            layout["margin"] = layout["margin"] | {"b": bottom} | ({"t": top} if top else {})
        frames.append(frame.to_plotly_json() | {"layout": layout})
    if frames:
        fig.frames = frames
    del slider


def _no_small_text(fig: go.Figure) -> None:
    """Presentation mode: a note or a text trace whose size was set (the value a picture is drawn at, 15 px beside
    the chart's 12) at least at ``PRESENT_FONT``, like the text that takes the chart's font. In place."""
    for trace in fig.data:
        font = getattr(trace, "textfont", None)
        if font is not None and isinstance(font.size, int | float) and font.size < PRESENT_FONT:
            font.size = PRESENT_FONT
    for note in fig.layout.annotations or ():
        if isinstance(note.font.size, int | float) and note.font.size < PRESENT_FONT:
            note.font.size = PRESENT_FONT


def for_screen(fig: go.Figure, *, theme: str | None, present: bool = False) -> go.Figure:
    """Adapt ``fig`` in place to the browser's ``theme`` ("light", "dark", or None before the browser said) and return
    it.

    Light and dark: ticks, axis titles, title and legend in the theme's text colour. Dark: black marks (drawn for a
    white page) in light ink so they stay visible. Presentation mode: chart text at ``PRESENT_FONT`` px (the legend
    at ``PRESENT_LEGEND_FONT``), ``PRESENT_HEIGHT`` px tall. One ``update_layout`` call (a few ms); the traces are
    touched only on a dark page.
    """
    if theme not in INK and not present:
        return fig
    text: dict[str, Any] = {}
    if theme in INK:
        text["color"] = INK[theme]
    if present:
        text["size"] = PRESENT_FONT
    lay = fig.layout
    update: dict[str, Any] = {"font": text, "legend": {"font": text}, "title": {"font": dict(text)}}
    if present:
        update["title"]["font"]["size"] = PRESENT_FONT + 4
        update["legend"]["font"] = text | {"size": PRESENT_LEGEND_FONT}
        update["height"] = PRESENT_HEIGHT
        if lay.legend.orientation == "h" and lay.legend.yref != "container" and (lay.legend.y or 0) < 0:
            # a legend hung at a share of the plot's height below it meets the larger axis title in a shorter plot:
            # at the chart's foot instead, like the shared layout's
            update["legend"] |= {"yref": "container", "yanchor": "bottom", "y": 0.0}
        title = str(lay.title.text or "")
        if max(map(len, title.split("<br>"))) > PRESENT_TITLE_CHARS:  # at 28 px a long line runs off the chart
            title = wrap_title(title, PRESENT_TITLE_CHARS)  # lines already wrapped for a phone are wrapped further
            update["title"] |= {"text": title, "yref": "container", "y": 1.0, "yanchor": "top"}
        lines = title.count("<br>") + 1
        if lines > 1:  # the larger title lines need the room above the plot too, and more space above the first
            update["margin"] = {"t": max(int(lay.margin.t or _MARGIN["t"]), 40 + (PRESENT_FONT + 12) * lines)}
            update["title"]["pad"] = {"t": 16 + PRESENT_FONT // 2}
    if present and lay.sliders:
        _present_slider(fig, update)
    names = [k for k in lay.to_plotly_json() if k.startswith(("xaxis", "yaxis"))] or ["xaxis", "yaxis"]
    for ax in names:
        update[ax] = {"tickfont": text, "title": {"font": text}}
        if present and ax.startswith("yaxis"):
            fit = _fit_short_axis(fig, ax)
            update[ax]["title"] |= fit.pop("title", {})
            update[ax] |= fit
    fig.update_layout(update)
    if present and lay.sliders:  # the larger current value at the slider's right end, clear of the play button
        for slider in fig.layout.sliders:
            slider.currentvalue.xanchor = "right"
    if present:
        _no_small_text(fig)
    if theme == "dark":
        ink = INK["dark"]
        for trace in fig.data:
            plain = trace.to_plotly_json()
            fixed = _recolour(plain, ink)
            if fixed != plain:
                trace.update(fixed)
        for group in ("shapes", "annotations"):
            items = lay[group]
            if items:
                plain = [x.to_plotly_json() for x in items]
                fixed = [
                    x | {"bgcolor": LABEL_BACKGROUND["dark"]} if x.get("bgcolor") == LABEL_BACKGROUND["light"] else x
                    for x in _recolour(plain, ink)
                ]
                if fixed != plain:
                    fig.update_layout({group: fixed})
    return fig
