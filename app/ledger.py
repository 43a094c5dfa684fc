"""The privacy ledger of a browser session, kept in the ledger store, and the sidebar "add" block.

Every paper page calls :func:`offer` with the releases it can describe (built from numbers the page already has);
the ledger page (pages/ledger.py) shows, exports and imports the ledger. The maths lives in :mod:`dpcore.ledger`,
the storage in :mod:`app.ledger_store`.

The session keeps a copy of its ledger under ``st.session_state[KEY]`` (so it survives page changes) and the ledger's
id in the address (``?ledger=<id>``, a capability link). The first change writes the ledger to the store; from then
on every change is one transaction of the store (an addition is accepted or refused against the ledger as stored,
so two tabs can never overspend it), and every run reloads the copy when another tab or replica changed it. If the
store cannot be used (read-only or full disk, database down), the session keeps its ledger in memory only and
:func:`banner` says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from app import ledger_store as ls
from app import links, registry
from app.compute.ledger import accounts as cached_accounts
from app.notation import delta as delta_text
from app.notation import number
from dpcore import ledger as dl

KEY = links.LEDGER_STATE  # {"ledger": dl.Ledger, "log": [refusal dicts], "id", "seq", "problem", "notice"}
URL_KEY = links.LEDGER_KEY  # ?ledger=<id>
_SYNCED = "_ledger_synced"  # this run has looked at the store (cleared by new_run at the start of each run)
MAX_LOG = ls.MAX_LOG
LEDGER_PAGE = next(p for p in registry.TOOLS if p.url_path == "ledger")


def _state() -> dict[str, Any]:
    s = st.session_state.get(KEY)
    if not isinstance(s, dict) or not isinstance(s.get("ledger"), dl.Ledger):
        s = {"ledger": dl.Ledger(), "log": []}
        st.session_state[KEY] = s
    s.setdefault("log", [])
    for k in ("id", "seq", "problem", "notice"):
        s.setdefault(k, None)
    return s


def _adopt(snap: ls.Snapshot) -> None:
    s = _state()
    s.update(ledger=snap.ledger, log=list(snap.refusals), id=snap.id, seq=snap.seq)


def _degrade(problem: str) -> None:
    """Stop using the store for this session; the ledger stays in memory (the banner says so)."""
    s = _state()
    s["problem"] = problem
    s["id"] = s["seq"] = None


def _store() -> ls.LedgerStore | None:
    s = _state()
    if s["problem"]:
        return None
    try:
        return ls.get_store()
    except Exception as exc:  # noqa: BLE001 — a bad DATABASE_URL (unknown driver, malformed) must not take the page down
        _degrade(f"the ledger database address cannot be used ({type(exc).__name__}: {ls.plain_error(exc)[:120]})")
        return None


def ledger_id() -> str | None:
    """The id of the session's stored ledger (None before the first change, or without a store)."""
    return _state()["id"]


def problem() -> str | None:
    """Why the ledger is not being saved (None when it is, or has nothing to save yet)."""
    return _state()["problem"]


def new_run() -> None:
    """Start of a script run (app/main.py): the run's first :func:`sync` asks the store again."""
    st.session_state[_SYNCED] = False


def sync() -> None:
    """Once per run: adopt the ledger named by ``?ledger=<id>``, reload it if it changed elsewhere, and keep its id in
    the address (page changes drop query parameters). Later calls in the same run (the sidebar's offer, the ledger
    page) do nothing: the store was asked a moment ago, and every change this run makes goes through it anyway."""
    if st.session_state.get(_SYNCED):
        return
    st.session_state[_SYNCED] = True
    s = _state()
    if s["problem"]:  # not saving: leave the address alone (its link still opens the saved ledger later)
        return
    raw = st.query_params.get(URL_KEY)
    store = _store() if (raw or s["id"]) else None
    if raw and raw != s["id"]:
        snap = None
        if store is not None and ls.is_ledger_id(raw):
            try:
                snap = store.load(raw)
            except ls.StoreUnavailable as exc:
                _degrade(str(exc))
                return
        if snap is None:
            if store is not None:
                s["notice"] = (
                    "The link named a privacy ledger that does not exist here (the link may be mistyped, or "
                    "from another server). This tab starts a new ledger."
                )
            del st.query_params[URL_KEY]
        else:
            _adopt(snap)
    elif s["id"] and store is not None:
        try:
            seq = store.seq(s["id"])
            if seq is None:  # gone from the store (e.g. a new database): keep the copy, save it afresh on change
                s["id"] = s["seq"] = None
            elif seq != s["seq"]:
                snap = store.load(s["id"])
                if snap is not None:
                    _adopt(snap)
        except ls.StoreUnavailable as exc:
            _degrade(str(exc))
    if s["id"] and st.query_params.get(URL_KEY) != s["id"]:
        st.query_params[URL_KEY] = s["id"]


def _write(stored: Callable[[ls.LedgerStore, str], Any], memory: Callable[[dict[str, Any]], Any]) -> Any:
    """Run a change in the store (creating the stored ledger on the first change), or in memory without a store."""
    s = _state()
    store = _store()
    if store is not None:
        try:
            if s["id"] is None:
                _adopt(store.create(s["ledger"], s["log"]))
            try:
                result = stored(store, s["id"])
            except ls.LedgerNotFound:  # removed from under us: save this tab's copy under a new id
                _adopt(store.create(s["ledger"], s["log"]))
                result = stored(store, s["id"])
            snap = result.snapshot if isinstance(result, ls.Outcome) else result
            _adopt(snap)
            if st.query_params.get(URL_KEY) != s["id"]:
                st.query_params[URL_KEY] = s["id"]
            return result
        except ls.StoreUnavailable as exc:
            _degrade(str(exc))
    return memory(s)


def get() -> dl.Ledger:
    """The session's ledger (a default empty one on first use)."""
    return _state()["ledger"]


def log() -> list[dict[str, Any]]:
    """The refusal log: one dict per refused release (label, source, kind, reason)."""
    return list(_state()["log"])


def _log_refusal(s: dict[str, Any], release: dl.Release, reason: str) -> None:
    s["log"] = [*s["log"], {"label": release.label, "source": release.source, "kind": release.kind, "reason": reason}][
        -MAX_LOG:
    ]


def add(release: dl.Release) -> tuple[bool, str]:
    """Add ``release`` if the enforcing accountant accepts it: (accepted, the reason it was refused)."""

    def memory(s: dict[str, Any]) -> tuple[bool, str]:
        try:
            s["ledger"] = s["ledger"].try_add(release)
        except dl.BudgetExceeded as exc:
            _log_refusal(s, release, str(exc))
            return False, str(exc)
        return True, ""

    out = _write(lambda store, i: store.add(i, release), memory)
    return (out.accepted, out.reason) if isinstance(out, ls.Outcome) else out


def set_budget(epsilon: float, delta: float, enforce: str) -> None:
    """Change the session budget (releases kept; an over-spent ledger then refuses every addition)."""
    if get().with_budget(epsilon, delta, enforce) == get():
        return

    def memory(s: dict[str, Any]) -> None:
        s["ledger"] = s["ledger"].with_budget(epsilon, delta, enforce)

    _write(lambda store, i: store.set_budget(i, epsilon, delta, enforce), memory)


def remove_last() -> None:
    """Drop the last release."""

    def memory(s: dict[str, Any]) -> None:
        s["ledger"] = s["ledger"].remove_last()

    _write(lambda store, i: store.remove_last(i), memory)


def clear() -> None:
    """Drop every release (same budget)."""

    def memory(s: dict[str, Any]) -> None:
        s["ledger"] = s["ledger"].clear()

    _write(lambda store, i: store.clear(i), memory)


def replace(imported: dl.Imported) -> None:
    """Replace the ledger by an imported one; its refused releases join the refusal log."""

    def memory(s: dict[str, Any]) -> None:
        s["ledger"] = imported.ledger
        for r, reason in imported.refused:
            _log_refusal(s, r, reason)

    _write(lambda store, i: store.replace(i, imported), memory)


def put(ledger: dl.Ledger) -> None:
    """Replace the session ledger (kept for callers of the former API; same as importing it)."""
    replace(dl.Imported(ledger, ()))


def record_refusal(release: dl.Release, reason: str) -> None:
    """Append a refusal to the session's log (memory only; :func:`add` records its refusals itself)."""
    _log_refusal(_state(), release, reason)


def clear_log() -> None:
    """Empty the refusal log."""

    def memory(s: dict[str, Any]) -> None:
        s["log"] = []

    _write(lambda store, i: store.clear_log(i), memory)


def banner(*, sidebar: bool = False) -> None:
    """Say when the ledger is not being saved (and why), or when a link named an unknown ledger."""
    s = _state()
    where = st.sidebar if sidebar else st
    if s["problem"]:
        text = (
            "Your privacy ledger is **not being saved**: " + escape(s["problem"]) + ". The app keeps working and "
            "keeps the ledger in this browser tab only, so a refresh or a server restart loses it: export it as "
            "JSON to keep it."
        )
        where.warning(
            text if not sidebar else "The privacy ledger is not being saved (see the ledger page).",
            icon=":material/cloud_off:",
        )
    if s["notice"] and not sidebar:
        st.info(s.pop("notice") or "", icon=":material/link_off:")
        s["notice"] = None


def escape(text: str) -> str:
    """Text safe to put inside Streamlit markdown (labels may come from an imported file)."""
    return re.sub(r"([\\`*_\[\]#|<>~$])", r"\\\1", text)


def describe(r: dl.Release) -> str:
    """Short ε/δ summary of a release, as a button shows it: "ε = 3 per release × 10 releases" (never a bare "× 10",
    which reads as a product)."""
    times = f" per release × {r.compositions} releases" if r.compositions > 1 else ""
    if r.kind == "noise_reduction":
        return f"ε_T = {number(r.epsilon, 3)} (ε_max = {number(r.epsilon_max, 3)}){times}"
    if r.kind == "gaussian":
        return f"ε = {number(r.epsilon, 3)} at δ = {delta_text(r.delta, 1)}{times}"
    if r.kind == "approx":
        return f"ε = {number(r.epsilon, 3)}, δ = {delta_text(r.delta, 1)}{times}"
    return f"ε = {number(r.epsilon, 3)}{times}"


def status_text(ledger: dl.Ledger) -> str:
    """One line: how many releases and the spend of the enforcing accountant against the budget."""
    n = len(ledger.releases)
    head = (
        f"{n} release{'s' if n != 1 else ''} in the ledger · ε spent {number(ledger.spent(), 3)} of "
        f"{number(ledger.epsilon)} (δ = {number(ledger.delta)})"
    )
    if ledger.enforce == "filter":
        return (
            f"{head}, as the privacy filter counts it: it adds releases one at a time (in zCDP, at part of δ), "
            "so it says a little more than the exact total that the ledger page and the negotiate page quote."
        )
    return f"{head}, adding up the ε's (basic composition)."


def offer(*releases: dl.Release) -> None:
    """Sidebar block: one "add" button per release (ε/δ shown), the outcome, and the ledger's status with a link."""
    if not releases:
        return
    sync()
    side = st.sidebar
    side.subheader("Add to the privacy ledger")
    message = None
    for i, r in enumerate(releases):
        key = f"ledger_add_{r.source or 'page'}_{i}"
        if side.button(f"Add {r.label}: {describe(r)}", key=key, icon=":material/add_circle:", width="stretch"):
            accepted, reason = add(r)
            message = (
                ("ok", f"Added **{escape(r.label)}** to the ledger.")
                if accepted
                else ("refused", f"Refused **{escape(r.label)}**: {escape(reason)}")
            )
    banner(sidebar=True)
    if message is not None:
        (side.success if message[0] == "ok" else side.error)(message[1])
    side.caption(escape(status_text(get())))
    side.page_link(
        str(LEDGER_PAGE.path),
        label="Open the privacy ledger",
        icon=":material/receipt_long:",
        query_params=links.in_app_query(),
    )


def accounts(ledger_json: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per accountant, cumulative ε per accountant over the releases) of a ledger given as JSON (cached)."""
    acc = cached_accounts(ledger_json)
    return acc.totals, acc.curve
