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


def new_run(step_panel: str = "") -> None:
    """Start of a page run (app/main.py): no panel drawn yet; ``step_panel`` is the key of the panel the open lesson
    step is about ("" when no step is open on this page)."""
    _RUN.panels = {}
    _RUN.step_panel = step_panel
    _RUN.step_slot = None


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
    with st.container(key=PANEL_PREFIX + name):
        if step:  # a lesson step opens on this panel: Previous / Next beside its title, what to notice under it
            with st.container(horizontal=True, vertical_alignment="center", gap="medium"):
                st.header(title, anchor=False)
                _RUN.step_slot = st.container(key=STEP_NAV_KEY, width="content")
            said = st.container()
        else:
            st.header(title, anchor=False)
        try:
            yield
        except Exception as exc:  # noqa: BLE001 — a panel must never take the page down
            show_error(exc)
        else:
            if notice_text or paper:
                with said if step else contextlib.nullcontext():
                    notice(notice_text, paper)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
