"""A private PostgreSQL server in a temporary directory (``initdb`` + ``pg_ctl``, loopback only, password required).

Used by the store tests (started and stopped by the tests themselves) and by ``make cluster``. As root the server
runs as the ``postgres`` user (initdb refuses root). Debian keeps the binaries in /usr/lib/postgresql/<version>/bin.

The server asks every connection, over TCP and over its socket, for the password of its one role (SCRAM-SHA-256):
another user of the machine cannot read or change the ledgers. The password is generated when the cluster is made,
kept in ``<root>/password`` (mode 0600) and handed to the app inside ``DATABASE_URL`` (:attr:`PostgresServer.url`).
A cluster made by an older version without a password (trust authentication) gets one on its next start.
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def free_port() -> int:
    """A TCP port nothing listens on right now (loopback)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bindir() -> Path | None:
    """Directory holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    return Path(on_path).parent if on_path and shutil.which("initdb") else None


#: Who may connect how (what initdb --auth=scram-sha-256 writes): everyone, locally and over loopback, with the
#: password only.
HBA = """local all all scram-sha-256
host all all 127.0.0.1/32 scram-sha-256
host all all ::1/128 scram-sha-256
local replication all scram-sha-256
host replication all 127.0.0.1/32 scram-sha-256
host replication all ::1/128 scram-sha-256
"""


class PostgresServer:
    """One throw-away PostgreSQL cluster: :meth:`start`, :meth:`stop`, :meth:`restart`, :meth:`cleanup`."""

    def __init__(self, bin_dir: Path, root: Path | None = None, port: int | None = None):
        self.bindir = bin_dir
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="dpx-pg-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self.data = self.root / "data"
        self.port = port or free_port()
        self.user = None
        self.password_file = self.root / "password"
        self.password = self.password_file.read_text().strip() if self.password_file.exists() else ""
        if os.geteuid() == 0:
            try:
                self.user = pwd.getpwnam("postgres")
            except KeyError:
                self.user = pwd.getpwnam("nobody")
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)

    def _new_password(self) -> None:
        """Generate the role's password (128 random bits, URL-safe: it goes into ``DATABASE_URL`` as it is) and keep it
        in :attr:`password_file`, readable by its owner only (the server's user reads it for initdb)."""
        self.password = secrets.token_urlsafe(16)
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(self.password + "\n")
        if self.user is not None:
            os.chown(self.password_file, self.user.pw_uid, self.user.pw_gid)

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        """Run one of the server's programs (as the server's user)."""
        user = self.user

        def demote() -> None:
            if user is not None:
                os.setgid(user.pw_gid)
                os.setuid(user.pw_uid)

        env = {
            "PATH": f"{self.bindir}:/usr/bin:/bin",
            "LC_ALL": "C.UTF-8",
            "HOME": str(self.root),
            "PGPASSWORD": self.password,
        }
        return subprocess.run(
            [str(self.bindir / args[0]), *args[1:]],
            preexec_fn=demote,
            env=env,
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=120,
            check=check,
        )

    def _pg_ctl_start(self) -> None:
        opts = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=32MB"
        )
        self.run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"), "-w", "-t", "60", "start")

    def start(self, database: str = "dpx") -> None:
        """initdb with a generated password (first time only), start, and create ``database``."""
        if not (self.data / "PG_VERSION").exists():
            self._new_password()
            self.run(
                "initdb",
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "--auth=scram-sha-256",
                f"--pwfile={self.password_file}",
                "-E",
                "UTF8",
                "--no-sync",
            )
        elif not self.password:  # made by an older version with trust authentication: give it a password now
            self._pg_ctl_start()
            self._new_password()
            self.run(
                "psql",
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                "postgres",
                "-d",
                "postgres",
                "-q",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                f"ALTER ROLE postgres PASSWORD '{self.password}'",
            )
            self.stop()
            (self.data / "pg_hba.conf").write_text(HBA)
        self._pg_ctl_start()
        self.create_database(database)

    def create_database(self, name: str) -> str:
        """Create a database (no error if it exists); return its SQLAlchemy URL."""
        self.run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name, check=False)
        return self.url_for(name)

    def stop(self, mode: str = "fast") -> None:
        self.run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self) -> None:
        """Start again after :meth:`stop` (same port and data)."""
        self._pg_ctl_start()

    def url_for(self, database: str) -> str:
        """The SQLAlchemy URL of ``database``, with the password (the only way in)."""
        return f"postgresql+psycopg://postgres:{self.password}@127.0.0.1:{self.port}/{database}"

    @property
    def url(self) -> str:
        return self.url_for("dpx")

    def cleanup(self) -> None:
        """Stop at once and delete the directory."""
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
