"""The ledger store on SQLite and on a real PostgreSQL server: what is written is what is read back after a restart,
the history replays to the snapshot, and parallel writers (threads and processes) can never overspend a budget.

The number of releases a budget admits is computed independently, in closed form: the privacy filter of Rogers et al.
(2023) at session (ε, δ), with half of δ for the zCDP → DP conversion, admits total ρ ≤ (√(L + ε) − √L)²,
L = ln(1/δ'') with δ'' = δ/2 (Bun & Steinke 2016, Prop 1.3 solved for ρ), and a pure ε₀ release costs ρ = ε₀²/2
(Prop 1.4); basic composition admits Σε ≤ ε.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app import ledger_store as ls
from dpcore import ledger as dl

BUDGET_EPS, BUDGET_DELTA, EPS0 = 3.0, 1e-5, 0.1
L = math.log(1 / (BUDGET_DELTA / 2))
RHO_STAR = (math.sqrt(L + BUDGET_EPS) - math.sqrt(L)) ** 2
FITS = math.floor(RHO_STAR / (EPS0**2 / 2))  # pure ε₀ releases the filter admits


def release(i: int, eps: float = EPS0) -> dl.Release:
    return dl.pure_release(eps, label=f"release {i}", source="test")


def test_scenario_is_not_on_a_boundary():
    assert FITS == 32
    assert FITS * EPS0**2 / 2 < RHO_STAR * (1 - 1e-3) and (FITS + 1) * EPS0**2 / 2 > RHO_STAR * (1 + 1e-3)


def test_database_url_from_the_environment(tmp_path: Path):
    assert ls.database_url({ls.DATA_DIR_ENV: str(tmp_path)}) == f"sqlite:///{tmp_path / ls.SQLITE_FILE}"
    assert ls.database_url({}).endswith(f"/{ls.DEFAULT_DATA_DIR}/{ls.SQLITE_FILE}")
    assert ls.database_url({"DATABASE_URL": "postgres://u:p@h:5432/d"}) == "postgresql+psycopg://u:p@h:5432/d"
    assert ls.database_url({"DATABASE_URL": "postgresql://h/d", ls.DATA_DIR_ENV: "x"}) == "postgresql+psycopg://h/d"
    with pytest.raises(ValueError, match="url"):
        ls.LedgerStore("sqlite://")


def test_ids_are_unguessable_and_checked():
    ids = {ls.new_id() for _ in range(2000)}
    assert len(ids) == 2000 and all(ls.is_ledger_id(i) for i in ids)
    assert all(len(i) == 22 for i in ids)  # 16 random bytes, URL-safe base64
    for bad in ("", "abc", "x" * 23, "a" * 21 + "/", "a" * 21 + "'", None, 12):
        assert not ls.is_ledger_id(bad)


def test_nothing_is_created_by_reading(tmp_path: Path):
    s = ls.LedgerStore(ls.database_url({ls.DATA_DIR_ENV: str(tmp_path / "data")}))
    assert s.load(ls.new_id()) is None and s.seq(ls.new_id()) is None and s.history(ls.new_id()) == []
    assert not (tmp_path / "data").exists()


def test_write_read_restart_and_replay(store: ls.LedgerStore):
    t0 = datetime.now(UTC) - timedelta(seconds=1)
    snap = store.create(dl.Ledger(BUDGET_EPS, BUDGET_DELTA))
    g = dl.gaussian_release(4.0, delta=1e-6, compositions=3, label="mean of ages", source="baselines")
    assert store.add(snap.id, g).accepted
    assert store.add(snap.id, release(1)).accepted
    big = dl.pure_release(2.5, label="too big", source="test")
    out = store.add(snap.id, big)
    assert not out.accepted and "left" in out.reason
    store.set_budget(snap.id, 20.0, 1e-4, "basic")
    store.remove_last(snap.id)
    nr = dl.noise_reduction_release(0.4, epsilon_max=1.0, label="noise reduction", source="noise_reduction")
    assert store.add(snap.id, nr).accepted
    again = ls.LedgerStore(str(store.url.render_as_string(hide_password=False)))  # a restarted server
    try:
        got = again.load(snap.id)
    finally:
        again.dispose()
    assert got.ledger == dl.Ledger(20.0, 1e-4, "basic", (g, nr))
    assert got.refusals == ({"label": "too big", "source": "test", "kind": "pure", "reason": out.reason},)
    history = store.history(snap.id)
    assert [e.op for e in history] == ["create", "add", "add", "refuse", "budget", "remove_last", "add"]
    assert [e.seq for e in history] == list(range(1, 8)) and got.seq == 7
    assert all(t0 <= e.at <= datetime.now(UTC) + timedelta(seconds=1) for e in history)
    assert all(a.at <= b.at for a, b in zip(history, history[1:], strict=False))
    assert ls.replay(history) == (got.ledger, got.refusals)
    # clear, then the exported JSON imported back through the store gives the same ledger
    exported = got.ledger.to_json()
    store.clear(snap.id)
    assert store.load(snap.id).ledger.releases == ()
    store.replace(snap.id, dl.from_json(exported))
    store.clear_log(snap.id)
    final = store.load(snap.id)
    assert final.ledger.to_json() == exported and final.refusals == ()
    assert ls.replay(store.history(snap.id)) == (final.ledger, final.refusals)
    # a no-op writes nothing
    store.clear_log(snap.id)
    store.set_budget(snap.id, 20.0, 1e-4, "basic")
    assert store.load(snap.id).seq == final.seq


def test_accept_and_refuse_match_the_closed_form(store: ls.LedgerStore):
    snap = store.create(dl.Ledger(BUDGET_EPS, BUDGET_DELTA))
    outcomes = [store.add(snap.id, release(i)).accepted for i in range(FITS + 3)]
    assert outcomes == [True] * FITS + [False] * 3
    basic = store.create(dl.Ledger(1.0, 1e-6, "basic"))
    outcomes = [store.add(basic.id, release(i, 0.3)).accepted for i in range(5)]
    assert outcomes == [True, True, True, False, False]  # 3 × 0.3 ≤ 1 < 4 × 0.3
    assert store.load(basic.id).refusals[0]["reason"].startswith("basic composition has ε = 0.1 left")


def test_unknown_and_malformed_ids(store: ls.LedgerStore):
    store.create()
    assert store.load(ls.new_id()) is None
    assert store.load("'; drop table dpx_ledgers; --") is None
    with pytest.raises(ls.LedgerNotFound):
        store.add(ls.new_id(), release(0))
    with pytest.raises(ls.LedgerNotFound):
        store.clear("not an id")
    with pytest.raises(ValueError, match="release"):
        store.add(store.create().id, {"label": "x"})


def _check_no_overspend(store: ls.LedgerStore, ledger_id: str, attempts: int) -> None:
    got = store.load(ledger_id)
    assert len(got.ledger.releases) == FITS  # exactly what the budget admits, whatever the interleaving
    assert len(got.refusals) == attempts - FITS
    assert not got.ledger.over_budget
    assert got.seq == 1 + attempts
    history = store.history(ledger_id)
    assert [e.seq for e in history] == list(range(1, attempts + 2))
    assert ls.replay(history) == (got.ledger, got.refusals)


def test_parallel_threads_never_overspend(store: ls.LedgerStore):
    snap = store.create(dl.Ledger(BUDGET_EPS, BUDGET_DELTA))
    n = 48
    barrier = threading.Barrier(n)
    results, errors = [], []

    def writer(i: int) -> None:
        barrier.wait()
        try:
            results.append(store.add(snap.id, release(i)).accepted)
        except Exception as exc:  # noqa: BLE001 — reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert sum(results) == FITS and len(results) == n
    _check_no_overspend(store, snap.id, n)


def _process_writer(url: str, ledger_id: str, first: int, count: int, start, queue) -> None:
    s = ls.LedgerStore(url)
    start.wait()
    try:
        queue.put([s.add(ledger_id, release(first + k)).accepted for k in range(count)])
    except Exception as exc:  # noqa: BLE001 — reported by the parent
        queue.put(repr(exc))
    finally:
        s.dispose()


def test_parallel_processes_never_overspend(store: ls.LedgerStore, store_url: str):
    snap = store.create(dl.Ledger(BUDGET_EPS, BUDGET_DELTA))
    ctx = mp.get_context("fork")  # each child opens its own engine and connections
    n, each = 4, 12
    start, queue = ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(target=_process_writer, args=(store_url, snap.id, k * each, each, start, queue)) for k in range(n)
    ]
    for p in procs:
        p.start()
    start.set()
    got = [queue.get(timeout=180) for _ in procs]
    for p in procs:
        p.join(60)
    assert all(isinstance(g, list) for g in got), got
    assert sum(map(sum, got)) == FITS
    _check_no_overspend(store, snap.id, n * each)


def test_snapshot_json_is_the_ledger_export(store: ls.LedgerStore):
    led = dl.Ledger(2.0, 1e-6, "filter", (release(1),))
    snap = store.create(led)
    assert json.loads(ls.ledger_from_json(led.to_json()).to_json()) == json.loads(led.to_json())
    assert store.load(snap.id).ledger == led


# ---- data at rest: this user's alone ------------------------------------------------------------------------------


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


@pytest.fixture
def usual_umask():
    """The umask most systems start with (022: new files readable by everyone) while the test runs."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_sqlite_data_directory_and_files_are_private(tmp_path: Path, usual_umask):
    data = tmp_path / "data"
    store = ls.LedgerStore(ls.database_url({ls.DATA_DIR_ENV: str(data)}))
    try:
        snap = store.create(dl.Ledger(BUDGET_EPS, BUDGET_DELTA))
        assert store.add(snap.id, release(1)).accepted
        files = sorted(data.iterdir())
        names = {p.name for p in files}
        assert ls.SQLITE_FILE in names and f"{ls.SQLITE_FILE}-wal" in names, names  # written, not yet checkpointed
        assert _mode(data) == 0o700
        assert {p.name: _mode(p) for p in files} == {p.name: 0o600 for p in files}
    finally:
        store.dispose()


def test_an_older_world_readable_ledger_file_is_narrowed(tmp_path: Path, usual_umask):
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    url = ls.database_url({ls.DATA_DIR_ENV: str(data)})
    old = ls.LedgerStore(url)
    snap = old.create(dl.Ledger(BUDGET_EPS, BUDGET_DELTA))
    old.dispose()
    for p in data.iterdir():
        p.chmod(0o644)  # as an older version left it
    store = ls.LedgerStore(url)
    try:
        assert store.load(snap.id) is not None
        assert {p.name: _mode(p) for p in data.iterdir()} == {p.name: 0o600 for p in data.iterdir()}
        assert _mode(data) == 0o755, "an existing directory (perhaps shared on purpose) is left as it is"
    finally:
        store.dispose()


def test_private_helpers_create_with_the_narrow_mode(tmp_path: Path, usual_umask):
    """The helpers other stores in the data directory use: a file never exists with a wider mode, not even briefly
    (it is created 0600, not chmod-ed after), and a missing directory is made 0700 with its parents."""
    made = ls.private_dir(tmp_path / "a" / "b")
    assert made.is_dir() and _mode(made) == 0o700
    f = ls.private_file(made / "poll.sqlite3")
    assert f.exists() and f.stat().st_size == 0 and _mode(f) == 0o600
    assert ls.private_file(f) == f and _mode(f) == 0o600  # idempotent
    db = ls.private_sqlite_file(tmp_path / "c" / "x.sqlite3")
    assert _mode(db.parent) == 0o700 and _mode(db) == 0o600
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o1777)
    shared.chmod(0o1777)
    ls.private_dir(shared)
    assert _mode(shared) == 0o777, "an existing shared directory such as /tmp is never changed"


def test_the_cluster_database_refuses_a_connection_without_its_password(postgresql_server, monkeypatch):
    import psycopg

    for var in ("PGPASSWORD", "PGPASSFILE", "PGSERVICE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PGPASSFILE", os.devnull)
    pg = postgresql_server
    assert len(pg.password) >= 20 and pg.password in pg.url
    assert _mode(pg.password_file) == 0o600
    base = f"port={pg.port} user=postgres dbname=dpx connect_timeout=10"
    for attempt in (
        f"host=127.0.0.1 {base}",
        f"host=127.0.0.1 {base} password=wrong",
        f"host={pg.root} {base}",
    ):  # over TCP, with a wrong password, and over its own socket
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(attempt).close()
    with psycopg.connect(f"host=127.0.0.1 {base} password={pg.password}") as conn:
        assert conn.execute("SELECT current_setting('password_encryption')").fetchone()[0] == "scram-sha-256"
        rows = conn.execute("SELECT DISTINCT auth_method FROM pg_hba_file_rules").fetchall()
        assert rows == [("scram-sha-256",)], rows
    without = ls.LedgerStore(pg.url.replace(f":{pg.password}@", "@"), connect_timeout=5)
    try:
        with pytest.raises(ls.StoreUnavailable, match="password"):
            without.create()
    finally:
        without.dispose()


def test_a_cluster_made_without_a_password_gets_one_on_its_next_start(postgres, monkeypatch):
    """``make cluster`` keeps its database between runs: one made by an older version (trust authentication, no
    password) is given a password and SCRAM authentication when it starts again, and keeps its ledgers."""
    import psycopg

    from deploy.postgres import PostgresServer

    monkeypatch.setenv("PGPASSFILE", os.devnull)
    monkeypatch.delenv("PGPASSWORD", raising=False)
    old = PostgresServer(postgres.bindir)
    try:
        old.run("initdb", "-D", str(old.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        old._pg_ctl_start()
        old.create_database("dpx")
        assert old.password == ""
        store = ls.LedgerStore(old.url)  # no password needed yet
        snap = store.create(dl.Ledger(BUDGET_EPS, BUDGET_DELTA))
        store.dispose()
        old.stop()
        again = PostgresServer(postgres.bindir, root=old.root, port=old.port)
        again.start()
        assert len(again.password) >= 20 and _mode(again.password_file) == 0o600
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(f"host=127.0.0.1 port={again.port} user=postgres dbname=dpx connect_timeout=10").close()
        store = ls.LedgerStore(again.url)
        try:
            assert store.load(snap.id).ledger == dl.Ledger(BUDGET_EPS, BUDGET_DELTA)
        finally:
            store.dispose()
    finally:
        old.cleanup()
