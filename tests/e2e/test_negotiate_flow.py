"""End-to-end in Debian chromium: open "Negotiate a budget", set ±1 at 95 % with the keyboard, read the table's ε
values from the DOM and compare them with dpcore computed here."""

from __future__ import annotations

import math

import pytest
from playwright.sync_api import Page, expect
from scipy import optimize, stats

import dpcore
from dpcore import negotiate as ng
from dpcore import r2dp
from tests.e2e.conftest import ARTIFACTS

TIMEOUT = 240_000  # a cold requirement runs every mechanism's search (several seconds on a loaded machine)

ROWS_JS = """() => {
  const t = document.querySelectorAll('[data-testid=stDataFrame] table')[0];
  if (!t) return [];
  return Array.from(t.querySelectorAll('tr')).map(tr => Array.from(tr.querySelectorAll('td,th')).map(c => c.innerText));
}"""


def _table(page: Page) -> dict[str, list[str]]:
    rows = page.evaluate(ROWS_JS)
    header = rows[0]
    return {r[0]: dict(zip(header, r, strict=False)) for r in rows[1:] if r}


def _wait_for_cell(page: Page, label: str, text: str) -> None:
    page.wait_for_function(
        """([label, text]) => {
          const t = document.querySelectorAll('[data-testid=stDataFrame] table')[0];
          if (!t || document.querySelector('[data-testid="stStatusWidget"]')) return false;
          return Array.from(t.querySelectorAll('tr')).some(tr => {
            const c = Array.from(tr.querySelectorAll('td,th')).map(x => x.innerText);
            return c[0] === label && c[2] === text; });
        }""",
        arg=[label, text], timeout=TIMEOUT,
    )


@pytest.mark.slow
def test_negotiate_pm1_at_95_table_matches_dpcore(page: Page, app_url):
    page.goto(f"{app_url}/negotiate?theta=2&conf=0.9")
    _wait_for_cell(page, "Laplace", f"{math.log(10) / 2:.5g}")  # θ = 2 at 90 %: ln(10)/2

    theta = page.get_by_role("slider", name="θ — error bound (±)")
    expect(theta).to_have_attribute("aria-valuetext", "2")
    theta.focus()
    for _ in range(3):  # 2 → 1.5 → 1.2 → 1 on the log grid
        page.keyboard.press("ArrowLeft")
    expect(theta).to_have_attribute("aria-valuetext", "1", timeout=TIMEOUT)
    conf = page.get_by_role("slider", name="p — confidence")
    conf.focus()
    page.keyboard.press("ArrowRight")  # 0.9 → 0.95
    expect(conf).to_have_attribute("aria-valuetext", "0.95", timeout=TIMEOUT)
    _wait_for_cell(page, "Laplace", f"{math.log(20):.5g}")

    table = _table(page)
    col = "smallest ε"
    shown = {label: row[col] for label, row in table.items()}
    assert float(shown["Laplace"]) == pytest.approx(math.log(20), rel=1e-4)
    sigma = 1 / stats.norm.ppf(0.975)
    assert float(shown["Gaussian"]) == pytest.approx(float(dpcore.gaussian_epsilon(1e-5, sigma=sigma)), rel=1e-4)
    stair = optimize.brentq(lambda e: float(r2dp.staircase_usefulness(e, gamma=1.0)) - 0.95, 0.1, 20, xtol=1e-12)
    assert float(shown["Staircase"]) == pytest.approx(stair, rel=1e-4)
    ref = ng.epsilon_for_accuracy(theta=1.0, confidence=0.95,
                                  mechanisms=["brdp", "brdp_paper", "r2dp", "r2dp_two_point"])
    for _, row in ref.iterrows():
        assert float(shown[row["label"]]) == pytest.approx(row["epsilon"], rel=1e-4), row["label"]
    assert shown["SVT, exponential noise + optimal correction"] == "n/a"
    # the address follows the controls (defaults are dropped from it): no trace of the starting θ = 2, p = 0.9
    assert "theta=2" not in page.url and "conf=0.9&" not in page.url + "&"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "negotiate.png"))
