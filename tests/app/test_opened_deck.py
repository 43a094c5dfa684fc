"""A deck opened at a stop keeps its frames as JSON until they are read as Plotly objects: what it sends, copies and
pickles must be exactly what Plotly's own figure with the same frames gives."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from app.figures import frames


def _deck() -> frames.Slides:
    x = np.linspace(0.0, 1.0, 40)
    figs = [
        go.Figure(
            data=[{"type": "scatter", "x": x, "y": k * x * x, "name": "curve"}],
            layout={"title": {"text": f"k = {k}"}, "margin": {"b": 60}},
        )
        for k in (1, 2, 3)
    ]
    return frames.slides(figs, key="k", values=["1", "2", "3"], labels=["1", "2", "3"], prefix="k = ")


def _plotly_own(fig: frames.Opened) -> go.Figure:
    """The same figure built the ordinary way: Plotly's objects for every frame."""
    as_json = fig.to_dict()
    return go.Figure(data=as_json["data"], layout=as_json["layout"], frames=as_json["frames"])


def test_the_json_sent_is_what_plotly_makes_of_the_same_frames():
    for active in range(3):
        fig = _deck().at(active, bold_titles=True)
        assert isinstance(fig, frames.Opened)
        sent = json.loads(pio.to_json(fig, validate=False))
        assert sent == json.loads(pio.to_json(_plotly_own(fig), validate=False))
        assert len(sent["frames"]) == 3 and sent["layout"]["sliders"][0]["active"] == active
        assert sent["frames"][1]["layout"]["title"]["text"] == "<b>k = 2</b>"


def test_reading_frames_gives_plotly_objects_and_keeps_them():
    fig = _deck().at(0)
    assert [f.name for f in fig.frames] == ["1", "2", "3"]
    assert isinstance(fig.frames[0], go.Frame)
    assert len(fig.to_dict()["frames"]) == 3


def test_setting_frames_replaces_the_json_ones():
    fig = _deck().at(0)
    fig.frames = [{"name": "only", "data": [{"type": "scatter", "y": [1.0]}]}]
    assert [f["name"] for f in fig.to_dict()["frames"]] == ["only"]


def test_copies_and_pickles_carry_the_frames():
    fig = _deck().at(2)
    for other in (go.Figure(fig), copy.deepcopy(fig), pickle.loads(pickle.dumps(fig))):
        assert [f.name for f in other.frames] == ["1", "2", "3"]
        assert other.to_dict()["layout"]["sliders"][0]["active"] == 2


def test_the_deck_is_not_changed_by_opening_it_twice():
    deck = _deck()
    first = json.loads(pio.to_json(deck.at(1, bold_titles=True), validate=False))
    deck.at(1, bold_titles=True).frames[0].layout.title.text = "changed on a reader's copy"
    assert json.loads(pio.to_json(deck.at(1, bold_titles=True), validate=False)) == first
