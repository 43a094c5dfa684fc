"""The negotiate page's report prints as one clean page on A4 and on Letter in chromium: nothing cut at the right
edge, nothing spilling onto a second sheet, the answer and every alternative on the printed page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser

from app.compute import negotiate as compute
from app.views.negotiate_report import report_html
from tests.e2e.conftest import ARTIFACTS

#: the statistics office's question: counts (Δ = 1) within ±50 in 95 % of releases, twelve monthly releases
REQUIREMENT = compute.Requirement(theta=50.0, confidence=0.95)
RELEASES = 12


def _report() -> tuple[str, compute.Answer]:
    ans = compute.answer(REQUIREMENT)
    comp = compute.composition(ans.mechanism, ans.epsilon, ans.delta, 1.0, RELEASES, 1e-5)
    link = "https://dp-explorer.example.org/negotiate?req=error&theta=50&conf=0.95&sens=1&delta=1e-05&kernel=gaussian&T=12"
    return report_html(REQUIREMENT, ans, comp, link, ["Each count changes by at most Δ = 1 when one person is "
                                                      "added or removed.", "Releases are independent."]), ans


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_report_prints_on_one_sheet(browser: Browser, paper: str):
    html, ans = _report()
    page = browser.new_page()
    page.set_content(html)
    page.emulate_media(media="print")
    # nothing wider than the page body: no cut-off table column or link
    overflow = page.evaluate("() => [...document.querySelectorAll('body *')].filter(e => "
                             "e.getBoundingClientRect().right > document.body.getBoundingClientRect().right + 1)"
                             ".map(e => e.tagName)")
    assert not overflow, overflow
    pdf = page.pdf(format=paper, print_background=True)
    (ARTIFACTS / f"negotiate-report-{paper}.pdf").write_bytes(pdf)
    sheets = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert sheets == 1, f"the report takes {sheets} {paper} sheets"
    text = page.inner_text("body")
    assert ans.sentence in text
    for name, _, _ in ans.reasons:
        assert name in text
    assert f"Over {RELEASES} such releases" in text
    page.close()
