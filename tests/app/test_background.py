"""Heavy panels in background jobs (app.background, app.jobs): the page finishes without them, then draws them when
ready; the jobs run in worker processes that can be ended one by one.

The rest of the suite runs with ``DPX_HEAVY_WAIT`` high (tests/conftest.py), i.e. every job waited for inline; here
the wait is 0, as in the served app where a rerun waits only a few tens of ms. The scheduling rules themselves (fair
order, express places, caps, grace period, time limit) are tested without processes in tests/app/test_scheduler.py;
here the real workers act on them. No verdict depends on how fast the machine is: the clock the scheduler reads is the
test's own, a job that must still be running blocks until the test lets it finish (a file appears), and every wait is
for an event, with a generous bound.
"""

from __future__ import annotations

import os
import threading
import time
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from app import background, jobs
from app.compute import brdp as bc
from app.compute import ldp as lc
from app.compute import negotiate as nc
from app.compute import r2dp as rc
from app.notation import number
from app.scheduler import Limits, Scheduler
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


@pytest.fixture
def scheduler(monkeypatch):
    """A fresh scheduler for this test, installed in app.jobs: its clock (``scheduler.now``, moved only by the test),
    its ended sessions (``scheduler.gone``) and its limits (``scheduler.install(workers=1, …)``)."""
    state = SimpleNamespace(now=1000.0, gone=set())

    def install(**limits) -> Scheduler:
        fresh = Scheduler(lambda: state.now, alive=lambda s: s not in state.gone, limits=Limits(**limits))
        monkeypatch.setattr(jobs, "SCHEDULER", fresh)
        return fresh

    state.install = install
    install()
    return state


def _until_file(path: str, value: float) -> float:
    """A job that runs until ``path`` exists (or ten minutes pass), then returns ``value``."""
    deadline = time.monotonic() + 600
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.02)
    return value


def _worker_of(job, timeout: float = 60.0) -> object:
    """The worker running ``job``; a job whose slot needed a fresh worker waits for it on a thread of its own, so
    this waits (for the event, with a generous bound) until the job has been sent to one."""
    deadline = time.monotonic() + timeout
    while True:
        with jobs._LOCK:
            worker = next(item.slot.worker for item in jobs.SCHEDULER.running_jobs() if item.future is job)
        if worker is not None or time.monotonic() > deadline:
            return worker
        time.sleep(0.01)


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


def test_moving_on_cancels_this_sessions_queued_job(no_wait, scheduler, tmp_path):
    """The one worker is busy: the session's job waits in the queue, and is cancelled when the reader moves on."""
    scheduler.install(workers=1, express_workers=0)
    flag = str(tmp_path / "go")
    blocker = jobs.submit(_until_file, flag, 1.0, session="other")
    at = AppTest.from_function(_script, default_timeout=60).run()
    queued = at.session_state["_background_pending"]["square"]
    assert blocker.running() and not queued.running() and not queued.done()
    at.number_input[0].set_value(4.0).run()  # the session moves on before its job started
    assert queued.cancelled()
    open(flag, "w").close()
    assert blocker.result(timeout=60) == 1.0
    _wait_for_jobs()
    at.run()
    assert {m.label: m.value for m in at.metric} == {"square": "16.0", "always": "5.0"}


def test_a_deferred_job_starts_by_itself_once_its_time_has_come(no_wait, scheduler):
    """A job queued to start later (a picture's slider, once the page has rested) waits although the workers are
    free, then starts with no page run asking again: a timer dispatches it (the scheduler reads the test's clock)."""
    job = jobs.submit(_pid, session="reader", after=0.3)
    assert not job.running() and not job.done() and jobs.queued() == {"reader": 1}
    scheduler.now += 0.3
    assert job.result(timeout=60) != os.getpid(), "it ran in a worker"


def test_waiting_for_every_job_skips_cancelled_ones(no_wait, scheduler, tmp_path):
    """A queued job cancelled before it ran never finishes; waiting for all jobs (the bench, the tests) must not
    wait for it until the timeout."""
    scheduler.install(workers=1, express_workers=0)
    flag = str(tmp_path / "go")
    blocker = jobs.submit(_until_file, flag, 1.0, session="a")
    queued = jobs.submit(_slow_square, 7.0, session="a")
    assert queued.cancel()  # the reader moved on; their next job frees its place in the queue (never run)
    later = jobs.submit(_slow_square, 8.0, 0.0, session="a")
    open(flag, "w").close()
    assert jobs.wait_all(60.0), "waited for a job that will never run"
    assert blocker.result() == 1.0 and later.result() == 64.0


@pytest.mark.parametrize("express", [True, False], ids=["express", "regular"])
def test_a_dead_idle_worker_is_replaced(no_wait, scheduler, express):
    scheduler.install(express_workers=2 if express else 0)  # a fresh session is light: an express worker if any
    session = f"dead-worker-{express}"
    assert jobs.submit(_slow_square, 7.0, 0.0, session=session).result(timeout=60) == 49.0
    slot = next(s for s in jobs.SCHEDULER.slots[express] if s.worker is not None)
    dead = slot.worker
    dead.process.kill()  # as if the system had killed it while it waited for a job
    dead.process.join(30)
    assert jobs.submit(_slow_square, 8.0, 0.0, session=session).result(timeout=60) == 64.0
    assert slot.worker is not dead


@pytest.fixture
def started_in(monkeypatch) -> list[str]:
    """The name of the thread each fresh worker is forked on, in order."""
    names: list[str] = []
    new_worker = jobs._new_worker

    def recording(express: bool):
        names.append(threading.current_thread().name)
        return new_worker(express)

    monkeypatch.setattr(jobs, "_new_worker", recording)
    return names


def test_warm_starts_the_workers_off_the_calling_thread(no_wait, scheduler, monkeypatch, started_in):
    monkeypatch.setitem(jobs._STATE, "warming", False)
    background.warm()
    slots = [*jobs.SCHEDULER.slots[False], *jobs.SCHEDULER.slots[True]]
    deadline = time.monotonic() + 60
    while not all(s.worker is not None for s in slots) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(s.worker is not None and s.worker.alive() for s in slots)
    assert started_in == ["dpx-background-warm"] * len(slots), "warm() must not wait for the forkserver itself"
    assert jobs.submit(_pid).result(timeout=60) in {s.worker.pid for s in slots}
    background.warm()  # once per process: a second call does nothing
    assert len(started_in) == len(slots)
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


def test_a_fresh_worker_is_started_off_the_thread_that_submits(no_wait, monkeypatch, started_in):
    """Replacing a worker (recycled, dead or missing) forks a process: the thread that asked (a page run) must not
    wait for that, only the job does."""
    monkeypatch.setattr(jobs, "RECYCLE_AFTER", 1)  # every job needs a fresh worker
    assert [jobs.submit(_pid_of, i).result(timeout=60)[0] for i in range(4)] == list(range(4))
    assert len(started_in) >= 4, started_in
    assert threading.current_thread().name not in started_in, started_in


def test_memory_is_bounded(no_wait, scheduler):
    scheduler.install(max_jobs=5)
    for i in range(20):
        jobs.submit(_slow_square, float(i), 0.0).result(timeout=60)
    assert jobs.jobs() <= 5


def test_wait_seconds_reads_the_environment(monkeypatch):
    for raw, expected in (
        ("0.5", 0.5),
        ("0", 0.0),
        ("nan", jobs.DEFAULT_WAIT),
        ("-1", jobs.DEFAULT_WAIT),
        ("inf", jobs.DEFAULT_WAIT),
        ("soon", jobs.DEFAULT_WAIT),
    ):
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
    plan = brdp.optimize(
        epsilon=float(eps_shown), delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian", accountant="exact"
    )
    exact = brdp.composed_epsilon(plan.delta, compositions=t, plan=plan, accountant="exact")
    paper = brdp.composed_epsilon(plan.delta, compositions=t, plan=plan, accountant="paper")
    assert shown[f"ε after T = {t}, exact"] == number(exact, 4)
    assert shown[f"ε after T = {t}, paper (Thm. 3)"] == number(paper, 4)
    audits = [df.value for df in at.dataframe if "plan" in df.value.columns]  # beside it, the remarks' table
    assert len(audits) == 1 and "exact optimum" in audits[0]["plan"].tolist(), "panel 11's audit"


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
    assert [p for p in _placeholders(at) if "Accuracy against ε" in p or "Splitting the budget" in p] == _placeholders(
        at
    )
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
        "subsampling": jobs.submit(bc.subsampling, bc.SampleKey(1.0, 1e-5, 1.0, 1.0, "count", 1000)),
        "experiment": jobs.submit(bc.experiment, 1.0, 1e-5, 1.0, 1.0, "count", 1000, "exact", 0),
        "experiment_acceptance": jobs.submit(bc.experiment_acceptance, 1e-5, 1.0, 1.0, "count", 1000, "exact", 0),
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


def test_the_worker_freed_first_takes_the_job_of_the_session_that_used_the_workers_least(no_wait, scheduler, tmp_path):
    """The real pool follows the scheduler's order: with one worker busy for a session that has more jobs queued, the
    job of another session that has used no worker goes next."""
    scheduler.install(workers=1, express_workers=0)
    flags = {name: str(tmp_path / name) for name in ("hog0", "hog1", "hog2", "small")}
    hog = [jobs.submit(_until_file, flags[f"hog{i}"], float(i), session="hog") for i in range(3)]
    small = jobs.submit(_until_file, flags["small"], 9.0, session="small")
    assert jobs.running() == {"hog": 1} and jobs.queued() == {"hog": 2, "small": 1}
    scheduler.now += 1.0  # the hog's first job has used the worker for a second
    open(flags["hog0"], "w").close()
    assert hog[0].result(timeout=60) == 0.0
    # the worker's answer and the next dispatch happen under the lock jobs.running() takes: no race
    assert jobs.running() == {"small": 1} and jobs.queued() == {"hog": 2}
    for flag in flags.values():
        open(flag, "w").close()
    assert [j.result(timeout=60) for j in [*hog, small]] == [0.0, 1.0, 2.0, 9.0]


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


def _data_in_use() -> int:
    """The calling process's data memory in bytes (VmData: what RLIMIT_DATA counts)."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmData:"))


def test_a_fresh_worker_has_room_under_its_memory_limit(no_wait):
    """What the forkserver imported once (every in-figure slider's picture included) leaves a worker most of its data
    limit: an allocator that reserved its address space ahead in the forkserver would count against every worker."""
    from app import decks, slides

    used = jobs.submit(_data_in_use).result(timeout=60)
    assert used < jobs.MEMORY_LIMIT / 2, f"a fresh worker already uses {used / 2**20:.0f} MiB of its data limit"
    job = slides.job_of(decks.posterior, "nq", ("rr", 1.0, 2, 1, 0, "uniform"), play=True)
    assert jobs.submit(slides.deck, *job).result(timeout=60) is not None, "a worker builds a picture's slider"


def test_worker_memory_is_capped():
    import subprocess
    import sys

    code = (
        f"import resource; from app import _worker; _worker.limit_memory({jobs.MEMORY_LIMIT}); "
        "print(resource.getrlimit(resource.RLIMIT_DATA)[0])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert int(out.stdout) == jobs.MEMORY_LIMIT <= 2**30


def test_a_worker_exits_once_the_server_is_gone():
    """Workers watch the server's pid: after the server stops they exit instead of idling (and keeping the
    forkserver alive) forever."""
    import subprocess
    import sys

    # the "server" lives until the test closes its input, however slow the machine
    server = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    watcher = subprocess.Popen(
        [sys.executable, "-c", f"from app import _worker; _worker._exit_with({server.pid}, 0.1)"],
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    with pytest.raises(subprocess.TimeoutExpired):
        watcher.wait(timeout=1.0)  # the watcher waits while the server lives
    server.stdin.close()
    server.wait()
    assert watcher.wait(timeout=30) == 0


def _nice_after(path: str) -> int:
    _until_file(path, 0.0)
    return os.nice(0)


def test_heavy_sessions_jobs_run_at_a_lower_priority_than_a_newcomers(no_wait, scheduler, tmp_path):
    """A session that has used the workers a lot gets the regular workers, whose priority is lower than the express
    workers' that take a light session's job: when both compute at once, the kernel gives the newcomer's job the larger
    share of the cores (the noisy-neighbour scenario in bench/load.py)."""
    from app import _worker

    scheduler.install(light_usage=0.3)
    go = str(tmp_path / "go")
    first = jobs.submit(_nice_after, go, session="heavy-nice")
    scheduler.now += 0.5  # it ran half a second: the session is now over the light sessions' bound
    open(go, "w").close()
    first.result(timeout=60)
    heavy = jobs.submit(_nice_after, go + "-heavy", session="heavy-nice")
    light = jobs.submit(_nice_after, go + "-light", session="light-nice")
    assert jobs.running() == {"heavy-nice": 1, "light-nice": 1}
    open(go + "-heavy", "w").close()
    open(go + "-light", "w").close()
    server = os.nice(0)
    assert heavy.result(timeout=60) == min(19, server + _worker.HEAVY_NICENESS)
    assert light.result(timeout=60) == min(19, server + _worker.NICENESS)
    assert heavy.result() > light.result()


# --------------------------------------------------------------------------------------------- ended, limited


def test_a_closed_tabs_running_job_ends_and_frees_its_worker(no_wait, scheduler, tmp_path):
    scheduler.install(workers=1, express_workers=0)
    never = str(tmp_path / "never")
    job = jobs.submit(_until_file, never, 1.0, session="tab")
    waiting = jobs.submit(_slow_square, 5.0, 0.0, session="other")  # the one worker is busy: it waits
    assert job.running() and jobs.queued() == {"other": 1}
    worker = _worker_of(job)
    jobs.watch()
    assert not job.done(), "an open tab's job runs on"
    scheduler.gone.add("tab")  # the reader closed the tab
    jobs.watch()
    assert not job.done(), "a tab reconnecting within the grace period would find it"
    scheduler.now += jobs.SCHEDULER.limits.grace_seconds
    jobs.watch()
    with pytest.raises(jobs.JobEnded):
        job.result(timeout=0)
    worker.process.join(60)
    assert worker.process.exitcode == -9, "its worker was killed, not left computing"
    assert waiting.result(timeout=60) == 25.0, "the freed place went to the waiting job (in a fresh worker)"
    assert jobs.submit(_slow_square, 6.0, 0.0, session="later").result(timeout=60) == 36.0
    # in the served app the watcher looks every WATCH_SECONDS: a closed tab's job ends within a few seconds
    assert Limits().grace_seconds + jobs.WATCH_SECONDS <= 3.0
    assert jobs._STATE["watcher"] is not None and jobs._STATE["watcher"].is_alive()


def test_a_job_past_its_time_limit_is_ended_and_its_panel_says_so(no_wait, monkeypatch, scheduler, tmp_path):
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
    started = scheduler.now
    scheduler.now = started + 119.9
    jobs.watch()
    assert not job.done()
    scheduler.now = started + 120.0
    jobs.watch()
    with pytest.raises(jobs.JobTimeLimit, match="more than the 2 minutes"):
        job.result(timeout=0)
    worker.process.join(60)
    assert worker.process.exitcode == -9
    at.run()
    assert not at.exception
    assert any("more than the 2 minutes a panel may compute for" in w.value for w in at.warning), [
        w.value for w in at.warning
    ]
    assert [b.label for b in at.button] == ["Retry"], "the panel offers a retry instead of starting again by itself"


def _endless_script() -> None:
    import streamlit as st

    from app import background
    from tests.app.test_background import _until_file

    value = background.result(_until_file, st.session_state["flag"], 3.0, slot="endless", label="Composing")
    if value is not None:
        st.metric("value", value)


def test_the_time_limit_reads_the_environment(monkeypatch):
    for raw, expected in (
        ("30", 30.0),
        ("0", jobs.JOB_TIME_LIMIT),
        ("-5", jobs.JOB_TIME_LIMIT),
        ("inf", jobs.JOB_TIME_LIMIT),
        ("soon", jobs.JOB_TIME_LIMIT),
    ):
        monkeypatch.setenv("DPX_JOB_TIME_LIMIT", raw)
        assert jobs.time_limit() == expected
    assert jobs.duration(120) == "2 minutes" and jobs.duration(60) == "1 minute"
    assert jobs.duration(90) == "90 seconds"


def _moving_script() -> None:
    import streamlit as st

    from app import background
    from tests.app.test_background import _until_file

    x = st.number_input("x", value=3.0)
    value = background.result(_until_file, st.session_state["flag"], x, slot="moving", label="Composing")
    if value is not None:
        st.metric("value", value)


def test_moving_on_ends_the_previous_running_job(no_wait, monkeypatch, scheduler, tmp_path):
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
    scheduler.now += jobs.SCHEDULER.limits.grace_seconds
    jobs.watch()
    with pytest.raises(jobs.JobEnded):
        first.result(timeout=0)
    second = at.session_state["_background_pending"]["moving"]
    assert second is not first and second.running()
    open(at.session_state["flag"], "w").close()
    assert second.result(timeout=60) == 4.0


# --------------------------------------------------------------------------------------------- in-figure sliders


def _held_figure(value: float, flag: str, page_pid: int) -> Any:
    """A picture with an in-figure slider whose stops, built in a worker, wait for ``flag`` to appear; the page's
    own figure (built in the page's process) does not wait."""
    import plotly.graph_objects as go

    deadline = time.monotonic() + 60
    while os.getpid() != page_pid and not os.path.exists(flag) and time.monotonic() < deadline:
        time.sleep(0.02)
    return go.Figure(data=[{"type": "scatter", "y": [value, 2 * value]}], layout={"height": 430})


def _slider_script() -> None:
    import os

    import streamlit as st

    from app import instant
    from tests.app.test_background import _held_figure

    fig = instant.figure(_held_figure, "eps", 1.0, st.session_state["flag"], os.getpid(), slot="held")
    st.metric("height", fig.layout.height)
    st.metric("slider", bool(fig.layout.sliders))
    st.metric("always", 1)


def test_a_picture_is_drawn_at_once_while_its_slider_is_prepared(no_wait, tmp_path):
    """The deck of every stop is built in a worker: the page draws the plain picture at once, with the room the
    slider will take and no note that would move the page, and the slider appears in the run after the job."""
    flag = str(tmp_path / "go")
    at = AppTest.from_function(_slider_script, default_timeout=60)
    at.session_state["flag"] = flag
    at.run()
    assert not at.exception
    first = {m.label: m.value for m in at.metric}
    assert first["slider"] == "False" and first["always"] == "1", "the page finished without the deck"
    assert not at.info and not at.warning, "nothing announced that moves the page when the slider arrives"
    open(flag, "w").close()
    _wait_for_jobs()
    at.run()
    then = {m.label: m.value for m in at.metric}
    assert then["slider"] == "True" and then["height"] == first["height"]
