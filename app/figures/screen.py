"""A chart made for the screen it is shown on: the text in the browser theme's ink (black marks turned light on a
dark page), and in presentation mode the sizes a class reads from the back of the room on a 1280×720 projector.

The figures themselves are built once by :mod:`app.figures.style` and shared between readers; :func:`for_screen`
adapts a copy as it is drawn (``app.ui``).
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np
import plotly.graph_objects as go

from app.figures.style import (
    LABEL_BACKGROUND,
    MARGIN,
    PRESENT_AXIS_ROOM,
    PRESENT_PLAY_ROOM,
    PRESENT_SLIDER_ROOM,
    wrap_title,
)

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
            update["margin"] = {"t": max(int(lay.margin.t or MARGIN["t"]), 40 + (PRESENT_FONT + 12) * lines)}
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
