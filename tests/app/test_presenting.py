"""AppTest: presenting a lesson (app/presenting.py). Every ready-made step opens on a panel its view draws, with
Previous / Next beside it and never its speaker note; the presenter view carries the notes as data; "My lesson" comes
back from the tab's storage and asks before it is dropped."""

from __future__ import annotations

import html
import json
from typing import Any

import pytest
from google.protobuf import text_format
from streamlit.testing.v1 import AppTest

from app import classroom, notation, panels, presenting, registry, sequences, ui
from app.sequences import Step
from tests.app.conftest import MAIN, open_boxes, open_page

SCRIPT = {p.url_path: p.script for p in registry.available_pages()}
STEPS = [(lesson, i) for lesson in sequences.LESSONS.values() for i in range(len(lesson.steps))]


def _texts(node) -> list[str]:
    """Every element's message in the page as text (UTF-8), the sidebar included."""
    out = []
    proto = getattr(node, "proto", None)
    if proto is not None and hasattr(proto, "DESCRIPTOR"):
        out.append(text_format.MessageToString(proto, as_utf8=True))
    for child in getattr(node, "children", {}).values():
        out += _texts(child)
    return out


def _component(at: AppTest, key: str) -> dict | None:
    """The data a component of the page was drawn with (None when it is not drawn)."""
    for e in at.get("bidi_component"):
        if e.proto.id.endswith("-" + key):
            return json.loads(e.proto.json)
    return None


def _step_links(at: AppTest) -> list[tuple[str, str]]:
    return [(p.proto.label, p.proto.query_string) for p in at.get("page_link") if p.proto.label in ("Previous", "Next")]


@pytest.mark.slow
@pytest.mark.parametrize(("lesson", "i"), STEPS, ids=[f"{lesson.id}-{i + 1}" for lesson, i in STEPS])
def test_every_ready_made_step_opens_on_a_panel_of_its_view(lesson, i):
    step = lesson.steps[i]
    at = open_page(SCRIPT[step.page], sequences.view_query(lesson, i, present=True))
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    agent = _component(at, presenting.AGENT_KEY)
    # the agent scrolls to the panel only when the page drew it (its nav is then beside the panel's title)
    assert agent is not None and agent["panel"] == step.panel and agent["step"] == i, (agent, step.panel)
    links = _step_links(at)
    assert len(links) == (i > 0) + (i + 1 < len(lesson.steps)), links  # beside the panel, not again at the top
    assert not any("not on the page any more" in c.value for c in at.caption)
    everything = "\n".join(_texts(at._tree))
    assert step.say and step.say not in everything  # the note is for the presenter view only
    assert step.title  # named in the presenter view ("next: …")


def test_a_step_names_its_neighbours_panels_and_the_lesson_channel():
    lesson = sequences.LESSONS["brdp-svt"]
    at = open_page("brdp.py", sequences.view_query(lesson, 2))
    agent = _component(at, presenting.AGENT_KEY)
    assert agent == {
        "channel": presenter_channel(lesson),
        "step": 2,
        "n": len(lesson.steps),
        "panel": "recycling-budget-split",
        "prev_panel": "recycling-idea",
        "next_panel": "recycling-privacy-profile",
        "present": False,
    }
    queries = dict(_step_links(at))
    assert "step=2" in queries["Previous"] and "step=4" in queries["Next"] and "part=Privacy" in queries["Next"]
    assert lesson.steps[2].say not in "\n".join(_texts(at._tree))  # not on a screen outside presentation mode either


def presenter_channel(lesson: sequences.Lesson) -> str:
    import hashlib

    return "dpx-lesson-" + hashlib.sha256(lesson.id.encode()).hexdigest()[:20]


def test_a_step_whose_panel_is_gone_opens_at_the_top_and_says_so():
    code = sequences.encode(
        [Step("baselines", {"eps": "2"}, "note", "no-such-panel", "A view"), Step("", {}, "second")]
    )
    at = open_page("baselines.py", {"seq": code, "step": "1"})
    assert not at.exception and not at.error
    assert any("not on the page any more" in c.value for c in at.caption)
    assert _component(at, presenting.AGENT_KEY)["panel"] == ""  # no landing; ← / → still work
    assert [label for label, _ in _step_links(at)] == ["Next"]


def test_presentation_mode_leaves_only_a_step_counter_on_the_page():
    """Share, the toggle and the lesson builder move to the sidebar; the page keeps the small counter."""
    lesson = sequences.LESSONS["svt"]
    at = open_page("svt.py", sequences.view_query(lesson, 1, present=True))
    assert not at.exception
    assert {p.proto.popover.label for p in at.sidebar.get("popover")} >= {"Share this view", "My lesson"}
    assert not [p for p in at.main.get("popover")]
    assert at.sidebar.toggle(key=classroom.PRESENT_KEY).value is True
    assert not any("Try this" in m.value for m in at.main.markdown[:5])
    assert [m.value for m in at.main.markdown if m.value == "view 2 of 7"]
    at.sidebar.toggle(key=classroom.PRESENT_KEY).set_value(False).run()  # and back, from the sidebar
    assert {p.proto.popover.label for p in at.main.get("popover")} >= {"Share this view", "My lesson"}


def _presenter(query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


def test_the_presenter_view_carries_every_note_and_the_next_titles():
    lesson = sequences.LESSONS["brdp-svt"]
    at = _presenter({"seq": lesson.id, "step": "3", "presenter": "true"})
    assert not at.exception and not at.error
    data = _component(at, presenting.PRESENTER_VIEW_KEY)
    assert data["step"] == 2 and data["lesson"] == lesson.title and data["channel"] == presenter_channel(lesson)
    assert [s["note"] for s in data["steps"]] == [notation.plain(s.say) for s in lesson.steps]
    assert [s["title"] for s in data["steps"]] == [notation.plain(s.title) for s in lesson.steps]
    assert data["steps"][4]["page"] == "Sparse vector technique"
    assert [t.value for t in at.title] == ["Presenter view"]  # the notes' page, not the lesson's first page
    assert not at.get("plotly_chart") and _component(at, presenting.AGENT_KEY) is None


def test_a_teachers_note_reaches_the_presenter_view_as_plain_text_data():
    """A note is whatever a teacher typed (or whatever a link carries): data for textContent, never markup."""
    note = "<img src=x onerror=alert(1)> **bold** $x$ [link](http://e.org)"
    code = sequences.encode([Step("baselines", {}, note, "classic-noise", "Noise"), Step("svt", {}, "")])
    at = _presenter({"seq": code, "step": "1", "presenter": "true"})
    data = _component(at, presenting.PRESENTER_VIEW_KEY)
    assert data["steps"][0]["note"] == note and data["steps"][1]["title"] == "Sparse vector technique"
    assert note not in "\n".join(m.value for m in (*at.markdown, *at.caption))
    projected = open_page("baselines.py", {"seq": code, "step": "1", "present": "true"})
    assert note not in "\n".join(_texts(projected._tree))


def test_a_bad_presenter_link_is_reported():
    at = _presenter({"seq": "nope", "presenter": "true"})
    assert not at.exception and any("could not be read" in e.value for e in at.error)


# ------------------------------------------------------------------------------------------------- my lesson


def test_my_lesson_opens_each_view_on_the_chosen_panel():
    at = open_boxes(open_page("baselines.py", {"eps": "2"}), classroom.MY_LESSON_KEY)
    box = at.selectbox(key="_dpx_panel")
    assert box.options[:2] == ["How much noise?", "What these settings buy"] and box.options[-1] == "top of the page"
    box.set_value("Many releases: composition").run()
    at.text_input(key="_dpx_say").input("Point at √T").run()
    at.button(key="_dpx_add").click().run()
    (step,) = at.session_state[classroom.MY_LESSON]
    assert (step.page, step.panel, step.title, step.say) == (
        "baselines",
        "classic-composition",
        "Many releases: composition",
        "Point at √T",
    )
    lesson = sequences.decode(sequences.encode([step]))
    assert lesson.steps == (step,)


def test_start_again_asks_before_it_drops_the_views():
    at = open_boxes(open_page("baselines.py"), classroom.MY_LESSON_KEY)
    at.button(key="_dpx_add").click().run()
    at.button(key="_dpx_add").click().run()
    assert len(at.session_state[classroom.MY_LESSON]) == 2
    at.button(key="_dpx_clear").click().run()
    assert len(at.session_state[classroom.MY_LESSON]) == 2  # asked, not dropped
    assert any("drops the views" in w.value for w in at.warning)
    assert at.button(key="_dpx_clear").label == "Yes, drop all 2 views"
    at.button(key="_dpx_clear").click().run()
    assert at.session_state[classroom.MY_LESSON] == []


def test_the_tab_keeps_the_lesson_and_a_new_session_gets_it_back(monkeypatch):
    """The keeper writes the lesson's code to the tab's storage when it changes; a new session of the tab (a pasted
    address) reads it back, and the run that reads it already hands the code to the tab (so the tab stops asking).
    The browser side is tested in tests/e2e/test_presenting.py; here the component is played by a stand-in and the
    tab's answer by the component's state."""
    steps = [Step("baselines", {"eps": "2"}, "first", "classic-noise", "How much noise?"), Step("svt", {"c": "5"})]
    sent: list[dict] = []

    def keeper(*, key, data, on_kept_change):
        sent.append(data)

    monkeypatch.setattr(presenting, "_KEEPER", keeper)
    at = open_page("svt.py")
    assert sent == [{"code": None}]  # a new session: it asks the tab
    assert classroom.MY_LESSON not in at.session_state
    at.session_state[presenting.KEEPER_KEY] = {"kept": sequences.encode(steps)}  # the tab's answer
    at.run()
    assert at.session_state[classroom.MY_LESSON] == steps
    assert sent[-1] == {"code": sequences.encode(steps)}  # told in the same run, and from then on


def test_keep_lesson_ignores_what_is_not_a_lesson(monkeypatch):
    monkeypatch.setattr(presenting, "_KEEPER", lambda **kw: None)
    at = open_page("baselines.py")
    for answer in ({"kept": "~damaged!!"}, {"kept": "https://example.org"}, {"kept": 3}, "~not a mapping"):
        at.session_state[presenting.KEEPER_KEY] = answer
        at.run()
        assert not at.exception and classroom.MY_LESSON not in at.session_state


# --------------------------------------------------------------------------------------------------- panels


def test_panel_keys_follow_the_rule():
    with pytest.raises(ValueError, match="key"):
        with ui.panel("A title", key="Not A Key"):
            pass
    assert ui.PANEL_KEY.pattern == sequences.PANEL_KEY.pattern


def test_every_ready_made_step_names_a_stable_panel_key():
    keys = {(s.page, s.panel) for lesson in sequences.LESSONS.values() for s in lesson.steps}
    assert all(sequences.PANEL_KEY.match(panel) for _, panel in keys)
    pages_of = {}
    for page, panel in keys:
        pages_of.setdefault(panel, set()).add(page)
    assert all(len(pages) == 1 for pages in pages_of.values()), pages_of  # one key, one panel in the whole app
    assert {"BR-DP + SVT in 50 min"} <= {lesson.title for lesson in sequences.LESSONS.values()}
    both = sequences.LESSONS["brdp-svt"]
    assert {"brdp", "svt"} <= {s.page for s in both.steps}


def test_presentation_charts_fit_a_projector_and_keep_their_legend_off_the_axis_title():
    from app.figures import screen, style

    fig = style.figure(
        [{"type": "scatter", "x": [0, 1], "y": [0, 1], "name": "a"}],
        title="t",
        x="x",
        y="y",
        height=470,
        legend={"orientation": "h", "yanchor": "top", "y": -0.25, "x": 0.0},
    )
    shown = screen.for_screen(fig, theme=None, present=True).layout
    assert shown.height == screen.PRESENT_HEIGHT
    assert (shown.legend.yref, shown.legend.yanchor, shown.legend.y) == ("container", "bottom", 0.0)
    plain = style.figure(
        [{"type": "scatter", "x": [0, 1], "y": [0, 1]}], title="t", x="x", y="y", legend={"orientation": "v", "y": 1.0}
    )
    assert screen.for_screen(plain, theme=None, present=True).layout.legend.yref != "container"  # left as it was


def test_a_link_from_another_page_keeps_its_part_and_settings():
    """Both pages' tab bars are bound to ``part`` and both draw ε: leaving the SVT page (Run part, ε = 0.5) for
    BR-DP's Privacy part at ε = 0.1 (a lesson's Previous) must open Privacy at ε = 0.1."""
    lesson = sequences.LESSONS["brdp-svt"]
    at = open_page("svt.py", {"part": "Run", "eps": "0.5"})
    at.switch_page("../pages/brdp.py")
    for key in list(at.query_params):
        del at.query_params[key]
    for key, value in sequences.view_query(lesson, 3, present=True).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception and not at.error
    assert at.session_state["_page"] == "brdp" and at.query_params.get("part") in ("Privacy", ["Privacy"])
    assert "Every guarantee the plan gives: its privacy profile" in [h.value for h in at.header]
    assert at.select_slider(key="eps").value == 0.1  # the view's own ε, not the SVT page's, nor the default
    assert _component(at, presenting.AGENT_KEY)["panel"] == "recycling-privacy-profile"


def test_a_lesson_links_titles_are_plain_text_on_the_page():
    """A teacher's own lesson brings its steps' titles in its link: the strip writes them as text, never as Markdown
    or HTML."""
    title = "![x](http://example.org/x.png) <b>bold</b> [link](http://example.org)"
    code = sequences.encode([Step("baselines", {}, "", "classic-noise", title), Step("svt")])
    at = open_page("baselines.py", {"seq": code, "step": "1"})
    assert not at.exception
    assert not any(title in m.value for m in at.markdown)
    bodies = [h.proto.body for h in at.get("html") if "dpx-lesson-where" in h.proto.body]
    assert bodies == ['<p class="dpx-lesson-where">Your lesson — view 1 of 2: ' + html.escape(title) + "</p>"]


def test_presenting_a_step_draws_its_panel_alone_and_the_others_as_titles():
    """The projected step draws one panel's pictures: the page's other panels keep their titles (so the page reads
    the same) but nothing under them; a student's page outside presentation mode is drawn whole."""
    lesson = sequences.LESSONS["brdp"]
    i = next(k for k, s in enumerate(lesson.steps) if s.panel == "recycling-budget-split")
    presenting_at = open_page("brdp.py", sequences.view_query(lesson, i, present=True))
    reading_at = open_page("brdp.py", sequences.view_query(lesson, i, present=False))
    for at in (presenting_at, reading_at):
        assert not at.exception and not at.error
    titles = [h.value for h in reading_at.header]
    assert len(titles) >= 3 and [h.value for h in presenting_at.header] == titles  # every panel keeps its title
    assert len(presenting_at.get("plotly_chart")) == 1  # the step's chart only
    assert len(reading_at.get("plotly_chart")) >= 3
    said = [c.value for c in presenting_at.caption if c.value.startswith("**What to notice:**")]
    assert len(said) == 1  # the step panel's caption, not the others'


def test_a_presented_step_whose_panel_is_gone_draws_the_whole_page():
    """When the step's panel is not on the page (a teacher's lesson made before the page changed), presentation mode
    draws the page whole, as without a lesson, and says why it opens at the top."""
    code = sequences.encode([Step("brdp", {}, "note", "no-such-panel", "A view"), Step("", {}, "")])
    at = open_page("brdp.py", {"seq": code, "step": "1", "present": "true"})
    whole = open_page("brdp.py", {"present": "true"})
    assert not at.exception and not at.error
    assert any("not on the page any more" in c.value for c in at.caption)
    assert len(at.get("plotly_chart")) == len(whole.get("plotly_chart")) >= 3


def test_a_heavy_panel_drawn_as_its_title_starts_no_background_job(monkeypatch):
    """Inside a panel drawn as its title only, app.background computes nothing (nobody would see it)."""
    from app import background, panels

    submitted = []
    monkeypatch.setattr(background.bg, "submit", lambda *a: submitted.append(a))
    monkeypatch.setattr(panels._RUN, "hidden", True, raising=False)
    assert background.result(sum, (1, 2), slot="s", label="Sum") is None
    assert submitted == []


def _panels(node: Any) -> dict[str, Any]:
    """The page's panels (their containers), by panel key, from a run's element tree."""
    found: dict[str, Any] = {}
    for child in getattr(node, "children", {}).values():
        block_id = getattr(getattr(child, "proto", None), "id", "")
        if isinstance(block_id, str) and panels.PANEL_PREFIX in block_id:
            found[block_id.split(panels.PANEL_PREFIX, 1)[1]] = child
        found |= _panels(child)
    return found


def _elements(node: Any) -> list[str]:
    """Every element (not block) under ``node``, by type."""
    out: list[str] = []
    for child in getattr(node, "children", {}).values():
        if type(child).__name__ == "Block":
            out += _elements(child)
        else:
            out.append(type(child).__name__)
    return out


def test_a_panel_drawn_as_its_title_sends_nothing_but_its_title():
    """Presenting a step, each other panel reaches the browser as its header alone: its numbers, captions, tables,
    buttons and charts are dropped on their way (what a run sends is what the test's element tree holds), while the
    same panels read outside presentation mode carry them."""
    lesson = sequences.LESSONS["brdp"]
    i = next(k for k, s in enumerate(lesson.steps) if s.panel == "recycling-budget-split")
    presenting_at = open_page("brdp.py", sequences.view_query(lesson, i, present=True))
    reading_at = open_page("brdp.py", sequences.view_query(lesson, i, present=False))
    presented, read = _panels(presenting_at.main), _panels(reading_at.main)
    assert set(presented) == set(read) and "recycling-budget-split" in presented and len(presented) >= 3
    for key, block in presented.items():
        if key == "recycling-budget-split":
            assert _elements(block) == _elements(read[key]) != ["Header"]
        else:
            assert _elements(block) == ["Header"], key
            assert len(_elements(read[key])) > 1, key
