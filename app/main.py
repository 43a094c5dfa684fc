"""DP Explorer's script: every page run starts here (``streamlit run app/serve.py`` serves it; tests run it
directly)."""

from __future__ import annotations

import streamlit as st

from app import background, classroom, compute, instant, ledger, links, params, presenting, registry, ui

ui.typeset_streamlit()  # maths written plainly in the pages (e^ε, ε_y, r^op) is typeset on screen

st.set_page_config(page_title="DP Explorer", page_icon=ui.favicon(), layout="wide")  # served by the app itself

_SECTIONS = {
    "Start": (registry.HOME, registry.COURSE, registry.BASELINES),
    "Papers": registry.TOPICS,
    "Tools": registry.TOOLS,
}
_available = set(registry.available_pages())
# The page objects are made once per session (resolving their paths on every run costs time;
# bench/results-where-time-goes.md). Not once per process: a
# navigation marks the page it picks as runnable and running it clears the mark, so sessions must not share them.
sections = st.session_state.get("_sections")
if sections is None:
    sections = st.session_state["_sections"] = {
        name: [
            st.Page(p.path, title=p.title, icon=p.icon, url_path=p.url_path or None, default=p is registry.HOME)
            for p in infos
            if p in _available
        ]
        for name, infos in _SECTIONS.items()
    }
# The navigation is drawn by the app itself (links in the sidebar, see below): Streamlit's own menu nests its links
# in a way screen readers cannot read as a list, and its links would drop presentation mode.
page = st.navigation({name: pages for name, pages in sections.items() if pages}, position="hidden")
if presenting.presenter_requested():  # the teacher's second tab: the lesson's notes, no page
    presenting.presenter_view({p.url_path: p.title for p in _available})
    st.stop()
nav = st.sidebar.container()  # filled after the page ran, once presentation mode is known
#: Session state that outlives a page change: presentation mode and the privacy ledger. Everything else (the
#: previous page's controls) is dropped, so a control never inherits a value from another page's control of the
#: same key (e.g. SVT's threshold ``T`` becoming the baselines' number of compositions ``T``).
_CROSS_PAGE = {links.PRESENT_KEY, links.LEDGER_STATE}


def _address() -> dict[str, list[str]]:
    """The address as the app wrote it, without the keys a tab bar or Streamlit itself changes in the browser."""
    return {k: st.query_params.get_all(k) for k in st.query_params if k not in ("part", "embed", "embed_options")}


# A link that opens this same page with other settings (an exercise, the next view of a lesson) is a new visit too:
# between two runs only such a link changes the address (widgets change it at the end of a run, params.sync_url).
# Not when the reader moved a control for this run: the browser may still show the address of a run before the
# last one (its new address was on the way when the reader moved again), and the control's new value must stand.
params.keep_linked_part()  # a link's ?part= for another page's tab bar (read before the address changes)
_moved = st.session_state.pop(params.MOVED, False)
_relinked = (
    not _moved
    and st.session_state.get("_page") == page.url_path
    and st.session_state.get("_address") not in (None, _address())
)
if st.session_state.get("_page") != page.url_path or _relinked:  # a new page visit: URL values are judged afresh
    # switched from another page: drop that page's controls (not from a lesson's link, which names the view's own)
    if "_page" in st.session_state and not _relinked and presenting.open_step() is None:
        params.leave_page(keep=_CROSS_PAGE)
    for key in [k for k in st.session_state if not k.startswith("_") and k not in _CROSS_PAGE]:
        del st.session_state[key]
    st.session_state["_page"] = page.url_path
    st.session_state.pop("_url_checked", None)
background.new_run()  # heavy panels: this run may wait once for a new job (app.background)
params.new_run()  # controls drawn in this run write the address once the page has run (params.sync_url)
instant.new_run()  # in-figure sliders drawn in this run get their browser side after the page (instant.follow)
ledger.new_run()  # the run's first ledger.sync() asks the store; later ones (the sidebar's offer) reuse it
ledger.sync()  # the tab's saved ledger (?ledger=<id>) on every page, reloaded if another tab changed it
url_problems = st.container()  # top of the page, filled after the page's widgets judged their URL values
ui.make_lead(any(p.lead for p in _available if p.url_path == page.url_path))  # a page that opens with its answer
ui.app_style(page.url_path)  # chart text and caption contrast in both themes, the phone's settings pointer
strip = st.container()  # classroom strip (share link, glossary, presentation), filled once the page's widgets exist
# a lesson step opens on its panel; presenting, the page's other panels are drawn as their titles (app.presenting)
ui.new_run(presenting.step_panel(page.url_path), alone=presenting.alone(page.url_path))
page.run()
_by_path = {p.url_path: p for pages in sections.values() for p in pages}
classroom.exercises(page.url_path, _by_path)  # "Try this" exercises under the page content
with strip:
    classroom.strip(page.url_path, _by_path, side=nav)  # after page.run(): the URL holds every widget's value
with url_problems:
    ui.show_url_problems()
with nav:
    classroom.navigation(sections, current=page)
instant.follow()  # the in-figure sliders' browser side: keyboard, the address, the page catching up
params.sync_url()  # the address bar now names exactly the values the page shows
st.session_state["_address"] = _address()
background.warm()  # start the heavy-panel workers once per process, off the script thread
compute.settle_heap()  # after the page imported its modules: keeps Streamlit's post-run gc.collect() cheap
