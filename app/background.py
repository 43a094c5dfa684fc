"""Heavy panels on the page (the jobs themselves run in app.jobs' worker processes): :func:`result` draws a heavy
panel's value, or a placeholder that reruns the page when its job is done, or what went wrong (out of memory or
time, a lost worker) with a retry button."""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Callable, Hashable
from typing import TypeVar

import streamlit as st

from app import jobs as bg
from app import panels

R = TypeVar("R")

_PENDING = "_background_pending"  # session_state: panel slot → this session's job still running
_WAITED = "_background_waited"  # session_state: this run already waited once (later panels do not wait again)
#: Seconds a quiet job (a picture's in-figure slider) waits before it starts: a reader who moves the sidebar's slider
#: on within this time has it cancelled unstarted, so a drag across ten values prepares one slider, not ten, and no
#: slider being prepared competes with the runs of the drag (bench/results.md, the BR-DP page).
QUIET_AFTER = 0.3


def warm() -> None:
    """Start the workers once per process, off the script thread (app/main.py, after a page ran)."""
    bg.warm()


def new_run() -> None:
    """Start of a script run (app/main.py): the run's first unfinished job may be waited for again."""
    st.session_state[_WAITED] = False


def result(
    fn: Callable[..., R], *args: Hashable, slot: str, label: str, wait: float | None = None, quiet: bool = False
) -> R | None:
    """``fn(*args)`` if it is ready within :func:`wait_seconds` (only the run's first unfinished job is waited for,
    so a page with three heavy panels waits once, not three times); otherwise ``None`` after drawing a placeholder
    that reruns the page once the job is done. Exceptions raised by ``fn`` are raised here (``ui.panel`` shows
    them). ``slot`` names the panel (unique on the page); ``label`` says what is being computed; ``wait`` overrides
    :func:`wait_seconds` for a panel that is usually quick (it is then drawn in the same run, without a placeholder).
    ``quiet``: for a panel drawn meanwhile without it (an in-figure slider's deck), a job that starts once the page has
    rested (:data:`QUIET_AFTER`), no wait at all and a placeholder that says nothing, only reruns the page once the
    job is done."""
    if not panels.shown():  # in a panel drawn as its title only (presenting another panel): nothing to show
        return None
    pending: dict[str, cf.Future] = st.session_state.setdefault(_PENDING, {})
    for _ in range(2):  # a job cancelled by another session is resubmitted once
        job = bg.submit(fn, *args, after=QUIET_AFTER if quiet else 0.0)
        previous = pending.get(slot)
        if previous is not None and previous is not job:
            bg.release(previous)  # moved on: a queued job is dropped, a running one ends unless others wait for it
        try:
            budget = 0.0 if quiet else bg.wait_seconds() if wait is None else wait
            value = job.result(timeout=0.0 if st.session_state.get(_WAITED) else budget)
        except cf.TimeoutError:
            st.session_state[_WAITED] = st.session_state.get(_WAITED) or not quiet
            pending[slot] = job
            _placeholder(job, slot, label, quiet)
            return None
        except cf.CancelledError:
            continue
        except (bg.WorkerLost, MemoryError, bg.JobTimeLimit) as exc:  # kept: the panel explains and offers a retry
            pending.pop(slot, None)
            _failure(job, slot, label, exc)
            return None
        except Exception:
            bg.forget(job)  # a failed job is not kept: the next rerun tries again
            pending.pop(slot, None)
            raise
        pending.pop(slot, None)
        return value
    pending[slot] = job
    _placeholder(job, slot, label, quiet)
    return None


def _failure(job: cf.Future, slot: str, label: str, exc: BaseException) -> None:
    """The panel's note for a job that ran out of memory or time or lost its worker, with a button to try again."""
    if isinstance(exc, MemoryError):
        st.warning(
            f"{label}: this setting needs more memory than a background worker may use "
            f"({bg.MEMORY_LIMIT / 2**20:.0f} MiB). Choose fewer releases or a smaller setting, or retry.",
            icon=":material/memory:",
        )
    elif isinstance(exc, bg.JobTimeLimit):
        st.warning(
            f"{label}: {exc}. Choose fewer releases or a smaller setting, or retry.", icon=":material/timer_off:"
        )
    else:
        st.error(f"{label}: {exc}. The rest of the page is unaffected.", icon=":material/error:")
    if st.button("Retry", key=f"dpx-retry-{slot}", icon=":material/refresh:"):
        bg.forget(job)
        st.rerun()


def _placeholder(job: cf.Future, slot: str, label: str, quiet: bool = False) -> None:
    """A waiting note that polls ``job`` every ``POLL_SECONDS`` and reruns the page when it is done; it states the
    time limit a job has (:func:`app.jobs.time_limit`). ``quiet``: it polls and reruns, and draws nothing."""
    state = {"first": True}

    def waiting() -> None:
        if not state["first"] and job.done():
            st.rerun()  # a full rerun: timers reset and the panel is drawn from the finished job
        state["first"] = False
        if quiet:
            return
        st.info(
            f"{label} … computing in the background; the rest of the page is live and this panel appears "
            f"when it is ready (a panel computes for at most {bg.duration(bg.time_limit())}).",
            icon=":material/hourglass_top:",
        )

    waiting.__qualname__ = f"waiting_{slot}"  # one fragment identity per panel
    st.fragment(waiting, run_every=bg.POLL_SECONDS)()
