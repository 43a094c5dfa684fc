"""Handouts in chromium: every handout opens from ``file://`` with every request off the file refused (and none
attempted), draws all its pictures, and moving an in-figure slider (the keyboard, then a drag of its grip) changes
the chart."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.handouts import topics

#: Which stop the slider is at, and what the picture shows: its traces' points, and the layout a frame may move (a
#: marker line, a label, the title).
SIGNATURE = """(gd) => [gd._fullLayout.sliders[0].active, JSON.stringify([
  gd._fullData.map((t) => [Array.from(t.x || []), Array.from(t.y || [])]),
  gd.layout.shapes || [], gd.layout.annotations || [], gd.layout.title || ''])]"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("handouts")


@pytest.mark.parametrize("topic", topics.TOPICS)
def test_a_handout_opens_offline_and_its_slider_moves_the_picture(topic, folder, page: Page):
    path = folder / f"{topic}.html"
    path.write_text(topics.build(topic).html(), encoding="utf-8")
    attempted: list[str] = []

    def refuse(route):
        if route.request.url.startswith("file://"):
            return route.continue_()
        attempted.append(route.request.url)
        return route.abort()

    page.route("**/*", refuse)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    plots = page.locator("div.plot")
    expect(page.locator("div.plot.js-plotly-plot")).to_have_count(plots.count(), timeout=60_000)
    assert plots.count() > 0
    chart = page.locator("div.plot.js-plotly-plot").filter(has=page.locator("input.dpx-slider")).first
    chart.scroll_into_view_if_needed()
    before = chart.evaluate(SIGNATURE)
    slider = chart.locator("input.dpx-slider")
    slider.focus()
    at_end = slider.evaluate("(e) => e.value === e.max")
    page.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
    page.wait_for_function(
        f"([gd, before]) => JSON.stringify(({SIGNATURE})(gd)) !== JSON.stringify(before)",
        arg=[chart.element_handle(), before],
        timeout=10_000,
    )
    after = chart.evaluate(SIGNATURE)
    assert after[0] != before[0] and after[1] != before[1], "the picture did not change"
    # the pointer too: drag the grip back by one stop
    grip = chart.locator(".slider-grip-rect").bounding_box()
    rail = chart.locator(".slider-rail-rect").bounding_box()
    steps = chart.evaluate("(gd) => gd._fullLayout.sliders[0].steps.length")
    x, y = grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + (1 if at_end else -1) * rail["width"] / (steps - 1), y, steps=5)
    page.mouse.up()
    page.wait_for_function(
        f"([gd, a]) => ({SIGNATURE})(gd)[0] !== a", arg=[chart.element_handle(), after[0]], timeout=10_000
    )
    assert not errors, errors
    assert not attempted, f"the handout tried to fetch {attempted}"
