"""Privacy ledger: releases collected from every page, accounted for side by side and enforced by a privacy filter."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from app import classroom, ledger, params, ui
from app.figures import ledger as figs
from dpcore import ledger as dl

ENFORCERS = {"filter": "privacy filter (paper 001)", "basic": "basic composition"}
_MSG = "_ledger_import_msg"
_SEEN = "_ledger_budget_seen"  # the budget the sliders were last set to or moved to in this session
_NUM = st.column_config.NumberColumn
COLUMNS = {
    "label": st.column_config.TextColumn("release"),
    "source": st.column_config.TextColumn("page"),
    "epsilon": _NUM("ε per run", format="%.4g", help="per run; for a noise reduction the stopping level ε_T"),
    "delta": _NUM("δ per run", format="%.3g"),
    "sensitivity": _NUM("Δ", format="%.4g"),
    "scale": _NUM("σ or b", format="%.4g"),
    "compositions": _NUM("T (runs)"),
    "epsilon_max": _NUM("ε_max", format="%.4g", help="noise reduction: the declared top level"),
    "epsilon_at_delta": _NUM("ε at δ (ex-ante)", format="%.4g"),
    "rho": _NUM("ρ (zCDP)", format="%.4g"),
}


def _nearest(options: tuple[float, ...], x: float) -> float:
    return min(options, key=lambda o: abs(math.log(o) - math.log(x)))


def _import() -> None:
    """on_change of the uploader: validate, replay, and replace the ledger only if the file is sound."""
    up = st.session_state.get("upload")
    if up is None:
        return
    current = ledger.get()
    try:
        raw = up.getvalue()
        if len(raw) > dl.MAX_BYTES:
            raise ValueError(f"file: larger than {dl.MAX_BYTES // 1024} KiB ({len(raw)} bytes)")
        if up.name.lower().endswith(".csv"):
            result = dl.from_csv(raw, base=current)
        else:
            result = dl.from_json(raw)
    except ValueError as exc:
        st.session_state[_MSG] = ("error", f"Nothing was imported; the ledger is unchanged. {ledger.escape(str(exc))}")
        return
    new = result.ledger
    note = ""
    eps, dlt = _nearest(params.EPSILON_OPTIONS, new.epsilon), _nearest(params.DELTA_OPTIONS, new.delta)
    if not (math.isclose(eps, new.epsilon, rel_tol=1e-9) and math.isclose(dlt, new.delta, rel_tol=1e-9)):
        note = (f" The file's budget (ε = {new.epsilon:g}, δ = {new.delta:g}) is not on the sliders' grid; "
                f"it is shown as ε = {eps:g}, δ = {dlt:g}.")
    st.session_state["beps"], st.session_state["bdelta"], st.session_state["enforce"] = eps, dlt, new.enforce
    st.session_state[_SEEN] = (eps, dlt, new.enforce)
    ledger.replace(result)
    ledger.set_budget(eps, dlt, new.enforce)  # onto the sliders' grid (no change when it already is)
    kind = "warning" if result.refused else "success"
    st.session_state[_MSG] = (kind, f"Imported {len(new.releases)} release(s) from {ledger.escape(up.name[:80])}."
                              + (f" {len(result.refused)} no longer fit and were refused (see the refusal log)."
                                 if result.refused else "") + note)


def _budget_of(led: dl.Ledger) -> tuple[float, float, str]:
    """The ledger's budget as the sliders show it (nearest grid values)."""
    return _nearest(params.EPSILON_OPTIONS, led.epsilon), _nearest(params.DELTA_OPTIONS, led.delta), led.enforce


ui.header(
    "Privacy ledger: one budget for every release",
    "Each page offers an **Add to the privacy ledger** button in its sidebar. The ledger collects those releases "
    "against one session budget (ε, δ) and accounts for them five ways side by side. The **enforcing** accountant "
    "refuses a release that would overspend and says why. The default, the privacy filter of paper 001, stays "
    "valid even when you pick each release *after* seeing the earlier results (adaptively); basic composition "
    "is also a valid filter. Advanced composition, zCDP and PLD totals assume the list of releases was fixed in "
    "advance: they are shown for comparison.",
)

ledger.sync()
ledger.banner()
stored = ledger.get()
if ledger.ledger_id() is not None and st.session_state.get(_SEEN) != _budget_of(stored):
    # a stored ledger opened from its link, or its budget changed in another tab: the sliders show the stored budget
    for key in ("beps", "bdelta", "enforce"):  # an older budget in the address must not win over the stored one
        params._forget_url_value(key)
    st.session_state["beps"], st.session_state["bdelta"], st.session_state["enforce"] = _budget_of(stored)
    st.session_state[_SEEN] = _budget_of(stored)
with st.sidebar:
    st.header("Session budget")
    eps = params.epsilon("beps", default=_nearest(params.EPSILON_OPTIONS, stored.epsilon),
                         label="ε — session privacy budget")
    delta = params.delta("bdelta", default=_nearest(params.DELTA_OPTIONS, stored.delta))
    enforce = params.choice(
        "enforce", "Enforcing accountant", tuple(ENFORCERS), stored.enforce, name="the enforcing accountant",
        help="filter: paper 001's unified privacy filter (zCDP budget, noise reductions charged ex-post). basic: "
        "Σε ≤ ε and Σδ ≤ δ. Both refuse a release that does not fit.",
    )
    ui.share_hint()

if (eps, delta, enforce) != st.session_state.get(_SEEN):  # moved here (or set by this tab's link): save it
    ledger.set_budget(eps, delta, enforce)
    st.session_state[_SEEN] = (eps, delta, enforce)
current = ledger.get()
if ledger.ledger_id() is not None:
    link = classroom.share_url(st.context.url, "ledger", {ledger.URL_KEY: ledger.ledger_id()})
    with st.expander("Saved on the server · this ledger's private link", icon=":material/key:"):
        st.markdown("The ledger is saved after every change, so a refresh, a second tab or a restart of the server "
                    "shows the same ledger. Its private link is the address of this page:")
        st.code(link, language=None)
        st.markdown("**Anyone with this link can see the ledger and add releases to it** (the link is the key). "
                    "Share it only with people who should spend this budget; the *Share this view* link above "
                    "carries it too.")
elif ledger.problem() is None:
    st.caption("The ledger is saved on the server from its first change; its private link then appears here.")
if current.over_budget:
    first = current.refusals()[0]
    st.error(f"The ledger is over this budget: the {ENFORCERS[enforce]} refuses release {first[0] + 1} "
             f"({ledger.escape(first[1])}). Raise the budget or remove releases; nothing more can be added.")

with ui.panel(
    "1 · Releases",
    "a release is one (possibly T-fold) run of a mechanism on the same data; ε and δ are per run. The ρ column is "
    "what the zCDP accountant charges (the filter charges a noise reduction only ε_T²/2 instead of ε_max²/2).",
):
    table = current.table()
    if table.empty:
        st.info("The ledger is empty. Open a paper page and use **Add to the privacy ledger** in its sidebar.",
                icon=":material/receipt_long:")
    else:
        st.dataframe(table, hide_index=True, width="stretch", key="releases", column_config=COLUMNS)
    c = st.columns(2)
    c[0].button("Remove the last release", key="pop", on_click=ledger.remove_last, disabled=table.empty,
                icon=":material/undo:")
    c[1].button("Clear the ledger", key="clear", on_click=ledger.clear, disabled=table.empty,
                icon=":material/delete:")

with ui.panel(
    "2 · Four accountants and the filter",
    "PLD is the tightest (it composes the exact privacy-loss distributions). Basic composition grows linearly and "
    "is the loosest over many releases, but for a few large ones the zCDP conversion ρ + 2√(ρ ln(1/δ)) can cost "
    "more (and the filter converts at only half the session δ); advanced composition only helps with many small "
    "releases. The filter pays a noise reduction only for the level where it stopped (ε_T²/2), where the others "
    "must charge its declared maximum ε_max.",
):
    res, curve = ledger.accounts(current.to_json())
    names = {"basic": "basic", "advanced": "advanced", "zcdp": "zCDP", "pld": "PLD", "filter": "filter"}
    cols = st.columns(len(res))
    for col, row in zip(cols, res.itertuples(), strict=True):
        verdict = "within budget" if row.within else "over budget"
        enforcing = " · enforcing" if row.name == enforce else ""
        col.metric(f"ε · {names[row.name]}{enforcing}", "∞" if not math.isfinite(row.epsilon) else f"{row.epsilon:.4g}",
                   verdict, delta_color="normal" if row.within else "inverse", delta_arrow="off",
                   help=f"at δ = {row.delta:.3g}. {row.note}")
    ui.chart(figs.cumulative(curve, epsilon=eps, delta=delta), curve, name="ledger accountants",
             alt="Total epsilon after each release in the ledger for basic, advanced, zCDP, PLD and the filter, "
             "with the session budget as a horizontal line.")
    shown = res.assign(name=res["name"].map(names))
    st.dataframe(shown.rename(columns={"name": "accountant", "epsilon": "ε", "delta": "δ", "within": "within budget"}),
                 hide_index=True, width="stretch", key="accts")

with ui.panel("3 · Refusals", "a refused release is never added; the reason names what was left and what it needed."):
    refusals = pd.DataFrame(ledger.log(), columns=["label", "source", "kind", "reason"])
    if refusals.empty:
        st.caption("No release has been refused in this ledger.")
    else:
        st.dataframe(refusals, hide_index=True, width="stretch", key="refusals")
        st.button("Clear the refusal log", key="clearlog", on_click=ledger.clear_log)

with ui.panel(
    "4 · Export and import",
    "JSON keeps the budget and the releases; CSV keeps the releases only (imported into the current budget). An "
    "import is replayed through the enforcing accountant: what no longer fits is listed as refused, never dropped "
    "silently, and a malformed file leaves the ledger as it was.",
):
    c = st.columns(2)
    c[0].download_button("Export JSON", current.to_json, file_name="privacy-ledger.json", mime="application/json",
                         key="export_json", on_click="ignore", icon=":material/download:")
    c[1].download_button("Export CSV", current.to_csv, file_name="privacy-ledger.csv", mime="text/csv",
                         key="export_csv", on_click="ignore", icon=":material/download:")
    st.file_uploader(f"Import a ledger (JSON or CSV, at most {dl.MAX_BYTES // 1024} KiB, "
                     f"{dl.MAX_RELEASES} releases)", type=["json", "csv"], key="upload", on_change=_import,
                     max_upload_size=1)
    if (msg := st.session_state.pop(_MSG, None)) is not None:
        {"error": st.error, "warning": st.warning, "success": st.success}[msg[0]](msg[1])
