"""In-figure sliders over a catalogue parameter, the same in the app, the lessons and the handouts.

``figure(build, "eps", 1.0, δ, Δ)`` is ``build(1.0, δ, Δ)`` carrying ``build(stop, δ, Δ)`` at every stop of ε as a
Plotly frame, with a slider under the plot (``app.figures.frames``): the reader drags through the stops in the
browser, and the figure opens at the value given. Every stop is built once per setting of the other arguments and
remembered for the whole process; opening it at another value only picks another stop.

``build`` is the page's own builder (compute layer in, figure out) with the slider's value first; its other
arguments must be hashable scalars, like those of every cached compute function.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any

import plotly.graph_objects as go

from app import catalogue
from app.compute._cache import Memory, cached_resource
from app.figures import frames

Build = Callable[..., go.Figure]


def prefix(key: str) -> str:
    """What stands before the slider's current value: the parameter's symbol ("ε = "), else its name."""
    p = catalogue.get(key)
    return f"{p.symbol} = " if p.symbol else f"{p.name}: "


#: Every stop's figures of the pictures asked for lately, for the whole process (built here, or by a worker: keep).
_DECKS: Memory[tuple, frames.Slides | None] = Memory(64)
_LOCK = threading.Lock()


def deck(
    build: Build,
    key: str,
    args: tuple[Hashable, ...],
    play: bool = False,
    shown: str | None = None,
    stops: tuple[Any, ...] | None = None,
) -> frames.Slides | None:
    """Every stop's figure of ``build(stop, *args)`` over the parameter ``key`` (all its stops, or ``stops``), ready
    to open at any stop (computed, not remembered: :func:`opened` remembers it; a worker process may compute it,
    :func:`keep` remembers what it returns). ``shown`` replaces the default :func:`prefix`.

    None when the stops' figures cannot be the frames of one figure (other traces, or a layout setting made at some
    stops only, which a frame could not unset): the page then draws its plain figure (``tests/app/test_frames.py``
    keeps every page's pictures framable at their settings)."""
    p = catalogue.get(key)
    grid = tuple(stops) if stops is not None else tuple(p.grid)
    figures = [build(v, *args) for v in grid]
    try:
        return frames.slides(
            figures,
            key=key,
            values=[p.fmt(v) for v in grid],
            labels=[p.words(v) for v in grid],
            prefix=shown if shown is not None else prefix(key),
            play=play,
            name=f"{p.symbol or p.name} in the picture",  # not the name of the page's own control for it
        )
    except ValueError:
        return None


#: What :func:`known` answers for a deck not remembered (a deck that cannot be built is remembered as None).
UNKNOWN: Any = object()


def known(*job: Any) -> Any:
    """The deck remembered for ``job`` (:func:`deck`'s arguments; None: it cannot be built), or :data:`UNKNOWN`."""
    with _LOCK:
        return _DECKS.get(job_of(*job), UNKNOWN)


def keep(d: frames.Slides | None, *job: Any) -> None:
    """Remember the deck for ``job`` (:func:`deck`'s arguments), computed elsewhere (a worker process)."""
    with _LOCK:
        _DECKS[job_of(*job)] = d


def job_of(
    build: Build,
    key: str,
    args: tuple[Hashable, ...],
    play: bool = False,
    shown: str | None = None,
    stops: tuple[Any, ...] | None = None,
) -> tuple:
    """:func:`deck`'s arguments as one hashable tuple, in its order (what a deck is remembered under)."""
    return (build, key, tuple(args), play, shown, None if stops is None else tuple(stops))


def opened(value: Any, *job: Any, bold_titles: bool = False) -> go.Figure:
    """The figure of the deck for ``job`` (:func:`deck`'s arguments) opened at ``value``, the deck computed here if
    not remembered; the plain figure where the deck cannot be built. ``bold_titles``: the frames' titles in bold, as
    Streamlit draws a chart's title. Shared by every caller (remembered for the whole process)."""
    return _opened(job_of(*job), value, bold_titles)


@cached_resource(max_entries=64)
def _opened(job: tuple, value: Any, bold_titles: bool) -> go.Figure:
    build, key, args = job[0], job[1], job[2]
    d = known(*job)
    if d is UNKNOWN:
        d = deck(*job)
        keep(d, *job)
    return build(value, *args) if d is None else d.at(d.index(catalogue.get(key).fmt(value)), bold_titles=bold_titles)


def on_grid(key: str, value: Any, stops: tuple[Any, ...] | None = None) -> bool:
    """Whether ``value`` is one of the slider's stops (a page's own value between two stops gets no slider)."""
    return value in (stops if stops is not None else catalogue.get(key).grid)


def figure(
    build: Build,
    key: str,
    value: Any,
    *args: Hashable,
    play: bool = False,
    shown: str | None = None,
    stops: tuple[Any, ...] | None = None,
) -> go.Figure:
    """``build(value, *args)`` with an in-figure slider over the stops of ``key``, opened at ``value``.

    A value that is not one of the stops gets the plain figure, without a slider. The figure is shared by every
    caller: nobody may change it (``app.ui.chart`` adapts a copy)."""
    if not on_grid(key, value, stops):
        return build(value, *args)
    return opened(value, build, key, tuple(args), play, shown, stops)
