"""The first course's "Open … with this setting" link in chromium: the page it opens shows the setting the reader
chose in the chapter (the course and the page it opens both draw that control, and a page switch drops the page
it leaves from the address; the link's own values must survive that)."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import press_slider
from tests.e2e.test_browser import wait_for_app

TIMEOUT = 120_000


@pytest.mark.slow
def test_the_go_deeper_link_opens_the_paper_page_at_the_chapters_setting(page: Page, app_url):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{app_url}/course?chapter=noise", timeout=TIMEOUT)
    wait_for_app(page)
    slider = page.locator("[data-testid='stMain']").get_by_role("slider", name="ε — privacy-loss budget")
    start = slider.get_attribute("aria-valuetext")
    press_slider(slider, "ArrowLeft", 2)
    chosen = slider.get_attribute("aria-valuetext")
    assert chosen != start
    link = page.locator("[data-testid='stMain'] a").filter(has_text="with this setting").first
    # The slider shows its new stop at once, but the run that rewrites the link starts a moment later (the press is
    # sent after a short pause), so an idle page right after the press may still carry the old link.
    expect(link).to_have_attribute("href", re.compile(rf"[?&]eps={re.escape(chosen)}(&|$)"), timeout=TIMEOUT)
    wait_for_app(page)
    assert dict(parse_qsl(urlsplit(link.get_attribute("href")).query))["eps"] == chosen
    link.click()
    page.wait_for_url(lambda url: urlsplit(url).path.endswith("/baselines"), timeout=TIMEOUT)
    wait_for_app(page)
    page.wait_for_timeout(1500)  # the run after the switch writes the page's full address
    wait_for_app(page)
    assert dict(parse_qsl(urlsplit(page.url).query)).get("eps") == chosen, page.url
    eps = page.locator("[data-testid='stSidebar']").get_by_role("slider", name="ε — privacy-loss budget")
    assert eps.get_attribute("aria-valuetext") == chosen
