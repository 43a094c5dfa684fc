"""Presenting a lesson in chromium at a projector's 1280×720: every ready-made step opens on its figure with no
scrolling and without its speaker note; ← / → move between steps (and leave a focused slider alone); the presenter
view in a second tab shows the note and the next step's title, follows the projected tab and moves it; a lesson
being built survives a pasted address; in presentation mode a page's first chart fits under its title."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import Page, expect

from app import notation, presenting, sequences
from app.exercises import query_string
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_browser import wait_for_app

TIMEOUT = 120_000  # the machine is shared: a first visit computes its figures
PROJECTOR = {"width": 1280, "height": 720}
FIGURE = "[data-testid='stPlotlyChart'] .main-svg, [data-testid='stTable'] table"

AT_STEP = "(i) => window.dpxStep && window.dpxStep.data && window.dpxStep.data.step === i"
LANDED = """([key, figure]) => {
  const el = document.querySelector('.st-key-dpx-panel-' + key);
  if (!el || !el.querySelector(figure)) return false;
  return Math.abs(el.getBoundingClientRect().top - (parseFloat(getComputedStyle(el).scrollMarginTop) || 0)) <= 3;
}"""
BOXES = """([key, figure]) => {
  const el = document.querySelector('.st-key-dpx-panel-' + key);
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; };
  const notice = Array.from(el.querySelectorAll('[data-testid="stCaptionContainer"]'))
    .find((c) => c.innerText.startsWith('What to notice'));
  return {figure: box(el.querySelector(figure)), notice: notice ? box(notice) : null,
          links: Array.from(el.querySelectorAll('.st-key-dpx-step-nav a')).map(box)};
}"""


def _url(app_url: str, lesson: sequences.Lesson, i: int, present: bool = True) -> str:
    return f"{app_url}/{lesson.steps[i].page}?{query_string(sequences.view_query(lesson, i, present=present))}"


def _landed(page: Page, lesson: sequences.Lesson, i: int) -> None:
    page.wait_for_function(AT_STEP, arg=i, timeout=TIMEOUT)
    page.wait_for_function(LANDED, arg=[lesson.steps[i].panel, FIGURE], timeout=TIMEOUT)
    wait_for_app(page)
    page.wait_for_function(LANDED, arg=[lesson.steps[i].panel, FIGURE], timeout=TIMEOUT)


def _projected(page: Page, app_url: str, lesson_id: str, i: int) -> sequences.Lesson:
    """Open step ``i`` of a ready-made lesson on the projector (1280×720), landed; returns the lesson."""
    lesson = sequences.LESSONS[lesson_id]
    page.set_viewport_size(PROJECTOR)
    page.goto(_url(app_url, lesson, i), timeout=TIMEOUT)
    _landed(page, lesson, i)
    return lesson


@pytest.mark.slow
@pytest.mark.parametrize("lesson", list(sequences.LESSONS.values()), ids=list(sequences.LESSONS))
def test_every_step_opens_on_its_figure_without_its_note(page: Page, app_url, lesson):
    page.set_viewport_size(PROJECTOR)
    for i, step in enumerate(lesson.steps):
        page.goto(_url(app_url, lesson, i), timeout=TIMEOUT)  # a link (or a reload) opens the step
        _landed(page, lesson, i)
        shown = page.evaluate(BOXES, [step.panel, FIGURE])
        top, bottom = shown["figure"]
        assert 0 <= top and bottom <= PROJECTOR["height"], (lesson.id, i + 1, shown)  # no scrolling
        if shown["notice"]:
            assert shown["notice"][1] <= PROJECTOR["height"], (lesson.id, i + 1, shown)
        assert all(b <= PROJECTOR["height"] for _, b in shown["links"]), shown  # Previous / Next at the step
        assert step.say not in page.content()  # the note is not even in the projected page's HTML
        page.screenshot(path=str(ARTIFACTS / f"step-{lesson.id}-{i + 1}.png"))


@pytest.mark.slow
def test_arrow_keys_move_and_the_presenter_view_follows_and_leads(page: Page, app_url):
    lesson = _projected(page, app_url, "brdp-svt", 0)
    presenter = page.context.new_page()  # the teacher's laptop tab, in the same browser
    presenter.set_viewport_size({"width": 1280, "height": 800})
    presenter.goto(f"{app_url}/?{query_string({'seq': lesson.id, 'step': '1', 'presenter': 'true'})}", timeout=TIMEOUT)
    view = presenter.locator(".presenter")
    expect(view.locator(".note")).to_have_text(notation.plain(lesson.steps[0].say), timeout=TIMEOUT)
    expect(view.locator(".next")).to_have_text(notation.plain(lesson.steps[1].title))
    expect(view.locator(".status")).to_have_text("Following the projected tab.", timeout=TIMEOUT)

    page.bring_to_front()
    page.keyboard.press("ArrowRight")  # the projector moves on by itself
    expect(page).to_have_url(re.compile(r".*[?&]step=2(&|$)"), timeout=TIMEOUT)
    _landed(page, lesson, 1)
    assert "/brdp?" in page.url and "present=true" in page.url
    expect(view.locator(".where")).to_have_text(f"view 2 of {len(lesson.steps)}", timeout=TIMEOUT)
    expect(view.locator(".note")).to_have_text(notation.plain(lesson.steps[1].say))
    expect(view.locator(".next")).to_have_text(notation.plain(lesson.steps[2].title))
    assert lesson.steps[1].say not in page.content()
    presenter.screenshot(path=str(ARTIFACTS / "presenter-view.png"))
    page.screenshot(path=str(ARTIFACTS / "projector-view.png"))

    presenter.bring_to_front()
    presenter.keyboard.press("ArrowRight")  # the teacher moves the projector from the laptop
    page.wait_for_function(AT_STEP, arg=2, timeout=TIMEOUT)
    _landed(page, lesson, 2)
    expect(view.locator(".note")).to_have_text(notation.plain(lesson.steps[2].say), timeout=TIMEOUT)
    view.get_by_role("button", name="← Previous").click()
    page.wait_for_function(AT_STEP, arg=1, timeout=TIMEOUT)
    _landed(page, lesson, 1)

    page.bring_to_front()
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(r".*/baselines\?.*[?&]step=1(&|$)"), timeout=TIMEOUT)
    _landed(page, lesson, 0)
    expect(view.locator(".where")).to_have_text(f"view 1 of {len(lesson.steps)}", timeout=TIMEOUT)


@pytest.mark.slow
def test_the_arrow_keys_leave_a_focused_slider_alone(page: Page, app_url):
    lesson = _projected(page, app_url, "eps", 0)
    slider = page.locator(".st-key-dpx-panel-epsilon-promise").get_by_role("slider", name="ε — privacy-loss budget")
    before = slider.get_attribute("aria-valuetext")
    slider.focus()
    page.keyboard.press("ArrowRight")
    expect(slider).not_to_have_attribute("aria-valuetext", before, timeout=TIMEOUT)
    wait_for_app(page)
    assert re.search(r"[?&]step=1(&|$)", page.url)
    page.locator(".st-key-dpx-panel-epsilon-promise h2").click()  # focus leaves the slider: → is the lesson's again
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r".*[?&]step=2(&|$)"), timeout=TIMEOUT)
    _landed(page, lesson, 1)


@pytest.mark.slow
def test_a_lesson_being_built_survives_a_pasted_address(page: Page, app_url):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{app_url}/baselines?eps=2", timeout=TIMEOUT)
    wait_for_app(page)
    page.get_by_role("button", name="My lesson").click()
    page.get_by_role("button", name="Add this view to my lesson").click()
    wait_for_app(page)
    expect(page.get_by_test_id("stPopoverBody").locator("ol li")).to_have_count(1, timeout=TIMEOUT)
    page.keyboard.press("Escape")
    page.goto(f"{app_url}/svt?eps=0.5", timeout=TIMEOUT)  # the teacher pastes an address: a new session
    wait_for_app(page)
    page.get_by_role("button", name="My lesson").click()
    body = page.get_by_test_id("stPopoverBody")
    expect(body.locator("ol li")).to_have_count(1, timeout=TIMEOUT)  # the first view came back
    page.get_by_role("button", name="Add this view to my lesson").click()
    wait_for_app(page)
    expect(body.locator("ol li")).to_have_count(2, timeout=TIMEOUT)
    link = body.locator("code").last.inner_text().strip()
    lesson = sequences.decode(re.search(r"seq=([^&]+)", link).group(1))
    assert [(s.page, s.query.get("eps")) for s in lesson.steps] == [("baselines", "2"), ("svt", "0.5")]
    body.get_by_role("button", name="Start again").click()  # asks first
    expect(body.get_by_role("button", name="Yes, drop all 2 views")).to_be_visible(timeout=TIMEOUT)
    expect(body.locator("ol li")).to_have_count(2)
    body.get_by_role("button", name="Yes, drop all 2 views").click()
    expect(body.get_by_text("No views yet.")).to_be_visible(timeout=TIMEOUT)
    # the tab forgets it once the page's keeper has run after the drop (on a busy machine, a moment later)
    page.wait_for_function("() => !window.sessionStorage.getItem('dpx-my-lesson')", timeout=TIMEOUT)
    page.goto(f"{app_url}/baselines", timeout=TIMEOUT)  # and dropped means dropped, in this tab too
    wait_for_app(page)
    page.get_by_role("button", name="My lesson").click()
    expect(page.get_by_test_id("stPopoverBody").get_by_text("No views yet.")).to_be_visible(timeout=TIMEOUT)


#: Counts the keeper's asks in this window (the keeper takes the object it finds, see app.presenting).
COUNT_ASKS = """(() => {
  let tries = 0;
  window.dpxKeptAsks = 0;
  window.dpxKept = { timer: null, moved: 0,
    get tries() { return tries; },
    set tries(v) { if (v > tries) window.dpxKeptAsks += 1; tries = v; } };
})()"""


@pytest.mark.slow
def test_a_new_session_asks_the_tab_for_its_lesson_once(page: Page, app_url):
    """The run that reads the lesson back from the tab already hands its code to the tab, so the tab asks once: each
    ask is a rerun of the page, and one sent just after a click on Next took that move's place (the lesson stayed on
    its view, with the next view's address)."""
    code = sequences.encode([sequences.Step("baselines", {"eps": "2"}), sequences.Step("svt", {"c": "5"})])
    page.goto(f"{app_url}/_stcore/health", timeout=TIMEOUT)
    page.evaluate("(code) => window.sessionStorage.setItem('dpx-my-lesson', code)", code)
    page.add_init_script(COUNT_ASKS)
    page.goto(f"{app_url}/baselines", timeout=TIMEOUT)
    wait_for_app(page)
    page.wait_for_function("() => window.dpxKeptAsks > 0 && window.dpxKept.tries === 0", timeout=TIMEOUT)
    assert page.evaluate("() => window.dpxKeptAsks") == 1
    page.get_by_role("button", name="My lesson").click()
    expect(page.get_by_test_id("stPopoverBody").locator("ol li")).to_have_count(2, timeout=TIMEOUT)


#: A window that gets a new session several times without a reload (the server restarted, the socket reconnected):
#: each new session's keeper renders with no code, then with the code the page read back. Driven on the app's own
#: origin (its health address runs no script of the app's, so nothing else touches the tab's storage).
RECONNECTS = """async (js) => {
  const keeper = (await import(URL.createObjectURL(new Blob([js], {type: 'text/javascript'})))).default;
  window.sessionStorage.setItem('dpx-my-lesson', 'kept-code');
  const asked = [];
  for (let session = 0; session < 6; session++) {
    keeper({data: {code: null}, setTriggerValue: (name, value) => asked.push([session, name, value])});
    keeper({data: {code: 'kept-code'}, setTriggerValue: () => {}});  // the page read it back
  }
  return asked;
}"""


@pytest.mark.slow
def test_the_lesson_keeper_hands_the_lesson_back_to_every_new_session_of_a_window(page: Page, app_url):
    page.goto(f"{app_url}/_stcore/health", timeout=TIMEOUT)
    asked = page.evaluate(RECONNECTS, presenting._KEEPER_JS)
    assert asked == [[session, "kept", "kept-code"] for session in range(6)]
    assert page.evaluate("() => window.sessionStorage.getItem('dpx-my-lesson')") == "kept-code"


#: Pages that open with their idea's picture (the tools open with their answer, and the privacy filter's page with a
#: five-line introduction pushes its chart's last legend row below 720 px).
PICTURE_FIRST = ["", "baselines", "brdp", "noise_reduction", "svt", "r2dp", "audit"]


@pytest.mark.slow
@pytest.mark.parametrize("path", PICTURE_FIRST, ids=[p or "home" for p in PICTURE_FIRST])
def test_presentation_mode_fits_the_first_chart_under_the_title(page: Page, app_url, path):
    page.set_viewport_size(PROJECTOR)
    page.goto(f"{app_url}/{path}?present=true", timeout=TIMEOUT)
    wait_for_app(page)
    page.wait_for_selector("[data-testid='stMain'] [data-testid='stPlotlyChart'] .main-svg", timeout=TIMEOUT)
    title = page.locator("[data-testid='stMain'] h1").first.bounding_box()
    chart = page.locator("[data-testid='stMain'] [data-testid='stPlotlyChart']").first.bounding_box()
    assert title["y"] >= 0 and title["y"] + title["height"] <= chart["y"]
    assert chart["y"] + chart["height"] <= PROJECTOR["height"], chart
    main = page.get_by_test_id("stMain")  # the strip's buttons moved to the sidebar
    expect(main.get_by_role("button", name="Share this view")).to_have_count(0)
    expect(main.get_by_role("button", name="My lesson")).to_have_count(0)
    expect(main.get_by_text("Presentation mode")).to_have_count(0)


@pytest.mark.slow
def test_the_presenter_view_draws_a_teachers_note_as_plain_text(page: Page, app_url):
    note = "<b>not bold</b> **not bold either** [no link](http://example.org)"
    code = sequences.encode([sequences.Step("baselines", {}, note, "classic-noise", "Noise"), sequences.Step("svt")])
    page.goto(f"{app_url}/?{query_string({'seq': code, 'step': '1', 'presenter': 'true'})}", timeout=TIMEOUT)
    shown = page.locator(".presenter .note")
    expect(shown).to_have_text(note, timeout=TIMEOUT)
    expect(shown.locator("b, strong, a")).to_have_count(0)
    expect(page.locator(".presenter .next")).to_have_text("Sparse vector technique")


@pytest.mark.slow
def test_a_projected_step_and_the_presenter_view_pass_axe(page: Page, app_url):
    from tests.e2e.test_accessibility import _serious, _settle

    lesson = _projected(page, app_url, "brdp-svt", 3)
    _settle(page)
    assert _serious(page) == []
    page.goto(f"{app_url}/?{query_string({'seq': lesson.id, 'step': '4', 'presenter': 'true'})}", timeout=TIMEOUT)
    page.locator(".presenter .note").wait_for(timeout=TIMEOUT)
    _settle(page)
    assert _serious(page) == []


@pytest.mark.slow
def test_the_arrow_keys_walk_a_whole_lesson_and_back(page: Page, app_url):
    """Every → lands on the next step's figure, every ← on the previous one's, across pages and parts."""
    lesson = _projected(page, app_url, "brdp-svt", 0)
    last = len(lesson.steps) - 1
    for i in [*range(1, last + 1), *range(last - 1, -1, -1)]:
        page.keyboard.press("ArrowRight" if i > page.evaluate("() => window.dpxStep.data.step") else "ArrowLeft")
        expect(page).to_have_url(re.compile(rf".*/{lesson.steps[i].page}\?.*[?&]step={i + 1}(&|$)"), timeout=TIMEOUT)
        _landed(page, lesson, i)
        shown = dict(parse_qsl(urlsplit(page.url).query))  # the address names what the page shows (params.sync_url)
        assert {k: shown.get(k) for k in lesson.steps[i].query} == dict(lesson.steps[i].query), (i + 1, shown)


AHEAD = "() => { const f = document.querySelector('iframe.dpx-ahead'); return f ? f.src : null; }"
FRAME_DONE = """() => { const f = document.querySelector('iframe.dpx-ahead');
  const d = f && f.contentDocument;
  return !!(d && d.querySelector('[data-testid="stMain"]') && !d.querySelector('[data-testid="stStatusWidget"]')
            && d.querySelector('.st-key-dpx-step-nav')); }"""


@pytest.mark.slow
def test_while_the_teacher_speaks_the_next_view_is_prepared_in_a_hidden_frame(page: Page, app_url):
    """In presentation mode a landed step opens the next step's address in a hidden, inert frame (the server computes
    that view before → is pressed); a move replaces the frame without adding to the tab's history; the frame's own
    step agent stays still (it neither lands nor answers the presenter view); a lesson read at one's own pace (not
    presenting) prepares nothing."""
    lesson = _projected(page, app_url, "brdp-svt", 1)
    page.wait_for_function(f"() => ({AHEAD})() !== null", timeout=TIMEOUT)
    src = urlsplit(page.evaluate(AHEAD))
    assert src.path.rstrip("/").endswith("/" + lesson.steps[2].page)
    assert dict(parse_qsl(src.query))["step"] == "3"
    frame = page.locator("iframe.dpx-ahead")
    assert frame.get_attribute("aria-hidden") == "true" and frame.get_attribute("inert") is not None
    assert not frame.is_visible()
    page.wait_for_function(FRAME_DONE, timeout=TIMEOUT)  # the server ran the next view for the frame
    agent = "() => (document.querySelector('iframe.dpx-ahead').contentWindow.dpxStep || {}).data"
    assert page.evaluate(agent) is None  # the frame's step agent holds no step: it neither lands nor listens
    history = page.evaluate("() => history.length")
    page.keyboard.press("ArrowRight")
    _landed(page, lesson, 2)
    page.wait_for_function(
        f"() => {{ const s = ({AHEAD})(); return s !== null && s.includes('step=4'); }}", timeout=TIMEOUT
    )
    assert page.evaluate("() => document.querySelectorAll('iframe.dpx-ahead').length") == 1
    assert page.evaluate("() => history.length") == history + 1  # the move itself, nothing for the hidden frames
    page.go_back()
    _landed(page, lesson, 1)

    page.goto(_url(app_url, lesson, 1, present=False), timeout=TIMEOUT)
    _landed(page, lesson, 1)
    page.wait_for_timeout(3000)
    assert page.evaluate(AHEAD) is None
