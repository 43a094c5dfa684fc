"""Presentation mode and lesson sequences in chromium at a projector's 1280×720: chart ticks ≥ 18 px, no toolbar,
no glossary strip; a ready-made lesson's Next link stays in the same tab, keeps presentation mode and opens the next
view's settings; a bad lesson link shows a message."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from app import sequences
from tests.e2e.test_browser import wait_for_app

TIMEOUT = 60_000


def _open(page: Page, url: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(url, timeout=TIMEOUT)
    wait_for_app(page)
    page.wait_for_timeout(1000)


def test_presentation_scales_charts_and_hides_chrome(page: Page, app_url):
    _open(page, f"{app_url}/baselines?present=true")
    page.wait_for_selector(".xtick text", timeout=TIMEOUT)
    sizes = page.evaluate(
        "() => Array.from(document.querySelectorAll('.xtick text, .ytick text'))"
        ".map(t => t.getBoundingClientRect().height > 0 ? parseFloat(getComputedStyle(t).fontSize)"
        " : 99)"
    )
    assert sizes and min(sizes) >= 18, sizes
    assert not page.locator("[data-testid='stToolbarActions']").is_visible()
    expect(page.get_by_test_id("stExpandSidebarButton")).to_be_visible()  # the controls stay one click away
    assert not page.locator("[data-testid='stMainMenu']").is_visible()
    expect(page.get_by_role("button", name="ε (epsilon)")).to_have_count(0)  # the glossary strip is left out
    _open(page, f"{app_url}/baselines")
    expect(page.get_by_role("button", name="ε (epsilon)")).to_have_count(1, timeout=TIMEOUT)


def test_lesson_next_keeps_tab_and_presentation(page: Page, app_url):
    _open(page, f"{app_url}/?eps=1&seq=eps&step=1&present=true")
    strip = page.locator(".st-key-lesson-strip")
    nav = page.locator(".st-key-dpx-step-nav")  # presenting, Previous / Next are beside the step's panel title
    expect(nav).to_contain_text("view 1 of 6", timeout=TIMEOUT)
    expect(strip).not_to_contain_text("view 1 of 6")  # said once, beside the title
    expect(strip).to_contain_text(f"{sequences.LESSONS['eps'].title} · {sequences.LESSONS['eps'].steps[0].title}")
    pages_before = len(page.context.pages)
    nav.get_by_role("link", name=re.compile("Next")).click()
    expect(page).to_have_url(re.compile(r".*step=2.*"), timeout=TIMEOUT)
    wait_for_app(page)
    assert len(page.context.pages) == pages_before
    assert "present=true" in page.url and "eps=0.1" in page.url
    eps = page.get_by_role("slider", name="ε — privacy-loss budget")  # the page's control, not the picture's
    expect(eps).to_have_attribute("aria-valuetext", "0.1", timeout=TIMEOUT)
    expect(nav).to_contain_text("view 2 of 6", timeout=TIMEOUT)
    nav.get_by_role("link", name=re.compile("Previous")).click()
    expect(page).to_have_url(re.compile(r".*step=1.*"), timeout=TIMEOUT)
    wait_for_app(page)
    expect(eps).to_have_attribute("aria-valuetext", "1", timeout=TIMEOUT)


def test_bad_lesson_link_shows_a_message(page: Page, app_url):
    _open(page, f"{app_url}/baselines?seq=nonsense&step=2")
    message = page.get_by_text(re.compile("This lesson link could not be read"))
    expect(message).to_be_visible(timeout=TIMEOUT)
    expect(message).to_contain_text("“nonsense” this app does not have")  # in words: no address key, no lesson id
    expect(message).not_to_contain_text("seq:")
    expect(page.locator("h1")).to_be_visible()


def test_exercise_link_stays_in_the_tab_with_presentation(page: Page, app_url):
    _open(page, f"{app_url}/baselines?present=true")
    pages_before = len(page.context.pages)
    link = page.get_by_role("link", name="Open this page with these settings").first
    expect(link).to_be_visible(timeout=TIMEOUT)
    assert link.get_attribute("target") in (None, "", "_self")
    link.click()
    expect(page).to_have_url(re.compile(r".*eps=0\.5.*"), timeout=TIMEOUT)
    wait_for_app(page)
    assert len(page.context.pages) == pages_before and "present=true" in page.url


def test_share_copy_button_is_visible_without_hover(page: Page, app_url):
    _open(page, f"{app_url}/baselines")
    page.get_by_role("button", name="Share this view").click()
    body = page.get_by_test_id("stPopoverBody")
    expect(body.locator("code").first).to_be_visible(timeout=TIMEOUT)
    button = body.locator("button[title*='Copy' i], button[aria-label*='Copy' i]").first
    page.mouse.move(0, 0)  # not hovering the code block
    shown = button.evaluate(
        "b => { let o = 1; for (let e = b; e; e = e.parentElement) { const s = getComputedStyle(e);"
        " if (s.visibility === 'hidden' || s.display === 'none') return 0; o *= +s.opacity; }"
        " return o; }"
    )
    assert shown == 1.0


def test_my_lesson_link_round_trip(page: Page, app_url):
    """A teacher adds two views on two pages (moving between them in the app); the link in "My lesson" opens view 1 on
    its own page (not a blank page under a doubled path) and Next reaches view 2 with its settings."""
    _open(page, f"{app_url}/baselines?eps=2")
    page.get_by_role("button", name="My lesson").click()
    page.get_by_role("button", name="Add this view to my lesson").click()
    wait_for_app(page)
    page.keyboard.press("Escape")
    # on to the next page through the app's own menu (the collected views live in this browser session)
    page.locator("[data-testid=stSidebar] [data-testid=stPageLink] a", has_text="Sparse vector technique").click()
    expect(page).to_have_url(re.compile(r".*/svt.*"), timeout=TIMEOUT)
    wait_for_app(page)
    page.get_by_role("button", name="My lesson").click()
    page.get_by_role("button", name="Add this view to my lesson").click()
    wait_for_app(page)
    body = page.get_by_test_id("stPopoverBody")
    views = body.locator("ol li")  # the two views, in order (escaped text: a note is never Markdown)
    expect(views).to_have_count(2, timeout=TIMEOUT)
    expect(views.nth(0)).to_contain_text("Gaussian & Laplace")
    expect(views.nth(1)).to_contain_text("Sparse vector technique")
    link = body.locator("code").last.inner_text().strip()
    assert link.startswith(f"{app_url}/baselines?") and "seq=~" in link, link
    _open(page, link)
    strip = page.locator(".st-key-lesson-strip")
    expect(strip).to_contain_text("Your lesson — view 1 of 2", timeout=TIMEOUT)
    expect(page.locator("h1").first).to_contain_text("Gaussian & Laplace")
    strip.get_by_role("link", name=re.compile("Next")).click()
    expect(page).to_have_url(re.compile(r".*/svt\?.*step=2.*"), timeout=TIMEOUT)
    wait_for_app(page)
    expect(page.locator(".st-key-lesson-strip")).to_contain_text("view 2 of 2", timeout=TIMEOUT)


def test_ready_made_lesson_opens_from_the_menu(page: Page, app_url):
    _open(page, f"{app_url}/brdp")
    page.get_by_role("button", name="My lesson").click()
    page.get_by_test_id("stPopoverBody").get_by_role("link", name=re.compile("BR-DP in 50 min")).click()
    expect(page).to_have_url(
        re.compile(r".*/baselines\?(?=.*[?&]seq=brdp(&|$))(?=.*[?&]step=1(&|$)).*"), timeout=TIMEOUT
    )
    wait_for_app(page)
    expect(page.locator(".st-key-lesson-strip")).to_contain_text("BR-DP in 50 min — view 1 of 6", timeout=TIMEOUT)
