"""Three replicas behind nginx sharing a PostgreSQL ledger store: 200 sessions at reading pace, one replica killed.

    python bench/cluster.py [--replicas 3] [--sessions 200] [--duration 180] [--kill-at 0.5] [--port 8660]

Starts the cluster of deploy/cluster.py (private PostgreSQL, N Streamlit replicas, nginx with sticky sessions and
WebSocket upgrade) and drives ``--sessions`` websocket clients through nginx with bench/load.py's session driver
(Streamlit's own protocol, as a browser). Each session adds a release to its privacy ledger on its first page, then
visits random pages that offer ledger releases (the view it lands on carries ``?ledger=<id>``, the capability link),
moves a slider ``--moves`` times per page at reading pace (``--think`` 4–12 s) and sometimes adds another release.

At ``--kill-at`` × duration one replica is killed (SIGKILL, as a crash). Its sessions see their WebSocket drop,
reconnect through nginx (which sends them to a live replica) and rerun their last address, as Streamlit's browser
client does: the page's view must come back from the address (the slider at the value last chosen) and the ledger
from the store (the sidebar shows exactly the releases the session had added). At the end every session's ledger is
read from PostgreSQL and compared with what the session saw accepted and refused: no entry may be lost.

Targets: slider p95 ≤ 300 ms, page-open p95 ≤ 2 s, 0 errors. Writes ``bench/results-cluster.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser import cpu_seconds, rss_mb  # noqa: E402
from load import Session, Tap, pct, pick_slider, slider_state  # noqa: E402

from deploy.cluster import Cluster  # noqa: E402

OFFER_PAGES = ("baselines", "svt", "brdp", "noise_reduction", "r2dp", "ldp")  # pages with "Add to the privacy ledger"
STATUS = re.compile(r"(\d+) releases? in the ledger")


class LedgerTap(Tap):
    """The session's websocket, also noting the buttons and the ledger status line of each run."""

    def __init__(self, ws):
        super().__init__(ws)
        self.reset()

    def reset(self) -> None:
        self.buttons: dict[str, str] = {}  # widget id -> label
        self.status: int | None = None
        self.added = self.refused = 0

    def drawn(self, which: str, el) -> None:
        if which == "button":
            self.buttons[el.button.id] = el.button.label
        elif which == "markdown" and (m := STATUS.search(el.markdown.body)):
            self.status = int(m.group(1))
        elif which == "alert" and el.alert.body.startswith("Added"):
            self.added += 1
        elif which == "alert" and el.alert.body.startswith("Refused"):
            self.refused += 1


@dataclass
class Student:
    ledger_id: str | None = None
    accepted: int = 0
    refused: int = 0


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    ended: list[float] = field(default_factory=list)  # when each of ``latencies`` ended (time.monotonic)
    killed_at: float | None = None
    busy: list[tuple[float, float]] = field(default_factory=list)  # (time.monotonic, machine CPU busy so far, s)
    page_loads: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    reconnects: list[float] = field(default_factory=list)  # drop → view and ledger restored, seconds
    restored_views: int = 0
    restored_ledgers: int = 0
    adds: int = 0
    refusals: int = 0
    students: list[Student] = field(default_factory=list)
    lags: list[tuple[float, float]] = field(default_factory=list)  # (time.monotonic, the load generator's loop lag, s)


class ClusterSession(Session):
    async def connect(self) -> None:
        await super().connect()
        self.ws = LedgerTap(self.ws)

    async def run(self, **kw):
        self.ws.reset()
        return await super().rerun(**kw)


def _ledger_in(query: str) -> str | None:
    return (parse_qs(query).get("ledger") or [None])[-1]


async def student(i: int, a, stats: Stats, stop_at: float) -> None:
    rnd = random.Random(7000 + i)
    me = Student()
    stats.students.append(me)
    await asyncio.sleep(rnd.uniform(0, a.ramp))
    sess = ClusterSession(a.port, a.timeout)
    page, slider, dropped_at = "baselines", None, None

    def check(res, where: str) -> None:
        errs = [e for e in res.errors if not e.startswith("st.error: Refused")]  # a refusal is an answer, not an error
        stats.errors.extend(f"{where}: {e}" for e in errs)
        shown = sess.ws.status  # None when the run drew no status line (e.g. the add block waits for a heavy panel)
        if page in OFFER_PAGES and me.ledger_id and shown is not None and shown != me.accepted:
            stats.errors.append(f"{where}: the sidebar shows {shown} releases, the session added {me.accepted}")

    async def add() -> None:
        btn = next((b for b, label in sess.ws.buttons.items() if "ledger_add_" in b), None)
        if btn is None:
            return
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        t = time.perf_counter()
        res = await sess.run(
            page_name=page, page_hash=sess.pages.get(page, ""), widgets=[WidgetState(id=btn, trigger_value=True)]
        )
        stats.latencies.append(time.perf_counter() - t)
        stats.ended.append(time.monotonic())
        me.accepted += sess.ws.added
        me.refused += sess.ws.refused
        stats.adds += sess.ws.added
        stats.refusals += sess.ws.refused
        me.ledger_id = _ledger_in(sess.query) or me.ledger_id
        check(res, f"{page} (add)")

    while time.monotonic() < stop_at:
        try:
            restored = False
            if sess.ws is None:
                await sess.connect()
                if dropped_at is not None:
                    restored = True  # reconnected: rerun the last address (view + ledger link)
                    address = sess.query
                    res = await sess.run(page_name=page, page_hash=sess.pages.get(page, ""))
                    check(res, f"{page} (after reconnect)")
                    # the app rewrites the address from the controls it drew: every value the address named is
                    # kept (a tab dropped right after a page switch named only its ledger: the page's defaults follow)
                    if parse_qs(address).items() <= parse_qs(sess.query).items():
                        stats.restored_views += 1
                    else:
                        stats.errors.append(f"{page} (after reconnect): address {address!r} became {sess.query!r}")
                    if sess.ws.status == me.accepted:
                        stats.restored_ledgers += 1
                    stats.reconnects.append(time.monotonic() - dropped_at)
                    dropped_at = None
            if not restored:
                page = rnd.choice(OFFER_PAGES) if me.ledger_id else "baselines"
                # the app's page menu links carry the tab's saved ledger (?ledger=<id>) and nothing else
                sess.query = f"ledger={me.ledger_id}" if me.ledger_id else ""
                t = time.perf_counter()
                res = await sess.run(page_name=page, page_hash=sess.pages.get(page, ""))
                stats.page_loads.append(time.perf_counter() - t)
                check(res, page)
                if me.ledger_id is None or rnd.random() < a.add_rate:
                    await asyncio.sleep(rnd.uniform(*a.think))
                    await add()
            slider = pick_slider(res.sliders)
            for _ in range(a.moves):
                if slider is None or time.monotonic() >= stop_at:
                    break
                await asyncio.sleep(rnd.uniform(*a.think))
                current = [slider.options[int(j)] for j in (slider.value if slider.set_value else slider.default)]
                mid = int(slider.default[0]) if slider.default else len(slider.options) // 2
                lo = max(0, min(mid - a.spread // 2, len(slider.options) - a.spread))
                pool = list(slider.options)[lo : lo + a.spread]
                option = rnd.choice([o for o in pool if o not in current] or pool)
                t = time.perf_counter()
                res = await sess.run(
                    page_name=page, page_hash=sess.pages.get(page, ""), widgets=[slider_state(slider, option)]
                )
                stats.latencies.append(time.perf_counter() - t)
                stats.ended.append(time.monotonic())
                check(res, f"{page} ({slider.label}={option})")
                slider = pick_slider(res.sliders) or slider
            await asyncio.sleep(rnd.uniform(*a.think))
        except Exception as exc:  # noqa: BLE001
            import websockets

            if isinstance(exc, websockets.ConnectionClosed | ConnectionError | OSError) and not isinstance(
                exc, TimeoutError
            ):
                dropped_at = dropped_at or time.monotonic()  # a replica went away: reconnect, as the browser does
            else:
                stats.errors.append(f"{page}: {type(exc).__name__}: {str(exc)[:100]}")
            try:
                await sess.close()
            except Exception:  # noqa: BLE001
                pass
            sess.ws = None
            await asyncio.sleep(rnd.uniform(0.5, 1.5))
    await sess.close()


async def warm(cluster: Cluster, timeout: float) -> None:
    """Open every page once on every replica (a deployed server is warm: modules imported, caches primed)."""
    for port in cluster.ports:
        sess = Session(port, timeout)
        await sess.connect()
        await sess.rerun(page_name="", page_hash="")
        for page in OFFER_PAGES:
            await sess.rerun(page_name=page, page_hash=sess.pages.get(page, ""))
        await sess.close()


async def drive(a, cluster: Cluster, stats: Stats) -> None:
    await warm(cluster, a.timeout)
    stop_at = time.monotonic() + a.duration

    async def kill() -> None:
        await asyncio.sleep(a.duration * a.kill_at)
        stats.killed_at = time.monotonic()
        await asyncio.to_thread(cluster.stop_replica, 0)
        print(f"  cluster: replica 0 (port {cluster.ports[0]}) killed", file=sys.stderr, flush=True)

    async def sample() -> None:
        while time.monotonic() < stop_at:
            stats.busy.append((time.monotonic(), machine_busy()))
            await asyncio.sleep(1.0)

    async def lag() -> None:  # how late the load generator's own event loop is: a late loop reads replies late
        while time.monotonic() < stop_at:
            t = time.monotonic()
            await asyncio.sleep(0.05)
            stats.lags.append((t, time.monotonic() - t - 0.05))

    await asyncio.gather(kill(), sample(), lag(), *(student(i, a, stats, stop_at) for i in range(a.sessions)))


def verify(url: str, stats: Stats) -> list[str]:
    """Every session's ledger, read back from PostgreSQL, against what the session saw."""
    from app import ledger_store as ls

    store, problems = ls.LedgerStore(url), []
    try:
        for k, s in enumerate(stats.students):
            if s.ledger_id is None:
                continue
            snap, history = store.load(s.ledger_id), store.history(s.ledger_id)
            added = sum(e.op == "add" for e in history)
            refused = sum(e.op == "refuse" for e in history)
            if snap is None or len(snap.ledger.releases) != s.accepted or added != s.accepted or refused != s.refused:
                problems.append(
                    f"session {k}: stored {added} added / {refused} refused, saw {s.accepted} / {s.refused}"
                )
    finally:
        store.dispose()
    return problems


def not_a_real_run(sessions: int, *, moves: int, ledgers: int, cpu: float) -> str:
    """Why a finished run cannot be a measurement of the cluster ('' when it can): every session moves sliders and
    keeps a ledger, and serving them costs the replicas CPU (at least 0.05 s a session)."""
    reasons = []
    if moves < sessions:
        reasons.append(f"{moves} slider moves for {sessions} sessions")
    if ledgers == 0 and sessions:
        reasons.append("no session kept a ledger")
    if cpu < 0.05 * sessions:
        reasons.append(f"the surviving replicas used {cpu:.1f} s of CPU")
    return "; ".join(reasons)


def split_at_kill(stats: Stats) -> list[str]:
    """Table rows: the slider's p50 / p95 while all replicas served, and after one was killed (its sessions moved to
    the others)."""
    if stats.killed_at is None:
        return []
    rows = []
    for name, keep in (
        ("before the kill", lambda t: t < stats.killed_at),
        ("after the kill", lambda t: t >= stats.killed_at),
    ):
        lat = [x for x, t in zip(stats.latencies, stats.ended, strict=True) if keep(t)]
        busy = [(t, b) for t, b in stats.busy if keep(t)]
        cores = ""
        if len(busy) > 1:
            share = (busy[-1][1] - busy[0][1]) / (busy[-1][0] - busy[0][0]) / (os.cpu_count() or 1)
            cores = f"; the machine's cores {share:.0%} busy"
        if lat:
            rows.append(
                f"| … {name}: n, p50 / p95{cores} | {len(lat)}, {statistics.median(lat) * 1e3:.0f} / "
                f"{pct(lat, 0.95) * 1e3:.0f} ms | — |"
            )
    return rows


def machine_busy() -> float:
    """CPU seconds the whole machine has spent busy so far, over all cores (``/proc/stat``: all but idle and
    iowait)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--duration", type=float, default=180.0)
    ap.add_argument("--kill-at", type=float, default=0.5, help="fraction of the run at which replica 0 is killed")
    ap.add_argument("--port", type=int, default=8660)
    ap.add_argument("--moves", type=int, default=4)
    ap.add_argument("--think", type=float, nargs=2, default=(4.0, 12.0))
    ap.add_argument("--spread", type=int, default=5)
    ap.add_argument("--add-rate", type=float, default=0.2, help="chance of adding a release on a page visit")
    ap.add_argument("--ramp", type=float, default=20.0)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results-cluster.md"))
    ap.add_argument(
        "--series",
        help="also write every slider move (seconds from the start, latency) and the "
        "machine's busy CPU over time to this JSON file, to see when the slow moves were",
    )
    a = ap.parse_args(argv)

    stats = Stats()
    load0 = os.getloadavg()[0]
    with Cluster(a.replicas, a.port, run_dir=ROOT / ".dpx-data" / "bench-cluster") as cluster:
        pids = cluster.pids()
        cpu0, t0, busy0, own0 = (
            {p: cpu_seconds(p) for p in pids},
            time.monotonic(),
            machine_busy(),
            time.process_time(),
        )
        rss0 = sum(rss_mb(p) for p in pids)
        asyncio.run(drive(a, cluster, stats))
        wall = time.monotonic() - t0
        cpu = sum(cpu_seconds(p) - cpu0.get(p, 0.0) for p in cluster.pids())  # over the run, not since start-up
        busy, own = machine_busy() - busy0, time.process_time() - own0
        lost = verify(cluster.database_url, stats)
    stats.errors += lost
    if a.series:
        Path(a.series).write_text(
            json.dumps(
                {
                    "killed_at": None if stats.killed_at is None else round(stats.killed_at - t0, 3),
                    "moves": [
                        [round(t - t0, 3), round(x, 4)] for x, t in zip(stats.latencies, stats.ended, strict=True)
                    ],
                    "busy": [[round(t - t0, 2), round(b, 2)] for t, b in stats.busy],
                    "lag": [[round(t - t0, 2), round(x, 4)] for t, x in stats.lags],
                }
            )
        )
    lat, loads = stats.latencies, stats.page_loads
    n_ledgers = sum(s.ledger_id is not None for s in stats.students)
    ok = lambda cond: "ok" if cond else "**MISSED**"  # noqa: E731
    lines = [
        f"{a.sessions} websocket sessions through nginx on {a.replicas} replicas sharing one PostgreSQL ledger store, "
        f"{a.duration:g} s on 127.0.0.1 (2 cores shared with other work; load average {load0:.2f} at the start), "
        f"reading pace ({a.think[0]:g}–{a.think[1]:g} s between moves, {a.moves} moves per page, the {a.spread} "
        f"values around each slider's default); one replica killed (SIGKILL) at {a.kill_at * a.duration:.0f} s.",
        "",
        "| measure | value | target |",
        "|---|---|---|",
        f"| slider moves and ledger additions completed | {len(lat)} | — |",
        f"| slider rerun p50 / p95 / max | {statistics.median(lat) * 1e3:.0f} / {pct(lat, 0.95) * 1e3:.0f} / "
        f"{max(lat) * 1e3:.0f} ms | p95 ≤ 300 ms ({ok(pct(lat, 0.95) <= 0.3)}) |"
        if lat
        else "| slider reruns | none | |",
        *split_at_kill(stats),
        f"| page opens, p50 / p95 / max | {len(loads)}, {statistics.median(loads) * 1e3:.0f} / "
        f"{pct(loads, 0.95) * 1e3:.0f} / {max(loads) * 1e3:.0f} ms | p95 ≤ 2 s ({ok(pct(loads, 0.95) <= 2)}) |"
        if loads
        else "| page opens | none | |",
        f"| errors (exceptions, st.error, timeouts, wrong ledger shown, lost entries) | {len(stats.errors)} | 0 "
        f"({ok(not stats.errors)}) |",
        f"| sessions moved by the kill: reconnected / view restored / ledger restored | {len(stats.reconnects)} / "
        f"{stats.restored_views} / {stats.restored_ledgers} | all |",
        "| drop → view and ledger back, p50 / max | "
        + (f"{statistics.median(stats.reconnects):.1f} / {max(stats.reconnects):.1f} s" if stats.reconnects else "—")
        + " | — |",
        f"| ledgers / releases accepted / refused (all read back from PostgreSQL) | {n_ledgers} / {stats.adds} / "
        f"{stats.refusals} | no entry lost ({ok(not lost)}) |",
        f"| replicas' memory at the start (PSS incl. workers) | {rss0:.0f} MiB | — |",
        f"| CPU of the surviving replicas | {cpu:.0f} s over {wall:.0f} s | — |",
        f"| the machine's CPU: busy / available, of which the load generator | {busy:.0f} / "
        f"{(os.cpu_count() or 1) * wall:.0f} s, {own:.0f} s | — |",
        "| the load generator's own lateness (its event loop), p95 / max | "
        f"{pct([x for _, x in stats.lags], 0.95) * 1e3:.0f}"
        f" / {max((x for _, x in stats.lags), default=0) * 1e3:.0f} ms | — |",
    ]
    if stats.errors:
        kinds: dict[str, list[str]] = {}
        for e in stats.errors:
            kinds.setdefault(re.sub(r"\d+(\.\d+)?", "N", e.split(": ", 1)[-1])[:90], []).append(e)
        lines += ["", "Errors by kind (one example each):", ""] + [
            f"* {len(v)} × {k} — e.g. {v[0][:160]}" for k, v in sorted(kinds.items(), key=lambda x: -len(x[1]))
        ]
    text = "\n".join(lines) + (
        f"\n\nMachine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the "
        f"end ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})."
    )
    print(text)
    invalid = not_a_real_run(a.sessions, moves=len(lat), ledgers=n_ledgers, cpu=cpu)
    if invalid:  # e.g. replicas that could not bind their ports, left over from an earlier run, served nothing
        print(f"\nNOT A VALID RUN ({invalid}); {a.out} left as it was.", file=sys.stderr)
        return 2
    if a.out:
        Path(a.out).write_text("# DP Explorer on a cluster (bench/cluster.py)\n\n" + text + "\n")
    return 0 if not stats.errors else 1


if __name__ == "__main__":
    raise SystemExit(main())
