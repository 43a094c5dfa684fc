"""What the background workers (app.background) import once, in the forkserver they fork from.

Nothing else imports this module: its settings apply to the worker processes only.

The compute modules decorate functions with ``st.cache_data`` at import; outside a Streamlit server that logs a
"No runtime found" warning per function, which says nothing useful in a worker (jobs call the plain functions).
"""

import multiprocessing.spawn

import streamlit.logger

# A worker is forked from the forkserver and then "prepared" with the parent's __main__, which in a Streamlit server
# is whatever page script ran last: re-running it here (as __mp_main__) would be wrong and slow. Job functions are
# importable by module name, so a worker needs nothing from the parent's __main__ (app.background also hides it).
multiprocessing.spawn._fixup_main_from_path = lambda main_path: None  # noqa: SLF001
multiprocessing.spawn._fixup_main_from_name = lambda mod_name: None  # noqa: SLF001

streamlit.logger.set_log_level("error")

import dpcore  # noqa: E402,F401 — imported for the workers
from app.compute import brdp, ldp, r2dp  # noqa: E402,F401


def limit_memory(limit_bytes: int) -> None:
    """Cap this worker's data memory (heap and anonymous mappings) at ``limit_bytes`` (``RLIMIT_DATA``).

    Runs in each worker as it starts (the pool's initializer). An allocation beyond the cap fails with
    ``MemoryError`` inside the job, which the panel reports, instead of the system swapping or killing processes.
    The cap only lowers the soft limit, never above the hard one.
    """
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    cap = int(limit_bytes) if hard == resource.RLIM_INFINITY else min(int(limit_bytes), hard)
    resource.setrlimit(resource.RLIMIT_DATA, (cap, hard))
