"""A class poll under load: 200 phones answer within 30 s, against one server and against a 3-replica cluster.

    python bench/poll.py [--phones 200] [--window 20] [--replicas 3] [--port 8700] [--only single|cluster]

For each setting a poll is started in the app's own database (SQLite for one server, the cluster's PostgreSQL for
``--replicas`` replicas behind nginx, deploy/cluster.py) and a teacher's projector session keeps its live view open:
its fragment reruns every two seconds, as the browser's timer makes it. ``--phones`` phones arrive spread over
``--window`` seconds (students scanning the QR code), and each, as a browser does:

1. opens the join link over HTTP (``GET /poll?join=<code>``), which sets its poll cookie (and, through nginx, its
   sticky-route cookie);
2. opens Streamlit's WebSocket with those cookies and runs the page (``BackMsg.rerun_script``, bench/load.py's
   client), which draws the question and the Yes and No buttons;
3. thinks 1–4 s and presses Yes or No (the button's trigger value), then waits until the page says the answer is in.

A phone's answer time is its press → the thanks drawn. Errors: an exception or ``st.error`` on a page, a phone that
did not get its thanks, a run that does not finish within ``--timeout`` seconds, a dropped connection, and a final
count (read from the database, and on the projector) other than the number of phones. Target: every phone answered
within 30 s of the first one, 0 errors. Writes ``bench/results-poll.md`` (one section per setting).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser import app_server, cpu_seconds  # noqa: E402
from load import Session, Tap, pct  # noqa: E402

QUESTION = "Have you ever copied someone else's homework?"
TARGET_S = 30.0
COUNT = re.compile(r"^(\d+) answers?$")


@dataclass
class Stats:
    opened: list[float] = field(default_factory=list)  # join link → question and buttons drawn (HTTP + first run)
    answered: list[float] = field(default_factory=list)  # press → thanks drawn
    done_at: list[float] = field(default_factory=list)  # when each phone's thanks arrived (time.monotonic)
    errors: list[str] = field(default_factory=list)
    projector: list[int] = field(default_factory=list)  # the count the projector showed at each refresh
    refresh: list[float] = field(default_factory=list)  # the projector's fragment reruns


class Phone(Session):
    """bench/load.py's client, sending the browser's cookies with the WebSocket's handshake and noting the buttons,
    the thanks and the projector's count of each run."""

    def __init__(self, port: int, timeout: float, cookies: str = ""):
        super().__init__(port, timeout)
        self.cookies = cookies
        self.buttons: dict[str, str] = {}  # label -> widget id
        self.thanked = False
        self.count: int | None = None

    def headers(self) -> dict[str, str] | None:
        return {"Cookie": self.cookies} if self.cookies else None

    async def connect(self) -> None:
        await super().connect()
        self.ws = _Tap(self.ws, self)


class _Tap(Tap):
    def __init__(self, ws, phone: Phone):
        super().__init__(ws)
        self.phone = phone

    def drawn(self, which: str, el) -> None:
        if which == "button":
            self.phone.buttons[el.button.label] = el.button.id
        elif which == "alert" and "your answer is in" in el.alert.body:
            self.phone.thanked = True
        elif which == "metric" and (m := COUNT.match(el.metric.body)):
            self.phone.count = int(m.group(1))


def http_cookies(port: int, path: str) -> str:
    """GET the page as a browser does and return the cookies it sets, as a ``Cookie`` header."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
        found = [c.split(";", 1)[0] for c in r.headers.get_all("Set-Cookie") or []]
    return "; ".join(found)


async def phone(i: int, a, port: int, code: str, stats: Stats) -> None:
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    rnd = random.Random(9000 + i)
    await asyncio.sleep(rnd.uniform(0, a.window))
    where = f"phone {i}"
    p = None
    try:
        t = time.perf_counter()
        cookies = await asyncio.to_thread(http_cookies, port, f"/poll?join={code}")
        if "dpx_poll=" not in cookies:
            stats.errors.append(f"{where}: the poll page set no cookie ({cookies!r})")
        p = Phone(port, a.timeout, cookies)
        await p.connect()
        p.query = f"join={code}"
        res = await p.rerun(page_name="poll", page_hash="")
        stats.errors += [f"{where} (open): {e}" for e in res.errors]
        stats.opened.append(time.perf_counter() - t)
        choice = "Yes" if rnd.random() < 0.6 else "No"
        if choice not in p.buttons:
            stats.errors.append(f"{where}: no {choice} button on the page")
            return
        await asyncio.sleep(rnd.uniform(1.0, 4.0))
        t = time.perf_counter()
        res = await p.rerun(
            page_name="poll", page_hash=res.page_hash, widgets=[WidgetState(id=p.buttons[choice], trigger_value=True)]
        )
        stats.errors += [f"{where} (answer): {e}" for e in res.errors]
        if p.thanked:
            stats.answered.append(time.perf_counter() - t)
            stats.done_at.append(time.monotonic())
        else:
            stats.errors.append(f"{where}: no thanks after pressing {choice}")
    except Exception as exc:  # noqa: BLE001 — every failure is counted
        stats.errors.append(f"{where}: {type(exc).__name__}: {str(exc)[:100]}")
    finally:
        if p is not None and p.ws is not None:
            await p.close()


async def projector(port: int, poll_id: str, a, stats: Stats, stop: asyncio.Event) -> None:
    """The teacher's live view: opened once, then its fragment rerun every two seconds (the browser's timer)."""
    p = Phone(port, a.timeout, http_cookies(port, f"/poll?poll={poll_id}"))
    await p.connect()
    p.query = f"poll={poll_id}"
    res = await p.rerun(page_name="poll", page_hash="")
    stats.errors += [f"projector: {e}" for e in res.errors]
    fragment = res.auto_reruns[0] if res.auto_reruns else ""
    if not fragment:
        stats.errors.append("projector: the live view asked for no refresh")
    try:
        while not stop.is_set():
            await asyncio.sleep(2.0)
            t = time.perf_counter()
            res = await p.rerun(page_name="poll", page_hash=res.page_hash or "", fragment_id=fragment)
            stats.refresh.append(time.perf_counter() - t)
            stats.errors += [f"projector (refresh): {e}" for e in res.errors]
            if p.count is not None:
                stats.projector.append(p.count)
        await asyncio.sleep(2.5)  # one more refresh after the last answer
        res = await p.rerun(page_name="poll", page_hash=res.page_hash or "", fragment_id=fragment)
        if p.count is not None:
            stats.projector.append(p.count)
    finally:
        await p.close()


async def warm(port: int, code: str, timeout: float) -> None:
    """Open the poll page once on a server (a deployed server is warm: its modules imported)."""
    p = Phone(port, timeout)
    await p.connect()
    p.query = f"join={code}"
    await p.rerun(page_name="poll", page_hash="")
    await p.close()


async def drive(a, port: int, warm_ports: list[int], poll_id: str, code: str) -> tuple[Stats, float]:
    for wp in warm_ports:
        await warm(wp, "QQQQQQ", a.timeout)
    stats, stop = Stats(), asyncio.Event()
    teacher = asyncio.create_task(projector(port, poll_id, a, stats, stop))
    t0 = time.monotonic()
    await asyncio.gather(*(phone(i, a, port, code, stats) for i in range(a.phones)))
    stop.set()
    await teacher
    return stats, t0


def report(
    title: str,
    a,
    stats: Stats,
    t0: float,
    stored: tuple[int, int],
    cpu: float,
    wall: float,
    per_replica: list[float] | None = None,
) -> str:
    span = (max(stats.done_at) - t0) if stats.done_at else float("nan")
    first_to_last = (max(stats.done_at) - min(stats.done_at)) if stats.done_at else float("nan")
    n_ok = len(stats.answered)
    shown = stats.projector[-1] if stats.projector else None

    def ok(cond: bool) -> str:
        return "ok" if cond else "**MISSED**"

    answers, voters = stored
    errors = list(stats.errors)
    if answers != a.phones or voters != a.phones:
        errors.append(f"the database counts {answers} answers from {voters} browsers, not {a.phones}")
    if shown != a.phones:
        errors.append(f"the projector's last count was {shown}, not {a.phones}")

    def lat(xs: list[float]) -> str:
        return f"{statistics.median(xs) * 1e3:.0f} / {pct(xs, 0.95) * 1e3:.0f} / {max(xs) * 1e3:.0f} ms" if xs else "—"

    lines = [
        f"## {title}",
        "",
        f"{a.phones} phones arriving over {a.window:g} s (each: the join link over HTTP, the page over the WebSocket, "
        f"1–4 s to read, then Yes or No) while the projector's live view refreshes every 2 s. "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, 127.0.0.1, {os.cpu_count()} cores shared with other "
        f"work (load average {os.getloadavg()[0]:.2f} at the end).",
        "",
        "| measure | value | target |",
        "|---|---|---|",
        f"| phones answered (thanks drawn) | {n_ok} of {a.phones} | all ({ok(n_ok == a.phones)}) |",
        f"| all answers in, from the first arrival / first to last answer | {span:.1f} s / {first_to_last:.1f} s | "
        f"≤ {TARGET_S:g} s ({ok(span <= TARGET_S)}) |",
        f"| opening the join link → question drawn, p50 / p95 / max | {lat(stats.opened)} | — |",
        f"| pressing Yes or No → thanks drawn, p50 / p95 / max | {lat(stats.answered)} | — |",
        f"| projector refreshes, p50 / p95 / max | {len(stats.refresh)}, {lat(stats.refresh)} | — |",
        f"| final count: database (answers / browsers) / projector | {answers} / {voters} / {shown} | {a.phones} |",
        f"| errors | {len(errors)} | 0 ({ok(not errors)}) |",
        f"| server CPU (all replicas) | {cpu:.0f} s over {wall:.0f} s"
        + (f" (by replica: {', '.join(f'{c:.0f} s' for c in per_replica)})" if per_replica else "")
        + " | — |",
    ]
    if errors:
        lines += ["", "Errors (first five):", ""] + [f"* {e[:160]}" for e in errors[:5]]
    return "\n".join(lines) + "\n"


def _start_poll(url: str, minutes: int) -> tuple[str, str, object]:
    from app import ledger_store as ls
    from app import poll_store as ps

    store = ps.PollStore(ls.LedgerStore(url))
    poll = store.create(QUESTION, 1.0, minutes)
    return poll.id, poll.code, store


def _stored(store, poll_id: str) -> tuple[int, int]:
    import sqlalchemy as sa

    from app import poll_store as ps

    with store.engine.connect() as conn:
        voters = conn.execute(
            sa.select(sa.func.count()).select_from(ps.voters).where(ps.voters.c.poll_id == poll_id)
        ).scalar()
    return store.by_id(poll_id).answers, int(voters)


def run_single(a) -> tuple[str, bool]:
    data = Path(tempfile.mkdtemp(prefix="dpx-bench-poll-"))
    os.environ["DPX_DATA_DIR"] = str(data)  # the server inherits it
    from app import ledger_store as ls

    url = ls.database_url({ls.DATA_DIR_ENV: str(data)})
    with app_server(a.port, log=ROOT / ".dpx-data" / "bench-poll-single.log") as proc:
        poll_id, code, store = _start_poll(url, 10)
        cpu0, w0 = cpu_seconds(proc.pid), time.monotonic()
        stats, t0 = asyncio.run(drive(a, a.port, [a.port], poll_id, code))
        cpu, wall = cpu_seconds(proc.pid) - cpu0, time.monotonic() - w0
        stored = _stored(store, poll_id)
        store.store.dispose()
    text = report("One server (SQLite)", a, stats, t0, stored, cpu, wall)
    return text, "**MISSED**" not in text


def run_cluster(a) -> tuple[str, bool]:
    from deploy.cluster import Cluster

    with Cluster(a.replicas, a.port + 10, run_dir=ROOT / ".dpx-data" / "bench-poll-cluster") as cluster:
        poll_id, code, store = _start_poll(cluster.database_url, 10)
        pids = cluster.pids()
        cpu0, w0 = {p: cpu_seconds(p) for p in pids}, time.monotonic()
        stats, t0 = asyncio.run(drive(a, cluster.port, cluster.ports, poll_id, code))
        each = [cpu_seconds(p) - cpu0[p] for p in pids]  # every replica served phones (nginx spread them)
        wall = time.monotonic() - w0
        stored = _stored(store, poll_id)
        store.store.dispose()
    text = report(
        f"{a.replicas} replicas behind nginx (PostgreSQL, make cluster N={a.replicas})",
        a,
        stats,
        t0,
        stored,
        sum(each),
        wall,
        per_replica=each,
    )
    return text, "**MISSED**" not in text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phones", type=int, default=200)
    ap.add_argument("--window", type=float, default=20.0, help="the phones arrive over this many seconds")
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--port", type=int, default=8700)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--only", choices=("single", "cluster"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results-poll.md"))
    a = ap.parse_args(argv)
    sections, good = [], True
    for name, run in (("single", run_single), ("cluster", run_cluster)):
        if a.only in (None, name):
            text, ok = run(a)
            print(text, flush=True)
            sections.append(text)
            good &= ok
    if a.out and not a.only:
        Path(a.out).write_text("# A class poll under load (bench/poll.py)\n\n" + "\n".join(sections))
    return 0 if good else 1


if __name__ == "__main__":
    raise SystemExit(main())
