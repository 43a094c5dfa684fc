"""A lesson in chromium: ``marimo run`` serves notebooks/baselines.py; moving the ε slider redraws the first chart,
and an exercise answered in the page is checked at once."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS, serve_lesson

TIMEOUT = 60_000
#: one number of the first chart (the belief band at prior 50 %): it moves with ε
BAND = "el => JSON.stringify(Array.from(el._fullData[1].y).slice(100, 101))"


@pytest.fixture(scope="module")
def lesson_url():
    yield from serve_lesson("baselines")


def test_moving_a_slider_redraws_the_chart_and_exercises_answer(page: Page, lesson_url):
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(lesson_url + "/", timeout=TIMEOUT)
    chart = page.locator(".js-plotly-plot").first
    expect(chart).to_be_visible(timeout=TIMEOUT)
    expect(page.get_by_role("heading", name="What ε and δ promise").first).to_be_visible(timeout=TIMEOUT)
    # marimo may draw the chart once more while the lesson's cells settle (seen on a loaded CI machine): wait for it
    deadline = time.monotonic() + 30
    while chart.evaluate(BAND) != "[0.7310585786300049]" and time.monotonic() < deadline:
        time.sleep(0.1)
    before = chart.evaluate(BAND)
    assert before == "[0.7310585786300049]"  # 50 % moves to at most e/(1 + e) at ε = 1
    slider = page.get_by_role("slider").first
    slider.focus()
    page.keyboard.press("ArrowRight")  # ε 1 → 1.2
    deadline = time.monotonic() + 30
    while chart.evaluate(BAND) == before and time.monotonic() < deadline:
        time.sleep(0.05)
    after = chart.evaluate(BAND)
    assert after != before and float(after.strip("[]")) > float(before.strip("[]"))
    page.screenshot(path=str(ARTIFACTS / "lesson-baselines.png"))

    answer = page.get_by_placeholder("your answer").first
    answer.fill("60")
    answer.press("Enter")
    expect(page.get_by_text("Not yet: that is too high.").first).to_be_visible(timeout=TIMEOUT)
    answer.fill("52")
    answer.press("Enter")
    expect(page.get_by_text("Right. The odds 1 : 1").first).to_be_visible(timeout=TIMEOUT)
    assert page.get_by_text("Traceback").count() == 0


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)], ids=["desktop", "phone"])
def test_a_lesson_has_no_serious_accessibility_violation(page: Page, lesson_url, size):
    """marimo's own sidebar toggles and "…" menu are icon-only buttons and its Back link is light grey; the lessons'
    head script names the buttons and their stylesheet gives the link full contrast (notebooks/lesson_head.html,
    notebooks/lesson.css). The settings in the address reach the controls (an app page's lesson link)."""
    from axe_playwright_python.sync_playwright import Axe

    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(lesson_url + "/?eps=2&delta=1e-06", timeout=TIMEOUT)
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=TIMEOUT)
    expect(page.get_by_role("heading", name="What ε and δ promise").first).to_be_visible(timeout=TIMEOUT)
    page.wait_for_timeout(1500)
    found = Axe().run(page).response["violations"]
    serious = [
        (v["id"], [n["target"] for n in v["nodes"][:3]]) for v in found if v["impact"] in ("critical", "serious")
    ]
    assert not serious, serious
    unnamed = page.evaluate(
        "() => Array.from(document.querySelectorAll('button')).filter(b => b.offsetParent && "
        "!b.textContent.trim() && !b.getAttribute('aria-label')).length"
    )
    assert unnamed == 0
    # ε = 2 from the address: 50 % moves to at most e²/(1 + e²) = 0.8808 in the first chart
    band = float(page.locator(".js-plotly-plot").first.evaluate(BAND).strip("[]"))
    assert abs(band - 0.8807970779778823) < 1e-9, band
    if size[0] > 1000:  # the settings sidebar is open on a wide screen: δ is chosen from its stops, in words
        chosen = page.locator("select").first.evaluate("s => s.options[s.selectedIndex].text")
        assert chosen == "10⁻⁶", chosen


def test_a_lesson_asks_nothing_of_another_site(page: Page, lesson_url):
    """Everything a lesson shows is served by the lesson itself: no request leaves its address while it loads, draws
    its charts and redraws one (marimo's chart component would otherwise fetch MathJax from a public CDN)."""
    own = urlsplit(lesson_url).netloc
    elsewhere: list[str] = []
    page.on(
        "request",
        lambda r: (
            elsewhere.append(r.url)
            if urlsplit(r.url).scheme not in ("data", "blob") and urlsplit(r.url).netloc != own
            else None
        ),
    )
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(lesson_url + "/", timeout=TIMEOUT)
    chart = page.locator(".js-plotly-plot").first
    expect(chart).to_be_visible(timeout=TIMEOUT)
    before = chart.evaluate(BAND)
    slider = page.get_by_role("slider").first
    slider.focus()
    page.keyboard.press("ArrowRight")
    deadline = time.monotonic() + 30
    while chart.evaluate(BAND) == before and time.monotonic() < deadline:
        time.sleep(0.05)
    page.wait_for_timeout(1000)
    assert page.locator(".js-plotly-plot").count() >= 2  # the page really drew its pictures
    assert elsewhere == [], elsewhere


#: the last picture whose in-figure slider runs over ε (the baselines' accuracy against ε)
LAST_EPS_DECK = """() => {
  const charts = Array.from(document.querySelectorAll('marimo-plotly'))
    .map(h => (h.shadowRoot || h).querySelector('.js-plotly-plot'))
    .filter(el => el && el.layout && (el.layout.sliders || []).some(s => s.name === 'eps'));
  return charts[charts.length - 1];
}"""
#: that picture's stop, its drawn width, and whether the browser draws it now (false while its section is out of
#: sight and skipped)
SEEN = f"""() => {{
  const el = ({LAST_EPS_DECK})();
  if (!el) return {{stop: null, width: 0, drawn: false}};
  const s = el.layout.sliders.find(s => s.name === 'eps');
  return {{stop: s.steps[s.active].value, width: el._fullLayout.width,
          drawn: el.checkVisibility({{contentVisibilityAuto: true}})}};
}}"""


def test_a_section_out_of_sight_is_skipped_and_up_to_date_when_scrolled_to(page: Page, lesson_url):
    """Sections far below the reader are not restyled on every move (notebooks/lesson.css): the browser skips them
    until they come near. A picture redrawn while skipped must still show the new value, at its full width, once the
    reader scrolls to it."""
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(lesson_url + "/", timeout=TIMEOUT)
    chart = page.locator(".js-plotly-plot").first
    expect(chart).to_be_visible(timeout=TIMEOUT)
    # far below the first screen once the sections above have their height (on a loaded machine they grow late,
    # and the picture is near the window until then): skipped
    page.wait_for_function(f"() => {{ const s = ({SEEN})(); return s.stop === '1' && !s.drawn; }}", timeout=TIMEOUT)
    before = chart.evaluate(BAND)
    slider = page.get_by_role("slider").first
    slider.focus()
    page.keyboard.press("ArrowRight")  # ε 1 → 1.2
    page.wait_for_function(f"() => ({SEEN})().stop === '1.2'", timeout=TIMEOUT)
    assert chart.evaluate(BAND) != before
    page.evaluate(f"() => ({LAST_EPS_DECK})().scrollIntoView({{block: 'center'}})")
    page.wait_for_function(f"() => ({SEEN})().drawn", timeout=TIMEOUT)
    seen = page.evaluate(SEEN)
    assert seen["stop"] == "1.2"
    assert seen["width"] > 600  # drawn at the column's width, not at a skipped section's
