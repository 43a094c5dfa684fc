"""Classroom features drawn around every page by app/main.py: a "share this view" link, glossary popovers, a
presentation mode (larger type, sidebar collapsed, wider charts) and a few "Try this" exercises per page.

A page's glossary terms and exercises are in its record, ``app.registry.PageInfo`` (the words of each term in
``app.catalogue.GLOSSARY``); this module holds the renderers, and a page without content shows nothing. Numeric
answers are written out as text and listed in ``Exercise.numbers`` so tests/app/test_classroom.py can recompute each
one independently from ``dpcore``.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from typing import Any

import streamlit as st

from app import notation, params, presenting, registry, sequences, ui
from app.catalogue import GLOSSARY
from app.exercises import query_string as _query
from app.exercises.check import CLOSE, HINT, RIGHT, SOLVED, STRONGER, UNREADABLE, Check, Reply, Tries
from app.links import PRESENT_KEY, in_app_query

SEQ_KEY, STEP_KEY = "seq", "step"  # URL keys of a lesson sequence and its current view (app/sequences.py)
MY_LESSON = "_dpx_my_lesson"  # session state: the views a teacher added to their own lesson (survives page changes)

#: Environment variable naming the public address of the app (``https://dp.example.edu``): share links use it
#: instead of the address the server sees (``http://127.0.0.1:8501`` behind a proxy).
PUBLIC_URL_ENV = "DPX_PUBLIC_URL"


def share_url(base: str | None, url_path: str, query: Mapping[str, str]) -> str:
    """The full URL of the current view: the app's address (:func:`app_root`: ``DPX_PUBLIC_URL`` or the address the
    browser used, ``st.context.url``), the page's path, then every query parameter.

    Without a base (no browser, e.g. in AppTest) the URL is relative to the app root.
    """
    url = f"{app_root(base, url_path)}/{url_path}"  # the default page lives at the app root: /?eps=2
    return f"{url}?{_query(query)}" if query else url


def app_root(base: str | None, url_path: str) -> str:
    """The app's own address, without the current page's path: the public address (``DPX_PUBLIC_URL``) when set,
    else the page address the browser used (``st.context.url``) minus ``/<url_path>``; "" without either."""
    public = os.environ.get(PUBLIC_URL_ENV, "").strip()
    if public:
        return public.rstrip("/")
    root = (base or "").split("?", 1)[0].rstrip("/")
    if url_path and root.endswith("/" + url_path):
        root = root[: -len(url_path) - 1]
    return root


def lesson_url(root: str, lesson: sequences.Lesson, index: int = 0) -> str:
    """The link that opens view ``index + 1`` of ``lesson`` (its page and settings) under the app address ``root``."""
    return f"{root}/{lesson.steps[index].page}?{_query(sequences.view_query(lesson, index))}"


#: Presentation mode: a fixed stylesheet (never user text). Larger type and tables, no toolbar or menu, full-width
#: main area (charts are enlarged by app.ui.chart and the glossary strip is left out); the sidebar is
#: collapsed through st.set_page_config and its expand arrow stays visible so the controls remain one click away.
PRESENTATION_CSS = """
<style>
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 4rem 1.5rem 4rem; }
[data-testid="stMain"] h1 { font-size: 3.3rem; line-height: 1.1; padding: 0 0 0.25rem; }
[data-testid="stMain"] h2 { font-size: 2.1rem; padding: 0.25rem 0; }
[data-testid="stMain"] h3 { font-size: 2.1rem; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] li,
[data-testid="stMain"] .st-key-lesson-say [data-testid="stText"] { font-size: 1.45rem; line-height: 1.5; }
[data-testid="stMain"] [data-testid="stCaptionContainer"] p { font-size: 1.2rem; }
[data-testid="stMain"] [data-testid="stElementContainer"]:has(h1) ~ [data-testid="stElementContainer"] p {
  font-size: 1.25rem; line-height: 1.4; }
[data-testid="stMain"] [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p { font-size: 3rem; }
[data-testid="stMain"] [data-testid="stMetricLabel"] p { font-size: 1.25rem; }
[data-testid="stMain"] [data-testid="stPlotlyChart"] { width: 100%; }
[data-testid="stMain"] [data-testid="stPopover"] [data-testid="stMarkdownContainer"] p { font-size: 1.1rem; }
[data-testid="stMain"] [data-testid="stTable"] td, [data-testid="stMain"] [data-testid="stTable"] th,
[data-testid="stMain"] table td, [data-testid="stMain"] table th { font-size: 1.3rem; }
[data-testid="stMain"] [data-testid="stDataFrame"] { zoom: 1.4; width: calc(100% / 1.4) !important;
  max-width: calc(100% / 1.4) !important; }
[data-testid="stMain"] [data-testid="stDataFrame"] > div { max-width: 100% !important; }
[data-testid="stMain"] [data-testid="stExpander"] summary p,
[data-testid="stMain"] [data-testid="stTab"] p, [data-testid="stMain"] a p { font-size: 1.3rem; }
[data-testid="stToolbarActions"], [data-testid="stMainMenu"], [data-testid="stDecoration"] { display: none; }
[data-testid="stMain"] [data-testid="stElementContainer"]:has(> [data-testid="stDownloadButton"]) { display: none; }
[data-testid="stMain"] .st-key-lesson-strip { position: fixed; top: 0.6rem; left: 50%; transform: translateX(-50%);
  z-index: 999991; width: auto; }
[data-testid="stMain"] .st-key-lesson-strip p { font-size: 1.05rem !important; white-space: nowrap; }
[data-testid="stMain"] [data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > script:only-child),
[data-testid="stMain"] [data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > .dpx-phone-only:only-child),
[data-testid="stMain"] [data-testid="stLayoutWrapper"]:has(> [data-testid="stVerticalBlock"]
  > .st-key-dpx-lesson-keeper) { margin-bottom: -1rem; }
</style>
"""


def current_query() -> dict[str, str]:
    """The query of the current view: every control the page drew, with its current value (see app.params)."""
    return params.current_values()


def shareable_query(url_path: str) -> dict[str, str]:
    """The current view's query as a link to it may carry it: a ledger's id is a write capability, so a link from
    any page but the ledger's own (a shared view, a forwarded report) leaves it out; a class poll's teacher link
    (``poll``) never goes into one (the projected page shows the join link instead)."""
    query = current_query()
    if url_path != "ledger":
        query.pop("ledger", None)
    query.pop("poll", None)
    return query


def _answering_a_poll(url_path: str) -> bool:
    """A phone answering a class poll (``/poll?join=…``): it sees the question and two buttons, no classroom tools."""
    return url_path == "poll" and bool(st.query_params.get("join"))


#: Keys of the strip's popovers and the exercises' answers: each is drawn only while open (its key holds whether it
#: is), so a slider move does not send their contents.
SHARE_KEY, MY_LESSON_KEY = "_dpx_share_open", "_dpx_lesson_open"


def term_key(term: str) -> str:
    """The key of a glossary term's popover in the strip."""
    return "_dpx_term_" + "".join(c if c.isalnum() else "_" for c in term)


def answer_key(i: int) -> str:
    """The key of the ``i``-th exercise's answer (counted from 1)."""
    return f"_dpx_answer_{i}"


def _share(popover: Any, url_path: str) -> None:
    query = shareable_query(url_path)
    url = share_url(st.context.url, url_path, query)
    with popover:
        st.markdown(
            "This link restores every control on this page. Select it and copy it (Ctrl+C / ⌘C), or use "
            "the **copy** button at the right of the box:"
        )
        st.code(url, language=None, wrap_lines=True)


#: The copy button of a code block is shown only on hover in Streamlit; in the share box it is always visible.
_SHARE_CSS = """
<style>
[data-testid="stPopoverBody"] [data-testid="stCode"] > div:has([data-testid="stElementToolbarButton"]),
[data-testid="stPopoverBody"] [data-testid="stCode"] > div:has([data-testid="stElementToolbarButton"]) * {
  opacity: 1 !important; visibility: visible !important; }
</style>
"""


def _page_link(
    pages: Mapping[str, Any] | None,
    url_path: str,
    label: str,
    query: Mapping[str, str],
    icon: str | None = None,
    disabled: bool = False,
) -> None:
    """A same-tab link to another app page with ``query`` (an ordinary link when the page objects are unknown)."""
    if pages and url_path in pages:
        st.page_link(pages[url_path], label=label, icon=icon, query_params=dict(query), disabled=disabled)
    elif not disabled:
        st.markdown(f"[{label}](./{url_path}?{_query(query)})")


def _reload_link(url_path: str, label: str, query: Mapping[str, str], arrow: str) -> None:
    """A same-tab link that loads ``url_path`` with ``query`` afresh (the next view of a lesson: a new page load, so
    the address, the controls and the lesson step always agree). Only fixed text and escaped query values."""
    href = html.escape(f"./{url_path}?{_query(query)}", quote=True)
    st.markdown(
        f'<a href="{href}" target="_self" class="dpx-lesson-link">{arrow} {html.escape(label)}</a>',
        unsafe_allow_html=True,
    )


def lesson_strip(url_path: str, pages: Mapping[str, Any] | None, present: bool) -> None:
    """The lesson a ``?seq=`` link opened: where we are and Previous / Next, at the top and under the step's panel
    (app.presenting; the speaker note is only in the presenter view, never on the projected page)."""
    presenting.lesson_strip(url_path, pages, present, in_app_query() or {}, _titles())


_SAY, _PANEL, _CLEAR = "_dpx_say", "_dpx_panel", "_dpx_clear_asked"
_TOP = "top of the page"


def _add_view(mine: list[sequences.Step], url_path: str, panels: Mapping[str, str]) -> None:
    """The "add" button's callback: this view, the panel it opens on and its note join the lesson, and the note box
    is emptied for the next view (a widget's value can only be reset in a callback, before the run draws it)."""
    chosen = st.session_state.get(_PANEL)
    key = next((k for k, title in panels.items() if title == chosen), "")
    title = panels.get(key) or _title(url_path)
    mine.append(
        sequences.Step(
            url_path,
            sequences.strip_classroom_keys(current_query()),
            str(st.session_state.get(_SAY, "")).strip(),
            key,
            title,
        )
    )
    st.session_state[_SAY] = ""
    st.session_state.pop(_CLEAR, None)


def _start_again(mine: list[sequences.Step]) -> None:
    """ "Start again" asks first; the second button drops the views."""
    if st.session_state.pop(_CLEAR, False):
        mine.clear()
    else:
        st.session_state[_CLEAR] = True


def _my_lesson(popover: Any, url_path: str, present: bool = False) -> None:
    """ "Add this view to my lesson": collect views across pages (kept by this tab, see app.presenting.keep_lesson),
    then one link that plays them in order."""
    mine: list[sequences.Step] = st.session_state.setdefault(MY_LESSON, [])
    with popover:
        st.markdown(
            "**Ready-made lessons** (each opens its first view; **Next** and **Previous**, or the ← and → "
            "keys, step through; **Presenter view** shows your notes in a second tab):"
        )
        for ready in sequences.LESSONS.values():
            _reload_link(ready.steps[0].page, ready.title, sequences.view_query(ready, 0, present=present), "▶")
        st.markdown(
            "**Your own lesson.** Collect views for a class: set up a page, add it, move on to the next "
            "one. The link below plays them in order; each view opens on the panel you pick."
        )
        panels = ui.drawn_panels()
        st.selectbox("Open this view on", [*panels.values(), _TOP], key=_PANEL)
        st.text_input("What to say at this view (optional; shown only in the presenter view)", key=_SAY, max_chars=200)
        cols = st.container(horizontal=True, gap="small")
        cols.button(
            "Add this view to my lesson",
            icon=":material/add:",
            key="_dpx_add",
            on_click=_add_view,
            args=(mine, url_path, panels),
            disabled=len(mine) >= sequences.MAX_STEPS,
        )
        if mine:
            asked = st.session_state.get(_CLEAR, False)
            cols.button(
                f"Yes, drop all {len(mine)} views" if asked else "Start again",
                icon=":material/delete:",
                key="_dpx_clear",
                type="primary" if asked else "tertiary",
                on_click=_start_again,
                args=(mine,),
            )
            if asked:
                st.warning(
                    "Starting again drops the views collected so far. Copy the link below first to keep them.",
                    icon=":material/warning:",
                )
        if not mine:
            st.caption("No views yet.")
            return
        # the teacher's own words, drawn as plain text (escaped), never as Markdown
        st.html("<ol>" + "".join(f"<li>{html.escape(notation.plain(_step_line(s)))}</li>" for s in mine) + "</ol>")
        try:
            code = sequences.encode(mine)
        except ValueError as exc:
            st.error(str(exc))
            return
        st.markdown("Link to your lesson (select and copy, or use the copy button):")
        st.code(
            lesson_url(app_root(st.context.url, url_path), sequences.Lesson(code, "Your lesson", tuple(mine))),
            language=None,
            wrap_lines=True,
        )


def _step_line(step: sequences.Step) -> str:
    """A view of the teacher's lesson in the builder's list: page, panel, note (plain text)."""
    page = _title(step.page)
    line = page + (f" — {step.title}" if step.title and step.title != page else "")
    return line + (f" — “{step.say}”" if step.say else "")


def _titles() -> dict[str, str]:
    return {info.url_path: info.title for info in registry.available_pages()}


def _title(url_path: str) -> str:
    for info in registry.available_pages():
        if info.url_path == url_path:
            return info.title
    return url_path or "Home"


def strip(url_path: str, pages: Mapping[str, Any] | None = None, side: Any = None) -> None:
    """The slim strip above a page: share link, presentation toggle, lesson builder, exercises, glossary popovers.

    Call it after the page ran (inside a container placed above the page) so every widget of the page exists and
    the share link carries its value. ``pages`` maps each ``url_path`` to its ``st.Page`` so lesson and exercise
    links stay in the same tab. Presentation mode collapses the sidebar (its » arrow stays at the top left, so the
    controls are one click away), injects the fixed ``PRESENTATION_CSS``, leaves the glossary out and moves the
    share link, the toggle and the lesson builder to ``side`` (the top of the sidebar): on the projected page only
    a lesson's small step counter remains.
    """
    if _answering_a_poll(url_path):
        return
    presenting_now = _presenting_now()
    host = side if presenting_now and side is not None else st
    row = host.container(horizontal=host is st, vertical_alignment="center", gap="small")
    share = row.popover("Share this view", icon=":material/link:", key=SHARE_KEY, on_change="rerun")
    present = params.toggle(
        PRESENT_KEY,
        "Presentation mode",
        help="Larger type and charts for a projector; the sidebar collapses "
        "(open it with the » arrow at the top left; this switch is then at its top).",
        container=row,
    )
    mine = row.popover("My lesson", icon=":material/playlist_add:", key=MY_LESSON_KEY, on_change="rerun")
    kept = presenting.keep_lesson(st.session_state.get(MY_LESSON))  # the tab's lesson outlives this session
    if kept:
        st.session_state[MY_LESSON] = kept
    # a closed popover's contents are drawn only when it is opened (a rerun): a slider move does not send them
    if share.open:
        _share(share, url_path)  # filled after the toggle exists, so the link carries it too
        st.html(_SHARE_CSS)
    if mine.open:
        _my_lesson(mine, url_path, bool(present))
    with row:
        info = registry.page(url_path)
        if info is not None and info.exercises and not present:
            st.markdown("[:material/school: Try this ↓](#try-this)")
        if not present:
            for term in info.terms if info is not None else ():
                term_box = st.popover(term, type="tertiary", key=term_key(term), on_change="rerun")
                if term_box.open:
                    term_box.markdown(f"**{term}** — {GLOSSARY[term]}")
    lesson_strip(url_path, pages, present)
    if present:
        st.set_page_config(initial_sidebar_state="collapsed")
        st.html(PRESENTATION_CSS)
    else:
        st.set_page_config(initial_sidebar_state="auto")


def _presenting_now() -> bool:
    """Presentation mode as the page starts drawing the strip: the toggle's value, or on a first run the link's."""
    if PRESENT_KEY in st.session_state:
        return bool(st.session_state[PRESENT_KEY])
    return str(st.query_params.get(PRESENT_KEY, "")).strip().lower() == "true"


def exercises(url_path: str, pages: Mapping[str, Any] | None = None) -> None:
    """The page's "Try this" exercises: task, a same-tab link opening the page with its settings (presentation mode
    kept), and an answer box judged at the precision the page shows (hints first, the worked solution on request or
    after the third wrong answer)."""
    info = registry.page(url_path)
    items = info.exercises if info is not None else ()
    if not items or _answering_a_poll(url_path):
        return
    st.divider()
    st.header("Try this", anchor="try-this")
    keep = in_app_query() or {}
    for i, ex in enumerate(items, 1):
        with st.container(border=True):
            st.markdown(f"**{i}.** {ex.question}")
            if ex.settings:
                _page_link(
                    pages,
                    url_path,
                    "Open this page with these settings",
                    dict(ex.settings) | keep,
                    icon=":material/tune:",
                )
            if ex.check is not None:
                answer_box(ex.check, ex.answer, answer_key(i))
            else:
                answer = st.expander("Answer", key=f"{answer_key(i)}_open", on_change="rerun")
                if answer.open:
                    answer.markdown(ex.answer)


def _tries(key: str) -> Tries:
    return st.session_state.setdefault(f"{key}_tries", Tries())


def _show_solution(key: str) -> None:
    st.session_state[f"{key}_solution"] = True


def answer_box(check: Check, solution: str, key: str) -> Reply:
    """An answer box (a text box, or one button per option), the reply to what was typed (right, a hint, a stronger
    hint) and the worked solution: shown on request, or after the third wrong answer. ``key`` names the box; the
    reader's wrong answers are counted in this session."""
    if check.options:
        raw = st.radio("Your answer", list(check.options), index=None, key=key)
    else:
        raw = st.text_input(
            "Your answer",
            key=key,
            placeholder="type it, then press Enter",
            help="Write it as the page shows it: 0.9, 90 %, 90% and 7.5·10⁻⁶ (or 7.5e-6) are read.",
        )
    reply = _tries(key).answer(check, raw)
    if reply.state in (RIGHT,):
        st.success(reply.text, icon=":material/check_circle:")
    elif reply.state in (HINT, STRONGER, SOLVED):
        st.warning(reply.text, icon=":material/lightbulb:")
    elif reply.state in (UNREADABLE, CLOSE):
        st.info(reply.text, icon=":material/edit:")
    shown = reply.solution or reply.state == RIGHT or st.session_state.get(f"{key}_solution", False)
    if shown:
        with st.container(border=True):
            st.markdown(f"**Worked solution.** {solution}")
    else:
        st.button(
            "Show the worked solution",
            key=f"{key}_ask",
            on_click=_show_solution,
            args=(key,),
            type="tertiary",
            icon=":material/visibility:",
        )
    return reply


def navigation(sections: Mapping[str, list[Any]], *, current: Any) -> None:
    """The app's page menu in the sidebar: a section name, then one link per page (the current one marked)."""
    query = in_app_query()
    for name, pages in sections.items():
        if not pages:
            continue
        st.markdown(f"**{name}**")
        for p in pages:
            st.page_link(p, label=p.title, icon=p.icon, query_params=query)
    st.divider()
