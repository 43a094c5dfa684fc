"""Browser latency: slider release → chart updated, per page, in headless Debian chromium.

Budget (docs/architecture.md): p95 ≤ 300 ms.

Starts its own server (``streamlit run app/serve.py`` on 127.0.0.1:PORT, file watcher off), then for every page of
``app.registry.available_pages()``: opens it, waits for the first render, and ``--moves`` times moves a slider by
keyboard (ε when the page has it, else its first slider; ArrowRight/ArrowLeft alternately, so after the first two
moves the values are cached — pass ``--cold`` to keep walking to new values instead). Keyboard changes commit at once,
like a mouse release. Each move is timed in the page: t0 = ``performance.now()`` in a capturing ``keydown`` listener,
t1 = the first animation frame at which the signature of what the page shows (every Plotly chart's trace data, and
the main area's text) differs from before the move **and** Streamlit's status widget is gone.

    python bench/browser.py [--port 8616] [--moves 20] [--pages baselines,svt] [--cold]

Prints a Markdown table (page, p50, p95, budget, ok?) and writes it to ``bench/results-browser.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.serving import ONE_THREAD, served, streamlit_args  # noqa: E402


@contextlib.contextmanager
def app_server(port: int, *, log: Path | None = None, extra: tuple[str, ...] = ()) -> Iterator[subprocess.Popen]:
    """``streamlit run app/serve.py`` headless on 127.0.0.1:port (XSRF protection left on); stopped on exit."""
    with served(
        streamlit_args(port, extra),
        port,
        health="/_stcore/health",
        seconds=90,
        what="the app server",
        env=ONE_THREAD,
        log=log,
    ) as proc:
        yield proc


def tree(pid: int) -> list[int]:
    """``pid`` and its live descendants (the app server's background worker processes, app.background)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def _mem_kb(pid: int) -> int:
    """Proportional set size (shared pages split between the processes sharing them), else VmRSS, in KiB."""
    for name, key in ((f"/proc/{pid}/smaps_rollup", "Pss:"), (f"/proc/{pid}/status", "VmRSS:")):
        try:
            for line in Path(name).read_text().splitlines():
                if line.startswith(key):
                    return int(line.split()[1])
        except OSError:
            continue
    return 0


def rss_mb(pid: int) -> float:
    """Memory of a process and its worker processes in MiB: the sum of their PSS (a forked worker shares most of
    its pages with the forkserver, so summing RSS would count them twice)."""
    return sum(_mem_kb(p) for p in tree(pid)) / 1024


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by a process and its live worker processes (/proc/<pid>/stat)."""
    total = 0.0
    for p in tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


BUDGET_MS = 300.0
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
EPS_LABEL = "ε — privacy-loss budget"

# A cheap signature of what the page shows: every Plotly chart's trace data (lengths and sums of x/y/z) and the main
# area's text (a control whose charts do not depend on it, e.g. the ledger's budget with no releases, changes text).
SIGNATURE_JS = """() => {
  const plots = Array.from(document.querySelectorAll('.js-plotly-plot'));
  const main = document.querySelector('[data-testid="stMain"]');
  const parts = ['text:' + (main ? main.innerText : '')];
  for (const p of plots) {
    for (const t of (p._fullData || [])) {
      for (const k of ['x', 'y', 'z']) {
        const v = t[k];
        if (!v || !v.length) continue;
        let s = 0, n = 0;
        const flat = Array.isArray(v[0]) ? v.flat() : v;
        for (const e of flat) { const f = +e; if (Number.isFinite(f)) { s += f; n++; } }
        parts.push(k + flat.length + ':' + n + ':' + s.toPrecision(12));
      }
    }
  }
  return parts.join('|');
}"""

ARM_JS = """(sig) => {
  window.__bench = {sig: sig, t0: null};
  if (!window.__benchListener) {
    window.__benchListener = true;
    document.addEventListener('keydown', () => { if (window.__bench && window.__bench.t0 === null)
      window.__bench.t0 = performance.now(); }, true);
  }
}"""

DONE_JS = (
    "(sig) => { const b = window.__bench; if (!b || b.t0 === null) return false;"
    " if (document.querySelector('[data-testid=\"stStatusWidget\"]')) return false;"
    " const now = (" + SIGNATURE_JS + ")(); if (now === b.sig) return false;"
    " return performance.now() - b.t0; }"
)


def wait_idle(page, timeout: float = 60_000) -> None:
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=timeout)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout)


def find_slider(page):
    """The ε slider (label "ε — privacy-loss budget", else any label starting with ε), else the first slider."""
    try:  # sidebars and panels finish rendering a moment after the title: give sliders time to appear
        page.get_by_role("slider").first.wait_for(state="attached", timeout=15_000)
    except Exception:  # noqa: BLE001 — a page without sliders
        return None, ""
    for name in (EPS_LABEL, re.compile(r"^ε")):
        eps = page.get_by_role("slider", name=name)
        if eps.count():
            s = eps.first
            return s, s.get_attribute("aria-label") or (name if isinstance(name, str) else "a slider named ε…")
    any_slider = page.get_by_role("slider")
    if any_slider.count():
        s = any_slider.first
        return s, s.get_attribute("aria-label") or "first slider"
    return None, ""


def measure_page(browser, url: str, *, moves: int, cold: bool, timeout_ms: float) -> dict:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    out = {"samples": [], "timeouts": 0, "slider": "", "errors": 0}
    try:
        t = time.perf_counter()
        page.goto(url, timeout=120_000)
        wait_idle(page, 120_000)
        out["first_render_s"] = time.perf_counter() - t
        page.wait_for_timeout(500)  # let Plotly finish drawing
        slider, name = find_slider(page)
        out["slider"] = name
        if slider is None:
            return out
        at_top = slider.get_attribute("aria-valuenow") == slider.get_attribute("aria-valuemax")
        first, second = ("ArrowLeft", "ArrowRight") if at_top else ("ArrowRight", "ArrowLeft")
        direction = first
        for i in range(moves):
            if cold:
                now, top = slider.get_attribute("aria-valuenow"), slider.get_attribute("aria-valuemax")
                if now == top:
                    direction = "ArrowLeft"
                elif now == slider.get_attribute("aria-valuemin"):
                    direction = "ArrowRight"
            else:
                direction = first if i % 2 == 0 else second
            sig = page.evaluate(SIGNATURE_JS)
            page.evaluate(ARM_JS, sig)
            slider.focus()
            slider.press(direction)
            try:
                handle = page.wait_for_function(DONE_JS, arg=sig, timeout=timeout_ms, polling="raf")
                out["samples"].append(float(handle.json_value()))
            except Exception:  # noqa: BLE001 — the view did not change (or took longer than the timeout)
                out["timeouts"] += 1
                wait_idle(page)
            page.wait_for_timeout(150)
        out["errors"] = page.locator("[data-testid='stException'], [data-testid='stAlertContentError']").count()
    finally:
        ctx.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=8616)
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--pages", default="", help="comma-separated url paths (home = 'home'); default: all pages")
    ap.add_argument("--cold", action="store_true", help="walk to a new value on every move (cache misses)")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for one update")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results-browser.md"))
    a = ap.parse_args(argv)

    from playwright.sync_api import sync_playwright

    from app import registry

    wanted = {p.strip() for p in a.pages.split(",") if p.strip()}
    pages = [p for p in registry.available_pages() if not wanted or (p.url_path or "home") in wanted]
    rows = []
    log = ROOT / "artifacts" / f"bench-server-{a.port}.log"  # git-ignored
    with app_server(a.port, log=log), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        base = f"http://127.0.0.1:{a.port}/"
        # one throw-away visit so that imports and first-run caches do not land on the first page measured
        measure_page(browser, base, moves=0, cold=False, timeout_ms=a.timeout * 1000)
        for p in pages:
            res = measure_page(browser, base + p.url_path, moves=a.moves, cold=a.cold, timeout_ms=a.timeout * 1000)
            # the first two alternating moves reach values no cache has seen: reported apart from the steady state
            cold, s = res["samples"][:2], sorted(res["samples"][2:] if not a.cold else res["samples"])
            if s:
                p50 = statistics.median(s)
                p95 = s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]
                ok = "ok" if p95 <= BUDGET_MS and not res["timeouts"] else "**OVER**"
                cells = (f"{p50:.0f} ms", f"{p95:.0f} ms")
            else:
                ok, cells = "—", ("", "")
            note = f"{res['slider']}; n = {len(s)}"
            if cold and not a.cold:
                note += f"; first two moves (cold caches): {', '.join(f'{c:.0f}' for c in cold)} ms"
            if res["timeouts"]:
                note += f", {res['timeouts']} move(s) without a visible change within {a.timeout:g} s"
            if res.get("errors"):
                note += f", {res['errors']} error element(s)"
            note += f"; first render {res.get('first_render_s', float('nan')):.1f} s"
            rows.append((p.title, *cells, "p95 ≤ 300 ms", ok, note))
            print(f"  browser bench: {p.title}: {cells} {note}", file=sys.stderr, flush=True)
        browser.close()
    mode = (
        "new value on every move (cold caches)"
        if a.cold
        else "ε moved back and forth; p50/p95 over moves 3…n (warm caches), the first two moves listed in the notes"
    )
    lines = [
        f"Slider release → chart updated in headless Debian chromium, {mode}; {a.moves} moves per page.",
        "",
        "| page | p50 | p95 | budget | ok? | notes |",
        "|---|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += [
        "",
        f"Machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} "
        f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}).",
    ]
    text = "\n".join(lines)
    print(text)
    if a.out:
        Path(a.out).write_text("# DP Explorer browser benchmark (bench/browser.py)\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
