"""Fixtures for the ledger-store tests: a throw-away SQLite directory and a real PostgreSQL server.

The PostgreSQL server is started once per test session by the tests themselves (``initdb`` and ``pg_ctl`` in a
temporary directory, on a free loopback port, as the ``postgres`` user when the tests run as root) and stopped at the
end. Without PostgreSQL installed (Debian: ``make postgres``) its tests are skipped, except under ``CI=true`` where a
missing server is a failure.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import ledger_store as ls
from deploy.postgres import PostgresServer, bindir


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    found = bindir()
    if found is None:
        message = "PostgreSQL (initdb, pg_ctl) is not installed: run `make postgres`"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    server = PostgresServer(found)
    try:
        server.start()
    except subprocess.CalledProcessError as exc:
        server.cleanup()
        pytest.fail(f"PostgreSQL did not start: {exc.stderr[-2000:]}")
    yield server
    server.cleanup()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path: Path) -> str:
    """A fresh, empty ledger database of each kind (PostgreSQL: a new database on the session's server)."""
    if request.param == "sqlite":
        return ls.database_url({ls.DATA_DIR_ENV: str(tmp_path / "data")})
    server = request.getfixturevalue("postgresql_server")
    return server.create_database(f"t{os.getpid()}_{abs(hash(request.node.nodeid)) % 10**9}")


@pytest.fixture(scope="session")
def postgresql_server(postgres: PostgresServer) -> PostgresServer:
    return postgres


@pytest.fixture
def store(store_url: str) -> Iterator[ls.LedgerStore]:
    s = ls.LedgerStore(store_url)
    yield s
    s.dispose()
