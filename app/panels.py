"""Panels: a titled, guarded section of a page (``ui.panel``) with its "what to notice" caption, named by a stable key
so a lesson step can open on it (app/presenting.py, docs/architecture.md "Panel keys")."""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Iterator
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

_log = logging.getLogger("dp_explorer")


def notice(text: str | None, paper: str | None = None) -> None:
    """The "what to notice" caption under a panel, and where the panel's idea is in the paper (``paper``: "Theorem 1",
    "Algorithm 2 and Fig. 3"): theorem and algorithm numbers go in this caption, never in a heading."""
    cite = f"*In the paper: {paper}.*" if paper else ""
    if text:
        st.caption(f"**What to notice:** {text}" + (f" {cite}" if cite else ""))
    elif cite:
        st.caption(cite)


def show_error(exc: BaseException) -> None:
    """Show an error without a traceback: ValueErrors verbatim (they name the parameter), others generically."""
    if isinstance(exc, ValueError):
        st.error(f"{exc}", icon=":material/error:")
    else:
        _log.exception("panel failed", exc_info=exc)
        st.error(
            "This panel could not be computed for these settings; the rest of the page still works. "
            f"({type(exc).__name__})",
            icon=":material/error:",
        )


#: A panel's container key is this prefix and the panel's key: the page element gets the class
#: ``st-key-dpx-panel-<key>``, the anchor a lesson step scrolls to (app.presenting).
PANEL_PREFIX = "dpx-panel-"
PANEL_KEY = re.compile(r"^[a-z0-9][a-z0-9-]{0,59}$")  # the same rule as app.sequences.PANEL_KEY
STEP_NAV_KEY = "dpx-step-nav"  # the container under a lesson step's panel that holds Previous / Next
_RUN = threading.local()  # this run's panels (a page runs in its session's script thread)


def new_run(step_panel: str = "", *, alone: bool = False) -> None:
    """Start of a page run (app/main.py): no panel drawn yet; ``step_panel`` is the key of the panel the open lesson
    step is about ("" when no step is open on this page). ``alone`` (presentation mode): the step's panel is drawn
    in full and every other panel of the page as its title only (see :func:`panel`)."""
    _RUN.panels = {}
    _RUN.step_panel = step_panel
    _RUN.step_slot = None
    _RUN.alone = alone and bool(step_panel)
    _RUN.hidden = False
    _RUN.titles_only = 0


def shown() -> bool:
    """False inside the body of a panel drawn as its title only: nothing it draws reaches the screen, so work that
    only feeds the screen (a heavy panel's background job, app.background) can be left undone."""
    return not getattr(_RUN, "hidden", False)


def titles_only() -> int:
    """How many panels this run has drawn as their title only."""
    return getattr(_RUN, "titles_only", 0)


def drawn_panels() -> dict[str, str]:
    """The panels this run has drawn so far: key → title, in the order drawn."""
    return dict(getattr(_RUN, "panels", {}))


def step_slot() -> Any:
    """The container under the open lesson step's panel (None when that panel was not drawn in this run)."""
    return getattr(_RUN, "step_slot", None)


@contextlib.contextmanager
def panel(
    title: str, notice_text: str | None = None, *, key: str | None = None, paper: str | None = None
) -> Iterator[None]:
    """A titled panel; any exception inside it is shown as an error in the panel and the page carries on.

    The title names the panel's idea in plain words; ``paper`` says where the idea is in the paper ("Theorem 1",
    "Algorithm 2 and Fig. 3") and is drawn in the caption with what to notice.

    The title is a level-2 heading: panels sit right under the page's title (h1), so headings never skip a level.
    ``key`` is the panel's stable name (lower-case words joined by hyphens, unique in the app, listed in
    docs/architecture.md): lesson steps open on a panel by this key, so it stays when the title, the order or the
    page's parts change. A panel without one is named after its title (good for a teacher's own lesson, not for a
    ready-made one).

    In presentation mode with a lesson step open on the page, the other panels are drawn as their title only: the
    class sees the step's panel (scrolled to the top of the screen), and a move to the next step sends and draws
    one panel's pictures, not the whole page's.
    """
    if key is not None and not PANEL_KEY.match(key):
        raise ValueError(f"key: a panel's key is lower-case words joined by hyphens, got {key!r}")
    drawn = getattr(_RUN, "panels", None)
    if drawn is None:
        drawn = _RUN.panels = {}
    name = key or _slug(title)[:50] or "panel"
    if name in drawn:  # a title drawn twice on one page (keys are unique): the second gets a number
        name = f"{name}-{sum(k.startswith(name) for k in drawn) + 1}"
    drawn[name] = title
    step = name == getattr(_RUN, "step_panel", "")
    alone = getattr(_RUN, "alone", False) and not step and not getattr(_RUN, "hidden", False)
    with st.container(key=PANEL_PREFIX + name):
        if step:  # a lesson step opens on this panel: Previous / Next beside its title, what to notice under it
            with st.container(horizontal=True, vertical_alignment="center", gap="medium"):
                st.header(title, anchor=False)
                _RUN.step_slot = st.container(key=STEP_NAV_KEY, width="content")
            said = st.container()
        else:
            st.header(title, anchor=False)
        if alone:  # presenting another panel of this page: its title only (the body still runs, unseen)
            _RUN.titles_only = titles_only() + 1
            try:
                with _unsent(st.container()):
                    yield
            except Exception:  # noqa: BLE001 — not on screen; the panel shows it when it is drawn in full
                _log.debug("a panel drawn as its title only failed", exc_info=True)
            return
        try:
            yield
        except Exception as exc:  # noqa: BLE001 — a panel must never take the page down
            show_error(exc)
        else:
            if notice_text or paper:
                with said if step else contextlib.nullcontext():
                    notice(notice_text, paper)


@contextlib.contextmanager
def _unsent(body: Any) -> Iterator[None]:
    """Run the ``with`` body without sending what it draws into ``body`` to the browser.

    A ``with`` body cannot be skipped, and the views' code must run as always (its controls keep their values and
    the address its settings), so what is left out is the drawing: every element the body puts in ``body`` is
    dropped on its way to the browser (not hashed, sent, or drawn by the projector's browser).
    Anything drawn elsewhere meanwhile (the sidebar) is sent as usual."""
    ctx = get_script_run_ctx()
    cursor = getattr(body, "_cursor", None)
    path = tuple(cursor.delta_path[:-1]) if cursor is not None else ()  # the block's path, without a child's index
    if ctx is None or not path:
        with body:
            yield
        return
    send = ctx.enqueue  # every element a run draws reaches the browser through this (before it is serialised)

    def enqueue(msg: Any) -> None:
        if msg.WhichOneof("type") == "delta" and tuple(msg.metadata.delta_path[: len(path)]) == path:
            return
        send(msg)

    ctx.enqueue = enqueue  # type: ignore[method-assign]
    _RUN.hidden = True
    try:
        with body:
            yield
    finally:
        del ctx.enqueue  # the class's own method again
        _RUN.hidden = False


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
