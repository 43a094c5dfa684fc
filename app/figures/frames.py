"""In-figure sliders: one figure that carries the picture at every stop of one parameter as Plotly frames, with a
Plotly slider (and a play button) that switches between them in the browser, without asking the server.

The caller builds the figure at every stop with the page's own builder; :func:`slides` keeps the figure at the
stop the page opens at as the figure's data, and puts in each frame only what changes from stop to stop: the arrays
of the traces that move (a curve's y; its x only where the x values change too) and the parts of the layout that
change (a title with the value in it, a marker line). Arrays in frames go as 32-bit floats (Plotly's typed arrays):
half the bytes, far below what a screen can show.

The slider's ``name`` is the parameter's address key and each step's ``value`` its address form (``1e-05``), so the
browser side (``app.instant``, the handouts) knows which key of the address a slider sets. Plotly's frames are
applied by merging (objects key by key, arrays replaced): every key that changes anywhere is therefore in every frame,
and a frame is the whole figure at its stop once merged onto the figure (``tests/app/test_frames.py`` checks this
against the page's builder at every stop).
"""

from __future__ import annotations

import base64
import copy
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from app.figures import overlay, style


def _at_once(redraw: bool) -> dict[str, Any]:
    """Switching to a frame: at once, no easing (a slider is read stop by stop); redrawn only where a frame changes
    more than traces' data (a title, the legend), which only a full redraw updates: otherwise Plotly's fast path
    updates the traces alone."""
    return {"mode": "immediate", "frame": {"duration": 0, "redraw": redraw}, "transition": {"duration": 0}}


#: What a frame may change for the browser to switch it without redrawing: traces' data, of traces Plotly updates
#: in place (``animatable`` in plotly.js).
_FAST_KEYS = frozenset({"type", "x", "y", "text", "customdata", "width", "hovertext"})
_FAST_TYPES = frozenset({"scatter", "bar"})
#: Playing: each stop stays long enough to be read aloud in a class.
PLAY_FRAME_MS = 700


def _plain(value: Any) -> Any:
    """A trace or layout value in the form the figure is sent in (numeric arrays as typed-array specs), comparable
    with ``==``."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    spec = style.typed_array(value)
    if spec is not None:
        return spec
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _narrow(value: Any) -> Any:
    """A 64-bit float typed array as a 32-bit one (anything else as it is)."""
    if isinstance(value, dict) and value.get("dtype") == "f8" and "bdata" in value and "shape" not in value:
        wide = np.frombuffer(base64.b64decode(value["bdata"]), dtype="<f8")
        return {"dtype": "f4", "bdata": base64.b64encode(wide.astype("<f4").tobytes()).decode("ascii")}
    return value


def _json(fig: go.Figure) -> dict[str, Any]:
    plain = fig.to_plotly_json()
    return {"data": [_plain(t) for t in plain.get("data", [])], "layout": _plain(plain.get("layout", {}))}


def _changing(items: Sequence[dict[str, Any]]) -> list[str]:
    """The keys whose values are not the same in every item (a key missing somewhere counts as changing)."""
    keys = sorted({k for item in items for k in item})
    return [k for k in keys if any(k not in item or item[k] != items[0].get(k) for item in items)]


@dataclass(frozen=True)
class Slides:
    """Every stop's figure of one picture, ready to be opened at any stop (:meth:`at`): built once for the other
    settings, opened at the page's value on every run."""

    stops: tuple[dict[str, Any], ...]  # each stop's figure as sent (data, layout)
    frames: tuple[dict[str, Any], ...]
    key: str
    values: tuple[str, ...]
    labels: tuple[str, ...]
    prefix: str
    play: bool
    name: str = ""
    redraw: bool = True  # a switch of frames redraws the whole chart (else: the traces' data only)

    def index(self, value: str) -> int:
        """The stop whose address form is ``value``."""
        return self.values.index(value)

    def at(self, active: int, *, bold_titles: bool = False) -> go.Figure:
        """The figure opened at stop ``active``, carrying every stop as a frame, with the slider (and play button).

        ``bold_titles``: the frames' titles in bold, as Streamlit's theme draws a chart's title (a frame's title
        replaces the title the theme made bold)."""
        if not 0 <= active < len(self.stops):
            raise ValueError(f"active must be a stop's index, 0 to {len(self.stops) - 1}")
        layout = with_room(self.stops[active]["layout"])
        bottom = layout["margin"]["b"]
        layout["sliders"] = [
            slider(
                self.key,
                self.values,
                self.labels,
                active=active,
                prefix=self.prefix,
                play=self.play,
                redraw=self.redraw,
            )
        ]
        if self.play:
            layout["updatemenus"] = [play_button(self.values, redraw=self.redraw)]
        if self.name:  # what a screen reader calls the slider (the keyboard's proxy for it, app.slider_js)
            layout["meta"] = {"slider": self.name}
        frames = [_adapted(f, bottom, bold_titles) for f in self.frames]
        return Opened.of(self.stops[active]["data"], layout, frames)


class Opened(go.Figure):
    """A deck opened at one stop whose frames stay as JSON until someone reads ``fig.frames``: making Plotly's
    objects of every frame cost more than the rest of a page run, and Streamlit, marimo and ``plotly.io`` only
    need the JSON (``to_dict``). Reading or setting ``frames`` turns them into Plotly's objects as usual. The JSON
    frames are shared with the deck: read-only, like every remembered figure."""

    _plain: list[dict[str, Any]] | None = None

    @classmethod
    def of(cls, data: Any, layout: dict[str, Any], frames: list[dict[str, Any]]) -> Opened:
        fig = cls(data=data, layout=layout, _validate=style.VALIDATE)
        fig._plain = frames
        return fig

    @property
    def frames(self) -> Any:
        if self._plain is not None:
            plain, self._plain = self._plain, None
            go.Figure.frames.fset(self, plain)
        return go.Figure.frames.fget(self)

    @frames.setter
    def frames(self, value: Any) -> None:
        self._plain = None
        go.Figure.frames.fset(self, value)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self._plain is not None:
            out["frames"] = list(self._plain)
        return out


def with_room(layout: dict[str, Any]) -> dict[str, Any]:
    """A figure's layout (its JSON) with the room a slider needs at its foot: the slider under the x axis, the legend
    under the slider; the plot keeps its height. A plain figure drawn while its slider is prepared gets the same
    room, so the chart does not change size when the slider arrives."""
    layout = dict(layout)
    bottom = style.AXIS_ROOM + style.SLIDER_ROOM + style.LEGEND_ROOM
    grow = max(0, bottom - int((layout.get("margin") or {}).get("b", 120)))
    layout["margin"] = dict(layout.get("margin") or {}) | {"b": bottom}
    layout["height"] = int(layout.get("height", 430)) + grow
    legend = layout.get("legend") or {}
    if legend.get("yref") != "container" and float(legend.get("y", 1.0)) < 0:  # hung below the plot: at the foot
        layout["legend"] = legend | {"yref": "container", "y": 0.0, "yanchor": "bottom"}
    return layout


def _adapted(frame: dict[str, Any], bottom: int, bold: bool) -> dict[str, Any]:
    """A frame as the opened figure needs it: the slider's room in its margin, its title in bold if asked."""
    layout = frame["layout"]
    if isinstance(layout.get("margin"), dict):
        layout = layout | {"margin": layout["margin"] | {"b": bottom}}
    title = layout.get("title")
    if bold and isinstance(title, dict) and isinstance(title.get("text"), str):
        layout = layout | {"title": title | {"text": f"<b>{title['text']}</b>"}}
    return frame | {"layout": layout} if layout is not frame["layout"] else frame


#: An axis's tick labelling (``style._decades``): a log axis over more decades is labelled another way, with settings
#: a frame could not unset.
_TICKS = ("tickmode", "tickvals", "ticktext", "dtick", "minor")


def _one_labelling(stops: list[dict[str, Any]]) -> None:
    """Give a log axis labelled differently at some stops (its span crosses a number of decades) the labelling of
    all stops' spans together, at every stop: the labels then stay put while the slider moves, and every frame sets
    the same tick settings. In place."""
    for axis in ("xaxis", "yaxis"):
        ticks = {tuple(sorted(k for k in (s["layout"].get(axis) or {}) if k in _TICKS)) for s in stops}
        logs = {(s["layout"].get(axis) or {}).get("type") == "log" for s in stops}
        if len(ticks) < 2 or logs != {True}:
            continue
        letter = axis[0]
        values = [
            overlay.values_of(t.get(letter))
            for s in stops
            for t in s["data"]
            if t.get(f"{letter}axis", letter) == letter
        ]
        values += [
            overlay.values_of(sh.get(f"{letter}{end}"))
            for s in stops
            for sh in s["layout"].get("shapes") or ()
            if sh.get(f"{letter}ref", letter) == letter
            for end in ("0", "1")
        ]
        labelling = style._decades([{letter: np.concatenate(values) if values else np.array([])}], letter)
        for s in stops:
            kept = {k: v for k, v in s["layout"][axis].items() if k not in _TICKS}
            s["layout"][axis] = kept | labelling


def _paths(value: Any, at: str = "") -> list[str]:
    """The settings a layout value makes (dotted paths of its leaves; a list counts as one setting)."""
    if isinstance(value, dict) and not ("bdata" in value and "dtype" in value):
        return [p for k, v in value.items() for p in _paths(v, f"{at}.{k}" if at else k)]
    return [at or "(value)"] if value is not None else []


def slides(
    figures: Sequence[go.Figure],
    *,
    key: str,
    values: Sequence[str],
    labels: Sequence[str],
    prefix: str,
    play: bool = False,
    name: str = "",
) -> Slides:
    """Every stop's figure as frames of one figure with a slider over the stops.

    ``figures`` are the page's figures at each stop (the same traces in the same order at every stop); ``key`` the
    parameter's address key; ``values`` the stops in their address form (the frames' names); ``labels`` the stops as
    a reader writes them (10⁻⁵); ``prefix`` what stands before the current value ("ε = "); ``play`` adds a button
    that plays the stops in order (where a story unfolds as the value grows); ``name`` is the slider's name in words
    ("ε — privacy-loss budget"), for a screen reader.
    """
    if not (len(figures) == len(values) == len(labels)) or len(figures) < 2:
        raise ValueError("an in-figure slider needs one figure, value and label per stop, and at least two stops")
    stops = [_json(f) for f in figures]
    kinds = {tuple(t.get("type", "scatter") for t in s["data"]) for s in stops}
    if len(kinds) != 1:
        raise ValueError(f"the figure at every stop of {key!r} must have the same traces in the same order")
    # the fast way first: marker lines and notes as traces, the axes held still; else every frame redraws
    fast = copy.deepcopy(stops)
    try:
        made = (
            _frames(fast, key, values, every=True)
            if overlay.fix_ranges(fast) and overlay.marks_as_traces(fast)
            else None
        )
    except ValueError:  # a layout setting at some stops only: the way below says which
        made = None
    if made is not None and _fast(*made, fast):
        _hold_margins(fast, made[1])
        return Slides(tuple(fast), made[0], key, tuple(values), tuple(labels), prefix, play, name, redraw=False)
    made = _frames(stops, key, values)
    return Slides(tuple(stops), made[0], key, tuple(values), tuple(labels), prefix, play, name, redraw=True)


def _frames(
    stops: list[dict[str, Any]], key: str, values: Sequence[str], every: bool = False
) -> tuple[tuple[dict[str, Any], ...], list[str]]:
    """Each stop's frame (what changes from stop to stop, for every trace if ``every``), and the layout keys they
    set. In place: the log axes' labelling made one for all stops."""
    _one_labelling(stops)
    first = stops[0]
    moving = [_changing([s["data"][i] for s in stops]) for i in range(len(first["data"]))]
    traces = _listed(stops, moving) if every else [i for i, keys in enumerate(moving) if keys]
    layout_keys = [k for k in _changing([s["layout"] for s in stops]) if k not in ("sliders", "updatemenus")]
    for k in layout_keys:  # a frame can set a layout value, never unset one: each setting must be at every stop
        shapes = {frozenset(_paths(s["layout"].get(k))) for s in stops}
        if len(shapes) > 1:
            odd = sorted(frozenset.union(*shapes) - frozenset.intersection(*shapes))
            raise ValueError(f"the layout's {k} sets {', '.join(odd[:3])} at some stops of {key!r} only")
    made = tuple(
        {
            "name": values[n],
            # each trace names its type: Plotly reads a frame's trace without one as a scatter
            "data": [
                {"type": s["data"][i].get("type", "scatter")} | {k: _narrow(s["data"][i].get(k)) for k in moving[i]}
                for i in traces
            ],
            "traces": traces,
            "layout": {k: s["layout"].get(k) for k in layout_keys},
        }
        for n, s in enumerate(stops)
    )
    return made, layout_keys


#: A trace that draws nothing and that the legend cannot hide (no entry, no group): what a frame lists for a plot whose
#: traces all stay.
_ANCHOR: dict[str, Any] = {
    "type": "scatter",
    "mode": "lines",
    "x": [None],
    "y": [None],
    "showlegend": False,
    "hoverinfo": "skip",
}


def _listed(stops: list[dict[str, Any]], moving: list[list[str]]) -> list[int]:
    """The traces each frame lists where frames are switched without a redraw. Plotly's fast path replots the listed
    traces alone, plot by plot (one pair of axes), and drops a plot's drawing where it lists none of its traces. So a
    plot with a trace that moves lists all its traces (their stacking kept, a fill redrawn with its neighbour); a plot
    whose traces all stay lists one trace the legend cannot hide (a reader may hide any other), redrawn as it was:
    its other traces are not touched, and their pixels need not be painted again. A plot without one gets one drawing
    nothing. In place: such a trace is added to every stop, and ``moving`` gets its entry."""
    data = stops[0]["data"]
    plots: dict[tuple[str, str, Any], list[int]] = {}
    for i, t in enumerate(data):
        plots.setdefault((t.get("xaxis") or "x", t.get("yaxis") or "y", t.get("zorder") or 0), []).append(i)
    listed: list[int] = []
    for (xaxis, yaxis, zorder), members in plots.items():
        if any(moving[i] or data[i].get("type", "scatter") != "scatter" or data[i].get("fill") for i in members):
            listed += members
            continue
        steady = [
            i
            for i in members
            if data[i].get("showlegend") is False
            and not data[i].get("legendgroup")
            and data[i].get("visible", True) is True
        ]
        if not steady:
            anchor = _ANCHOR | {"xaxis": xaxis, "yaxis": yaxis} | ({"zorder": zorder} if zorder else {})
            for s in stops:
                s["data"].append(copy.deepcopy(anchor))
            moving.append([])
            steady = [len(data) - 1]
        listed.append(steady[0])
    return sorted(listed)


#: The margins (px) kept beside a plot whose frames move an axis's range: room for the widest tick labels and axis
#: title the pages' pictures show beside a y axis (0.0052 under "probability density" takes 94 px), and for half the
#: last tick label of an x axis, which overhangs the plot's right end.
HELD_MARGIN = {"y": 100, "x": 40}


def _hold_margins(stops: list[dict[str, Any]], layout_keys: list[str]) -> None:
    """Where frames move an axis's range, the margins beside the plot wide enough for the labels of every stop. The
    axes grow a margin their labels need (``automargin``), and when a switch of frames makes a margin change, even by
    a pixel, Plotly redraws the whole chart, slider and legend included (a few hundred milliseconds), instead of the
    axes alone. In place: at every stop, a y axis's side at least ``HELD_MARGIN["y"]`` and the right margin at least
    ``HELD_MARGIN["x"]`` where an x axis moves."""
    held: dict[str, int] = {}
    for s in stops:
        for k in layout_keys:
            if re.fullmatch(r"[xy]axis[0-9]*", k):
                side = "r" if k[0] == "x" or (s["layout"].get(k) or {}).get("side") == "right" else "l"
                held[side] = max(held.get(side, 0), HELD_MARGIN[k[0]])
    for s in stops:
        margin = dict(s["layout"].get("margin") or {})
        s["layout"]["margin"] = margin | {side: max(int(margin.get(side, 0)), px) for side, px in held.items()}


def _fast(made: tuple[dict[str, Any], ...], layout_keys: list[str], stops: list[dict[str, Any]]) -> bool:
    """Whether the browser can switch these frames without a redraw: traces' data, of traces it updates in place,
    and axes' ranges (which it sets in place too), nothing else."""

    def rest(axis: Any) -> Any:
        return {k: v for k, v in axis.items() if k != "range"} if isinstance(axis, dict) else axis

    ranges_only = all(
        re.fullmatch(r"[xy]axis[0-9]*", k)
        and all(rest(s["layout"].get(k)) == rest(stops[0]["layout"].get(k)) for s in stops)
        for k in layout_keys
    )
    return ranges_only and all(
        set(t) <= _FAST_KEYS and t["type"] in _FAST_TYPES for frame in made for t in frame["data"]
    )


def slider(
    key: str,
    values: Sequence[str],
    labels: Sequence[str],
    *,
    active: int,
    prefix: str,
    play: bool,
    redraw: bool = True,
) -> dict[str, Any]:
    """The slider under the plot: one step per stop, each switching to its frame; its current value written with
    the parameter's symbol above the rail."""
    return {
        "name": key,
        "active": active,
        "steps": [
            {"label": label, "value": value, "method": "animate", "args": [[value], _at_once(redraw)]}
            for value, label in zip(values, labels, strict=True)
        ],
        "currentvalue": {"prefix": prefix, "visible": True, "xanchor": "left", "offset": 8, "font": {"size": 16}},
        "x": 0.0,
        "len": 1.0,
        "xanchor": "left",
        "y": 0.0,
        "yanchor": "top",
        # the rail starts clear of the play button whatever the chart's width (a share of the width met the button
        # on a narrow chart)
        "pad": {"t": style.AXIS_ROOM, "b": 0, "l": style.PLAY_ROOM if play else 0, "r": 0},
        "ticklen": 4,
        "minorticklen": 2,
        "bordercolor": style.CONTROL_EDGE,
    }


def play_button(values: Sequence[str], redraw: bool = True) -> dict[str, Any]:
    """Play: the stops in order from the one shown, each shown for ``PLAY_FRAME_MS``."""
    playing = {
        "mode": "immediate",
        "fromcurrent": True,
        "frame": {"duration": PLAY_FRAME_MS, "redraw": redraw},
        "transition": {"duration": 0},
    }
    return {
        "type": "buttons",
        "direction": "left",
        "showactive": False,
        "x": 0.0,
        "xanchor": "left",
        "y": 0.0,
        "yanchor": "top",
        "pad": {"t": style.AXIS_ROOM + 30, "r": 8},
        "bordercolor": style.CONTROL_EDGE,
        "buttons": [{"label": "▶ Play", "method": "animate", "args": [None, playing]}],
    }


def size(fig: go.Figure) -> int:
    """Bytes of the figure as it is sent to the browser (its JSON)."""
    return len(json.dumps(fig.to_plotly_json(), cls=_Encoder, separators=(",", ":")))


class _Encoder(json.JSONEncoder):
    def default(self, o: Any) -> Any:
        plain = _plain(o)
        return plain if plain is not o else super().default(o)
