"""Where class polls live: two tables beside the privacy ledgers, in the same database (app/ledger_store.py).

A poll has two names. Its **id** (22 URL-safe characters, 128 random bits, like a ledger's) is the teacher's
capability: whoever holds the address ``/poll?poll=<id>`` sees the results and can stop the poll. Its **join code**
(six letters and digits, easy to read off a projector and to type) only lets a phone answer, once, while the poll is
open: until the teacher presses Stop or its time limit passes.

What is stored of an answer is the report **after** the coin (app/views/poll): the poll's row counts the reports and
the reports of Yes, nothing else. The true answer never reaches this module. To refuse a second answer from the same
browser, the voters table keeps a SHA-256 digest of the poll's id and the browser's random token (app/poll_voter.py):
it names no one, links no report to anyone, and means nothing in another poll.

Answers are counted in one transaction under a lock on the poll's row (``SELECT … FOR UPDATE`` on PostgreSQL,
``BEGIN IMMEDIATE`` on SQLite), so answers arriving at once through several replicas are all counted, each browser
once. Database failures surface as :class:`app.ledger_store.StoreUnavailable` with a sentence a user can read.
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from app import ledger_store as ls
from dpcore.ldp import rr_survey as rr

__all__ = [
    "CODE_ALPHABET",
    "MAX_MINUTES",
    "MAX_QUESTION",
    "AlreadyAnswered",
    "Poll",
    "PollClosed",
    "PollNotFound",
    "PollStore",
    "get_poll_store",
    "is_code",
    "is_poll_id",
    "normal_code",
    "voter_digest",
]

#: Join codes: six characters from an alphabet without look-alikes (no 0/O, 1/I/L, 2/Z, 5/S, 8/B), ~1.9·10⁸ codes.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 6
MAX_QUESTION = 200  # characters
MAX_MINUTES = 240  # the longest time limit a poll may have
MAX_EPSILON = 50.0  # beyond it a report is the truth to within 10⁻²¹: no longer a randomized-response poll
_CODE = re.compile(f"^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$")

metadata = sa.MetaData()
polls = sa.Table(
    "dpx_polls",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),  # the teacher's capability
    sa.Column("code", sa.String(8), nullable=False, unique=True),  # what a phone joins with
    sa.Column("question", sa.Text, nullable=False),
    sa.Column("epsilon", sa.Float, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("closes_at", sa.DateTime(timezone=True), nullable=False),  # the time limit
    sa.Column("stopped_at", sa.DateTime(timezone=True), nullable=True),  # the teacher pressed Stop
    sa.Column("answers", sa.Integer, nullable=False),  # reports received
    sa.Column("yes", sa.Integer, nullable=False),  # of which Yes, after the coin
)
voters = sa.Table(
    "dpx_poll_voters",
    metadata,
    sa.Column("poll_id", sa.String(32), sa.ForeignKey("dpx_polls.id"), primary_key=True),
    sa.Column("voter", sa.String(64), primary_key=True),  # sha256(poll id, browser token), hex
)
_BY_CODE = sa.select(polls).where(polls.c.code == sa.bindparam("code"))
_BY_ID = sa.select(polls).where(polls.c.id == sa.bindparam("id"))


class PollNotFound(LookupError):
    """No poll has this join code or id."""


class PollClosed(RuntimeError):
    """The poll was stopped or its time limit passed."""

    def __init__(self, poll: Poll) -> None:
        super().__init__(f"poll {poll.code} is closed")
        self.poll = poll


class AlreadyAnswered(RuntimeError):
    """This browser has answered this poll already."""

    def __init__(self, poll: Poll) -> None:
        super().__init__(f"poll {poll.code} has this browser's answer already")
        self.poll = poll


@dataclass(frozen=True)
class Poll:
    """A stored poll: its capability id, join code, question, ε, times, and the counts of reports (after the coin)."""

    id: str
    code: str
    question: str
    epsilon: float
    created_at: datetime
    closes_at: datetime
    stopped_at: datetime | None
    answers: int
    yes: int

    def is_open(self, now: datetime) -> bool:
        return self.stopped_at is None and now < self.closes_at

    @property
    def ended_at(self) -> datetime:
        """When it closed (or will close at its time limit)."""
        return self.stopped_at if self.stopped_at is not None else self.closes_at


def is_poll_id(value: Any) -> bool:
    """True when ``value`` has the shape of a poll id (checked before any database look-up)."""
    return ls.is_ledger_id(value)


def normal_code(value: Any) -> str:
    """A join code as typed (``" abc7x9 "``, or spaced out as the projector writes it, ``"ABC 7X9"``) in its stored
    form (``"ABC7X9"``); "" for anything that is not text."""
    return "".join(value.split()).replace("-", "").upper() if isinstance(value, str) else ""


def is_code(value: Any) -> bool:
    """True when ``value`` is a join code in its stored form."""
    return isinstance(value, str) and bool(_CODE.match(value))


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _now() -> datetime:
    return datetime.now(UTC)


def _utc(t: datetime | None) -> datetime | None:
    return t if t is None or t.tzinfo is not None else t.replace(tzinfo=UTC)  # SQLite returns naive UTC


def _poll(row: Any) -> Poll:
    return Poll(
        row.id,
        row.code,
        row.question,
        float(row.epsilon),
        _utc(row.created_at),
        _utc(row.closes_at),
        _utc(row.stopped_at),
        int(row.answers),
        int(row.yes),
    )


def voter_digest(poll_id: str, token: str) -> str:
    """What the voters table keeps of a browser: SHA-256 of the poll's id and the browser's token (hex)."""
    return hashlib.sha256(f"{poll_id}\n{token}".encode()).hexdigest()


def clean_question(question: Any) -> str:
    """The question as stored: one line of text, 1–200 characters (ValueError naming ``question`` otherwise)."""
    if not isinstance(question, str):
        raise ValueError("question must be text")
    text = " ".join(question.split())
    if not text or len(text) > MAX_QUESTION:
        raise ValueError(f"question must have 1 to {MAX_QUESTION} characters, got {len(text)}")
    return text


class PollStore:
    """Polls in the database of a :class:`~app.ledger_store.LedgerStore`; thread-safe. ``clock`` gives the time
    (tests pass their own, so no test waits for a time limit)."""

    def __init__(self, store: ls.LedgerStore, *, clock: Callable[[], datetime] = _now) -> None:
        self.store = store
        self.engine = store.engine
        self.clock = clock
        self._ready = False
        self._lock = threading.Lock()
        # single reads need no transaction on a server database (see LedgerStore); SQLite keeps its own settings
        self._reader = self.engine if store.sqlite else self.engine.execution_options(isolation_level="AUTOCOMMIT")

    def _prepare(self, *, create: bool) -> bool:
        if self._ready:
            return True
        if not self.store.prepare(create=create):
            return False
        with self._lock:
            if not self._ready:
                try:
                    metadata.create_all(self.engine)
                except (sa.exc.IntegrityError, sa.exc.ProgrammingError) as exc:  # another replica, same moment
                    if isinstance(exc, sa.exc.ProgrammingError) and "already exists" not in str(exc):
                        raise
                    metadata.create_all(self.engine)
                self._ready = True
        return True

    def _guard(self, fn: Callable[[], Any], *, create: bool) -> Any:
        try:
            if not self._prepare(create=create):
                return None
            return fn()
        except ls.StoreUnavailable:
            raise
        except (sa.exc.SQLAlchemyError, OSError) as exc:
            raise ls.StoreUnavailable(
                f"the poll database ({self.store.describe()}) cannot be used: {ls.plain_error(exc)}"
            ) from exc

    # ---- the teacher -------------------------------------------------------------------------------------------
    def create(self, question: str, epsilon: float, minutes: float) -> Poll:
        """A new open poll under a fresh id and join code; it closes ``minutes`` from now at the latest."""
        text = clean_question(question)
        rr.truth_probability(epsilon)  # ValueError naming epsilon unless 0 < ε < ∞
        if not float(epsilon) <= MAX_EPSILON:
            raise ValueError(f"epsilon must be in (0, {MAX_EPSILON:g}], got {epsilon!r}")
        if isinstance(minutes, bool) or not isinstance(minutes, int | float) or not 0 < minutes <= MAX_MINUTES:
            raise ValueError(f"minutes must be in (0, {MAX_MINUTES}], got {minutes!r}")
        poll_id, now = ls.new_id(), self.clock()
        closes = now + timedelta(minutes=float(minutes))

        def run() -> Poll:
            for _ in range(8):  # a code already taken (one chance in ~10⁸ per open poll): draw another
                code = _new_code()
                try:
                    with self.engine.begin() as conn:
                        conn.execute(
                            polls.insert().values(
                                id=poll_id,
                                code=code,
                                question=text,
                                epsilon=float(epsilon),
                                created_at=now,
                                closes_at=closes,
                                stopped_at=None,
                                answers=0,
                                yes=0,
                            )
                        )
                except sa.exc.IntegrityError:
                    continue
                return Poll(poll_id, code, text, float(epsilon), now, closes, None, 0, 0)
            raise ls.StoreUnavailable("no free join code was found; try again")

        return self._guard(run, create=True)

    def stop(self, poll_id: str) -> Poll:
        """Close the poll now (nothing changes if it is closed already)."""
        if not is_poll_id(poll_id):
            raise PollNotFound(poll_id)

        def run() -> Poll:
            now = self.clock()
            with self.engine.begin() as conn:
                row = conn.execute(_BY_ID.with_for_update(), {"id": poll_id}).first()
                if row is None:
                    raise PollNotFound(poll_id)
                poll = _poll(row)
                if not poll.is_open(now):
                    return poll
                conn.execute(polls.update().where(polls.c.id == poll_id).values(stopped_at=now))
            return replace(poll, stopped_at=now)

        result = self._guard(run, create=False)
        if result is None:
            raise PollNotFound(poll_id)
        return result

    # ---- reading -----------------------------------------------------------------------------------------------
    def _read(self, statement: Any, params: Mapping[str, str]) -> Poll | None:
        def run() -> Poll | None:
            with self._reader.connect() as conn:
                row = conn.execute(statement, dict(params)).first()
            return None if row is None else _poll(row)

        return self._guard(run, create=False)

    def by_id(self, poll_id: str) -> Poll | None:
        """The poll with this (capability) id, or None."""
        return self._read(_BY_ID, {"id": poll_id}) if is_poll_id(poll_id) else None

    def by_code(self, code: str) -> Poll | None:
        """The poll with this join code (any case, spaces around it ignored), or None."""
        code = normal_code(code)
        return self._read(_BY_CODE, {"code": code}) if is_code(code) else None

    def has_answered(self, poll: Poll, token: str) -> bool:
        """Whether the browser with this token has answered ``poll``."""

        def run() -> bool:
            with self._reader.connect() as conn:
                return (
                    conn.execute(
                        sa.select(voters.c.voter).where(
                            voters.c.poll_id == poll.id, voters.c.voter == voter_digest(poll.id, token)
                        )
                    ).first()
                    is not None
                )

        return bool(self._guard(run, create=False))

    # ---- a phone -----------------------------------------------------------------------------------------------
    def answer(self, code: str, token: str, reported_yes: bool) -> Poll:
        """Count one report (the answer after the coin: ``reported_yes``) from the browser with ``token``.

        Raises :class:`PollNotFound`, :class:`PollClosed` or :class:`AlreadyAnswered`; nothing is written then."""
        if not isinstance(reported_yes, bool):
            raise ValueError(f"reported_yes must be True or False, got {reported_yes!r}")
        if not isinstance(token, str) or not token:
            raise ValueError("token must be the browser's token (text)")
        code = normal_code(code)
        if not is_code(code):
            raise PollNotFound(code)

        def run() -> Poll:
            now = self.clock()
            with self.engine.begin() as conn:  # SQLite: BEGIN IMMEDIATE (the write lock first)
                row = conn.execute(_BY_CODE.with_for_update(), {"code": code}).first()
                if row is None:
                    raise PollNotFound(code)
                poll = _poll(row)
                if not poll.is_open(now):
                    raise PollClosed(poll)
                digest = voter_digest(poll.id, token)
                if (
                    conn.execute(
                        sa.select(voters.c.voter).where(voters.c.poll_id == poll.id, voters.c.voter == digest)
                    ).first()
                    is not None
                ):
                    raise AlreadyAnswered(poll)
                conn.execute(voters.insert().values(poll_id=poll.id, voter=digest))
                conn.execute(
                    polls.update()
                    .where(polls.c.id == poll.id)
                    .values(answers=polls.c.answers + 1, yes=polls.c.yes + int(reported_yes))
                )
            return replace(poll, answers=poll.answers + 1, yes=poll.yes + int(reported_yes))

        result = self._guard(run, create=False)
        if result is None:  # no database file yet: no poll was ever started here
            raise PollNotFound(code)
        return result


@functools.cache
def _poll_store_of(ledgers: ls.LedgerStore) -> PollStore:
    return PollStore(ledgers)


def get_poll_store(env: Mapping[str, str] | None = None) -> PollStore:
    """The process-wide poll store, in the ledgers' database (their engine and connection pool)."""
    return _poll_store_of(ls.get_store(env))
