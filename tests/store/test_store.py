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
    procs = [ctx.Process(target=_process_writer, args=(store_url, snap.id, k * each, each, start, queue))
             for k in range(n)]
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
