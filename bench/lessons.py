"""Lesson latency: slider move → chart redrawn, per marimo lesson, in headless Debian chromium (budget p95 ≤ 300 ms).

For every lesson ``notebooks/<name>.py`` (or ``--lessons a,b``): starts ``marimo run`` on a free loopback port, opens
it, waits for its first chart, then moves the first slider by keyboard in two ways:

* **back and forth** (``--moves``, default 30): ArrowRight/ArrowLeft alternately, so after the first two moves every
  value has been computed once — what a learner sees when comparing two settings;
* **walking on** (``--walk``, default 20): ArrowRight to the slider's end, then ArrowLeft to the other end and so
  on. On the way out every value is new to the lesson (the cost of a first visit); on a short slider the way back
  revisits values already computed.

Each move is timed inside the page, from the key's ``keydown`` event to the first animation frame at which any Plotly
chart on the page holds new data (Plotly replaces a chart's ``_fullData`` on every redraw). The test process only
reads the result afterwards, so polling from outside cannot slow the page it measures. Every move starts from a quiet
lesson: the bench follows marimo's messages on the page's WebSocket and presses the next key only after the kernel
has reported the previous run complete. It also reports when that run completes (every section the move touched is
up to date), which for lessons with heavy sections further down is well after the first chart.

    python bench/lessons.py [--moves 30] [--walk 20] [--pause 0.3] [--lessons baselines,brdp]

``--pause`` is the reader's pause between the end of one run and the next move. A lesson that computes the next
stops ahead (``lessons.ahead``) gains in the last column once the pause is longer than the worker needs.

Prints a Markdown table (p50 and p95 of both ways, against the budget) and writes it to ``bench/results-lessons.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.serving import CHROMIUM_FLAGS, ONE_THREAD, free_port, marimo_args, served  # noqa: E402

BUDGET_MS = 300.0
#: installed before the page loads: follows marimo's run messages on its WebSocket, so the bench knows when the
#: kernel has finished every cell of a run ("completed-run") and when it is busy
SOCKET = """(() => {
  const state = window.__lessonRuns = {busy: false, completed: null};
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', ev => {
      if (typeof ev.data !== 'string') return;
      if (ev.data.includes('"completed-run"')) { state.busy = false; state.completed = ev.timeStamp; }
      else if (ev.data.includes('"queued"') || ev.data.includes('"running"')) state.busy = true;
    });
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, Native);
})();"""
#: installed once per page: records the time of each key press and of the next chart redraw after it
WATCH = """() => {
  if (window.__lessonBench) return;
  const state = window.__lessonBench = {pressed: null, drawn: null};
  const seen = new WeakMap();
  const charts = () => Array.from(document.querySelectorAll('marimo-plotly'))
    .map(h => (h.shadowRoot || h).querySelector('.js-plotly-plot')).filter(Boolean);
  const snapshot = () => charts().forEach(el => seen.set(el, el._fullData));
  document.addEventListener('keydown', ev => {
    snapshot(); state.pressed = ev.timeStamp; state.drawn = null; window.__lessonRuns.completed = null;
  }, true);
  const frame = (now) => {
    if (state.pressed !== null && state.drawn === null
        && charts().some(el => el._fullData && seen.get(el) !== el._fullData)) state.drawn = now;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}"""


@contextlib.contextmanager
def lesson_server(name: str) -> Iterator[str]:
    port = free_port()
    module = marimo_args(name, port)
    with served(
        module, port, health="/health", seconds=90, what=f"lesson {name}", env={**ONE_THREAD, "PYTHONPATH": str(ROOT)}
    ):
        yield f"http://127.0.0.1:{port}"


def measure(page, moves: int, cold: bool, pause: float = 0.3) -> tuple[list[float], list[float]]:
    """Per move, milliseconds from the key press to the first chart redrawn with new data, and to the end of the
    kernel's run (every cell the move touched has finished), both timed in the page.

    Each move starts from a quiet lesson: the bench waits for the previous run to complete, so one move's time
    never includes the tail of the one before.
    """
    page.evaluate(WATCH)
    slider = page.get_by_role("slider").first
    first, done, direction = [], [], "ArrowRight"
    for i in range(moves):
        page.wait_for_function("() => !window.__lessonRuns.busy", timeout=120_000, polling=50)
        time.sleep(pause)
        slider.focus()
        if cold:  # walk on to new values, turning round at either end of the slider
            now, low, high = (
                float(slider.get_attribute(a) or 0) for a in ("aria-valuenow", "aria-valuemin", "aria-valuemax")
            )
            if now >= high:
                direction = "ArrowLeft"
            elif now <= low:
                direction = "ArrowRight"
        else:
            direction = "ArrowRight" if i % 2 == 0 else "ArrowLeft"
        page.keyboard.press(direction)
        page.wait_for_function("() => window.__lessonBench.drawn !== null", timeout=60_000, polling=100)
        page.wait_for_function("() => window.__lessonRuns.completed !== null", timeout=120_000, polling=50)
        first.append(page.evaluate("() => window.__lessonBench.drawn - window.__lessonBench.pressed"))
        done.append(page.evaluate("() => window.__lessonRuns.completed - window.__lessonBench.pressed"))
    return first, done


def _quantiles(times: list[float]) -> tuple[float, float]:
    return statistics.median(times), statistics.quantiles(times, n=20, method="inclusive")[18]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30, help="back-and-forth moves per lesson")
    parser.add_argument("--walk", type=int, default=20, help="moves to new values per lesson")
    parser.add_argument("--lessons", default="")
    parser.add_argument("--pause", type=float, default=0.3, help="seconds between the end of a run and the next move")
    args = parser.parse_args()
    names = [n for n in args.lessons.split(",") if n] or sorted(
        p.stem for p in (ROOT / "notebooks").glob("*.py") if not p.name.startswith("_")
    )

    from playwright.sync_api import sync_playwright

    rows = []
    unmeasured: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_FLAGS)
        for name in names:
            with lesson_server(name) as url:
                page = browser.new_page(viewport={"width": 1366, "height": 900})
                page.add_init_script(SOCKET)
                page.goto(url + "/", timeout=120_000)
                page.locator(".js-plotly-plot").first.wait_for(timeout=120_000)
                page.wait_for_function("() => !window.__lessonRuns.busy", timeout=120_000, polling=100)
                time.sleep(2.0)
                if page.get_by_role("slider").count() == 0:  # a chapter whose control is a choice, not a slider
                    print(name, "has no slider: not measured", flush=True)
                    unmeasured.append(name)
                    page.close()
                    continue
                warm, _ = measure(page, args.moves, cold=False, pause=args.pause)
                cold, cold_done = measure(page, args.walk, cold=True, pause=args.pause)
                page.close()
            rows.append((name, *_quantiles(warm), *_quantiles(cold), _quantiles(cold_done)[1]))
            print(
                name,
                "back and forth",
                [round(t) for t in warm],
                "walking on",
                [round(t) for t in cold],
                "walking on, whole run",
                [round(t) for t in cold_done],
                flush=True,
            )
        browser.close()

    def ok(p95: float) -> str:
        return "yes" if p95 <= BUDGET_MS else "no"

    lines = [
        "# Lessons: slider move → chart redrawn (headless chromium, `python bench/lessons.py`)",
        "",
        f"Each lesson's first slider, moved by keyboard: {args.moves} moves back and forth between two values (each "
        f"computed once before), then {args.walk} moves walking along the slider to its ends and back (new values on "
        "the way out). Every move starts from a quiet lesson (the previous run has finished). Timed in the page from "
        f"the key press to the first chart redrawn with new data; budget: p95 ≤ {BUDGET_MS:.0f} ms. The last column "
        "is when the kernel has finished every cell the move touched (sections further down the page included).",
        "",
        "| lesson | back and forth p50 (ms) | p95 (ms) | ok? | walking on p50 (ms) | p95 (ms) | ok? "
        "| walking on, whole lesson p95 (ms) |",
        "|---|---:|---:|---|---:|---:|---|---:|",
        *[
            f"| {n} | {a:.0f} | {b:.0f} | {ok(b)} | {c:.0f} | {d:.0f} | {ok(d)} | {e:.0f} |"
            for n, a, b, c, d, e in rows
        ],
    ]
    if unmeasured:
        lines += ["", f"Not measured (their control is a choice, not a slider): {', '.join(unmeasured)}."]
    text = "\n".join(lines) + "\n"
    print(text)
    (ROOT / "bench" / "results-lessons.md").write_text(text)


if __name__ == "__main__":
    main()
