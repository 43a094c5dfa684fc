"""End-to-end in Debian chromium: add releases from two pages (sidebar navigation keeps the session), see the
accountants, the fourth release refused, export JSON, clear, import it back by the file chooser: same ledger; a refresh
and a second tab at the same address show it too (the ledger is saved on the server)."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_browser import SETTLED_JS

TIMEOUT = 180_000  # generous: the shared test machine can be heavily loaded


def wait_for_app(page: Page) -> None:
    """Wait until Streamlit has finished the current script run (the shared check, with this file's timeout)."""
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=TIMEOUT)
    page.wait_for_function(SETTLED_JS, timeout=TIMEOUT)
    page.wait_for_timeout(300)


def go(page: Page, title: str) -> None:
    """Navigate by the app's menu in the sidebar (a page.goto would start a new session and lose the ledger)."""
    page.locator("[data-testid='stSidebar'] [data-testid='stPageLink'] a").filter(has_text=title).first.click()
    expect(page.locator("[data-testid='stMain'] h1").first).to_be_visible(timeout=TIMEOUT)
    wait_for_app(page)


def add(page: Page, name: str) -> str:
    """Click the sidebar's "Add …" button whose label starts with ``name``; return the outcome message."""
    page.get_by_role("button", name=re.compile(rf"^.*Add {re.escape(name)}")).first.click()
    alert = page.locator("[data-testid='stSidebar'] [data-testid='stAlert']").first
    expect(alert).to_be_visible(timeout=TIMEOUT)
    wait_for_app(page)
    return alert.inner_text()


def metrics(page: Page) -> dict[str, str]:
    boxes = page.locator("[data-testid='stMetric']")
    expect(boxes).to_have_count(5, timeout=TIMEOUT)
    out = {}
    for i in range(5):
        b = boxes.nth(i)
        out[b.locator("[data-testid='stMetricLabel']").inner_text()] = b.locator(
            "[data-testid='stMetricValue']"
        ).inner_text()
    return out


def download_json(page: Page, tmp_path: Path, name: str) -> Path:
    with page.expect_download(timeout=TIMEOUT) as info:
        page.get_by_role("button", name="Export JSON").click()
    path = tmp_path / name
    info.value.save_as(path)
    return path


def test_ledger_flow(app_url: str, page: Page, tmp_path: Path) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{app_url}/ledger?beps=10&bdelta=1e-05")  # the session budget: exactly three releases fit
    wait_for_app(page)
    go(page, "Gaussian & Laplace")
    assert "Added" in add(page, "Gaussian")
    go(page, "Sparse vector technique")
    assert "Added" in add(page, "SVT")
    go(page, "Gaussian & Laplace")
    assert "Added" in add(page, "Gaussian")
    go(page, "Sparse vector technique")
    refused = add(page, "SVT")
    assert "Refused" in refused and "ρ" in refused and "left" in refused

    go(page, "Privacy ledger")
    shown = metrics(page)
    assert set(shown) == {"ε · basic", "ε · advanced", "ε · zCDP", "ε · PLD", "ε · filter · enforcing"}
    assert float(shown["ε · PLD"]) < float(shown["ε · zCDP"]) < float(shown["ε · basic"])
    page.screenshot(path=str(ARTIFACTS / "ledger.png"), full_page=True)

    first = download_json(page, tmp_path, "ledger.json")
    assert first.read_text().count('"kind"') == 3

    page.get_by_role("button", name="Clear the ledger").click()
    expect(page.get_by_text("The ledger is empty")).to_be_visible(timeout=TIMEOUT)
    wait_for_app(page)

    with page.expect_file_chooser(timeout=TIMEOUT) as chooser:
        page.locator("[data-testid='stFileUploaderDropzone'] button").first.click()
    chooser.value.set_files(str(first))
    expect(page.get_by_text("Imported 3 release(s)")).to_be_visible(timeout=TIMEOUT)
    wait_for_app(page)
    assert metrics(page) == shown
    again = download_json(page, tmp_path, "again.json")
    assert again.read_text() == first.read_text()

    # the ledger is saved: a refresh (a new session at the same address) and a second tab show the same ledger
    assert re.search(r"[?&]ledger=[A-Za-z0-9_-]{22}", page.url), page.url
    page.reload()
    wait_for_app(page)
    assert metrics(page) == shown
    second = page.context.new_page()
    second.set_viewport_size({"width": 1400, "height": 1000})
    second.goto(page.url)
    wait_for_app(second)
    assert metrics(second) == shown
    second.close()
