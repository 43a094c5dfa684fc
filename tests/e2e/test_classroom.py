"""Classroom features in Debian chromium: a shared link restores a moved view in a fresh browser context,
presentation mode hides the sidebar and enlarges the type, and an exercise is answered in the page."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS, press_slider
from tests.e2e.test_browser import wait_for_app as _wait_once

VIEWPORT = {"width": 1400, "height": 1000}
TIMEOUT = 60_000  # the machine is shared: give slow reruns room


def wait_for_app(page: Page) -> None:
    """Wait until the current script run is over (twice: a rerun may start just after the first wait)."""
    _wait_once(page)
    _wait_once(page)


def settled_metrics(page: Page, expected: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The page's metrics once they equal ``expected`` or 60 s have passed (a fresh page renders progressively)."""
    got: list[tuple[str, str]] = []
    for _ in range(120):
        got = metrics(page)
        if got == expected:
            break
        page.wait_for_timeout(500)
    return got


def metrics(page: Page) -> list[tuple[str, str]]:
    """Every (label, value) metric pair in the main area, in page order."""
    boxes = page.locator("[data-testid='stMain'] [data-testid='stMetric']")
    return [
        (
            b.locator("[data-testid='stMetricLabel']").inner_text().strip(),
            b.locator("[data-testid='stMetricValue']").inner_text().strip(),
        )
        for b in boxes.all()
    ]


def press(page: Page, slider_name: str, key: str, times: int) -> None:
    slider = page.get_by_role("slider", name=slider_name)
    press_slider(slider, key, times)
    wait_for_app(page)


def share_link(page: Page) -> str:
    page.get_by_role("button", name="Share this view").click()
    code = page.get_by_test_id("stPopoverBody").locator("code").first
    expect(code).to_be_visible(timeout=TIMEOUT)
    url = code.inner_text().strip()
    page.keyboard.press("Escape")
    return url


# page, its ε slider, a second slider, key pressed on each
CASES = [
    ("svt", "ε — privacy-loss budget", "c — yes-answers before SVT stops", ("eps", "c")),
    ("brdp", "ε — privacy-loss budget", "θ — error tolerance", ("eps", "theta")),
    ("baselines", "ε — privacy-loss budget", "T — number of releases", ("eps", "T")),
]


@pytest.mark.slow
@pytest.mark.parametrize("path,eps_name,other_name,keys", CASES, ids=[c[0] for c in CASES])
def test_shared_link_restores_the_view_in_a_fresh_context(
    page: Page, browser, app_url, path, eps_name, other_name, keys
):
    page.set_viewport_size(VIEWPORT)
    page.goto(f"{app_url}/{path}", timeout=TIMEOUT)
    wait_for_app(page)
    default = metrics(page)
    press(page, eps_name, "ArrowLeft", 3)
    press(page, other_name, "ArrowLeft", 2)
    for key in keys:
        page.wait_for_url(re.compile(rf".*[?&]{key}=.*"), timeout=TIMEOUT)
    # the popover is rebuilt by each rerun: once the last rerun is done it holds the address bar's query
    for _ in range(40):
        url = share_link(page)
        if dict(parse_qsl(urlsplit(url).query)).items() >= dict(parse_qsl(urlsplit(page.url).query)).items():
            break
        page.wait_for_timeout(500)
    # the link holds what the address bar holds, plus the controls left at their defaults
    assert dict(parse_qsl(urlsplit(url).query)).items() >= dict(parse_qsl(urlsplit(page.url).query)).items()
    assert urlsplit(url).path == f"/{path}"
    assert url.startswith(app_url)
    wait_for_app(page)
    moved = metrics(page)
    assert moved and moved != default
    values = {n: page.get_by_role("slider", name=n).get_attribute("aria-valuetext") for n in (eps_name, other_name)}

    fresh = browser.new_context(viewport=VIEWPORT)
    other = fresh.new_page()
    other.goto(url, timeout=TIMEOUT)
    wait_for_app(other)
    for name, value in values.items():
        expect(other.get_by_role("slider", name=name)).to_have_attribute("aria-valuetext", value, timeout=TIMEOUT)
    assert settled_metrics(other, moved) == moved
    other.screenshot(path=str(ARTIFACTS / f"classroom-shared-{path}.png"))
    fresh.close()


H1_PX = "parseFloat(getComputedStyle(document.querySelector(\"[data-testid='stMain'] h1\")).fontSize)"


def _font_px(page: Page, selector: str) -> float:
    return float(page.evaluate(f"() => parseFloat(getComputedStyle(document.querySelector({selector!r})).fontSize)"))


@pytest.mark.slow
def test_presentation_mode_hides_the_sidebar_and_enlarges_the_type(page: Page, app_url):
    page.set_viewport_size(VIEWPORT)
    page.goto(f"{app_url}/baselines", timeout=TIMEOUT)
    wait_for_app(page)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar).to_be_visible(timeout=TIMEOUT)
    title = _font_px(page, "[data-testid='stMain'] h1")
    body = _font_px(page, "[data-testid='stMain'] [data-testid='stMarkdownContainer'] p")
    chart = page.locator(".js-plotly-plot").first.bounding_box()["width"]
    page.screenshot(path=str(ARTIFACTS / "classroom-normal.png"))

    page.get_by_text("Presentation mode").click()
    page.wait_for_url(re.compile(r".*present=true.*"), timeout=TIMEOUT)
    wait_for_app(page)
    expect(sidebar).to_be_hidden(timeout=TIMEOUT)
    expect(page.get_by_test_id("stExpandSidebarButton")).to_be_visible()  # the teacher's way back to the controls
    page.wait_for_function(f"() => {H1_PX} > {title}", timeout=TIMEOUT)
    assert _font_px(page, "[data-testid='stMain'] h1") >= 1.2 * title
    assert _font_px(page, "[data-testid='stMain'] [data-testid='stMarkdownContainer'] p") > body
    page.wait_for_timeout(500)  # Plotly resizes to the wider column
    assert page.locator(".js-plotly-plot").first.bounding_box()["width"] > 1.2 * chart
    page.screenshot(path=str(ARTIFACTS / "classroom-presentation.png"))

    # the sidebar's controls stay one click away, and switching back restores the normal layout
    page.get_by_test_id("stExpandSidebarButton").click()
    expect(sidebar).to_be_visible(timeout=TIMEOUT)
    expect(page.get_by_role("slider", name="ε — privacy-loss budget")).to_be_visible()
    page.get_by_text("Presentation mode").click()
    page.wait_for_url(re.compile(r"^(?!.*present=true).*$"), timeout=TIMEOUT)
    page.wait_for_function(f"() => {H1_PX} < {title + 0.5}", timeout=TIMEOUT)


@pytest.mark.slow
def test_an_exercise_is_answered_in_the_page(page: Page, app_url):
    """Try this: a wrong answer gets a hint (not the value), the answer at the precision shown is accepted, and the
    worked solution stays hidden until asked for."""
    page.set_viewport_size(VIEWPORT)
    page.goto(f"{app_url}/baselines", timeout=TIMEOUT)
    wait_for_app(page)
    box = page.get_by_label("Your answer", exact=True).first
    box.scroll_into_view_if_needed()
    expect(page.get_by_text("Worked solution.")).to_have_count(0)
    box.fill("7")
    box.press("Enter")
    hint = page.get_by_test_id("stAlert").filter(has_text="Not yet").first
    expect(hint).to_be_visible(timeout=TIMEOUT)
    assert "14.06" not in hint.inner_text()
    box = page.get_by_label("Your answer", exact=True).first
    box.fill("14.06")
    box.press("Enter")
    expect(page.get_by_test_id("stAlert").filter(has_text="Right").first).to_be_visible(timeout=TIMEOUT)
    expect(page.get_by_text("Worked solution.").first).to_be_visible(timeout=TIMEOUT)
    link = page.get_by_role("link", name="Open this page with these settings").first
    href = link.get_attribute("href").removeprefix("./")
    assert href == "baselines?eps=0.5&delta=1e-05&sens=2&calib=analytic"
    # the exercise's link, opened as a reader would, shows the σ of the answer
    page.goto(f"{app_url}/{href}", timeout=TIMEOUT)
    wait_for_app(page)
    sigma = page.locator("[data-testid='stMetric']").filter(has_text="Gaussian noise scale σ").first
    expect(sigma.get_by_test_id("stMetricValue")).to_have_text("14.06", timeout=TIMEOUT)
