"""In the browser, heavy panels arrive after the rest of the page, without a click (app.background); a worker killed
mid-job is explained in its panel, which can be retried.

This server runs as users get it: jobs in worker processes, the rerun does not wait for a new job (the default).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS, serve

PLACEHOLDER = "computing in the background"


@pytest.fixture(scope="module")
def live_url() -> Iterator[str]:
    yield from serve({"DPX_BACKGROUND": "process", "DPX_HEAVY_WAIT": "0"})


def test_brdp_subsampling_panels_arrive_by_themselves(live_url: str, page: Page) -> None:
    page.goto(f"{live_url}/brdp?part=Subsampling&eps=3.3&n=10000")
    # the cheap part of the tab is there while Alg. 4 still runs in a worker
    expect(page.get_by_text(re.compile(PLACEHOLDER)).first).to_be_visible(timeout=60_000)
    expect(page.get_by_text("BR-DP: chance within ±θ").first).to_be_visible(timeout=60_000)
    t0 = time.monotonic()
    # ... and the panels replace their placeholders with no interaction (the page polls its jobs)
    expect(page.get_by_text("Alg. 4 p*, paper mode")).to_be_visible(timeout=120_000)
    expect(page.get_by_text(re.compile(PLACEHOLDER))).to_have_count(0, timeout=120_000)
    expect(page.get_by_text(re.compile("1 000 releases of the count"))).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "background-brdp-subsampling.png"), full_page=True)
    assert time.monotonic() - t0 < 120


def test_the_page_stays_live_while_a_panel_computes(live_url: str, page: Page) -> None:
    page.goto(f"{live_url}/brdp?part=Privacy&eps=0.7&T=300")
    expect(page.get_by_text(re.compile(PLACEHOLDER)).first).to_be_visible(timeout=60_000)
    # a control moved meanwhile updates the cheap metrics at once
    before = page.get_by_test_id("stMetricValue").first.inner_text()
    slider = page.get_by_role("slider", name=re.compile("ε — privacy-loss budget"))
    slider.focus()
    slider.press("ArrowRight")
    expect(page.get_by_test_id("stMetricValue").first).not_to_have_text(before, timeout=30_000)
    # and the composition panel for the new ε still arrives on its own
    expect(page.get_by_text(re.compile(r"ε after T = 300, exact"))).to_be_visible(timeout=120_000)
    expect(page.get_by_text(re.compile(PLACEHOLDER))).to_have_count(0, timeout=120_000)


def _descendants(pid: int) -> dict[int, int]:
    """Every live descendant of ``pid`` with its depth (1 = child) from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(stat.parent.name))
    out, todo = {}, [(pid, 0)]
    while todo:
        p, depth = todo.pop()
        for c in children.get(p, []):
            out[c] = depth + 1
            todo.append((c, depth + 1))
    return out


def _server_pid(url: str) -> int:
    port = url.rsplit(":", 1)[1]
    for cmd in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmd.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"streamlit" in b" ".join(args) and port.encode() in args and b"--server.port" in args:
            return int(cmd.parent.name)
    raise AssertionError(f"no server process for {url}")


def test_a_killed_worker_is_explained_and_the_panel_can_be_retried(live_url: str, page: Page) -> None:
    lost = page.get_by_text(re.compile("stopped before finishing"))
    done = page.get_by_text(re.compile(r"ε after T = 1000, exact"))
    # a composition job takes about a second on an idle machine: kill the workers the moment its placeholder shows,
    # and try other settings (new jobs) if one finished first
    for eps in (2.9, 4.1, 6.3, 8.7, 11.0):
        page.goto(f"{live_url}/brdp?part=Privacy&eps={eps}&T=1000")
        expect(page.get_by_text(re.compile(PLACEHOLDER)).first).to_be_visible(timeout=60_000)
        # the workers are the forkserver's children (depth 2 under this test's own server)
        workers: list[int] = []
        for _ in range(100):
            workers = [p for p, depth in _descendants(_server_pid(live_url)).items() if depth == 2]
            if workers:
                break
            time.sleep(0.1)
        assert workers, "no worker processes found"
        for p in workers:
            os.kill(p, signal.SIGKILL)
        expect(lost.or_(done).first).to_be_visible(timeout=120_000)
        if lost.count():
            break
    expect(lost.first).to_be_visible()
    expect(page.get_by_text(re.compile("BR-DP: chance within ±θ|privacy-loss budget")).first).to_be_visible()
    # every panel whose worker died (one or several) offers Retry; each retry computes its panel again
    # (as a reader would: press Retry on each panel that still offers it until every panel is drawn; a click that
    # lands while the page is rerunning can be lost, so the loop looks again instead of counting clicks)
    retry = page.get_by_role("button", name=re.compile("Retry"))
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and (lost.count() or not done.count()):
        if retry.count():
            with contextlib.suppress(PlaywrightError):
                retry.first.click(timeout=5_000)
        page.wait_for_timeout(2000)
    expect(done).to_be_visible(timeout=10_000)
    expect(lost).to_have_count(0, timeout=10_000)
