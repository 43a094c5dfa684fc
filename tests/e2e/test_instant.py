"""In-figure sliders in chromium: dragging one redraws the chart in the browser without a single message to the
server, the address bar records the shown value, the page catches up once the slider rests, the slider works from
the keyboard, and a frame shown in the browser is the figure the server draws when opened at that value."""

from __future__ import annotations

import re
import time
import urllib.parse

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_browser import TIMEOUT, wait_for_app

#: Pages with an in-figure slider, the panel it is in, and the address key it sets.
PAGES = [
    ("", "epsilon-promise", "eps"),
    ("baselines", "classic-noise", "eps"),
    ("brdp", None, "theta"),
    ("svt?part=Correction", "svt-correction", "neg"),
    ("noise_reduction", None, "eta"),
]

CHART = """(sel) => {
  const gd = document.querySelector(sel);
  if (!gd || !gd.layout || !gd.layout.sliders) return null;
  const full = gd._fullLayout.sliders[0];
  const text = gd.querySelector('.slider-container text.slider-label');
  return {active: full.active, value: String(full.steps[full.active].value),
          shown: text ? text.textContent : null, title: gd.layout.title && gd.layout.title.text,
          data: gd._fullData.map((t) => [Array.from(t.x || []), Array.from(t.y || [])])};
}"""


def _chart(panel: str | None, key: str) -> str:
    """The selector of the chart whose in-figure slider sets ``key`` (in the panel ``panel``)."""
    inside = f".st-key-dpx-panel-{panel} " if panel else ""
    return f"{inside}.js-plotly-plot"


def _open(page: Page, url: str, selector: str) -> None:
    page.goto(url, timeout=TIMEOUT)
    wait_for_app(page)
    page.wait_for_function(
        "(sel) => Array.from(document.querySelectorAll(sel)).some((g) => g.layout && g.layout.sliders "
        "&& g.layout.sliders.length && g.querySelector('input.dpx-slider'))",
        arg=selector,
        timeout=TIMEOUT,
    )


def _slider_chart(page: Page, selector: str, key: str):
    """The first chart matching ``selector`` whose in-figure slider sets ``key``, once it is there (a picture's slider
    is prepared after the page has rested, so another chart's may come first)."""
    page.wait_for_function(
        "([sel, key]) => Array.from(document.querySelectorAll(sel)).some((g) => g.layout && g.layout.sliders "
        "&& g.layout.sliders[0] && g.layout.sliders[0].name === key && g.querySelector('input.dpx-slider'))",
        arg=[selector, key],
        timeout=TIMEOUT,
    )
    charts = page.locator(selector)
    for i in range(charts.count()):
        c = charts.nth(i)
        if c.evaluate("(g) => g.layout && g.layout.sliders && g.layout.sliders[0] && g.layout.sliders[0].name") == key:
            return c
    raise AssertionError(f"no chart with an in-figure slider over {key}")


def _state(chart) -> dict:
    return chart.evaluate(CHART.replace("(sel) => {\n  const gd = document.querySelector(sel);", "(gd) => {"))


@pytest.fixture
def counted(page: Page) -> Page:
    """The page, counting every WebSocket message it sends (``page.context.frames_sent``)."""
    page.context.frames_sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: page.context.frames_sent.append(time.time())))
    page.set_viewport_size({"width": 1366, "height": 900})
    return page


def _words(title: str) -> str:
    """A chart title as read (Streamlit draws the title it was sent in bold)."""
    return re.sub(r"</?b>", "", title)


def _value_in_address(page: Page, key: str) -> str | None:
    values = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query).get(key)
    return values[-1] if values else None


@pytest.mark.parametrize("path,panel,key", PAGES, ids=[p.split("?")[0] or "home" for p, _, _ in PAGES])
def test_dragging_an_in_figure_slider_redraws_with_no_message_to_the_server(counted: Page, app_url, path, panel, key):
    page = counted
    selector = _chart(panel, key)
    _open(page, f"{app_url}/{path}", selector)
    chart = _slider_chart(page, selector, key)
    before = _state(chart)
    page.context.frames_sent.clear()
    start = len(page.context.frames_sent)
    grip = chart.locator(".slider-grip-rect")
    grip.scroll_into_view_if_needed()
    box, rail = grip.bounding_box(), chart.locator(".slider-rail-rect").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    direction = 1 if rail["x"] + rail["width"] - x > rail["width"] / 4 else -1
    span = min(rail["width"] / 3, 160)
    page.mouse.move(x, y)
    page.mouse.down()
    for i in range(1, 7):
        page.mouse.move(x + direction * span * i / 6, y)
        page.wait_for_timeout(40)
    during = len(page.context.frames_sent) - start
    after = _state(chart)
    page.mouse.up()
    assert during == 0, f"{during} messages to the server while dragging"
    assert after["active"] != before["active"], (before["value"], after["value"])
    assert after["data"] != before["data"] or after["title"] != before["title"], "the chart did not change"
    assert after["shown"] and after["shown"] != before["shown"], (before["shown"], after["shown"])
    page.wait_for_function(
        "([k, v]) => new URL(location.href).searchParams.get(k) === v",  # a copied link opens it
        arg=[key, after["value"]],
        timeout=5_000,
    )
    # once the slider rests the page catches up: a run at the shown value, which keeps the address
    page.wait_for_function(
        "([sel, key, value]) => { const a = document.querySelector('[data-testid=\"stApp\"]');"
        " return a && a.getAttribute('data-test-script-state') === 'notRunning'"
        " && new URL(location.href).searchParams.get(key) === value"
        " && Array.from(document.querySelectorAll(sel)).some((g) => g.layout && g.layout.sliders"
        " && String(g.layout.sliders[0].steps[g.layout.sliders[0].active].value) === value); }",
        arg=[selector, key, after["value"]],
        timeout=TIMEOUT,
    )
    wait_for_app(page)
    assert _value_in_address(page, key) == after["value"]  # (the chart at that value: the wait above)


def test_the_page_catches_up_and_a_shared_link_agrees(counted: Page, app_url):
    """After a drag on the home page: the number beside the picture follows, and the address, opened in a new tab,
    shows the same picture (the same frame the browser drew)."""
    page = counted
    _open(page, f"{app_url}/", _chart("epsilon-promise", "eps"))
    chart = _slider_chart(page, _chart("epsilon-promise", "eps"), "eps")
    factor = page.get_by_test_id("stMetricValue").first
    before = factor.inner_text()
    slider = chart.locator("input.dpx-slider")
    slider.focus()
    page.keyboard.press("ArrowRight")
    shown = _state(chart)
    assert shown["shown"] == "ε = 1.2" and slider.get_attribute("aria-valuetext") == "ε = 1.2"
    expect(factor).not_to_have_text(before, timeout=TIMEOUT)  # e^1.2: the metric follows once the slider rests
    assert factor.inner_text().startswith("3.32")
    expect(page.get_by_role("slider", name=re.compile("ε")).first).to_be_visible()
    link = page.url
    assert _value_in_address(page, "eps") == "1.2"
    other = page.context.new_page()
    other.set_viewport_size({"width": 1366, "height": 900})
    _open(other, link, _chart("epsilon-promise", "eps"))
    opened = _state(_slider_chart(other, _chart("epsilon-promise", "eps"), "eps"))
    assert opened["value"] == "1.2" and _words(opened["title"]) == _words(shown["title"])
    for (x1, y1), (x2, y2) in zip(opened["data"], shown["data"], strict=True):
        assert x1 == pytest.approx(x2, rel=1e-6, abs=1e-9) and y1 == pytest.approx(y2, rel=1e-6, abs=1e-9)
    other.close()


def test_the_in_figure_slider_is_a_keyboard_slider_with_its_value_in_words(counted: Page, app_url):
    page = counted
    selector = _chart("classic-noise", "eps")
    _open(page, f"{app_url}/baselines", selector)
    chart = _slider_chart(page, selector, "eps")
    slider = chart.locator("input.dpx-slider")
    expect(slider).to_have_attribute("aria-label", "ε in the picture")
    expect(slider).to_have_attribute("aria-valuetext", "ε = 1")
    slider.focus()
    for key, text in (("ArrowLeft", "ε = 0.8"), ("Home", "ε = 0.01"), ("End", "ε = 20")):
        page.keyboard.press(key)
        expect(slider).to_have_attribute("aria-valuetext", text)
        assert _state(chart)["shown"] == text
    # the other chart over ε on the page (accuracy against ε) shows the same stop
    other = _slider_chart(page, _chart("classic-accuracy", "eps"), "eps")
    page.wait_for_function(
        "(g) => g._fullLayout.sliders[0].active === g._fullLayout.sliders[0].steps.length - 1",
        arg=other.element_handle(),
        timeout=TIMEOUT,
    )


#: The curves a chart should draw and does not: every shown trace with a line through two points or more, by name.
UNDRAWN = """(gd) => gd._fullData
  .filter((t) => t.visible === true && String(t.mode).includes('lines')
    && Array.from(t.y || []).filter((v) => v !== null && Number.isFinite(+v)).length > 1)
  .filter((t) => { const g = gd.querySelector('g.trace' + t.uid); const p = g && g.querySelector('path.js-line');
    return !(p && p.getAttribute('d')); })
  .map((t) => t.name || t.uid)"""


def test_switching_frames_keeps_every_curve_drawn_with_some_hidden_from_the_legend(counted: Page, app_url):
    """R²DP's usefulness chart switches its frames redrawing its moving marker lines only: the curves that stay
    (two plots of them, some hidden by the reader from the legend) are all still drawn at the next stops."""
    page = counted
    # pinned to its panel: under load another picture of the part can be drawn above it later, and "the first chart"
    # would then be another one
    selector = _chart("usefulness-against", "eps")
    _open(page, f"{app_url}/r2dp?part=Families", selector)
    chart = _slider_chart(page, selector, "eps")
    assert chart.evaluate(UNDRAWN) == []
    chart.locator("g.legend g.traces", has_text="Laplace").first.click()  # hides Laplace's curves in both plots
    page.wait_for_function(
        "(g) => g._fullData.filter((t) => t.visible === 'legendonly').length === 2",
        arg=chart.element_handle(),
        timeout=TIMEOUT,
    )
    slider = chart.locator("input.dpx-slider")
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft"):
        before = _state(chart)["active"]
        slider.focus()
        page.keyboard.press(key)
        page.wait_for_function(
            "([g, a]) => g._fullLayout.sliders[0].active !== a", arg=[chart.element_handle(), before], timeout=TIMEOUT
        )
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        assert chart.evaluate(UNDRAWN) == [], key
        assert chart.evaluate("(g) => g._fullData.filter((t) => t.visible === 'legendonly').length") == 2


#: Pictures whose frames move an axis's range (the page, the panel, the slider's key).
MOVING_AXES = [("baselines", "classic-noise", "eps"), ("brdp", None, "theta"), ("course?chapter=noise", None, "eps")]

#: Every stop in turn, as the in-figure slider switches them; the plot's margins at each (Plotly's own layout).
MARGINS_AT_EVERY_STOP = """async (gd) => {
  // the page must not catch up with a stop meanwhile: a busy machine can take longer than the rest it waits for
  // between two switches, and the page's run would draw the chart anew under this loop
  if (window.dpxSliders) window.dpxSliders.onMove = null;
  const how = gd.layout.sliders[0].steps[0].args[1];
  const seen = new Set();
  for (const f of gd._transitionData._frames) {
    // a switch that redraws the whole chart may never settle its promise: two seconds at the most per stop
    await Promise.race([window.Plotly.animate(gd, [f.name], how), new Promise((r) => setTimeout(r, 2000))]);
    const s = gd._fullLayout._size;
    seen.add([s.l, s.r, s.t, s.b].map(Math.round).join(' '));
  }
  return Array.from(seen);
}"""


@pytest.mark.parametrize("path,panel,key", MOVING_AXES, ids=[p.split("?")[0] for p, _, _ in MOVING_AXES])
def test_an_axis_that_moves_with_the_slider_never_changes_the_margins(counted: Page, app_url, path, panel, key):
    """A margin that changes between two stops (tick labels of another width) makes Plotly redraw the whole chart,
    slider and legend included, which took 200-600 ms where the axes alone take a few: the margins stay put."""
    page = counted
    selector = _chart(panel, key)
    _open(page, f"{app_url}/{path}", selector)
    chart = _slider_chart(page, selector, key)
    moving = "(g) => g._transitionData._frames.some((f) => f.layout && (f.layout.xaxis || f.layout.yaxis))"
    assert chart.evaluate(moving), "this picture's axes no longer move: pick one whose do"
    assert len(chart.evaluate(MARGINS_AT_EVERY_STOP)) == 1
