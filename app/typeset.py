"""Maths typeset on screen: every text the app hands Streamlit (``e^ε`` → $e^{ε}$), and tables in words (column
names, cells and numbers as people write them; a short table drawn plainly in presentation mode)."""

from __future__ import annotations

import functools
import re
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from app import notation
from app.compute._cache import cached_resource
from app.links import presenting

#: Streamlit calls whose text (first argument, ``body``/``label``, and ``help``) is typeset by ``app.notation.tex``.
#: Tab labels too; tables get Unicode scripts in their column names (``app.notation.plain``).
_TEXT_CALLS = (
    "markdown",
    "caption",
    "title",
    "header",
    "subheader",
    "info",
    "warning",
    "error",
    "success",
    "metric",
    "button",
    "download_button",
    "link_button",
    "page_link",
    "popover",
    "expander",
    "select_slider",
    "radio",
    "toggle",
    "number_input",
    "selectbox",
    "checkbox",
    "text_input",
    "multiselect",
    "form_submit_button",
)
_TYPESET = "_dpx_typeset"
_tex = cached_resource(max_entries=4096)(notation.tex)  # a page run typesets the same hundred texts as the last one


def _typeset_call(name: str, fn):
    @functools.wraps(fn)
    def call(self, *args, **kw):
        if name == "tabs":
            labels = kw.pop("tabs", args[0] if args else [])
            return fn(self, [_tex(str(t)) for t in labels], *args[1:], **kw)
        if name in ("dataframe", "table"):
            data = kw.pop("data", args[0] if args else None)
            worded = data if isinstance(data, Worded) else None
            if worded is not None:
                data = worded.frame
            if isinstance(data, pd.DataFrame):
                data = _cells_in_words(data.rename(columns=column_words))
            if isinstance(kw.get("column_config"), dict):
                kw["column_config"] = {column_words(k): _label_in_words(v) for k, v in kw["column_config"].items()}
            words = worded.formats(kw) if worded is not None else {}
            if name == "dataframe" and not args[1:] and presenting():
                static = static_table(data, kw, words)
                if static is not None:
                    return DeltaGenerator.table(self, static, hide_index=kw.get("hide_index"))
            if words:
                data = data.style.format(words)
            return fn(self, data, *args[1:], **kw)
        if args and isinstance(args[0], str):
            args = (_tex(args[0]), *args[1:])
        for key in ("body", "label"):
            if isinstance(kw.get(key), str):
                kw[key] = _tex(kw[key])
        if isinstance(kw.get("help"), str):
            kw["help"] = _tex(kw["help"])
        return fn(self, *args, **kw)

    setattr(call, _TYPESET, True)
    return call


#: Table columns that compute functions name for code, in the words a reader sees.
COLUMN_WORDS: dict[str, str] = {
    "true_count": "true count y",
    "epsilon_max": "highest level ε_max",
    "epsilon_stop": "level where it stopped",
    "rho_spent": "zCDP ρ spent",
    "bm_cost": "cost, noise reduction",
    "bm_cost_se": "± (noise reduction)",
    "bm_precision": "precision, noise reduction",
    "doubling_cost": "cost, doubling",
    "doubling_cost_se": "± (doubling)",
    "doubling_precision": "precision, doubling",
    "results_mean": "counts released (mean)",
    "results_sd": "counts released (sd)",
    "precision_mean": "precision (mean)",
    "precision_sd": "precision (sd)",
    "paper_results": "paper: counts released",
    "paper_precision": "paper: precision",
    "abs_error": "error of r̄^op",
    "n_bins": "bins",
    "r_op_numeric": "r̄^op (numerical)",
    "rms_error_p": "RMS error of p̄",
    "runtime_ms": "runtime (ms)",
    "ε_y": "kernel's ε",
    "σ_E": "σ of the error",
    "σ_y": "σ of the kernel",
    "ε_G": "person's budget",
}


def column_words(column: object) -> object:
    """A table column as a reader sees it: known code names in words, maths in Unicode scripts (``rᵒᵖ``), and any
    other ``snake_case`` name with spaces."""
    if not isinstance(column, str):
        return column
    text = COLUMN_WORDS.get(column, column)
    if re.fullmatch(r"[a-z]+(_[a-z0-9]+)+", text):
        text = text.replace("_", " ")
    return notation.plain(text)


#: In presentation mode a table of at most this many rows is drawn as a plain HTML table (``st.table``) instead of
#: the interactive data grid: the grid paints a canvas, which the presentation stylesheet can only zoom, and under CSS
#: zoom it leaves cells blank; an HTML table takes the enlarged type like the prose.
PRESENT_TABLE_ROWS = 40


@dataclass(frozen=True)
class Worded:
    """A table for ``st.dataframe`` whose named columns read as people write numbers (10⁻⁵, not 1e-05; "—" where a
    cell does not apply) while the cells keep their numbers, so a click on a column's header sorts by value.

    ``digits`` gives each such column's significant figures. The grid shows a Styler's texts only in number columns
    without a format of their own, so the column's configured format (if any) is set aside.
    """

    frame: pd.DataFrame
    digits: Mapping[str, int]

    def formats(self, kw: dict[str, Any]) -> dict[str, Callable[[object], str]]:
        """The texts of the worded columns (by their shown names); ``kw``'s column config loses their formats."""
        config = kw["column_config"] = dict(kw.get("column_config") or {})
        out = {}
        for col, digits in self.digits.items():
            if col not in self.frame:
                continue
            shown = column_words(col)
            out[shown] = functools.partial(_number_or_dash, digits=digits)
            cfg = config.get(shown)
            label = cfg if isinstance(cfg, str) else (cfg or {}).get("label")
            help_ = None if isinstance(cfg, str) else (cfg or {}).get("help")
            config[shown] = st.column_config.NumberColumn(label, help=help_)
        return out


def _number_or_dash(value: object, digits: int) -> str:
    return "—" if pd.isna(value) else notation.number(float(value), digits)


def static_table(
    data: object, kw: Mapping[str, Any], words: Mapping[str, Callable[[object], str]] | None = None
) -> Any:
    """What ``st.table`` should draw for ``st.dataframe(data, **kw)`` (a pandas Styler with the columns' number
    formats, labels and hidden columns applied), or None when the table needs the grid (too long, or selectable).
    A link column shows the site each link points to (a projected table is read, not clicked); ``words`` are the
    texts of a :class:`Worded` table's columns."""
    if (
        not isinstance(data, pd.DataFrame)
        or len(data) > PRESENT_TABLE_ROWS
        or kw.get("on_select", "ignore") != "ignore"
    ):
        return None
    config = kw.get("column_config") or {}
    columns = list(kw.get("column_order") or data.columns)
    labels, formats = {}, {}
    for col, cfg in config.items():
        if cfg is None:  # the dataframe hides this column
            columns = [c for c in columns if c != col]
        elif isinstance(cfg, str):
            labels[col] = cfg
        elif isinstance(cfg, Mapping):
            kind = (cfg.get("type_config") or {}).get("type")
            if kind == "link":
                formats[col] = _site
            if cfg.get("label"):
                labels[col] = cfg["label"]
            fmt = (cfg.get("type_config") or {}).get("format")
            if kind == "number" and isinstance(fmt, str) and "%" in fmt:
                formats[col] = fmt
    formats |= words or {}
    df = data[[c for c in columns if c in data.columns]]
    shown = {}
    for col in df.columns:
        if callable(formats.get(col)):
            shown[col] = formats[col]
        elif col in formats:
            shown[col] = functools.partial(_printf, formats[col])
        elif pd.api.types.is_float_dtype(df[col]):
            shown[col] = functools.partial(notation.number, digits=4)
    return df.style.format(shown, na_rep="–").relabel_index([labels.get(c, c) for c in df.columns], axis="columns")


def _printf(fmt: str, value: float) -> str:
    return fmt % value


def _site(url: object) -> str:
    """The site a link points to ("census.gov"), for a link column drawn as text."""
    host = urllib.parse.urlparse(str(url)).netloc
    return host.removeprefix("www.") or str(url)


#: Tables up to this many rows have the maths in their text cells written with Unicode scripts (``ε_max`` → ``εₘₐₓ``).
TYPESET_CELLS_ROWS = 500


def _cells_in_words(data: pd.DataFrame) -> pd.DataFrame:
    """Text cells with plainly written maths (``ε_T``, ``r^op``) in Unicode scripts, as the column names are, and
    numbers written ``1e-05`` as 10⁻⁵ (the ledger's reasons come from ``dpcore``)."""
    if len(data) > TYPESET_CELLS_ROWS:
        return data
    changed = {}
    for c in data.columns:
        if data[c].dtype != object and not pd.api.types.is_string_dtype(data[c]):
            continue
        cells = data[c].tolist()
        shown = [_cell_in_words(v) for v in cells]
        if shown != cells:
            changed[c] = shown
    if not changed:  # most tables: nothing to rewrite, no copy (this runs on every table of every rerun)
        return data
    out = data.copy()
    for c, shown in changed.items():
        out[c] = pd.Series(shown, index=out.index, dtype=out[c].dtype)
    return out


@cached_resource(max_entries=4096)
def _text_in_words(text: str) -> str:
    return notation.plain(notation.numbers_in(text))


#: A text cell that is a code name (``noise_reduction``), written with spaces; one-letter parts are maths (``r_op``).
_CODE_NAME = re.compile(r"[a-z]{2,}(?:_[a-z0-9]{2,})+")


def _cell_in_words(v: object) -> object:
    if not isinstance(v, str) or v.startswith("http"):
        return v
    return _text_in_words(v.replace("_", " ") if _CODE_NAME.fullmatch(v) else v)


def _label_in_words(config: object) -> object:
    """A column's configured label in words, like the column names (``ε_max`` → ``εₘₐₓ``)."""
    if isinstance(config, str):
        return column_words(config)
    if isinstance(config, Mapping) and isinstance(config.get("label"), str):
        return {**config, "label": column_words(config["label"])}
    return config


def typeset_streamlit() -> None:
    """Typeset the maths in every text the app hands Streamlit (``e^ε`` → $e^{ε}$): pages write maths plainly.

    Wraps the text-taking methods of Streamlit's ``DeltaGenerator`` (``st.sidebar.metric``, ``cols[0].caption`` …)
    and the module-level ``st.*`` shortcuts bound to the main area. Idempotent.
    """
    for name in (*_TEXT_CALLS, "tabs", "dataframe", "table"):
        fn = getattr(DeltaGenerator, name)
        if getattr(fn, _TYPESET, False):
            continue
        wrapped = _typeset_call(name, fn)
        setattr(DeltaGenerator, name, wrapped)
        bound = getattr(st, name, None)
        if bound is not None and getattr(bound, "__self__", None) is not None:
            setattr(st, name, wrapped.__get__(bound.__self__))
