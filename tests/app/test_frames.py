"""In-figure sliders (app.figures.frames, app.slides, app.instant): every frame, once the browser has applied it, is
the figure the server draws at that stop, and a page's figures stay under their size budget.

The browser's side is emulated here independently of ``app.figures.frames``: Plotly applies a frame by merging it
into the figure (objects key by key, arrays replaced: plotly.js ``Lib.extendDeepNoArrays``), trace by trace for the
frame's ``traces``. The expected figure comes from the page's own builder called at the stop, as a page run at that
stop draws it.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from app import course, instant, slides, ui
from app.figures import frames
from tests.app.conftest import open_page

#: The views with in-figure sliders (page script, address), the first course's chapters included.
VIEWS = [
    ("home.py", {}),
    ("baselines.py", {}),
    ("brdp.py", {}),
    ("svt.py", {"part": "Correction"}),
    ("noise_reduction.py", {}),
    ("ldp.py", {}),
    ("r2dp.py", {"part": "Families"}),
] + [("course.py", {"chapter": slug}) for slug in course.SLUGS]

#: The most figure data one view may send (bytes of JSON, every chart of the view together).
PAGE_BUDGET = 1_500_000

#: Layout keys an in-figure slider adds or changes around the picture (the slider, its room, its name).
SLIDER_LAYOUT = {"sliders", "updatemenus", "height", "meta", "margin", "legend"}


def _slider_key(fig: go.Figure) -> str | None:
    """The address key an in-figure slider of ``fig`` sets, or None for a figure without one."""
    sliders = fig.layout.sliders
    return str(sliders[0].name) if sliders and sliders[0].name else None


def _merge(into: Any, update: Any) -> Any:
    """Plotly's frame merge (``Lib.extendDeepNoArrays``): objects merged key by key, anything else replaced."""
    if isinstance(into, dict) and isinstance(update, dict) and not _is_typed(update):
        out = dict(into)
        for k, v in update.items():
            out[k] = _merge(into.get(k), v)
        return out
    return copy.deepcopy(update)


def _is_typed(v: Any) -> bool:
    return isinstance(v, dict) and "bdata" in v and "dtype" in v


def _decoded(v: Any) -> Any:
    """A figure's JSON with typed arrays as numpy arrays and lists of numbers as float arrays."""
    if _is_typed(v):
        arr = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]).newbyteorder("<"))
        return arr.astype(float).reshape([int(n) for n in v["shape"].split(",")]) if "shape" in v else arr.astype(float)
    if isinstance(v, dict):
        return {k: _decoded(x) for k, x in v.items()}
    if isinstance(v, list):
        if v and all(isinstance(x, int | float) and not isinstance(x, bool) or x is None for x in v):
            return np.array([np.nan if x is None else x for x in v], dtype=float)
        return [_decoded(x) for x in v]
    return v


def _plain(fig: go.Figure) -> dict:
    return _decoded(json.loads(pio.to_json(fig, validate=False)))


def _same(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two decoded figure trees differ; arrays agree to float32's precision (frames carry 32-bit floats)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if a.shape != b.shape:
            return [f"{path}: shape {a.shape} != {b.shape}"]
        scale = np.nanmax(np.abs(b)) if b.size and np.isfinite(b).any() else 1.0
        ok = np.allclose(a, b, rtol=1e-6, atol=1e-6 * scale, equal_nan=True)
        return [] if ok else [f"{path}: arrays differ (max {np.nanmax(np.abs(a - b))})"]
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in (_same(a.get(k), b.get(k), f"{path}/{k}"))]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} != {len(b)} items"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _same(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {str(a)[:60]} != {str(b)[:60]}"]


def _at_stop(fig: dict, frame: dict) -> dict:
    """The figure as the browser shows it once ``frame`` is applied."""
    data = list(fig["data"])
    changed = frame.get("data") or []
    for index, trace in zip(frame.get("traces") or range(len(changed)), changed, strict=True):
        data[index] = _merge(data[index], trace)
    return {"data": data, "layout": _merge(fig["layout"], frame.get("layout") or {})}


#: A log axis's tick labelling: a deck labels it for all its stops' spans together (``frames._one_labelling``,
#: tested below), so the labels stay put while the slider moves.
TICKS = {"tickmode", "tickvals", "ticktext", "dtick", "minor"}


def _picture(fig: dict) -> dict:
    """What the reader sees of a figure, without what the slider adds around it (nor its log axes' labelling)."""
    layout = {k: v for k, v in fig["layout"].items() if k not in SLIDER_LAYOUT}
    for axis in ("xaxis", "yaxis"):
        if isinstance(layout.get(axis), dict) and layout[axis].get("type") == "log":
            layout[axis] = {k: v for k, v in layout[axis].items() if k not in TICKS}
    return {"data": fig["data"], "layout": layout}


#: What a deck changes about the picture's layout when its marks become traces (``app.figures.overlay``).
MARKS = {"shapes", "annotations", "xaxis9", "yaxis9", "yaxis8", "yaxis7"}


def _on_fraction(layout: dict, axis: str, letter: str) -> bool:
    """Whether a value on ``axis`` is the plot's fraction: an invisible axis laid over one of the plot's own, its
    range that axis's domain."""
    over = layout.get(f"{letter}axis{axis[1:]}") or {}
    under = layout.get(f"{letter}axis{str(over.get('overlaying', ''))[1:]}") or {}
    domain = list(under.get("domain", [0.0, 1.0]))
    return over.get("visible") is False and bool(over.get("overlaying")) and np.allclose(over["range"], domain)


def _marks_drawn(got: dict, expected: dict) -> list[str]:
    """Where the traces after the builder's own do not draw the builder's shapes and annotations (each where the
    builder put it, in its colour; a shape spanning the plot's height once in each panel), in order, then nothing."""
    n = len(expected["data"])
    marks, lay, got_lay = got["data"][n:], expected["layout"], got["layout"]
    if not marks:
        return []
    panels = 1 + sum(1 for k, v in lay.items() if k[:5] == "yaxis" and k[5:] and not (v or {}).get("overlaying"))
    wanted = [sh for sh in lay.get("shapes") or [] for _ in range(panels if sh.get("yref") == "paper" else 1)]
    shapes = len(wanted)
    wanted += list(lay.get("annotations") or [])
    problems = [
        f"mark {i} is hovered or in the legend"
        for i, m in enumerate(marks)
        if m.get("hoverinfo") != "skip" or m.get("showlegend") is not False
    ]
    problems += [  # after the marks: traces that draw nothing, if any (what a frame lists for a plot that stays)
        f"mark {i} draws what the builder did not"
        for i, m in enumerate(marks[len(wanted) :])
        if np.isfinite(np.asarray(m["x"], dtype=float)).any()
    ]
    for i, (mark, item) in enumerate(zip(marks, wanted, strict=False)):
        for letter in ("x", "y"):
            axis, ref = mark.get(f"{letter}axis", letter), item.get(f"{letter}ref", letter)
            if not (_on_fraction(got_lay, axis, letter) if ref == "paper" else axis == ref):
                problems.append(f"mark {i}'s {letter} on {axis}, not where {ref} is")
        if i < shapes:
            xs, ys = np.asarray(mark["x"], dtype=float), np.asarray(mark["y"], dtype=float)
            if not (
                np.allclose(sorted(set(xs)), sorted({item["x0"], item["x1"]}))
                and np.allclose(sorted(set(ys)), sorted({item["y0"], item["y1"]}))
            ):
                problems.append(f"shape {i} drawn at x {xs}, y {ys}")
            if {k: v for k, v in mark["line"].items() if k in item.get("line", {})} != item.get("line", {}):
                problems.append(f"shape {i} drawn as {mark['line']}, not {item.get('line')}")
        else:
            log_x = (lay.get("xaxis") or {}).get("type") == "log" and item.get("xref", "x") == "x"
            log_y = (lay.get("yaxis") or {}).get("type") == "log" and item.get("yref", "y") == "y"
            x = 10.0 ** item["x"] if log_x else item["x"]
            y = 10.0 ** item["y"] if log_y else item["y"]
            if list(mark["text"]) != [item["text"]] or not np.allclose([mark["x"][0], mark["y"][0]], [x, y]):
                problems.append(f"note {item['text']!r} drawn as {mark['text']} at {mark['x']}, {mark['y']}")
            if (mark.get("textfont") or {}).get("color") != (item.get("font") or {}).get("color"):
                problems.append(f"note {item['text']!r} in another colour")
    return problems


def _ranges_hold(got: dict, expected: dict) -> list[str]:
    """Where an axis the deck fixed does not show everything the builder's figure shows on it (nor its range)."""
    problems = []
    for name, axis in got["layout"].items():
        if not (name[:5] in ("xaxis", "yaxis") and name not in MARKS and isinstance(axis, dict) and "range" in axis):
            continue
        ident, log = name[0] + name[5:], axis.get("type") == "log"
        lo, hi = sorted(float(v) for v in axis["range"])
        shown = [
            np.asarray(t[name[0]], dtype=float).ravel()
            for t in expected["data"]
            if t.get(f"{name[0]}axis", name[0]) == ident and isinstance(t.get(name[0]), np.ndarray)
        ]
        values = np.concatenate(shown) if shown else np.array([])
        values = values[np.isfinite(values) & ((values > 0) if log else True)]
        values = np.log10(values) if log else values
        span = (hi - lo) * 1e-9
        if values.size and (values.min() < lo - span or values.max() > hi + span):
            problems.append(f"{name} {lo, hi} cuts off {values.min(), values.max()}")
        theirs = (expected["layout"].get(name) or {}).get("range")
        if theirs is not None and (min(theirs) < lo - span or max(theirs) > hi + span):
            problems.append(f"{name} {lo, hi} narrower than the builder's {theirs}")
    return problems


def _drawn_differences(got: dict, expected: dict) -> list[str]:
    """Where a frame shows something else than the builder's figure at its stop: the builder's traces, its marks
    (drawn as traces where a deck made them so), the rest of its layout, and axes that show all of it."""
    n = len(expected["data"])
    plain = [k for k in expected["layout"] if k not in MARKS]
    exp_layout = {k: expected["layout"][k] for k in plain}
    got_layout = {k: v for k, v in got["layout"].items() if k not in MARKS}
    if not got["data"][n:]:  # marks kept as layout
        exp_layout |= {k: v for k, v in expected["layout"].items() if k in ("shapes", "annotations")}
        got_layout |= {k: v for k, v in got["layout"].items() if k in ("shapes", "annotations")}
    for name in set(exp_layout) | set(got_layout):  # an axis's range is checked by what it shows (_ranges_hold)
        if name[:5] in ("xaxis", "yaxis") and isinstance(got_layout.get(name), dict):
            got_layout[name] = {k: v for k, v in got_layout[name].items() if k not in ("range", "autorange")}
            exp_layout[name] = {
                k: v for k, v in (exp_layout.get(name) or {}).items() if k not in ("range", "autorange")
            }
    return (
        _same({"data": got["data"][:n], "layout": got_layout}, {"data": expected["data"], "layout": exp_layout})
        + _marks_drawn(got, expected)
        + _ranges_hold(got, expected)
    )


def _record(monkeypatch) -> tuple[list[tuple], list[go.Figure]]:
    """Every in-figure figure a page asks for (build, key, value, args, options) and every chart it draws."""
    asked: list[tuple] = []
    charts: list[go.Figure] = []
    real_figure, real_chart = instant.figure, ui.chart

    def figure(build, key, value, *args, **kw):
        asked.append((build, key, value, args, {k: v for k, v in kw.items() if k != "slot"}))
        return real_figure(build, key, value, *args, **kw)

    def chart(fig, data, **kw):
        charts.append(fig)
        return real_chart(fig, data, **kw)

    monkeypatch.setattr(instant, "figure", figure)
    monkeypatch.setattr(ui, "chart", chart)
    return asked, charts


@pytest.mark.parametrize("script,query", VIEWS, ids=[f"{s}-{'-'.join(q.values()) or 'top'}" for s, q in VIEWS])
def test_every_frame_is_the_figure_the_server_draws_at_its_stop(script, query, monkeypatch):
    asked, charts = _record(monkeypatch)
    at = open_page(script, query)
    assert not at.exception, at.exception
    with_slider = [c for c in charts if _slider_key(c)]
    assert asked and with_slider, f"{script} {query} drew no in-figure slider"
    for build, key, value, args, kw in asked:
        shown = slides.figure(build, key, value, *args, **kw)
        plain = _plain(shown)
        sent = json.loads(pio.to_json(shown, validate=False))
        slider = plain["layout"]["sliders"][0]
        stops = kw.get("stops") or slides.catalogue.get(key).grid
        assert [s["value"] for s in slider["steps"]] == [slides.catalogue.get(key).fmt(v) for v in stops]
        assert slider["name"] == key and slider["currentvalue"]["prefix"].endswith(("= ", ": "))
        assert slider["steps"][slider["active"]]["value"] == slides.catalogue.get(key).fmt(value)
        opening = _drawn_differences(_picture(plain), _picture(_plain(build(value, *args))))
        assert not opening, ("the figure as it opens", opening[:5])
        redraw = {step["args"][1]["frame"]["redraw"] for step in slider["steps"]}
        assert len(redraw) == 1
        for stop, frame in zip(stops, sent["frames"], strict=True):
            assert frame["name"] == slides.catalogue.get(key).fmt(stop)
            if redraw == {False}:  # the fast way: Plotly updates the traces and axes' ranges, and nothing else
                for name, axis in (frame.get("layout") or {}).items():
                    assert name[:5] in ("xaxis", "yaxis"), (script, key, name)
                    assert {k: v for k, v in axis.items() if k != "range"} == {
                        k: v for k, v in sent["layout"][name].items() if k != "range"
                    }, (script, key, name)
                assert all(t["type"] in ("scatter", "bar") for t in frame["data"])
            expected = _picture(_plain(build(stop, *args)))
            got = _picture(_decoded(_at_stop(sent, frame)))
            differences = _drawn_differences(got, expected)
            assert not differences, (script, key, stop, differences[:5])


@pytest.mark.parametrize("script,query", VIEWS, ids=[f"{s}-{'-'.join(q.values()) or 'top'}" for s, q in VIEWS])
def test_a_view_sends_at_most_its_budget_of_figure_data(script, query, monkeypatch):
    _, charts = _record(monkeypatch)
    at = open_page(script, query)
    assert not at.exception, at.exception
    total = sum(frames.size(c) for c in charts)
    assert 0 < total <= PAGE_BUDGET, f"{script} {query}: {total:,} bytes of figures"


def test_a_frame_carries_only_what_changes_from_stop_to_stop():
    """Two stops of a curve over a shared x: the frames carry y (as 32-bit floats) and the title, not x."""
    x = np.linspace(0.0, 1.0, 50)
    figs = [
        go.Figure(data=[{"type": "scatter", "x": x, "y": k * x}], layout={"title": {"text": f"k = {k}"}})
        for k in (1, 2)
    ]
    deck = frames.slides(figs, key="k", values=["1", "2"], labels=["1", "2"], prefix="k = ")
    fig = json.loads(pio.to_json(deck.at(0), validate=False))
    frame = fig["frames"][1]
    assert set(frame["data"][0]) == {"type", "y"} and frame["data"][0]["y"]["dtype"] == "f4"
    assert frame["layout"] == {"title": {"text": "k = 2"}}
    assert fig["layout"]["sliders"][0]["active"] == 0 and fig["layout"]["sliders"][0]["name"] == "k"


def test_stops_with_other_traces_are_refused():
    a = go.Figure(data=[{"type": "scatter", "y": [1, 2]}])
    b = go.Figure(data=[{"type": "bar", "y": [1, 2]}])
    with pytest.raises(ValueError, match="same traces"):
        frames.slides([a, b], key="k", values=["1", "2"], labels=["1", "2"], prefix="k = ")


def test_a_value_between_stops_gets_the_plain_figure():
    def build(eps: float) -> go.Figure:
        return go.Figure(data=[{"type": "scatter", "y": [eps]}])

    assert not build(1.05).layout.sliders
    assert not slides.figure(build, "eps", 1.05).layout.sliders
    assert _slider_key(slides.figure(build, "eps", 1.0)) == "eps"


def test_a_log_axis_is_labelled_for_every_stop_at_once():
    """A log axis whose span crosses a number of decades at some stops (labelled 1, 2, 5 … there and at the powers
    of ten elsewhere) gets one labelling for all stops: each label at the same place whatever the stop."""
    from app.figures import style

    def at(top: float) -> go.Figure:
        return style.figure(
            [style.line([1.0, top], [1.0, 2.0], name="a", color="#000")], title="t", x="x", y="y", log_x=True
        )

    deck = frames.slides([at(50.0), at(5000.0)], key="k", values=["1", "2"], labels=["1", "2"], prefix="k = ")
    axes = [json.loads(pio.to_json(deck.at(i), validate=False))["layout"]["xaxis"] for i in (0, 1)]
    assert {k: v for k, v in axes[0].items() if k in TICKS} == {k: v for k, v in axes[1].items() if k in TICKS}
    assert axes[0]["dtick"] == 1  # 1 … 5000: 3.7 decades, labelled at the powers of ten
    frame = json.loads(pio.to_json(deck.at(0), validate=False))["frames"][1].get("layout", {}).get("xaxis", {})
    assert {k: v for k, v in frame.items() if k in TICKS} in ({}, {k: v for k, v in axes[0].items() if k in TICKS})


def _marked(at: float) -> go.Figure:
    """A curve with a marker line and its note at ``at`` (the plot's full height), as the pages draw them."""
    x = np.linspace(0.0, 10.0, 21)
    return go.Figure(
        data=[{"type": "scatter", "mode": "lines", "x": x, "y": x / 10}],
        layout={
            "shapes": [
                {"type": "line", "x0": at, "x1": at, "y0": 0, "y1": 1, "yref": "paper", "line": {"dash": "dot"}}
            ],
            "annotations": [{"x": at, "y": 0.98, "yref": "paper", "text": f"k = {at}", "showarrow": False}],
        },
    )


def test_a_marker_line_that_moves_is_a_trace_and_frames_switch_without_a_redraw():
    deck = frames.slides([_marked(2.0), _marked(7.0)], key="k", values=["2", "7"], labels=["2", "7"], prefix="k = ")
    fig = json.loads(pio.to_json(deck.at(1), validate=False))
    assert {s["args"][1]["frame"]["redraw"] for s in fig["layout"]["sliders"][0]["steps"]} == {False}
    assert "shapes" not in fig["layout"] and "annotations" not in fig["layout"]
    assert all(not f.get("layout") for f in fig["frames"])
    line, note = fig["data"][1], fig["data"][2]
    assert line["x"] == [7.0, 7.0] and line["y"] == [0, 1] and note["text"] == ["k = 7.0"]
    over = fig["layout"]["yaxis9"]  # the plot's fraction of height: a [0, 1] axis over the whole plot
    assert over["overlaying"] == "y" and over["range"] == [0.0, 1.0] and over["visible"] is False
    assert line["yaxis"] == note["yaxis"] == "y9" and line.get("xaxis", "x") == "x"
    # the frame at 2 moves them back; the curve stays, so its plot lists a trace that draws nothing in its place
    frame = fig["frames"][0]
    assert frame["traces"] == [1, 2, 3]
    anchor = fig["data"][3]
    assert anchor["x"] == [None] and anchor["showlegend"] is False and not anchor.get("legendgroup")
    assert _decoded(frame["data"][0]["x"]).tolist() == [2.0, 2.0] and frame["data"][1]["text"] == ["k = 2.0"]
    assert frame["data"][2] == {"type": "scatter"}  # the trace drawing nothing, drawn again as it was
    assert fig["layout"]["xaxis"]["range"] == [0.0, 10.0]  # held still: Plotly's fast path does not autorange


def _panels(at: float, *, legend: bool, fill: str | None = None) -> go.Figure:
    """Two plots, one above the other: curves that stay in each (the lower one's without a legend entry, or in a
    legend group, or filled to the curve before), and a marker line across the upper one at ``at``."""
    x = np.linspace(0.0, 10.0, 11)
    lower = {"yaxis": "y2", "showlegend": False} | ({"legendgroup": "a"} if legend else {})
    return go.Figure(
        data=[
            {"type": "scatter", "x": x, "y": x / 10, "name": "a", "legendgroup": "a"},
            {"type": "scatter", "x": x, "y": x / 20, "name": "b"},
            {"type": "scatter", "x": x, "y": x / 30, **lower},
            {"type": "scatter", "x": x, "y": x / 40, **lower, **({"fill": fill} if fill else {})},
        ],
        layout={
            "yaxis": {"domain": [0.5, 1.0]},
            "yaxis2": {"domain": [0.0, 0.4]},
            "shapes": [{"type": "line", "x0": at, "x1": at, "y0": 0, "y1": 1, "yref": "paper"}],
        },
    )


def _listed(figs: list[go.Figure]) -> tuple[list[int], list[dict]]:
    deck = frames.slides(figs, key="k", values=["2", "7"], labels=["2", "7"], prefix="k = ")
    fig = json.loads(pio.to_json(deck.at(0), validate=False))
    assert {s["args"][1]["frame"]["redraw"] for s in fig["layout"]["sliders"][0]["steps"]} == {False}
    assert len({tuple(f["traces"]) for f in fig["frames"]}) == 1
    return fig["frames"][0]["traces"], fig["data"]


def test_a_plot_whose_traces_all_stay_lists_one_trace_the_legend_cannot_hide():
    # Plotly's fast path drops the drawing of a plot none of whose traces a frame lists, and a reader may hide a
    # trace from the legend (a click hides its group, a double click every other trace with a legend entry)
    traces, data = _listed([_panels(2.0, legend=False), _panels(7.0, legend=False)])
    assert [(t.get("yaxis"), t["x"]) for t in data[4:6]] == [("y9", [2.0, 2.0]), ("y8", [2.0, 2.0])]  # the lines
    # the upper plot's curves both have a legend entry: it gets a trace that draws nothing and the legend cannot hide;
    # the lower plot lists its first curve (no entry, no group), the marker lines are listed since they move
    assert len(data) == 7 and data[6]["yaxis"] == "y" and data[6]["x"] == [None] and data[6]["showlegend"] is False
    assert not data[6].get("legendgroup") and data[6]["hoverinfo"] == "skip"
    assert traces == [2, 4, 5, 6]
    # in a legend group the lower curves may be hidden: that plot gets its own trace drawing nothing
    traces, data = _listed([_panels(2.0, legend=True), _panels(7.0, legend=True)])
    assert [(t["yaxis"], t["x"]) for t in data[6:]] == [("y", [None]), ("y2", [None])] and traces == [4, 5, 6, 7]


def test_a_plot_with_a_fill_lists_all_its_traces():
    traces, _ = _listed([_panels(2.0, legend=False, fill="tonexty"), _panels(7.0, legend=False, fill="tonexty")])
    assert traces == [2, 3, 4, 5, 6]


def test_a_title_that_changes_keeps_the_full_redraw():
    figs = [go.Figure(data=[{"type": "scatter", "y": [k, 1]}], layout={"title": {"text": f"k = {k}"}}) for k in (1, 2)]
    deck = frames.slides(figs, key="k", values=["1", "2"], labels=["1", "2"], prefix="k = ")
    steps = deck.at(0).layout.sliders[0].steps
    assert {s.args[1]["frame"]["redraw"] for s in steps} == {True}


def test_an_axis_one_range_would_squeeze_moves_with_the_stop():
    def at(scale: float) -> go.Figure:
        x = np.linspace(-scale, scale, 11)
        return go.Figure(data=[{"type": "scatter", "mode": "lines", "x": x, "y": np.exp(-np.abs(x) / scale)}])

    deck = frames.slides([at(1.0), at(100.0)], key="k", values=["1", "2"], labels=["1", "2"], prefix="k = ")
    fig = json.loads(pio.to_json(deck.at(0), validate=False))
    assert fig["layout"]["xaxis"]["range"] == [-1.0, 1.0]  # a curve's x: not padded
    assert fig["frames"][1]["layout"]["xaxis"]["range"] == [-100.0, 100.0]
    assert fig["layout"]["sliders"][0]["steps"][1]["args"][1]["frame"]["redraw"] is False


def test_an_axis_that_moves_keeps_the_margins_beside_the_plot_still():
    """A margin that changes between two stops makes Plotly redraw the whole chart (its axes grow margins for their
    labels): where frames move an axis's range, the margins are wide enough for any stop's labels, at every stop."""

    def at(scale: float, margin: dict | None = None) -> go.Figure:
        x = np.linspace(-scale, scale, 11)
        fig = go.Figure(data=[{"type": "scatter", "mode": "lines", "x": x, "y": np.exp(-np.abs(x) / scale) / scale}])
        return fig.update_layout(margin=margin) if margin else fig

    wide = {"l": 130, "r": 20, "t": 60, "b": 120}
    for figs, left, right in (([at(1.0), at(100.0)], 100, 40), ([at(1.0, wide), at(100.0, wide)], 130, 40)):
        deck = frames.slides(figs, key="k", values=["1", "2"], labels=["1", "2"], prefix="k = ")
        assert not deck.redraw
        assert {(s["layout"]["margin"]["l"], s["layout"]["margin"]["r"]) for s in deck.stops} == {(left, right)}
        fig = json.loads(pio.to_json(deck.at(1), validate=False))
        assert (fig["layout"]["margin"]["l"], fig["layout"]["margin"]["r"]) == (left, right)
        assert all("margin" not in f["layout"] for f in fig["frames"])  # the same at every stop: no frame sets it
    # axes held still: the margins the builder asked for
    still = [at(1.0, wide) for _ in range(2)]
    still[1].data[0].y = still[1].data[0].y * 0.9
    deck = frames.slides(still, key="k", values=["1", "2"], labels=["1", "2"], prefix="k = ")
    assert {(s["layout"]["margin"]["l"], s["layout"]["margin"]["r"]) for s in deck.stops} == {(130, 20)}


#: Pictures whose value was once said by their title only (a title a frame changes makes every switch a full
#: redraw): the value is now a note drawn as a trace, and every stop switches without a redraw.
VALUE_NOTES = [
    ("home", "eps", "ε"),
    ("promise", "eps", "ε"),
    ("noise", "eps", "ε"),
    ("choose", "theta", "θ"),
]


@pytest.mark.parametrize("picture,key,symbol", VALUE_NOTES, ids=[p for p, _, _ in VALUE_NOTES])
def test_a_picture_that_says_its_value_switches_without_a_redraw_and_shows_the_value_at_every_stop(
    picture, key, symbol
):
    from app import decks
    from app.course import pictures

    build, args = (decks.belief, ()) if picture == "home" else (pictures.figure_at, (picture,))
    value = slides.catalogue.get(key).default
    sent = json.loads(pio.to_json(slides.figure(build, key, value, *args, play=True), validate=False))
    slider = sent["layout"]["sliders"][0]
    assert {s["args"][1]["frame"]["redraw"] for s in slider["steps"]} == {False}
    assert {b["args"][1]["frame"]["redraw"] for b in sent["layout"]["updatemenus"][0]["buttons"]} == {False}
    title = sent["layout"]["title"]["text"]
    for step, frame in zip(slider["steps"], sent["frames"], strict=True):
        assert not frame.get("layout", {}).get("title")
        shown = _at_stop(sent, frame)
        texts = [str(x) for t in shown["data"] if t.get("mode") == "text" for x in t["text"]]
        # the value as the slider's label writes it, in a note drawn above the plot, under the unchanged title
        assert any(f"{symbol} = {step['label']}<" in t for t in texts), (step["label"], texts)
        assert shown["layout"]["title"]["text"] == title
