"""A paper's lesson as a handout reads it: the notebook run headless in this process at its default settings
(marimo's ``App.run()``), its outputs taken in cell order — the words it computes included — with its controls
replaced by one sentence of the values used.

While the lesson runs, the few things it shows through :mod:`app.lessons` and marimo (``md``, ``mo.vstack``, the
controls' panel, an exercise, a table, a link to the app) are swapped for plain records of what they show, so the
handout writes them in its own way: words with their maths as MathML, figures with their in-figure sliders, an
exercise's question and hints with its answer folded. Inputs, links to a running app and the feedback to an answer
(a reader of paper cannot type) are left out. Everything is put back when the run ends.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import marimo as mo
import plotly.graph_objects as go
from marimo._plugins.ui._core.ui_element import UIElement

from app import catalogue, lessons

_lock = threading.Lock()  # one lesson run at a time: the swaps are process-wide


@dataclass(frozen=True)
class Words:
    """Markdown the lesson shows (its maths in ``$…$`` or written plainly), computed numbers already in it."""

    text: str


@dataclass(frozen=True)
class Settings:
    """The lesson's controls (their catalogue keys), at the values the run used (filled in when it has ended: a
    control's value cannot be read in the cell that makes it)."""

    keys: tuple[str, ...]
    values: lessons.Values | None = None


@dataclass(frozen=True)
class Question:
    """An exercise: its question, hints and worked solution."""

    exercise: lessons.Exercise


@dataclass(frozen=True)
class Table:
    """A table of numbers (a pandas frame)."""

    frame: Any


@dataclass(frozen=True)
class Stack:
    """Things shown one under the other (``mo.vstack``)."""

    items: tuple[Any, ...]


def _stack(items: Any, *args: Any, **kwargs: Any) -> Stack:
    return Stack(tuple(items))


def _nothing(*args: Any, **kwargs: Any) -> None:
    return None


def _swaps() -> list[tuple[Any, str, Callable[..., Any]]]:
    """(owner, attribute, stand-in) for every way a lesson shows something."""
    return [
        (lessons, "md", lambda text, *a, **k: Words(text) if isinstance(text, str) else text),
        (lessons, "panel", lambda group, *a, **k: Settings(tuple(group))),
        # on paper nothing is folded: the formal statement is written out where the lesson folds it
        (lessons, "in_depth", lambda text, *a, **k: Words(text)),
        (lessons, "app_link", _nothing),
        (lessons, "course_links", _nothing),
        (lessons.Exercise, "show", lambda self, element: Question(self)),
        (lessons.Exercise, "feedback", _nothing),
        (mo, "md", lambda text, *a, **k: Words(text)),
        (mo, "vstack", _stack),
        (mo, "hstack", _stack),
        (mo.ui, "table", lambda data, *a, **k: Table(data)),
    ]


def run(path: Path) -> tuple[Any, ...]:
    """The outputs of the lesson at ``path`` in cell order, run at its defaults with the stand-ins above."""
    spec = importlib.util.spec_from_file_location(f"handout_lesson_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with _lock:
        swaps = _swaps()
        saved = [(owner, name, getattr(owner, name)) for owner, name, _ in swaps]
        try:
            for owner, name, stand_in in swaps:
                setattr(owner, name, stand_in)
            outputs, defs = module.app.run()
        finally:
            for owner, name, original in saved:
                setattr(owner, name, original)
    p = defs.get("p")
    return tuple(_with_values(out, p) for out in outputs)


def _with_values(out: Any, p: lessons.Values | None) -> Any:
    if isinstance(out, Settings) and p is not None:
        return Settings(out.keys, lessons.Values({k: getattr(p, k) for k in out.keys}))
    if isinstance(out, Stack):
        return Stack(tuple(_with_values(o, p) for o in out.items))
    return out


def shown(outputs: Any) -> Iterator[Any]:
    """What a reader of paper sees, in order: :class:`Words`, :class:`Settings`, :class:`Question`, :class:`Table`
    and Plotly figures (stacks opened, inputs and empty outputs left out)."""
    for out in outputs:
        if isinstance(out, Stack):
            yield from shown(out.items)
        elif isinstance(out, Words | Settings | Question | Table | go.Figure):
            yield out
        elif out is None or isinstance(out, UIElement):
            continue  # an input (a control, an answer box): nothing to type into on paper
        else:
            raise TypeError(f"a lesson shows a {type(out).__name__} the handout cannot write")


def setting(key: str, value: Any) -> str:
    """One control's value as a reader reads it: "ε = 1", "noise kernel: Gaussian", "monotonic queries: no"."""
    p = catalogue.get(key)
    words = ("yes" if value else "no") if p.kind == "toggle" else p.words(value)
    return f"{p.symbol} = {words}" if p.symbol else f"{p.name}: {words}"


def settings_sentence(values: lessons.Values) -> str:
    """The sentence that stands for a lesson's controls: "Numbers at the lesson's default settings: ε = 1, …"."""
    return (
        "Numbers at the lesson's default settings: " + ", ".join(setting(k, getattr(values, k)) for k in values) + "."
    )
