"""End-to-end in Debian chromium: home → Gaussian & Laplace, move ε by keyboard, chart and metric change,
the page's URL restores the same state in a fresh browser context, bad links show a message. Saves screenshots."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS, ROOT, press_slider

TIMEOUT = 30_000


def wait_for_app(page: Page) -> None:
    """Wait until Streamlit has finished the current script run and no element is left stale.

    The status widget alone is not enough: with the viewer toolbar it can be absent during the first run, so the
    root's ``data-test-script-state`` (set by Streamlit's frontend) and its stale markers are read as well.
    """
    page.wait_for_selector("[data-testid='stApp']", timeout=TIMEOUT)
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=TIMEOUT)
    page.wait_for_function(SETTLED_JS, timeout=TIMEOUT)
    page.wait_for_timeout(300)


SETTLED_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return app && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector('[data-testid="stStatusWidget"]')
    && !document.querySelector('[data-stale="true"]');
}"""


MAIN = '[data-testid="stMain"]'


def metric(page: Page, label: str) -> str:
    box = page.locator("[data-testid='stMetric']").filter(has_text=label).first
    return box.locator("[data-testid='stMetricValue']").inner_text()


PEAK_JS = "Math.max(...Array.from(document.querySelector('.js-plotly-plot')._fullData[0].y))"


def first_chart_peak(page: Page) -> float:
    """Largest y of the first trace of the first Plotly chart (the Gaussian noise density, decoded by Plotly)."""
    return page.evaluate(f"() => {PEAK_JS}")


def eps_slider(page: Page):
    # Streamlit ≥ 1.6x sliders are React Aria: the slider role is implicit on a hidden <input type=range>
    return page.get_by_role("slider", name="ε — privacy-loss budget")


def test_home_to_baselines_move_epsilon_and_share(page: Page, browser, app_url):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(app_url + "/", timeout=TIMEOUT)
    wait_for_app(page)
    expect(page.get_by_role("heading", name="DP Explorer")).to_be_visible(timeout=TIMEOUT)
    page.screenshot(path=str(ARTIFACTS / "home.png"), full_page=True)

    page.get_by_text("Open Gaussian & Laplace").click()  # a card far down the home page
    page.wait_for_url(re.compile(r".*/baselines.*"), timeout=TIMEOUT)
    wait_for_app(page)
    # the new page opens at its top, not at the home page's scroll position
    page.wait_for_function(f"() => document.querySelector({MAIN!r}).scrollTop < 5", timeout=TIMEOUT)
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=TIMEOUT)
    sigma_before = metric(page, "Gaussian noise scale σ")
    peak_before = first_chart_peak(page)
    slider = eps_slider(page)
    assert slider.get_attribute("aria-valuetext") == "1"

    press_slider(slider, "ArrowRight", 3)
    wait_for_app(page)
    expect(slider).to_have_attribute("aria-valuetext", "2", timeout=TIMEOUT)
    sigma_metric = page.locator("[data-testid='stMetric']").filter(has_text="Gaussian noise scale σ").first
    expect(sigma_metric).not_to_contain_text(sigma_before, timeout=TIMEOUT)
    sigma_after = metric(page, "Gaussian noise scale σ")
    assert float(sigma_after) < float(sigma_before)
    # less noise at ε = 2: the density chart was redrawn with a taller peak
    page.wait_for_function(f"() => {PEAK_JS} > {peak_before}", timeout=TIMEOUT)
    assert first_chart_peak(page) > peak_before
    assert page.locator(".js-plotly-plot").count() >= 5
    page.wait_for_url(re.compile(r".*eps=2.*"), timeout=TIMEOUT)
    shared = page.url
    page.screenshot(path=str(ARTIFACTS / "baselines.png"), full_page=False)
    page.screenshot(path=str(ROOT / "assets" / "screenshot.png"), full_page=False)

    fresh = browser.new_context(viewport={"width": 1400, "height": 1000})
    other = fresh.new_page()
    other.goto(shared, timeout=TIMEOUT)
    wait_for_app(other)
    expect(eps_slider(other)).to_have_attribute("aria-valuetext", "2", timeout=TIMEOUT)
    assert metric(other, "Gaussian noise scale σ") == sigma_after
    other.screenshot(path=str(ARTIFACTS / "shared-url.png"))
    fresh.close()


def test_bad_link_shows_message_and_page_works(page: Page, app_url):
    page.goto(app_url + "/baselines?eps=abc&T=1000000000", timeout=TIMEOUT)
    wait_for_app(page)
    alerts = page.locator("[data-testid='stAlert']")
    expect(alerts.filter(has_text="eps=abc")).to_be_visible(timeout=TIMEOUT)
    expect(alerts.filter(has_text="T=1000000000")).to_be_visible(timeout=TIMEOUT)
    assert page.locator("text=Traceback").count() == 0
    assert metric(page, "Gaussian noise scale σ") == "3.731"
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=TIMEOUT)
    page.screenshot(path=str(ARTIFACTS / "bad-link.png"))
