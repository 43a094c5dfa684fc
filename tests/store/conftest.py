"""Fixtures for the ledger-store tests: a throw-away SQLite directory and a real PostgreSQL server.

The PostgreSQL server is started once per test session by the tests themselves (``initdb`` and ``pg_ctl`` in a
temporary directory, on a free loopback port, as the ``postgres`` user when the tests run as root) and stopped at the
end. Without PostgreSQL installed (Debian: ``make postgres``) its tests are skipped, except under ``CI=true`` where a
missing server is a failure.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import ledger_store as ls


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pg_bindir() -> Path | None:
    """Directory holding initdb and pg_ctl (Debian keeps them off PATH under /usr/lib/postgresql/<version>/bin)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


class PostgresServer:
    """A private PostgreSQL cluster in a temporary directory (trust authentication, loopback only)."""

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="dpx-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.user = None
        if os.geteuid() == 0:  # initdb refuses to run as root: run the server as the postgres user
            try:
                self.user = pwd.getpwnam("postgres")
            except KeyError:
                self.user = pwd.getpwnam("nobody")
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        def demote() -> None:
            if self.user is not None:
                os.setgid(self.user.pw_gid)
                os.setuid(self.user.pw_uid)

        env = {"PATH": f"{self.bindir}:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": str(self.root)}
        return subprocess.run([str(self.bindir / args[0]), *args[1:]], preexec_fn=demote, env=env, cwd=self.root,
                              capture_output=True, text=True, timeout=120, check=check)

    def start(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        opts = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=on "
                "-c max_connections=100 -c shared_buffers=32MB")
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"), "-w", "-t", "60", "start")
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "dpx")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self) -> None:
        opts = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=on "
                "-c max_connections=100 -c shared_buffers=32MB")
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"), "-w", "-t", "60", "start")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/dpx"

    def cleanup(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    bindir = pg_bindir()
    if bindir is None or not (bindir / "pg_ctl").exists():
        message = "PostgreSQL (initdb, pg_ctl) is not installed: run `make postgres`"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    server = PostgresServer(bindir)
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
    name = f"t{os.getpid()}_{abs(hash(request.node.nodeid)) % 10**9}"
    server._run("createdb", "-h", "127.0.0.1", "-p", str(server.port), "-U", "postgres", name)
    return f"postgresql+psycopg://postgres@127.0.0.1:{server.port}/{name}"


@pytest.fixture(scope="session")
def postgresql_server(postgres: PostgresServer) -> PostgresServer:
    return postgres


@pytest.fixture
def store(store_url: str) -> Iterator[ls.LedgerStore]:
    s = ls.LedgerStore(store_url)
    yield s
    s.dispose()
