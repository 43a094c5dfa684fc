"""Small layout helpers shared by every page: headers, "what to notice" captions, guarded panels, chart + CSV."""

from __future__ import annotations

import base64
import html
import os
import re
import threading
import urllib.parse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import notation, params, registry
from app.compute._cache import cached_resource
from app.figures import screen, style
from app.links import presenting
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
from app.typeset import (  # noqa: F401 — the typesetting, used by the pages and app/main.py as ui.*
    Worded,
    column_words,
    typeset_streamlit,
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
    link = lesson_link(lesson, params.current_values()) if lesson and not presenting() else None
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


def _chart_css(ink: str, label_background: str | None = None) -> str:
    box = '[data-testid="stPlotlyChart"]'
    text = ", ".join(
        f"{box} {sel}"
        for sel in (
            # every axis's tick labels and title: Plotly names them by axis ("xtick", "y2tick", "g-x2title"), and a
            # second panel's axes were left in Streamlit's pale grey
            'g[class$="tick"] > text',
            'g[class^="g-x"][class$="title"] text',
            'g[class^="g-y"][class$="title"] text',
            ".gtitle",
            ".legendtext",
            ".legendtitletext",
            ".cbaxis text",
            ".slider-container text",
            ".updatemenu-item-text",
        )
    )
    # a marker line's label sits on the page's background (app.figures.style.LABEL_BACKGROUND), drawn for a white page
    # and a note drawn as text (an in-figure slider's deck, app.figures.overlay) has a halo Plotly draws in the
    # contrast of its grey ink, white: on a dark page it is a white smear, so it takes the page's colour there
    halo = ", ".join(f"{x}px {y}px 1px {label_background}" for x, y in ((1, 1), (-1, -1), (1, -1), (-1, 1)))
    face, grip = style.DARK_CONTROL["face"], style.DARK_CONTROL["grip"]
    labels = (
        f'{box} .annotation [style*="fill: rgb(255, 255, 255)"] {{ fill: {label_background} !important; }}\n'
        f'{box} .textpoint text[style*="text-shadow"] {{ text-shadow: {halo} !important; }}\n'
        # an in-figure slider and its play button: Plotly's near-white face would be a bright bar on a dark page
        f"{box} .slider-rail-rect, {box} .updatemenu-item-rect {{ fill: {face} !important; }}\n"
        f"{box} .slider-grip-rect, {box} .updatemenu-button:hover .updatemenu-item-rect "
        f"{{ fill: {grip} !important; }}\n"
        f"{box} .slider-tick-rect {{ fill: {ink} !important; }}\n"
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
        _chart_css(screen.INK["light"])
        .replace('[style*="fill: rgb(0, 0, 0)"]', "[data-dpx-never]")
        .replace('[style*="stroke: rgb(0, 0, 0)"]', "[data-dpx-never]")
    )
    dark = _chart_css(screen.INK["dark"], label_background="rgb(23, 22, 20)")  # Streamlit's dark page
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
/* a number's name is never cut short with "…" in a narrow column: it wraps onto a second line */
[data-testid="stMetricLabel"] [data-testid="stMarkdownContainer"],
[data-testid="stMetricLabel"] [data-testid="stMarkdownContainer"] p { white-space: normal; overflow: visible; }
/* a slider's value in the text colour, not the accent: legible on the dark theme's background too */
[data-testid="stMain"] [data-testid="stSliderThumbValue"],
[data-testid="stSidebar"] [data-testid="stSliderThumbValue"] { color: inherit; }
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
    every rerun either. Presentation mode enlarges the chart's text (``app.figures.screen.for_screen``); the theme's
    colours come from ``app_style``. A chart with an in-figure slider is noted for ``app.instant``.
    """
    if not shown():  # in a panel drawn as its title only (presenting another panel): nothing to draw
        return
    slug = _slug(name)
    sliders = fig.layout.sliders
    if sliders and sliders[0].name:  # an in-figure slider: its browser side is drawn after the page (app.instant)
        st.session_state.setdefault(IN_FIGURE_SLIDERS, {})[str(sliders[0].name)] = True
    if presenting():  # on a copy: a memoised figure is shared by every session of the process
        fig = screen.for_screen(go.Figure(fig), theme=None, present=True)
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
    left, right = st.columns(2, vertical_alignment="bottom")  # the longer name may wrap: the numbers stay level
    left.metric(f"{label} — paper's accountant", show(paper), help=help)
    right.metric(f"{label} — exact", show(exact))
    if worse:
        ratio = exact / paper if paper > 0 else float("inf")
        st.warning(
            f"The paper under-reports the privacy loss here: the exact {label} is {show(exact)}, the paper "
            f"prints {show(paper)} ({notation.times(ratio)} too small). The app's defaults use the exact value.",
            icon=":material/warning:",
        )
