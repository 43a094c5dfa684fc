"""In-figure slider against sidebar slider: chromium latency from input to changed chart, side by side.

For each page with an in-figure slider (``app.instant``) it opens the page and moves the same parameter two ways,
``--moves`` times each, alternating one stop up and one stop down:

* **in the figure** — the arrow keys on the in-figure slider (its keyboard proxy), and a mouse drag of its grip by one
  stop; the chart changes in the browser (Plotly frames), nothing goes to the server;
* **in the sidebar** (or beside the picture, where the page draws that control) — the arrow keys on the page's own
  slider: a server run, then the chart redrawn.

Both ends are read in the page, by the page's clock: t0 is ``performance.now()`` at the input event (a capturing
``keydown``, or the ``mousemove`` that crosses to the next stop), t1 the first moment the page holds the chart at the
new stop, which the rendering that comes next paints (the page is looked at at the start of every animation frame and
right after its rendering): its data differs from before (its slider's grip moves before the chart is switched, so the
stop alone does not count) and each axis has the range the stop gives it (a stop that moves an axis has its new axes
drawn by Plotly in an animation-frame callback, a frame after its curves); for the sidebar, Streamlit's status widget
gone too. The test driver collects the times afterwards, so its own round trips to the browser are not counted. Printed
too: the p95 of the looks at a frame's start alone (the reading before the look after rendering was added; a frame late
where Plotly draws the axes after that look). A page that keeps other charts over the same parameter at the same stop
(the baselines) also gets the time until all of them changed. A move after which the chart shows the same data although
its stop moved is counted under "moves with no change"; an input that did not move the slider at all is counted apart,
in brackets; each is printed with the stop before and after it. Between two moves the page is left to settle (the
in-figure slider's catch-up run included, until the page's DOM has rested), as a reader pauses to look. Also printed:
the bytes the page's WebSocket received while it opened, the size of each chart carrying an in-figure slider (its JSON:
data, layout and frames), and every move's time in order (a p95 of 20 moves is one or two moves: which ones, and whether
they come together).

    python bench/instant.py [--port 8617] [--moves 20] [--pages home,baselines]

Prints a Markdown table and writes it to ``bench/results-instant.md`` (not part of pass/fail).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.browser import ARGS, CHROMIUM, app_server, wait_idle  # noqa: E402

#: page (address), the parameter its in-figure slider moves, and where the page's own slider for it is.
PAGES = {
    "home": ("", "eps"),
    "baselines": ("baselines", "eps"),
    "brdp": ("brdp", "theta"),
    "svt": ("svt?part=Correction", "neg"),
    "noise_reduction": ("noise_reduction", "eta"),
    "ldp": ("ldp", "nq"),
    "r2dp": ("r2dp?part=Families", "eps"),
    "course": ("course?chapter=noise", "eps"),
}
BUDGET_MS = 50.0

CHART_JS = """(key) => Array.from(document.querySelectorAll('.js-plotly-plot')).find((g) => g.layout && g.layout.sliders
  && g.layout.sliders[0] && g.layout.sliders[0].name === key && g.querySelector('input.dpx-slider'))"""

GDSIG_JS = """(gd) => {
  if (!gd || !gd._fullLayout) return '';
  const parts = [String(((gd._fullLayout.sliders || [])[0] || {}).active)];  // the stop, then what the chart shows
  // each array's sum and its sum weighted by position: a belief (bars summing to one) that moves between the values
  // keeps its sum, not its weighted sum
  for (const t of gd._fullData || []) for (const k of ['x', 'y']) {
    const v = t[k]; if (!v || !v.length) continue;
    let s = 0, w = 0;
    for (let i = 0; i < v.length; i++) { const f = +v[i]; if (Number.isFinite(f)) { s += f; w += (i + 1) * f; } }
    parts.push(k + v.length + ':' + s.toPrecision(10) + ':' + w.toPrecision(10));
  }
  return parts.join('|');
}"""

SIG_JS = """(key) => (GDSIG)((CHART)(key))""".replace("GDSIG", GDSIG_JS).replace("CHART", CHART_JS)

#: Every chart of the page with an in-figure slider over ``key`` (a page may keep several at the same stop).
ALL_JS = """(key) => Array.from(document.querySelectorAll('.js-plotly-plot')).filter((g) => g.layout && g.layout.sliders
  && g.layout.sliders[0] && g.layout.sliders[0].name === key)"""

#: The chart shows its stop whole: each axis at the range the shown frame gives it. A frame that moves an axis's range
#: has its curves drawn at once and its axes (Plotly's axis transition, then a relayout) an animation frame later.
AXES_JS = """(gd) => {
  const fl = gd._fullLayout || {}, td = gd._transitionData || {};
  const frame = fl._currentFrame != null && td._frameHash ? td._frameHash[fl._currentFrame] : null;
  const lay = (frame && frame.layout) || {};
  for (const k of Object.keys(lay)) {
    if (!/^[xy]axis[0-9]*$/.test(k) || !lay[k] || !Array.isArray(lay[k].range)) continue;
    const want = lay[k].range, got = (fl[k] || {}).range || [];
    for (let i = 0; i < 2; i++)
      if (!(Math.abs(+got[i] - +want[i]) <= 1e-9 * Math.max(1, Math.abs(+want[i])))) return false;
  }
  return true;
}"""

# The clock runs in the page: t0 at the input event, t1 the first moment the page holds the chart at the new stop (its
# data, and its axes where the stop moves them), which the rendering that comes next paints. The page is looked at
# twice an animation frame: at its start, and right after its rendering (a message posted from the frame's callback,
# which runs before timers); Plotly draws a stop's new axes in an animation-frame callback of its own, after the look
# at that frame's start. The test driver only collects the times afterwards: its own round trips to the browser (tens
# of milliseconds) are not part of what a reader waits for. Also kept: the first look at a frame's start that saw the
# change (``tstart``), the reading of the bench before the look after rendering was added.
ARM_JS = (
    """([key, server]) => {
  const charts = (ALL)(key);
  window.__bench = {key: key, server: server, sig: (SIG)(key), sigs: charts.map((g) => (GDSIG)(g)), t0: null,
                    t1: null, tall: null, tstart: null};
  if (!window.__benchListeners) {
    window.__benchListeners = true;
    const start = () => { if (window.__bench && window.__bench.t0 === null) window.__bench.t0 = performance.now(); };
    document.addEventListener('keydown', start, true);
    document.addEventListener('mousemove', (e) => { if (e.buttons) start(); }, true);
    const body = (s) => s.replace(/^[^|]*/, '');  // the data, not the stop
    const look = (atStart) => { try {
      const b = window.__bench;
      if (!b || b.t0 === null || (b.t1 !== null && b.tall !== null && b.tstart !== null)
          || (b.server && document.querySelector('[data-testid="stStatusWidget"]'))) return;
      const now = performance.now() - b.t0;
      // changed: its data differs from before the input, its axes at the stop's ranges (a server run redraws whole)
      const changed = (gd, before) => { const s = (GDSIG)(gd);
        return s !== '' && body(s) !== body(before) && (b.server || (AXES)(gd)); };
      const main = (CHART)(b.key);
      const now1 = main && changed(main, b.sig);
      if (b.t1 === null && now1) b.t1 = now;
      if (atStart && b.tstart === null && now1) b.tstart = now;
      const all = (ALL)(b.key);
      if (b.tall === null && all.length === b.sigs.length && all.every((g, i) => changed(g, b.sigs[i]))) b.tall = now;
    } catch (e) { /* a chart being drawn anew may lack parts for a moment: look again */ } };
    const after = new MessageChannel();
    after.port1.onmessage = () => look(false);
    const tick = () => { look(true); after.port2.postMessage(0); requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  }
}""".replace("ALL", ALL_JS)
    .replace("GDSIG", GDSIG_JS)
    .replace("SIG", SIG_JS)
    .replace("AXES", AXES_JS)
    .replace("CHART", CHART_JS)
)

#: Done: the chart changed, and every other chart over the parameter too (or 3 s passed: one that never follows).
DONE_JS = """() => { const b = window.__bench; if (!b || b.t0 === null || b.t1 === null) return false;
  if ((b.tall === null || b.tstart === null) && performance.now() - b.t0 < 3000) return false;
  return [b.t1, b.sigs.length > 1 ? b.tall : null, b.tstart]; }"""

GRIP_JS = """([key, scroll]) => {
  const gd = (CHART)(key);
  if (!gd) return null;
  if (scroll) gd.scrollIntoView({block: 'center'});
  const g = gd.querySelector('.slider-grip-rect').getBoundingClientRect();
  const r = gd.querySelector('.slider-rail-rect').getBoundingClientRect();
  if (!(r.width > 0 && g.width > 0)) return null;  // the slider is being drawn anew (the page's catch-up run)
  const step = r.width / (gd.layout.sliders[0].steps.length - 1);
  const x = g.left + g.width / 2;
  return {x: x, y: g.top + g.height / 2, step: step, sign: x + step < r.right ? 1 : -1};
}""".replace("CHART", CHART_JS)

SETTLED_JS = """() => { const a = document.querySelector('[data-testid="stApp"]');
  return a && a.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector('[data-testid="stStatusWidget"]')
    && !(window.dpxInstant && window.dpxInstant.timer); }"""


#: The page's DOM has not changed for ``ms`` milliseconds (a chart drawn anew by a run changes it for a while after
#: Streamlit reports the run finished). The observer is installed once per page.
QUIET_JS = """(ms) => {
  if (!window.__benchQuiet) {
    window.__benchQuiet = {last: performance.now()};
    new MutationObserver(() => { window.__benchQuiet.last = performance.now(); })
      .observe(document.body, {childList: true, subtree: true, attributes: true});
  }
  return performance.now() - window.__benchQuiet.last > ms;
}"""


def _settle(page) -> None:
    """Until the page rests: no run, no catch-up pending, and nothing redrawn for a moment (a move made while a
    chart is drawn anew would time that redraw, or miss a grip that is not there yet)."""
    page.wait_for_timeout(200)
    page.wait_for_function(SETTLED_JS, timeout=60_000)
    try:
        page.wait_for_function(QUIET_JS, arg=300, timeout=15_000)
    except Exception:  # noqa: BLE001 — a page that never rests (an animation): go on, as the bench did before
        page.wait_for_timeout(300)
    page.wait_for_function(SETTLED_JS, timeout=60_000)


def _p(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def _timed(
    page, key: str, act, *, server: bool, missed: list[str], kind: str
) -> tuple[float, float | None, float | None] | None:
    """One move: the page's time from the input to the changed chart rendered, to every chart over ``key`` changed
    (None where the page has one such chart), and to the next animation frame's start with the chart changed; None
    where no change came (noted in ``missed``)."""
    sig = page.evaluate(SIG_JS, key)
    page.evaluate(ARM_JS, [key, server])
    act()
    try:
        t1, tall, tstart = page.wait_for_function(DONE_JS, timeout=20_000, polling="raf").json_value()
        return float(t1), None if tall is None else float(tall), None if tstart is None else float(tstart)
    except Exception:  # noqa: BLE001 — no change within the timeout: what the chart showed before and after
        now = page.evaluate(SIG_JS, key)
        before, after = sig.split("|")[0] or "(no chart)", now.split("|")[0] or "(no chart)"
        # the stop moved and the chart shows the same: a move with no change; the stop did not move: a lost input
        lost = "" if before != after else ", the input did not move the slider"
        missed.append(f"{kind}: stop {before} → {after}{lost}")
        return None


def _grip(page, key: str) -> dict:
    """Where the slider's grip is, once it stays put: the chart may be drawn anew by a run, and the page may still
    be scrolling (the grip read twice, 150 ms apart, at the same place)."""
    box = None
    for _ in range(20):
        box = page.wait_for_function(GRIP_JS, arg=[key, box is None], timeout=60_000).json_value()
        page.wait_for_timeout(150)
        if page.evaluate(GRIP_JS, [key, False]) == box:
            return box
    return box


def measure(browser, url: str, key: str, moves: int) -> dict:
    from app import catalogue

    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    received: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(len(f))))
    out: dict = {
        "key": [],
        "drag": [],
        "sidebar": [],
        "key_all": [],
        "key_at_start": [],
        "drag_at_start": [],
        "missed": [],
    }
    try:
        page.goto(url, timeout=180_000)
        wait_idle(page, 180_000)
        page.wait_for_function(f"() => !!({CHART_JS})({key!r})", timeout=180_000)
        _settle(page)
        out["opened_bytes"] = sum(received)
        out["charts"] = page.evaluate("""() => Array.from(document.querySelectorAll('.js-plotly-plot'))
          .filter((g) => g.layout && g.layout.sliders && g.layout.sliders.length)
          .map((g) => JSON.stringify({data: g.data, layout: g.layout,
                                      frames: (g._transitionData || {})._frames || []}).length)""")
        chart = page.locator(".js-plotly-plot").filter(has=page.locator("input.dpx-slider"))
        chart = next(
            chart.nth(i)
            for i in range(chart.count())
            if chart.nth(i).evaluate("(g) => g.layout.sliders[0].name") == key
        )
        proxy = chart.locator("input.dpx-slider")
        # the page's own control (Streamlit's slider thumb), not the in-figure slider's proxy of the same name
        own = page.get_by_role("slider", name=catalogue.get(key).label).and_(page.locator(":not(.dpx-slider)")).first
        for i in range(moves):
            up = i % 2 == 0
            keyname = "ArrowRight" if up else "ArrowLeft"
            if proxy.evaluate("(e) => e.value === e.max") and up:
                keyname = "ArrowLeft"
            proxy.focus()
            t = _timed(
                page, key, lambda k=keyname: page.keyboard.press(k), server=False, missed=out["missed"], kind="key"
            )
            if t is not None:
                out["key"].append(t[0])
                out["key_all"] += [t[1]] if t[1] is not None else []
                out["key_at_start"] += [t[2]] if t[2] is not None else []
            _settle(page)
            box = _grip(page, key)
            page.mouse.move(box["x"], box["y"])
            page.mouse.down()
            target = box["x"] + box["sign"] * box["step"]
            t = _timed(
                page,
                key,
                lambda x=target, y=box["y"]: page.mouse.move(x, y),
                server=False,
                missed=out["missed"],
                kind="drag",
            )
            page.mouse.up()
            out["drag"] += [t[0]] if t is not None else []
            out["drag_at_start"] += [t[2]] if t is not None and t[2] is not None else []
            _settle(page)
            for attempt in range(3):  # the page may be redrawing the control (its catch-up run)
                try:
                    own.scroll_into_view_if_needed(timeout=10_000)
                    at_top = own.get_attribute("aria-valuenow") == own.get_attribute("aria-valuemax")
                    own.focus(timeout=10_000)
                    break
                except Exception:  # noqa: BLE001 — detached while the page ran: settle and look again
                    if attempt == 2:
                        raise
                    _settle(page)
            t = _timed(
                page,
                key,
                lambda k=("ArrowLeft" if at_top or not up else "ArrowRight"): own.press(k),
                server=True,
                missed=out["missed"],
                kind="sidebar",
            )
            out["sidebar"] += [t[0]] if t is not None else []
            _settle(page)
    finally:
        ctx.close()
    return out


def _misses(missed: list[str]) -> str:
    """Moves after which the chart showed the same (the stop moved), and in brackets inputs that did not move the
    slider at all (the pointer or key missed it: not a property of the chart)."""
    lost = sum("did not move" in m for m in missed)
    return f"{len(missed) - lost}" + (f" ({lost})" if lost else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=8617)
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--pages", default="", help="comma-separated: " + ", ".join(PAGES))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results-instant.md"))
    a = ap.parse_args(argv)

    from playwright.sync_api import sync_playwright

    wanted = [p.strip() for p in a.pages.split(",") if p.strip()] or list(PAGES)
    rows = []
    load_before = os.getloadavg()
    log = ROOT / "artifacts" / f"bench-instant-{a.port}.log"
    with app_server(a.port, log=log), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        base = f"http://127.0.0.1:{a.port}/"
        for name in wanted:
            path, key = PAGES[name]
            try:
                res = measure(browser, base + path, key, a.moves)
            except Exception as exc:  # noqa: BLE001 — one page's failure is a row, not the end of the run
                traceback.print_exc()
                why = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
                rows.append(f"| {name} | {key} | failed: {why} | | | | | | |")
                print(rows[-1], flush=True)
                continue
            cells = []
            for kind in ("key", "key_all", "drag", "sidebar"):
                s = res[kind]
                cells.append(f"{statistics.median(s):.0f} / {_p(s, 0.95):.0f} ms" if s else "—")
            charts = ", ".join(f"{b / 1e3:.0f} kB" for b in res["charts"])
            rows.append(
                f"| {name} | {key} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} | "
                f"{res['opened_bytes'] / 1e6:.2f} MB | {charts} | {_misses(res['missed'])} |"
            )
            print(rows[-1], flush=True)
            # every move, in order: a slow move is a moment, not a page
            for kind in ("key", "key_all", "key_at_start", "drag", "drag_at_start", "sidebar"):
                print(f"  {name} {kind} (ms): {' '.join(f'{t:.0f}' for t in res[kind])}", flush=True)
            nxt = [f"{_p(res[k], 0.95):.0f}" if res[k] else "—" for k in ("key_at_start", "drag_at_start")]
            print(f"  {name}: p95 of the looks at a frame's start alone, key / drag: {' / '.join(nxt)} ms", flush=True)
            if res["missed"]:
                print(f"  {name}: no change seen (stop before → after):", "; ".join(res["missed"]), flush=True)
        browser.close()
    load_after = os.getloadavg()
    head = [
        "# In-figure slider against sidebar slider (chromium, input → changed chart)",
        "",
        f"`python bench/instant.py --moves {a.moves}` on {time.strftime('%Y-%m-%d')}, headless Debian chromium, "
        "2 cores shared with other work (load average, 1 / 5 / 15 min: "
        f"{' / '.join(f'{x:.1f}' for x in load_before)} before, {' / '.join(f'{x:.1f}' for x in load_after)} after). "
        "p50 / p95 over the moves; in the figure the budget is "
        f"{BUDGET_MS:.0f} ms with nothing sent to the server; the sidebar slider is a server run.",
        "",
        "| page | parameter | in the figure: arrow key, p50 / p95 | the page's other charts over it too (arrow key) | "
        "in the figure: drag one stop, p50 / p95 | "
        "sidebar: arrow key, p50 / p95 | page opened: WebSocket bytes received | charts with a slider (JSON) | "
        "moves with no change (inputs that did not move the slider) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    text = "\n".join(head + rows) + "\n"
    Path(a.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
