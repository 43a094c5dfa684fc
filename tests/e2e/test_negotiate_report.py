"""The negotiate page's report in Debian chromium: it prints on one sheet plus an appendix sheet on A4 and on
Letter (nothing cut at the right edge), the summary page holds the answer, the total with its δ and the leading
alternatives; and the report downloaded from the served page carries a script that runs as is."""

from __future__ import annotations

import html
import re
import subprocess
import sys

import pytest
from playwright.sync_api import Browser, Page, expect

from app.compute import negotiate as compute
from app.compute import negotiate_words as words
from app.views.negotiate_report import Report, report_html
from tests.e2e.conftest import ARTIFACTS

#: the statistics office's question: counts (Δ = 1) within ±50 in 95 % of releases, twelve monthly releases
REQUIREMENT = compute.Requirement(theta=50.0, confidence=0.95)
RELEASES = 12
TIMEOUT = 240_000


def _report() -> tuple[str, compute.Answer, compute.Composition]:
    neg = compute.negotiation(REQUIREMENT)
    ans = neg.answer
    comp = compute.composition(ans.mechanism, ans.epsilon, ans.delta, 1.0, RELEASES, 1e-5)
    covered, not_covered = words.assumptions(REQUIREMENT, ans, comp, 1e-5)
    link = "https://dp-explorer.example.org/negotiate?req=error&theta=50&conf=0.95&sens=1&delta=1e-05&T=12"
    from app.compute import negotiate_script as scripts

    script = scripts.script([words.recommended_plan(REQUIREMENT, ans)], title="Release counts.", made="a test")
    return (
        report_html(
            Report(
                REQUIREMENT,
                ans,
                comp,
                words.alternatives(neg),
                covered,
                not_covered,
                link=link,
                script=script,
                appendix=ans.reasons,
            )
        ),
        ans,
        comp,
    )


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_report_prints_on_a_summary_sheet_and_an_appendix(browser: Browser, paper: str):
    text_html, ans, comp = _report()
    page = browser.new_page()
    page.set_content(text_html)
    page.emulate_media(media="print")
    overflow = page.evaluate(
        "() => [...document.querySelectorAll('body *')].filter(e => "
        "e.getBoundingClientRect().right > document.body.getBoundingClientRect().right + 1)"
        ".map(e => e.tagName)"
    )
    assert not overflow, overflow
    pdf = page.pdf(format=paper, print_background=True)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"negotiate-report-{paper}.pdf").write_bytes(pdf)
    sheets = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert sheets == 2, f"the report takes {sheets} {paper} sheets"
    # the summary sheet ends where the appendix starts: everything a director signs is on sheet one
    tops = page.evaluate(
        "() => [document.querySelector('.appendix').getBoundingClientRect().top, "
        "document.querySelector('h2:nth-of-type(5)').getBoundingClientRect().top]"
    )
    assert tops[0] > tops[1]
    text = " ".join(page.inner_text("body").split())
    assert ans.sentence in text
    assert f"Over {RELEASES} releases: {words.total_words(comp)}" in text
    assert "print(" not in text  # the script is folded away in print
    page.close()


def test_report_screenshot(browser: Browser):
    page = browser.new_page(viewport={"width": 900, "height": 1200})
    page.set_content(_report()[0])
    page.emulate_media(media="print")
    page.screenshot(path=str(ARTIFACTS / "negotiate-report.png"), full_page=True)
    page.close()


@pytest.mark.slow
def test_the_script_in_the_downloaded_report_runs(page: Page, app_url, tmp_path):
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{app_url}/negotiate?theta=50&conf=0.95&sens=1&T=12")
    expect(page.locator("p.dpx-answer")).to_contain_text("ε = 0.060", timeout=TIMEOUT)
    button = page.get_by_role("button", name=re.compile("Download the report"))
    button.scroll_into_view_if_needed(timeout=TIMEOUT)
    with page.expect_download(timeout=TIMEOUT) as info:
        button.click()
    saved = tmp_path / "report.html"
    info.value.save_as(saved)
    report = saved.read_text(encoding="utf-8")
    assert "127.0.0.1" not in report and "localhost" not in report  # no public address: no link
    script = html.unescape(re.search(r"<pre id='run-it'>(.*?)</pre>", report, re.S).group(1))
    (tmp_path / "privacy-release.py").write_text(script, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "privacy-release.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "Laplace noise, epsilon = 0.06" in done.stdout and "probability 95.02 %" in done.stdout
