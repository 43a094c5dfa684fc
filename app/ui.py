"""Small layout helpers shared by every page: headers, "what to notice" captions, guarded panels, chart + CSV."""

from __future__ import annotations

import base64
import functools
import html
import os
import re
import threading
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from app import notation, params, registry
from app.compute._cache import cached_resource
from app.figures import style
from app.panels import (  # noqa: F401 — the panel helpers, used by every page as ui.*
    PANEL_KEY,
    PANEL_PREFIX,
    STEP_NAV_KEY,
    drawn_panels,
    new_run,
    notice,
    panel,
    show_error,
    shown,
    step_slot,
)

#: The app's images (the favicon).
ASSETS = Path(__file__).resolve().parent.parent / "assets"


@cached_resource
def favicon() -> str:
    """The app's icon as a data address, read once per process: given a file, Streamlit would open and store the
    image again on every run of every session."""
    return "data:image/png;base64," + base64.b64encode((ASSETS / "favicon.png").read_bytes()).decode("ascii")


#: Environment variable naming where the marimo lessons are served (``make notebooks`` / ``make lesson``), e.g.
#: ``http://127.0.0.1:2718``; without it the pages do not link to the lessons (a reader could not open them).
LESSONS_URL_ENV = "DPX_LESSONS_URL"


#: Address keys that belong to the app, not to a lesson's settings.
_NOT_LESSON_KEYS = frozenset(
    {"seq", "step", "present", "embed", "embed_options", "ledger", "part", "tab", "figs", "view"}
)


def lesson_url(lesson: str, settings: Mapping[str, str] | None = None) -> str | None:
    """The address of the lesson notebook ``notebooks/<lesson>.py`` where the lessons are served, with the page's
    current settings (``&eps=2``: the lesson's controls start there), or None where no lessons are served."""
    base = os.environ.get(LESSONS_URL_ENV, "").strip().rstrip("/")
    if not base:
        return None
    query = {"file": f"{lesson}.py"} | {k: v for k, v in (settings or {}).items() if k not in _NOT_LESSON_KEYS}
    return f"{base}/?" + urllib.parse.urlencode(query, quote_via=urllib.parse.quote, safe="")


def lesson_link(lesson: str, settings: Mapping[str, str] | None = None) -> str | None:
    """Markdown pointing to the page's lesson with the page's settings, where the lessons are served."""
    url = lesson_url(lesson, settings)
    return f":material/menu_book: [Open the lesson for this page]({url})" if url else None


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
            if name == "dataframe" and not args[1:] and _presenting():
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


def _cell_in_words(v: object) -> object:
    return _text_in_words(v) if isinstance(v, str) and not v.startswith("http") else v


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


def header(title: str, intro: str, *, lesson: str | None = None) -> None:
    """Page title, one plain-language paragraph that states the idea, and a link to the page's lesson (its record's,
    ``app.registry.PageInfo.lesson``, unless ``lesson`` names another).

    URL problems are shown above it by app/main.py.
    """
    info = registry.page(str(st.session_state.get("_page", ""))) if lesson is None else None
    lesson = info.lesson if info is not None else lesson
    st.title(title)
    st.markdown(intro)
    # the projector follows the teacher; the link carries the controls the page drew (its sidebar runs first)
    link = lesson_link(lesson, params.current_values()) if lesson and not _presenting() else None
    if link:
        st.caption(link)


#: The container of the marked line between a paper page's newcomer layer and the paper in depth (the page element
#: gets the class ``st-key-dpx-paper-in-depth``; its heading's anchor is ``#the-paper-in-depth``).
IN_DEPTH_KEY = "dpx-paper-in-depth"
IN_DEPTH_TITLE = "The paper in depth"


def paper_in_depth(what: str) -> None:
    """The marked line between a paper page's newcomer layer (the idea, its picture and the few numbers that matter,
    each with what it means) and the paper's own material below it (its algorithms, theorems, accountants and
    figures at the reader's settings), which a newcomer may skip. ``what`` says in a sentence what follows."""
    with st.container(key=IN_DEPTH_KEY):
        st.divider()
        st.header(f":material/menu_book: {IN_DEPTH_TITLE}", anchor="the-paper-in-depth")
        st.markdown(f"{what} *Everything above stands on its own: on a first visit you may stop here.*")


def show_url_problems() -> None:
    """Show, with ``st.error``, each invalid value the page's link carried (the control fell back to its default)."""
    for message in params.take_url_problems():
        st.error(message, icon=":material/link_off:")
    for message in params.take_url_notes():
        st.info(message, icon=":material/straighten:")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _theme() -> str | None:
    """The browser's theme ("light" / "dark"), or None before the browser has reported it."""
    try:
        kind = st.context.theme.type
    except Exception:  # noqa: BLE001 — no browser (AppTest, a lesson): keep the figure as built
        return None
    return kind if kind in ("light", "dark") else None


def presenting() -> bool:
    """Presentation mode is on (what the class sees is projected)."""
    return _presenting()


def _presenting() -> bool:
    """Presentation mode: the toggle's value, or on a page's first run (the toggle is drawn after the page) the
    link's."""
    if "present" in st.session_state:
        return bool(st.session_state["present"])
    return str(st.query_params.get("present", "")).strip().lower() == "true"


def _chart_css(ink: str, label_background: str | None = None) -> str:
    box = '[data-testid="stPlotlyChart"]'
    text = ", ".join(
        f"{box} {sel}"
        for sel in (
            ".xtick text",
            ".ytick text",
            ".g-xtitle text",
            ".g-ytitle text",
            ".gtitle",
            ".legendtext",
            ".legendtitletext",
            ".cbaxis text",
            ".slider-container text",
            ".updatemenu-item-text",
        )
    )
    # a marker line's label sits on the page's background (app.figures.style.LABEL_BACKGROUND), drawn for a white page
    labels = (
        f'{box} .annotation [style*="fill: rgb(255, 255, 255)"] {{ fill: {label_background} !important; }}\n'
        if label_background
        else ""
    )
    return (
        f"{text} {{ fill: {ink} !important; }}\n"
        f'{box} [style*="fill: rgb(0, 0, 0)"] {{ fill: {ink} !important; }}\n'
        f'{box} [style*="stroke: rgb(0, 0, 0)"] {{ stroke: {ink} !important; }}\n' + labels
    )


@cached_resource
def _stylesheet(theme: str | None) -> str:
    """The ``<style>`` element of :func:`app_style` for a theme (None: not known yet), written once per process."""
    light = (
        _chart_css(style.INK["light"])
        .replace('[style*="fill: rgb(0, 0, 0)"]', "[data-dpx-never]")
        .replace('[style*="stroke: rgb(0, 0, 0)"]', "[data-dpx-never]")
    )
    dark = _chart_css(style.INK["dark"], label_background="rgb(14, 17, 23)")  # Streamlit's dark page
    if theme == "dark":
        charts = dark
    elif theme == "light":
        charts = light
    else:
        charts = light + "@media (prefers-color-scheme: dark) {\n" + dark + "}\n"
    return f"<style>\n{charts}{_BASE_CSS}</style>"


def app_style(page: str = "") -> None:
    """The app-wide stylesheet (fixed text, never user input): chart text in the theme's text colour (Streamlit's
    light-theme tick grey is 3.7:1 on white), black chart marks drawn light on a dark page, captions ≥ 4.5:1, and
    a "Settings" pointer on narrow screens where the sidebar is hidden. Before the browser has said which theme it
    shows, the system preference decides (Streamlit's own default)."""
    st.html(_stylesheet(_theme()))
    # the page's name makes the script new on every page, so the browser runs it again there (scroll to the top)
    st.html(_SIDEBAR_JS.replace("<script>", f"<script>/* {html.escape(page)} */", 1), unsafe_allow_javascript=True)
    if page in _OWN_CONTROLS:  # the controls are beside the picture; the sidebar holds only a table of contents
        return
    st.html(
        '<p class="dpx-phone-only"><button type="button" class="dpx-open-settings">⚙️ Open the settings</button> '
        "The controls open over the page; close them with <b>«</b> to see the result.</p>"
    )


#: Pages whose controls are drawn in the page itself (no phone pointer to the sidebar's settings).
_OWN_CONTROLS = frozenset({"course"})


#: The sidebar scrolls when its controls are taller than the screen: a keyboard user must be able to focus it to
#: scroll it (axe-core "scrollable-region-focusable"), and it is named as the page's settings.
_SIDEBAR_JS = """<script>
(() => {
  const side = window.parent.document.querySelector('[data-testid="stSidebarContent"]')
    || document.querySelector('[data-testid="stSidebarContent"]');
  if (side && !side.hasAttribute("tabindex")) {
    side.tabIndex = 0;
    side.setAttribute("role", "region");
    side.setAttribute("aria-label", "Menu and settings");
  }
  const doc = window.parent.document || document;
  // A link to another page opens it at its top (the browser would keep the previous page's scroll position).
  const path = (window.parent.location || window.location).pathname;
  if (doc.dpxLastPath !== undefined && doc.dpxLastPath !== path) {
    const landing = () => ((window.parent || window).dpxLanding || 0) > Date.now();  // a lesson step's panel
    const top = () => landing() || ['[data-testid="stMain"]', '[data-testid="stAppViewContainer"]'].forEach((sel) => {
      const el = doc.querySelector(sel);
      if (el) el.scrollTop = 0;
    });
    top();
    setTimeout(top, 300);
    setTimeout(top, 1000);
  }
  doc.dpxLastPath = path;
  // On a phone the sidebar is folded away: the main area's "Open the settings" button unfolds it.
  if (!doc.dpxSettingsButton) {
    doc.dpxSettingsButton = true;
    doc.addEventListener("click", (e) => {
      if (!e.target.closest || !e.target.closest(".dpx-open-settings")) return;
      const open = doc.querySelector('[data-testid="stExpandSidebarButton"]');
      if (!open) return;
      open.click();
      // Past the page menu, straight to the page's own controls, once the sidebar is open and drawn (a slow phone
      // or a rerun may take a while): look every 100 ms for up to 5 s, and scroll again once it has settled.
      let tries = 0, scrolled = 0;
      const toControls = () => {
        const bar = doc.querySelector('[data-testid="stSidebar"]');
        const heads = Array.from(doc.querySelectorAll('[data-testid="stSidebar"] h2'));
        const controls = heads.find((h) => h.textContent.trim().startsWith("Controls")) || heads[0];
        const shown = bar && bar.getBoundingClientRect().left > -2 && bar.getBoundingClientRect().width > 100;
        if (shown && controls) {  // slid fully into view (the sidebar slides in from the left)
          controls.scrollIntoView({block: "start"});
          if (++scrolled < 2) setTimeout(toControls, 400);
        } else if (++tries < 50) {
          setTimeout(toControls, 100);
        }
      };
      setTimeout(toControls, 100);
    });
  }
})();
</script>"""

_BASE_CSS = """
[data-testid="stSidebar"][aria-expanded="false"] { visibility: hidden; }
[class*="st-key-dpx-panel-"] { scroll-margin-top: 4rem; }
.st-key-dpx-step-agent, .st-key-dpx-lesson-keeper, .st-key-dpx-instant { display: none; }
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p { opacity: 1; }
[data-testid="stMain"] .dpx-phone-only { display: none; }
[data-testid="stPageLink"] p { white-space: normal; }
@media (max-width: 640px) {
  [data-testid="stMain"] .dpx-phone-only { display: block; }
  [data-testid="stMain"] .dpx-open-settings { min-height: 44px; padding: 0.4rem 0.9rem; margin-right: 0.5rem;
    font: inherit; font-weight: 600; color: inherit; background: transparent; cursor: pointer;
    border: 1px solid currentColor; border-radius: 0.5rem; }
  [data-testid="stMainBlockContainer"] { padding-left: 0.75rem; padding-right: 0.75rem; }
  [data-testid="stMain"] { overflow-x: hidden; }
  /* chart titles a size smaller: a title line of app.figures.style.TITLE_CHARS characters fits a phone-wide chart */
  [data-testid="stPlotlyChart"] .gtitle { font-size: 13px !important; }
  /* a chart's zoom and full-screen buttons would sit over its title; pinching zooms on a phone */
  [data-testid="stPlotlyChart"] .modebar-container,
  [data-testid="stElementContainer"]:has([data-testid="stPlotlyChart"]) [data-testid="stElementToolbar"] {
    display: none; }
}
"""


_LEAD = threading.local()  # this run's lead container (a page runs in its session's script thread)


def make_lead(wanted: bool) -> None:
    """Called by app/main.py before it draws the classroom strip and the phone's settings button: for a page with a
    lead (``PageInfo.lead``), make its container there, so the answer comes first on screen and also first for a
    screen reader and the keyboard."""
    _LEAD.slot = st.container(key="dpx-lead") if wanted else None


def lead() -> Any:
    """A container for what a page says first, its title and its answer, above the classroom strip (on a phone the
    settings button and the strip would fill the first screen and push the answer down). At most one a page."""
    slot = getattr(_LEAD, "slot", None)
    _LEAD.slot = None
    return slot if slot is not None else st.container(key="dpx-lead")


@cached_resource(max_entries=512)
def _memo_figure(build: Any, args: tuple, kwargs: tuple) -> Any:
    return build(*args, **dict(kwargs))


def memo_figure(build: Any, *args: Any, **kwargs: Any) -> Any:
    """``build(*args, **kwargs)``, remembered by its arguments for every session of the process: a chart at settings
    seen before is not built again (building the figures was a large part of a page run's CPU). The arguments must be
    hashable scalars, and ``build`` must depend on nothing else (the compute layer's seeded data and a figure builder).
    What it returns (a figure, a figure and the data it shows, or a table shown as it is) is shared: nobody may change
    it (:func:`chart` adapts a copy for presentation mode)."""
    return _memo_figure(build, args, tuple(sorted(kwargs.items())))


#: session_state: the address keys of the in-figure sliders (``app.figures.frames``) this run's charts carry.
IN_FIGURE_SLIDERS = "_instant_drawn"


def chart(fig: go.Figure, data: pd.DataFrame | Callable[[], pd.DataFrame], *, name: str, alt: str) -> None:
    """A Plotly chart with alt text and a button to download the data behind it as CSV.

    The CSV is built only when the button is clicked (``to_csv`` on every rerun would cost each chart time;
    bench/results-where-time-goes.md); ``data`` may be
    a function that returns the frame, so that a chart remembered by :func:`memo_figure` does not fetch its data on
    every rerun either. Presentation mode enlarges the chart's text (``app.figures.style.for_screen``); the theme's
    colours come from ``app_style``. A chart with an in-figure slider is noted for ``app.instant``.
    """
    if not shown():  # in a panel drawn as its title only (presenting another panel): nothing to draw
        return
    slug = _slug(name)
    sliders = fig.layout.sliders
    if sliders and sliders[0].name:  # an in-figure slider: its browser side is drawn after the page (app.instant)
        st.session_state.setdefault(IN_FIGURE_SLIDERS, {})[str(sliders[0].name)] = True
    if _presenting():  # on a copy: a memoised figure is shared by every session of the process
        fig = style.for_screen(go.Figure(fig), theme=None, present=True)
    st.plotly_chart(fig, key=f"chart-{slug}", alt=alt, config={"displaylogo": False})
    st.download_button(
        "Download the data (CSV)",
        lambda: (data() if callable(data) else data).to_csv(index=False).encode(),
        file_name=f"{slug}.csv",
        mime="text/csv",
        key=f"csv-{slug}",
        on_click="ignore",
        icon=":material/download:",
    )


def share_hint() -> None:
    """Remind the reader that the address bar always holds a link to exactly this view."""
    st.sidebar.caption(
        ":material/link: Every control is saved in the page address: copy the address bar to share this exact view."
    )


def paper_vs_exact(
    label: str,
    paper: float,
    exact: float,
    *,
    fmt: str | None = None,
    digits: int = 4,
    paper_underreports: bool | None = None,
    help: str | None = None,
) -> None:
    """The paper's number as printed beside the exact one, with a warning when the paper under-reports privacy loss.

    Both are written to ``digits`` significant figures as people write numbers (10⁻⁵, not 1e-05), or with the
    fixed format ``fmt`` ("{:.4f}"). ``paper_underreports`` defaults to ``exact > paper`` (for δ or ε, larger
    means more privacy loss).
    """

    def show(x: float) -> str:
        return fmt.format(x) if fmt is not None else notation.number(x, digits)

    worse = (exact > paper * (1 + 1e-9) + 1e-300) if paper_underreports is None else paper_underreports
    left, right = st.columns(2)
    left.metric(f"{label} — paper's accountant", show(paper), help=help)
    right.metric(f"{label} — exact", show(exact))
    if worse:
        ratio = exact / paper if paper > 0 else float("inf")
        st.warning(
            f"The paper under-reports the privacy loss here: the exact {label} is {show(exact)}, the paper "
            f"prints {show(paper)} ({notation.times(ratio)} too small). The app's defaults use the exact value.",
            icon=":material/warning:",
        )
