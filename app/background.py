"""Heavy panels that never block the page (ARCHITECTURE §5): compute in a worker process, draw when ready.

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
* ``DPX_HEAVY_WAIT`` (seconds, default :data:`DEFAULT_WAIT`) sets how long a rerun waits inline;
  ``DPX_BACKGROUND=inline`` computes jobs in the calling thread instead (the test suite sets it, so AppTest sees every
  panel drawn in one run exactly as before; tests/app/test_background.py covers the worker path).

Job functions are pure and importable (dpcore calls on scalars), never Streamlit: they run outside any script run.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import streamlit as st

R = TypeVar("R")

DEFAULT_WAIT = 0.0  # s a rerun waits (once, over all its panels) for a new job before showing placeholders
POLL_SECONDS = 0.25  # how often a waiting panel checks its job
WORKERS = 2  # this machine has two cores; more workers would only share them
MAX_JOBS = 256  # finished jobs kept (LRU), like app.compute.MAX_ENTRIES
PRELOAD = ["app._worker"]  # imported once by the forkserver: dpcore and the compute modules
_PENDING = "_background_pending"  # session_state: panel slot → this session's job still running
_WAITED = "_background_waited"  # session_state: this run already waited once (later panels do not wait again)

_JOBS: OrderedDict[Hashable, cf.Future] = OrderedDict()
_LOCK = threading.Lock()
_STATE: dict[str, Any] = {"pool": None, "submitted": 0}
#: Jobs a pool takes before fresh workers replace it. A worker's memory grows with the long FFTs of PLD compositions
#: (SciPy keeps a plan per transform length: ~1 GB after ten BR-DP composition curves at T up to 1000) and is not
#: returned to the system; fresh workers (forked from the forkserver in ~10 ms) start small again. (Python 3.11's
#: ``max_tasks_per_child`` would do this, but it can deadlock: cpython gh-115634.)
RECYCLE_AFTER = 8


def _pool() -> cf.ProcessPoolExecutor:
    """The worker pool, created on first use, after :data:`RECYCLE_AFTER` jobs and after a worker died."""
    pool = _STATE["pool"]
    if pool is not None and _STATE["submitted"] >= RECYCLE_AFTER:
        pool.shutdown(wait=False)  # its queued and running jobs still finish; then its workers exit
        pool = _STATE["pool"] = None
    if pool is None:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        pool = _STATE["pool"] = cf.ProcessPoolExecutor(max_workers=WORKERS, mp_context=ctx)
        _STATE["submitted"] = 0
    return pool


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
        pool = _pool()
    with _no_main():
        job = pool.submit(int)  # a no-op job: starts the forkserver (not holding the lock meanwhile) and a worker
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


def submit(fn: Callable[..., R], *args: Hashable) -> cf.Future:
    """The shared job computing ``fn(*args)``: the existing one (finished, running or queued) or a new one."""
    key = (fn.__module__, fn.__qualname__, args)
    with _LOCK:
        job = _JOBS.get(key)
        if job is not None and not job.cancelled():
            _JOBS.move_to_end(key)
            return job
        if not inline():
            with _no_main():  # submit may start a worker process
                try:
                    job = _pool().submit(fn, *args)
                except BrokenProcessPool:  # a worker died (e.g. killed): start a new pool once
                    _STATE["pool"] = None
                    job = _pool().submit(fn, *args)
            _STATE["submitted"] += 1
            return _keep(key, job)
    job = cf.Future()  # inline: computed here, outside the lock
    try:
        job.set_result(fn(*args))
    except Exception as exc:  # noqa: BLE001 — handed to the caller through the future, like a worker's
        job.set_exception(exc)
    with _LOCK:
        return _keep(key, job)


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
    with _LOCK:
        held = list(_JOBS.values())
    done, _ = cf.wait(held, timeout=timeout)
    return len(done) == len(held)


def clear() -> None:
    """Forget every finished job (tests); running jobs finish and are dropped."""
    with _LOCK:
        _JOBS.clear()


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
        except Exception:
            _forget(job)  # a failed job is not kept: the next rerun tries again
            pending.pop(slot, None)
            raise
        pending.pop(slot, None)
        return value
    pending[slot] = job
    _placeholder(job, slot, label)
    return None


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
