"""What every in-app link carries from page to page: presentation mode and the tab's saved privacy ledger.

A leaf (it imports only Streamlit): the classroom strip, the navigation, the home page and the ledger's sidebar block
all build their links here, so ``app.classroom`` and ``app.ledger`` need not import each other.
"""

from __future__ import annotations

import streamlit as st

PRESENT_KEY = "present"  # URL key of the presentation toggle (?present=true), also its widget's key
LEDGER_KEY = "ledger"  # URL key of the tab's saved privacy ledger (?ledger=<id>, a capability link)
LEDGER_STATE = "privacy_ledger"  # session state of app.ledger: a dict whose "id" names the stored ledger


def presenting() -> bool:
    """Presentation mode is on (what the class sees is projected): the toggle's value, or on a page's first run (the
    toggle is drawn after the page) the link's."""
    if PRESENT_KEY in st.session_state:
        return bool(st.session_state[PRESENT_KEY])
    return str(st.query_params.get(PRESENT_KEY, "")).strip().lower() == "true"


def saved_ledger() -> str | None:
    """The id of the tab's stored privacy ledger (None before its first change, or without a store)."""
    state = st.session_state.get(LEDGER_STATE)
    saved = state.get("id") if isinstance(state, dict) else None
    return saved if isinstance(saved, str) else None


def in_app_query() -> dict[str, str] | None:
    """Query parameters every in-app link carries: presentation mode stays on from page to page, and the tab's saved
    privacy ledger is named in the new page's address from its first moment (a reconnect or a reload then finds it)."""
    present = st.session_state.get(PRESENT_KEY)
    if present is None:  # the toggle is drawn after the page (the strip): on a first run, the address says
        present = str(st.query_params.get(PRESENT_KEY, "")).strip().lower() == "true"
    query = {PRESENT_KEY: "true"} if present else {}
    saved = saved_ledger()
    if saved:
        query[LEDGER_KEY] = saved
    return query or None
