"""One background worker process that runs one job at a time and can be ended at once (app.jobs).

A pool of processes (``concurrent.futures.ProcessPoolExecutor``) cannot stop one running job: killing one of its
workers breaks the whole pool and fails its other running jobs too. Each :class:`Worker` is therefore a process of
its own, forked from the forkserver that has imported dpcore and the compute modules (``app._worker``), talking to
the server over a pipe: :meth:`Worker.run` sends a job and a thread waits for its answer; :meth:`Worker.kill` ends
the process at once, whatever it is computing; :meth:`Worker.retire` lets an idle one exit.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

#: What :meth:`Worker.run` calls with the job's outcome: (value, None) or (None, the exception it raised).
Done = Callable[[Any, BaseException | None], None]


class WorkerLost(RuntimeError):
    """The worker process running a job died before finishing it (killed, e.g. by the system when out of memory)."""


@contextlib.contextmanager
def no_main() -> Iterator[None]:
    """Hide ``__main__`` while a worker process starts.

    During a script run Streamlit's ``__main__`` is the page script; a forkserver child would re-run it (as
    ``__mp_main__``) before it could take a job. An empty ``__main__`` tells multiprocessing there is nothing to re-run.
    """
    main = sys.modules.get("__main__")
    stub = sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        # Streamlit itself sets __main__ at the start of every script run (of any session); put ours back only if no
        # run has replaced the stub meanwhile.
        if main is not None and sys.modules.get("__main__") is stub:
            sys.modules["__main__"] = main


def context(preload: list[str]) -> Any:
    """The forkserver context whose server imports ``preload`` once (the workers fork from it)."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(preload)
    return ctx


class Worker:
    """A worker process: data memory capped at ``memory_limit`` bytes, ``niceness`` below the server's CPU priority,
    ending with the server (``app._worker.serve``). Start it with ``__main__`` hidden (app.jobs does)."""

    def __init__(self, ctx: Any, memory_limit: int, niceness: int) -> None:
        from app import _worker  # noqa: PLC0415 — the target must be importable by module name in the worker

        conn, child = ctx.Pipe()
        self.process = ctx.Process(
            target=_worker.serve,
            args=(child, memory_limit, os.getpid(), niceness),
            name="dpx-background-worker",
            daemon=True,
        )
        self.process.start()
        child.close()  # the worker's end lives in the worker only: its death then reads as the end of the pipe
        self._conn = conn
        self._busy = False

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.is_alive()

    def run(self, fn: Callable[..., Any], args: tuple, done: Done) -> None:
        """Send ``fn(*args)`` to the worker; ``done`` is called from another thread with its outcome. Raises what
        pickling the job raises (a function that is not importable) and ``OSError`` when the worker is gone."""
        self._conn.send((fn, args))
        self._busy = True
        threading.Thread(target=self._wait, args=(done,), name="dpx-background-reply", daemon=True).start()

    def _wait(self, done: Done) -> None:
        try:
            ok, payload = self._conn.recv()
        except (EOFError, OSError):
            self._busy = False
            self._close()
            done(
                None,
                WorkerLost(
                    "the worker computing this panel stopped before finishing (it was killed, "
                    "possibly for lack of memory)"
                ),
            )
            return
        except Exception as exc:  # noqa: BLE001 — an answer that cannot be read back: the job's failure
            self._busy = False
            done(None, RuntimeError(f"the background job's answer could not be read ({type(exc).__name__})"))
            return
        self._busy = False
        if ok:
            done(payload, None)
        else:
            done(None, payload)

    def kill(self) -> None:
        """End the process now (SIGKILL); a job it was running reports :class:`WorkerLost` to its ``done``, which
        the caller has already stopped listening to."""
        self.process.kill()
        if not self._busy:
            self._close()

    def retire(self) -> None:
        """Let an idle worker exit (it reads the end of its pipe); a busy one is killed."""
        if self._busy:
            self.kill()
        else:
            self._close()

    def _close(self) -> None:
        try:
            self._conn.close()
        except OSError:
            pass
