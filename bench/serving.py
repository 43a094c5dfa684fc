"""The app or a lesson served for real on a loopback port, for the benches and the browser tests (tests/e2e).

One start-up for both: ``python -m streamlit run app/serve.py`` or ``python -m marimo run notebooks/<name>.py`` from
the project root, polled on its health address until it answers, stopped (terminate, then kill) on exit.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Debian chromium's flags for a headless run in a container (no sandbox, no GPU, nothing fetched in the background)
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
#: one BLAS thread per process, so that a bench's server does not compete with itself on a small machine
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def free_port() -> int:
    """A TCP port free on 127.0.0.1 at the time of asking."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def streamlit_args(port: int, extra: Sequence[str] = ()) -> list[str]:
    """``streamlit run app/serve.py`` headless on 127.0.0.1:port, file watcher off (XSRF protection left on)."""
    return [
        "streamlit",
        "run",
        str(ROOT / "app" / "serve.py"),
        "--server.headless",
        "true",
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
        *extra,
    ]


def marimo_args(name: str, port: int, root: Path = ROOT) -> list[str]:
    """``marimo run <root>/notebooks/<name>.py`` (read-only app, no token) headless on 127.0.0.1:port."""
    return [
        "marimo",
        "run",
        str(root / "notebooks" / f"{name}.py"),
        "--headless",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-token",
    ]


@contextlib.contextmanager
def served(
    module: Sequence[str],
    port: int,
    *,
    health: str,
    seconds: float,
    what: str,
    env: Mapping[str, str] | None = None,
    log: Path | None = None,
    cwd: Path = ROOT,
) -> Iterator[subprocess.Popen]:
    """Run ``python -m <module…>`` from ``cwd``, the project root unless told (``env`` on top of this process's
    environment, output to ``log`` or nowhere), wait until ``http://127.0.0.1:<port><health>`` answers 200, yield the
    process; stop it on exit. Raises ``RuntimeError`` when the process ends first or ``seconds`` pass without an
    answer."""
    if log:
        log.parent.mkdir(parents=True, exist_ok=True)
    out = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115 — closed after the server stops
    proc = subprocess.Popen(
        [sys.executable, "-m", *module],
        cwd=cwd,
        stdout=out,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
    )
    try:
        deadline = time.monotonic() + seconds
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{health}", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    seen = f" (see {log})" if log else ""
                    raise RuntimeError(f"{what} on port {port} did not start within {seconds} s{seen}") from None
                time.sleep(0.3)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        if log:
            out.close()
