"""axe-core on every page, its reproduce view and its presentation mode, and on every chapter of the first course:
no critical or serious violation, headings never skip a level, chart text in the theme's text colour (≥ 4.5:1), and a
clean console with no request leaving 127.0.0.1."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

from app import course, registry
from tests.e2e.test_browser import wait_for_app

PAGES = [p.url_path for p in registry.available_pages()]
TOPICS = {p.url_path for p in registry.TOPICS}


def _settle(page: Page) -> None:
    wait_for_app(page)
    page.wait_for_timeout(1500)  # charts draw after the run ends
    # elements fade back in after a run (CSS opacity transitions): axe must not measure a half-faded caption
    page.wait_for_function(
        "() => document.getAnimations().every(a => !(a instanceof CSSTransition) || a.playState !== 'running')",
        timeout=60_000,
    )
    wait_for_app(page)


def _serious(page: Page) -> list[tuple]:
    """axe's critical and serious findings that persist: a finding is confirmed by a second run 3 s later, so a page
    caught mid-update on a loaded machine (a fading element, a sidebar still filling) does not count."""

    def run() -> dict[str, list]:
        found = Axe().run(page).response["violations"]
        return {v["id"]: [n["target"] for n in v["nodes"][:3]] for v in found if v["impact"] in ("critical", "serious")}

    first = run()
    if not first:
        return []
    page.wait_for_timeout(3000)
    _settle(page)
    second = run()
    return [(rule, "serious", second[rule]) for rule in first if rule in second]


def _contrast(rgb_a: tuple[float, ...], rgb_b: tuple[float, ...]) -> float:
    def lum(c):
        ch = [x / 255 for x in c[:3]]
        ch = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in ch]
        return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]

    hi, lo = sorted((lum(rgb_a), lum(rgb_b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _rgb(css: str) -> tuple[float, ...]:
    return tuple(float(x) for x in re.findall(r"[\d.]+", css)[:3])


VIEWS = (
    [(p, "") for p in PAGES]
    + [(p, "view=reproduce") for p in PAGES if p in TOPICS]
    + [(p, "present=true") for p in PAGES]
    + [("course", f"chapter={slug}") for slug in course.SLUGS[1:]]
)


@pytest.mark.parametrize("path,query", VIEWS, ids=[f"{p or 'home'}?{q}" for p, q in VIEWS])
def test_axe_headings_and_chart_text(page: Page, app_url, path, query):
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{app_url}/{path}?{query}", timeout=60_000)
    _settle(page)
    bad = _serious(page)
    assert not bad, bad
    levels = page.evaluate(
        "() => Array.from(document.querySelectorAll('[data-testid=stMain] h1, [data-testid=stMain] "
        "h2, [data-testid=stMain] h3, [data-testid=stMain] h4')).filter(h => h.offsetParent)"
        ".map(h => +h.tagName[1])"
    )
    assert levels and levels[0] == 1, levels
    for a, b in zip(levels, levels[1:], strict=False):
        assert b <= a + 1, f"heading level jumps from h{a} to h{b}: {levels}"
    ticks = page.evaluate(
        "() => Array.from(document.querySelectorAll('g[class$=\"tick\"] > text')).map(t => getComputedStyle(t).fill)"
    )
    bg = page.evaluate("() => getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor")
    for fill in ticks:
        assert _contrast(_rgb(fill), _rgb(bg)) >= 4.5, (fill, bg)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_chart_text_and_marks_readable_in_both_themes(browser, app_url, scheme):
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, color_scheme=scheme)
    page = ctx.new_page()
    page.goto(f"{app_url}/noise_reduction", timeout=60_000)
    _settle(page)
    page.wait_for_selector(".xtick text", timeout=60_000)
    bg = _rgb(page.evaluate("() => getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor"))
    texts = page.evaluate(
        "() => Array.from(document.querySelectorAll('.xtick text, .ytick text, .legendtext, "
        ".g-xtitle text')).map(t => getComputedStyle(t).fill)"
    )
    assert texts and all(_contrast(_rgb(f), bg) >= 4.5 for f in texts), (scheme, bg, set(texts))
    # marks the figure drew black (inline style) as they render: light ink on a dark page, black on a white one
    marks = page.evaluate(
        "() => Array.from(document.querySelectorAll('[data-testid=stPlotlyChart] [style*=\"rgb(0, 0, "
        "0)\"]')).map(e => { const s = getComputedStyle(e), st = e.getAttribute('style'); "
        "return st.includes('fill: rgb(0, 0, 0)') ? s.fill : s.stroke; })"
    )
    assert marks, "the noise-reduction page draws black marks (its stopping boundary)"
    for colour in marks:
        assert _contrast(_rgb(colour), bg) >= 3.0, (scheme, colour, bg)  # graphics: WCAG 1.4.11
    # a note an in-figure slider's deck draws as text keeps a halo in the page's colour (Plotly's own is white: a
    # white smear around the label on a dark page)
    page.goto(f"{app_url}/course?chapter=choose", timeout=60_000)
    _settle(page)
    page.wait_for_selector("[data-testid=stPlotlyChart] .textpoint text", timeout=60_000)
    halos = page.evaluate(
        "() => Array.from(document.querySelectorAll('[data-testid=stPlotlyChart] .textpoint text'))"
        ".map(t => getComputedStyle(t).textShadow).filter(s => s && s !== 'none')"
    )
    assert halos, "the chapter's picture has labelled marks"
    for halo in halos:
        for colour in re.findall(r"rgba?\([^)]*\)", halo):
            assert _contrast(_rgb(colour), bg) < 1.2, (scheme, halo, bg)
    # the picture's slider and play button: a face close to the page's colour (Plotly's near-white was a bright bar
    # across a dark chart) and an outline that shows (WCAG 1.4.11: 3 : 1 for a control's edges)
    controls = page.evaluate(
        "() => Array.from(document.querySelectorAll('[data-testid=stPlotlyChart] .slider-rail-rect, "
        "[data-testid=stPlotlyChart] .updatemenu-item-rect')).map(r => [getComputedStyle(r).fill, "
        "getComputedStyle(r).stroke])"
    )
    assert len(controls) >= 2, "the chapter's picture has a slider and a play button"
    for face, edge in controls:
        assert _contrast(_rgb(face), bg) < 2, (scheme, face, bg)
        assert _contrast(_rgb(edge), bg) >= 3, (scheme, edge, bg)
    ctx.close()


def test_clean_console_and_only_local_requests(page: Page, app_url):
    errors: list[str] = []
    failed: list[str] = []
    hosts: set[str] = set()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: hosts.add(urlsplit(r.url).hostname or "") if r.url.startswith("http") else None)
    page.on("response", lambda r: failed.append(urlsplit(r.url).path) if r.status >= 400 else None)
    page.set_viewport_size({"width": 1366, "height": 768})
    for path in PAGES:
        page.goto(f"{app_url}/{path}", timeout=60_000)
        _settle(page)
    # opened directly at a page's address, Streamlit's browser code used to look for its server under the page's
    # path first (two 404s per visit); app/serve.py tells it the root, so not one request fails
    assert not failed, failed
    assert not errors, errors
    assert hosts == {"127.0.0.1"}, hosts


def test_the_dark_theme_has_no_serious_axe_violation_on_the_poll_page(browser, app_url):
    """The accent colour is chosen per theme: a primary button's white text on the dark theme's accent stays readable
    ("Start a poll" was 2.2 : 1 on a light blue). The window is as tall as the page, so axe sees all of it."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, color_scheme="dark")
    page = ctx.new_page()
    page.goto(f"{app_url}/poll", timeout=60_000)
    _settle(page)
    tall = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": 1366, "height": min(int(tall), 6000)})
    page.wait_for_timeout(1500)
    bg = page.evaluate("() => getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor")
    assert sum(_rgb(bg)) < 200, bg  # the dark theme is on
    found = Axe().run(page).response["violations"]
    serious = [
        (v["id"], [n["target"] for n in v["nodes"][:3]]) for v in found if v["impact"] in ("serious", "critical")
    ]
    assert not serious, serious
    ctx.close()


def _open_whole(page: Page, url: str) -> None:
    """Open ``url`` at a laptop's width in a window as tall as the page (8000 px at most), so every part is drawn."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(url, timeout=60_000)
    _settle(page)
    tall = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": 1280, "height": min(int(tall), 8000)})
    page.wait_for_timeout(1500)


@pytest.mark.parametrize("path", ["brdp", "svt"])
def test_no_number_s_name_is_cut_short(page: Page, app_url, path):
    """A metric's name in a narrow column wraps instead of ending in "…" ("mean draws per rel…" on BR-DP's page,
    "threshold noise sca…" on SVT's): every label's text box is as wide as its text. The window is as tall as the
    page, so the metrics of every part are drawn."""
    _open_whole(page, f"{app_url}/{path}")
    cut = page.evaluate(
        "() => Array.from(document.querySelectorAll('[data-testid=stMetricLabel] [data-testid=stMarkdownContainer]'))"
        ".filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)"
    )
    labels = page.locator("[data-testid=stMetricLabel]").count()
    assert labels >= 4 and not cut, cut


def test_a_short_table_shows_every_column_without_scrolling_sideways(page: Page, app_url):
    """Local DP's guessing table (six columns, two rows) had long column names, so its last column ("LDP bound Σε")
    was cut at the column's edge on a laptop; its columns now carry short names (the long sense on hover) and the
    whole table fits."""
    _open_whole(page, f"{app_url}/ldp")
    widths = page.evaluate(
        "() => Array.from(document.querySelectorAll('[data-testid=stDataFrame] .dvn-scroller'))"
        ".map(s => [s.scrollWidth, s.clientWidth])"
    )
    assert widths, "the local DP page draws its guessing table"
    for full, shown in widths:
        assert full <= shown + 1, (full, shown)
