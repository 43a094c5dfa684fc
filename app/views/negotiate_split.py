"""The negotiate page's "several statistics at once" panel: a list of requirements, the split that meets all of them
at the smallest total ε, and the reasoning (numbers from :mod:`app.compute.negotiate_words`)."""

from __future__ import annotations

import base64
import binascii
import json
import math

import pandas as pd
import streamlit as st

from app import background, params, ui
from app.compute import negotiate_words as words
from dpcore import negotiate_split as _split

EDITOR_KEY = "split-editor"
#: The address key of the visitor's list (a share link and the report's link reopen it).
LINK_KEY = "stats"
_START_KEY = "split-start"  # the editor's starting rows for this page visit (the example or the link's list)
_FROM_LINK = "split-from-link"
_LINK_CHARS = 4000  # a link's list longer than this is refused (a list of the most statistics is ~1,500)
_COLUMNS = {
    "statistic": "name",
    "kind": "kind",
    "within ±": "bound",
    "confidence %": "confidence",
    "lowest value": "lower",
    "highest value": "upper",
    "rows": "rows",
}


def _start() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "statistic": r.name,
                "kind": r.kind,
                "within ±": r.bound,
                "confidence %": 100 * r.confidence,
                "lowest value": r.lower if r.kind != "counts" else None,
                "highest value": r.upper if r.kind != "counts" else None,
                "rows": r.rows if r.kind == "mean" else None,
            }
            for r in words.EXAMPLE_ROWS
        ]
    )


def encode(table: pd.DataFrame) -> str:
    """The editor's rows as one address value (URL-safe base64 of a compact JSON list, one list per row)."""
    rows = [
        [None if isinstance(v, float) and math.isnan(v) else v for v in (r.get(c) for c in _COLUMNS)]
        for r in table.to_dict("records")
    ]
    raw = json.dumps(rows, separators=(",", ":"), ensure_ascii=False, default=str).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(value: str) -> pd.DataFrame:
    """The rows an address value names (:func:`encode`); ``ValueError`` if it is not such a list."""
    if len(value) > _LINK_CHARS:
        raise ValueError("it is too long")
    try:
        rows = json.loads(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
    except (binascii.Error, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError("it is not a list of statistics this page wrote") from exc
    ok = (
        isinstance(rows, list)
        and 0 < len(rows) <= 2 * _split.MAX_STATISTICS
        and all(
            isinstance(r, list)
            and len(r) == len(_COLUMNS)
            and all(v is None or isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in r)
            and (r[1] in words.KINDS)
            and (r[0] is None or isinstance(r[0], str) and len(r[0]) <= 80)
            for r in rows
        )
    )
    if not ok:
        raise ValueError("it is not a list of statistics this page wrote")
    return pd.DataFrame([dict(zip(_COLUMNS, r, strict=True)) for r in rows]).astype(
        {c: "float64" for c in list(_COLUMNS)[2:]}
    )


def _starting_rows() -> pd.DataFrame:
    """The list the editor starts from on this page visit: the link's (checked), else the example."""
    start = st.session_state.get(_START_KEY)
    if start is None:
        start, raw = _start(), params.first_look(LINK_KEY)
        if raw:
            try:
                start = decode(raw)
                st.session_state[_FROM_LINK] = True
            except ValueError as exc:
                params.report_problem(
                    f"The link's list of statistics could not be read ({exc}): showing the example list."
                )
        st.session_state[_START_KEY] = start
    return start


def parse(table: pd.DataFrame, sens: float) -> tuple[tuple[words.StatRow, ...], list[str]]:
    """The editor's rows as requirements, and one message per row that cannot be used (naming the row)."""
    rows, problems = [], []
    for i, r in enumerate(table.to_dict("records"), start=1):
        name = str(r.get("statistic") or "").strip()
        if not name and all(
            v is None or (isinstance(v, float) and math.isnan(v)) for k, v in r.items() if k != "statistic"
        ):
            continue  # an empty row
        kind = r.get("kind") or "counts"
        try:
            bound = float(r.get("within ±"))
            conf = float(r.get("confidence %")) / 100
            if not (bound > 0 and math.isfinite(bound)):
                raise ValueError("within ± must be a number above 0")
            if not 0 < conf < 1:
                raise ValueError("confidence % must be between 0 and 100")
            if kind == "counts":
                rows.append(words.StatRow(name or f"statistic {i}", kind, bound, conf, sensitivity=sens))
                continue
            lo, hi = float(r.get("lowest value")), float(r.get("highest value"))
            if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
                raise ValueError("the lowest value must be below the highest")
            n = 1
            if kind == "mean":
                n = int(float(r.get("rows")))
                if n < 1:
                    raise ValueError("a mean needs the number of rows (known without the data), at least 1")
            rows.append(words.StatRow(name or f"statistic {i}", kind, bound, conf, lo, hi, n))
        except (TypeError, ValueError) as exc:
            msg = str(exc) if "must" in str(exc) or "needs" in str(exc) else "a number is missing"
            problems.append(f"Row {i} ({name or 'no name'}): {msg}.")
    return tuple(rows), problems


def edited() -> bool:
    """The visitor changed the list (the example alone is an illustration: it goes into neither the report nor the
    script)."""
    state = st.session_state.get(EDITOR_KEY) or {}
    return bool(st.session_state.get(_FROM_LINK)) or any(
        state.get(k) for k in ("edited_rows", "added_rows", "deleted_rows")
    )


def several(sens: float, delta: float) -> tuple[tuple[words.StatRow, ...], _split.Split | None]:
    """6 · Several statistics at once."""
    rows: tuple[words.StatRow, ...] = ()
    result: _split.Split | None = None
    with ui.panel(
        "6 · Several statistics at once",
        "list what must be accurate; the split gives each statistic the most noise its accuracy allows, then picks "
        "the noise whose releases add up to the smallest total ε.",
    ):
        table = st.data_editor(
            _starting_rows(),
            key=EDITOR_KEY,
            num_rows="dynamic",
            hide_index=True,
            width="stretch",
            column_config={
                "statistic": st.column_config.TextColumn(required=True, width="medium"),
                "kind": st.column_config.SelectboxColumn(
                    options=list(words.KINDS),
                    required=True,
                    help="counts per category, a bounded sum or a bounded mean",
                ),
                "within ±": st.column_config.NumberColumn(min_value=0.0, help="the error bound θ"),
                "confidence %": st.column_config.NumberColumn(min_value=1.0, max_value=99.999),
                "lowest value": st.column_config.NumberColumn(help="a sum or a mean: values are clipped to this"),
                "highest value": st.column_config.NumberColumn(help="a sum or a mean: values are clipped to this"),
                "rows": st.column_config.NumberColumn(
                    min_value=1, step=1, help="a mean: the number of rows, known without the data"
                ),
            },
        )
        rows, problems = parse(table, sens)
        params.page_value(LINK_KEY, encode(table) if edited() else None)  # a share link reopens the visitor's list
        for p in problems:
            st.error(p)
        if problems or not rows:
            return rows, None
        if len(rows) > _split.MAX_STATISTICS:
            st.error(f"At most {_split.MAX_STATISTICS} statistics at once.")
            return rows, None
        result = background.result(words.split, rows, delta, slot="split", label="Splitting the budget")
        if result is None:
            return rows, None
        best = result.best
        together = "Both together" if len(rows) == 2 else f"All {len(rows)} together"
        st.markdown(f"**{together}: {words.split_total(best)}.**")
        st.dataframe(words.split_table(result), hide_index=True, width="stretch", key="split-table")
        st.markdown("\n".join(f"- {line}" for line in result.reasoning))
        st.caption(
            "Counts use the sidebar's Δ; a sum's Δ is its widest bound, a mean's that over its rows. "
            + (
                "The report and the script below carry this split."
                if edited()
                else "This is an example: edit the list to make it yours, and the report and the script below "
                "carry the split."
            )
        )
    return rows, result
