"""The session's privacy ledger (one ``st.session_state`` key, survives page changes) and the sidebar "add" block.

Every paper page calls :func:`offer` with the releases it can describe (built from numbers the page already has);
the ledger page (pages/ledger.py) shows, exports and imports the ledger. The maths lives in :mod:`dpcore.ledger`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pandas as pd
import streamlit as st

from app import registry
from app.compute import MAX_ENTRIES
from dpcore import ledger as dl

KEY = "privacy_ledger"  # {"ledger": dl.Ledger, "log": [refusal dicts]}
MAX_LOG = 200
LEDGER_PAGE = next(p for p in registry.TOOLS if p.url_path == "ledger")


def _state() -> dict[str, Any]:
    s = st.session_state.get(KEY)
    if not isinstance(s, dict) or not isinstance(s.get("ledger"), dl.Ledger):
        s = {"ledger": dl.Ledger(), "log": []}
        st.session_state[KEY] = s
    return s


def get() -> dl.Ledger:
    """The session ledger (a default empty one on first use)."""
    return _state()["ledger"]


def put(ledger: dl.Ledger) -> None:
    """Replace the session ledger."""
    _state()["ledger"] = ledger


def log() -> list[dict[str, Any]]:
    """The refusal log: one dict per refused release (label, source, reason)."""
    return list(_state()["log"])


def record_refusal(release: dl.Release, reason: str) -> None:
    """Append a refusal to the log (bounded)."""
    entries = _state()["log"]
    entries.append({"label": release.label, "source": release.source, "kind": release.kind, "reason": reason})
    del entries[:-MAX_LOG]


def clear_log() -> None:
    """Empty the refusal log."""
    _state()["log"] = []


def escape(text: str) -> str:
    """Text safe to put inside Streamlit markdown (labels may come from an imported file)."""
    return re.sub(r"([\\`*_\[\]#|<>~$])", r"\\\1", text)


def describe(r: dl.Release) -> str:
    """Short ε/δ summary of a release, as a button shows it."""
    times = f" × {r.compositions}" if r.compositions > 1 else ""
    if r.kind == "noise_reduction":
        return f"ε_T = {r.epsilon:.3g} (ε_max = {r.epsilon_max:.3g})"
    if r.kind == "gaussian":
        return f"ε = {r.epsilon:.3g} at δ = {r.delta:.1g}{times}"
    if r.kind == "approx":
        return f"(ε, δ) = ({r.epsilon:.3g}, {r.delta:.1g}){times}"
    return f"ε = {r.epsilon:.3g}{times}"


def status_text(ledger: dl.Ledger) -> str:
    """One line: how many releases and the spend of the enforcing accountant against the budget."""
    n = len(ledger.releases)
    how = "filter" if ledger.enforce == "filter" else "basic composition"
    return (f"{n} release{'s' if n != 1 else ''} in the ledger · ε spent {ledger.spent():.3g} of "
            f"{ledger.epsilon:g} (δ = {ledger.delta:g}, {how})")


def offer(*releases: dl.Release) -> None:
    """Sidebar block: one "add" button per release (ε/δ shown), the outcome, and the ledger's status with a link."""
    if not releases:
        return
    side = st.sidebar
    side.subheader("Add to the privacy ledger")
    message = None
    for i, r in enumerate(releases):
        key = f"ledger_add_{r.source or 'page'}_{i}"
        if side.button(f"Add {r.label}: {describe(r)}", key=key, icon=":material/add_circle:", width="stretch"):
            try:
                put(get().try_add(r))
                message = ("ok", f"Added **{escape(r.label)}** to the ledger.")
            except dl.BudgetExceeded as exc:
                record_refusal(r, str(exc))
                message = ("refused", f"Refused **{escape(r.label)}**: {escape(str(exc))}")
    if message is not None:
        (side.success if message[0] == "ok" else side.error)(message[1])
    side.caption(escape(status_text(get())))
    side.page_link(str(LEDGER_PAGE.path), label="Open the privacy ledger", icon=":material/receipt_long:")


# ---- the ledger page's cached views (keyed on the ledger's JSON, a scalar string) ------------------------------


def _releases(ledger_json: str) -> tuple[dl.Ledger, tuple[dl.Release, ...]]:
    data = json.loads(ledger_json)
    b = data["budget"]
    rel = tuple(dl.Release.from_dict(r) for r in data["releases"])
    return dl.Ledger(b["epsilon"], b["delta"], b["enforce"], (), b["delta_share"]), rel


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Composing privacy-loss distributions …")
def accounts(ledger_json: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per accountant, cumulative ε per accountant over the releases) of a ledger given as JSON."""
    base, rel = _releases(ledger_json)
    res = pd.DataFrame([dataclasses.asdict(r) for r in dl.accountants(rel, base.epsilon, base.delta,
                                                                       delta_share=base.delta_share)])
    return res, dl.cumulative(rel, base.epsilon, base.delta, delta_share=base.delta_share)
