"""The privacy ledger page: the releases added from every page, accounted for five ways and enforced by one budget.

Page shape: :class:`Settings` holds the sidebar's values (the session budget), :func:`sidebar` draws them from the
parameter catalogue and saves a change to the ledger, :func:`render` draws the page, one function per panel. The
ledger itself lives in :mod:`app.ledger` (session copy) and :mod:`app.ledger_store` (saved), its accounting in
:mod:`app.compute.ledger`, its chart in :mod:`app.figures.ledger`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app import catalogue, classroom, ledger, params, registry, ui
from app.compute import ledger as compute
from app.figures import ledger as figs
from app.notation import number
from dpcore import ledger as dl

TITLE = "Privacy ledger: one budget for every release"
IDEA = (
    "Every result released about the same people spends part of one privacy budget: the ledger adds up what the "
    "releases spent, and refuses a release that would spend more than is left."
)
BUDGET_KEYS = ("beps", "bdelta", "enforce")
NAMES = {"basic": "basic", "advanced": "advanced", "zcdp": "zCDP", "pld": "PLD", "filter": "filter"}
_MSG = "_ledger_import_msg"
_SEEN = "_ledger_budget_seen"  # the budget the sliders were last set to or moved to in this session
_NUM = st.column_config.NumberColumn
COLUMNS = {
    "label": st.column_config.TextColumn("release"),
    "source": st.column_config.TextColumn("page"),
    "kind": st.column_config.TextColumn("mechanism"),
    "epsilon": _NUM(
        "ε per run",
        format="%.4g",
        help="The privacy loss of one run; for a noise reduction, the level ε_T where it stopped.",
    ),
    "delta": _NUM("δ per run", format="%.3g", help="The failure probability of one run."),
    "sensitivity": _NUM("Δ", format="%.4g", help="The most one person can change the true answer."),
    "scale": _NUM("σ or b", format="%.4g", help="The noise scale: σ of a Gaussian, b of a Laplace."),
    "compositions": _NUM("T (runs)", help="How many times the release was run on the same data."),
    "epsilon_max": _NUM("ε_max", format="%.4g", help="Noise reduction: the highest level it could have reached."),
    "epsilon_at_delta": _NUM(
        "ε at δ (before running)", format="%.4g", help="The ε of one run at its δ, as known before running it."
    ),
    "rho": _NUM("ρ (zCDP)", format="%.4g", help="What the zCDP accountant charges for the whole release."),
}
KINDS = {
    "gaussian": "Gaussian",
    "laplace": "Laplace",
    "pure": "any ε-DP",
    "approx": "any (ε, δ)-DP",
    "noise_reduction": "noise reduction",
}


def _page_title(source: str) -> str:
    """The page a release came from, by its title (``noise_reduction`` → "Accuracy first: noise reduction")."""
    if not source:
        return ""
    for p in registry.available_pages():
        if source in (p.url_path, p.script.removesuffix(".py")):
            return p.title
    return source


@dataclass(frozen=True)
class Settings:
    """The sidebar's values: the session budget (ε_B, δ_B) and the enforcing accountant."""

    epsilon: float
    delta: float
    enforce: str


def _nearest(key: str, x: float) -> float:
    grid = catalogue.get(key).grid
    return min(grid, key=lambda o: abs(math.log(o) - math.log(x)))


def _budget_of(led: dl.Ledger) -> tuple[float, float, str]:
    """The ledger's budget as the sliders show it (nearest stops)."""
    return _nearest("beps", led.epsilon), _nearest("bdelta", led.delta), led.enforce


def sidebar() -> Settings:
    """Draw the session budget (catalogue entries, bound to the address); a change is saved to the ledger."""
    ledger.sync()
    stored = ledger.get()
    if ledger.ledger_id() is not None and st.session_state.get(_SEEN) != _budget_of(stored):
        # a saved ledger opened from its link, or its budget changed in another tab: the stored budget wins over an
        # older one in the address
        for key, value in zip(BUDGET_KEYS, _budget_of(stored), strict=True):
            if key in st.query_params:
                del st.query_params[key]
            st.session_state[key] = value
        st.session_state[_SEEN] = _budget_of(stored)
    eps0, delta0, enforce0 = _budget_of(stored)
    with st.sidebar:
        st.header("Session budget")
        s = Settings(
            epsilon=float(params.control("beps", default=eps0)),
            delta=float(params.control("bdelta", default=delta0)),
            enforce=str(params.control("enforce", default=enforce0)),
        )
        st.caption(
            "The budget starts at the ledger's own (ε_B = 10, δ_B = 10⁻⁴ for a new ledger) and is saved with it."
        )
        ui.share_hint()
    if (s.epsilon, s.delta, s.enforce) != st.session_state.get(_SEEN):  # moved here, or set by this tab's link
        ledger.set_budget(s.epsilon, s.delta, s.enforce)
        st.session_state[_SEEN] = (s.epsilon, s.delta, s.enforce)
    return s


def render(s: Settings) -> None:
    """The page: the idea and its picture first, then the totals, the releases, the refusals, export and import."""
    ui.header(
        TITLE,
        f"{IDEA} Each page offers **Add to the privacy ledger** in its sidebar. The **enforcing** accountant decides: "
        "the privacy filter (the default) stays valid even when you choose each release *after* seeing the earlier "
        "results, and so does basic composition. Advanced composition, zCDP and PLD totals assume the list of "
        "releases was fixed in advance; they are shown for comparison.",
    )
    ledger.banner()
    current = ledger.get()
    saved()
    if current.over_budget:
        first = current.refusals()[0]
        st.error(
            f"The ledger is over this budget: the {catalogue.get('enforce').words(s.enforce)} refuses "
            f"release {first[0] + 1} ({ledger.escape(first[1])}). Raise the budget or remove releases; "
            "nothing more can be added."
        )
    acc = compute.accounts(current.to_json())
    picture(current, s, acc)
    totals(s, acc)
    releases(current)
    refusals()
    export_import(current)


def saved() -> None:
    """Where the ledger is kept, and its private link (a capability: whoever has it can read and add)."""
    if ledger.ledger_id() is None:
        if ledger.problem() is None:
            st.caption(
                ":material/cloud_upload: The ledger is saved on the server from its first change; its private "
                "link then appears here."
            )
        return
    link = classroom.share_url(st.context.url, "ledger", {ledger.URL_KEY: ledger.ledger_id()})
    with st.expander("Saved on the server · this ledger's private link", icon=":material/key:"):
        st.markdown(
            "The ledger is saved after every change, so a refresh, a second tab or a restart of the server "
            "shows the same ledger. Its private link is the address of this page:"
        )
        st.code(link, language=None)
        st.markdown(
            "**Anyone with this link can see the ledger and add releases to it** (the link is the key). "
            "Share it only with people who should spend this budget; the *Share this view* link above "
            "carries it too."
        )


def picture(current: dl.Ledger, s: Settings, acc: compute.Accounts) -> None:
    """1 · The picture of the idea: each accountant's running total against the budget line."""
    with ui.panel(
        "1 · Where the budget goes",
        "each release raises every accountant's total; the enforcing accountant refuses the release that would "
        "cross the budget line. PLD is the tightest total; basic composition, which adds the ε's, grows fastest "
        "over many releases.",
    ):
        if not current.releases:
            st.info(
                "The ledger is empty. Open a paper page and use **Add to the privacy ledger** in its sidebar.",
                icon=":material/receipt_long:",
            )
        ui.chart(
            figs.cumulative(acc.curve, epsilon=s.epsilon, delta=s.delta),
            acc.curve,
            name="ledger accountants",
            alt="Total epsilon after each release in the ledger for basic, advanced, zCDP, PLD and the filter, "
            "with the session budget as a horizontal line.",
        )


def totals(s: Settings, acc: compute.Accounts) -> None:
    """2 · The headline: what each accountant says the releases spent, and whether it fits."""
    with ui.panel(
        "2 · Five accountants, one ledger",
        "the filter pays a noise reduction only for the level where it stopped (ε_T²/2 in zCDP), where the others "
        "must charge its declared maximum ε_max. For a few large releases the zCDP conversion ρ + 2√(ρ ln(1/δ)) "
        "can cost more than basic composition, and the filter converts at only half the session δ.",
    ):
        res = acc.totals
        cols = st.columns(len(res), vertical_alignment="bottom")  # the numbers on one line
        for col, row in zip(cols, res.itertuples(), strict=True):
            verdict = "within budget" if row.within else "over budget"
            enforcing = " · enforcing" if row.name == s.enforce else ""
            col.metric(
                f"ε · {NAMES[row.name]}{enforcing}",
                "∞" if not math.isfinite(row.epsilon) else number(row.epsilon, 4),
                verdict,
                delta_color="normal" if row.within else "inverse",
                delta_arrow="off",
                help="The total privacy loss of all releases by this accountant, at δ = "
                f"{number(row.delta, 3)}. {row.note}",
            )
        # the verdict in words: a read-only checkbox is drawn pale, as if it did not count
        shown = res.assign(name=res["name"].map(NAMES), within=res["within"].map({True: "yes", False: "no: over"}))
        shown = shown.rename(
            columns={
                "name": "accountant",
                "epsilon": "ε",
                "delta": "δ",
                "within": "within budget",
                "note": "how it counts",
            }
        )
        st.dataframe(
            ui.Worded(shown, {"δ": 3}),
            hide_index=True,
            width="stretch",
            key="accts",
            # how each counts, in full beside its name (the totals are the metrics above): on one line
            # a long note was cut off, on a phone every note was past the screen's edge
            column_order=["accountant", "how it counts", "ε", "δ", "within budget"],
            row_height=ROW_HEIGHT,
            column_config={
                "how it counts": st.column_config.TextColumn(width=NOTE_WIDTH),
                "ε": _NUM("ε", format="%.4g"),
            },
        )  # the figures of the totals above


#: The accountants' table: a note column about as wide as a phone shows beside the accountant's name, and rows tall
#: enough for a note of three lines (the grid wraps a cell's text only in rows taller than 64 px).
NOTE_WIDTH, ROW_HEIGHT = 260, 68


#: Columns always shown in words, so that δ reads 10⁻⁵ (the grid's number formats would write 1e-5).
AS_WORDS = {"delta"}


def _digits(column: dict) -> int:
    """The significant figures of a number column's ``%.Ng`` format (6 without one)."""
    fmt = column.get("type_config", {}).get("format") or "%g"
    return int(fmt[2:-1]) if re.fullmatch(r"%\.\dg", fmt) else 6


def _with_dashes(table: pd.DataFrame) -> ui.Worded:
    """The releases table as shown: a column no release uses (ε_max without a noise reduction) is left out, and a
    cell that does not apply to its release reads "—" (the grid would write "None"); such a column, and δ, is
    shown in words with the column's significant figures, its cells keeping their numbers (sorted by value)."""
    table = table.drop(columns=[n for n in COLUMNS if n in table and table[n].isna().all()])
    return ui.Worded(
        table, {n: _digits(c) for n, c in COLUMNS.items() if n in table and (n in AS_WORDS or table[n].isna().any())}
    )


def releases(current: dl.Ledger) -> None:
    """3 · The releases in the ledger, with undo and clear."""
    with ui.panel(
        "3 · Releases",
        "a release is one (possibly T-fold) run of a mechanism on the same data; ε and δ are per run.",
    ):
        table = current.table()
        if not table.empty:
            table = table.assign(kind=table["kind"].map(KINDS), source=table["source"].map(_page_title))
            st.dataframe(_with_dashes(table), hide_index=True, width="stretch", key="releases", column_config=COLUMNS)
        c = st.columns(2)
        c[0].button(
            "Remove the last release",
            key="pop",
            on_click=ledger.remove_last,
            disabled=table.empty,
            icon=":material/undo:",
        )
        c[1].button(
            "Clear the ledger", key="clear", on_click=ledger.clear, disabled=table.empty, icon=":material/delete:"
        )


def refusals() -> None:
    """4 · Releases the enforcing accountant refused, with the reason."""
    with ui.panel(
        "4 · Refusals", "a refused release is never added; the reason names what was left and what it needed."
    ):
        log = pd.DataFrame(ledger.log(), columns=["label", "source", "kind", "reason"])
        if log.empty:
            st.caption("No release has been refused in this ledger.")
            return
        log = log.assign(kind=log["kind"].map(KINDS), source=log["source"].map(_page_title)).rename(
            columns={"label": "release", "source": "page", "kind": "mechanism"}
        )
        st.dataframe(log, hide_index=True, width="stretch", key="refusals")
        st.button("Clear the refusal log", key="clearlog", on_click=ledger.clear_log)


def _import() -> None:
    """on_change of the uploader: validate, replay, and replace the ledger only if the file is sound."""
    up = st.session_state.get("upload")
    if up is None:
        return
    try:
        raw = up.getvalue()
        if len(raw) > dl.MAX_BYTES:
            raise ValueError(f"file: larger than {dl.MAX_BYTES // 1024} KiB ({len(raw)} bytes)")
        if up.name.lower().endswith(".csv"):
            result = dl.from_csv(raw, base=ledger.get())
        else:
            result = dl.from_json(raw)
    except ValueError as exc:
        st.session_state[_MSG] = ("error", f"Nothing was imported; the ledger is unchanged. {ledger.escape(str(exc))}")
        return
    new = result.ledger
    note = ""
    eps, dlt = _nearest("beps", new.epsilon), _nearest("bdelta", new.delta)
    for field, value, stop, key in (
        ("budget.epsilon", new.epsilon, eps, "beps"),
        ("budget.delta", new.delta, dlt, "bdelta"),
    ):
        if not math.isclose(stop, value, rel_tol=1e-9):  # kept exactly or refused: a budget is never changed silently
            grid = catalogue.get(key).grid
            st.session_state[_MSG] = (
                "error",
                f"Nothing was imported; the ledger is unchanged. {field}: the file's "
                f"{number(value)} is not a budget this page can hold exactly (from {number(grid[0])} to "
                f"{number(grid[-1])} in the slider's steps; the nearest is {number(stop)}). Edit the file's "
                "budget to one of those values and import it again.",
            )
            return
    st.session_state["beps"], st.session_state["bdelta"], st.session_state["enforce"] = eps, dlt, new.enforce
    st.session_state[_SEEN] = (eps, dlt, new.enforce)
    ledger.replace(result)
    ledger.set_budget(eps, dlt, new.enforce)  # onto the sliders' stops (no change when it already is)
    kind = "warning" if result.refused else "success"
    st.session_state[_MSG] = (
        kind,
        f"Imported {len(new.releases)} release(s) from {ledger.escape(up.name[:80])}."
        + (f" {len(result.refused)} no longer fit and were refused (see the refusal log)." if result.refused else "")
        + note,
    )


def export_import(current: dl.Ledger) -> None:
    """5 · Export (JSON, CSV) and a validated import."""
    with ui.panel(
        "5 · Export and import",
        "JSON keeps the budget and the releases; CSV keeps the releases only (imported into the current budget). An "
        "import is replayed through the enforcing accountant: what no longer fits is listed as refused, never dropped "
        "silently, and a malformed file leaves the ledger as it was.",
    ):
        exports = (("JSON", current.to_json, "application/json"), ("CSV", current.to_csv, "text/csv"))
        for column, (kind, data, mime) in zip(st.columns(2), exports, strict=True):
            column.download_button(
                f"Export {kind}",
                data,
                file_name=f"privacy-ledger.{kind.lower()}",
                mime=mime,
                key=f"export_{kind.lower()}",
                on_click="ignore",
                icon=":material/download:",
            )
        st.file_uploader(
            f"Import a ledger (JSON or CSV, at most {dl.MAX_BYTES // 1024} KiB, {dl.MAX_RELEASES} releases)",
            type=["json", "csv"],
            key="upload",
            on_change=_import,
            max_upload_size=1,
        )
        if (msg := st.session_state.pop(_MSG, None)) is not None:
            {"error": st.error, "warning": st.warning, "success": st.success}[msg[0]](msg[1])
