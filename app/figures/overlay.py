"""A deck's marker lines and notes drawn as traces, so that a frame carries trace data only and the browser switches
it without redrawing the chart (``app.figures.frames``: Plotly's fast path, ``redraw: false``, which updates traces
and leaves the layout as it is).

A layout shape (a line or a rectangle) becomes a line trace and an annotation (a note without an arrow) a text
trace. Their coordinates in the plot's fraction (``paper``) go on invisible overlay axes whose range is their
panel's domain, so that a value on them is the plot's fraction (a line spanning the plot's height is drawn in each
panel of a figure with several); those in data units stay on the plot's axis. Nothing of them is hovered or in the
legend. An axis that is autoranged, or whose range changes from stop to stop, gets one range for every stop: the
span of everything it shows at all stops, padded as Plotly pads it (:func:`fix_ranges`), so the axes hold still while
the slider moves, unless that squeezes a stop's picture.

Every function works on the figures' JSON (``frames._json``), in place, and answers whether it could.
"""

from __future__ import annotations

import base64
import math
import re
from typing import Any

import numpy as np


def values_of(v: Any) -> np.ndarray:
    """The numbers of a trace's array or a mark's coordinate (typed arrays decoded), as floats."""
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]).newbyteorder("<")).astype(float)
    try:
        return np.asarray(v if isinstance(v, list) else [v], dtype=float).ravel()
    except (TypeError, ValueError):
        return np.array([])


#: The overlay axes: a plot's fraction, over the plot's own axes.
OVER_X, OVER_Y = "x9", "y9"
_OVER_AXIS: dict[str, Any] = {"visible": False, "fixedrange": True, "showgrid": False}

#: Where a text sits from its point, by the annotation's anchor (the side of the text the point is on).
_X_SIDE = {"left": "right", "right": "left", "center": "center"}
_Y_SIDE = {"bottom": "top", "top": "bottom", "middle": "middle"}


def _ref(ref: Any, letter: str) -> str | None:
    """The axis a shape's or annotation's coordinate lives on: the plot's own, the overlay, or None (another)."""
    if ref in (None, letter):
        return letter
    if ref == "paper":
        return OVER_X if letter == "x" else OVER_Y
    if isinstance(ref, str) and re.fullmatch(f"{letter}[2-8]", ref):
        return ref
    return None


def _name(axis: str) -> str:
    """An axis's name in the layout ("yaxis2") from its id ("y2")."""
    return f"{axis[0]}axis{axis[1:]}"


def _log(layout: dict[str, Any], axis: str) -> bool:
    return (layout.get(_name(axis)) or {}).get("type") == "log"


def _shape(shape: dict[str, Any], panels: list[str]) -> list[dict[str, Any]] | None:
    """A shape as a line trace: one per panel where it spans the plot's fraction of height (a trace is drawn
    within its panel only)."""
    kind = shape.get("type", "line" if "path" not in shape else "path")
    xa, ya = _ref(shape.get("xref"), "x"), _ref(shape.get("yref"), "y")
    if kind not in ("line", "rect") or xa is None or ya is None or shape.get("visible") is False:
        return None
    x0, x1, y0, y1 = (shape.get(k, 0) for k in ("x0", "x1", "y0", "y1"))
    trace: dict[str, Any] = {"type": "scatter", "mode": "lines", "xaxis": xa}
    if kind == "line":
        trace |= {"x": [x0, x1], "y": [y0, y1]}
    else:
        trace |= {"x": [x0, x1, x1, x0, x0], "y": [y0, y0, y1, y1, y0]}
        if shape.get("fillcolor"):
            trace |= {"fill": "toself", "fillcolor": shape["fillcolor"]}
    line = dict(shape.get("line") or {})
    if kind == "rect" and "width" not in line:
        line["width"] = 2  # a shape's outline by default, none for a trace's fill
    trace |= {"line": line, "opacity": shape.get("opacity", 1)}
    return [trace | {"yaxis": a} for a in (_over(panels) if ya == OVER_Y else [ya])]


def _over(panels: list[str]) -> list[str]:
    """The overlay axes of the plot's fraction of height, one per panel (y9 over y, y8 over y2 ...)."""
    return [f"y{9 - i}" for i in range(len(panels))]


def _note(note: dict[str, Any], layout: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A note without an arrow as a text trace, on the side of its point its anchor puts it (None: it cannot be)."""
    xa, ya = _ref(note.get("xref"), "x"), _ref(note.get("yref"), "y")
    if xa is None or ya is None or note.get("showarrow", True) or note.get("visible") is False:
        return None
    if note.get("textangle") or note.get("xshift") or note.get("yshift"):
        return None
    x, y = note.get("x", 0.5), note.get("y", 0.5)
    # an annotation on a log axis is placed in powers of ten, a trace in the axis's own units
    x = 10.0**x if xa != OVER_X and _log(layout, xa) else x
    y = 10.0**y if ya != OVER_Y and _log(layout, ya) else y
    xanchor, yanchor = note.get("xanchor", "auto"), note.get("yanchor", "auto")
    side = _X_SIDE.get(xanchor, "center")
    if yanchor == "auto":  # Plotly's rule for a note in the plot's fraction: by the third of the plot it is in
        yanchor = "middle" if ya != OVER_Y else ("bottom" if y < 1 / 3 else "top" if y > 2 / 3 else "middle")
    font = dict(note.get("font") or {})
    if note.get("bgcolor"):  # a halo in the page's colour where the note had a box, so it reads over a curve
        font.setdefault("shadow", "auto")
    return [
        {
            "type": "scatter",
            "mode": "text",
            "x": [x],
            "y": [y],
            "text": [note.get("text", "")],
            "textposition": f"{_Y_SIDE.get(yanchor, 'middle')} {side}",
            "textfont": font,
            "xaxis": xa,
            "yaxis": ya,
            "cliponaxis": False,  # drawn where the note was, in its panel or not
        }
    ]


#: What a drawn mark never does: answer the hover, or stand in the legend.
_QUIET = {"hoverinfo": "skip", "showlegend": False}
#: A placeholder for a mark one stop has and another has not.
_NOTHING = {"type": "scatter", "mode": "lines", "x": [], "y": [], "xaxis": "x", "yaxis": "y"}


def _panels(layout: dict[str, Any]) -> list[str] | None:
    """The plot's y axes that are panels of their own (not laid over another), the first first; None where there is
    more than one x panel or no room for the overlay axes."""
    names = sorted(k for k in layout if re.fullmatch(r"[xy]axis[2-8]?", k))
    if any(k.startswith("xaxis") and k != "xaxis" and not (layout[k] or {}).get("overlaying") for k in names):
        return None
    panels = ["y"] + [f"y{k[5:]}" for k in names if k.startswith("yaxis") and k != "yaxis"]
    panels = [p for p in panels if not (layout.get(_name(p)) or {}).get("overlaying")]
    taken = {f"y{k[5:]}" for k in names}
    return panels if len(panels) <= 3 and not taken & set(_over(panels)) else None


def marks_as_traces(stops: list[dict[str, Any]]) -> bool:
    """Each stop's layout shapes and annotations as traces after its own (the same number at every stop). False,
    and nothing changed, where a mark cannot be a trace (another kind of shape, an arrow, another subplot)."""
    layouts = [s["layout"] for s in stops]
    panels = _panels(layouts[0])
    if panels is None or any(_panels(lay) != panels for lay in layouts):
        return False
    drawn: list[list[dict[str, Any]]] = []
    for lay in layouts:
        made = [_shape(sh, panels) for sh in lay.get("shapes") or ()] + [
            _note(a, lay) for a in lay.get("annotations") or ()
        ]
        if any(t is None for t in made):
            return False
        drawn.append([t for ts in made for t in ts or ()])
    most = max(len(d) for d in drawn)
    if not most:
        return True
    used = {m.get(k) for d in drawn for m in d for k in ("xaxis", "yaxis")}
    for s, marks in zip(stops, drawn, strict=True):
        marks += [_NOTHING] * (most - len(marks))
        s["data"] = s["data"] + [m | _QUIET for m in marks]
        lay = {k: v for k, v in s["layout"].items() if k not in ("shapes", "annotations")}
        # an overlay axis spans its panel's domain with the range of that domain: a value on it is the plot's fraction
        if OVER_X in used:
            lay["xaxis9"] = _OVER_AXIS | {"overlaying": "x", "anchor": "y", "range": _domain(lay, "x")}
        for panel, over in zip(panels, _over(panels), strict=True):
            if over in used:
                lay[_name(over)] = _OVER_AXIS | {"overlaying": panel, "anchor": "x", "range": _domain(lay, panel)}
        s["layout"] = lay
    return True


def _domain(layout: dict[str, Any], axis: str) -> list[float]:
    return [float(v) for v in (layout.get(_name(axis)) or {}).get("domain") or (0.0, 1.0)]


def _extent(stop: dict[str, Any], axis: str, log: bool) -> list[float] | None:
    """The range Plotly's autorange gives the plot's ``letter`` axis at one stop (log10 units on a log axis): the
    span of its traces and marker lines, padded by 5% a side where Plotly pads (markers, text, bars, a curve's y; not
    a curve's x, nor the side a bar or a fill to zero rests on). None: nothing numeric, or a trace of another kind."""
    letter = axis[0]
    values: list[np.ndarray] = []
    padded = zero = False
    for t in stop["data"]:
        if t.get(f"{letter}axis", letter) != axis or t.get("visible") is False:
            continue
        kind, mode, fill = t.get("type", "scatter"), str(t.get("mode", "lines")), t.get("fill")
        v = values_of(t.get(letter)) if t.get(letter) is not None else np.array([])
        if kind == "bar":
            if letter == ("y" if t.get("orientation", "v") == "v" else "x"):
                v, zero, padded = np.append(v, 0.0), True, True
            elif v.size:
                half = float(np.max(values_of(t["width"]))) / 2 if t.get("width") is not None else 0.4
                v = np.concatenate([v - half, v + half])
        elif kind == "scatter":
            if letter == "x":
                padded |= ("markers" in mode or "text" in mode) and fill not in ("tonexty", "tozeroy")
                if fill == "tozerox":
                    v, zero = np.append(v, 0.0), True
            else:
                padded |= fill not in ("tonextx", "tozerox")
                if fill == "tozeroy":
                    v, zero = np.append(v, 0.0), True
        else:
            return None
        values.append(v)
    for sh in stop["layout"].get("shapes") or ():  # Plotly spans a marker line in data units too, unpadded
        if sh.get(f"{letter}ref", letter) == axis:
            values.append(values_of([sh.get(f"{letter}0"), sh.get(f"{letter}1")]))
    v = np.concatenate(values) if values else np.array([])
    v = v[np.isfinite(v)]
    if log:
        v, zero = np.log10(v[v > 0]), False
    if not v.size:
        return None
    lo, hi = float(v.min()), float(v.max())
    pad = 0.05 * ((hi - lo) or abs(hi) or 1.0) if padded else 0.0
    return [lo if zero and lo == 0.0 else lo - pad, hi if zero and hi == 0.0 else hi + pad]


def fix_ranges(stops: list[dict[str, Any]], most_growth: float = 2.5) -> bool:
    """The range of each of the plot's axes set at every stop where Plotly would autorange it or it changes from
    stop to stop: one range for all stops (everything shown at any stop, padded by 5% a side where Plotly pads) where
    that squeezes no stop's picture (at most ``most_growth`` times the narrowest range a stop needs), else each
    stop's own range (a frame then sets it, which Plotly's fast path applies too). False, and nothing changed, where
    a range cannot be known (an axis of another kind, a trace Plotly autoranges otherwise)."""
    fixed: dict[str, list[list[float]]] = {}
    named = sorted({k for s in stops for k in s["layout"] if re.fullmatch(r"[xy]axis[2-8]?", k)} | {"xaxis", "yaxis"})
    for name in named:
        axis_id = name[0] + name[5:]
        axes = [s["layout"].get(name) or {} for s in stops]
        if any(a.get("type") not in (None, "linear", "log") or a.get("autorange") == "reversed" for a in axes):
            return False
        log = axes[0].get("type") == "log"
        ranges = [a.get("range") for a in axes]
        if all(r is not None for r in ranges) and all(r == ranges[0] for r in ranges):
            continue  # the same range at every stop already
        found = [
            [float(r[0]), float(r[1])] if r is not None else _extent(s, axis_id, log)
            for r, s in zip(ranges, stops, strict=True)
        ]
        each = [e for e in found if e is not None]
        if len(each) < len(found):
            return False
        spans = [b - a for a, b in each]
        lo, hi = min(a for a, _ in each), max(b for _, b in each)
        if not all(math.isfinite(x) for x in (lo, hi)) or hi <= lo:
            return False
        # one range where it squeezes no stop's picture, else each stop's own (a frame then sets it)
        fixed[name] = [[lo, hi]] * len(stops) if hi - lo <= most_growth * min(spans) else each
    for n, s in enumerate(stops):
        for name, rs in fixed.items():
            axis = dict(s["layout"].get(name) or {})
            axis.pop("autorange", None)
            s["layout"][name] = axis | {"range": list(rs[n])}
    return True
