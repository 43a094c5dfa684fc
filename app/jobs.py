"""Heavy panels that never block the page (docs/architecture.md, speed budgets): compute in a worker process, draw when
ready.

A few panels cost seconds on a never-seen setting (BR-DP's composition curve and Alg. 4 at every data-set size, the
R²DP family optima and usefulness-against-γ curve). :func:`app.background.result` runs such a
computation in one of a few worker processes and does not wait for it (:func:`wait_seconds`: 0 s by default). When
it is not ready,
the panel shows a placeholder and the rest of the page finishes at once; a tiny ``st.fragment(run_every=…)`` polls
the job and calls ``st.rerun()`` when it is done, and that rerun draws the panel from the finished job.

* Processes, not threads: the jobs are mostly Python-level root finding, and in a thread they would hold the GIL and
  slow every other session's rerun (measured: the R²DP families rerun went from 50 ms to 184 ms p50 with its job in
  a thread). The workers fork from a ``forkserver`` that has imported dpcore and the compute modules once.
* Jobs are keyed by the function and its (hashable, scalar) arguments and shared by every session: a classroom of
  30 people on the defaults computes each curve once. At most :data:`MAX_JOBS` finished jobs are kept (LRU), so
  memory stays bounded; a job that raised is shown as the panel's error and not kept.
* A session that moves on lets go of its previous job for the same panel: a queued one is cancelled, so dragging a
  slider across ten values does not queue ten curves, and a running one ends unless another session waits for it.
* Fair: jobs wait in one queue per session and a dispatcher hands them to the workers, at most :data:`WORKERS` at
  a time, each to the session that has used the workers least lately (worker-seconds with a one-minute half-life;
  ties round-robin), so neighbours computing heavy panels back to back cannot starve a newcomer's panel; and
  :data:`EXPRESS_WORKERS` more take only light sessions' jobs, so a newcomer does not wait
  for a neighbour's long job to end either. The regular workers run at a lower CPU priority than the express ones
  (``app._worker``): a light session's job, once started, is not slowed down much by heavy neighbours' jobs sharing
  the cores. A session keeps at most :data:`MAX_QUEUED_PER_SESSION` queued jobs (older ones are dropped), and a
  queued job whose sessions have all ended is cancelled instead of run.
* Bounded: each worker may use at most :data:`MEMORY_LIMIT` bytes of data memory (``RLIMIT_DATA``, set when it
  starts); a job that needs more fails with ``MemoryError`` and its panel says so. A worker that dies mid-job
  (killed) fails its job with :class:`WorkerLost`: the panel says so and offers a retry, and a fresh worker takes
  its place.
* Ended: each worker is a process of its own (``app.worker_process``), so one running job can be stopped without
  touching the others. A running job that no live session waits for any more (its tabs were closed, or the reader
  moved on to another setting) is ended after :data:`GRACE_SECONDS` and its worker replaced; a job still running
  after :func:`time_limit` seconds (:data:`JOB_TIME_LIMIT`, stated on its panel) is ended and its panel says so.
  A watcher thread looks every :data:`WATCH_SECONDS` (:func:`watch`, which tests call with their own clock).
* Capped: one session runs at most :data:`MAX_RUNNING_PER_SESSION` jobs at once; its further jobs wait their turn,
  so one visitor cannot hold every worker.
* ``DPX_HEAVY_WAIT`` (seconds, default :data:`DEFAULT_WAIT`) sets how long a rerun waits inline;
  ``DPX_BACKGROUND=inline`` computes jobs in the calling thread instead (the test suite sets it, so AppTest sees every
  panel drawn in one run exactly as before; tests/app/test_background.py covers the worker path).

Job functions are pure and importable (dpcore calls on scalars), never Streamlit: they run outside any script run.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import multiprocessing
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from app.worker_process import Worker, WorkerLost, context, no_main

R = TypeVar("R")

DEFAULT_WAIT = 0.0  # s a rerun waits (once, over all its panels) for a new job before showing placeholders
POLL_SECONDS = 0.25  # how often a waiting panel checks its job
WORKERS = 2  # this machine has two cores; more workers would only share them
#: Extra workers kept for light sessions only (used under :data:`LIGHT_USAGE` worker-seconds lately): a reader who
#: opens a heavy page while neighbours keep both regular workers busy with long jobs starts at once, sharing the
#: cores, instead of waiting for a neighbour's job to end (a job cannot be paused). Measured in bench/load.py --noisy.
EXPRESS_WORKERS = 2
LIGHT_USAGE = 5.0  # worker-seconds (decayed, see _usage)
MAX_JOBS = 256  # finished jobs kept (LRU), like app.compute.MAX_ENTRIES
PRELOAD = ["app._worker"]  # imported once by the forkserver: dpcore and the compute modules

MAX_QUEUED_PER_SESSION = 4  # queued (not yet running) jobs a session may hold; older ones are dropped
MAX_RUNNING_PER_SESSION = 2  # jobs one session may have running at once; jobs outside a session are not capped
#: Data memory (heap and anonymous mappings: numpy arrays, FFT buffers) a worker may use, bytes. With the ~150 MB of
#: shared code a worker maps, its resident size stays under 1 GiB.
MEMORY_LIMIT = 800 * 2**20
#: Seconds a job may run before it is ended (env ``DPX_JOB_TIME_LIMIT``): the slowest panels take about half a
#: minute on a quiet machine, and a busy one shares its cores between four workers and the pages.
JOB_TIME_LIMIT = 120.0
#: Seconds a job runs on once no live session waits for it: a tab reconnecting within them finds it still running.
GRACE_SECONDS = 2.0
WATCH_SECONDS = 0.5  # how often the watcher thread looks at the running jobs


class JobTimeLimit(RuntimeError):
    """A job ran longer than :func:`time_limit` seconds and was ended."""


class JobEnded(cf.CancelledError):
    """A running job was ended because no live session waited for it any more (a panel that asks again starts it
    afresh)."""


def _clock() -> float:
    """Seconds on a monotonic clock (tests replace it, or pass ``now`` to :func:`watch`)."""
    return time.monotonic()


class _Job:
    """A queued or running job: what to compute, the future handed to panels, and the sessions waiting for it."""

    __slots__ = ("key", "fn", "args", "future", "sessions", "charged", "started", "express", "slot", "orphaned")

    def __init__(self, key: Hashable, fn: Callable[..., Any], args: tuple, session: str):
        self.key, self.fn, self.args = key, fn, args
        self.future: cf.Future = cf.Future()
        self.sessions = {session}
        self.charged, self.started = session, 0.0  # the session whose turn ran it, and when (_clock)
        self.express = False  # run by an express worker (a light session's job)
        self.slot: _Slot | None = None  # the worker slot running it
        self.orphaned: float | None = None  # since when no live session waits for it (while running)


class _Slot:
    """A place for one worker process and the job it runs (None when free); ``done`` counts its worker's jobs."""

    __slots__ = ("express", "worker", "item", "done")

    def __init__(self, express: bool):
        self.express = express
        self.worker: Worker | None = None
        self.item: _Job | None = None
        self.done = 0


_JOBS: OrderedDict[Hashable, cf.Future] = OrderedDict()
_LOCK = threading.RLock()  # re-entrant: settling a job dispatches the next, which may settle one at once
_QUEUES: OrderedDict[str, deque[_Job]] = OrderedDict()  # session → its queued jobs; order = round-robin turn
_QUEUED: dict[Hashable, _Job] = {}  # key → queued job (to add an interested session)
_RUNNING: set[_Job] = set()
_SERVED: dict[str, int] = {}  # session → when a worker last took one of its jobs (dispatch count)
_USAGE: dict[str, tuple[float, float]] = {}  # session → (worker-seconds used, decayed; when last updated)
USAGE_HALF_LIFE = 60.0  # s: a session's past use of the workers counts half after this long
_STATE: dict[str, Any] = {"warming": False, "watcher": None}
_SLOTS: dict[bool, list[_Slot]] = {False: [], True: []}  # regular and express worker slots
#: Jobs a worker runs before a fresh one replaces it. A worker's memory grows with the long FFTs of PLD compositions
#: (SciPy keeps a plan per transform length: ~1 GB after ten BR-DP composition curves at T up to 1000) and is not
#: returned to the system; fresh workers (forked from the forkserver in ~10 ms) start small again.
RECYCLE_AFTER = 8


def _slots(express: bool) -> list[_Slot]:
    """The regular (or express) slots: :data:`WORKERS` (or :data:`EXPRESS_WORKERS`) of them (call with the lock)."""
    slots = _SLOTS[express]
    n = EXPRESS_WORKERS if express else WORKERS
    while len(slots) < n:
        slots.append(_Slot(express))
    return slots[:n]


def _new_worker(express: bool) -> Worker:
    """A fresh worker process; regular ones run at a lower priority (``app._worker.HEAVY_NICENESS``)."""
    from app import _worker  # noqa: PLC0415 — imported by the forkserver, not at the server's start

    with no_main():
        return Worker(context(PRELOAD), MEMORY_LIMIT, _worker.NICENESS if express else _worker.HEAVY_NICENESS)


def _ready_worker(slot: _Slot) -> Worker:
    """The slot's worker, replaced when it is missing, dead or has run :data:`RECYCLE_AFTER` jobs (with the lock)."""
    worker = slot.worker
    if worker is not None and (not worker.alive() or slot.done >= RECYCLE_AFTER):
        worker.retire()
        worker = slot.worker = None
    if worker is None:
        worker = slot.worker = _new_worker(slot.express)
        slot.done = 0
    return worker


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

    return cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker.limit_memory,
                                  initargs=(MEMORY_LIMIT, os.getpid(),
                                            _worker.NICENESS if niceness is None else niceness))


def warm() -> None:
    """Start the workers now, in a side thread (app/main.py calls this on every run; it acts once per process).

    The forkserver imports dpcore and the compute modules (2–4 s) before it can fork a worker; started at the first
    page view, that happens while the reader is still reading, not when they first open a heavy panel.
    """
    if inline() or _STATE["warming"]:
        return
    _STATE["warming"] = True
    threading.Thread(target=_start_workers, name="dpx-background-warm", daemon=True).start()


def _start_workers() -> None:
    """A worker for every empty slot, started without holding the lock (the first one waits for the forkserver)."""
    with _LOCK:
        slots = [*_slots(False), *_slots(True)]
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


def submit(fn: Callable[..., R], *args: Hashable, session: str | None = None) -> cf.Future:
    """The shared job computing ``fn(*args)``: the existing one (finished, running or queued) or a new one, queued
    for ``session`` (default: the calling Streamlit session)."""
    key = (fn.__module__, fn.__qualname__, args)
    sid = _session_id() if session is None else session
    with _LOCK:
        job = _JOBS.get(key)
        if job is not None and not job.cancelled():
            _JOBS.move_to_end(key)
            queued = _QUEUED.get(key)
            if queued is not None:
                queued.sessions.add(sid)
            for item in _RUNNING:  # a running job: this session waits for it too (and keeps it alive)
                if item.future is job:
                    item.sessions.add(sid)
                    item.orphaned = None
            return job
        if not inline():
            item = _Job(key, fn, args, sid)
            _QUEUES.setdefault(sid, deque()).append(item)
            _QUEUED[key] = item
            _keep(key, item.future)
            _trim(sid)
            _dispatch()
            return item.future
    job = cf.Future()  # inline: computed here, outside the lock
    try:
        job.set_result(fn(*args))
    except Exception as exc:  # noqa: BLE001 — handed to the caller through the future, like a worker's
        job.set_exception(exc)
    with _LOCK:
        return _keep(key, job)


def _trim(session: str) -> None:
    """Drop a session's oldest queued jobs beyond :data:`MAX_QUEUED_PER_SESSION` (call with the lock); jobs
    submitted outside any session (tests, bench) are not capped."""
    q = _QUEUES.get(session) if session else None
    if q is not None and any(item.future.cancelled() for item in q):  # panels that moved on: free their places
        for item in [item for item in q if item.future.cancelled()]:
            if _QUEUED.get(item.key) is item:
                del _QUEUED[item.key]
        q = _QUEUES[session] = deque(item for item in q if not item.future.cancelled())
        if not q:
            del _QUEUES[session]
            return
    while q is not None and len(q) > MAX_QUEUED_PER_SESSION:
        _drop(q.popleft(), session)


def _drop(item: _Job, session: str) -> None:
    """``session`` no longer waits for a queued job: hand it to another waiting session, or cancel it."""
    item.sessions.discard(session)
    others = [s for s in item.sessions if _alive(s)]
    if others:
        _QUEUES.setdefault(others[0], deque()).append(item)
        return
    _QUEUED.pop(item.key, None)
    item.future.cancel()
    if _JOBS.get(item.key) is item.future:
        del _JOBS[item.key]


def _dispatch() -> None:
    """Hand queued jobs to free workers, one at a time, to the session that has used the workers least lately
    (ties: the one served longest ago, i.e. round-robin across sessions) among those under
    :data:`MAX_RUNNING_PER_SESSION` running jobs; call with the lock."""
    while _QUEUES:
        now = _clock()
        free_express = [slot for slot in _slots(True) if slot.item is None]
        free_regular = [slot for slot in _slots(False) if slot.item is None]
        ready = [s for s in _QUEUES if not s or _running(s) < MAX_RUNNING_PER_SESSION]
        if not (free_express or free_regular) or not ready:
            break
        # least recent use of the workers first (a reader who just arrived goes before a neighbour who has been
        # computing for minutes), then the session served longest ago
        session = min(ready, key=lambda s: (_usage(s, now), _SERVED.get(s, -1)))
        if _usage(session, now) < LIGHT_USAGE and free_express:
            slot = free_express[0]  # a light session's job: an express worker, at the higher of the two priorities
        elif free_regular:
            slot = free_regular[0]
        else:
            break  # the express workers are kept for light sessions
        q = _QUEUES[session]
        item = q.popleft()
        if not q:
            del _QUEUES[session]
        _STATE["dispatched"] = _SERVED[session] = _STATE.get("dispatched", 0) + 1
        if len(_SERVED) > 4 * MAX_JOBS:  # forget sessions with nothing queued (they count as never served)
            for s in [s for s in _SERVED if s not in _QUEUES]:
                del _SERVED[s]
                _USAGE.pop(s, None)
        item.sessions = {s for s in item.sessions if _alive(s)}
        if not item.sessions:  # every session that asked for it has ended
            _drop(item, session)
            continue
        if not item.future.set_running_or_notify_cancel():  # cancelled while queued
            _QUEUED.pop(item.key, None)
            continue
        _QUEUED.pop(item.key, None)
        item.charged, item.started, item.express, item.slot = session, now, slot.express, slot
        _RUNNING.add(item)
        slot.item = item
        _start(slot, item)
    if _RUNNING and _STATE["watcher"] is None:
        _watcher()


def _start(slot: _Slot, item: _Job) -> None:
    """Send ``item`` to the slot's worker (a fresh one if the worker is gone); call with the lock."""
    for attempt in range(2):
        try:
            worker = _ready_worker(slot)
        except Exception as exc:  # noqa: BLE001 — no process could be started (e.g. out of memory): the panel says so
            _settle(slot, item, None, WorkerLost(f"no background worker could be started ({type(exc).__name__})"))
            return
        try:
            worker.run(item.fn, item.args, functools.partial(_finished, slot, worker, item))
            return
        except OSError:  # the worker died while idle (killed): once more with a fresh one
            worker.kill()
            slot.worker = None
            if attempt:
                _settle(slot, item, None, WorkerLost("no background worker could be started for this panel"))
        except Exception as exc:  # noqa: BLE001 — a job that cannot be sent (not importable): the panel's error
            _settle(slot, item, None, exc)
            return


def _running(session: str) -> int:
    """How many running jobs were started in ``session``'s turn (call with the lock)."""
    return sum(item.charged == session for item in _RUNNING)


def _usage(session: str, now: float, *, running: bool = True) -> float:
    """Worker-seconds ``session`` has used, halved every :data:`USAGE_HALF_LIFE` s, plus (``running``) the time
    its running jobs have run so far (call with the lock)."""
    used, when = _USAGE.get(session, (0.0, now))
    total = used * 0.5 ** ((now - when) / USAGE_HALF_LIFE)
    if running:
        total += sum(now - item.started for item in _RUNNING if item.charged == session)
    return total


def _finished(slot: _Slot, worker: Worker, item: _Job, value: Any, error: BaseException | None) -> None:
    """A worker answered (or died running) ``item``: pass its outcome to the panels' future and dispatch the next
    job. An answer for a job already ended (:func:`watch`) is ignored."""
    with _LOCK:
        if slot.item is not item or slot.worker is not worker:
            return
        slot.done += 1
        if isinstance(error, WorkerLost):
            slot.worker = None  # the next job starts a fresh worker
        _settle(slot, item, value, error)


def _settle(slot: _Slot, item: _Job, value: Any, error: BaseException | None) -> None:
    """Free ``slot``, charge the session, complete the future and dispatch (call with the lock)."""
    slot.item = None
    _RUNNING.discard(item)
    now = _clock()
    _USAGE[item.charged] = (_usage(item.charged, now, running=False) + now - item.started, now)
    if error is None:
        item.future.set_result(value)
    else:
        item.future.set_exception(error)
    _dispatch()


def watch(now: float | None = None) -> None:
    """End the running jobs that have run past :func:`time_limit` (their panels say so) and those no live session
    has waited for during :data:`GRACE_SECONDS` (closed tabs, settings moved on): each one's worker is killed at
    once and replaced for the next job. The watcher thread calls this every :data:`WATCH_SECONDS`."""
    now = _clock() if now is None else now
    limit = time_limit()
    ended: list[Worker] = []
    with _LOCK:
        for item in list(_RUNNING):
            if now - item.started >= limit:
                error: BaseException = JobTimeLimit(f"it needed more than the {duration(limit)} a panel may compute "
                                                    "for, so it was stopped")
            elif any(_alive(s) for s in item.sessions):
                item.orphaned = None
                continue
            elif item.orphaned is None:
                item.orphaned = now
                continue
            elif now - item.orphaned < GRACE_SECONDS:
                continue
            else:
                error = JobEnded("no open page waits for this job any more")
                if _JOBS.get(item.key) is item.future:
                    del _JOBS[item.key]  # asked again later, it starts afresh
            slot = item.slot
            assert slot is not None  # every running job has its slot
            if slot.worker is not None:
                ended.append(slot.worker)
                slot.worker = None  # the next job in this slot starts a fresh worker
            _settle(slot, item, None, error)
    for worker in ended:  # outside the lock: a kill takes a moment
        worker.kill()


def release(job: cf.Future, session: str | None = None) -> None:
    """``session`` (default: the calling one) no longer waits for ``job``: a queued job is cancelled (a session that
    still wants it asks again); a running one is ended by :func:`watch` once no live session waits for it."""
    sid = _session_id() if session is None else session
    if job.cancel():
        return
    with _LOCK:
        for item in _RUNNING:
            if item.future is job and sid:
                item.sessions.discard(sid)


def _keep(key: Hashable, job: cf.Future) -> cf.Future:
    """Hold ``job`` under ``key``, dropping the oldest finished jobs beyond :data:`MAX_JOBS` (call with the lock)."""
    _JOBS[key] = job
    finished = [k for k, j in _JOBS.items() if j.done()]
    for k in finished[: max(0, len(_JOBS) - MAX_JOBS)]:  # running jobs are never dropped
        del _JOBS[k]
    return job


def jobs() -> int:
    """Number of jobs held (finished, running or queued): for the bench and the memory test."""
    with _LOCK:
        return len(_JOBS)


def wait_all(timeout: float = 300.0) -> bool:
    """Block until every held job is finished (bench and tests); False if ``timeout`` seconds passed first."""
    deadline = time.monotonic() + timeout
    while True:
        with _LOCK:  # a cancelled job never runs (cf.wait would wait for it until the timeout): look again often
            pending = [job for job in _JOBS.values() if not job.done()]
        left = deadline - time.monotonic()
        if not pending or left <= 0:
            return not pending
        cf.wait(pending, timeout=min(left, 0.5))


def clear() -> None:
    """Forget every job (tests): queued ones are cancelled, running ones finish and are dropped."""
    with _LOCK:
        for q in _QUEUES.values():
            for item in q:
                item.future.cancel()
        _QUEUES.clear()
        _QUEUED.clear()
        _JOBS.clear()


def queued() -> dict[str, int]:
    """Queued jobs per session (for tests and the bench)."""
    with _LOCK:
        return {s: len(q) for s, q in _QUEUES.items()}


def running() -> dict[str, int]:
    """Running jobs per session whose turn started them (for tests and the bench)."""
    with _LOCK:
        counts: dict[str, int] = {}
        for item in _RUNNING:
            counts[item.charged] = counts.get(item.charged, 0) + 1
        return counts


def worker_pids() -> list[int]:
    """The process ids of the workers now running jobs (for tests)."""
    with _LOCK:
        return [item.slot.worker.pid for item in _RUNNING if item.slot is not None and item.slot.worker is not None]


def shutdown() -> None:
    """End every worker (tests: workers started while a test had patched the settings must not serve the next)."""
    with _LOCK:
        workers = [slot.worker for slots in _SLOTS.values() for slot in slots if slot.worker is not None]
        for slots in _SLOTS.values():
            for slot in slots:
                slot.worker = None
    for worker in workers:
        worker.kill()


def forget(job: cf.Future) -> None:
    """Drop ``job`` (a failed one, or one a panel retries): the next ask computes afresh."""
    with _LOCK:
        for k in [k for k, j in _JOBS.items() if j is job]:
            del _JOBS[k]
