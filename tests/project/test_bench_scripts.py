"""The benchmark scripts still run against the app as it is (they import helpers from one another)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_load_test_finds_every_view_of_a_page():
    """`make bench-load` visits each page's parts and views: for BR-DP, its three other parts and the paper view."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import load
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert load.other_views("brdp.py") == ["part=Budget", "part=Privacy", "part=Subsampling", "view=reproduce"]
    assert load.other_views("home.py") == []


def test_the_load_report_judges_reading_pace_by_the_architecture_budgets():
    """40 sessions at reading pace are judged by docs/architecture.md (slider p95 ≤ 200 ms, page open p95 ≤ 1 s); a
    faster pace is a stress test judged only by slider p95 ≤ 1 s."""
    import argparse

    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import load
    finally:
        sys.path.remove(str(ROOT / "bench"))
    budgets = (ROOT / "docs" / "architecture.md").read_text()
    assert (
        "| 40 classroom sessions on one server (reading pace): slider rerun p95 / page open p95 | ≤ 200 ms / ≤ 1 s |"
    ) in budgets
    stats = load.Stats(latencies=[0.1] * 90 + [0.3] * 10, page_loads=[0.5] * 100, rss=[(0.0, 100.0)])

    def rows(think: tuple[float, float]) -> list[str]:
        a = argparse.Namespace(
            sessions=40, replicas=1, server_opt=[], duration=120.0, no_parts=False, moves=4, think=think, spread=0
        )
        text = load.report(a, stats, cpu=10.0, wall=120.0, rss_idle=50.0, rss_after=60.0)
        return [line for line in text.splitlines() if line.startswith(("| slider-move rerun latency", "| page-open"))]

    slider, page_open = rows((4.0, 12.0))
    assert slider.endswith("| p95 ≤ 200 ms (**OVER**) |") and page_open.endswith("| p95 ≤ 1000 ms (ok) |")
    slider, page_open = rows((1.0, 3.0))
    assert slider.endswith("| p95 ≤ 1000 ms (ok) |") and page_open.endswith("| — |")


def test_the_cluster_bench_refuses_a_run_that_served_nothing():
    """A run whose replicas served nothing (e.g. they could not bind their ports, held by an earlier run's) is not a
    measurement: the figures of the 2026-11-27 failed start (0 ledgers, no CPU) are refused, a real run's are not."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import cluster
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert cluster.not_a_real_run(40, moves=488, ledgers=40, cpu=41.0) == ""
    why = cluster.not_a_real_run(40, moves=0, ledgers=0, cpu=0.3)
    assert "0 slider moves" in why and "no session kept a ledger" in why and "0.3 s of CPU" in why


def test_the_cluster_report_splits_the_slider_times_at_the_kill():
    """The cluster report gives the slider's times while every replica served and after one was killed: the two
    halves of a run load the survivors differently (a third more sessions each)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import cluster
    finally:
        sys.path.remove(str(ROOT / "bench"))
    stats = cluster.Stats(latencies=[0.1, 0.3, 0.2, 2.0, 1.0], ended=[1.0, 2.0, 3.0, 11.0, 12.0], killed_at=10.0)
    before, after = cluster.split_at_kill(stats)
    assert before == "| … before the kill: n, p50 / p95 | 3, 200 / 300 ms | — |"
    assert after.startswith("| … after the kill: n, p50 / p95 | 2, 1500 / ")
    assert cluster.split_at_kill(cluster.Stats(latencies=[0.1], ended=[1.0])) == []


def test_a_load_run_rewrites_only_its_own_section_of_the_results(tmp_path):
    """`make bench-load` runs the classroom test and then the noisy-neighbour scenario: each writes its own section,
    and the file's preface and the other runs' sections stay as they were."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import load
    finally:
        sys.path.remove(str(ROOT / "bench"))
    out = tmp_path / "results.md"
    out.write_text(
        "# Load\n\nPreface.\n\n## (a) realistic: old\nold a\n\n## (b) aggressive: kept\nb\n\n"
        "## Noisy neighbours: old\nold noisy\n"
    )
    load.replace_section(out, "## (a) ", "## (a) realistic: new\nnew a")
    load.replace_section(out, "## Noisy neighbours", "## Noisy neighbours: new\nnew noisy")
    load.replace_section(out, "## (c) ", "## (c) two replicas\nc")
    assert out.read_text() == (
        "# Load\n\nPreface.\n\n## (a) realistic: new\nnew a\n\n## (b) aggressive: kept\nb\n\n"
        "## Noisy neighbours: new\nnew noisy\n\n## (c) two replicas\nc\n"
    )


def test_the_poll_bench_counts_a_lost_answer_as_an_error():
    """bench/poll.py judges a run by the phones thanked, the time to the last answer and the final count in the
    database and on the projector: one answer missing anywhere is an error and misses the target."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import poll
    finally:
        sys.path.remove(str(ROOT / "bench"))
    a = argparse.Namespace(phones=3, window=5.0)
    good = poll.Stats(opened=[0.1] * 3, answered=[0.05] * 3, done_at=[101.0, 102.0, 104.0], projector=[1, 3])
    text = poll.report("t", a, good, 100.0, (3, 3), cpu=1.0, wall=10.0)
    assert "**MISSED**" not in text and "| errors | 0 | 0 (ok) |" in text and "4.0 s / 3.0 s" in text
    for stored, shown in (((2, 2), [3]), ((3, 3), [2])):
        text = poll.report(
            "t",
            a,
            poll.Stats(answered=[0.05] * 3, done_at=[101.0] * 3, projector=shown),
            100.0,
            stored,
            cpu=1.0,
            wall=10.0,
        )
        assert "| errors | 1 | 0 (**MISSED**) |" in text
    late = poll.Stats(answered=[0.05] * 3, done_at=[101.0, 102.0, 131.0], projector=[3])
    assert "≤ 30 s (**MISSED**)" in poll.report("t", a, late, 100.0, (3, 3), cpu=1.0, wall=40.0)


def test_the_ab_comparison_takes_the_median_of_each_sides_runs(tmp_path):
    """`bench/compare.py` pairs the rows of several runs at two commits by page view and measurement (whatever the
    slider's key and run count) and compares the medians: 30, 40, 90 ms against 33, 50, 48 ms is 40 → 48, a ratio of
    1.20, flagged at 1.10; a row missing from one run is left out."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import compare
    finally:
        sys.path.remove(str(ROOT / "bench"))
    head = "| name | p50 | p95 | budget | ok? |\n|---|---|---|---|---|\n"

    def table(name: str, p95: str, extra: bool = False) -> str:
        path = tmp_path / name
        row = f"| page Home [default view] (eps: new value, cold cache, n = 21) | 20.0 ms | {p95} | — | ok |\n"
        more = "| page Home [default view] (eps: revisited value, warm cache, n = 21) | 1 ms | 2 ms | — | ok |\n"
        path.write_text(head + row + (more if extra else ""))
        return str(path)

    a = [table("a1.md", "30.0 ms"), table("a2.md", "40.0 ms"), table("a3.md", "90.0 ms", extra=True)]
    b = [table("b1.md", "33.0 ms", extra=True), table("b2.md", "50.0 ms"), table("b3.md", "0.048 s")]
    out = compare.compare(a, b, over=1.10)
    lines = [line for line in out.splitlines() if line.startswith("| page Home")]
    assert lines == [
        "| page Home [default view] (new value, cold cache) | 20.0 ms | 20.0 ms | 40.0 ms | 48.0 ms | **1.20** "
        "| 30, 40, 90; 33, 50, 48 |"
    ]
    assert out.splitlines()[-1].startswith("1 of 1 rows") and out.endswith("median ratio over the rows 1.20.")
