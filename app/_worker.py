"""What the background workers (app.jobs) import once, in the forkserver they fork from.

Nothing else imports this module: its settings apply to the worker processes only.

Streamlit's log is set to errors only: its warnings about a missing runtime say nothing useful in a worker.
"""

import multiprocessing.spawn
import os
import resource
import threading
import time

import streamlit.logger

# A worker is forked from the forkserver and then "prepared" with the parent's __main__, which in a Streamlit server
# is whatever page script ran last: re-running it here (as __mp_main__) would be wrong and slow. Job functions are
# importable by module name, so a worker needs nothing from the parent's __main__ (app.jobs also hides it).
multiprocessing.spawn._fixup_main_from_path = lambda main_path: None  # noqa: SLF001
multiprocessing.spawn._fixup_main_from_name = lambda mod_name: None  # noqa: SLF001

streamlit.logger.set_log_level("error")

# pandas keeps text columns in Arrow arrays, and Arrow's default allocator (mimalloc) reserves about 1 GiB of address
# space at its first allocation. Made in the forkserver (a module below builds a table with text when imported), that
# reservation would count against every worker's data limit (RLIMIT_DATA, app.jobs) and leave it no room at all; the
# system allocator reserves nothing ahead.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

import dpcore  # noqa: E402,F401 — imported for the workers
from app import decks, slides  # noqa: E402,F401 — the in-figure sliders' pictures (their decks built ahead)
from app.compute import brdp, ldp, negotiate, r2dp  # noqa: E402,F401

#: How much lower a worker's CPU priority is than the server's: on a 2-core machine a heavy job started by a slider
#: move would otherwise slow that very move's page rerun (the page first, the panel that waits for a job after).
NICENESS = 10
#: The regular workers' (app.jobs): lower still, so that heavy sessions computing panels back to back leave the
#: cores to a light session's job on an express worker (at :data:`NICENESS`) when both run at once. The kernel then
#: gives an express worker about seven times the CPU share of a regular one (weights 110 and 15).
HEAVY_NICENESS = 19


def limit_memory(limit_bytes: int, server_pid: int | None = None, niceness: int = NICENESS) -> None:
    """The pool's initializer, run in each worker as it starts: cap its data memory, lower its CPU priority by
    ``niceness`` and tie its life to the server's.

    * ``RLIMIT_DATA`` (heap and anonymous mappings) at ``limit_bytes``: an allocation beyond it fails with
      ``MemoryError`` inside the job, which the panel reports, instead of the system swapping or killing processes.
      Only the soft limit is lowered, never above the hard one.
    * With ``server_pid``, a daemon thread ends the worker once that process is gone: an idle worker would otherwise
      wait forever on its queue (and keep the forkserver alive) after the server stopped, and a busy one would finish
      a job nobody can read.
    """
    os.nice(niceness)
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    cap = int(limit_bytes) if hard == resource.RLIM_INFINITY else min(int(limit_bytes), hard)
    resource.setrlimit(resource.RLIMIT_DATA, (cap, hard))
    if server_pid is not None:
        threading.Thread(target=_exit_with, args=(int(server_pid),), name="dpx-worker-watchdog", daemon=True).start()


def serve(conn, limit_bytes: int, server_pid: int, niceness: int = NICENESS) -> None:
    """A background worker's life (app.worker_process): take its limits (:func:`limit_memory`), then run the jobs
    that arrive on ``conn`` one at a time, answering each with ``(True, value)`` or ``(False, the exception)``, until
    the server closes the pipe (or kills the process)."""
    limit_memory(limit_bytes, server_pid, niceness)
    while True:
        try:
            fn, args = conn.recv()
        except (EOFError, OSError):
            return
        except Exception as exc:  # noqa: BLE001 — a job that cannot be read here (e.g. its module is missing)
            conn.send((False, exc))
            continue
        try:
            answer = (True, fn(*args))
        except Exception as exc:  # noqa: BLE001 — the job's failure (MemoryError too) is the panel's to show
            answer = (False, exc)
        try:
            conn.send(answer)
        except Exception as exc:  # noqa: BLE001 — a value or an exception that cannot be sent back
            conn.send((False, RuntimeError(f"the result could not be sent back ({type(exc).__name__}: {exc})")))


def _exit_with(pid: int, every: float = 2.0) -> None:
    """Exit this process as soon as process ``pid`` no longer exists (polled every ``every`` seconds)."""
    while True:
        time.sleep(every)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:  # exists, owned by someone else
            pass
