"""Moving between the steps of a lesson with the → and ← keys, on a 1280×720 projector, in headless Debian chromium.

Budget (docs/architecture.md): each move p95 ≤ 1 s on a quiet server.

Starts its own server (``streamlit run app/serve.py`` on 127.0.0.1:PORT, file watcher off), opens each ready-made lesson
in presentation mode at its first step, walks to the last step with → and back with ←, ``--passes`` times. The first
walk forward meets every view's settings for the first time (cold caches) and is reported apart. Each move is timed in
the page: t0 = ``performance.now()`` in a capturing ``keydown`` listener; "landed" = the first animation frame at which
the address names the new step and the new step's panel sits at the top of the screen (its scroll margin) with its
chart or table drawn and no longer the previous page's; "done" = the page run is over (Streamlit's status widget gone
and the step agent reports the new step).

    python bench/present.py [--port 8617] [--passes 3] [--dwell 3] [--lessons brdp-svt,eps] [--split]

``--split`` also says where each move's time goes: the messages the server sent the projected tab (count, kB,
charts among them), the CPU time the server (with its workers) and the browser spent on the move, and the CPU time
both spent while the bench dwelt on the view (the hidden frame preparing the next one). On a shared machine CPU
time says more than wall time: it does not grow with other people's load.

Prints a Markdown table (lesson, moves, landed p50/p95, done p50/p95, ok?) and writes it to
``bench/results-present.md``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.browser import ARGS, CHROMIUM, app_server  # noqa: E402

BUDGET_MS = 1000.0
VERBOSE = False
DWELL_MS = 3000.0
SPLIT: list[dict] | None = None  # --split: one entry per move
_WS: dict = {"main": None, "frames": []}  # the projected tab's websocket and what it received during the move
_PIDS = {"server": 0}

FIGURE = '[data-testid="stPlotlyChart"] .main-svg, [data-testid="stTable"] table'
ARM_JS = """([step, panel, figure]) => {
  // the figures on screen before the move: a landed step shows a figure drawn for it (or, when the browser redraws
  // the same element in place, the one there once the run is over)
  const old = Array.from(document.querySelectorAll(figure));
  window.__move = {t0: null, landed: null, done: null, step, panel};
  if (!window.__moveListener) {
    window.__moveListener = true;
    document.addEventListener('keydown', () => { const m = window.__move;
      if (m && m.t0 === null) m.t0 = performance.now(); }, true);
  }
  const m = window.__move;
  const tick = () => {
    if (window.__move !== m) return;
    const now = performance.now();
    if (m.t0 !== null) {
      const agent = window.dpxStep && window.dpxStep.data;
      if (m.done === null && agent && agent.step === m.step
          && !document.querySelector('[data-testid="stStatusWidget"]')) m.done = now - m.t0;
      const at = new URLSearchParams(location.search).get('step') === String(m.step + 1);
      const el = document.querySelector('.st-key-dpx-panel-' + m.panel);
      if (m.landed === null && at && el) {
        const fig = el.querySelector(figure);
        const want = parseFloat(getComputedStyle(el).scrollMarginTop) || 0;
        if (fig && !fig.closest('[data-stale="true"]') && (!old.includes(fig) || m.done !== null)
            && Math.abs(el.getBoundingClientRect().top - want) <= 3) m.landed = now - m.t0;
      }
      if (m.landed !== null && m.done !== null) return;
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


AT_STEP = "(i) => window.dpxStep && window.dpxStep.data && window.dpxStep.data.step === i"
BASE_URL = {"url": ""}


def step_url(lesson, i: int) -> str:
    """The address of step ``i`` (0-based) of ``lesson`` in presentation mode."""
    from app import sequences
    from app.exercises import query_string

    query = query_string(sequences.view_query(lesson, i, present=True))
    return f"{BASE_URL['url']}/{lesson.steps[i].page}?{query}"


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def _fmt(ms: float) -> str:
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.0f} ms"


def _cpu_ms() -> tuple[float, float]:
    """CPU time (user + system, ms) of the server with its workers, and of the bench's chromium, from /proc."""
    tree: dict[int, list[int]] = {}
    ticks: dict[int, tuple[str, int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
        tree.setdefault(int(rest[1]), []).append(int(d))
        ticks[int(d)] = (comm, int(rest[11]) + int(rest[12]))

    def under(pid: int) -> list[int]:
        out, todo = [], [pid]
        while todo:
            p = todo.pop()
            out.append(p)
            todo += tree.get(p, [])
        return out

    tick_ms = 1000 / os.sysconf("SC_CLK_TCK")
    server = set(under(_PIDS["server"]))
    browser = [p for p in under(os.getpid()) if p not in server and ticks.get(p, ("", 0))[0].startswith("chrom")]
    return (
        sum(ticks.get(p, ("", 0))[1] for p in server) * tick_ms,
        sum(ticks.get(p, ("", 0))[1] for p in browser) * tick_ms,
    )


def _on_websocket(ws) -> None:
    """Count what the projected tab's own connection receives (not the hidden frame's)."""
    if _WS["main"] is not None and not _WS["main"].is_closed():
        return
    _WS["main"] = ws

    def received(payload) -> None:
        if _WS["main"] is ws and not isinstance(payload, str):
            _WS["frames"].append(payload)

    ws.on("framereceived", received)


def _charts(frames: list[bytes]) -> int:
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    n = 0
    for raw in frames:
        msg = ForwardMsg()
        msg.ParseFromString(raw)
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            n += msg.delta.new_element.WhichOneof("type") == "plotly_chart"
    return n


def walk(page, lesson, start: int, stop: int, timeout_ms: float) -> list[tuple[float | None, float | None]]:
    """Press → (or ←) from step ``start`` to step ``stop`` (0-based); each move's (landed, done) in ms."""
    out = []
    step = 1 if stop > start else -1
    for i in range(start + step, stop + step, step):
        page.evaluate(ARM_JS, [i, lesson.steps[i].panel, FIGURE])
        _WS["frames"] = []
        cpu0 = _cpu_ms() if SPLIT is not None else (0.0, 0.0)
        page.keyboard.press("ArrowRight" if step > 0 else "ArrowLeft")
        try:
            page.wait_for_function(
                "() => window.__move.landed !== null && window.__move.done !== null", timeout=timeout_ms, polling=100
            )
        except Exception:  # noqa: BLE001 — too slow: counted as a timeout, the walk waits for the view and goes on
            try:
                page.wait_for_function(AT_STEP, arg=i, timeout=120_000)
            except Exception:  # noqa: BLE001 — the move never came (the key was lost): open the step by its link
                print(f"  {lesson.id} → step {i + 1}: the move never came; opening its link", flush=True)
                page.goto(step_url(lesson, i), timeout=120_000)
                page.wait_for_function(AT_STEP, arg=i, timeout=120_000)
                page.evaluate("() => { window.__move = {landed: null, done: null}; }")  # counted as a timeout
        got = page.evaluate("() => [window.__move.landed, window.__move.done]")
        out.append((got[0], got[1]))
        if VERBOSE:
            print(f"  {lesson.id} → step {i + 1}: landed {got[0]}, done {got[1]}", flush=True)
        if SPLIT is None:
            page.wait_for_timeout(DWELL_MS)  # the teacher speaks; meanwhile the next view is prepared in a hidden frame
            continue
        cpu1 = _cpu_ms()
        frames = list(_WS["frames"])
        page.wait_for_timeout(DWELL_MS)
        cpu2 = _cpu_ms()
        SPLIT.append(
            {
                "lesson": lesson.id,
                "messages": len(frames),
                "kB": sum(len(f) for f in frames) / 1024,
                "charts": _charts(frames),
                "server CPU": cpu1[0] - cpu0[0],
                "browser CPU": cpu1[1] - cpu0[1],
                "dwell server CPU": cpu2[0] - cpu1[0],
                "dwell browser CPU": cpu2[1] - cpu1[1],
            }
        )
        if VERBOSE:
            print("   ", {k: round(v) if isinstance(v, float) else v for k, v in SPLIT[-1].items()}, flush=True)
    return out


def _split_table(moves: list[dict]) -> list[str]:
    """Medians per lesson of where a move's time went (``--split``)."""
    keys = [k for k in moves[0] if k != "lesson"]
    out = [
        "Where a move's time goes (medians over every move; CPU times in ms, the dwell's while the bench stayed on the "
        "view and the hidden frame prepared the next one):",
        "",
        "| lesson | " + " | ".join(keys) + " |",
        "|---|" + "---|" * len(keys),
    ]
    for lesson in dict.fromkeys(m["lesson"] for m in moves):
        mine = [m for m in moves if m["lesson"] == lesson]
        out.append(f"| {lesson} | " + " | ".join(f"{statistics.median(m[k] for m in mine):.0f}" for k in keys) + " |")
    return [*out, ""]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=8617)
    ap.add_argument("--passes", type=int, default=3, help="warm walks (forward and back) after the first one")
    ap.add_argument("--lessons", default="", help="comma-separated lesson ids; default: every ready-made lesson")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for one move")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results-present.md"))
    ap.add_argument("--verbose", action="store_true", help="print every move's times")
    ap.add_argument(
        "--dwell",
        type=float,
        default=3.0,
        help="seconds on each view before the next key press (a teacher speaks for minutes)",
    )
    ap.add_argument("--split", action="store_true", help="also where each move's time goes (messages, CPU time)")
    a = ap.parse_args(argv)
    global VERBOSE, DWELL_MS, SPLIT
    VERBOSE = a.verbose
    DWELL_MS = a.dwell * 1000
    SPLIT = [] if a.split else None

    from playwright.sync_api import sync_playwright

    from app import sequences

    wanted = [x.strip() for x in a.lessons.split(",") if x.strip()] or list(sequences.LESSONS)
    rows = []
    BASE_URL["url"] = f"http://127.0.0.1:{a.port}"
    with app_server(a.port, log=ROOT / "artifacts" / "bench-present.log") as server, sync_playwright() as pw:
        _PIDS["server"] = server.pid
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for lesson_id in wanted:
            lesson = sequences.LESSONS[lesson_id]
            ctx = browser.new_context(viewport={"width": 1280, "height": 720})
            page = ctx.new_page()
            _WS["main"] = None
            page.on("websocket", _on_websocket)
            page.goto(step_url(lesson, 0), timeout=120_000)
            page.wait_for_function(AT_STEP, arg=0, timeout=120_000)
            page.wait_for_timeout(1500)
            last = len(lesson.steps) - 1
            cold = walk(page, lesson, 0, last, a.timeout * 1000) + walk(page, lesson, last, 0, a.timeout * 1000)
            warm: list[tuple[float | None, float | None]] = []
            for _ in range(a.passes):
                warm += walk(page, lesson, 0, last, a.timeout * 1000) + walk(page, lesson, last, 0, a.timeout * 1000)
            ctx.close()
            for label, moves in (("first walk (cold)", cold), ("warm", warm)):
                landed = [m[0] for m in moves if m[0] is not None]
                done = [m[1] for m in moves if m[1] is not None]
                timeouts = sum(m[0] is None or m[1] is None for m in moves)
                if not landed:
                    rows.append((lesson.title, label, len(moves), "–", "–", "–", "–", f"{timeouts} timeouts"))
                    continue
                ok = "ok" if _pct(landed, 0.95) <= BUDGET_MS and not timeouts else "over"
                rows.append(
                    (
                        lesson.title,
                        label,
                        len(moves),
                        _fmt(statistics.median(landed)),
                        _fmt(_pct(landed, 0.95)),
                        _fmt(statistics.median(done)),
                        _fmt(_pct(done, 0.95)),
                        ok + (f", {timeouts} timeouts" if timeouts else ""),
                    )
                )
                print(rows[-1], flush=True)
        browser.close()
    load = os.getloadavg()[0]
    lines = [
        "# DP Explorer lesson steps (bench/present.py)",
        "",
        "→ / ← between the steps of each ready-made lesson in presentation mode at 1280×720, headless Debian chromium: "
        '"landed" is key press → the new step\'s panel at the top of the screen with its figure drawn; "done" is '
        f"key press → the page run over. The first walk (forward and back) meets each view's settings for the first "
        f"time; then {a.passes} warm walks. The bench stays {a.dwell:g} s on each view before the next key (a teacher "
        "speaks for minutes): meanwhile the step agent prepares the next view in a hidden frame, so a first visit "
        "finds its numbers and pictures computed (a key pressed before that falls back to computing them). "
        f"p95 budget {_fmt(BUDGET_MS)} (landed).",
        "",
        "| lesson | walk | moves | landed p50 | landed p95 | done p50 | done p95 | ok? |",
        "|---|---|---|---|---|---|---|---|",
        *("| " + " | ".join(str(c) for c in r) + " |" for r in rows),
        "",
        f"Machine: {os.cpu_count()} cores, load average {load:.2f} "
        f"({datetime.now(UTC).strftime('%Y-%m-%d %H:%M')} UTC).",
        "",
        *(_split_table(SPLIT) if SPLIT else []),
    ]
    Path(a.out).write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
