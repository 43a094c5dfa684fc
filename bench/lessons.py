"""Lesson latency: slider move → chart redrawn, per marimo lesson, in headless Debian chromium (budget p95 ≤ 300 ms).

For every lesson ``notebooks/<name>.py`` (or ``--lessons a,b``): starts ``marimo run`` on a free loopback port, opens
it, waits for its first chart, then ``--moves`` times moves the first slider by keyboard (ArrowRight/ArrowLeft
alternately, so after the first two moves the values are cached — pass ``--cold`` to keep walking to new values).
Each move is timed from the key press to the first moment the data of any Plotly chart on the page differs from
before the move (polled every 10 ms from the test process).

    python bench/lessons.py [--moves 20] [--lessons baselines,brdp] [--cold]

Prints a Markdown table (lesson, p50, p95, budget, ok?) and writes it to ``bench/results-lessons.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET_MS = 300.0
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
#: a signature of every chart's data on the page
SIGNATURE = """() => {
  const out = [];
  const walk = (root) => {
    root.querySelectorAll('.js-plotly-plot').forEach(el => out.push(JSON.stringify(
      (el._fullData || []).map(t => [Array.from(t.y || []).slice(0, 400), Array.from(t.x || []).slice(0, 5)]))));
    root.querySelectorAll('*').forEach(el => { if (el.shadowRoot) walk(el.shadowRoot); });
  };
  walk(document);
  return out.join('|');
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def lesson_server(name: str) -> Iterator[str]:
    port = _free_port()
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "marimo", "run", str(ROOT / "notebooks" / f"{name}.py"), "--headless", "--host",
         "127.0.0.1", "--port", str(port), "--no-token"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"lesson {name} did not start") from None
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def measure(page, moves: int, cold: bool) -> list[float]:
    """Milliseconds from each key press to the first change of the charts' data."""
    slider = page.get_by_role("slider").first
    out = []
    for i in range(moves):
        before = page.evaluate(SIGNATURE)
        slider.focus()
        key = "ArrowRight" if cold or i % 2 == 0 else "ArrowLeft"
        t0 = time.perf_counter()
        page.keyboard.press(key)
        while page.evaluate(SIGNATURE) == before:
            if time.perf_counter() - t0 > 30:
                break
            time.sleep(0.01)
        out.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.3)  # let the rest of the notebook finish before the next move
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--lessons", default="")
    parser.add_argument("--cold", action="store_true")
    args = parser.parse_args()
    names = [n for n in args.lessons.split(",") if n] or sorted(
        p.stem for p in (ROOT / "notebooks").glob("*.py") if not p.name.startswith("_"))

    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        for name in names:
            with lesson_server(name) as url:
                page = browser.new_page(viewport={"width": 1366, "height": 900})
                page.goto(url + "/", timeout=120_000)
                page.locator(".js-plotly-plot").first.wait_for(timeout=120_000)
                time.sleep(2.0)
                times = measure(page, args.moves, args.cold)
                page.close()
            q = statistics.quantiles(times, n=20, method="inclusive")
            p50, p95 = statistics.median(times), q[18]
            rows.append((name, p50, p95))
            print(f"{name}: p50 {p50:.0f} ms, p95 {p95:.0f} ms", flush=True)
        browser.close()

    mode = "new values at every move" if args.cold else "alternating between two values after the first moves"
    lines = [
        "# Lessons: slider move → chart redrawn (headless chromium, `python bench/lessons.py`)",
        "",
        f"{args.moves} keyboard moves of each lesson's first slider ({mode}); budget p95 ≤ {BUDGET_MS:.0f} ms.",
        "",
        "| lesson | p50 (ms) | p95 (ms) | budget | ok? |",
        "|---|---:|---:|---:|---|",
        *[f"| {n} | {a:.0f} | {b:.0f} | {BUDGET_MS:.0f} | {'yes' if b <= BUDGET_MS else 'no'} |" for n, a, b in rows],
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    (ROOT / "bench" / "results-lessons.md").write_text(text)


if __name__ == "__main__":
    main()
