"""In-figure sliders on a page: the picture at every stop of one parameter travels with the chart (``app.slides``),
so dragging its slider redraws it in the browser, and the page follows afterwards.

How the figure, the sidebar and the address stay in step (see docs/architecture.md, "An in-figure slider"):

1. **The page opens the figure at the sidebar's value.** :func:`figure` returns the deck of every stop opened at
   the control's value; a deck that is slow to build is built in a worker (``app.background``), and the plain
   figure is drawn meanwhile.
2. **Dragging asks nothing of the server.** The browser switches Plotly frames; a small component (fixed code,
   ``app.slider_js``) keeps the page's other charts over the same parameter at the same stop and writes the shown
   value into the address bar (``history.replaceState``), so a link copied from it opens this view.
3. **The page catches up once the reader lets go.** Streamlit's browser code sends its own copy of the address with
   every run, not the address bar, so a rewritten address alone would be undone by the next run. When the slider
   has rested (no drag, no play, no key) for :data:`SETTLE_MS`, the component sends the shown value once;
   :func:`_adopt` makes it the control's value before the page runs, so the sidebar, the numbers beside the chart,
   "Share this view" and the address all say what the figure shows. A control moved in the same run wins.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from app import background, catalogue, params, slides, ui
from app.figures import frames, style
from app.slider_js import SLIDERS_CSS, SLIDERS_JS

COMPONENT_KEY = "dpx-instant"
#: How long (ms) the slider rests before the page catches up with it.
SETTLE_MS = 700
_DRAWN = ui.IN_FIGURE_SLIDERS  # session_state: the keys of the in-figure sliders this run drew (ui.chart notes them)
_OFFERED = "_instant_offered"  # session_state: ... the last run drew (the only keys the browser may set)


def new_run() -> None:
    """Start of a script run (app/main.py): no in-figure slider drawn yet."""
    st.session_state[_DRAWN] = {}


def figure(
    build: slides.Build,
    key: str,
    value: Any,
    *args: Hashable,
    slot: str,
    play: bool = False,
    shown: str | None = None,
    stops: tuple[Any, ...] | None = None,
) -> go.Figure:
    """``build(value, *args)`` with an in-figure slider over the stops of ``key``, opened at ``value`` (the page's
    figure, memoised like ``ui.memo_figure``). Until every stop is built (in a worker when the process has not built
    it yet) the plain figure is drawn at once, with the room its slider will take, and the page reruns when the
    slider is ready: a page run never waits for it. ``slot`` names the picture on the page."""
    if not slides.on_grid(key, value, stops):
        return ui.memo_figure(build, value, *args)
    job = slides.job_of(build, key, args, play, shown, stops)
    if slides.known(*job) is slides.UNKNOWN:
        done = background.result(_deck, *job, slot=f"slider-{slot}", label="The slider in this picture", quiet=True)
        if done is None:  # still computing: the plain figure meanwhile
            return ui.memo_figure(_roomy, build, value, *args)
        slides.keep(done[0], *job)
    return slides.opened(value, *job, bold_titles=True)  # Streamlit draws a chart's title in bold


def _roomy(build: slides.Build, value: Any, *args: Hashable) -> go.Figure:
    """The plain figure with the room at its foot its slider will take (``frames.with_room``)."""
    fig = build(value, *args)  # copied, not changed: a builder's figure may be remembered by its caller
    return go.Figure(data=fig.data, layout=frames.with_room(fig.layout.to_plotly_json()), _validate=style.VALIDATE)


def _deck(*job: Any) -> tuple[Any]:
    """A worker's job: the deck, wrapped so that a deck that cannot be built (None) is told from a job not done."""
    return (slides.deck(*job),)


def follow() -> None:
    """After the page ran (app/main.py): the browser side of this run's in-figure sliders."""
    drawn = list(st.session_state.get(_DRAWN) or {})
    st.session_state[_OFFERED] = drawn
    if not drawn:
        return
    values = params.current_values()
    _COMPONENT(
        key=COMPONENT_KEY, data={"keys": {k: values.get(k) for k in drawn}, "settle": SETTLE_MS}, on_moved_change=_adopt
    )


def _adopt() -> None:
    """Before the run the component's message starts: each value the figures showed becomes its control's value
    (only the keys of sliders the last run drew, and only values the control can take)."""
    state = st.session_state.get(COMPONENT_KEY)
    moved = state.get("moved") if hasattr(state, "get") else None
    if not isinstance(moved, dict):
        return
    offered = set(st.session_state.get(_OFFERED) or ())
    for key, raw in moved.items():
        if key not in offered or key not in catalogue.CATALOGUE or not isinstance(raw, str):
            continue
        p = catalogue.get(key)
        value, problem, note = params.judge(p, raw, p.default)
        if value is not None and problem is None and note is None:
            st.session_state[key] = value
    st.session_state[params.MOVED] = True  # this run comes from the page itself (app/main.py)


_JS = (
    SLIDERS_JS
    + r"""
export default function (component) {
  const { data, setTriggerValue } = component;
  const S = window.dpxSliders;
  const I = window.dpxInstant || (window.dpxInstant = { pending: {}, timer: null, writing: null });
  I.send = setTriggerValue;
  I.settle = data.settle || 700;
  I.server = data.keys || {};
  for (const [k, v] of Object.entries(I.pending)) if (I.server[k] === v) delete I.pending[k];  // the page has it
  const flush = () => {
    I.timer = null;
    if (S.dragging || S.playing) { I.timer = setTimeout(flush, I.settle); return; }
    if (I.writing) { clearTimeout(I.writing); address(); }
    const moved = {};
    for (const [k, v] of Object.entries(I.pending)) if (I.server[k] !== v) moved[k] = v;
    I.pending = {};
    if (Object.keys(moved).length && I.send) I.send("moved", moved);
  };
  const address = () => {  // the address bar: a link to what the figure shows (at most every 150 ms: browsers
    I.writing = null;      // throttle a page that rewrites its address too often)
    const u = new URL(window.location.href);
    for (const [k, v] of Object.entries(I.pending)) u.searchParams.set(k, v);
    window.history.replaceState(window.history.state, "", u);
  };
  S.onMove = (key, value, how) => {
    if (key !== null) {
      if (!(key in I.server)) return;  // a slider this page did not offer
      I.pending[key] = value;
      if (!I.writing) I.writing = setTimeout(address, 150);
    }
    if (I.timer) clearTimeout(I.timer);
    if (Object.keys(I.pending).length) I.timer = setTimeout(flush, I.settle);
  };
  for (const key of Object.keys(I.server)) S.shown[key] = I.server[key];  // the figures open at the page's value
  S.scan();
  return () => { if (S.onMove && I.send === setTriggerValue) { S.onMove = null; I.send = null; } };
}
"""
)

_COMPONENT = st.components.v2.component("dpx_instant", js=_JS, css=SLIDERS_CSS, isolate_styles=False)
