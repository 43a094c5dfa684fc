"""Screenshots of every page at 1366×768 (laptop) and 390×844 (phone) into assets/screenshots/.

Usage: ``python bench/screenshots.py http://127.0.0.1:8501`` (a running app). Also reports any page that scrolls
sideways on the phone.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from app import registry  # noqa: E402

OUT = ROOT / "assets" / "screenshots"
#: the run has ended and nothing on the page is stale (Streamlit's frontend marks both on the page)
SETTLED_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return app && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector('[data-testid="stStatusWidget"]') && !document.querySelector('[data-stale="true"]')
    && !document.querySelector('[data-testid="stSkeleton"]');
}"""
SIZES = {"desktop": (1366, 768), "phone": (390, 844)}


def main(url: str) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    wide = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=["--headless=new", "--no-sandbox"]
        )
        for kind, (w, h) in SIZES.items():
            page = browser.new_page(viewport={"width": w, "height": h})
            for info in registry.available_pages():
                page.goto(f"{url}/{info.url_path}", timeout=60_000)
                page.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
                for _ in range(2):  # the browser reports its theme after the first run: a second run may follow
                    page.wait_for_function(SETTLED_JS, timeout=60_000)
                    page.wait_for_timeout(1500)  # charts draw after the run ends
                if page.evaluate("() => document.documentElement.scrollWidth > window.innerWidth + 1"):
                    wide.append(f"{kind}:{info.url_path or 'home'}")
                page.screenshot(path=str(OUT / f"{info.url_path or 'home'}-{kind}.png"))
            page.close()
        browser.close()
    print("pages that scroll sideways:", wide or "none")
    return 1 if wide else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8501"))
