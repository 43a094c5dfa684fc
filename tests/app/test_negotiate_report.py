"""The negotiate page's report and its "Run it" script: the report's contents with and without a public address,
and the script taken out of the report the page offers, run as is (the example table) and on a user's CSV."""

from __future__ import annotations

import datetime as dt
import html
import math
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from app.compute import negotiate_words as words
from app.views import negotiate_report as reports
from tests.app.conftest import open_page

PAGE = "negotiate.py"
QUERY = {"theta": "50", "conf": "0.95", "sens": "1", "T": "12"}


def _page_report(monkeypatch, query=QUERY) -> str:
    """The report as the page hands it to its download button."""
    out = []
    real = reports.report_html
    monkeypatch.setattr(reports, "report_html", lambda r: out.append(real(r)) or out[-1])
    at = open_page(PAGE, query)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert out
    return out[-1]


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page.split("<body>", 1)[1]))


def _script(page: str) -> str:
    m = re.search(r"<pre id='run-it'>(.*?)</pre>", page, re.S)
    assert m, "the report carries no script"
    return html.unescape(m.group(1))


def test_report_contents_without_a_public_address(monkeypatch):
    monkeypatch.delenv("DPX_PUBLIC_URL", raising=False)
    page = _page_report(monkeypatch)
    text = " ".join(_text(page).split())
    assert f"Made on {dt.date.today().isoformat()} with DP Explorer {words.app_version()}" in text
    assert "Each released number within ±50 of the truth in 95 % of releases" in text
    assert "Use Laplace noise with ε = 0.060, δ = 0" in text
    # the meaning of ε with its number: e^0.06 = 1.0618
    assert re.search(r"odds of any conclusion .* by at most a factor e ?ε = 1\.062\b", text)
    assert f"{math.exp(0.06):.3f}" == "1.062"
    assert "Several statistics" not in text  # the panel's example is not the visitor's list
    # the total with its δ beside the plain sum: 12 × 0.06 = 0.72
    assert re.search(r"Over 12 releases: ε = 0\.\d+ with δ = 10⁻⁵ \(0\.72 added up, with δ = 0\)", text), text
    # three alternatives in plain words, one reason each; the details in the appendix
    alts = re.search(r"The leading alternatives(.*?)Assumptions", text).group(1)
    assert alts.count("): ") == 3 and "σ = θ/z" not in alts and "ε_y" not in alts
    assert "Appendix" in text and "σ = θ/z" in text
    assert "Covered" in text and "Not covered" in text and "Δ = 1" in text
    # the link: none without a public address, and never a loopback one
    assert "Open this exact view" not in text and "127.0.0.1" not in page and "localhost" not in page


def test_report_links_to_the_public_address(monkeypatch):
    monkeypatch.setenv("DPX_PUBLIC_URL", "https://dp.example.edu/")
    page = _page_report(monkeypatch)
    link = re.search(r'Open this exact view in DP Explorer: <a href="([^"]+)"', page).group(1)
    assert link.startswith("https://dp.example.edu/negotiate?") and "theta=50" in html.unescape(link)


@pytest.mark.parametrize(
    "address",
    [
        "http://127.0.0.1:8501",
        "http://localhost:8501",
        "http://[::1]:8501",
        "http://0.0.0.0:8501",
        "http://10.1.2.3",
        "file:///tmp/x",
        "javascript:alert(1)",
    ],
)
def test_a_loopback_or_private_link_never_appears(address):
    assert reports.public_link(f"{address}/negotiate?theta=50") == ""
    assert reports.public_link("https://dp.example.edu/negotiate?theta=50") != ""


def _run(script: str, tmp_path, *args: str) -> str:
    path = tmp_path / "privacy-release.py"
    path.write_text(script, encoding="utf-8")
    done = subprocess.run([sys.executable, str(path), *args], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_script_from_the_report_runs_as_is(monkeypatch, tmp_path):
    out = _run(_script(_page_report(monkeypatch)), tmp_path)
    assert "Laplace noise, epsilon = 0.06" in out
    counts = re.findall(r"^  (Ashford|Brookside|Cedar Vale|Dunmore|Elmstead|Fairhaven)\s+(-?[\d,]+)$", out, re.M)
    assert len(counts) == 6
    assert "within +/-50 of the true one with probability 95.02 %" in out  # 1 − e^(−0.06·50) = 0.9502


def test_the_script_releases_a_user_csv_as_accurately_as_it_says(monkeypatch, tmp_path):
    """A user's table of 400 categories: with a fixed seed, the share of noisy counts within ±50 of the true counts
    is the promised 95.02 % within 4 standard errors (binomial, n = 400)."""
    rng = np.random.default_rng(3)
    cats = [f"district {i:03d}" for i in range(400)]
    truth = rng.integers(0, 300, size=400)
    pd.DataFrame({"district": np.repeat(cats, truth), "x": 1}).to_csv(tmp_path / "mine.csv", index=False)
    script = _script(_page_report(monkeypatch))
    out = _run(script, tmp_path, str(tmp_path / "mine.csv"), "district", "--categories", ",".join(cats), "--seed", "11")
    got = dict(re.findall(r"^  (district \d{3})\s+(-?[\d,]+)$", out, re.M))
    assert len(got) == 400
    err = np.array([int(got[c].replace(",", "")) for c in cats]) - truth
    p = 1 - math.exp(-0.06 * 50)
    assert abs(np.mean(np.abs(err) <= 50) - p) <= 4 * math.sqrt(p * (1 - p) / 400)
    # without --categories the script says the list must be public
    done = subprocess.run(
        [sys.executable, str(tmp_path / "privacy-release.py"), str(tmp_path / "mine.csv"), "district"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "categories were read from the data" in done.stderr


def test_the_script_docstring_states_its_randomness_and_its_limits(monkeypatch):
    script = _script(_page_report(monkeypatch))
    doc = script.split('"""')[1]
    for needle in ("secrets", "not a", "cryptographic", "floating-point", "Mironov", "OpenDP", "once per"):
        assert needle in doc, needle
    compile(script, "privacy-release.py", "exec")
