"""End-to-end in Debian chromium: "Negotiate a budget" answers first. At θ = 50, confidence 0.95, Δ = 1 the first
thing on the page is the recommendation sentence, readable on a 390-px phone without scrolling sideways; the ε it
states is checked here against scipy's Laplace distribution."""

from __future__ import annotations

import math

import pytest
from playwright.sync_api import Page, expect
from scipy import stats

from tests.e2e.conftest import ARTIFACTS

TIMEOUT = 240_000  # a cold requirement runs every mechanism's search (several seconds on a loaded machine)
SENTENCE = "Use Laplace noise with ε = 0.060, δ = 0: each count is within ±50 of the truth in 95 % of releases."


@pytest.mark.slow
def test_answer_first_sentence_at_theta_50(page: Page, app_url):
    # independent check of the stated ε: Laplace at ε = 0.060 (b = 1/0.06) lands within ±50 at least 95 % of the time,
    # and ε = 0.059 (two significant digits, one step down) would not
    for eps, ok in ((0.060, True), (0.059, False)):
        p = stats.laplace.cdf(50, scale=1 / eps) - stats.laplace.cdf(-50, scale=1 / eps)
        assert bool(p >= 0.95) is ok
    assert math.log(20) / 50 < 0.060

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{app_url}/negotiate?theta=50&conf=0.95&sens=1")
    answer = page.locator("p.dpx-answer")
    expect(answer).to_have_text(SENTENCE, timeout=TIMEOUT)

    # answer first: above every chart and table
    top = answer.bounding_box()
    assert top is not None
    for sel in ("[data-testid=stPlotlyChart]", "[data-testid=stDataFrame]"):
        first = page.locator(f"{sel} >> visible=true").first
        first.wait_for(timeout=TIMEOUT)
        box = first.bounding_box()
        assert box is None or box["y"] > top["y"], sel
    # on a phone the whole sentence is inside the screen: it wraps instead of running off to the right
    assert top["x"] >= 0 and top["x"] + top["width"] <= 390 + 1
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390 + 1, width
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "negotiate-phone.png"), full_page=False)
