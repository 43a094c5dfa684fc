"""The background jobs' scheduling rules (app.scheduler), driven by a fake clock: no processes, no sleeps.

A job "runs" from the moment :meth:`Scheduler.dispatch` hands it out until the test calls :meth:`Scheduler.finish`;
the clock moves only when the test moves it, so each verdict is about the rules, never about how fast the machine is.
"""

from __future__ import annotations

import pytest

from app.scheduler import Limits, Scheduler


class Clock:
    """Monotonic seconds that move only when the test says so."""

    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


class Harness:
    """A scheduler with a fake clock and a set of ended sessions; jobs are named by their key."""

    def __init__(self, **limits):
        self.clock = Clock()
        self.gone: set[str] = set()
        self.scheduler = Scheduler(self.clock, alive=lambda s: s not in self.gone, limits=Limits(**limits))
        self.started: list[str] = []  # keys in the order the scheduler started them

    def submit(self, key: str, session: str, after: float = 0.0):
        job = self.scheduler.find(key, session) or self.scheduler.enqueue(key, print, (key,), session, after)
        self.dispatch()
        return job

    def dispatch(self) -> None:
        self.started += [item.key for item in self.scheduler.dispatch()]

    def running(self) -> dict[str, object]:
        return {item.key: item for item in self.scheduler.running_jobs()}

    def finish(self, key: str, after: float = 0.0, value: object = None) -> None:
        """The job ``key`` finishes ``after`` seconds from now; the freed place goes to the next job."""
        self.clock.now += after
        self.scheduler.finish(self.running()[key], value)
        self.dispatch()

    def place(self, key: str) -> str:
        slot = self.running()[key].slot
        return "express" if slot.express else "regular"


def test_a_session_with_many_jobs_does_not_starve_another():
    """A session with many queued jobs does not starve another's single job: the next free worker takes the job of
    the session that has used the workers least."""
    h = Harness(workers=2, express_workers=0)
    hog = [h.submit(f"hog{i}", "hog") for i in range(5)]
    assert h.started == ["hog0", "hog1"] and h.scheduler.queued() == {"hog": 3}
    small = h.submit("small", "small")
    assert not small.running(), "both workers are busy"
    h.finish("hog0", after=1.0)
    assert h.started[2] == "small", "the small session's job goes before the hog's third job"
    assert small.running() and not hog[2].running()
    h.finish("small", after=0.1)
    h.finish("hog1", after=1.0)
    assert h.started == ["hog0", "hog1", "small", "hog2", "hog3"]


def test_a_newcomer_goes_before_neighbours_that_have_used_the_workers():
    """Both jobs of a newcomer's page start before the next jobs of two neighbours who have been computing, although
    a plain round-robin would serve a neighbour between the newcomer's two jobs."""
    h = Harness(workers=2, express_workers=0)
    for s in ("n1", "n2"):
        h.submit(f"{s}-before", s)
    h.finish("n1-before", after=0.8)
    h.finish("n2-before")
    for s in ("n1", "n2"):
        h.submit(f"{s}-busy", s)
    h.clock.now += 0.3
    for s in ("n1", "n2"):
        h.submit(f"{s}-next", s)
    for i in range(2):
        h.submit(f"me{i}", "me")
    h.finish("n1-busy", after=0.7)
    h.finish("n2-busy")
    assert h.started[-2:] == ["me0", "me1"]
    h.finish("me0", after=0.2)
    h.finish("me1")
    assert sorted(h.started[-2:]) == ["n1-next", "n2-next"]


def test_ties_go_round_robin():
    """Sessions that have used the workers equally take turns: the one served longest ago goes first."""
    h = Harness(workers=1, express_workers=0, max_queued_per_session=10)
    for s in ("a", "b", "c"):
        for i in range(2):
            h.submit(f"{s}{i}", s)
    for _ in range(5):
        h.finish(h.started[-1])  # no time passes: every session's use stays zero
    assert h.started == ["a0", "b0", "c0", "a1", "b1", "c1"]


def test_a_newcomer_starts_at_once_on_an_express_worker():
    """Neighbours with long jobs hold both regular workers; a light session's jobs start on the express workers
    right away, while the neighbours' next jobs wait for a regular one."""
    h = Harness(workers=2, express_workers=2, light_usage=0.5)
    for s in ("n1", "n2"):
        h.submit(f"{s}-before", s)
        h.finish(f"{s}-before", after=0.8)
    assert h.scheduler.usage("n1", h.clock.now) >= 0.5, "the neighbours are no longer light"
    for s in ("n1", "n2"):
        h.submit(f"{s}-busy", s)
    assert {h.place(f"{s}-busy") for s in ("n1", "n2")} == {"regular"}
    later = [h.submit(f"{s}-next", s) for s in ("n1", "n2")]
    mine = [h.submit(f"me{i}", "newcomer") for i in range(2)]
    assert all(job.running() for job in mine), "the newcomer waited for a regular worker"
    assert {h.place(f"me{i}") for i in range(2)} == {"express"}
    assert not any(job.running() for job in later), "heavy sessions do not take the express workers"
    h.finish("n1-busy", after=6.0)
    assert h.started[-1] in {"n1-next", "n2-next"} and h.place(h.started[-1]) == "regular"


def test_past_use_counts_half_after_the_half_life():
    h = Harness(usage_half_life=60.0)
    h.submit("a", "s")
    h.finish("a", after=8.0)
    assert h.scheduler.usage("s", h.clock.now) == pytest.approx(8.0, rel=1e-12)
    assert h.scheduler.usage("s", h.clock.now + 60.0) == pytest.approx(4.0, rel=1e-12)
    assert h.scheduler.usage("s", h.clock.now + 120.0) == pytest.approx(2.0, rel=1e-12)
    h.submit("b", "s")
    h.clock.now += 3.0
    assert h.scheduler.usage("s", h.clock.now) == pytest.approx(8.0 * 0.5 ** (3 / 60) + 3.0, rel=1e-12), (
        "a running job counts for the time it has run so far"
    )


def test_a_session_keeps_a_bounded_queue():
    h = Harness(workers=2, express_workers=0, max_queued_per_session=2)
    busy = [h.submit(f"busy{i}", "other") for i in range(2)]
    mine = [h.submit(f"mine{i}", "s") for i in range(5)]
    assert [j.cancelled() for j in mine] == [True, True, True, False, False], "oldest queued jobs are dropped"
    assert h.scheduler.queued() == {"s": 2}
    h.finish("busy0")
    h.finish("busy1")
    assert h.started[-2:] == ["mine3", "mine4"] and all(b.done() for b in busy)


def test_jobs_outside_a_session_are_not_capped():
    h = Harness(workers=1, express_workers=0, max_queued_per_session=2, max_running_per_session=1)
    jobs = [h.submit(f"j{i}", "") for i in range(5)]
    assert not any(j.cancelled() for j in jobs) and h.scheduler.queued() == {"": 4}


def test_queued_jobs_of_ended_sessions_are_cancelled():
    h = Harness(workers=2, express_workers=0)
    for i in range(2):
        h.submit(f"busy{i}", "busy")
    left = h.submit("left", "left")
    shared = h.submit("shared", "left")
    assert h.submit("shared", "stays") is shared, "the same job is shared, not queued twice"
    h.gone.add("left")  # the reader closed the tab
    h.finish("busy0")
    h.finish("busy1")
    assert left.cancelled(), "a job nobody waits for any more never runs"
    assert shared.running(), "a job another live session waits for still runs"
    assert h.started[2:] == ["shared"]


def test_a_dropped_job_another_session_waits_for_moves_to_that_session():
    h = Harness(workers=1, express_workers=0, max_queued_per_session=1)
    h.submit("busy", "busy")
    first = h.submit("first", "s")
    assert h.submit("first", "t") is first
    h.submit("second", "s")  # s's queue is full: its oldest job leaves it, but t still waits for it
    assert not first.cancelled() and h.scheduler.queued() == {"s": 1, "t": 1}


def test_one_session_runs_at_most_its_cap_at_once():
    """A visitor with four heavy panels holds two workers; another visitor's job starts at once on a free one; the
    visitor's other jobs start as its first ones finish."""
    h = Harness(workers=2, express_workers=2, max_running_per_session=2)
    mine = [h.submit(f"g{i}", "greedy") for i in range(4)]
    assert h.scheduler.running() == {"greedy": 2} and h.scheduler.queued() == {"greedy": 2}
    assert [j.running() for j in mine] == [True, True, False, False]
    theirs = h.submit("n", "neighbour")
    assert theirs.running(), "a neighbour's job is not kept waiting by the greedy session"
    h.finish("g0", after=1.0)
    assert mine[2].running() and not mine[3].running(), "one finished, one more started"
    assert h.scheduler.running() == {"greedy": 2, "neighbour": 1}


def test_a_cancelled_queued_job_frees_its_place_and_never_runs():
    h = Harness(workers=1, express_workers=0, max_queued_per_session=2)
    h.submit("busy", "other")
    moved = h.submit("old", "s")
    h.scheduler.release(moved, "s")  # the reader moved on before it started
    assert moved.cancelled()
    kept = [h.submit(f"new{i}", "s") for i in range(2)]
    assert not any(j.cancelled() for j in kept), "the cancelled job no longer counts against the queue"
    h.finish("busy")
    assert h.started == ["busy", "new0"]


def test_a_deferred_job_starts_at_its_time_and_not_before():
    """A picture's slider is prepared once the page has rested: its job waits its ``after`` seconds although a worker
    is free, the scheduler says when to look again, and the job starts then."""
    h = Harness(workers=1, express_workers=1)
    deck = h.submit("deck", "reader", after=0.3)
    assert h.started == [] and not deck.running()
    assert h.scheduler.next_due() == pytest.approx(1000.3, abs=1e-9)
    h.clock.now += 0.2999
    h.dispatch()
    assert h.started == [], "not before its time"
    h.clock.now += 0.0001
    h.dispatch()
    assert h.started == ["deck"] and deck.running()
    assert h.scheduler.next_due() is None


def test_a_deferred_job_released_before_its_time_never_runs_and_holds_up_nothing():
    """A reader who moves on before the slider's job started has it cancelled unstarted; their page's other jobs,
    queued after it but due at once, are not held up by it."""
    h = Harness(workers=1, express_workers=0)
    deck = h.submit("deck-eps1", "reader", after=0.3)
    panel = h.submit("panel", "reader")
    assert panel.running()
    assert h.started == ["panel"], "the job due at once goes first"
    h.scheduler.release(deck, "reader")
    assert deck.cancelled()
    h.submit("deck-eps2", "reader", after=0.3)
    h.finish("panel", after=0.3)
    assert h.started == ["panel", "deck-eps2"], "the cancelled deck never ran"


def test_finishing_a_job_completes_its_future_and_a_finished_job_is_shared():
    h = Harness()
    job = h.submit("sq", "a")
    h.finish("sq", value=9.0)
    assert job.result(timeout=0) == 9.0
    assert h.submit("sq", "b") is job, "a finished job is re-used, not recomputed"
    failed = h.submit("bad", "a")
    h.scheduler.finish(h.running()["bad"], error=ValueError("x must be < 0"))
    with pytest.raises(ValueError, match="x must be < 0"):
        failed.result(timeout=0)


def test_finished_jobs_kept_are_bounded():
    h = Harness(max_jobs=5)
    for i in range(20):
        h.submit(f"j{i}", "")
        h.finish(f"j{i}")
    assert len(h.scheduler.held()) == 5
    h.submit("j19", "")
    assert h.started[-1] == "j19", "the latest jobs are the ones kept"
    h.submit("j0", "")
    assert h.started[-1] == "j0", "the oldest was dropped and is computed afresh"


# --------------------------------------------------------------------------------------------- ended, limited


def test_a_closed_tabs_running_job_is_ended_after_the_grace_period():
    h = Harness(grace_seconds=2.0)
    h.submit("job", "tab")
    assert h.scheduler.overdue(time_limit=120.0) == [], "an open tab's job runs on"
    h.gone.add("tab")  # the reader closed the tab
    assert h.scheduler.overdue(120.0) == [], "a tab reconnecting within the grace period would find it"
    h.clock.now += 1.9
    assert h.scheduler.overdue(120.0) == []
    h.clock.now += 0.1
    assert [(item.key, why) for item, why in h.scheduler.overdue(120.0)] == [("job", "abandoned")]
    assert h.scheduler.held() == [], "asked again later, it starts afresh"


def test_a_tab_that_reconnects_within_the_grace_period_keeps_its_job():
    h = Harness(grace_seconds=2.0)
    job = h.submit("job", "tab")
    h.gone.add("tab")
    h.scheduler.overdue(120.0)
    h.clock.now += 1.0
    assert h.submit("job", "tab-again") is job
    h.clock.now += 10.0
    assert h.scheduler.overdue(120.0) == []


def test_a_job_another_live_session_waits_for_is_not_ended():
    h = Harness()
    job = h.submit("job", "leaves")
    assert h.submit("job", "stays") is job
    h.gone.add("leaves")
    h.scheduler.overdue(120.0)
    h.clock.now += 10 * h.scheduler.limits.grace_seconds
    assert h.scheduler.overdue(120.0) == []


def test_moving_on_lets_a_running_job_go():
    """A reader who moves a slider while a long job runs for the old value: that job ends after the grace period
    unless another session waits for it."""
    h = Harness(grace_seconds=2.0)
    old = h.submit("old", "reader")
    h.scheduler.release(old, "reader")
    assert old.running(), "a running job is not cancelled on the spot"
    h.scheduler.overdue(120.0)
    h.clock.now += 2.0
    assert [item.key for item, _ in h.scheduler.overdue(120.0)] == ["old"]


def test_a_job_past_its_time_limit_is_reported():
    h = Harness()
    h.submit("long", "s")
    h.clock.now += 119.9
    assert h.scheduler.overdue(time_limit=120.0) == []
    h.clock.now += 0.1
    [(item, why)] = h.scheduler.overdue(time_limit=120.0)
    assert (item.key, why) == ("long", "time limit")
    h.scheduler.finish(item, error=TimeoutError("stopped"))
    assert h.scheduler.usage("s", h.clock.now) == pytest.approx(120.0, rel=1e-12), "its session is charged its run"
