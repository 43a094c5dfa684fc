"""What the poll's three views share: the address keys, the store (or why it cannot be used), the join link, the
coin, and how shares and times are written."""

from __future__ import annotations

import html
import secrets
from collections.abc import Callable
from datetime import timedelta
from urllib.parse import urlsplit

import numpy as np
import streamlit as st

from app import classroom, registry
from app import ledger_store as ls
from app import poll_store as ps

POLL_KEY, JOIN_KEY = "poll", "join"  # ?poll=<teacher's id>, ?join=<code>
PAGE = "poll"
POLL_PAGE = next(p for p in registry.TOOLS if p.url_path == PAGE)
_LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "0.0.0.0", ""}


def store() -> ps.PollStore | None:
    """The process's poll store, or None after saying on the page why it cannot be used."""
    try:
        return ps.get_poll_store()
    except Exception as exc:  # noqa: BLE001 — a bad DATABASE_URL (unknown driver, malformed) must not take the page down
        st.error(
            f"Polls cannot be kept here: the database address cannot be used ({type(exc).__name__}).",
            icon=":material/cloud_off:",
        )
        return None


def unavailable(exc: ls.StoreUnavailable) -> None:
    st.error(f"The poll could not be reached: {exc}. Try again in a moment.", icon=":material/cloud_off:")


def find(lookup: Callable[[ps.PollStore], ps.Poll | None]) -> tuple[ps.PollStore, ps.Poll | None] | None:
    """The store and the poll ``lookup`` reads from it (None where it names no poll), or None after saying on the
    page why the store cannot be used or reached."""
    polls = store()
    if polls is None:
        return None
    try:
        return polls, lookup(polls)
    except ls.StoreUnavailable as exc:
        unavailable(exc)
        return None


def join_form(label: str = "The code on the projector") -> None:
    """A box for the code on the projector and a button that opens its poll; Enter (a phone keyboard's Go) opens it
    too."""
    with st.form("_dpx_poll_join_form", border=False):
        code = st.text_input(label, key="_dpx_poll_code", max_chars=16, placeholder="e.g. ACE347")
        opened = st.form_submit_button("Open the poll", key="_dpx_poll_join")
    if opened and code.strip():
        st.switch_page(str(POLL_PAGE.path), query_params={JOIN_KEY: ps.normal_code(code)[:12] or code.strip()[:12]})


def join_url(code: str) -> str:
    """The link a phone opens: the app's public address (``DPX_PUBLIC_URL`` when set) + ``/poll?join=<code>``."""
    return f"{classroom.app_root(st.context.url, PAGE)}/{PAGE}?{JOIN_KEY}={code}"


def short_join(url: str) -> str:
    """The join link as the projector writes it: no scheme (``dp.example.edu/poll?join=ACE347``)."""
    parts = urlsplit(url)
    return f"{parts.netloc}{parts.path}?{parts.query}" if parts.netloc else url


def only_here(url: str) -> bool:
    """Whether the link names this computer only (phones cannot open it)."""
    return (urlsplit(url).hostname or "") in _LOCAL_HOSTS


def coin() -> np.random.Generator:
    """A fresh generator for one answer's coin, seeded with 128 bits from the operating system's cryptographic
    source: nobody can predict or replay a phone's coin."""
    return np.random.default_rng(secrets.randbits(128))


_TO_TOP = """<script>/* @KEY@ */
(() => {
  const doc = window.parent.document || document;
  const top = () => ['[data-testid="stMain"]', '[data-testid="stAppViewContainer"]'].forEach((sel) => {
    const el = doc.querySelector(sel);
    if (el) el.scrollTop = 0;
  });
  top();
  setTimeout(top, 300);
  setTimeout(top, 1000);
})();
</script>"""


def opens_at_top(view: str) -> None:
    """Open this view at its top: the teacher pressed Start (or a student Open) far down the page before, and a
    switch to the same page keeps the browser's scroll position. The script runs once per ``view`` (its text is new
    only when ``view`` is); reruns of the same view keep the reader where they are."""
    st.html(_TO_TOP.replace("@KEY@", html.escape(view).replace("*/", "")), unsafe_allow_javascript=True)


def pct(x: float) -> str:
    """A share as the projector writes it: ``58 %``, with a no-break space (a narrow metric box on the projector
    wrapped the sign onto a line of its own)."""
    return f"{100 * x:.0f}\u00a0%"


def points(x: float) -> str:
    """A difference of shares in percentage points: ``28 points``."""
    return f"{100 * x:.0f} points"


def minutes_and_seconds(left: timedelta) -> str:
    """``4:07`` for four minutes and seven seconds (never negative)."""
    s = max(0, int(left.total_seconds()))
    return f"{s // 60}:{s % 60:02d}"
