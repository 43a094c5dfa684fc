"""Heavy panels in background jobs (app.background): the page finishes without them, then draws them when ready.

The rest of the suite runs with ``DPX_HEAVY_WAIT`` high (tests/conftest.py), i.e. every job waited for inline; here
the wait is 0, as in the served app where a rerun waits only a few tens of ms.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from app import background, jobs
from app.compute import brdp as bc
from app.compute import ldp as lc
from app.compute import negotiate as nc
from app.compute import r2dp as rc
from app.notation import number
from dpcore import brdp
from tests.app.conftest import open_page

PLACEHOLDER = "computing in the background"


def _wait_for_jobs(timeout: float = 120.0) -> None:
    """Block until every job held by app.background is finished."""
    assert jobs.wait_all(timeout), "background jobs did not finish"


def _placeholders(at: AppTest) -> list[str]:
    return [i.value for i in at.info if PLACEHOLDER in i.value]


@pytest.fixture
def no_wait(monkeypatch):
    """The served app's path: jobs in worker processes, no inline wait."""
    monkeypatch.setenv("DPX_BACKGROUND", "process")
    monkeypatch.setenv("DPX_HEAVY_WAIT", "0")
    jobs.clear()
    yield
    _wait_for_jobs()
    jobs.clear()
    # workers started while a test had patched the settings (niceness, recycling) must not serve the next test
    jobs.shutdown()


# --------------------------------------------------------------------------------------------- the mechanism
# Job functions run in worker processes: module-level and importable, slow by sleeping.


def _slow_square(x: float, seconds: float = 1.0) -> float:
    time.sleep(seconds)
    return x * x


def _fails(x: float) -> float:
    raise ValueError(f"x must be < 0, got {x}")


def _pid() -> int:
    return os.getpid()


def _pid_of(i: int) -> tuple[int, int]:
    return i, os.getpid()


def _stamped(tag: str, seconds: float) -> tuple[str, float]:
    """Sleep, then return the tag and when the job started (wall clock, comparable across processes)."""
    start = time.time()
    time.sleep(seconds)
    return tag, start


def _killed_once(flag: str) -> str:
    """Dies like a worker the system kills, unless ``flag`` exists (then the retry succeeds)."""
    import signal

    if not os.path.exists(flag):
        open(flag, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return "recovered"


def _sleep_then_pid(path: str, seconds: float) -> int:
    with open(path, "w") as f:
        f.write(str(os.getpid()))
    time.sleep(seconds)
    return os.getpid()


def _allocate(gib: float) -> int:
    import numpy as np

    return int(np.ones(int(gib * 2**30 / 8)).size)


def _kill_script() -> None:
    import streamlit as st

    from app import background
    from tests.app.test_background import _killed_once

    value = background.result(_killed_once, st.session_state.setdefault("flag", ""), slot="kill", label="Composing")
    if value is not None:
        st.metric("value", value)


def _memory_script() -> None:
    import streamlit as st

    from app import background
    from tests.app.test_background import _allocate

    value = background.result(_allocate, 2.0, slot="big", label="Composing")
    if value is not None:
        st.metric("value", value)


def _script() -> None:
    import streamlit as st

    from app import background
    from tests.app.test_background import _fails, _slow_square

    x = st.number_input("x", value=3.0)
    value = background.result(_slow_square, x, slot="square", label="Squaring")
    if value is not None:
        st.metric("square", value)
    st.metric("always", x + 1)  # the rest of the page does not wait
    if st.checkbox("fail"):
        try:
            background.result(_fails, x, slot="fail", label="Failing")
        except ValueError as exc:
            st.error(str(exc))


def test_a_slow_job_shows_a_placeholder_then_its_value_on_the_next_run(no_wait):
    at = AppTest.from_function(_script, default_timeout=60).run()
    assert not at.exception
    assert [m.label for m in at.metric] == ["always"], "the page must finish without the slow panel"
    assert _placeholders(at) and "Squaring" in _placeholders(at)[0]
    _wait_for_jobs()
    at.run()
    assert not _placeholders(at)
    assert {m.label: m.value for m in at.metric} == {"square": "9.0", "always": "4.0"}


def test_jobs_run_in_other_processes_and_are_shared(no_wait):
    assert jobs.submit(_pid).result(timeout=60) != os.getpid()
    first = jobs.submit(_slow_square, 5.0, 0.0)
    assert first.result(timeout=60) == 25.0
    assert jobs.submit(_slow_square, 5.0, 0.0) is first, "a finished job is re-used, not recomputed"
    assert jobs.submit(_slow_square, 6.0, 0.0) is not first


def test_workers_yield_the_cpu_to_the_page(no_wait):
    """Workers run at a lower CPU priority than the server, so a job started by a move does not slow its rerun."""
    from app import _worker

    assert jobs.submit(os.nice, 0).result(timeout=60) >= os.nice(0) + _worker.NICENESS


def test_a_failing_job_raises_in_the_panel_and_is_not_kept(no_wait, monkeypatch):
    monkeypatch.setenv("DPX_HEAVY_WAIT", "60")  # wait inline: the error must surface in this run
    at = AppTest.from_function(_script, default_timeout=60).run()
    at.checkbox[0].check().run()
    assert [e.value for e in at.error] == ["x must be < 0, got 3.0"]
    assert jobs.jobs() == 1, "only the successful job is kept; the failed one is retried next time"


@pytest.mark.slow
def test_moving_on_cancels_this_sessions_queued_job(no_wait, monkeypatch):
    monkeypatch.setattr(jobs, "RECYCLE_AFTER", 10**6)  # one pool throughout: its queue is what is tested
    # occupy both workers and the executor's call queue (workers + 1 calls handed over early, no longer cancellable),
    # so the session's job stays in the executor's own queue, where it can be cancelled
    n = 2 * jobs.WORKERS + 1
    blockers = [jobs.submit(_slow_square, float(100 + i), 1.5) for i in range(n)]
    time.sleep(0.5)
    at = AppTest.from_function(_script, default_timeout=60).run()
    queued = jobs.submit(_slow_square, 3.0)
    assert not queued.running() and not queued.done()
    at.number_input[0].set_value(4.0).run()  # the session moves on before its job started
    assert queued.cancelled()
    _wait_for_jobs()
    assert [b.result() for b in blockers] == [float(100 + i) ** 2 for i in range(n)]
    at.run()
    assert {m.label: m.value for m in at.metric} == {"square": "16.0", "always": "5.0"}


def test_waiting_for_every_job_skips_cancelled_ones(no_wait, monkeypatch):
    """A queued job cancelled before it ran never finishes; waiting for all jobs (the bench, the tests) must not
    wait for it until the timeout."""
    monkeypatch.setattr(jobs, "RECYCLE_AFTER", 10**6)
    n = jobs.WORKERS + jobs.EXPRESS_WORKERS
    blockers = [jobs.submit(_slow_square, float(200 + i), 1.0, session="a") for i in range(n)]
    queued = jobs.submit(_slow_square, 7.0, session="a")
    assert queued.cancel()  # the reader moved on; their next job frees its place in the queue (never run)
    later = jobs.submit(_slow_square, 8.0, 0.1, session="a")
    assert jobs.wait_all(60.0), "waited for a job that will never run"
    assert [b.result() for b in blockers] == [float(200 + i) ** 2 for i in range(n)] and later.result() == 64.0


@pytest.mark.parametrize("express", [True, False], ids=["express", "regular"])
def test_a_dead_idle_worker_is_replaced(no_wait, monkeypatch, express):
    if not express:  # no express workers: every job goes to a regular one
        monkeypatch.setattr(jobs, "EXPRESS_WORKERS", 0)
    session = f"dead-worker-{express}"  # a light session (no earlier test used it): its jobs go to an express worker
    assert jobs.submit(_slow_square, 7.0, 0.0, session=session).result(timeout=60) == 49.0
    slot = next(s for s in jobs._SLOTS[express] if s.worker is not None)
    dead = slot.worker
    dead.process.kill()  # as if the system had killed it while it waited for a job
    dead.process.join(30)
    assert jobs.submit(_slow_square, 8.0, 0.0, session=session).result(timeout=60) == 64.0
    assert slot.worker is not dead


def test_warm_starts_the_workers_off_the_calling_thread(no_wait, monkeypatch):
    jobs.shutdown()
    monkeypatch.setitem(jobs._STATE, "warming", False)
    t = time.perf_counter()
    background.warm()
    assert time.perf_counter() - t < 0.5, "warm() must not wait for the forkserver"
    slots = [*jobs._slots(False), *jobs._slots(True)]
    deadline = time.monotonic() + 60
    while not all(s.worker is not None for s in slots) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(s.worker is not None and s.worker.alive() for s in slots)
    assert jobs.submit(_pid).result(timeout=60) in {s.worker.pid for s in slots}
    background.warm()  # once per process: a second call does nothing
    monkeypatch.setenv("DPX_BACKGROUND", "inline")
    monkeypatch.setitem(jobs._STATE, "warming", False)
    background.warm()
    assert jobs._STATE["warming"] is False, "inline mode starts no workers"


def test_workers_are_replaced_after_a_number_of_jobs(no_wait, monkeypatch):
    """Fresh workers every RECYCLE_AFTER jobs: a worker's memory (FFT plans) goes back to the system."""
    monkeypatch.setattr(jobs, "RECYCLE_AFTER", 3)
    pids = [jobs.submit(_pid_of, i).result(timeout=60)[1] for i in range(9)]
    assert len(set(pids)) >= 3, pids  # at least one new worker per pool of 3 jobs
    assert [jobs.submit(_pid_of, i).result(timeout=60)[0] for i in range(9)] == list(range(9))


def test_memory_is_bounded(no_wait, monkeypatch):
    monkeypatch.setattr(jobs, "MAX_JOBS", 5)
    for i in range(20):
        jobs.submit(_slow_square, float(i), 0.0).result(timeout=60)
    assert jobs.jobs() <= 6  # MAX_JOBS finished jobs plus the one just submitted


def test_wait_seconds_reads_the_environment(monkeypatch):
    for raw, expected in (("0.5", 0.5), ("0", 0.0), ("nan", jobs.DEFAULT_WAIT),
                          ("-1", jobs.DEFAULT_WAIT), ("inf", jobs.DEFAULT_WAIT),
                          ("soon", jobs.DEFAULT_WAIT)):
        monkeypatch.setenv("DPX_HEAVY_WAIT", raw)
        assert jobs.wait_seconds() == expected


# --------------------------------------------------------------------------------------------- the BR-DP page

@pytest.mark.slow
def test_brdp_privacy_tab_finishes_first_then_draws_the_composition(no_wait):
    eps = "1.37"  # a value no other test uses, so the job is new
    at = open_page("brdp.py", {"part": "Privacy", "eps": eps})
    assert not at.exception and not at.error
    assert any("Composing" in p for p in _placeholders(at))
    assert not [m for m in at.metric if m.label.startswith("ε after T")]
    _wait_for_jobs()
    at.run()
    assert not _placeholders(at)
    shown = {m.label: m.value for m in at.metric if m.label.startswith("ε after T")}
    eps_shown = next(w.value for w in (*at.slider, *at.select_slider) if w.key == "eps")
    t = int(at.select_slider(key="T").value)
    plan = brdp.optimize(epsilon=float(eps_shown), delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian",
                         accountant="exact")
    exact = brdp.composed_epsilon(plan.delta, compositions=t, plan=plan, accountant="exact")
    paper = brdp.composed_epsilon(plan.delta, compositions=t, plan=plan, accountant="paper")
    assert shown[f"ε after T = {t}, exact"] == number(exact, 4)
    assert shown[f"ε after T = {t}, paper (Thm. 3)"] == number(paper, 4)
    assert len(at.dataframe) == 1 and "exact optimum" in at.dataframe[0].value["plan"].tolist(), "panel 11's audit"


def test_negotiate_page_is_live_while_the_answer_is_found_in_a_worker(no_wait):
    """A new requirement's answer (about twenty BR-DP plan optimisations) is a background job: the page finishes
    at once with a placeholder, then states the answer, which for Laplace noise is the closed form
    ε = Δ·ln(1/(1 − conf))/θ, stated rounded up to two significant digits."""
    at = open_page("negotiate.py", {"theta": "40", "conf": "0.95"})
    assert not at.exception and not at.error
    assert any("Finding the smallest ε" in p for p in _placeholders(at))
    assert not at.metric, "no answer drawn before it is known"
    _wait_for_jobs()
    at.run()
    # the chart's own job, and the split of several statistics
    assert [p for p in _placeholders(at) if "Accuracy against ε" in p or "Splitting the budget" in p] == \
        _placeholders(at)
    _wait_for_jobs()
    at.run()
    assert not _placeholders(at)
    sentence = next(h.value for h in at.get("html") if "dpx-answer" in h.value)
    smallest = np.log(1 / 0.05) / 40  # P(|Lap(1/ε)| ≤ 40) = 1 − e^(−40ε) = 0.95
    assert "Use Laplace noise with ε = 0.075, δ = 0" in sentence and 0.074 < smallest <= 0.075
    assert {m.label: m.value for m in at.metric}["ε per release"] == "0.075"


@pytest.mark.slow
def test_brdp_subsampling_tab_finishes_first_then_draws_alg4(no_wait):
    at = open_page("brdp.py", {"part": "Subsampling", "eps": "1.37"})
    assert not at.exception and not at.error
    assert len(_placeholders(at)) == 3  # panel 9 and both experiment charts
    assert at.dataframe, "the table at the sidebar's rate is cheap and shown at once"
    _wait_for_jobs()
    at.run()
    assert not _placeholders(at) and not at.error
    labels = [m.label for m in at.metric]
    assert "Alg. 4 p*, paper mode" in labels


@pytest.mark.slow
def test_every_page_job_runs_in_a_worker(no_wait):
    """Each job the pages submit pickles, runs in a worker (no Streamlit script run there) and returns its frame."""
    key = bc.PlanKey(1.0, 1e-5, 1.0, 1.0, "gaussian")
    submitted = {
        "composition": jobs.submit(bc.composition, key, 2),
        "audit": jobs.submit(bc.audit, key),
        "subsampling": jobs.submit(bc.subsampling, 1.0, 1e-5, 1.0, 1.0, "count", 1000),
        "experiment": jobs.submit(bc.experiment, 1.0, 1e-5, 1.0, 1.0, "count", 1000, "exact", 0),
        "experiment_acceptance": jobs.submit(bc.experiment_acceptance, 1e-5, 1.0, 1.0, "count", 1000,
                                                   "exact", 0),
        "family_optima": jobs.submit(rc.family_optima, 1.0, 1.0, 1.0),
        "usefulness_vs_g": jobs.submit(rc.usefulness_vs_g_frame, 1.0),
        "bnb": jobs.submit(lc.bnb, "logistic", 1.0, 5, 3, 8, 0),
        "accuracy_curves": jobs.submit(nc.curves, nc.Requirement("error", 50.0, 0.95, 1.0, 1e-5)),
    }
    done = {name: job.result(timeout=300) for name, job in submitted.items()}
    totals, curve = done["composition"]
    assert set(totals) == {"paper", "exact", "dp"} and len(curve) > 3
    plan = brdp.optimize(epsilon=1.0, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian", accountant="exact")
    assert totals["exact"] == pytest.approx(brdp.composed_epsilon(1e-5, compositions=2, plan=plan), rel=1e-12)
    assert {"paper", "corrected"} <= set(done["subsampling"][1]["mode"])
    audit = done["audit"].set_index("plan")
    assert audit.loc["exact optimum", "ε_y"] == pytest.approx(plan.epsilon_y, rel=1e-12)
    assert audit.loc["exact optimum", "status"] == "sound"
    assert len(done["experiment"]) == 6 and len(done["family_optima"]) >= 6
    assert set(done["usefulness_vs_g"]["family"]) >= {"laplace", "staircase"}
    bnb = done["bnb"]
    assert bnb.certified >= bnb.attained - 1e-9 and bnb.nodes > 0
    laplace = done["accuracy_curves"].query("mechanism == 'laplace'")  # P(|Lap(1/ε)| ≤ 50) = 1 − e^(−50ε)
    eps, acc = laplace["epsilon"].to_numpy(float), laplace["accuracy"].to_numpy(float)
    assert len(eps) == 16 and np.allclose(acc, -np.expm1(-50 * eps), rtol=1e-9, atol=0)


# --------------------------------------------------------------------------------------------- fairness, limits, loss


def test_a_session_with_many_jobs_does_not_starve_another(no_wait, monkeypatch):
    """A session with many queued jobs does not starve another's single job: the next free worker takes the job of
    the session that has used the workers least."""
    monkeypatch.setattr(jobs, "EXPRESS_WORKERS", 0)  # the regular workers only
    n = 5
    # hog1 runs longer, so one worker is free at a time and the dispatch order shows in the start times (two jobs
    # handed out in the same instant start in either order: they were 30 µs apart on a loaded machine)
    hog = [jobs.submit(_stamped, f"hog{i}", 2.0 if i == 1 else 1.0, session="hog") for i in range(n)]
    time.sleep(0.3)  # both workers busy with hog0, hog1; hog2.. queued
    small = jobs.submit(_stamped, "small", 0.0, session="small")
    assert jobs.queued() == {"hog": n - 2, "small": 1}
    starts = dict(f.result(timeout=120) for f in [*hog, small])
    assert starts["small"] < starts["hog2"], "the small session's job must go before the hog's third job"
    assert starts["small"] - min(starts["hog0"], starts["hog1"]) < 1.0 + 0.9, "it waits for one job at most"


def test_a_newcomer_goes_before_neighbours_that_have_used_the_workers(no_wait, monkeypatch):
    """Both jobs of a newcomer's page start before the next jobs of two neighbours who have been computing, although
    a plain round-robin would serve a neighbour between the newcomer's two jobs."""
    monkeypatch.setattr(jobs, "EXPRESS_WORKERS", 0)
    for s in ("n1", "n2"):
        jobs.submit(_stamped, f"{s}-before", 0.8, session=s).result(timeout=60)
    busy = [jobs.submit(_stamped, f"{s}-busy", 1.0, session=s) for s in ("n1", "n2")]
    time.sleep(0.3)
    later = [jobs.submit(_stamped, f"{s}-next", 0.2, session=s) for s in ("n1", "n2")]
    mine = [jobs.submit(_stamped, f"me{i}", 0.2, session="me") for i in range(2)]
    starts = dict(f.result(timeout=120) for f in [*busy, *later, *mine])
    assert max(starts["me0"], starts["me1"]) < min(starts["n1-next"], starts["n2-next"])


BUSY = 6.0  # s: the neighbours' long jobs


def test_a_newcomer_starts_at_once_on_an_express_worker(no_wait, monkeypatch):
    """Neighbours with long jobs hold both regular workers; a light session's jobs start on the express workers
    right away, while the neighbours' next jobs wait for a regular one."""
    monkeypatch.setattr(jobs, "LIGHT_USAGE", 0.5)
    # one pool throughout: a pool replaced mid-test (after RECYCLE_AFTER jobs, counted from earlier tests) would start
    # the newcomer's jobs in fresh processes that must first import this module
    monkeypatch.setattr(jobs, "RECYCLE_AFTER", 10**6)
    for s in ("n1", "n2"):
        jobs.submit(_stamped, f"{s}-before", 0.8, session=s).result(timeout=60)
    # long enough that a cold express worker (forked and importing this module on a loaded machine) still starts
    # well before a regular worker is free
    busy = [jobs.submit(_stamped, f"{s}-busy", BUSY, session=s) for s in ("n1", "n2")]
    time.sleep(0.3)
    later = [jobs.submit(_stamped, f"{s}-next", 0.1, session=s) for s in ("n1", "n2")]
    # a session name no earlier test used: a session's use of the workers is remembered (half-life one minute)
    mine = [jobs.submit(_stamped, f"me{i}", 0.1, session="newcomer") for i in range(jobs.EXPRESS_WORKERS)]
    starts = dict(f.result(timeout=120) for f in [*busy, *later, *mine])
    first_free = min(starts["n1-busy"], starts["n2-busy"]) + BUSY  # no regular worker is free before this
    mine_started = max(starts[f"me{i}"] for i in range(jobs.EXPRESS_WORKERS))
    # compared with the neighbours' own start times, not the wall clock: a loaded machine may start a worker late
    assert mine_started < first_free, "the newcomer waited for a regular worker"
    assert min(starts["n1-next"], starts["n2-next"]) >= first_free - 0.05, "heavy sessions wait for a regular worker"
    assert mine_started < min(starts["n1-next"], starts["n2-next"])


def test_a_session_keeps_a_bounded_queue(no_wait, monkeypatch):
    monkeypatch.setattr(jobs, "MAX_QUEUED_PER_SESSION", 2)
    monkeypatch.setattr(jobs, "EXPRESS_WORKERS", 0)
    busy = [jobs.submit(_slow_square, float(i), 1.0, session="other") for i in range(jobs.WORKERS)]
    time.sleep(0.3)
    mine = [jobs.submit(_slow_square, float(10 + i), 0.0, session="s") for i in range(5)]
    assert [j.cancelled() for j in mine] == [True, True, True, False, False], "oldest queued jobs are dropped"
    assert jobs.queued()["s"] == 2
    assert [j.result(timeout=60) for j in mine[3:]] == [169.0, 196.0]
    assert all(b.result(timeout=60) is not None for b in busy)


def test_queued_jobs_of_ended_sessions_are_cancelled(no_wait, monkeypatch):
    monkeypatch.setattr(jobs, "EXPRESS_WORKERS", 0)
    gone: set[str] = set()
    monkeypatch.setattr(jobs, "_alive", lambda s: s not in gone)
    busy = [jobs.submit(_slow_square, float(i), 1.0, session="busy") for i in range(jobs.WORKERS)]
    time.sleep(0.3)
    left = jobs.submit(_slow_square, 11.0, 0.0, session="left")
    shared = jobs.submit(_slow_square, 12.0, 0.0, session="left")
    assert jobs.submit(_slow_square, 12.0, 0.0, session="stays") is shared
    gone.add("left")  # the reader closed the tab
    assert [b.result(timeout=60) for b in busy] == [0.0, 1.0]
    assert shared.result(timeout=60) == 144.0, "a job another live session waits for still runs"
    assert left.cancelled(), "a job nobody waits for any more never runs"


def test_a_worker_killed_mid_job_fails_only_that_job_and_the_pool_recovers(no_wait, tmp_path):
    path = str(tmp_path / "pid")
    job = jobs.submit(_sleep_then_pid, path, 30.0)
    deadline = time.monotonic() + 60
    while (not os.path.exists(path) or not open(path).read()) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(int(open(path).read()), 9)
    with pytest.raises(jobs.WorkerLost, match="stopped before finishing"):
        job.result(timeout=60)
    assert jobs.submit(_slow_square, 9.0, 0.0).result(timeout=60) == 81.0, "a fresh pool takes new jobs"


def test_a_killed_panel_says_so_and_retries(no_wait, tmp_path, monkeypatch):
    monkeypatch.setenv("DPX_HEAVY_WAIT", "60")
    at = AppTest.from_function(_kill_script, default_timeout=90)
    at.session_state["flag"] = str(tmp_path / "killed")
    at.run()
    assert not at.exception
    assert any("stopped before finishing" in e.value for e in at.error)
    assert [b.label for b in at.button] == ["Retry"]
    at.run()
    assert any("stopped before finishing" in e.value for e in at.error), "no silent retry loop on every rerun"
    at.button[0].click().run()
    at.run()
    assert not at.error and {m.label: m.value for m in at.metric} == {"value": "recovered"}


def test_a_job_over_the_memory_limit_is_refused_with_a_message(no_wait, monkeypatch):
    monkeypatch.setenv("DPX_HEAVY_WAIT", "60")
    at = AppTest.from_function(_memory_script, default_timeout=90).run()
    assert not at.exception and not at.metric
    assert any("more memory than a background worker may use" in w.value for w in at.warning)
    assert jobs.submit(_allocate, 0.25).result(timeout=60) == 2**25, "the worker survives and works on"


def test_worker_memory_is_capped():
    import subprocess
    import sys

    code = (f"import resource; from app import _worker; _worker.limit_memory({jobs.MEMORY_LIMIT}); "
            "print(resource.getrlimit(resource.RLIMIT_DATA)[0])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert int(out.stdout) == jobs.MEMORY_LIMIT <= 2**30


def test_a_worker_exits_once_the_server_is_gone():
    """Workers watch the server's pid: after the server stops they exit instead of idling (and keeping the
    forkserver alive) forever."""
    import subprocess
    import sys

    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.5)"])
    watcher = subprocess.Popen([sys.executable, "-c",
                                f"from app import _worker; _worker._exit_with({server.pid}, 0.1)"],
                               env={**os.environ, "PYTHONPATH": os.getcwd()})
    time.sleep(0.3)
    assert watcher.poll() is None, "the watcher waits while the server lives"
    server.wait()
    assert watcher.wait(timeout=30) == 0


def _nice_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.nice(0)


def test_heavy_sessions_jobs_run_at_a_lower_priority_than_a_newcomers(no_wait, monkeypatch):
    """A session that has used the workers a lot gets the regular workers, whose priority is lower than the express
    workers' that take a light session's job: when both compute at once, the kernel gives the newcomer's job the larger
    share of the cores (the noisy-neighbour scenario in bench/load.py)."""
    from app import _worker

    monkeypatch.setattr(jobs, "LIGHT_USAGE", 0.3)
    monkeypatch.setattr(jobs, "RECYCLE_AFTER", 10**6)
    jobs.submit(_nice_after, 0.5, session="heavy-nice").result(timeout=60)  # now over LIGHT_USAGE
    heavy = jobs.submit(_nice_after, 0.01, session="heavy-nice")
    light = jobs.submit(_nice_after, 0.02, session="light-nice")
    server = os.nice(0)
    assert heavy.result(timeout=60) == min(19, server + _worker.HEAVY_NICENESS)
    assert light.result(timeout=60) == min(19, server + _worker.NICENESS)
    assert heavy.result() > light.result()


# --------------------------------------------------------------------------------------------- ended, limited, capped
# No verdict here depends on how fast the machine is: the clock the watcher reads is the test's own, jobs block until
# the test lets them finish (a file appears), and every wait is for an event, with a generous bound.


def _until_file(path: str, value: float) -> float:
    """A job that runs until ``path`` exists (or ten minutes pass), then returns ``value``."""
    deadline = time.monotonic() + 600
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.02)
    return value


@pytest.fixture
def clock(monkeypatch):
    """The watcher's clock, moved by the test: ``clock.now`` seconds."""

    class Clock:
        now = 1000.0

    monkeypatch.setattr(jobs, "_clock", lambda: Clock.now)
    return Clock


def _worker_of(job) -> object:
    with jobs._LOCK:
        return next(item.slot.worker for item in jobs._RUNNING if item.future is job)


def test_a_closed_tabs_running_job_ends_and_frees_its_worker(no_wait, monkeypatch, clock, tmp_path):
    monkeypatch.setattr(jobs, "WORKERS", 1)
    monkeypatch.setattr(jobs, "EXPRESS_WORKERS", 0)
    gone: set[str] = set()
    monkeypatch.setattr(jobs, "_alive", lambda s: s not in gone)
    never = str(tmp_path / "never")
    job = jobs.submit(_until_file, never, 1.0, session="tab")
    waiting = jobs.submit(_slow_square, 5.0, 0.0, session="other")  # the one worker is busy: it waits
    assert job.running() and jobs.queued() == {"other": 1}
    worker = _worker_of(job)
    jobs.watch()
    assert not job.done(), "an open tab's job runs on"
    gone.add("tab")  # the reader closed the tab
    jobs.watch()
    assert not job.done(), "a tab reconnecting within the grace period would find it"
    clock.now += jobs.GRACE_SECONDS
    jobs.watch()
    with pytest.raises(jobs.JobEnded):
        job.result(timeout=0)
    worker.process.join(60)
    assert worker.process.exitcode == -9, "its worker was killed, not left computing"
    assert waiting.result(timeout=60) == 25.0, "the freed place went to the waiting job (in a fresh worker)"
    assert jobs.submit(_slow_square, 6.0, 0.0, session="later").result(timeout=60) == 36.0
    # in the served app the watcher looks every WATCH_SECONDS: a closed tab's job ends within a few seconds
    assert jobs.GRACE_SECONDS + jobs.WATCH_SECONDS <= 3.0
    assert jobs._STATE["watcher"] is not None and jobs._STATE["watcher"].is_alive()


def test_a_job_another_live_session_waits_for_is_not_ended(no_wait, monkeypatch, clock, tmp_path):
    gone: set[str] = set()
    monkeypatch.setattr(jobs, "_alive", lambda s: s not in gone)
    flag = str(tmp_path / "go")
    job = jobs.submit(_until_file, flag, 2.0, session="leaves")
    assert jobs.submit(_until_file, flag, 2.0, session="stays") is job
    gone.add("leaves")
    jobs.watch()
    clock.now += 10 * jobs.GRACE_SECONDS
    jobs.watch()
    assert not job.done()
    open(flag, "w").close()
    assert job.result(timeout=60) == 2.0


def test_a_job_past_its_time_limit_is_ended_and_its_panel_says_so(no_wait, monkeypatch, clock, tmp_path):
    monkeypatch.setenv("DPX_HEAVY_WAIT", "0")
    monkeypatch.setattr(jobs, "JOB_TIME_LIMIT", 120.0)
    at = AppTest.from_function(_endless_script, default_timeout=60)
    at.session_state["flag"] = str(tmp_path / "never")
    at.run()
    assert not at.exception
    waiting = [i.value for i in at.info if PLACEHOLDER in i.value]
    assert waiting and "computes for at most 2 minutes" in waiting[0], "the panel states its time limit"
    job = next(iter(at.session_state["_background_pending"].values()))
    worker = _worker_of(job)
    started = clock.now
    clock.now = started + 119.9
    jobs.watch()
    assert not job.done()
    clock.now = started + 120.0
    jobs.watch()
    with pytest.raises(jobs.JobTimeLimit, match="more than the 2 minutes"):
        job.result(timeout=0)
    worker.process.join(60)
    assert worker.process.exitcode == -9
    at.run()
    assert not at.exception
    assert any("more than the 2 minutes a panel may compute for" in w.value for w in at.warning), [
        w.value for w in at.warning]
    assert [b.label for b in at.button] == ["Retry"], "the panel offers a retry instead of starting again by itself"


def _endless_script() -> None:
    import streamlit as st

    from app import background
    from tests.app.test_background import _until_file

    value = background.result(_until_file, st.session_state["flag"], 3.0, slot="endless", label="Composing")
    if value is not None:
        st.metric("value", value)


def test_the_time_limit_reads_the_environment(monkeypatch):
    for raw, expected in (("30", 30.0), ("0", jobs.JOB_TIME_LIMIT), ("-5", jobs.JOB_TIME_LIMIT),
                          ("inf", jobs.JOB_TIME_LIMIT), ("soon", jobs.JOB_TIME_LIMIT)):
        monkeypatch.setenv("DPX_JOB_TIME_LIMIT", raw)
        assert jobs.time_limit() == expected
    assert jobs.duration(120) == "2 minutes" and jobs.duration(60) == "1 minute"
    assert jobs.duration(90) == "90 seconds"


def test_one_session_runs_at_most_its_cap_at_once(no_wait, monkeypatch, tmp_path):
    """A visitor with four heavy panels (or four tabs' worth in one session) holds two workers; another visitor's job
    starts at once on a free one; the visitor's other jobs start as its first ones finish."""
    assert jobs.MAX_RUNNING_PER_SESSION == 2 < jobs.WORKERS + jobs.EXPRESS_WORKERS
    flags = [str(tmp_path / f"go{i}") for i in range(4)]
    mine = [jobs.submit(_until_file, flags[i], float(i), session="greedy") for i in range(4)]
    assert jobs.running() == {"greedy": 2} and jobs.queued() == {"greedy": 2}
    assert [j.running() for j in mine] == [True, True, False, False]
    theirs = jobs.submit(_slow_square, 3.0, 0.0, session="neighbour")
    assert theirs.result(timeout=60) == 9.0, "a neighbour's job is not kept waiting by the greedy session"
    assert jobs.running().get("greedy") == 2
    open(flags[0], "w").close()
    assert mine[0].result(timeout=60) == 0.0
    assert mine[2].running() and not mine[3].running(), "one finished, one more started"
    assert jobs.running() == {"greedy": 2}
    for flag in flags[1:]:
        open(flag, "w").close()
    assert [j.result(timeout=60) for j in mine] == [0.0, 1.0, 2.0, 3.0]


def _moving_script() -> None:
    import streamlit as st

    from app import background
    from tests.app.test_background import _until_file

    x = st.number_input("x", value=3.0)
    value = background.result(_until_file, st.session_state["flag"], x, slot="moving", label="Composing")
    if value is not None:
        st.metric("value", value)


def test_moving_on_ends_the_previous_running_job(no_wait, monkeypatch, clock, tmp_path):
    """A reader who moves a slider while a long job runs for the old value: that job ends (its worker is freed for
    the new one) unless another session waits for it."""
    monkeypatch.setenv("DPX_HEAVY_WAIT", "0")
    at = AppTest.from_function(_moving_script, default_timeout=60)
    at.session_state["flag"] = str(tmp_path / "never")
    at.run()
    first = next(iter(at.session_state["_background_pending"].values()))
    assert first.running()
    at.number_input[0].set_value(4.0).run()
    jobs.watch()
    clock.now += jobs.GRACE_SECONDS
    jobs.watch()
    with pytest.raises(jobs.JobEnded):
        first.result(timeout=0)
    second = at.session_state["_background_pending"]["moving"]
    assert second is not first and second.running()
    open(at.session_state["flag"], "w").close()
    assert second.result(timeout=60) == 4.0
