"""Faults: a server killed in the middle of a write leaves no partial entry; a read-only or full data directory and a
database that is down raise StoreUnavailable with a readable reason (the app then keeps the ledger in memory and
says so: tests/app/test_ledger_page.py), and the stored ledger is intact afterwards."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app import ledger_store as ls
from dpcore import ledger as dl

ROOT = Path(__file__).resolve().parents[2]

# The child adds a release and stops for good between writing its entry and updating the snapshot row (inside the
# one transaction); the parent kills it there with SIGKILL, as a crashed or killed server would die.
CHILD = textwrap.dedent("""
    import sys, time
    import sqlalchemy as sa
    from app import ledger_store as ls
    from dpcore import ledger as dl
    store = ls.LedgerStore(sys.argv[1])

    @sa.event.listens_for(store.engine, "before_cursor_execute")
    def stop_mid_write(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("UPDATE DPX_LEDGERS"):
            print("MID-WRITE", flush=True)
            time.sleep(600)

    store.add(sys.argv[2], dl.pure_release(0.1, label="never stored", source="test"))
""")


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}


def test_server_killed_mid_write_leaves_no_partial_entry(store: ls.LedgerStore, store_url: str):
    snap = store.create(dl.Ledger(3.0, 1e-5))
    assert store.add(snap.id, dl.pure_release(0.2, label="kept", source="test")).accepted
    before = store.load(snap.id)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, store_url, snap.id],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = child.stdout.readline()
        assert line.strip() == "MID-WRITE", child.stderr.read()
        # the entry row is written (uncommitted) at this point: the kill lands inside the transaction
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
    after = store.load(snap.id)
    assert after == before  # snapshot unchanged …
    history = store.history(snap.id)
    assert [e.seq for e in history] == list(range(1, before.seq + 1))  # … and no entry beyond it
    assert all(e.data.get("release", {}).get("label") != "never stored" for e in history)
    assert ls.replay(history) == (after.ledger, after.refusals)
    # the killed writer's lock is gone: the next write goes through at once
    out = store.add(snap.id, dl.pure_release(0.1, label="next", source="test"))
    assert out.accepted and out.snapshot.seq == before.seq + 1


READ_ONLY_CHILD = textwrap.dedent("""
    import sys
    from app import ledger_store as ls
    from dpcore import ledger as dl
    store = ls.LedgerStore(sys.argv[1])
    try:
        print("READ", len(store.load(sys.argv[2]).ledger.releases), flush=True)
    except ls.StoreUnavailable as exc:
        print("UNAVAILABLE", exc, flush=True)
    try:
        store.add(sys.argv[2], dl.pure_release(0.1, label="x", source="test"))
    except ls.StoreUnavailable as exc:
        print("UNAVAILABLE", exc, flush=True)
    try:
        store.create()
    except ls.StoreUnavailable as exc:
        print("UNAVAILABLE", exc, flush=True)
""")


def test_read_only_data_directory(tmp_path: Path):
    data = tmp_path / "data"
    url = ls.database_url({ls.DATA_DIR_ENV: str(data)})
    store = ls.LedgerStore(url)
    snap = store.create(dl.Ledger(3.0, 1e-5, releases=(dl.pure_release(0.5, label="a", source="t"),)))
    store.dispose()
    for p in (data, *data.iterdir()):
        p.chmod(0o555 if p.is_dir() else 0o444)
    tmp_path.chmod(0o755)
    prefix = []
    if os.geteuid() == 0:  # root ignores file permissions: run the reader without the capability that lets it
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.fail("running as root needs util-linux's setpriv to drop the permission-override capability")
        prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    try:
        out = subprocess.run(
            [*prefix, sys.executable, "-c", READ_ONLY_CHILD, url, snap.id],
            cwd=ROOT,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        for p in (data, *data.iterdir()):
            p.chmod(0o755 if p.is_dir() else 0o644)
    lines = out.stdout.splitlines()
    assert out.returncode == 0, out.stderr[-2000:]
    assert len(lines) == 3, out.stdout
    assert lines[0] == "READ 1" or lines[0].startswith("UNAVAILABLE the ledger database")
    assert all(line.startswith("UNAVAILABLE the ledger database") for line in lines[1:])
    assert "readonly" in out.stdout.lower() or "read-only" in out.stdout.lower() or "unable to open" in out.stdout
    assert ls.LedgerStore(url).load(snap.id).ledger == snap.ledger  # untouched


FULL_CHILD = textwrap.dedent("""
    import resource, signal, sys
    from app import ledger_store as ls
    from dpcore import ledger as dl
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG, as on a full disk
    store = ls.LedgerStore(sys.argv[1])
    ledger_id = sys.argv[2]
    store.load(ledger_id)
    limit = int(sys.argv[3])
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    label = "x" * 80
    n = 0
    try:
        for i in range(100000):
            store.add(ledger_id, dl.pure_release(1e-6, label=label, source="test"))
            n += 1
    except ls.StoreUnavailable as exc:
        print("UNAVAILABLE", n, exc, flush=True)
""")


def test_full_disk(tmp_path: Path):
    url = ls.database_url({ls.DATA_DIR_ENV: str(tmp_path / "data")})
    store = ls.LedgerStore(url)
    snap = store.create(dl.Ledger(3.0, 1e-5, "basic"))
    size = sum(p.stat().st_size for p in (tmp_path / "data").iterdir())
    store.dispose()
    out = subprocess.run(
        [sys.executable, "-c", FULL_CHILD, url, snap.id, str(size + 64 * 1024)],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("UNAVAILABLE"), out.stdout + out.stderr[-2000:]
    written = int(out.stdout.split()[1])
    assert "full" in out.stdout or "disk" in out.stdout or "I/O" in out.stdout, out.stdout
    store = ls.LedgerStore(url)
    got = store.load(snap.id)  # every acknowledged write is there, nothing half-written
    assert len(got.ledger.releases) == written and got.seq == 1 + written
    assert ls.replay(store.history(snap.id)) == (got.ledger, got.refusals)
    store.dispose()


def test_database_down_and_back(postgresql_server):
    store = ls.LedgerStore(postgresql_server.url, connect_timeout=2)
    snap = store.create(dl.Ledger(3.0, 1e-5))
    postgresql_server.stop("fast")
    try:
        with pytest.raises(ls.StoreUnavailable, match="cannot be used"):
            store.add(snap.id, dl.pure_release(0.1, label="while down", source="test"))
        with pytest.raises(ls.StoreUnavailable):
            store.load(snap.id)
    finally:
        postgresql_server.restart()
    got = store.load(snap.id)  # the pool reconnects (pre-ping) and nothing was half-written
    assert got.ledger.releases == () and got.seq == 1
    assert store.add(snap.id, dl.pure_release(0.1, label="after", source="test")).accepted
    store.dispose()


def test_unreachable_server_fails_fast():
    store = ls.LedgerStore("postgresql+psycopg://nobody@127.0.0.1:9/none", connect_timeout=2)
    with pytest.raises(ls.StoreUnavailable, match="cannot be used") as info:
        store.create()
    assert "nobody@" not in str(info.value) or "…@" in str(info.value)
