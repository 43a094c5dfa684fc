"""Classroom features drawn around every page by app/main.py: a "share this view" link, glossary popovers, a
presentation mode (larger type, sidebar collapsed, wider charts) and a few "Try this" exercises per page.

Everything here is data (``GLOSSARY``, ``PAGE_TERMS``, ``EXERCISES`` keyed by the page's ``url_path``) plus two small
renderers; a page without content shows nothing. Numeric answers are written out as text and listed in
``Exercise.numbers`` so tests/app/test_classroom.py can recompute each one independently from ``dpcore``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import streamlit as st

from app import params
from app.catalogue import GLOSSARY

PRESENT_KEY = "present"  # URL key of the presentation toggle (?present=true)

#: Glossary terms shown on each page (url_path → terms, in the order shown).
PAGE_TERMS: dict[str, tuple[str, ...]] = {
    "": ("ε (epsilon)", "δ (delta)", "sensitivity Δ", "Laplace mechanism", "Gaussian mechanism"),
    "baselines": ("ε (epsilon)", "δ (delta)", "sensitivity Δ", "Laplace mechanism", "Gaussian mechanism",
                  "privacy profile", "composition", "PLD"),
    "brdp": ("ε (epsilon)", "δ (delta)", "privacy loss", "privacy profile", "hockey-stick divergence", "PLD",
             "composition"),
    "noise_reduction": ("ex-post privacy", "privacy filter", "zCDP", "privacy loss", "Laplace mechanism",
                        "Gaussian mechanism"),
    "svt": ("sparse vector technique", "ε (epsilon)", "sensitivity Δ", "Laplace mechanism", "composition"),
    "ldp": ("local DP", "randomized response", "realized privacy loss", "privacy filter", "composition"),
    "r2dp": ("Laplace mechanism", "usefulness", "ε (epsilon)", "sensitivity Δ", "privacy loss"),
    "negotiate": ("ε (epsilon)", "δ (delta)", "usefulness", "Laplace mechanism", "Gaussian mechanism"),
    "ledger": ("composition", "zCDP", "PLD", "privacy filter", "ex-post privacy"),
    "audit": ("privacy loss", "hockey-stick divergence", "ε (epsilon)", "δ (delta)"),
}


from app.exercises import EXERCISES, Exercise, query_string as _query  # noqa: E402,F401 — re-exported
#: Environment variable naming the public address of the app (``https://dp.example.edu``): share links use it
#: instead of the address the server sees (``http://127.0.0.1:8501`` behind a proxy).
PUBLIC_URL_ENV = "DPX_PUBLIC_URL"


def share_url(base: str | None, url_path: str, query: Mapping[str, str]) -> str:
    """The full URL of the current view: the public address (``DPX_PUBLIC_URL``) or the page address the browser
    used (``st.context.url``), plus every query parameter.

    ``base`` may already end with the page's path (Streamlit adds it); without a base (no browser, e.g. in AppTest)
    the URL is relative to the app root.
    """
    public = os.environ.get(PUBLIC_URL_ENV, "").strip()
    root = (public or base or "").rstrip("/")
    if url_path and not root.endswith("/" + url_path):
        root = f"{root}/{url_path}"
    url = root if url_path else root + "/"  # the default page lives at the app root: /?eps=2
    return f"{url}?{_query(query)}" if query else url


#: Presentation mode: a fixed stylesheet (never user text). Larger type, full-width main area; the sidebar is
#: collapsed through st.set_page_config and its expand arrow stays visible so the controls remain one click away.
PRESENTATION_CSS = """
<style>
[data-testid="stMainBlockContainer"] { max-width: 100%; padding-left: 1.5rem; padding-right: 1.5rem; }
[data-testid="stMain"] h1 { font-size: 3.6rem; line-height: 1.15; }
[data-testid="stMain"] h2 { font-size: 2.6rem; }
[data-testid="stMain"] h3 { font-size: 2.1rem; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] li { font-size: 1.45rem; line-height: 1.5; }
[data-testid="stMain"] [data-testid="stCaptionContainer"] p { font-size: 1.2rem; }
[data-testid="stMain"] [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p { font-size: 3rem; }
[data-testid="stMain"] [data-testid="stMetricLabel"] p { font-size: 1.25rem; }
[data-testid="stMain"] [data-testid="stPlotlyChart"] { width: 100%; }
[data-testid="stMain"] [data-testid="stPopover"] [data-testid="stMarkdownContainer"] p { font-size: 1.1rem; }
</style>
"""


def current_query() -> dict[str, str]:
    """The query of the current view: every control the page drew, with its current value (see app.params)."""
    return params.current_values()


def _share(popover: Any, url_path: str) -> None:
    query = current_query()
    if url_path != "ledger":  # a ledger's id is a write capability: a view shared from another page does not carry it
        query.pop("ledger", None)
    url = share_url(st.context.url, url_path, query)
    with popover:
        st.markdown("This link restores every control on this page. Copy it with the button at its right:")
        st.code(url, language=None, wrap_lines=True)


def strip(url_path: str) -> None:
    """The slim strip above a page: share link, presentation toggle, a jump to the exercises, glossary popovers.

    Call it after the page ran (inside a container placed above the page) so every widget of the page exists and
    the share link carries its value. Presentation mode collapses the sidebar (its » arrow stays at the top left,
    so the controls are one click away) and injects the fixed ``PRESENTATION_CSS``.
    """
    row = st.container(horizontal=True, vertical_alignment="center", gap="small")
    share = row.popover("Share this view", icon=":material/link:")
    present = params.toggle(
        PRESENT_KEY, "Presentation mode", help="Larger type and wider charts for a projector; the sidebar collapses "
        "(open it with the » arrow at the top left).", container=row,
    )
    _share(share, url_path)  # filled after the toggle exists, so the link carries it too
    with row:
        if EXERCISES.get(url_path):
            st.markdown("[:material/school: Try this ↓](#try-this)")
        for term in PAGE_TERMS.get(url_path, ()):
            with st.popover(term, type="tertiary"):
                st.markdown(f"**{term}** — {GLOSSARY[term]}")
    if present:
        st.set_page_config(initial_sidebar_state="collapsed")
        st.html(PRESENTATION_CSS)
    else:
        st.set_page_config(initial_sidebar_state="auto")


def exercises(url_path: str) -> None:
    """The page's "Try this" exercises: task, a link opening the page with its settings, the answer on click."""
    items = EXERCISES.get(url_path, ())
    if not items:
        return
    st.divider()
    st.header("Try this", anchor="try-this")
    for i, ex in enumerate(items, 1):
        with st.container(border=True):
            st.markdown(f"**{i}.** {ex.question}")
            if ex.settings:
                st.markdown(f"[:material/open_in_new: Open this page with these settings]({ex.link(url_path)})")
            with st.expander("Answer"):
                st.markdown(ex.answer)


def in_app_query() -> dict[str, str] | None:
    """Query parameters every in-app link carries: presentation mode stays on from page to page."""
    return {PRESENT_KEY: "true"} if st.session_state.get(PRESENT_KEY) else None


def navigation(sections: Mapping[str, list[Any]], *, current: Any) -> None:
    """The app's page menu in the sidebar: a section name, then one link per page (the current one marked)."""
    query = in_app_query()
    for name, pages in sections.items():
        if not pages:
            continue
        st.markdown(f"**{name}**")
        for p in pages:
            st.page_link(p, label=p.title, icon=p.icon, query_params=query)
    st.divider()
