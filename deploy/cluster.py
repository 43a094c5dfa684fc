"""A local multi-replica DP Explorer: N Streamlit processes behind nginx, sharing one PostgreSQL ledger store.

    python deploy/cluster.py [--replicas 3] [--port 8600] [--database-url URL]    (or: make cluster N=3)

Starts (all on loopback) a private PostgreSQL server in ``.dpx-data/cluster/postgres`` unless ``--database-url`` (or
``DATABASE_URL``) names one, N replicas on PORT+1 … PORT+N, and nginx on PORT with sticky sessions and WebSocket
upgrade (deploy/nginx.conf.template); waits until every replica answers ``/_stcore/health``, prints the address and
runs until Ctrl-C, then stops everything it started. The replicas share ``STREAMLIT_SERVER_COOKIE_SECRET`` so a
session that moves to another replica keeps a valid XSRF cookie. :class:`Cluster` is what bench/cluster.py uses.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deploy.postgres import PostgresServer, bindir  # noqa: E402

TEMPLATE = Path(__file__).with_name("nginx.conf.template")


def healthy(port: int, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=timeout) as r:
            return r.status == 200
    except OSError:
        return False


#: nginx's limits per client address (deploy/nginx.conf.template): connections at once, requests a second, and the
#: burst of requests served at once beyond that rate. A classroom behind one NAT router is one address: 40 students
#: with two tabs each hold about 80 WebSockets and a few keep-alive connections each, and a page load is about forty
#: requests.
LIMITS: dict[str, str] = {"CONNECTIONS_PER_ADDRESS": "512", "REQUEST_RATE": "50r/s", "REQUEST_BURST": "1000"}


def nginx_conf(run: Path, listen: int, ports: list[int], limits: dict[str, str] | None = None) -> str:
    """The nginx configuration for replicas on ``ports``, listening on ``listen``; ``limits`` overrides
    :data:`LIMITS`."""
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;" for p in ports)
    mime = next((p for p in ("/etc/nginx/mime.types", "/usr/local/nginx/conf/mime.types") if Path(p).exists()), None)
    text = TEMPLATE.read_text()
    for name, value in (LIMITS | (limits or {})).items():
        text = text.replace(f"@{name}@", str(value))
    text = text.replace("@RUN@", str(run)).replace("@LISTEN@", f"127.0.0.1:{listen}").replace("@SERVERS@", servers)
    text = text.replace("@USER@", "user root;" if os.geteuid() == 0 else "")  # workers read files of this user
    return text.replace("include @MIME_TYPES@;", f"include {mime};" if mime else "")


class Cluster:
    """Start and stop PostgreSQL (optional), the replicas and nginx; :meth:`stop_replica` kills one replica."""

    def __init__(
        self,
        replicas: int = 3,
        port: int = 8600,
        database_url: str | None = None,
        run_dir: Path | None = None,
        server_opts: tuple[str, ...] = (),
    ):
        self.n, self.port = replicas, port
        self.ports = [port + 1 + i for i in range(replicas)]
        self.run = Path(run_dir or ROOT / ".dpx-data" / "cluster")
        self.database_url = database_url or os.environ.get("DATABASE_URL") or None
        self.server_opts = server_opts
        self.pg: PostgresServer | None = None
        self.procs: list[subprocess.Popen | None] = []
        self.nginx: subprocess.Popen | None = None

    def __enter__(self) -> Cluster:
        try:
            self.start()
        except BaseException:  # e.g. nginx missing: stop what did start (PostgreSQL, replicas) instead of leaving it
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _replica(self, port: int) -> subprocess.Popen:
        env = {
            **os.environ,
            "DATABASE_URL": self.database_url,
            "PYTHONPATH": str(ROOT),
            "STREAMLIT_SERVER_COOKIE_SECRET": self.secret,
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
        }
        cmd = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(ROOT / "app" / "serve.py"),
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--server.fileWatcherType",
            "none",
            "--browser.gatherUsageStats",
            "false",
            *(f"--{o}" for o in self.server_opts),
        ]
        log = open(self.run / f"replica-{port}.log", "ab")  # noqa: SIM115 — lives as long as the process
        return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def start(self) -> None:
        self.run.mkdir(parents=True, exist_ok=True)
        for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (self.run / "tmp" / sub).mkdir(parents=True, exist_ok=True)
        if not self.database_url:
            found = bindir()
            if found is None:
                raise SystemExit("PostgreSQL is not installed (make postgres) and no --database-url was given")
            self.pg = PostgresServer(found, root=self.run / "postgres")
            self.pg.start()
            self.database_url = self.pg.url
        self.secret = secrets.token_hex(32)
        self.procs = [self._replica(p) for p in self.ports]
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        (self.run / "nginx.conf").write_text(nginx_conf(self.run, self.port, self.ports))
        self.nginx = subprocess.Popen(
            [nginx, "-p", str(self.run), "-c", str(self.run / "nginx.conf"), "-g", "daemon off;"],
            cwd=self.run,
            start_new_session=True,
        )
        deadline = time.monotonic() + 180
        while not all(healthy(p) for p in self.ports) or not healthy(self.port):
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the cluster did not become healthy; see the logs in {self.run}")
            if self.nginx.poll() is not None:
                self.stop()
                raise RuntimeError(f"nginx exited; see {self.run / 'nginx-error.log'}")
            time.sleep(0.5)

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs if p is not None and p.poll() is None]

    def stop_replica(self, i: int, sig: int = signal.SIGKILL) -> None:
        """Stop replica ``i`` (default: killed, as a crashed server) — its sessions must move to another one."""
        p = self.procs[i]
        if p is not None and p.poll() is None:
            os.killpg(p.pid, sig)
            p.wait(30)
        self.procs[i] = None

    def stop(self) -> None:
        if self.nginx is not None and self.nginx.poll() is None:
            self.nginx.terminate()
            self.nginx.wait(30)
        for i in range(len(self.procs)):
            self.stop_replica(i, signal.SIGTERM)
        if self.pg is not None:
            self.pg.stop("fast")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replicas", "-n", type=int, default=3)
    ap.add_argument("--port", type=int, default=8600)
    ap.add_argument("--database-url", default=None)
    a = ap.parse_args(argv)
    cluster = Cluster(a.replicas, a.port, a.database_url)
    cluster.start()
    print(
        f"DP Explorer on http://127.0.0.1:{a.port}/ ({a.replicas} replicas on ports {cluster.ports[0]}–"
        f"{cluster.ports[-1]}, ledgers in {'PostgreSQL' if cluster.pg else a.database_url}). Ctrl-C stops it.",
        flush=True,
    )
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    try:
        while not stop:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
