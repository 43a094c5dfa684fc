"""On a 390×844 phone the sidebar is folded away: the main area's "Open the settings" button unfolds it and shows the
page's own controls (past the page menu), and the page never scrolls sideways."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_browser import wait_for_app

PHONE = {"width": 390, "height": 844}
#: page, a control the learner came to move
CASES = [
    ("baselines", "ε — privacy-loss budget"),
    ("brdp", "ε — privacy-loss budget"),
    ("svt", "ε — privacy-loss budget"),
    ("negotiate", "θ — error tolerance"),
]


@pytest.mark.parametrize("path,control", CASES, ids=[c[0] for c in CASES])
def test_settings_open_from_the_main_area_on_a_phone(browser: Browser, app_url: str, path: str, control: str):
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.goto(f"{app_url}/{path}", timeout=60_000)
    wait_for_app(page)
    wait_for_app(page)  # a second run may follow the first at once (the browser reports its theme)
    slider = page.get_by_role("group", name=control)  # the visible slider (its <input> is a 1-px hidden one)
    expect(slider).not_to_be_in_viewport()  # folded away with the sidebar
    button = page.get_by_role("button", name="Open the settings")
    expect(button).to_be_in_viewport(timeout=60_000)  # at the top of the page, before any chart
    box = button.bounding_box()
    assert box and box["height"] >= 44, box  # a thumb-sized target
    button.tap()
    expect(slider).to_be_in_viewport(timeout=30_000)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"] + 1, width
    page.screenshot(path=str(ARTIFACTS / f"phone-settings-{path}.png"))
    ctx.close()
