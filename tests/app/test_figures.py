"""The app builds its Plotly figures without Plotly's property check (app.figures.style.VALIDATE): a figure built that
way must be exactly the figure Plotly's checked constructor builds from the same data, on every page. Likewise the
two shortcuts that keep page runs cheap: numeric arrays stored in Plotly's typed-array form (the same JSON as Plotly's
own conversion), and charts remembered by their settings (ui.memo_figure: the same charts as a fresh build)."""

from __future__ import annotations

import copy
import json
import warnings

import hypothesis
import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from _plotly_utils.utils import to_typed_array_spec
from hypothesis import strategies as st
from plotly import basedatatypes

from app import params, registry, slides, ui
from app.compute._cache import Memory, cached_resource
from app.figures import screen, style
from tests.app.conftest import open_page

VIEWS = [(p.script, {}) for p in registry.available_pages()] + [
    (p.script, {"view": "reproduce"}) for p in registry.TOPICS if p.exists
]


def _as_json(fig: go.Figure) -> dict:
    return json.loads(pio.to_json(fig, validate=False))


def _differences(a, b, path: str = "") -> list[str]:
    """Where two JSON trees differ (paths), for a readable failure."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [
            d
            for k in sorted(set(a) | set(b), key=str)
            for d in (
                _differences(a.get(k), b.get(k), f"{path}/{k}")
                if k in a and k in b
                else [f"{path}/{k}: only in the {'unchecked' if k in a else 'checked'} figure"]
            )
        ]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {str(a)[:60]} != {str(b)[:60]}"]


def _figures_of(script: str, query: dict[str, str], monkeypatch) -> list[tuple[dict, dict]]:
    """Open a page with ``query``; every figure built unchecked: (its constructor arguments, its JSON as built)."""
    built: list[tuple[dict, dict]] = []
    real = basedatatypes.BaseFigure.__init__

    def recording(self, data=None, layout=None, frames=None, skip_invalid=False, **kwargs):
        given = copy.deepcopy({"data": data, "layout": layout, "frames": frames})
        real(self, data, layout, frames, skip_invalid, **kwargs)
        if kwargs.get("_validate") is False:
            built.append((given, _as_json(self)))  # as built (a page may update it afterwards)

    monkeypatch.setattr(style, "VALIDATE", False)
    monkeypatch.setattr(basedatatypes.BaseFigure, "__init__", recording)
    monkeypatch.setattr(ui, "memo_figure", lambda build, *args, **kwargs: build(*args, **kwargs))  # build them all
    # ... and every in-figure slider's stops, however many ran before
    monkeypatch.setattr(slides, "_DECKS", Memory(64))
    monkeypatch.setattr(slides, "_opened", cached_resource(max_entries=64)(slides._opened.__wrapped__))
    at = open_page(script, query)
    assert not at.exception, at.exception
    monkeypatch.setattr(basedatatypes.BaseFigure, "__init__", real)
    return built


def _same_as_checked(built: list[tuple[dict, dict]]) -> None:
    for given, fast in built:
        checked = go.Figure(data=given["data"], layout=given["layout"], frames=given.get("frames"))  # checked
        title = (given["layout"] or {}).get("title")
        assert not _differences(fast, _as_json(checked)), (title, _differences(fast, _as_json(checked)))


def _record_parts(monkeypatch) -> list[str]:
    """The labels of the parts (tabs) the next page run offers, filled in as it runs."""
    labels: list[str] = []
    real_parts = params.parts

    def recording_parts(names, **kw):
        labels.extend(str(n) for n in names)
        return real_parts(names, **kw)

    monkeypatch.setattr(params, "parts", recording_parts)
    return labels


@pytest.mark.parametrize("script,query", VIEWS, ids=[f"{s}-{q.get('view', 'explore')}" for s, q in VIEWS])
def test_unchecked_figures_equal_checked_ones(script, query, monkeypatch):
    """Every part of every view: the first part as the page opens, then each other part (``?part=…``)."""
    labels = _record_parts(monkeypatch)
    built = _figures_of(script, query, monkeypatch)
    for label in labels[1:]:
        built += _figures_of(script, {**query, "part": label}, monkeypatch)
    assert built, f"{script} {query} drew no figure through app.figures"
    _same_as_checked(built)


def test_log_axes_write_their_labels_in_full():
    """Between powers of ten Plotly writes only a first digit ("0.01 2 5 0.1", read as "5, 10, 2"); the app's
    log axes write every label in full, or label the powers of ten only."""
    from app.figures import style

    def axis(lo: float, hi: float) -> dict:
        fig = style.figure(
            [style.line([lo, hi], [1.0, 2.0], name="a", color="#000")], title="t", x="x", y="y", log_x=True
        )
        return fig.layout.xaxis.to_plotly_json()

    short = axis(1.0, 40.0)  # 1.6 decades: 1, 2, 5, 10, 20, 50
    assert short["tickvals"] == [1, 2, 5, 10, 20, 50] and short["ticktext"] == ["1", "2", "5", "10", "20", "50"]
    assert axis(0.01, 0.4)["ticktext"] == ["0.01", "0.02", "0.05", "0.1", "0.2", "0.5"]
    mid = axis(0.01, 50.0)  # 3.7 decades: 0.01, 0.1, 1, 10 and unlabelled ticks between
    assert mid["dtick"] == 1 and mid["minor"]["ticks"] == "outside" and "tickvals" not in mid
    long = axis(1e-9, 1.0)
    assert long["dtick"] == 1 and "minor" not in long
    assert "dtick" not in axis(0.06, 0.14) and "tickvals" not in axis(0.06, 0.14)  # Plotly's 0.06 0.08 0.1 0.12


def test_presentation_wraps_a_long_title_instead_of_cutting_it():
    from app.figures import screen, style

    long = "One answer at ε = 1 can move a belief only inside the shaded band"
    fig = style.figure([style.line([1, 2], [1, 2], name="a", color="#000")], title=long, x="x", y="y")
    shown = screen.for_screen(fig, theme="light", present=True).layout
    lines = shown.title.text.split("<br>")
    assert len(lines) == 2 and " ".join(lines) == long and all(len(t) <= screen.PRESENT_TITLE_CHARS for t in lines)
    assert shown.margin.t >= 40 + (screen.PRESENT_FONT + 12) * 2  # room above the plot for both lines


def test_presentation_wraps_a_title_already_wrapped_for_a_phone():
    """A long title arrives in lines of up to 62 characters; at the projector's size each line is wrapped again."""
    from app.figures import screen, style

    long = (
        "Privacy loss of the Gaussian and Laplace mechanisms at the same ε, composed over every release of the "
        "whole year"
    )
    fig = style.figure([style.line([1, 2], [1, 2], name="a", color="#000")], title=long, x="x", y="y")
    assert fig.layout.title.text.count("<br>") == 1
    lines = screen.for_screen(fig, theme="light", present=True).layout.title.text.split("<br>")
    assert " ".join(lines) == long and all(len(t) <= screen.PRESENT_TITLE_CHARS for t in lines)


def test_no_empty_band_between_a_title_and_its_plot():
    """The legend sits at the chart's foot: the top margin holds the title's lines (and a row of labels placed
    above the plot), however large a margin a chart asks for."""
    from app.figures import style

    def top(title: str, asked: int, **layout) -> int:
        fig = style.figure(
            [style.line([1, 2], [1, 2], name="a", color="#000")],
            title=title,
            x="x",
            y="y",
            margin={"l": 60, "r": 20, "t": asked, "b": 50},
            **layout,
        )
        return fig.layout.margin.t

    assert top("one line", 130) == style.MARGIN["t"]
    assert top("one line", 40) == 40  # a chart in a narrow column may keep a smaller one
    assert top("one<br>two<br>three", 40) == style._TITLE_ROOM + 3 * style._TITLE_LINE  # every line has room
    labels = [{"x": 0.5, "y": 1.0, "yref": "paper", "yanchor": "bottom", "text": "acc 0.9", "showarrow": False}]
    assert top("one line", 130, annotations=labels) == style.MARGIN["t"] + style._LABEL_ROW
    inside = [{"x": 0.5, "y": 0.98, "yref": "paper", "text": "inside", "showarrow": False}]
    assert top("one line", 130, annotations=inside) == style.MARGIN["t"]


def test_a_title_wraps_only_past_its_width_and_once():
    """A title is broken only when a line is longer than the width, into lines of about equal length; wrapping a
    wrapped title changes nothing (the SVT page's opening chart was wrapped twice, into three short lines)."""
    from app.figures import style

    fits = "Each noisy count against the noisy threshold (log scale)"
    assert style.wrap_title(fits) == fits
    long = "Success probability p(r): k negatives rejected, then a positive accepted"
    lines = style.wrap_title(long).split("<br>")
    assert len(lines) == 2 and " ".join(lines) == long and all(len(t) <= style.TITLE_CHARS for t in lines)
    assert abs(len(lines[0]) - len(lines[1])) < 8  # balanced, no one-word last line
    assert style.wrap_title(style.wrap_title(long)) == style.wrap_title(long)
    assert style.wrap_title("short<br>lines") == "short<br>lines"


def test_every_chart_wraps_a_title_too_long_for_a_phone():
    """Plotly does not wrap a title: one of 94 characters ran off a phone-wide chart. Every chart built by the shared
    style wraps it into lines that fit, with room above the plot for each."""
    from app.figures import style

    long = "Privacy loss of the Gaussian and Laplace mechanisms at the same ε: what each release costs in total"
    fig = style.figure([style.line([1, 2], [1, 2], name="a", color="#000")], title=long, x="x", y="y")
    lines = fig.layout.title.text.split("<br>")
    assert len(lines) == 2 and " ".join(lines) == long and all(len(t) <= style.TITLE_CHARS for t in lines)
    assert fig.layout.margin.t == style._TITLE_ROOM + 2 * style._TITLE_LINE


def test_the_svt_opening_chart_title_is_one_line():
    import numpy as np
    import pandas as pd

    from app.figures import svt

    n = 10
    answers = np.arange(1.0, n + 1)
    comp = pd.DataFrame(
        {
            "step": np.arange(1, n + 1),
            "answer": answers,
            "noisy_answer": answers,
            "true_positive": answers >= 5,
            "positive": answers >= 5,
            "noisy_threshold": np.full(n, 5.0),
            "pass": np.ones(n, int),
        }
    )
    title = svt.first_look(comp, threshold=5.0).layout.title.text
    assert "<br>" not in title and "noisy threshold (log scale)" in title


def test_the_negotiation_dots_name_each_row_above_it_and_keep_few_level_ticks():
    """On a phone the mechanism names beside the axis took half the chart and the ε labels were rotated: the names
    sit above their rows (the dots get the whole width) and the axis has a few round labels."""
    import pandas as pd

    from app.figures import negotiate

    mechs = ["laplace", "gaussian", "brdp", "brdp_paper", "r2dp", "r2dp_two_point", "staircase"]
    df = pd.DataFrame(
        {
            "mechanism": mechs,
            "label": [f"mechanism {m}" for m in mechs],
            "applicable": True,
            "epsilon": [0.06, 0.13, 0.13, 0.13, 0.06, 0.06, 0.06],
            "meets": True,
            "sound": True,
            "accuracy": 0.95,
        }
    )
    fig = negotiate.epsilon_dots(df, title="t")
    assert fig.layout.yaxis.showticklabels is False
    assert [a.text for a in fig.layout.annotations] == list(df["label"])
    assert all(a.xref == "paper" and a.x == 0 and a.yanchor == "bottom" for a in fig.layout.annotations)
    assert list(fig.layout.xaxis.ticktext) == ["0.06", "0.08", "0.1", "0.12"]
    assert fig.layout.margin.l <= 20 and fig.layout.margin.r <= 20
    # a dot at the right names its ε on its left, inside the chart
    assert [t.textposition for t in fig.data] == [
        "middle right",
        "middle left",
        "middle left",
        "middle left",
        "middle right",
        "middle right",
        "middle right",
    ]


def test_presentation_keeps_a_long_legend_compact():
    """At the projector's 24 px a legend of eight long names took four rows, a third of the chart: its text is
    smaller than the rest, so three names share a row."""
    from app.figures import screen, style

    fig = style.figure(
        [style.line([0, 1], [0, 1], name=f"curve number {i} (right axis)", color="#000") for i in range(8)],
        title="t",
        x="x",
        y="y",
    )
    shown = screen.for_screen(fig, theme="dark", present=True).layout
    assert shown.legend.font.size == screen.PRESENT_LEGEND_FONT < screen.PRESENT_FONT == shown.xaxis.tickfont.size
    assert shown.legend.font.color == screen.INK["dark"]


def test_every_axis_makes_room_for_its_end_labels():
    """Plotly hides a tick label that reaches past the chart's edge (the home picture's "100%", in presentation mode
    at every width) instead of widening the margin: every axis, the ones a chart spells out too, lets its labels
    overflow into a margin that automargin widens for them."""
    from app import compute
    from app.figures import baselines, style

    fig = baselines.belief(compute.belief_curve(1.0), epsilon=1.0)
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        assert axis.automargin is True and axis.ticklabeloverflow == "allow"
    plain = style.figure([style.line([0, 1], [0, 1], name="a", color="#000")], title="t", x="x", y="y").layout
    assert plain.xaxis.ticklabeloverflow == plain.yaxis.ticklabeloverflow == "allow"


# ------------------------------------------------------------------------------------- arrays sent as typed arrays

_DTYPES = ["float64", "float32", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint8", "float16", "bool"]


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(
    dtype=st.sampled_from(_DTYPES),
    values=st.lists(
        st.floats(allow_nan=True, allow_infinity=True, width=32) | st.integers(-(2**63), 2**64 - 1), max_size=40
    ),
    series=st.booleans(),
    table=st.booleans(),
)
def test_typed_array_is_what_plotly_makes_of_an_array(dtype, values, series, table):
    """``style.typed_array`` is Plotly's own ``to_typed_array_spec`` without its checks: the same spec for every
    numeric array (64-bit integers narrowed as Plotly narrows them), and nothing for what Plotly would not encode."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            v = np.array(values, dtype=object).astype(dtype)
        except (OverflowError, ValueError, TypeError):
            return
    if table and v.size % 2 == 0 and v.size:
        v = v.reshape(2, -1)
    elif series:
        v = pd.Series(v)
    ours, plotlys = style.typed_array(v), to_typed_array_spec(v)
    if ours is None:
        assert not isinstance(plotlys, dict)  # Plotly sends it as a list of numbers, and so does the app
    else:
        assert ours == plotlys


def _chart_specs(script: str, query: dict[str, str]) -> list[dict]:
    at = open_page(script, query)
    assert not at.exception, at.exception
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


@pytest.mark.parametrize("script,query", VIEWS, ids=[f"{s}-{q.get('view', 'explore')}" for s, q in VIEWS])
def test_arrays_stored_as_typed_arrays_send_the_same_charts(script, query, monkeypatch):
    """Unchecked figures keep their numeric arrays in Plotly's typed-array form from the start: every chart of every
    view (each part) is the same JSON as when Plotly converts the arrays itself."""
    monkeypatch.setattr(style, "VALIDATE", False)
    monkeypatch.setattr(style, "typed_array", lambda v: None)  # Plotly converts every array, as before
    labels = _record_parts(monkeypatch)
    plotlys = _chart_specs(script, query)
    views = [dict(query, part=label) for label in labels[1:]]
    plotlys += [spec for view in views for spec in _chart_specs(script, view)]
    monkeypatch.undo()
    monkeypatch.setattr(style, "VALIDATE", False)
    ours = _chart_specs(script, query) + [spec for view in views for spec in _chart_specs(script, view)]
    assert len(ours) == len(plotlys) > 0
    for a, b in zip(ours, plotlys, strict=True):
        assert not _differences(a, b), (a.get("layout", {}).get("title"), _differences(a, b)[:5])


def test_an_unchecked_figure_stores_its_numeric_arrays_as_typed_arrays(monkeypatch):
    monkeypatch.setattr(style, "VALIDATE", False)
    x = np.linspace(0.0, 1.0, 50)
    fig = style.figure(
        [style.line(x, pd.Series(x**2), name="a", color="#000"), {"type": "scatter", "x": ["a", "b"], "y": [1, 2]}],
        title="t",
        x="x",
        y="y",
        yaxis={"range": np.array([0.0, 1.0])},
        map={"layers": [{"coordinates": np.array([1.0, 2.0])}]},
    )
    stored = fig._data[0]
    assert stored["x"] == to_typed_array_spec(x) and stored["y"] == to_typed_array_spec(x**2)
    assert fig._data[1]["x"] == ["a", "b"] and fig._data[1]["y"] == [1, 2]  # lists stay lists, as Plotly sends them
    assert isinstance(fig._layout["yaxis"]["range"], np.ndarray)  # Plotly leaves an axis range as it is,
    assert isinstance(fig._layout["map"]["layers"][0]["coordinates"], np.ndarray)  # and whatever is under "layers"


# ------------------------------------------------------------------------------------------ charts memoised by settings


def _charts(at) -> list:
    """The view's charts (their Plotly JSON) and tables (as JSON), in page order."""
    assert not at.exception, at.exception
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")] + [d.value.to_json() for d in at.dataframe]


def _each_control_moved(script: str, query: dict[str, str]) -> list[list[dict]]:
    """The view's charts as it opens, then after moving each of its controls in turn one stop along (a slider), to
    the next option (a choice) or over (a switch)."""
    at = open_page(script, query)
    shown = [_charts(at)]
    drawn = dict(at.session_state[params._DRAWN])
    for key, p in drawn.items():
        if key.startswith("_") or key == "present" or p.kind == "seed":
            continue
        kind = {"toggle": "toggle", "slider": "select_slider", "choice": "radio"}[p.kind]
        try:
            widget = getattr(at, kind)(key=key)
        except KeyError:  # an earlier move took this control away (e.g. another noise family)
            continue
        if p.kind == "toggle":
            widget.set_value(not widget.value).run()
        else:
            grid = list(p.grid)
            widget.set_value(grid[(grid.index(widget.value) + 1) % len(grid)]).run()
        shown.append(_charts(at))
    return shown


@pytest.mark.parametrize("script,query", VIEWS, ids=[f"{s}-{q.get('view', 'explore')}" for s, q in VIEWS])
def test_charts_remembered_by_their_settings_are_the_charts_of_the_settings_shown(script, query, monkeypatch):
    """``ui.memo_figure`` hands out a chart (or table) built before for the same settings: moving any control of any
    part of a view must give exactly the charts and tables a fresh build draws (a setting missing from a key would
    show the chart of earlier settings)."""
    labels = _record_parts(monkeypatch)
    open_page(script, query)
    views = [query] + [dict(query, part=label) for label in labels[1:]]
    monkeypatch.undo()
    remembered = [_each_control_moved(script, view) for view in views]
    monkeypatch.setattr(ui, "memo_figure", lambda build, *args, **kwargs: build(*args, **kwargs))
    fresh = [_each_control_moved(script, view) for view in views]
    assert remembered == fresh


# ------------------------------------------------------------------------------- the data behind a chart, as CSV


def _downloads(monkeypatch) -> dict[str, object]:
    """The CSV data (bytes, or the function that makes them on a click) of every download button drawn, by file."""
    import streamlit

    offered: dict[str, object] = {}
    real = streamlit.download_button

    def recording(label, data, *args, **kwargs):
        offered[kwargs.get("file_name", label)] = data
        return real(label, data, *args, **kwargs)

    monkeypatch.setattr(streamlit, "download_button", recording)
    return offered


def _csv(data) -> pd.DataFrame:
    import io

    raw = data() if callable(data) else data
    return pd.read_csv(io.BytesIO(raw if isinstance(raw, bytes) else raw.encode()))


@pytest.mark.parametrize("script,query", VIEWS, ids=[f"{s}-{q.get('view', 'explore')}" for s, q in VIEWS])
def test_every_chart_offers_a_csv_of_its_data(script, query, monkeypatch):
    """A chart's data is made only when its button is clicked: whenever that is, the file holds rows."""
    offered = _downloads(monkeypatch)
    open_page(script, query)
    charts = [name for name in offered if name.endswith(".csv")]
    for name in charts:
        table = _csv(offered[name])
        assert len(table) > 0 and len(table.columns) > 0, name


def test_the_csv_of_a_chart_holds_the_data_of_the_settings_it_was_drawn_at(monkeypatch):
    """Gaussian & Laplace at ε = 2 (not the default): each chart's file is the compute layer's frame at ε = 2, even
    when it is asked for after the page has moved on to another ε."""
    from app import compute
    from app.views import baselines

    offered = _downloads(monkeypatch)
    seen = []
    real_noise = baselines.noise
    monkeypatch.setattr(baselines, "noise", lambda s: (seen.append(s), real_noise(s))[-1])
    at = open_page("baselines.py", {"eps": "2"})
    drawn, v = dict(offered), seen[-1]
    assert v.eps == 2.0
    at.select_slider(key="eps").set_value(at.select_slider(key="eps").options[0]).run()
    assert seen[-1].eps != 2.0
    s = {"eps": v.eps, "delta": v.delta, "sens": v.sens, "calib": v.calib}
    theta, seed, T = v.theta, v.seed, v.T
    expected = {
        "noise-densities.csv": compute.densities(s["eps"], s["delta"], s["sens"], s["calib"]),
        "accuracy-vs-epsilon.csv": compute.accuracy_curve(theta, s["delta"], s["sens"], s["calib"]),
        "privacy-profiles.csv": compute.profiles(s["eps"], s["delta"], s["sens"], s["calib"]),
        "composition.csv": compute.composition(
            s["eps"], s["delta"], s["sens"], s["calib"], compute.composition_range(T)
        ),
        "sampled-outputs.csv": compute.sampled_outputs(
            s["eps"], s["delta"], s["sens"], s["calib"], theta, seed
        ).histogram,
    }
    assert set(expected) <= set(drawn), sorted(drawn)
    for name, frame in expected.items():
        data = drawn[name]
        assert (data() if callable(data) else data) == frame.to_csv(index=False).encode(), name


def test_the_noise_densities_are_drawn_at_every_second_point_with_their_peaks():
    """Half the grid's points (fewer to switch at each stop of the in-figure slider), still several per pixel column
    of a chart, and each density's highest point (the Laplace peak at 0) among them."""
    from app import compute
    from app.figures import baselines

    df = compute.densities(0.5, 1e-5, 1.0, "analytic")
    fig = json.loads(pio.to_json(baselines.densities(df, theta=1.0), validate=False))
    for trace in fig["data"][:2]:
        x, y = (np.asarray(_decoded_values(trace[k])) for k in ("x", "y"))
        assert len(x) == (len(df) + 1) // 2 >= 300
        column = "gaussian" if trace["name"] == "Gaussian" else "laplace"
        assert np.isclose(y.max(), df[column].max(), rtol=1e-12) and abs(x[np.argmax(y)]) < 1e-9
        assert np.allclose(np.interp(df["x"], x, y), df[column], atol=0.02 * df[column].max())


def _decoded_values(v):
    if isinstance(v, dict) and "bdata" in v:
        import base64

        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]).newbyteorder("<")).astype(float)
    return np.asarray(v, dtype=float)


def test_curves_that_lie_on_one_another_stay_in_sight():
    """At θ = Δ Laplace, the staircase and R²DP's best deliver the same accuracy at every ε: their lines coincide, so
    each pair must differ in dash or width, and none may be drawn solid over another, or the recommended Laplace
    disappears under the staircase."""
    from app.compute import negotiate as C
    from app.figures import negotiate as F

    fig = F.accuracy_curves(C.curves(C.Requirement()), epsilon=3.0, confidence=0.95, y_title="P")
    traces = [(t.name, np.asarray(t.y, dtype=float), t.line.dash, t.line.width) for t in fig.data if t.name]
    same = [
        (a, b)
        for i, a in enumerate(traces)
        for b in traces[i + 1 :]
        if len(a[1]) == len(b[1]) and np.allclose(a[1], b[1], atol=1e-3)
    ]
    assert same, "the test needs curves that coincide"
    for a, b in same:
        assert (a[2], a[3]) != (b[2], b[3]), (a[0], b[0])
        assert b[2] not in (None, "solid"), f"{b[0]} is drawn solid over {a[0]} and hides it"


def test_presentation_writes_no_note_smaller_than_the_chart_s_text():
    """A picture's value note ("θ = 1") is set at 15 px, above the chart's 12; projected, where the chart's text is
    24 px, it stayed at 15 and was the one thing on the chart the back of the room could not read."""
    from app.course import pictures

    fig = pictures.slide("choose", 1.0)
    sized = [t.textfont.size for t in fig.data if t.textfont is not None and t.textfont.size is not None]
    assert 15 in sized  # the note as drawn for a laptop
    shown = screen.for_screen(go.Figure(fig), theme=None, present=True)
    sizes = [t.textfont.size for t in shown.data if t.textfont is not None and t.textfont.size is not None]
    sizes += [a.font.size for a in shown.layout.annotations if a.font.size is not None]
    assert sizes and min(sizes) >= screen.PRESENT_FONT
    assert 15 in [t.textfont.size for t in fig.data if t.textfont is not None]  # the shared figure is left as it was


def _misplaced_labels(fig: dict) -> list[str]:
    """The labels of marker lines (``style.vline``/``hline``: a line across the plot, its note next) that are not at
    their line: on a log axis a note takes log10 of the value, a shape the value itself."""
    layout = fig.get("layout") or {}
    shapes, notes = layout.get("shapes") or [], layout.get("annotations") or []
    wrong = []
    for shape, note in zip(shapes, notes, strict=False):
        if shape.get("type") != "line":
            continue
        for letter, across in (("x", "y"), ("y", "x")):
            ref = shape.get(f"{letter}ref", letter)
            if (
                shape.get(f"{across}ref") != "paper"
                or ref == "paper"
                or shape.get(f"{letter}0") != shape.get(f"{letter}1")
            ):
                continue
            if note.get(f"{letter}ref", letter) != ref or not isinstance(note.get(letter), int | float):
                continue
            axis = layout.get(f"{letter}axis{ref[1:]}") or {}
            at = float(shape[f"{letter}0"])
            want = np.log10(at) if axis.get("type") == "log" else at
            if not np.isclose(note[letter], want, rtol=1e-9, atol=1e-12):
                wrong.append(f"{note.get('text')!r} at {letter} = {note[letter]}, its line at {at}")
    return wrong


@pytest.mark.parametrize("script,query", VIEWS, ids=[f"{s}-{q.get('view', 'explore')}" for s, q in VIEWS])
def test_every_marker_line_s_label_sits_at_its_line(script, query, monkeypatch):
    """Local DP's "w = 0.01" stood at the right end of its plot, far from its line at w = 10⁻²: the axis was made a
    log axis by the caller, and the label kept the plain value where Plotly reads a note's place in log10."""
    labels = _record_parts(monkeypatch)
    built = _figures_of(script, query, monkeypatch)
    for label in labels[1:]:
        built += _figures_of(script, {**query, "part": label}, monkeypatch)
    wrong = [(fast["layout"].get("title", {}).get("text"), w) for _, fast in built for w in _misplaced_labels(fast)]
    assert not wrong, wrong


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 3.0, 10.0])
@pytest.mark.parametrize("confidence", [0.5, 0.95])
def test_the_negotiation_s_marker_labels_sit_clear_of_the_curves(epsilon, confidence):
    """The accuracy chart's curves rise from 0 to 1 with ε: at ε = 3 the "ε = 3" label (at the plot's top) and the
    "required 0.95" label (at its right end) both sat on the curves. Each label now takes the place no curve passes
    through: read from the drawn curves, within the label's height (8 % of the axis) and width (half a decade)."""
    from app.compute import negotiate as cn
    from app.figures import negotiate as fn

    fig = fn.accuracy_curves(cn.curves(cn.Requirement()), epsilon=epsilon, confidence=confidence, y_title="P")
    curves = [(np.asarray(t.x, float), np.asarray(t.y, float)) for t in fig.data]
    lo_x, hi_x = min(x.min() for x, _ in curves), max(x.max() for x, _ in curves)

    def crosses(a: float, b: float, bottom: float, top: float) -> bool:
        grid = np.geomspace(a, b, 200)
        return any(np.any((np.interp(grid, x, y) >= bottom) & (np.interp(grid, x, y) <= top)) for x, y in curves)

    eps_note, conf_note = fig.layout.annotations[0], fig.layout.annotations[1]
    band = (0.0, 0.08) if eps_note.y < 0.5 else (0.92, 1.02)
    assert not crosses(epsilon, epsilon * 10**0.5, *band), (eps_note.text, eps_note.y)
    a, b = (lo_x, lo_x * 10**0.5) if conf_note.xanchor == "left" else (hi_x / 10**0.5, hi_x)
    band = (confidence - 0.08, confidence) if conf_note.yanchor == "top" else (confidence, confidence + 0.08)
    assert not crosses(a, b, *band), (conf_note.text, conf_note.xanchor, conf_note.yanchor)
