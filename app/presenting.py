"""Presenting a lesson: each step opens on its panel, ← / → move between steps, and the speaker notes live in a
presenter view, a second tab the teacher keeps on the laptop.

How the two tabs talk: both are in the teacher's browser, so the projected tab and the presenter view share a
``BroadcastChannel`` named after the lesson (a hash of its ``?seq=`` value). The projected tab says which step it
shows; the presenter view shows that step's note and the next step's title, and its ← / → ask the projected tab to
move. Nothing goes through the server: several teachers on one server never see each other's notes, and a note is
never on the projected page, not even in its hidden HTML.

Three small components (``st.components.v2``, trusted fixed code; everything a teacher wrote reaches them as data and
is drawn with ``textContent``, as plain text):

* the step agent on the projected page: scrolls the step's panel to the top of the screen, moves on ← / → by
  clicking the step's own Previous / Next links, talks to the presenter view, and, while the teacher speaks, opens
  the next view in a hidden frame so that the server has computed it before → is pressed;
* the presenter view (``?presenter=true``);
* the lesson keeper: "My lesson" in the tab's ``sessionStorage``, so a lesson being built survives every navigation
  in that tab, a pasted address included.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Mapping
from typing import Any

import streamlit as st

from app import notation, panels, sequences, ui
from app.exercises import query_string

SEQ_KEY, STEP_KEY, PRESENTER_KEY = "seq", "step", "presenter"
#: Container keys of the step's Previous / Next links; the step agent clicks them for ← / →.
GO_PREV, GO_NEXT = "dpx-go-prev", "dpx-go-next"
AGENT_KEY, KEEPER_KEY, PRESENTER_VIEW_KEY = "dpx-step-agent", "dpx-lesson-keeper", "dpx-presenter"
#: session_state: the view (page, lesson, step) whose panel did not come when the others were drawn as titles only.
_WHOLE_PAGE = "_dpx_whole_page"


def channel(lesson: sequences.Lesson) -> str:
    """The name both tabs of one lesson use to talk (a digest of the lesson's ``?seq=`` value, never the notes)."""
    return "dpx-lesson-" + hashlib.sha256(lesson.id.encode()).hexdigest()[:20]


def open_step() -> tuple[sequences.Lesson, int] | None:
    """The lesson step the address opens (``?seq=…&step=…``), or None (no lesson, or a link that cannot be read:
    the lesson strip says why)."""
    raw = st.query_params.get(SEQ_KEY)
    if not raw:
        return None
    try:
        return sequences.parse(raw, st.query_params.get(STEP_KEY))
    except ValueError:
        return None


def step_panel(url_path: str) -> str:
    """The key of the panel the open step is about, when the step is on this page ("" otherwise)."""
    opened = open_step()
    if opened is None:
        return ""
    lesson, i = opened
    step = lesson.steps[i]
    return step.panel if step.page == url_path else ""


def _view(url_path: str) -> tuple[str, str, str]:
    return url_path, str(st.query_params.get(SEQ_KEY, "")), str(st.query_params.get(STEP_KEY, ""))


def alone(url_path: str) -> bool:
    """Presentation mode draws the open step's panel alone (the page's other panels as their titles, app.panels),
    unless that panel was not on the page the last time (then the whole page, as without a lesson)."""
    return ui.presenting() and st.session_state.get(_WHOLE_PAGE) != _view(url_path)


def _reason(exc: ValueError) -> str:
    """A lesson link's problem in words (the address key that names it, "seq: " or "step: ", left out)."""
    return re.sub(r"^(seq|step): ", "", str(exc))


def step_title(step: sequences.Step, titles: Mapping[str, str]) -> str:
    """What a step is called: its own title, else its page's (``titles`` maps ``url_path`` → page title)."""
    return step.title or titles.get(step.page, step.page or "Home")


def presenter_url(lesson: sequences.Lesson, index: int) -> str:
    """The presenter view of ``lesson`` at step ``index`` (0-based), relative to the page it is opened from."""
    return "./?" + query_string({SEQ_KEY: lesson.id, STEP_KEY: str(index + 1), PRESENTER_KEY: "true"})


def _link(
    pages: Mapping[str, Any] | None,
    url_path: str,
    label: str,
    query: Mapping[str, str],
    icon: str | None = None,
    icon_position: str = "left",
) -> None:
    """A same-tab link inside the app: Streamlit's page link (no page load: a move takes one page run)."""
    if pages and url_path in pages:
        st.page_link(pages[url_path], label=label, icon=icon, icon_position=icon_position, query_params=dict(query))
    else:  # no page objects (a test of the strip alone): an ordinary link
        st.markdown(f"[{label}](./{url_path}?{query_string(query)})")


def step_links(
    lesson: sequences.Lesson,
    i: int,
    pages: Mapping[str, Any] | None,
    keep: Mapping[str, str],
    *,
    present: bool,
    suffix: str = "",
    counter: bool = True,
) -> None:
    """Previous, "view i of n", Next: same-tab links that keep presentation mode and the tab's ledger."""
    n = len(lesson.steps)
    with st.container(horizontal=True, gap="medium", vertical_alignment="center", key=f"dpx-step-links{suffix}"):
        if i > 0:
            with st.container(key=GO_PREV + suffix, width="content"):
                _link(
                    pages,
                    lesson.steps[i - 1].page,
                    "Previous",
                    sequences.view_query(lesson, i - 1, present=present) | dict(keep),
                    icon=":material/arrow_back:",
                )
        if counter:
            st.markdown(f"view {i + 1} of {n}", width="content")
        if i + 1 < n:
            with st.container(key=GO_NEXT + suffix, width="content"):
                _link(
                    pages,
                    lesson.steps[i + 1].page,
                    "Next",
                    sequences.view_query(lesson, i + 1, present=present) | dict(keep),
                    icon=":material/arrow_forward:",
                    icon_position="right",
                )
        else:
            st.markdown(":material/flag: Last view of this lesson.", width="content")


def _presenter_link(lesson: sequences.Lesson, i: int) -> None:
    """Opens the presenter view in a new tab of this browser (fixed text; the address is escaped)."""
    href = html.escape(presenter_url(lesson, i), quote=True)
    st.markdown(
        f'<a href="{href}" target="_blank" rel="opener" class="dpx-presenter-link">'
        ":material/co_present: Presenter view</a>",
        unsafe_allow_html=True,
        width="content",
    )


def lesson_strip(
    url_path: str, pages: Mapping[str, Any] | None, present: bool, keep: Mapping[str, str], titles: Mapping[str, str]
) -> None:
    """The lesson a ``?seq=`` link opened: where we are and Previous / Next, at the top of the page (in presentation
    mode a small counter, the links only when the step's panel is not on the page) and beside the step's panel
    title; the step agent; never the speaker note."""
    raw = st.query_params.get(SEQ_KEY)
    if not raw:
        return
    try:
        lesson, i = sequences.parse(raw, st.query_params.get(STEP_KEY))
    except ValueError as exc:
        st.error(
            f"This lesson link could not be read: {_reason(exc)}. The page shows its own settings.",
            icon=":material/link_off:",
        )
        return
    step = lesson.steps[i]
    here = step.page == url_path
    slot = ui.step_slot() if here else None
    with st.container(border=not present, key="lesson-strip"):
        if present:
            with st.container(horizontal=True, gap="small", vertical_alignment="center"):
                if slot is None:
                    step_links(lesson, i, pages, keep, present=present, suffix="-top")
                else:  # Previous / Next and "view i of n" are beside the step's panel title, where the class looks;
                    # here the lesson and the step by the name the presenter view gives it
                    named = f"{lesson.title} · {step_title(step, titles)}"
                    st.html(
                        f'<p class="dpx-lesson-where" style="margin: 0">{html.escape(notation.plain(named))}</p>',
                        width="content",
                    )
                _presenter_link(lesson, i)
        else:
            # a teacher's own lesson brings its titles in its link: plain text (escaped), never Markdown
            where = f"{lesson.title} — view {i + 1} of {len(lesson.steps)}: {step_title(step, titles)}"
            if not here:
                where += " (you have left this view: use the links to go back)"
            st.html(f'<p class="dpx-lesson-where">{html.escape(notation.plain(where))}</p>')
            with st.container(horizontal=True, gap="medium", vertical_alignment="center"):
                step_links(lesson, i, pages, keep, present=present, suffix="-top", counter=False)
                _presenter_link(lesson, i)
        if here and step.panel and slot is None:
            if panels.titles_only():  # the page drew its other panels as titles only: draw it whole instead
                st.session_state[_WHOLE_PAGE] = _view(url_path)
                st.rerun()
            st.caption(
                "This view's panel is not on the page any more (the page may have changed since the "
                "lesson was made), so it opens at the top."
            )
    if slot is not None:
        with slot:
            step_links(lesson, i, pages, keep, present=present)
    _AGENT(
        key=AGENT_KEY,
        data={
            "channel": channel(lesson),
            "step": i,
            "n": len(lesson.steps),
            "panel": step.panel if slot is not None else "",
            "prev_panel": lesson.steps[i - 1].panel if i > 0 else "",
            "next_panel": lesson.steps[i + 1].panel if i + 1 < len(lesson.steps) else "",
            "present": present,  # switching presentation mode lays the page out anew: land again
        },
    )


def presenter_requested() -> bool:
    """The address asks for the presenter view (``?presenter=true`` with a lesson)."""
    return str(st.query_params.get(PRESENTER_KEY, "")).strip().lower() == "true" and bool(st.query_params.get(SEQ_KEY))


def presenter_data(lesson: sequences.Lesson, i: int, titles: Mapping[str, str]) -> dict[str, Any]:
    """What the presenter view shows: every step's title, page and note (plain text, with maths written plainly in
    Unicode scripts: ``e^ε`` → ``eᵋ``), and where to start."""
    return {
        "channel": channel(lesson),
        "lesson": notation.plain(lesson.title),
        "step": i,
        "steps": [
            {
                "title": notation.plain(step_title(s, titles)),
                "page": titles.get(s.page, s.page or "Home"),
                "note": notation.plain(s.say),
            }
            for s in lesson.steps
        ],
    }


def presenter_view(titles: Mapping[str, str]) -> None:
    """The teacher's second tab: the current step's note and the next step's title, following the projected tab of
    the same lesson in this browser; its ← / → move the projected tab."""
    st.set_page_config(page_title="Presenter view · DP Explorer", initial_sidebar_state="collapsed")
    try:
        lesson, i = sequences.parse(str(st.query_params.get(SEQ_KEY)), st.query_params.get(STEP_KEY))
    except ValueError as exc:
        st.error(f"This lesson link could not be read: {_reason(exc)}.", icon=":material/link_off:")
        return
    st.title("Presenter view", anchor=False)
    st.markdown(
        "Keep this tab on your laptop and the lesson on the projector, both in this browser. This tab follows "
        "the projected one; ← and → here (or the buttons) move the projector. The notes are shown only here."
    )
    _PRESENTER(key=PRESENTER_VIEW_KEY, data=presenter_data(lesson, i, titles))


def keep_lesson(mine: list[sequences.Step] | None) -> list[sequences.Step] | None:
    """Keep "My lesson" in this tab's ``sessionStorage``: write it when it changes; in a new session of the tab (a
    pasted address, a reload) read it back. ``mine`` is None while this session has not read it yet; returns the
    steps the tab had kept when they come back in this run, else None.

    What the tab sent back is read before the keeper is drawn, so the run that reads it already hands the code back:
    the keeper stops asking. (Each ask is a rerun of the page the tab was on; one landing just after a click on Next
    would take that move's place, and the page would stay where it was.)"""
    back = None if mine else _kept_steps(st.session_state.get(KEEPER_KEY))
    held = back or mine
    code = ""
    if held:
        try:
            code = sequences.encode(held)
        except ValueError:
            code = ""  # too long for a link: the popover says so; the tab keeps what it had
    _KEEPER(key=KEEPER_KEY, data={"code": None if held is None else code}, on_kept_change="ignore")
    return back


def _kept_steps(sent: Any) -> list[sequences.Step] | None:
    """The steps of the lesson code the tab sent back (the keeper's ``kept``), or None for anything else."""
    kept = sent.get("kept") if isinstance(sent, Mapping) else None
    if not isinstance(kept, str) or not kept.startswith(sequences.CUSTOM_PREFIX):
        return None
    try:
        return list(sequences.decode(kept).steps)
    except ValueError:
        return None


# ------------------------------------------------------------------------------------------------ the components

_AGENT_JS = r"""
const S = window.dpxStep || (window.dpxStep = { data: null, queued: null, pending: 0 });
const AHEAD_MS = 600, AHEAD_TICK_MS = 150;  // the next view is prepared once this step's run has been over so long

function go(dir) {
  const link = document.querySelector(`[class*="st-key-dpx-go-${dir}"] a`);
  if (!link) return false;
  if (S.pending && Date.now() - S.pending < 8000) { S.queued = dir; return true; }  // one move at a time
  S.pending = Date.now();
  clearTimeout(S.aheadTimer);
  if (S.frame) { S.frame.remove(); S.frame = null; }  // its work is in the server's caches by now
  link.click();
  land(S.data && S.data[dir + "_panel"]);  // while the next view is drawn, not only once it is complete
  return true;
}

function typing(t) {
  return t && t.closest && t.closest('input, textarea, select, [contenteditable="true"], [role="slider"], ' +
    '[role="tab"], [role="radio"], [role="combobox"], [role="listbox"], [role="option"], [role="menu"], ' +
    '[role="dialog"], [data-testid="stPopoverBody"]');
}

if (!S.keys) {
  S.keys = true;
  document.addEventListener("keydown", (e) => {
    if (!S.data || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    if (typing(e.target)) return;  // a slider, a tab bar or a text box uses the arrows itself
    if (go(e.key === "ArrowRight" ? "next" : "prev")) e.preventDefault();
  });
}

function announce() {
  if (S.data && S.chan) S.chan.postMessage({ type: "at", step: S.data.step });
}

function listen(name) {
  if (S.chan && S.chanName === name) return;
  if (S.chan) S.chan.close();
  S.chanName = name;
  S.chan = typeof BroadcastChannel === "function" ? new BroadcastChannel(name) : null;
  if (!S.chan) return;
  S.chan.onmessage = (ev) => {
    const m = ev.data || {};
    if (!S.data) return;
    if (m.type === "where") announce();
    else if (m.type === "go" && (m.dir === "next" || m.dir === "prev")) go(m.dir);
  };
}

// Scroll the step's panel to the top of the screen, and keep it there while the page is still growing above it
// (charts drawn, heavy panels filled), until the reader scrolls, clicks or types.
function land(key) {
  if (!key || !/^[a-z0-9-]+$/.test(key)) return;
  const t0 = Date.now();
  S.landing = t0;
  window.dpxLanding = t0 + 6000;  // app.ui's "a new page opens at its top" leaves the page alone meanwhile
  const stop = () => { if (S.landing === t0) { S.landing = null; window.dpxLanding = 0; } };
  for (const name of ["wheel", "touchmove", "mousedown", "keydown"]) {
    document.addEventListener(name, stop, { capture: true, once: true });
  }
  const tick = () => {
    if (S.landing !== t0) return;
    if (Date.now() - t0 > 6000) { stop(); return; }
    const el = document.querySelector(".st-key-dpx-panel-" + key);
    if (el) {
      const want = parseFloat(getComputedStyle(el).scrollMarginTop) || 0;
      if (Math.abs(el.getBoundingClientRect().top - want) > 1) el.scrollIntoView({ block: "start" });
    }
    setTimeout(tick, 50);
  };
  tick();
}

// Prepare the next view while the teacher speaks: a hidden frame opens it, so the server computes its numbers and
// pictures (heavy panels included) before → is pressed. A new frame each time (re-pointing one would add entries to
// the tab's history, and Back would step through the hidden frame). Only in presentation mode: a student reading a
// lesson at their own pace does not double the server's work.
function ahead(data) {
  clearTimeout(S.aheadTimer);
  if (!data.present || data.step + 1 >= data.n) {
    if (S.frame) { S.frame.remove(); S.frame = null; }
    return;
  }
  let quiet = 0;
  const wait = () => {  // until this step's own page run is over (the agent is drawn early in it), then a moment more
    if (S.data !== data) return;
    quiet = document.querySelector('[data-testid="stStatusWidget"]') ? 0 : quiet + 1;
    if (quiet * AHEAD_TICK_MS < AHEAD_MS) { S.aheadTimer = setTimeout(wait, AHEAD_TICK_MS); return; }
    const link = document.querySelector('[class*="st-key-dpx-go-next"] a');
    if (!link) return;
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin || (S.frame && S.frame.dataset.href === url.href)) return;
    if (S.frame) S.frame.remove();
    const f = document.createElement("iframe");
    f.dataset.href = url.href;
    f.className = "dpx-ahead";
    f.title = "The next view, prepared ahead";
    f.tabIndex = -1;
    f.setAttribute("aria-hidden", "true");
    f.setAttribute("inert", "");
    f.style.cssText = "position:fixed;left:-20000px;top:0;width:1280px;height:720px;border:0;" +
      "visibility:hidden;pointer-events:none";
    f.src = url.href;
    document.body.appendChild(f);
    S.frame = f;
  };
  S.aheadTimer = setTimeout(wait, AHEAD_TICK_MS);
}

export default function (component) {
  const { data } = component;
  if (window.top !== window) return;  // the hidden frame preparing the next view: no keys, no landing, no channel
  S.data = data;
  S.pending = 0;
  listen(data.channel);
  announce();
  land(data.panel);
  if (S.queued) { const dir = S.queued; S.queued = null; setTimeout(() => go(dir), 0); }
  else ahead(data);
  return () => { if (S.data === data) S.data = null; };
}
"""

_PRESENTER_JS = r"""
export default function (component) {
  const { data, parentElement } = component;
  const steps = Array.isArray(data.steps) ? data.steps : [];
  const root = document.createElement("div");
  root.className = "presenter";
  parentElement.querySelectorAll(".presenter").forEach((old) => old.remove());  // keep the component's <style>
  parentElement.appendChild(root);
  const el = (tag, cls, parent) => {
    const e = document.createElement(tag);
    e.className = cls;
    parent.appendChild(e);
    return e;
  };
  const top = el("div", "top", root);
  const lesson = el("span", "lesson", top);
  const where = el("span", "where", top);
  const clock = el("span", "clock", top);
  el("div", "label", root).textContent = "On the projector";
  const title = el("div", "title", root);
  el("div", "label", root).textContent = "Speaker note";
  const note = el("p", "note", root);
  el("div", "label", root).textContent = "Next";
  const next = el("div", "next", root);
  const buttons = el("div", "buttons", root);
  const prev = el("button", "prev", buttons);
  const fwd = el("button", "fwd", buttons);
  prev.type = fwd.type = "button";
  prev.textContent = "← Previous";
  fwd.textContent = "Next →";
  const status = el("p", "status", root);
  lesson.textContent = data.lesson || "";

  let cur = Math.max(0, Math.min(steps.length - 1, data.step | 0));
  let linked = false;
  const show = () => {
    const s = steps[cur] || {};
    where.textContent = `view ${cur + 1} of ${steps.length}`;
    title.textContent = s.title === s.page || !s.page ? (s.title || "") : `${s.title} (${s.page})`;
    note.textContent = s.note || "No note for this view.";
    note.classList.toggle("empty", !s.note);
    next.textContent = cur + 1 < steps.length ? steps[cur + 1].title : "End of the lesson.";
    prev.disabled = cur === 0;
    fwd.disabled = cur + 1 >= steps.length;
    status.textContent = linked ? "Following the projected tab."
      : "No projected tab of this lesson in this browser yet: open the lesson in another tab of this browser " +
        "(← and → here step through the notes meanwhile).";
  };
  const chan = typeof BroadcastChannel === "function" ? new BroadcastChannel(data.channel) : null;
  const move = (dir) => {
    if (linked && chan) { chan.postMessage({ type: "go", dir }); return; }  // the projector moves, then says where
    cur = Math.max(0, Math.min(steps.length - 1, cur + (dir === "next" ? 1 : -1)));
    show();
  };
  if (chan) {
    chan.onmessage = (ev) => {
      const m = ev.data || {};
      if (m.type === "at" && Number.isInteger(m.step) && m.step >= 0 && m.step < steps.length) {
        cur = m.step; linked = true; show();
      }
    };
    chan.postMessage({ type: "where" });
  }
  prev.onclick = () => move("prev");
  fwd.onclick = () => move("next");
  const onKey = (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.defaultPrevented) return;
    const t = e.target;
    if (t && t.closest && t.closest("input, textarea, select, [contenteditable='true']")) return;
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      e.preventDefault();
      move(e.key === "ArrowRight" ? "next" : "prev");
    }
  };
  document.addEventListener("keydown", onKey);
  const t0 = Date.now();
  const tick = () => {
    const s = Math.floor((Date.now() - t0) / 1000);
    clock.textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  };
  tick();
  const timer = setInterval(tick, 1000);
  show();
  return () => { document.removeEventListener("keydown", onKey); clearInterval(timer); if (chan) chan.close(); };
}
"""

_PRESENTER_CSS = """
.presenter { font-family: inherit; color: inherit; max-width: 60rem; }
.top { display: flex; gap: 1.5rem; align-items: baseline; font-size: 1.1rem; }
.lesson { font-weight: 700; }
.clock { margin-left: auto; font-variant-numeric: tabular-nums; }
.label { margin-top: 1.2rem; font-size: 0.9rem; text-transform: uppercase; letter-spacing: 0.05em; opacity: 0.75; }
.title { font-size: 1.6rem; font-weight: 700; }
.note { font-size: 1.9rem; line-height: 1.4; margin: 0.2rem 0 0; white-space: pre-wrap; }
.note.empty { opacity: 0.7; font-style: italic; }
.next { font-size: 1.3rem; }
.buttons { display: flex; gap: 1rem; margin-top: 1.5rem; }
button { font: inherit; font-size: 1.2rem; padding: 0.5rem 1.2rem; border-radius: 0.5rem; cursor: pointer;
  border: 1px solid currentColor; background: transparent; color: inherit; }
button:disabled { opacity: 0.4; cursor: default; }
.status { margin-top: 1rem; opacity: 0.8; }
"""

_KEEPER_JS = r"""
const KEY = "dpx-my-lesson";

export default function (component) {
  const { data, setTriggerValue } = component;
  if (window.top !== window) return;  // the hidden frame preparing the next view shares the tab's storage
  let store = null;
  try { store = window.sessionStorage; store.getItem(KEY); } catch (e) { store = null; }
  if (!store) {  // this browser keeps nothing for the tab: ask before the tab drops a lesson being built
    window.dpxLessonAtRisk = !!data.code;
    if (!window.dpxUnloadGuard) {
      window.dpxUnloadGuard = true;
      window.addEventListener("beforeunload", (e) => {
        if (window.dpxLessonAtRisk) { e.preventDefault(); e.returnValue = ""; }
      });
    }
    return;
  }
  const K = window.dpxKept || (window.dpxKept = { tries: 0, timer: null, moved: 0 });
  clearTimeout(K.timer);
  if (!K.watching) {  // a click on a link moves to another view: an ask sent just after it would take its place
    K.watching = true;
    document.addEventListener("click", (e) => {
      if (e.target && e.target.closest && e.target.closest("a[href]")) K.moved = Date.now();
    }, true);
  }
  if (data.code === null) {  // a new session of this tab (a pasted address, a reload): hand back what the tab kept
    const kept = store.getItem(KEY);
    // asked again until the page has read it (a few times at most): a rerun the server starts at the same moment
    // (a picture's slider just ready) can take the place of the one this asks for
    const ask = () => {
      if (!kept || K.tries >= 4) return;
      if (Date.now() - K.moved < 1500) { K.timer = setTimeout(ask, 1500); return; }  // asked on the next view
      K.tries += 1;
      setTriggerValue("kept", kept);
      K.timer = setTimeout(ask, 1500);
    };
    ask();
    return;
  }
  K.tries = 0;  // the page has read what it holds: a later new session of this window (a reconnect) may ask again
  if (data.code) store.setItem(KEY, data.code);
  else store.removeItem(KEY);
}
"""

_AGENT = st.components.v2.component("dpx_step_agent", js=_AGENT_JS)
_PRESENTER = st.components.v2.component("dpx_presenter", js=_PRESENTER_JS, css=_PRESENTER_CSS)
_KEEPER = st.components.v2.component("dpx_lesson_keeper", js=_KEEPER_JS)
