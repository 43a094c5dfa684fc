"""Who runs next, and who is stopped: the background jobs' scheduling rules, with no processes, threads or locks.

:class:`Scheduler` decides; ``app.jobs`` acts. The rules (docs/architecture.md, "One slider move"):

* Shared: a job is keyed by its function and arguments and shared by every session that asks for it; at most
  ``max_jobs`` finished jobs are kept (least recently asked first out, in the app's one store,
  ``app.compute._cache.Memory``).
* Fair: each session has a queue; a free worker takes the job of the session that has used the workers least lately
  (worker-seconds, halved every ``usage_half_life`` seconds), ties going to the session served longest ago
  (round-robin), so neighbours computing back to back cannot starve a newcomer.
* Express: ``express_workers`` places take only light sessions' jobs (under ``light_usage`` worker-seconds lately),
  so a newcomer does not wait for a neighbour's long job to end either.
* Capped: a session runs at most ``max_running_per_session`` jobs at once and keeps at most
  ``max_queued_per_session`` queued (older ones are dropped); jobs outside any session (session ``""``: tests, the
  bench) are not capped.
* Deferred: a job may be queued to start no sooner than some seconds later (``after``): a picture's in-figure slider
  is prepared once the page has rested, and a reader who moves on before then has it cancelled unstarted.
* Ended: a queued job whose sessions have all ended is cancelled instead of run; a running one no live session has
  waited for during ``grace_seconds``, or one past its time limit, is reported by :meth:`Scheduler.overdue`.

Time is read only from the injected ``clock`` (monotonic seconds) and whether a session is still open only from the
injected ``alive``, so the rules are tested with a fake clock and no sleeps. The caller holds its own lock around
every call, starts the jobs :meth:`Scheduler.dispatch` hands out and reports each outcome with
:meth:`Scheduler.finish`.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Literal

from app.compute._cache import Memory

#: Why :meth:`Scheduler.overdue` ends a running job.
Reason = Literal["time limit", "abandoned"]


@dataclass(frozen=True)
class Limits:
    """How many places, and the bounds on a session (the served app's values are the defaults)."""

    workers: int = 2  # regular places: anyone's jobs (the machine has two cores)
    express_workers: int = 2  # places for light sessions' jobs only
    light_usage: float = 5.0  # worker-seconds lately under which a session is light
    usage_half_life: float = 60.0  # s after which a session's past use of the workers counts half
    max_queued_per_session: int = 4
    max_running_per_session: int = 2
    max_jobs: int = 256  # finished jobs kept, like app.compute's cache
    grace_seconds: float = 2.0  # a running job no live session waits for runs on this long (a tab reconnecting)


class Job:
    """A queued or running job: what to compute, the future handed to panels, and the sessions waiting for it."""

    __slots__ = ("key", "fn", "args", "future", "sessions", "charged", "started", "slot", "orphaned", "due")

    def __init__(self, key: Hashable, fn: Callable[..., Any], args: tuple, session: str, due: float = -math.inf):
        self.key, self.fn, self.args, self.due = key, fn, args, due  # due: no start before then (the clock's seconds)
        self.future: cf.Future = cf.Future()
        self.sessions = {session}
        self.charged, self.started = session, 0.0  # the session whose turn ran it, and when (the clock's seconds)
        self.slot: Slot | None = None  # the place running it
        self.orphaned: float | None = None  # since when no live session waits for it (while running)


class Slot:
    """A place for one worker and the job it runs (None when free). ``worker`` and ``done`` (jobs its worker has run)
    are the caller's bookkeeping; the scheduler never reads them."""

    __slots__ = ("express", "item", "worker", "done")

    def __init__(self, express: bool):
        self.express = express
        self.item: Job | None = None
        self.worker: Any = None
        self.done = 0


class Scheduler:
    """The queues, the places and the sessions' use of the workers (see the module's docstring for the rules)."""

    def __init__(
        self,
        clock: Callable[[], float],
        alive: Callable[[str], bool] = lambda session: True,
        limits: Limits | None = None,
    ):
        limits = Limits() if limits is None else limits
        self.clock, self.alive, self.limits = clock, alive, limits
        self.slots: dict[bool, list[Slot]] = {
            False: [Slot(False) for _ in range(limits.workers)],
            True: [Slot(True) for _ in range(limits.express_workers)],
        }
        # key → shared job (finished, running, queued); unfinished jobs are never dropped
        self._jobs: Memory[Hashable, cf.Future] = Memory(limits.max_jobs, kept=lambda job: not job.done())
        self._queues: OrderedDict[str, deque[Job]] = OrderedDict()  # session → its queued jobs
        self._queued: dict[Hashable, Job] = {}  # key → queued job (to add an interested session)
        self._running: set[Job] = set()
        self._served: dict[str, int] = {}  # session → when a worker last took one of its jobs (dispatch count)
        self._usage: dict[str, tuple[float, float]] = {}  # session → (worker-seconds used, decayed; when)
        self._dispatched = 0

    # ------------------------------------------------------------------------------------------------ asking
    def find(self, key: Hashable, session: str) -> cf.Future | None:
        """The shared job under ``key`` (finished, running or queued), now also waited for by ``session``; None if
        there is none (or it was cancelled)."""
        job = self._jobs.get(key)  # asked for: the most recently used
        if job is None or job.cancelled():
            return None
        queued = self._queued.get(key)
        if queued is not None:
            queued.sessions.add(session)
        for item in self._running:  # a running job: this session waits for it too (and keeps it alive)
            if item.future is job:
                item.sessions.add(session)
                item.orphaned = None
        return job

    def enqueue(
        self, key: Hashable, fn: Callable[..., Any], args: tuple, session: str, after: float = 0.0
    ) -> cf.Future:
        """A new job computing ``fn(*args)`` queued for ``session`` (its oldest queued jobs beyond the cap are
        dropped); :meth:`dispatch` hands it to a place, not before ``after`` seconds from now (:meth:`next_due`)."""
        item = Job(key, fn, args, session, self.clock() + after if after > 0 else -math.inf)
        self._queues.setdefault(session, deque()).append(item)
        self._queued[key] = item
        self.keep(key, item.future)
        self._trim(session)
        return item.future

    def keep(self, key: Hashable, job: cf.Future) -> cf.Future:
        """Hold ``job`` under ``key``, dropping the oldest finished jobs beyond ``max_jobs`` (a job computed by the
        caller itself, or one just queued)."""
        self._jobs[key] = job
        return job

    def release(self, job: cf.Future, session: str) -> None:
        """``session`` no longer waits for ``job``: a queued job is cancelled (a session that still wants it asks
        again); a running one is reported by :meth:`overdue` once no live session has waited for it long enough."""
        if job.cancel():
            return
        for item in self._running:
            if item.future is job and session:
                item.sessions.discard(session)

    def forget(self, job: cf.Future) -> None:
        """Drop ``job`` (a failed one, or one a panel retries): the next ask computes afresh."""
        for k in [k for k, j in self._jobs.items() if j is job]:
            del self._jobs[k]

    # ------------------------------------------------------------------------------------------------ running
    def dispatch(self) -> list[Job]:
        """Hand queued jobs to free places, one at a time, each to the session that has used the workers least lately
        (ties: the one served longest ago) among those under their cap of running jobs. Returns the jobs started,
        each with its ``slot``, for the caller to run; their futures are already running."""
        started: list[Job] = []
        limits = self.limits
        while self._queues:
            now = self.clock()
            free_express = [slot for slot in self.slots[True] if slot.item is None]
            free_regular = [slot for slot in self.slots[False] if slot.item is None]
            due = {s: item for s, q in self._queues.items() if (item := _first_due(q, now)) is not None}
            ready = [s for s in due if not s or self._running_of(s) < limits.max_running_per_session]
            if not (free_express or free_regular) or not ready:
                break
            # least recent use of the workers first (a reader who just arrived goes before a neighbour who has been
            # computing for minutes), then the session served longest ago
            session = min(ready, key=lambda s: (self.usage(s, now), self._served.get(s, -1)))
            if self.usage(session, now) < limits.light_usage and free_express:
                slot = free_express[0]
            elif free_regular:
                slot = free_regular[0]
            else:
                break  # the express places are kept for light sessions
            q = self._queues[session]
            item = due[session]
            q.remove(item)
            if not q:
                del self._queues[session]
            self._dispatched += 1
            self._served[session] = self._dispatched
            if len(self._served) > 4 * limits.max_jobs:  # forget sessions with nothing queued (never served)
                for s in [s for s in self._served if s not in self._queues]:
                    del self._served[s]
                    self._usage.pop(s, None)
            item.sessions = {s for s in item.sessions if self.alive(s)}
            if not item.sessions:  # every session that asked for it has ended
                self._drop(item, session)
                continue
            self._queued.pop(item.key, None)
            if not item.future.set_running_or_notify_cancel():  # cancelled while queued
                continue
            item.charged, item.started, item.slot = session, now, slot
            self._running.add(item)
            slot.item = item
            started.append(item)
        return started

    def finish(self, item: Job, value: Any = None, error: BaseException | None = None) -> None:
        """``item`` ended with ``value`` (or ``error``): free its place, charge its session the time it ran and
        complete its future. Call :meth:`dispatch` afterwards for the next job."""
        if item.slot is not None and item.slot.item is item:
            item.slot.item = None
        self._running.discard(item)
        now = self.clock()
        self._usage[item.charged] = (self.usage(item.charged, now, running=False) + now - item.started, now)
        if error is None:
            item.future.set_result(value)
        else:
            item.future.set_exception(error)

    def overdue(self, time_limit: float) -> list[tuple[Job, Reason]]:
        """The running jobs to end now: those that have run ``time_limit`` seconds, and those no live session has
        waited for during ``grace_seconds`` (an abandoned job is forgotten: asked again later, it starts afresh).
        The caller stops each one and reports it with :meth:`finish`."""
        now = self.clock()
        out: list[tuple[Job, Reason]] = []
        for item in list(self._running):
            if now - item.started >= time_limit:
                out.append((item, "time limit"))
            elif any(self.alive(s) for s in item.sessions):
                item.orphaned = None
            elif item.orphaned is None:
                item.orphaned = now
            elif now - item.orphaned >= self.limits.grace_seconds:
                out.append((item, "abandoned"))
                if self._jobs.get(item.key) is item.future:
                    del self._jobs[item.key]
        return out

    def clear(self) -> None:
        """Forget every job: queued ones are cancelled, running ones finish and are dropped."""
        for q in self._queues.values():
            for item in q:
                item.future.cancel()
        self._queues.clear()
        self._queued.clear()
        self._jobs.clear()

    # ------------------------------------------------------------------------------------------------ reading
    def usage(self, session: str, now: float, *, running: bool = True) -> float:
        """Worker-seconds ``session`` has used, halved every ``usage_half_life`` seconds, plus (``running``) the time
        its running jobs have run so far."""
        used, when = self._usage.get(session, (0.0, now))
        total = used * 0.5 ** ((now - when) / self.limits.usage_half_life)
        if running:
            total += sum(now - item.started for item in self._running if item.charged == session)
        return total

    def held(self) -> list[cf.Future]:
        """Every job held (finished, running or queued)."""
        return list(self._jobs.values())

    def queued(self) -> dict[str, int]:
        """Queued jobs per session."""
        return {s: len(q) for s, q in self._queues.items()}

    def running(self) -> dict[str, int]:
        """Running jobs per session whose turn started them."""
        counts: dict[str, int] = {}
        for item in self._running:
            counts[item.charged] = counts.get(item.charged, 0) + 1
        return counts

    def running_jobs(self) -> list[Job]:
        return list(self._running)

    def next_due(self) -> float | None:
        """When the earliest queued job that may not start yet may start (the clock's seconds); None if none waits
        for its time. The caller calls :meth:`dispatch` again then."""
        now = self.clock()
        later = [item.due for q in self._queues.values() for item in q if item.due > now]
        return min(later, default=None)

    # ------------------------------------------------------------------------------------------------ inside
    def _running_of(self, session: str) -> int:
        return sum(item.charged == session for item in self._running)

    def _trim(self, session: str) -> None:
        """Drop a session's cancelled queued jobs, then its oldest ones beyond ``max_queued_per_session``."""
        q = self._queues.get(session) if session else None
        if q is not None and any(item.future.cancelled() for item in q):  # panels that moved on: free their places
            for item in [item for item in q if item.future.cancelled()]:
                if self._queued.get(item.key) is item:
                    del self._queued[item.key]
            q = self._queues[session] = deque(item for item in q if not item.future.cancelled())
            if not q:
                del self._queues[session]
                return
        while q is not None and len(q) > self.limits.max_queued_per_session:
            self._drop(q.popleft(), session)

    def _drop(self, item: Job, session: str) -> None:
        """``session`` no longer waits for a queued job: hand it to another live session waiting for it, or cancel
        it."""
        item.sessions.discard(session)
        others = [s for s in item.sessions if self.alive(s)]
        if others:
            self._queues.setdefault(others[0], deque()).append(item)
            return
        self._queued.pop(item.key, None)
        item.future.cancel()
        if self._jobs.get(item.key) is item.future:
            del self._jobs[item.key]


def _first_due(q: deque[Job], now: float) -> Job | None:
    """A session's first queued job that may start at ``now`` (its queue order kept among those)."""
    return next((item for item in q if item.due <= now), None)
