"""URL-bound controls built from the parameter catalogue: every control's value lives in the page address.

How a control and the address stay in step:

1. The first time a page visit draws a control, its raw URL value (``?eps=1.9``) is judged here, before the widget
   exists: a valid value becomes the widget's state; a value between two slider stops snaps to the nearest stop (and
   the page says so); an invalid one (``?eps=-1``, ``?eps=abc``, ``?eps=1_0``, ``?T=1000000000``) is reported with
   ``st.error`` by :func:`app.ui.show_url_problems` and the control starts at its default. A repeated key
   (``?eps=0.5&eps=8``) counts once, with its last value.
2. After the page has run, :func:`sync_url` writes the address again from the controls actually drawn: normalised
   values replace what the link said, keys that no control uses are dropped, and every control is named (so a link
   keeps its meaning if a default ever changes). The address bar is therefore always a link to exactly what the page
   shows, and "Share this view" copies it.

Controls are not bound to the URL by Streamlit itself (``bind="query-params"``): that binding stores a choice's
on-screen label instead of its id and silently drops values it cannot read, which is what step 1 must report.
Tabs (the page's parts) are the exception: Streamlit binds them (``?part=Noise``) and :func:`parts` judges their
value first.
"""

from __future__ import annotations

import contextlib
import math
import unicodedata
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.scriptrunner import get_script_run_ctx

from app import catalogue
from app.catalogue import SEED_MAX, Param, fmt_number, log_grid
from app.compute._cache import cached_resource

_PROBLEMS = "_url_problems"
_NOTES = "_url_notes"
_CHECKED = "_url_checked"  # keys whose URL value was already judged during this visit of the page (see app/main.py)
_DRAWN = "_url_drawn"  # key → Param of every control drawn in the current run, in order
_BOUND = "_url_bound"  # keys Streamlit binds itself (the parts' tabs)
_VALUES = "_url_values"  # key → a page's own checked value that is not one control (an edited table), this run
_EMBED_KEYS = ("embed", "embed_options")  # Streamlit's own display options, left in the address as they are
_SENT = "_url_sent"  # the query this session last wrote to the browser

#: URL keys kept in the address although no control of the page draws them (the privacy ledger's capability id,
#: a class poll's: the teacher's and a phone's join code).
KEEP_KEYS: tuple[str, ...] = ("ledger", "seq", "step", "poll", "join")  # and a lesson sequence's link and step;
# a tuple, not a set: the address lists them in this order in every process (a set's order follows the string hash)

EPSILON_OPTIONS = catalogue.get("eps").grid
DELTA_OPTIONS = catalogue.get("delta").grid
SENSITIVITY_OPTIONS = catalogue.get("sens").grid
COMPOSITION_OPTIONS = catalogue.get("T").grid

__all__ = [
    "COMPOSITION_OPTIONS",
    "DELTA_OPTIONS",
    "EPSILON_OPTIONS",
    "SENSITIVITY_OPTIONS",
    "SEED_MAX",
    "control",
    "fmt_number",
    "log_grid",
    "parts",
    "sync_url",
    "take_url_notes",
    "take_url_problems",
    "view",
]


# ------------------------------------------------------------------------------------------------------------------
# Reading a link
# ------------------------------------------------------------------------------------------------------------------


def _record(message: str, *, note: bool = False) -> None:
    st.session_state.setdefault(_NOTES if note else _PROBLEMS, []).append(message)


def take_url_problems() -> list[str]:
    """Invalid values this run's link carried (each shown once), emptied on read."""
    return st.session_state.pop(_PROBLEMS, [])


def take_url_notes() -> list[str]:
    """Values of this run's link that were moved to the nearest slider stop, emptied on read."""
    return st.session_state.pop(_NOTES, [])


def _shown(raw: str, limit: int = 40) -> str:
    """A URL value as quoted in a message: printable, no backticks (they would end the code span), short."""
    text = "".join(ch if ch.isprintable() and ch != "`" else "?" for ch in raw)
    return text if len(text) <= limit else text[:limit] + "…"


def parse_number(raw: str) -> float | None:
    """A finite number written the ordinary way (``2``, ``0.5``, ``1e-05``, ``２`` in full-width digits), else None.

    Python's ``float`` also reads ``1_0`` as 10: a link with digit separators is refused rather than guessed.
    """
    text = unicodedata.normalize("NFKC", raw).strip()
    if "_" in text:
        return None
    try:
        x = float(text)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _first_look(key: str) -> str | None:
    """The raw URL value of ``key`` the first time a page visit asks for it (the last one if repeated), else None."""
    checked = st.session_state.setdefault(_CHECKED, set())
    if key in checked:
        return None
    checked.add(key)
    values = st.query_params.get_all(key)
    return values[-1] if values else None


def _nearest(grid: Sequence[float], x: float) -> float:
    if min(grid) > 0:
        return min(grid, key=lambda o: abs(math.log(o) - math.log(x)))
    return min(grid, key=lambda o: abs(o - x))


def judge(p: Param, raw: str, default: Any) -> tuple[Any, str | None, str | None]:
    """(value, problem, note) for the raw URL value of ``p``: value None means "use the default"."""
    name = f"{p.symbol} ({p.name})" if p.symbol else p.name
    if p.kind == "toggle":
        word = raw.strip().lower()
        if word in ("true", "false"):
            return word == "true", None, None
        return (
            None,
            f"The link set `{p.key}={_shown(raw)}`, but {name} must be true or false. Showing {p.fmt(default)}.",
            None,
        )
    if p.kind == "seed":
        x = parse_number(raw)
        if x is None or not x.is_integer() or not 0 <= x <= SEED_MAX:
            return (
                None,
                f"The link set `{p.key}={_shown(raw)}`, but the seed must be a whole number from 0 to "
                f"{SEED_MAX}. Showing seed {default}.",
                None,
            )
        return int(x), None, None
    if not p.numeric:
        if raw in p.grid:
            return raw, None, None
        allowed = ", ".join(p.words(o) + (f" (`{o}`)" if p.words(o) != o else "") for o in p.grid)
        return (
            None,
            f"The link set `{p.key}={_shown(raw)}`, but {name} must be one of {allowed}. Showing {p.words(default)}.",
            None,
        )
    x = parse_number(raw)
    lo, hi = min(p.grid), max(p.grid)
    if x is None or not lo * (1 - 1e-12) <= x <= hi * (1 + 1e-12):
        return (
            None,
            f"The link set `{p.key}={_shown(raw)}`, but {name} must be a number from "
            f"{p.words(lo)} to {p.words(hi)}. Showing the default {p.words(default)} instead.",
            None,
        )
    nearest = _nearest(p.grid, x)
    note = None
    if abs(nearest - x) > 1e-9 * max(abs(x), 1e-300):
        note = (
            f"The link set {name} to {_shown(raw)}; the slider moves in steps, so the page shows the nearest "
            f"step, {p.words(nearest)}."
        )
    return nearest, None, note


# ------------------------------------------------------------------------------------------------------------------
# Drawing controls
# ------------------------------------------------------------------------------------------------------------------


def _prepare(p: Param, default: Any) -> None:
    """Put the control's starting value into session state before its widget exists (URL value or default)."""
    raw = _first_look(p.key)
    if raw is not None:
        value, problem, note = judge(p, raw, default)
        if problem:
            _record(problem)
        if note:
            _record(note, note=True)
        if value is not None:
            st.session_state[p.key] = value
            return
        st.session_state[p.key] = default
        return
    current = st.session_state.get(p.key)
    if current is None or (p.kind in ("slider", "choice") and current not in p.grid):
        st.session_state[p.key] = default


#: Set when the reader moves a control (its ``on_change``, which Streamlit calls before the run): the run then comes
#: from the page itself, whatever address the browser sent with it (app/main.py).
MOVED = "_control_moved"


def _moved() -> None:
    st.session_state[MOVED] = True


@cached_resource
def _words_at_stops(kind: str, grid: tuple[Any, ...], labels: tuple[tuple[Any, str], ...]) -> dict:
    shown = Param("", "", "", "", grid[0] if grid else None, grid=grid, kind=kind, labels=dict(labels))
    return {(type(v), v): shown.words(v) for v in grid}


def _stop_words(p: Param) -> Callable[[Any], str]:
    """``p.words`` for the stops of a slider or the options of a choice, worked out once per process: Streamlit asks
    for the label of every stop on every run (a few hundred numbers a page run)."""
    known = _words_at_stops(p.kind, p.grid, tuple(p.labels.items()))
    return lambda v: known.get((type(v), v)) or p.words(v)


def _draw(p: Param, container: Any, default: Any, help: str | None) -> Any:
    c = container if container is not None else st.sidebar
    _prepare(p, default)
    st.session_state.setdefault(_DRAWN, {})[p.key] = p
    text = help or p.help
    # The current value is also passed as the widget's default: Streamlit falls back to a widget's default when the
    # browser remounts it or sends a value it cannot read (e.g. a slider moved while a run was being replaced), and
    # without one that fallback is the first option, which would silently reset every control to its minimum.
    current = st.session_state[p.key]
    if p.kind == "slider":
        value = c.select_slider(
            p.label,
            options=list(p.grid),
            value=current,
            format_func=_stop_words(p),
            key=p.key,
            help=text,
            on_change=_moved,
        )
        if p.ends:
            c.markdown(
                "<div style='display:flex;justify-content:space-between;font-size:0.8em;margin-top:-0.8em'>"
                f"<span>{p.ends[0]}</span><span>{p.ends[1]}</span></div>",
                unsafe_allow_html=True,
            )
        return value
    if p.kind == "choice":
        return c.radio(
            p.label,
            list(p.grid),
            index=list(p.grid).index(current),
            format_func=_stop_words(p),
            key=p.key,
            help=text,
            horizontal=True,
            on_change=_moved,
        )
    if p.kind == "toggle":
        return bool(c.toggle(p.label, value=bool(current), key=p.key, help=text, on_change=_moved))
    return int(
        c.number_input(
            p.label, min_value=0, max_value=SEED_MAX, value=int(current), step=1, key=p.key, help=text, on_change=_moved
        )
    )


def control(key: str, *, container: Any = None, default: Any = None, help: str | None = None) -> Any:
    """The catalogue's control for ``key``, bound to the page address; returns its current value.

    ``default`` overrides the catalogue default for one page (the page must say on screen why it differs);
    ``help`` adds page-specific words (the catalogue's meaning stays the default). ``container`` defaults to the
    sidebar.
    """
    p = catalogue.get(key)
    value = p.default if default is None else default
    if p.kind in ("slider", "choice") and value not in p.grid:
        raise ValueError(f"default {value!r} of {key!r} is not one of its values")
    return _draw(p, container, value, help)


def view(*, container: Any = None) -> str:
    """The page's view: "explore" (your own settings) or "reproduce" (the paper's figures)."""
    return str(control("view", container=container))


def parts(
    labels: Sequence[str],
    *,
    key: str = "part",
    container: Any = None,
    aliases: Mapping[str, str] | None = None,
    name: str = "the part",
) -> Any:
    """The page's sections as URL-bound tabs (``?part=<label>``; lazy: render only ``tab.open`` ones).

    A value that names no tab is reported (Streamlit would drop it silently); ``aliases`` maps the names a part had
    in older links to its label today; ``?tab=`` and ``?figs=`` from older links are read as ``?part=`` by
    app/main.py.
    """
    c = container or st
    labels = list(labels)
    raw = _first_look(key)
    if raw is not None and raw not in labels:
        same = {label.casefold(): label for label in labels}  # ?part=costs from links older than "Costs"
        if aliases and raw in aliases and key == "part":
            _seed_part(aliases[raw])
        elif raw.casefold() in same and key == "part":
            _seed_part(same[raw.casefold()])
        else:
            _record(
                f"The link set `{key}={_shown(raw)}`, but {name} must be one of {', '.join(labels)}. "
                f"Showing {labels[0]}."
            )
    st.session_state.setdefault(_BOUND, {})[key] = tuple(labels)  # in drawing order; a link carries only a label
    return c.tabs(labels, key=key, on_change="ignore", bind="query-params")


def first_look(key: str) -> str | None:
    """The raw address value of a page's own ``key`` (not a control: e.g. an edited table), the first time a page
    visit asks for it; the page checks it, reports a bad one with :func:`report_problem`, and writes back what it
    shows with :func:`page_value`."""
    return _first_look(key)


def report_problem(message: str) -> None:
    """A value of this run's link the page could not use (shown at the top of the page with the others)."""
    _record(message)


def page_value(key: str, value: str | None) -> None:
    """Put a page's own checked value (``None``: none) into the address and its share link for this run."""
    values = st.session_state.setdefault(_VALUES, {})
    if value is None:
        values.pop(key, None)
    else:
        values[key] = value


def current_values() -> dict[str, str]:
    """URL form of every control drawn in this run plus the bound tabs, in drawing order: the link to this view.

    Only values the page has checked: a control's own value, a tab's label, and the kept keys when they read as
    what they name (:func:`checked_keep_values`); whatever else the address said is left out."""
    out: dict[str, str] = {}
    for key, p in st.session_state.get(_DRAWN, {}).items():
        if key in st.session_state:
            out[key] = p.fmt(st.session_state[key])
    for key, labels in st.session_state.get(_BOUND, {}).items():
        value = st.query_params.get(key)
        if value and value in (labels or ()):
            out[key] = value
    out |= st.session_state.get(_VALUES, {})
    return out | checked_keep_values({key: st.query_params.get(key) for key in KEEP_KEYS})


def checked_keep_values(raw: Mapping[str, str | None]) -> dict[str, str]:
    """The kept address values (:data:`KEEP_KEYS`) that read as what they name, in that order: a ledger id of the
    right shape, a class poll's id or join code of the right shape, a lesson the app can open and a view of it
    (``step`` only with its ``seq``)."""
    from app import ledger_store, poll_store, sequences  # noqa: PLC0415 — pure helpers; kept out of import time

    out: dict[str, str] = {}
    ledger, seq, step = raw.get("ledger"), raw.get("seq"), raw.get("step")
    if ledger and ledger_store.is_ledger_id(ledger):
        out["ledger"] = ledger
    poll, join = raw.get("poll"), raw.get("join")
    if poll and poll_store.is_poll_id(poll):
        out["poll"] = poll
    if join and poll_store.is_code(poll_store.normal_code(join)):
        out["join"] = poll_store.normal_code(join)
    if seq:
        try:
            sequences.parse(seq, None)
        except ValueError:
            return out
        out["seq"] = seq
        if step:
            try:
                index = sequences.parse(seq, step)[1]
            except ValueError:
                return out
            out["step"] = str(index + 1)
    return out


def _seed_part(value: str) -> None:
    """Make ``?part=value`` the value Streamlit seeds the page's tab bar from (its snapshot of the opening address)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with ctx.session_state.query_params() as qp:
        if qp.is_bound("part"):
            return
        qp.set_with_no_forward_msg("part", value)
        initial = getattr(qp, "_initial_query_params", None)
        if isinstance(initial, dict):
            initial["part"] = [value]


def keep_linked_part() -> None:
    """A same-tab link from one page to a part of another (a lesson's next view on another page): Streamlit drops a
    query value bound to a widget of the page it leaves, and both pages' tab bars are bound to ``part``, so the link's
    ``?part=`` would be lost on the way and the new page would open on its first part. Put it back. Call it first
    in a run: the address the link brought is readable only until the run changes the address."""
    ctx = get_script_run_ctx()
    if ctx is None or "part" in st.query_params:
        return
    linked = urllib.parse.parse_qs(getattr(ctx, "query_string", "") or "").get("part")
    if linked:
        _seed_part(linked[-1])


def leave_page(keep: set[str]) -> None:
    """On a switch to another page within the session: the previous page's controls leave the address (but ``keep``
    and the values the link itself brought: a link "open this page with this setting" names a control the page it
    leaves also drew, e.g. the first course's ε opening the baselines at that ε)."""
    drawn = set(st.session_state.get(_DRAWN, {})) | set(st.session_state.get(_VALUES, {}))
    ctx = get_script_run_ctx()
    link = urllib.parse.parse_qs(getattr(ctx, "query_string", "") or "", keep_blank_values=True)
    ignored = ("part", "embed", "embed_options")
    if {k: v for k, v in link.items() if k not in ignored} == st.session_state.get("_address"):
        link = {}  # the switch carried the previous page's own address (a switch without a link of its own)
    brought = set(link)
    for key in list(st.query_params.keys()):
        if key in drawn and key not in keep and key not in brought:
            with contextlib.suppress(StreamlitAPIException):
                del st.query_params[key]


def new_run() -> None:
    """Start of a script run (app/main.py): forget which controls the previous run drew."""
    st.session_state[_DRAWN] = {}
    st.session_state[_BOUND] = {}
    st.session_state[_VALUES] = {}


def sync_url() -> None:
    """Write the address from the controls drawn in this run (after the page ran; see the module docstring).

    The new query string goes to the browser in one message (one history entry), not one per key; keys Streamlit
    binds to a widget (the parts' tabs) keep the value Streamlit gave them.
    """
    want = current_values()
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with ctx.session_state.query_params() as qp:
        current = {k: qp.get_all(k) for k in qp}
        target = {k: v for k, v in current.items() if qp.is_bound(k) or k.lower() in _EMBED_KEYS}
        target |= {k: [v] for k, v in want.items() if not qp.is_bound(k)}
        # compare with what this session last sent the browser, not with the server's copy: a same-page link
        # (the next view of a lesson) changes the server's copy without the browser's address following it
        if target == current and st.session_state.get(_SENT) == target:
            return
        st.session_state[_SENT] = target
        for key in list(current):
            if not qp.is_bound(key) and key.lower() not in _EMBED_KEYS:
                qp.discard_param_no_forward_msg(key)
        for key, value in want.items():
            if not qp.is_bound(key):
                qp.set_with_no_forward_msg(key, value)
        qp._send_query_param_msg()  # noqa: SLF001 — one message for the whole new query (Streamlit 1.67)


# ------------------------------------------------------------------------------------------------------------------
# Page-local controls not (yet) in the catalogue: the same machinery for an ad-hoc entry
# ------------------------------------------------------------------------------------------------------------------


def _adhoc(key: str, label: str, **fields: Any) -> Param:
    if key in catalogue.CATALOGUE:
        p = catalogue.get(key)
        return replace(p, **{k: v for k, v in fields.items() if k in ("grid", "default") and v is not None})
    symbol, _, name = label.partition(" — ")
    if not name:
        symbol, name = "", label
    return Param(key, symbol, name, fields.pop("help", None) or "", **fields)


def toggle(key: str, label: str, default: bool = False, *, help: str | None = None, container: Any = None) -> bool:
    """A URL-bound on/off switch (``?key=true`` / ``?key=false``)."""
    p = _adhoc(key, label, help=help, default=default, kind="toggle")
    return _draw(p, container, default, help)


def tabs(key: str, labels: Sequence[str], *, name: str = "", on_change: str = "ignore", container: Any = None) -> Any:
    """URL-bound tabs under another key than "part" (prefer :func:`parts`)."""
    return parts(labels, key=key, container=container, name=name or "the part")
