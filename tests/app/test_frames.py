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
        assert not _same(_picture(plain), _picture(_plain(build(value, *args)))), "the figure as it opens"
        for stop, frame in zip(stops, sent["frames"], strict=True):
            assert frame["name"] == slides.catalogue.get(key).fmt(stop)
            expected = _picture(_plain(build(stop, *args)))
            got = _picture(_decoded(_at_stop(sent, frame)))
            differences = _same(got, expected)
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
    assert "xaxis" not in json.loads(pio.to_json(deck.at(0), validate=False))["frames"][1].get("layout", {})
