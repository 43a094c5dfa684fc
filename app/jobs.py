"""Heavy panels that never block the page (docs/architecture.md, speed budgets): compute in a worker process, draw when
ready.

A few panels cost seconds on a never-seen setting (BR-DP's composition curve and Alg. 4 at every data-set size, the
R²DP family optima and usefulness-against-γ curve). :func:`app.background.result` runs such a
computation in one of a few worker processes and does not wait for it (:func:`wait_seconds`: 0 s by default). When
it is not ready,
the panel shows a placeholder and the rest of the page finishes at once; a tiny ``st.fragment(run_every=…)`` polls
the job and calls ``st.rerun()`` when it is done, and that rerun draws the panel from the finished job.

Who runs next and who is stopped — shared jobs, the fair order between sessions, express places for light sessions,
each session's caps, the grace period of an abandoned job — are the rules of :class:`app.scheduler.Scheduler`, which
has no processes or threads and reads an injected clock. This module acts on its decisions: it holds the one
:data:`SCHEDULER` under a lock, runs the jobs it dispatches on worker processes and ends the ones it reports overdue.

* Processes, not threads: the jobs are mostly Python-level root finding, and in a thread they would hold the GIL and
  slow every other session's rerun (bench/results-where-time-goes.md). The workers fork from a ``forkserver`` that
  has imported dpcore and the compute modules once.
* A session that moves on lets go of its previous job for the same panel: a queued one is cancelled, so dragging a
  slider across ten values does not queue ten curves, and a running one ends unless another session waits for it.
* The regular workers run at a lower CPU priority than the express ones (``app._worker``): a light session's job,
  once started, is not slowed down much by heavy neighbours' jobs sharing the cores.
* Bounded: each worker may use at most :data:`MEMORY_LIMIT` bytes of data memory (``RLIMIT_DATA``, set when it
  starts); a job that needs more fails with ``MemoryError`` and its panel says so. A worker that dies mid-job
  (killed) fails its job with :class:`WorkerLost`: the panel says so and offers a retry, and a fresh worker takes
  its place.
* Ended: each worker is a process of its own (``app.worker_process``), so one running job can be stopped without
  touching the others. A job the scheduler reports overdue — no live session has waited for it during the grace
  period, or it ran past :func:`time_limit` seconds (:data:`JOB_TIME_LIMIT`, stated on its panel) — has its worker
  killed and replaced, and its panel says why. A watcher thread looks every :data:`WATCH_SECONDS` (:func:`watch`).
* A fresh worker (replacing a recycled, dead or ended one) is forked on a thread of its own: the job waits for it,
  the page run that asked for the job does not.
* ``DPX_HEAVY_WAIT`` (seconds, default :data:`DEFAULT_WAIT`) sets how long a rerun waits inline;
  ``DPX_BACKGROUND=inline`` computes jobs in the calling thread instead (the test suite sets it, so AppTest sees every
  panel drawn in one run exactly as before; tests/app/test_background.py covers the worker path).

Job functions are pure and importable (dpcore calls on scalars), never Streamlit: they run outside any script run.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import math
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from app.scheduler import Job, Limits, Scheduler, Slot
from app.worker_process import Worker, WorkerLost, context, no_main

R = TypeVar("R")

DEFAULT_WAIT = 0.0  # s a rerun waits (once, over all its panels) for a new job before showing placeholders
POLL_SECONDS = 0.25  # how often a waiting panel checks its job
PRELOAD = ["app._worker"]  # imported once by the forkserver: dpcore and the compute modules
#: Data memory (heap and anonymous mappings: numpy arrays, FFT buffers) a worker may use, bytes. With the shared code
#: a worker maps, its resident size stays under 1 GiB.
MEMORY_LIMIT = 800 * 2**20
#: Seconds a job may run before it is ended (env ``DPX_JOB_TIME_LIMIT``): the slowest panels take a good part of it on
#: a quiet machine (bench/results.md), and a busy one shares its cores between four workers and the pages.
JOB_TIME_LIMIT = 120.0
WATCH_SECONDS = 0.5  # how often the watcher thread looks at the running jobs
#: Jobs a worker runs before a fresh one replaces it. A worker's memory grows with the long FFTs of PLD compositions
#: (SciPy keeps a plan per transform length) and is not returned to the system; a fresh worker, forked from the
#: forkserver, starts small again.
RECYCLE_AFTER = 8


class JobTimeLimit(RuntimeError):
    """A job ran longer than :func:`time_limit` seconds and was ended."""


class JobEnded(cf.CancelledError):
    """A running job was ended because no live session waited for it any more (a panel that asks again starts it
    afresh)."""


def _session_id() -> str:
    """The calling Streamlit session's id ("" outside a script run: tests, bench)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx  # noqa: PLC0415

    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else ""


def _alive(session: str) -> bool:
    """Whether a session may still want its job (no runtime, as under AppTest or in tests: assume so)."""
    if not session:
        return True
    try:
        from streamlit.runtime import Runtime  # noqa: PLC0415

        return not Runtime.exists() or Runtime.instance().is_active_session(session)
    except Exception:  # noqa: BLE001 — a runtime in an odd state must not lose jobs
        return True


#: The scheduling rules' state for this server process (tests install their own, with a fake clock and limits).
SCHEDULER = Scheduler(time.monotonic, alive=_alive, limits=Limits())
_LOCK = threading.RLock()  # re-entrant: settling a job dispatches the next, which may settle one at once
_STATE: dict[str, Any] = {"warming": False, "watcher": None, "wake": math.inf}  # wake: a timer is set for then


def _new_worker(express: bool) -> Worker:
    """A fresh worker process; regular ones run at a lower priority (``app._worker.HEAVY_NICENESS``)."""
    from app import _worker  # noqa: PLC0415 — imported by the forkserver, not at the server's start

    with no_main():
        return Worker(context(PRELOAD), MEMORY_LIMIT, _worker.NICENESS if express else _worker.HEAVY_NICENESS)


def _worn(slot: Slot) -> bool:
    """Whether the slot's worker must be replaced before its next job: missing, dead or has run :data:`RECYCLE_AFTER`
    jobs (with the lock)."""
    worker = slot.worker
    return worker is None or not worker.alive() or slot.done >= RECYCLE_AFTER


def recycled_pool(state: dict, workers: int, niceness: int | None = None) -> cf.ProcessPoolExecutor:
    """``state["pool"]``, started with ``workers`` processes when missing and replaced once ``state["submitted"]``
    (counted by the caller) reaches :data:`RECYCLE_AFTER`: fresh workers start small again. ``niceness``: see
    :func:`start_pool`. (The lessons' computing ahead; the app's panels use single workers, which can be ended.)"""
    pool = state.get("pool")
    if pool is not None and state.get("submitted", 0) >= RECYCLE_AFTER:
        pool.shutdown(wait=False)  # its queued and running jobs still finish; then its workers exit
        pool = state["pool"] = None
    if pool is None:
        pool = state["pool"] = start_pool(workers, niceness)
        state["submitted"] = 0
    return pool


def start_pool(workers: int, niceness: int | None = None) -> cf.ProcessPoolExecutor:
    """A pool of ``workers`` processes forked from a forkserver that has imported :data:`PRELOAD`, each capped at
    :data:`MEMORY_LIMIT`, ``niceness`` below the server's CPU priority (default ``app._worker.NICENESS``) and ending
    with this server process (also used by the lessons' computing ahead)."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    from app import _worker  # noqa: PLC0415 — the initializer must be importable by module name in the worker

    return cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=ctx,
        initializer=_worker.limit_memory,
        initargs=(MEMORY_LIMIT, os.getpid(), _worker.NICENESS if niceness is None else niceness),
    )


def warm() -> None:
    """Start the workers now, in a side thread (app/main.py calls this on every run; it acts once per process).

    The forkserver imports dpcore and the compute modules before it can fork a worker; started at the first page
    view, that happens while the reader is still reading, not when they first open a heavy panel.
    """
    if inline() or _STATE["warming"]:
        return
    _STATE["warming"] = True
    threading.Thread(target=_start_workers, name="dpx-background-warm", daemon=True).start()


def _start_workers() -> None:
    """A worker for every empty slot, started without holding the lock (the first one waits for the forkserver)."""
    with _LOCK:
        slots = [*SCHEDULER.slots[False], *SCHEDULER.slots[True]]
    for slot in slots:
        with _LOCK:
            if slot.worker is not None:
                continue
        worker = _new_worker(slot.express)
        with _LOCK:
            if slot.worker is None:
                slot.worker, slot.done, worker = worker, 0, None
        if worker is not None:  # a dispatch filled the slot meanwhile
            worker.retire()
    _watcher()


def _watcher() -> None:
    """Start the thread that calls :func:`watch` every :data:`WATCH_SECONDS` (once per process)."""
    with _LOCK:
        if _STATE["watcher"] is not None:
            return
        _STATE["watcher"] = thread = threading.Thread(target=_watch_forever, name="dpx-background-watch", daemon=True)
    thread.start()


def _watch_forever() -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        try:
            watch()
        except Exception:  # noqa: BLE001 — the watcher must outlive any one odd state; the next look tries again
            pass


def time_limit() -> float:
    """Seconds a job may run (env ``DPX_JOB_TIME_LIMIT``, default :data:`JOB_TIME_LIMIT`; invalid values fall back)."""
    try:
        value = float(os.environ.get("DPX_JOB_TIME_LIMIT", JOB_TIME_LIMIT))
    except ValueError:
        return JOB_TIME_LIMIT
    return value if 0.0 < value < float("inf") else JOB_TIME_LIMIT


def duration(seconds: float) -> str:
    """``120`` → "2 minutes", ``90`` → "90 seconds": how a panel states its time limit."""
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds:g} seconds"


def inline() -> bool:
    """Whether jobs run in the calling thread (env ``DPX_BACKGROUND=inline``; tests)."""
    return os.environ.get("DPX_BACKGROUND", "").strip().lower() == "inline"


def wait_seconds() -> float:
    """How long a rerun waits inline for a job (env ``DPX_HEAVY_WAIT``, seconds; invalid values fall back)."""
    try:
        value = float(os.environ.get("DPX_HEAVY_WAIT", DEFAULT_WAIT))
    except ValueError:
        return DEFAULT_WAIT
    return value if 0.0 <= value < float("inf") else DEFAULT_WAIT


def submit(fn: Callable[..., R], *args: Hashable, session: str | None = None, after: float = 0.0) -> cf.Future:
    """The shared job computing ``fn(*args)``: the existing one (finished, running or queued) or a new one, queued
    for ``session`` (default: the calling Streamlit session) to start no sooner than ``after`` seconds from now
    (inline, at once)."""
    key = (fn.__module__, fn.__qualname__, args)
    sid = _session_id() if session is None else session
    with _LOCK:
        job = SCHEDULER.find(key, sid)
        if job is not None:
            return job
        if not inline():
            job = SCHEDULER.enqueue(key, fn, args, sid, after)
            _dispatch()
            return job
    job = cf.Future()  # inline: computed here, outside the lock
    try:
        job.set_result(fn(*args))
    except Exception as exc:  # noqa: BLE001 — handed to the caller through the future, like a worker's
        job.set_exception(exc)
    with _LOCK:
        return SCHEDULER.keep(key, job)


def _dispatch() -> None:
    """Run the jobs the scheduler hands to free places (call with the lock), and look again when the next deferred
    job may start."""
    for item in SCHEDULER.dispatch():
        _start(item)
    if SCHEDULER.running_jobs() and _STATE["watcher"] is None:
        _watcher()
    due = SCHEDULER.next_due()
    if due is not None and due < _STATE.get("wake", math.inf):
        _STATE["wake"] = due
        timer = threading.Timer(max(0.0, due - SCHEDULER.clock()), _wake, args=(due,))
        timer.daemon = True
        timer.start()


def _wake(due: float) -> None:
    """A deferred job's time has come: dispatch (the timer set for ``due``)."""
    with _LOCK:
        if _STATE.get("wake") == due:
            _STATE["wake"] = math.inf
        _dispatch()


def _start(item: Job) -> None:
    """Send ``item`` to its slot's worker; call with the lock. A worker that must be replaced first is replaced on a
    thread of its own: forking one takes tens of milliseconds, and the caller is often a page run (the job waits for
    its fresh worker, the page does not)."""
    slot = item.slot
    assert slot is not None  # every dispatched job has its slot
    if _worn(slot):
        _retire(slot)
        threading.Thread(target=_start_fresh, args=(item,), name="dpx-background-start", daemon=True).start()
        return
    if not _send(item, slot.worker):
        _retire(slot)  # the worker died while idle (killed): once more with a fresh one
        threading.Thread(target=_start_fresh, args=(item,), name="dpx-background-start", daemon=True).start()


def _retire(slot: Slot) -> None:
    """Let the slot's worker go (with the lock): the next job starts a fresh one."""
    if slot.worker is not None:
        slot.worker.retire()
    slot.worker = None


def _start_fresh(item: Job) -> None:
    """Start a fresh worker for ``item``'s slot without holding the lock, then send it ``item`` (unless the job ended
    meanwhile: the worker then waits in its slot for the next one)."""
    slot = item.slot
    assert slot is not None
    try:
        worker = _new_worker(slot.express)
    except Exception as exc:  # noqa: BLE001 — no process could be started (e.g. out of memory): the panel says so
        with _LOCK:
            if slot.item is item:
                _settle(item, None, WorkerLost(f"no background worker could be started ({type(exc).__name__})"))
        return
    with _LOCK:
        if slot.worker is None:
            slot.worker, slot.done, worker = worker, 0, None
        if worker is not None:  # another fresh worker took the place meanwhile
            worker.retire()
        if slot.item is not item:  # ended meanwhile (watch, time limit): nothing to send
            return
        if not _send(item, slot.worker):
            _retire(slot)
            _settle(item, None, WorkerLost("no background worker could be started for this panel"))


def _send(item: Job, worker: Worker) -> bool:
    """Send ``item`` to ``worker`` (with the lock); False when the worker is gone. A job that cannot be sent (not
    importable) is settled with its error, the panel's to show."""
    slot = item.slot
    assert slot is not None
    try:
        worker.run(item.fn, item.args, functools.partial(_finished, slot, worker, item))
    except OSError:
        return False
    except Exception as exc:  # noqa: BLE001 — a job that cannot be sent (not importable): the panel's error
        _settle(item, None, exc)
    return True


def _finished(slot: Slot, worker: Worker, item: Job, value: Any, error: BaseException | None) -> None:
    """A worker answered (or died running) ``item``: pass its outcome to the panels' future and dispatch the next
    job. An answer for a job already ended (:func:`watch`) is ignored."""
    with _LOCK:
        if slot.item is not item or slot.worker is not worker:
            return
        slot.done += 1
        if isinstance(error, WorkerLost):
            slot.worker = None  # the next job starts a fresh worker
        _settle(item, value, error)


def _settle(item: Job, value: Any, error: BaseException | None) -> None:
    """Complete ``item`` (freeing its slot, charging its session) and dispatch the next job (call with the lock)."""
    SCHEDULER.finish(item, value, error)
    _dispatch()


def watch() -> None:
    """End the running jobs the scheduler reports overdue: past :func:`time_limit` (their panels say so), or waited
    for by no live session during its grace period (closed tabs, settings moved on). Each one's worker is killed at
    once and replaced for the next job. The watcher thread calls this every :data:`WATCH_SECONDS`."""
    limit = time_limit()
    ended: list[Worker] = []
    with _LOCK:
        for item, reason in SCHEDULER.overdue(limit):
            error: BaseException
            if reason == "time limit":
                error = JobTimeLimit(
                    f"it needed more than the {duration(limit)} a panel may compute for, so it was stopped"
                )
            else:
                error = JobEnded("no open page waits for this job any more")
            slot = item.slot
            assert slot is not None  # every running job has its slot
            if slot.worker is not None:
                ended.append(slot.worker)
                slot.worker = None  # the next job in this slot starts a fresh worker
            _settle(item, None, error)
    for worker in ended:  # outside the lock: a kill takes a moment
        worker.kill()


def release(job: cf.Future, session: str | None = None) -> None:
    """``session`` (default: the calling one) no longer waits for ``job``: a queued job is cancelled (a session that
    still wants it asks again); a running one is ended by :func:`watch` once no live session waits for it."""
    sid = _session_id() if session is None else session
    with _LOCK:
        SCHEDULER.release(job, sid)


def jobs() -> int:
    """Number of jobs held (finished, running or queued): for the bench and the memory test."""
    with _LOCK:
        return len(SCHEDULER.held())


def wait_all(timeout: float = 300.0) -> bool:
    """Block until every held job is finished (bench and tests); False if ``timeout`` seconds passed first."""
    deadline = time.monotonic() + timeout
    while True:
        with _LOCK:  # a cancelled job never runs (cf.wait would wait for it until the timeout): look again often
            pending = [job for job in SCHEDULER.held() if not job.done()]
        left = deadline - time.monotonic()
        if not pending or left <= 0:
            return not pending
        cf.wait(pending, timeout=min(left, 0.5))


def clear() -> None:
    """Forget every job (tests): queued ones are cancelled, running ones finish and are dropped."""
    with _LOCK:
        SCHEDULER.clear()


def queued() -> dict[str, int]:
    """Queued jobs per session (for tests and the bench)."""
    with _LOCK:
        return SCHEDULER.queued()


def running() -> dict[str, int]:
    """Running jobs per session whose turn started them (for tests and the bench)."""
    with _LOCK:
        return SCHEDULER.running()


def shutdown() -> None:
    """End every worker (tests: workers started while a test had patched the settings must not serve the next)."""
    with _LOCK:
        slots = [slot for slots in SCHEDULER.slots.values() for slot in slots]
        workers = [slot.worker for slot in slots if slot.worker is not None]
        for slot in slots:
            slot.worker = None
    for worker in workers:
        worker.kill()


def forget(job: cf.Future) -> None:
    """Drop ``job`` (a failed one, or one a panel retries): the next ask computes afresh."""
    with _LOCK:
        SCHEDULER.forget(job)
