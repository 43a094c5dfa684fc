"""Heavy panels that never block the page (docs/architecture.md, speed budgets): compute in a worker process, draw when
ready.

A few panels cost seconds on a never-seen setting (BR-DP's composition curve and Alg. 4 at every data-set size, the
R²DP family optima and usefulness-against-γ curve). :func:`result` runs such a computation in a small process-wide
pool of worker processes and does not wait for it (:func:`wait_seconds`: 0 s by default). When it is not ready,
the panel shows a placeholder and the rest of the page finishes at once; a tiny ``st.fragment(run_every=…)`` polls
the job and calls ``st.rerun()`` when it is done, and that rerun draws the panel from the finished job.

* Processes, not threads: the jobs are mostly Python-level root finding, and in a thread they would hold the GIL and
  slow every other session's rerun (measured: the R²DP families rerun went from 50 ms to 184 ms p50 with its job in
  a thread). The workers fork from a ``forkserver`` that has imported dpcore and the compute modules once.
* Jobs are keyed by the function and its (hashable, scalar) arguments and shared by every session: a classroom of
  30 people on the defaults computes each curve once. At most :data:`MAX_JOBS` finished jobs are kept (LRU), so
  memory stays bounded; a job that raised is shown as the panel's error and not kept.
* A session that moves on cancels its own previous job for the same panel if no worker has taken it yet, so
  dragging a slider across ten values does not queue ten curves.
* Fair: jobs wait in one queue per session and a dispatcher hands them to the workers, at most :data:`WORKERS` at
  a time, each to the session that has used the workers least lately (worker-seconds with a one-minute half-life;
  ties round-robin), so neighbours computing heavy panels back to back cannot starve a newcomer's panel; and
  :data:`EXPRESS_WORKERS` more, in a pool of their own, take only light sessions' jobs, so a newcomer does not wait
  for a neighbour's long job to end either. The regular workers run at a lower CPU priority than the express ones
  (``app._worker``): a light session's job, once started, is not slowed down much by heavy neighbours' jobs sharing
  the cores. A
  session keeps at most :data:`MAX_QUEUED_PER_SESSION` queued jobs (older ones are dropped), and a queued job whose
  sessions have all ended is cancelled instead of run.
* Bounded: each worker may use at most :data:`MEMORY_LIMIT` bytes of data memory (``RLIMIT_DATA``, set when it
  starts); a job that needs more fails with ``MemoryError`` and its panel says so. A worker that dies mid-job
  (killed) fails its job with :class:`WorkerLost`: the panel says so and offers a retry, and the pool is replaced.
* ``DPX_HEAVY_WAIT`` (seconds, default :data:`DEFAULT_WAIT`) sets how long a rerun waits inline;
  ``DPX_BACKGROUND=inline`` computes jobs in the calling thread instead (the test suite sets it, so AppTest sees every
  panel drawn in one run exactly as before; tests/app/test_background.py covers the worker path).

Job functions are pure and importable (dpcore calls on scalars), never Streamlit: they run outside any script run.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import multiprocessing
import os
import sys
import threading
import time
import types
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import streamlit as st

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
_PENDING = "_background_pending"  # session_state: panel slot → this session's job still running
_WAITED = "_background_waited"  # session_state: this run already waited once (later panels do not wait again)

MAX_QUEUED_PER_SESSION = 4  # queued (not yet running) jobs a session may hold; older ones are dropped
#: Data memory (heap and anonymous mappings: numpy arrays, FFT buffers) a worker may use, bytes. With the ~150 MB of
#: shared code a worker maps, its resident size stays under 1 GiB.
MEMORY_LIMIT = 800 * 2**20


class WorkerLost(RuntimeError):
    """The worker process running a job died before finishing it (killed, e.g. by the system when out of memory)."""


class _Job:
    """A queued or running job: what to compute, the future handed to panels, and the sessions waiting for it."""

    __slots__ = ("key", "fn", "args", "future", "sessions", "charged", "started", "express")

    def __init__(self, key: Hashable, fn: Callable[..., Any], args: tuple, session: str):
        self.key, self.fn, self.args = key, fn, args
        self.future: cf.Future = cf.Future()
        self.sessions = {session}
        self.charged, self.started = session, 0.0  # the session whose turn ran it, and when (time.monotonic)
        self.express = False  # run by an express worker (a light session's job)


_JOBS: OrderedDict[Hashable, cf.Future] = OrderedDict()
_LOCK = threading.RLock()  # re-entrant: a worker future that is already done runs its callback at once
_QUEUES: OrderedDict[str, deque[_Job]] = OrderedDict()  # session → its queued jobs; order = round-robin turn
_QUEUED: dict[Hashable, _Job] = {}  # key → queued job (to add an interested session)
_RUNNING: set[_Job] = set()
_SERVED: dict[str, int] = {}  # session → when a worker last took one of its jobs (dispatch count)
_USAGE: dict[str, tuple[float, float]] = {}  # session → (worker-seconds used, decayed; when last updated)
USAGE_HALF_LIFE = 60.0  # s: a session's past use of the workers counts half after this long
_STATE: dict[str, Any] = {"pool": None, "submitted": 0}  # the regular workers' pool
_EXPRESS: dict[str, Any] = {"pool": None, "submitted": 0}  # the express workers' pool
#: Jobs a pool takes before fresh workers replace it. A worker's memory grows with the long FFTs of PLD compositions
#: (SciPy keeps a plan per transform length: ~1 GB after ten BR-DP composition curves at T up to 1000) and is not
#: returned to the system; fresh workers (forked from the forkserver in ~10 ms) start small again. (Python 3.11's
#: ``max_tasks_per_child`` would do this, but it can deadlock: cpython gh-115634.)
RECYCLE_AFTER = 8


def _pool(express: bool = False) -> cf.ProcessPoolExecutor:
    """The regular (or express) workers' pool, created on first use, after :data:`RECYCLE_AFTER` jobs and after a
    worker died. Regular workers run at a lower priority (``app._worker.HEAVY_NICENESS``)."""
    from app import _worker  # noqa: PLC0415 — as in start_pool

    if express:
        return recycled_pool(_EXPRESS, EXPRESS_WORKERS)
    return recycled_pool(_STATE, WORKERS, niceness=_worker.HEAVY_NICENESS)


def recycled_pool(state: dict, workers: int, niceness: int | None = None) -> cf.ProcessPoolExecutor:
    """``state["pool"]``, started with ``workers`` processes when missing and replaced once ``state["submitted"]``
    (counted by the caller) reaches :data:`RECYCLE_AFTER`: fresh workers start small again. ``niceness``: see
    :func:`start_pool`."""
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


@contextlib.contextmanager
def _no_main() -> Iterator[None]:
    """Hide ``__main__`` while the pool starts worker processes.

    During a script run Streamlit's ``__main__`` is the page script; a forkserver child would re-run it (as
    ``__mp_main__``) before it could take a job. An empty ``__main__`` tells multiprocessing there is nothing to re-run.
    """
    main = sys.modules.get("__main__")
    stub = sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        # Streamlit itself sets __main__ at the start of every script run (of any session); put ours back only if no
        # run has replaced the stub meanwhile.
        if main is not None and sys.modules.get("__main__") is stub:
            sys.modules["__main__"] = main


def warm() -> None:
    """Start the workers now, in a side thread (app/main.py calls this on every run; it acts once per process).

    The forkserver imports dpcore and the compute modules (2–4 s) before it can fork a worker; started at the first
    page view, that happens while the reader is still reading, not when they first open a heavy panel.
    """
    if inline() or _STATE["pool"] is not None or _STATE.get("warming"):
        return
    _STATE["warming"] = True
    threading.Thread(target=_start_workers, name="dpx-background-warm", daemon=True).start()


def _start_workers() -> None:
    with _LOCK:
        pools = [_pool(), *([_pool(express=True)] if EXPRESS_WORKERS else [])]
    with _no_main():  # a no-op job each: starts the forkserver (not holding the lock meanwhile) and a worker
        started = [pool.submit(int) for pool in pools]
    for job in started:
        job.result()


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
    (ties: the one served longest ago, i.e. round-robin across sessions); call with the lock."""
    while len(_RUNNING) < WORKERS + EXPRESS_WORKERS and _QUEUES:
        now = time.monotonic()
        # least recent use of the workers first (a reader who just arrived goes before a neighbour who has been
        # computing for minutes), then the session served longest ago
        session = min(_QUEUES, key=lambda s: (_usage(s, now), _SERVED.get(s, -1)))
        express_free = sum(item.express for item in _RUNNING) < EXPRESS_WORKERS
        if _usage(session, now) < LIGHT_USAGE and express_free:
            express = True  # a light session's job: an express worker, at the higher of the two priorities
        elif sum(not item.express for item in _RUNNING) < WORKERS:
            express = False
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
        item.charged, item.started, item.express = session, now, express
        _RUNNING.add(item)
        state = _EXPRESS if express else _STATE
        with _no_main():  # submit may start a worker process
            try:
                work = _pool(express).submit(item.fn, *item.args)
            except BrokenProcessPool:  # a worker died (e.g. killed): start a new pool once
                state["pool"] = None
                work = _pool(express).submit(item.fn, *item.args)
        state["submitted"] += 1
        work.add_done_callback(functools.partial(_finished, item))


def _usage(session: str, now: float, *, running: bool = True) -> float:
    """Worker-seconds ``session`` has used, halved every :data:`USAGE_HALF_LIFE` s, plus (``running``) the time
    its running jobs have run so far (call with the lock)."""
    used, when = _USAGE.get(session, (0.0, now))
    total = used * 0.5 ** ((now - when) / USAGE_HALF_LIFE)
    if running:
        total += sum(now - item.started for item in _RUNNING if item.charged == session)
    return total


def _finished(item: _Job, work: cf.Future) -> None:
    """A worker finished (or lost) ``item``: pass its outcome to the panels' future and dispatch the next job."""
    try:
        value, error = work.result(), None
    except BrokenProcessPool:
        value, error = None, WorkerLost("the worker computing this panel stopped before finishing (it was killed, "
                                        "possibly for lack of memory)")
    except BaseException as exc:  # noqa: BLE001 — handed to the panel, like any job error
        value, error = None, exc
    with _LOCK:
        _RUNNING.discard(item)
        now = time.monotonic()
        _USAGE[item.charged] = (_usage(item.charged, now, running=False) + now - item.started, now)
        state = _EXPRESS if item.express else _STATE
        if isinstance(error, WorkerLost) and state["pool"] is not None and getattr(state["pool"], "_broken", False):
            state["pool"] = None  # the next dispatch starts fresh workers
    if error is None:
        item.future.set_result(value)
    else:
        item.future.set_exception(error)
    with _LOCK:
        _dispatch()


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


def _forget(job: cf.Future) -> None:
    with _LOCK:
        for k in [k for k, j in _JOBS.items() if j is job]:
            del _JOBS[k]


def new_run() -> None:
    """Start of a script run (app/main.py): the run's first unfinished job may be waited for again."""
    st.session_state[_WAITED] = False


def result(fn: Callable[..., R], *args: Hashable, slot: str, label: str, wait: float | None = None) -> R | None:
    """``fn(*args)`` if it is ready within :func:`wait_seconds` (only the run's first unfinished job is waited for,
    so a page with three heavy panels waits once, not three times); otherwise ``None`` after drawing a placeholder
    that reruns the page once the job is done. Exceptions raised by ``fn`` are raised here (``ui.panel`` shows
    them). ``slot`` names the panel (unique on the page); ``label`` says what is being computed; ``wait`` overrides
    :func:`wait_seconds` for a panel that is usually quick (it is then drawn in the same run, without a placeholder)."""
    pending: dict[str, cf.Future] = st.session_state.setdefault(_PENDING, {})
    for _ in range(2):  # a job cancelled by another session is resubmitted once
        job = submit(fn, *args)
        previous = pending.get(slot)
        if previous is not None and previous is not job:
            previous.cancel()  # only succeeds if no worker has started it
        try:
            budget = wait_seconds() if wait is None else wait
            value = job.result(timeout=0.0 if st.session_state.get(_WAITED) else budget)
        except cf.TimeoutError:
            st.session_state[_WAITED] = True
            pending[slot] = job
            _placeholder(job, slot, label)
            return None
        except cf.CancelledError:
            continue
        except (WorkerLost, MemoryError) as exc:  # kept: the panel explains and offers a retry instead of looping
            pending.pop(slot, None)
            _failure(job, slot, label, exc)
            return None
        except Exception:
            _forget(job)  # a failed job is not kept: the next rerun tries again
            pending.pop(slot, None)
            raise
        pending.pop(slot, None)
        return value
    pending[slot] = job
    _placeholder(job, slot, label)
    return None


def _failure(job: cf.Future, slot: str, label: str, exc: BaseException) -> None:
    """The panel's note for a job that ran out of memory or lost its worker, with a button to try again."""
    if isinstance(exc, MemoryError):
        st.warning(f"{label}: this setting needs more memory than a background worker may use "
                   f"({MEMORY_LIMIT / 2**20:.0f} MiB). Choose fewer releases or a smaller setting, or retry.",
                   icon=":material/memory:")
    else:
        st.error(f"{label}: {exc}. The rest of the page is unaffected.", icon=":material/error:")
    if st.button("Retry", key=f"dpx-retry-{slot}", icon=":material/refresh:"):
        _forget(job)
        st.rerun()


def _placeholder(job: cf.Future, slot: str, label: str) -> None:
    """A waiting note that polls ``job`` every :data:`POLL_SECONDS` and reruns the page when it is done."""
    state = {"first": True}

    def waiting() -> None:
        if not state["first"] and job.done():
            st.rerun()  # a full rerun: timers reset and the panel is drawn from the finished job
        state["first"] = False
        st.info(f"{label} … computing in the background; the rest of the page is live and this panel appears "
                "when it is ready.", icon=":material/hourglass_top:")

    waiting.__qualname__ = f"waiting_{slot}"  # one fragment identity per panel
    st.fragment(waiting, run_every=POLL_SECONDS)()
