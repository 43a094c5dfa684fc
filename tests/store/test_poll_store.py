"""The class polls' store on SQLite and on a real PostgreSQL server: a poll is found by its id and its join code,
counts each browser's report once (also when many answer at once, through several store instances as through
several replicas), closes on Stop and at its time limit (an injected clock: no test waits), and holds nothing of an
answer but the counts of reports after the coin."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from app import ledger_store as ls
from app import poll_store as ps

QUESTION = "Have you ever copied homework?"


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def polls(store: ls.LedgerStore, clock: Clock) -> Iterator[ps.PollStore]:
    yield ps.PollStore(store, clock=clock)


def _rows(store: ls.LedgerStore) -> dict[str, list[dict]]:
    with store.engine.connect() as conn:
        return {t.name: [dict(r._mapping) for r in conn.execute(sa.select(t))] for t in ps.metadata.sorted_tables}


def test_create_and_find_by_id_and_code(polls: ps.PollStore, clock: Clock):
    poll = polls.create(f"  {QUESTION}\n", 1.0, 10)
    assert poll.question == QUESTION and poll.epsilon == 1.0 and (poll.answers, poll.yes) == (0, 0)
    assert ps.is_poll_id(poll.id) and len(poll.id) == 22
    assert re.fullmatch(f"[{ps.CODE_ALPHABET}]{{6}}", poll.code)
    assert poll.closes_at == clock.now + timedelta(minutes=10) and poll.is_open(clock.now)
    assert polls.by_id(poll.id) == poll
    assert polls.by_code(poll.code.lower()) == poll and polls.by_code(f" {poll.code} ") == poll
    again = ps.PollStore(ls.LedgerStore(polls.store.url.render_as_string(hide_password=False)))  # a restart
    try:
        assert again.by_code(poll.code) == poll
    finally:
        again.store.dispose()
    other = polls.create(QUESTION, 0.5, 5)
    assert other.id != poll.id and other.code != poll.code


def test_each_browser_answers_once_and_only_reports_are_counted(polls: ps.PollStore):
    poll = polls.create(QUESTION, 1.0, 10)
    reports = [True, False, True, True, False]
    for i, reported in enumerate(reports):
        after = polls.answer(poll.code, f"browser-{i}", reported)
        assert (after.answers, after.yes) == (i + 1, sum(reports[: i + 1]))
    with pytest.raises(ps.AlreadyAnswered):
        polls.answer(poll.code, "browser-2", False)
    assert polls.has_answered(poll, "browser-2") and not polls.has_answered(poll, "browser-9")
    stored = polls.by_code(poll.code)
    assert (stored.answers, stored.yes) == (5, 3)
    second = polls.create("Another question?", 1.0, 10)  # the same browser may answer another poll
    assert polls.answer(second.code, "browser-2", True).answers == 1


def test_the_store_holds_counts_and_digests_only(polls: ps.PollStore, store: ls.LedgerStore):
    poll = polls.create(QUESTION, 2.0, 10)
    tokens = [f"token-{i}" for i in range(6)]
    for i, t in enumerate(tokens):
        polls.answer(poll.code, t, i % 3 == 0)
    rows = _rows(store)
    assert set(rows) == {"dpx_polls", "dpx_poll_voters"}
    (row,) = rows["dpx_polls"]
    assert set(row) == {"id", "code", "question", "epsilon", "created_at", "closes_at", "stopped_at", "answers", "yes"}
    assert (row["answers"], row["yes"]) == (6, 2)
    voters = rows["dpx_poll_voters"]
    assert [set(v) for v in voters] == [{"poll_id", "voter"}] * 6
    assert sorted(v["voter"] for v in voters) == sorted(ps.voter_digest(poll.id, t) for t in tokens)
    assert all(re.fullmatch("[0-9a-f]{64}", v["voter"]) and v["voter"] not in tokens for v in voters)


def test_closed_on_stop_and_at_the_time_limit(polls: ps.PollStore, clock: Clock):
    poll = polls.create(QUESTION, 1.0, 5)
    polls.answer(poll.code, "a", True)
    clock.now += timedelta(minutes=5) - timedelta(microseconds=1)
    polls.answer(poll.code, "b", True)  # the last moment before the limit
    clock.now += timedelta(microseconds=1)
    with pytest.raises(ps.PollClosed) as closed:
        polls.answer(poll.code, "c", True)
    assert closed.value.poll.answers == 2 and not closed.value.poll.is_open(clock.now)
    stopped = polls.create(QUESTION, 1.0, 60)
    polls.answer(stopped.code, "a", False)
    clock.now += timedelta(minutes=1)
    done = polls.stop(stopped.id)
    assert done.stopped_at == clock.now and done.ended_at == clock.now and not done.is_open(clock.now)
    with pytest.raises(ps.PollClosed):
        polls.answer(stopped.code, "b", False)
    assert polls.stop(stopped.id) == done  # stopping twice changes nothing
    assert polls.by_id(stopped.id).answers == 1


def test_unknown_and_malformed_codes_and_ids(polls: ps.PollStore):
    polls.create(QUESTION, 1.0, 5)
    for code in ("ZZZZZZ" if "Z" not in ps.CODE_ALPHABET else "000000", "", "ABC", "'; drop table dpx_polls; --"):
        assert polls.by_code(code) is None
        with pytest.raises(ps.PollNotFound):
            polls.answer(code, "a", True)
    unused = next(c for c in ("AAAAAA", "CCCCCC", "DDDDDD") if polls.by_code(c) is None)
    with pytest.raises(ps.PollNotFound):
        polls.answer(unused, "a", True)
    assert polls.by_id(ls.new_id()) is None and polls.by_id("x") is None
    with pytest.raises(ps.PollNotFound):
        polls.stop(ls.new_id())


@pytest.mark.parametrize(
    "args,name",
    [
        (("", 1.0, 5), "question"),
        (("x" * 201, 1.0, 5), "question"),
        ((None, 1.0, 5), "question"),
        ((QUESTION, 0.0, 5), "epsilon"),
        ((QUESTION, float("nan"), 5), "epsilon"),
        ((QUESTION, 51.0, 5), "epsilon"),
        ((QUESTION, 1.0, 0), "minutes"),
        ((QUESTION, 1.0, 241), "minutes"),
        ((QUESTION, 1.0, True), "minutes"),
    ],
)
def test_bad_polls_are_refused_with_the_parameter_named(polls: ps.PollStore, args, name):
    with pytest.raises(ValueError, match=name):
        polls.create(*args)


def test_a_report_must_be_yes_or_no(polls: ps.PollStore):
    poll = polls.create(QUESTION, 1.0, 5)
    with pytest.raises(ValueError, match="reported_yes"):
        polls.answer(poll.code, "a", 1)
    with pytest.raises(ValueError, match="token"):
        polls.answer(poll.code, "", True)


def test_reading_creates_nothing(tmp_path):
    store = ls.LedgerStore(ls.database_url({ls.DATA_DIR_ENV: str(tmp_path / "data")}))
    polls = ps.PollStore(store)
    assert polls.by_code("ACDEFG") is None and polls.by_id(ls.new_id()) is None
    with pytest.raises(ps.PollNotFound):
        polls.answer("ACDEFG", "a", True)
    assert not (tmp_path / "data").exists()


def test_many_phones_at_once_through_several_replicas(store: ls.LedgerStore, clock: Clock):
    """60 browsers answer at the same moment through three store instances (three replicas' engines): each report
    is counted once, and the 10 browsers that press twice are refused the second time."""
    url = store.url.render_as_string(hide_password=False)
    replicas = [ps.PollStore(ls.LedgerStore(url), clock=clock) for _ in range(3)]
    poll = replicas[0].create(QUESTION, 1.0, 10)
    jobs = [(f"phone-{i}", i % 4 == 0) for i in range(60)] + [(f"phone-{i}", i % 4 == 0) for i in range(10)]
    barrier = threading.Barrier(len(jobs))
    outcomes: list[str] = []
    lock = threading.Lock()

    def phone(k: int, token: str, reported: bool) -> None:
        barrier.wait()
        try:
            replicas[k % 3].answer(poll.code, token, reported)
            result = "counted"
        except ps.AlreadyAnswered:
            result = "refused"
        except Exception as exc:  # noqa: BLE001 — reported below
            result = f"{type(exc).__name__}: {exc}"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=phone, args=(k, t, r)) for k, (t, r) in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert sorted(set(outcomes)) == ["counted", "refused"], outcomes
        assert outcomes.count("counted") == 60 and outcomes.count("refused") == 10
        final = replicas[1].by_code(poll.code)
        assert (final.answers, final.yes) == (60, 15)
        assert len(_rows(store)["dpx_poll_voters"]) == 60
    finally:
        for r in replicas:
            r.store.dispose()


def test_get_poll_store_shares_the_ledgers_engine(tmp_path):
    env = {ls.DATA_DIR_ENV: str(tmp_path / "d")}
    assert ps.get_poll_store(env) is ps.get_poll_store(env)
    assert ps.get_poll_store(env).engine is ls.get_store(env).engine
