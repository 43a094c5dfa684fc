"""Building blocks of the marimo lessons in ``notebooks/``: catalogue controls, exercises with a check, app links.

A lesson is a marimo notebook (a plain ``.py`` file) that imports this module, :mod:`app.compute` (numbers) and
:mod:`app.figures` (charts); it never computes or draws on its own. The conventions every lesson follows:

* **Controls** come from the parameter catalogue, so a slider in a lesson has the same symbol, name, stops, default
  and help as the app's: ``controls = lessons.controls("eps", "delta")`` in one cell (shown with
  ``lessons.panel(controls)``), and ``p = lessons.values(controls)`` — a cell that defines ``p`` and nothing else — in
  the next. Every later cell reads ``p.eps``, ``p.delta`` … The tests run each lesson headless with other values by
  overriding ``p`` (``app.run(defs={"p": lessons.Values(eps=0.5, …)})``).
* **Exercises** (:class:`Exercise`): a question, the right answer as the lesson shows it (or one of a few choices),
  two hints, why, and a worked solution, judged by the checker the app's exercises use
  (:mod:`app.exercises.check`). One cell makes ``ex_input = ex.input`` and shows ``ex.show(ex_input)``, the next
  ``ex.feedback(ex_input)``: right, a hint, then a stronger hint; the solution stays folded until asked for or the
  third wrong answer.
* **Checks** of the "Reproduce the paper" section call :func:`check`, which shows a ✓ line and raises
  :class:`LessonCheckFailed` when a reproduced number is off, so a headless run fails loudly.
* **Pictures with their own slider** come from :func:`slide` (every stop travels with the figure), with
  :func:`slider_note` under them: what that slider moves and what the lesson's controls still set.
* **Links** to the app page with the same settings: :func:`app_link` (``DPX_APP_URL``, default the local
  ``make app`` address).
* **Maths** is written plainly (``e^ε``, ``ε_y``, ``r^op``) or in ``$…$``: a lesson writes its text with :func:`md`
  (``from app.lessons import md``), which typesets the plain form (:func:`app.notation.tex`) as the app does for
  Streamlit; importing this module changes nothing in marimo.

Only the lessons import marimo; the Streamlit app never imports this module.
"""

from __future__ import annotations

import concurrent.futures as cf
import copy
import math
import os
import threading
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import marimo as mo

from app import catalogue, notation, slides
from app.compute._cache import Memory
from app.exercises import query_string
from app.exercises.check import CLOSE, EMPTY, RIGHT, UNREADABLE, Check, Reply, Tries, read_number

#: Where the Streamlit app runs; lesson links open its pages with the lesson's settings.
APP_URL_ENV = "DPX_APP_URL"
DEFAULT_APP_URL = "http://127.0.0.1:8501"


#: how many results :func:`remember` keeps (least recently used dropped first)
REMEMBERED = 64
#: ``off`` stops :func:`ahead` (no worker process is started)
AHEAD_ENV = "DPX_LESSON_AHEAD"
_memory: Memory[tuple, Any] = Memory(REMEMBERED)  # under _lock
_ahead: dict[tuple, cf.Future] = {}
_pool: dict[str, Any] = {}  # "pool": the worker pool, "submitted": jobs it has taken
_lock = threading.RLock()


def remember(fn: Any, *args: Any) -> Any:
    """``fn(*args)``, remembered across slider moves (arguments must be hashable), returned as a copy.

    For the compute functions the app runs as background jobs (uncached there, since the job system keeps their
    results) and for the costly ones a lesson computes ahead (:func:`ahead`): moving a slider back to a value seen
    before must be instant. A value computed ahead is taken from the worker, waiting for it if the worker has
    started it; one it has not started yet is computed here at once instead of queueing behind the others.
    """
    key = (fn, args)
    with _lock:
        _harvest()
        value = _memory.get(key, _MISSING)
    if value is _MISSING:
        value = _take_ahead(key)
        if value is _MISSING:
            value = fn(*args)
        with _lock:
            _memory[key] = value
    return copy.deepcopy(value)


_MISSING = object()


def _take_ahead(key: tuple) -> Any:
    with _lock:
        job = _ahead.pop(key, None)
    if job is None or job.cancel():
        return _MISSING
    try:
        return job.result()
    except Exception:  # noqa: BLE001 — a worker that failed or died: compute here, where an error reaches the reader
        return _MISSING


def _harvest() -> None:
    """Move finished jobs computed ahead into the memory (failed ones are dropped); caller holds the lock."""
    for key, job in list(_ahead.items()):
        if job.done():
            del _ahead[key]
            if not job.cancelled() and job.exception() is None and key not in _memory:
                _memory[key] = job.result()


def ahead(fn: Any, *variants: tuple, family: Any = None) -> None:
    """Start computing ``fn(*args)`` for each ``args`` in ``variants`` in a worker process, for :func:`remember`.

    A lesson passes the settings a reader is likely to choose next, e.g. the slider's neighbouring stops
    (:func:`neighbours`): the second core computes them while the reader looks at the current ones, so the next
    move is drawn at once. Settings already remembered or started are skipped; earlier plans for ``fn`` that no
    worker has started are dropped. Only in a served lesson (``marimo run`` or the editor): a headless run or an
    export computes nothing ahead. One worker process is shared by every lesson and reader of the server.
    ``family``: only the earlier plans whose first argument is ``family`` are dropped (:func:`slides_ahead`).
    """
    if os.environ.get(AHEAD_ENV, "").lower() == "off" or not _served():
        return
    wanted = [(fn, args) for args in variants]
    with _lock:
        _harvest()
        for key, job in list(_ahead.items()):
            mine = key[0] is fn and (family is None or (bool(key[1]) and key[1][0] is family))
            if mine and key not in wanted and job.cancel():
                del _ahead[key]
        for key in wanted:
            if key not in _memory and key not in _ahead:
                try:
                    _ahead[key] = _worker().submit(key[0], *key[1])
                except RuntimeError:  # the pool broke (a worker was killed): start a new one next time
                    _pool.clear()
                    return


def _served() -> bool:
    """Whether a reader in a browser runs this lesson (an export to .ipynb also runs in "edit" mode, without a
    request; a headless run is in "script" mode)."""
    meta = mo.app_meta()
    return meta.mode in ("run", "edit") and meta.request is not None


def _worker() -> cf.ProcessPoolExecutor:
    """The lessons' worker: one process (the kernel has the other core), as the app's background jobs run them
    (forked from a server that has imported the compute modules once, memory-capped, ending with this server)."""
    from app import jobs  # noqa: PLC0415 — only a served lesson computes ahead

    pool = jobs.recycled_pool(_pool, 1)
    _pool["submitted"] += 1
    return pool


def neighbours(p: Values, key: str) -> list[Values]:
    """``p`` with ``key`` moved one stop of its slider up and one stop down (where there is one): the settings a
    reader stepping through that slider sees next."""
    grid = list(catalogue.get(key).grid)
    value = getattr(p, key)
    if value not in grid:
        return []
    i = grid.index(value)
    return [p.replace(**{key: grid[j]}) for j in (i + 1, i - 1) if 0 <= j < len(grid)]


#: the marimo output of each figure :func:`slide` handed out lately: (the figure, weakly; its output)
_drawn: Memory[int, tuple[weakref.ref, Any]] = Memory(REMEMBERED)  # under _lock


def slide(build: Any, key: str, value: Any, *args: Any, **kwargs: Any) -> Any:
    """The app's picture with its in-figure slider over ``key`` (:func:`app.slides.figure`), opened at ``value``.

    That figure is shared: the same object each time the lesson's control comes back to ``value``. A served lesson
    remembers what marimo made of it (every stop's frame written out for the browser, the larger part of a move's
    work), so moving a control back redraws it without writing the deck again; a headless run gets the figure.
    """
    job = slides.job_of(build, key, args, **kwargs)
    if slides.known(*job) is slides.UNKNOWN:  # built ahead in the worker (slides_ahead)?
        deck = _built_ahead((slides.deck, job))
        if deck is not _MISSING:
            slides.keep(deck, *job)
    fig = slides.figure(build, key, value, *args, **kwargs)
    if not _served():
        return fig
    with _lock:
        ref, html = _drawn.get(id(fig), (None, None))
    if ref is None or ref() is not fig:
        html = mo.as_html(fig)
        with _lock:
            _drawn[id(fig)] = (weakref.ref(fig), html)
    return html


def _built_ahead(key: tuple) -> Any:
    """What the worker computed ahead under ``key`` (finished, or waited for if started; the deck itself, shared and
    read-only, not a copy), or ``_MISSING``."""
    with _lock:
        _harvest()
        value = _memory.get(key, _MISSING)
        if value is not _MISSING:
            del _memory[key]  # the caller keeps it from now on
            return value
    return _take_ahead(key)


def slides_ahead(build: Any, key: str, *variants: tuple, **kwargs: Any) -> None:
    """Build in the worker the in-figure slider of :func:`slide` for each tuple of ``build``'s other arguments in
    ``variants`` (the settings a reader is likely to choose next: :func:`neighbours`) that is not built yet, so that
    the next move only opens it. ``build`` must be importable by name (``app.decks``); ``kwargs`` as for
    :func:`slide`."""
    jobs = [slides.job_of(build, key, args, **kwargs) for args in variants]
    ahead(slides.deck, *(job for job in jobs if slides.known(*job) is slides.UNKNOWN), family=build)


def slider_note(symbol: str, settings: str, *, play: bool = False, stays: str = "the rest of the lesson stays") -> Any:
    """The sentence under a picture drawn with :func:`slide`: its own slider (and Play, with ``play``) moves
    ``symbol`` at once, the lesson's controls set everything else (``settings``, written out: "ε = 1, the kernel"),
    and ``stays`` (what the lesson goes on with) at the value of ``symbol`` set there."""
    play_words = " (and Play)" if play else ""
    return md(
        f"The slider under the picture{play_words} moves {symbol} and redraws it at once, with no waiting; your "
        f"controls above set everything else ({settings}), and {stays} at the {symbol} set there."
    )


def md(text: Any, *args: Any, **kwargs: Any) -> Any:
    """``mo.md`` with plainly written maths typeset (:func:`app.notation.tex`): what every lesson writes its text with.
    marimo itself is left as it is."""
    return mo.md(notation.tex(text) if isinstance(text, str) else text, *args, **kwargs)


def in_depth(text: str, title: str = "The formal statement") -> Any:
    """The paper's layer of an idea, one click away: folded under the one-sentence idea, so that a newcomer meets
    the first picture before the formulas."""
    return mo.accordion({title: md(text)})


class LessonCheckFailed(AssertionError):
    """A number the lesson reproduces from a paper is not what the paper (or the exact computation) says."""


# ------------------------------------------------------------------------------------------------------------------
# Controls
# ------------------------------------------------------------------------------------------------------------------


def from_address(key: str) -> Any:
    """The value the lesson's address gives ``key`` (``?eps=2``: an app page's "Open the lesson" link carries its
    settings), snapped to the slider's nearest stop; None when the address has none or one that cannot be read (the
    control then starts at its default)."""
    try:
        raw = mo.query_params().get(key)
    except Exception:  # noqa: BLE001 — no running lesson (a headless run or an import): no address
        return None
    if isinstance(raw, list):
        raw = raw[-1] if raw else None
    if raw is None or not str(raw).strip():
        return None
    p, text = catalogue.get(key), str(raw).strip()
    if p.kind == "choice":
        return text if text in p.grid else None
    if p.kind == "toggle":
        return {"true": True, "false": False}.get(text.lower())
    x = read_number(text)
    if x is None or not math.isfinite(x):
        return None
    if p.kind == "seed":
        return int(x) if x == int(x) and 0 <= x <= catalogue.SEED_MAX else None
    grid = [v for v in p.grid if isinstance(v, int | float)]
    if not grid:
        return None
    if all(v > 0 for v in grid) and x > 0:  # log-spaced stops: nearest on the log scale
        return min(grid, key=lambda v: abs(math.log(v) - math.log(x)))
    return min(grid, key=lambda v: abs(v - x))


#: Catalogue entries whose stops span many powers of ten (δ: 10⁻¹² … 0.1). marimo's slider shows its raw value
#: (``1.0e-5``, wrapped over two lines in the sidebar) and has no formatter, so these are a drop-down list of the
#: stops written as people write them (10⁻⁵, 2·10⁻⁶), in order: the arrow keys still step through them one by one.
POWER_KEYS = frozenset({"delta", "bdelta", "tail"})


def control(key: str, *, default: Any = None) -> Any:
    """The marimo input of a catalogue entry: a slider over its stops, radio buttons for a choice, a switch, or a
    number box for the random seed. ``default`` overrides the catalogue's (the lesson says why); a value in the
    lesson's address (``?eps=2``, from an app page's lesson link) comes first."""
    p = catalogue.get(key)
    value = p.default if default is None else default
    given = from_address(key)
    if given is not None:
        value = given
    label = notation.tex(p.label)
    if p.kind == "slider":
        if value not in p.grid:
            raise ValueError(f"default {value!r} of {key!r} is not one of its values")
        if key in POWER_KEYS:
            options = {p.words(v): v for v in p.grid}
            return mo.ui.dropdown(options=options, value=p.words(value), label=label, full_width=True)
        return mo.ui.slider(steps=list(p.grid), value=value, label=label, show_value=True, full_width=True)
    if p.kind == "choice":
        options = {p.words(o): o for o in p.grid}
        # one option a line: side by side they ran off the narrow sidebar ("Gaussian", "Uniform" cut off)
        return mo.ui.radio(options=options, value=p.words(value), label=label)
    if p.kind == "toggle":
        return mo.ui.switch(value=bool(value), label=label)
    return mo.ui.number(start=0, stop=catalogue.SEED_MAX, step=1, value=int(value), label=label)


def controls(*keys: str, **defaults: Any) -> Any:
    """A group of catalogue controls (one marimo element: ``controls["eps"]`` is the ε slider)."""
    return mo.ui.dictionary({k: control(k, default=defaults.get(k)) for k in keys})


def panel(group: Any, *, title: str = "Your settings", sidebar: bool = True) -> Any:
    """Show a control group, each control with its help text (what the quantity means) under it.

    By default in the lesson's sidebar, so the controls stay in view while the reader scrolls through the pictures
    they drive (``sidebar=False`` shows them in place, e.g. for a section's own controls). Shown in the cell that
    makes the controls: a cell that only refers to them would redraw the whole panel at every move.
    """
    rows = []
    for key, element in group.items():
        p = catalogue.get(key)
        rows.append(mo.vstack([element, md(f"<small>{p.help}</small>")], gap=0.1))
    body = mo.vstack([md(f"**{title}**"), *rows], gap=0.6)
    return mo.sidebar([body], width="24rem") if sidebar else mo.callout(body, kind="neutral")


class Values:
    """The values of a lesson's controls, read as attributes (``p.eps``); built from a control group or directly.

    Only catalogue parameters are accepted, so a typo in a lesson or a test fails at once.
    """

    __slots__ = ("_values",)

    def __init__(self, mapping: Mapping[str, Any] | None = None, /, **values: Any) -> None:
        merged = {**(mapping or {}), **values}
        for key in merged:
            catalogue.get(key)
        object.__setattr__(self, "_values", MappingProxyType(merged))

    def __getattr__(self, key: str) -> Any:
        try:
            return object.__getattribute__(self, "_values")[key]
        except KeyError:
            raise AttributeError(f"this lesson has no control {key!r}") from None

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("lesson values are read-only: use .replace(...)")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Values) and dict(self._values) == dict(other._values)

    def __repr__(self) -> str:
        return "Values(" + ", ".join(f"{k}={v!r}" for k, v in self._values.items()) + ")"

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)

    def replace(self, **changes: Any) -> Values:
        """The same values with some changed (for the tests' other parameter sets)."""
        return Values({**self._values, **changes})


def values(group: Any) -> Values:
    """The current values of a control group."""
    return Values(dict(group.value))


def defaults(*keys: str, **changes: Any) -> Values:
    """The catalogue defaults of ``keys`` with some changed: what a lesson shows before anyone moves a control."""
    return Values({k: catalogue.get(k).default for k in keys}, **changes)


# ------------------------------------------------------------------------------------------------------------------
# Exercises
# ------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Exercise:
    """A "Try this" question answered in the lesson, judged by the shared checker (:mod:`app.exercises.check`).

    ``answer`` is the right answer exactly as the lesson shows it ("0.9", "52 %", "14.06") or, with ``options``, the
    right option. A typed number is right when it rounds to ``answer`` at the precision shown; a share ("52 %", or a
    decimal with ``share=True``) may be written 52 %, 52% or 0.52. The first wrong answer gets ``hints[0]``, the
    second ``hints[1]`` (neither gives the value away), the third the worked ``solution``, which the reader can also
    open at any time. ``why`` says in a sentence or two why the right answer is right.
    """

    question: str
    answer: str
    why: str
    solution: str
    hints: tuple[str, str]
    options: tuple[str, ...] = ()
    share: bool = False
    unit: str = ""

    @classmethod
    def from_check(cls, question: str, check: Check, solution: str) -> Exercise:
        """The exercise of a question answered by ``check`` (the first course's chapters keep theirs as data)."""
        return cls(question, check.shown, check.why, solution, check.hints, check.options, check.share)

    @property
    def checker(self) -> Check:
        return Check(str(self.answer), tuple(self.hints), tuple(self.options), self.share, self.why)

    def reply(self, value: Any, wrong_before: int = 0) -> Reply:
        """The reply to ``value`` after ``wrong_before`` wrong answers."""
        return self.checker.reply(None if value is None else str(value), wrong_before)

    def check(self, value: Any, wrong_before: int = 0) -> tuple[bool | None, str]:
        """(right?, message): None when nothing (or nothing readable) has been answered yet."""
        reply = self.reply(value, wrong_before)
        return reply.right, reply.text

    @property
    def input(self) -> Any:
        """A fresh marimo input for the answer (assign it to a variable in its own cell); it counts its wrong
        answers, so the hints get stronger."""
        if self.options:
            element = mo.ui.radio(options=list(self.options), label="Your answer")
        else:
            element = mo.ui.text(
                placeholder="your answer" + (f" ({self.unit})" if self.unit else ""), label="Your answer"
            )
        element._dpx_tries = Tries()  # one reader's tries at this box (a box is made for each reader's session)
        return element

    def feedback(self, answer: Any) -> Any:
        """Right, a hint or a stronger hint, then the worked solution: folded until asked for, open after a right
        answer or the third wrong one. ``answer`` is the input (its tries are counted) or a plain value."""
        tries = getattr(answer, "_dpx_tries", None)
        value = answer.value if hasattr(answer, "value") else answer
        reply = tries.answer(self.checker, value) if tries is not None else self.reply(value)
        kind = {RIGHT: "success", EMPTY: "neutral", UNREADABLE: "info", CLOSE: "info"}.get(reply.state, "warn")
        solution = md(self.solution)
        shown = reply.solution or reply.state == RIGHT
        return mo.vstack(
            [
                mo.callout(md(reply.text), kind=kind),
                mo.callout(mo.vstack([md("**Worked solution**"), solution]), kind="neutral")
                if shown
                else mo.accordion({"Show the worked solution": solution}),
            ]
        )

    def show(self, element: Any) -> Any:
        """The question with its input."""
        return mo.vstack([md(f"**Try this.** {self.question}"), element])


# ------------------------------------------------------------------------------------------------------------------
# Checks and links
# ------------------------------------------------------------------------------------------------------------------


def check(ok: bool, text: str) -> Any:
    """One reproduced result: a ✓ line, or :class:`LessonCheckFailed` when it does not hold."""
    if not ok:
        raise LessonCheckFailed(f"Reproduction failed: {text}")
    return md(f"✓ {text}")


def close(value: float, target: float, *, rel: float = 1e-3, abs_: float = 0.0) -> bool:
    """``value`` equals ``target`` within a relative (or absolute) tolerance."""
    return math.isclose(value, target, rel_tol=rel, abs_tol=abs_)


def app_url(page: str, settings: Values | Mapping[str, Any]) -> str:
    """The address of the app page ``page`` (its URL path; "" for home) with these settings in its query."""
    items = settings.as_dict() if isinstance(settings, Values) else dict(settings)
    query = {k: catalogue.get(k).fmt(v) for k, v in items.items()}
    base = os.environ.get(APP_URL_ENV, DEFAULT_APP_URL).rstrip("/")
    path = f"{base}/{page}" if page else f"{base}/"
    return f"{path}?{query_string(query)}" if query else path


def lesson_url(lesson: str, settings: Mapping[str, str] | None = None) -> str:
    """The address of another lesson (``notebooks/<lesson>.py``) with these settings: under ``DPX_LESSONS_URL`` when
    set, else relative to this one (the lessons served together, as ``make app`` serves them)."""
    base = os.environ.get("DPX_LESSONS_URL", "").strip().rstrip("/")
    query = query_string({"file": f"{lesson}.py", **(settings or {})})
    return f"{base}/?{query}" if base else f"?{query}"


def course_links(chapter: Any, p: Values) -> Any:
    """The end of a course chapter's lesson: go deeper (the paper page in the app and its lesson, at this chapter's
    setting), and the way on to the previous and next chapters."""
    from app import course  # noqa: PLC0415 — only the course lessons need it

    value = catalogue.get(chapter.control).fmt(getattr(p, chapter.control))
    setting = chapter.deeper_settings(value)
    page_url = app_url(chapter.deeper.page, setting)
    lines = [
        f"## {chapter.deeper.heading}",
        f"[Open {chapter.deeper.title} in the app with this setting →]({page_url}) · "
        f"[its lesson →]({lesson_url(chapter.deeper.lesson, setting)})",
    ]
    i = chapter.number - 1
    way = []
    if i > 0:
        prev = course.CHAPTERS[i - 1]
        way.append(f"[← {prev.number}. {prev.title}]({lesson_url(prev.lesson)})")
    if i + 1 < len(course.CHAPTERS):
        nxt = course.CHAPTERS[i + 1]
        way.append(f"[Next: {nxt.number}. {nxt.title} →]({lesson_url(nxt.lesson)})")
    else:
        way.append("The end of the first course: the paper lessons take each idea further.")
    return md("\n\n".join([*lines, " · ".join(way)]))


def app_link(page: str, settings: Values | Mapping[str, Any], *, text: str = "Open this view in the app") -> Any:
    """A link to the app page with the lesson's current settings (``DPX_APP_URL``; ``make app`` serves both)."""
    return md(f"[{text} →]({app_url(page, settings)})")
