"""In the browser, heavy panels arrive after the rest of the page, without a click (app.background).

This server runs as users get it: jobs in worker processes, the rerun does not wait for a new job (the default).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS, serve

PLACEHOLDER = "computing in the background"


@pytest.fixture(scope="module")
def live_url() -> Iterator[str]:
    yield from serve({"DPX_BACKGROUND": "process", "DPX_HEAVY_WAIT": "0"})


def test_brdp_subsampling_panels_arrive_by_themselves(live_url: str, page: Page) -> None:
    page.goto(f"{live_url}/brdp?part=Subsampling&eps=3.3&n=10000")
    # the cheap part of the tab is there while Alg. 4 still runs in a worker
    expect(page.get_by_text(re.compile(PLACEHOLDER)).first).to_be_visible(timeout=60_000)
    expect(page.get_by_text("BR-DP acceptance").first).to_be_visible()
    t0 = time.monotonic()
    # ... and the panels replace their placeholders with no interaction (the page polls its jobs)
    expect(page.get_by_text("Alg. 4 p*, paper mode")).to_be_visible(timeout=120_000)
    expect(page.get_by_text(re.compile(PLACEHOLDER))).to_have_count(0, timeout=120_000)
    expect(page.get_by_text(re.compile("1 000 releases of the count"))).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "background-brdp-subsampling.png"), full_page=True)
    assert time.monotonic() - t0 < 120


def test_the_page_stays_live_while_a_panel_computes(live_url: str, page: Page) -> None:
    page.goto(f"{live_url}/brdp?part=Privacy&eps=0.7&T=300")
    expect(page.get_by_text(re.compile(PLACEHOLDER)).first).to_be_visible(timeout=60_000)
    # a control moved meanwhile updates the cheap metrics at once
    before = page.get_by_test_id("stMetricValue").first.inner_text()
    slider = page.get_by_role("slider", name=re.compile("ε — privacy-loss budget"))
    slider.focus()
    slider.press("ArrowRight")
    expect(page.get_by_test_id("stMetricValue").first).not_to_have_text(before, timeout=30_000)
    # and the composition panel for the new ε still arrives on its own
    expect(page.get_by_text(re.compile(r"ε after T = 300, exact"))).to_be_visible(timeout=120_000)
    expect(page.get_by_text(re.compile(PLACEHOLDER))).to_have_count(0, timeout=120_000)
