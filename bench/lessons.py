"""Lesson latency: slider move → chart redrawn, per marimo lesson, in headless Debian chromium (budget p95 ≤ 300 ms).

For every lesson ``notebooks/<name>.py`` (or ``--lessons a,b``): starts ``marimo run`` on a free loopback port, opens
it, waits for its first chart, then moves the first slider by keyboard in two ways:

* **back and forth** (``--moves``, default 30): ArrowRight/ArrowLeft alternately, so after the first two moves every
  value has been computed once — what a learner sees when comparing two settings;
* **walking on** (``--walk``, default 20): ArrowRight to the slider's end, then ArrowLeft to the other end and so
  on. On the way out every value is new to the lesson (the cost of a first visit); on a short slider the way back
  revisits values already computed.

Each move is timed inside the page, from the key's ``keydown`` event to the first animation frame at which any Plotly
chart on the page holds new data (a new data array, and a new ``_fullData``: Plotly replaces the latter on every
redraw, a resize included). The test process only reads the result afterwards, so polling from outside cannot slow
the page it measures. Every move starts from a quiet lesson: the bench follows marimo's messages on the page's
WebSocket and presses the next key only after the kernel has reported the previous run complete. It also reports when
that run completes (every section the move touched is up to date), which for lessons with heavy sections further down
is well after the first chart.

The page also notes when the first message carrying a chart arrives from the kernel after the key press (the time
from there to the redraw is the browser's share of the move: Plotly building the chart, frames of an in-figure slider
included), and the last frame at which a chart was redrawn (*every picture*: a lesson with several pictures over the
moved parameter has them all up to date; a kernel that sends the later ones sooner can delay the first one's drawing,
as the browser handles the messages in turn).

    python bench/lessons.py [--moves 30] [--walk 20] [--pause 0.3] [--lessons baselines,brdp] [--repeat 3]
                            [--root CHECKOUT] [--against ../older-checkout] [--out FILE]

``--pause`` is the reader's pause between the end of one run and the next move. A lesson that computes the next
stops ahead (``lessons.ahead``) gains in the last column once the pause is longer than the worker needs.
``--repeat N`` measures every lesson N times, lesson after lesson, each time on a fresh server, and reports quantiles
of all the moves pooled, with the spread of the single runs' p95: one run's p95 over 20–30 moves moves by ±20 % on a
small machine, so a comparison of two versions should pool several runs. ``--root`` serves the lessons of another
checkout of the project (its ``notebooks/``, its packages on ``PYTHONPATH``) with this bench; ``--against`` measures
a second checkout in turn with the first, lesson by lesson and run by run, and adds a table of the pooled p95 of both
with their ratio: the fair way to ask whether a change made a lesson slower.

Prints a Markdown table (p50 and p95 of both ways, against the budget) and writes it to ``--out``
(``bench/results-lessons.md`` unless told).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.serving import CHROMIUM_FLAGS, ONE_THREAD, free_port, marimo_args, served  # noqa: E402

BUDGET_MS = 300.0
#: installed before the page loads: follows marimo's run messages on its WebSocket, so the bench knows when the
#: kernel has finished every cell of a run ("completed-run"), when it is busy, and when the first chart of a run arrives
SOCKET = """(() => {
  const state = window.__lessonRuns = {busy: false, completed: null, answered: null};
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', ev => {
      if (typeof ev.data !== 'string') return;
      if (state.answered === null && ev.data.includes('marimo-plotly')) state.answered = ev.timeStamp;
      if (ev.data.includes('"completed-run"')) { state.busy = false; state.completed = ev.timeStamp; }
      else if (ev.data.includes('"queued"') || ev.data.includes('"running"')) state.busy = true;
    });
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, Native);
})();"""
#: installed once per page: records the time of each key press, of the next chart redraw after it, and of the last
#: frame at which a chart was redrawn (every picture the move changes is up to date)
WATCH = """() => {
  if (window.__lessonBench) return;
  const state = window.__lessonBench = {pressed: null, drawn: null, last: null};
  // a chart redrawn with new data has both a new data array (Plotly.react keeps the one it is given) and a new
  // _fullData; a chart only resized (a section above it changed height) has a new _fullData alone
  const seen = new WeakMap();
  const charts = () => Array.from(document.querySelectorAll('marimo-plotly'))
    .map(h => (h.shadowRoot || h).querySelector('.js-plotly-plot')).filter(Boolean);
  const mark = el => seen.set(el, [el.data, el._fullData]);
  const fresh = el => { const [data, full] = seen.get(el) || [];
    return el._fullData && el.data !== data && el._fullData !== full; };
  const snapshot = () => charts().forEach(mark);
  document.addEventListener('keydown', ev => {
    snapshot(); state.pressed = ev.timeStamp; state.drawn = null; state.last = null;
    window.__lessonRuns.completed = null; window.__lessonRuns.answered = null;
  }, true);
  const frame = (now) => {
    if (state.pressed !== null) {
      const redrawn = charts().filter(fresh);
      if (redrawn.length) {
        if (state.drawn === null) state.drawn = now;
        state.last = now;
        redrawn.forEach(mark);
      }
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}"""
#: the move is over: the kernel's run has completed and no chart has been redrawn for a while
SETTLED = """(quiet) => {
  const b = window.__lessonBench, r = window.__lessonRuns;
  return r.completed !== null && performance.now() - Math.max(r.completed, b.last ?? 0) > quiet;
}"""
#: how long (ms) no chart may change after the run's end before the move counts as over
QUIET_MS = 250


@dataclass
class Moves:
    """One lesson's moves in one way (milliseconds from the key press): to the first chart redrawn, to the last one
    redrawn (every picture the move changes is up to date), to the end of the kernel's run, and to the arrival of the
    run's first chart (``nan`` when no chart was sent)."""

    drawn: list[float] = field(default_factory=list)
    last: list[float] = field(default_factory=list)
    done: list[float] = field(default_factory=list)
    answered: list[float] = field(default_factory=list)
    #: p95 of ``drawn`` in each single run, to show the spread between runs
    run_p95: list[float] = field(default_factory=list)

    def add(self, other: Moves) -> None:
        self.drawn += other.drawn
        self.last += other.last
        self.done += other.done
        self.answered += other.answered
        self.run_p95.append(_quantiles(other.drawn)[1])

    def browser_share(self) -> float:
        """Median over the moves of the time from the first chart's arrival to the redraw."""
        shares = [d - a for d, a in zip(self.drawn, self.answered, strict=True) if a == a and a <= d]
        return statistics.median(shares) if shares else math.nan


@contextlib.contextmanager
def lesson_server(name: str, root: Path = ROOT) -> Iterator[str]:
    port = free_port()
    module = marimo_args(name, port, root)
    with served(
        module,
        port,
        health="/health",
        seconds=90,
        what=f"lesson {name}",
        env={**ONE_THREAD, "PYTHONPATH": str(root)},
        cwd=root,
    ):
        yield f"http://127.0.0.1:{port}"


def measure(page, moves: int, cold: bool, pause: float = 0.3) -> Moves:
    """Per move, milliseconds from the key press to the first chart redrawn with new data, to the last chart redrawn,
    to the end of the kernel's run (every cell the move touched has finished), and to the first chart's arrival, all
    timed in the page.

    Each move starts from a quiet lesson: the bench waits for the previous run to complete, so one move's time
    never includes the tail of the one before.
    """
    page.evaluate(WATCH)
    slider = page.get_by_role("slider").first
    out, direction = Moves(), "ArrowRight"
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
        page.wait_for_function(SETTLED, arg=QUIET_MS, timeout=120_000, polling=50)
        drawn, last, done, answered = page.evaluate(
            """() => {
              const b = window.__lessonBench, r = window.__lessonRuns;
              const answered = r.answered === null ? null : r.answered - b.pressed;
              return [b.drawn - b.pressed, b.last - b.pressed, r.completed - b.pressed, answered];
            }"""
        )
        out.drawn.append(drawn)
        out.last.append(last)
        out.done.append(done)
        out.answered.append(math.nan if answered is None else answered)
    return out


def _quantiles(times: list[float]) -> tuple[float, float]:
    return statistics.median(times), statistics.quantiles(times, n=20, method="inclusive")[18]


def measure_lesson(browser, name: str, root: Path, args: argparse.Namespace) -> tuple[Moves, Moves] | None:
    """Both ways of moving one lesson's first slider, on a fresh server; ``None`` for a lesson without a slider."""
    with lesson_server(name, root) as url:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        page.add_init_script(SOCKET)
        page.goto(url + "/", timeout=120_000)
        page.locator(".js-plotly-plot").first.wait_for(timeout=120_000)
        page.wait_for_function("() => !window.__lessonRuns.busy", timeout=120_000, polling=100)
        time.sleep(2.0)
        try:
            if page.get_by_role("slider").count() == 0:  # a chapter whose control is a choice, not a slider
                return None
            warm = measure(page, args.moves, cold=False, pause=args.pause)
            cold = measure(page, args.walk, cold=True, pause=args.pause)
        finally:
            page.close()
    return warm, cold


Pooled = dict[str, tuple[Moves, Moves]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30, help="back-and-forth moves per lesson")
    parser.add_argument("--walk", type=int, default=20, help="moves to new values per lesson")
    parser.add_argument("--lessons", default="")
    parser.add_argument("--pause", type=float, default=0.3, help="seconds between the end of a run and the next move")
    parser.add_argument("--repeat", type=int, default=1, help="runs per lesson, pooled")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose lessons are served")
    parser.add_argument("--against", type=Path, help="another checkout, measured in turn with --root and compared")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results-lessons.md")
    args = parser.parse_args()
    roots = [args.root.resolve(), *([args.against.resolve()] if args.against else [])]
    names = [n for n in args.lessons.split(",") if n] or sorted(
        p.stem for p in (roots[0] / "notebooks").glob("*.py") if not p.name.startswith("_")
    )

    from playwright.sync_api import sync_playwright

    pooled: list[Pooled] = [{} for _ in roots]
    unmeasured: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_FLAGS)
        # lesson after lesson, and each lesson on both checkouts in turn, so that a busy spell of the machine
        # touches all of them alike
        for run in range(args.repeat):
            for name in names:
                for root, into in zip(roots, pooled, strict=True):
                    if name in unmeasured:
                        continue
                    measured = measure_lesson(browser, name, root, args)
                    if measured is None:
                        print(name, "has no slider: not measured", flush=True)
                        unmeasured.append(name)
                        continue
                    warm, cold = measured
                    both = into.setdefault(name, (Moves(), Moves()))
                    both[0].add(warm)
                    both[1].add(cold)
                    print(
                        f"run {run + 1}:",
                        root,
                        name,
                        "back and forth",
                        [round(t) for t in warm.drawn],
                        "every picture, back and forth",
                        [round(t) for t in warm.last],
                        "walking on",
                        [round(t) for t in cold.drawn],
                        "walking on, whole run",
                        [round(t) for t in cold.done],
                        "first chart's arrival, back and forth",
                        [None if a != a else round(a) for a in warm.answered],
                        flush=True,
                    )
        browser.close()

    text = table(pooled[0], unmeasured, roots[0], args)
    if args.against:
        text += "\n" + comparison(pooled[0], pooled[1], roots, args)
    print(text)
    args.out.write_text(text)


def comparison(this: Pooled, other: Pooled, roots: list[Path], args: argparse.Namespace) -> str:
    """Pooled p95 of the other checkout against this one's, lesson by lesson."""

    def p95(moves: Moves) -> float:
        return _quantiles(moves.drawn)[1]

    def last(moves: Moves) -> float:
        return _quantiles(moves.last)[1]

    lines = [
        f"## Against `{roots[1]}` (measured in turn, {args.repeat} run(s) each, moves pooled)",
        "",
        "| lesson | back and forth p95: other → this (ms) | ratio | walking on p95: other → this (ms) | ratio "
        "| browser p50: other → this (ms) | every picture, back and forth p95: other → this (ms) | ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name in this:
        (tw, tc), (ow, oc) = this[name], other[name]
        lines.append(
            f"| {name} | {p95(ow):.0f} → {p95(tw):.0f} | {p95(tw) / p95(ow):.2f} | {p95(oc):.0f} → {p95(tc):.0f} "
            f"| {p95(tc) / p95(oc):.2f} | {ow.browser_share():.0f} → {tw.browser_share():.0f} "
            f"| {last(ow):.0f} → {last(tw):.0f} | {last(tw) / last(ow):.2f} |"
        )
    return "\n".join(lines) + "\n"


def table(pooled: Pooled, unmeasured: list[str], root: Path, args: argparse.Namespace) -> str:
    def ok(p95: float) -> str:
        return "yes" if p95 <= BUDGET_MS else "no"

    def spread(moves: Moves) -> str:
        return "" if len(moves.run_p95) < 2 else f" ({min(moves.run_p95):.0f}–{max(moves.run_p95):.0f})"

    runs = (
        f"{args.repeat} runs of each lesson, moves pooled; in brackets the single runs' p95. "
        if args.repeat > 1
        else ""
    )
    served = "" if root == ROOT else f"Lessons served from the checkout at `{root}`. "
    lines = [
        "# Lessons: slider move → chart redrawn (headless chromium, `python bench/lessons.py`)",
        "",
        f"Each lesson's first slider, moved by keyboard: {args.moves} moves back and forth between two values (each "
        f"computed once before), then {args.walk} moves walking along the slider to its ends and back (new values on "
        "the way out). Every move starts from a quiet lesson (the previous run has finished). Timed in the page from "
        f"the key press to the first chart redrawn with new data; budget: p95 ≤ {BUDGET_MS:.0f} ms. {runs}{served}"
        "*Browser* is the median time from the arrival of the run's first chart to the redraw (Plotly's share); "
        "*every picture* is the time to the last chart the move redrew (back and forth); the last column is when the "
        "kernel has finished every cell the move touched (sections further down included).",
        "",
        "| lesson | back and forth p50 (ms) | p95 (ms) | ok? | browser p50 (ms) | every picture p95 (ms) "
        "| walking on p50 (ms) | p95 (ms) | ok? | walking on, whole lesson p95 (ms) |",
        "|---|---:|---:|---|---:|---:|---:|---:|---|---:|",
    ]
    for name, (warm, cold) in pooled.items():
        (a, b), (c, d) = _quantiles(warm.drawn), _quantiles(cold.drawn)
        lines.append(
            f"| {name} | {a:.0f} | {b:.0f}{spread(warm)} | {ok(b)} | {warm.browser_share():.0f} "
            f"| {_quantiles(warm.last)[1]:.0f} | {c:.0f} | {d:.0f}{spread(cold)} | {ok(d)} "
            f"| {_quantiles(cold.done)[1]:.0f} |"
        )
    if unmeasured:
        lines += ["", f"Not measured (their control is a choice, not a slider): {', '.join(unmeasured)}."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
